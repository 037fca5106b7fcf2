package luaeval

import (
	"fmt"
	"math/rand"
	"runtime/debug"
	"strings"
	"testing"
)

// cstackScript builds one script that nests C calls of a generated kind to
// a generated depth, counting the levels it reached: metamethods calling
// metamethods, tostring through __tostring, sort comparators, gsub
// callbacks, generic-for iterators, pcalls and coroutines resumed inside
// coroutines, mixed, under a pcall or not, and inside a coroutine or not.
// Lua 5.1 stops them at LUAI_MAXCCALLS (200) with "C stack overflow", and
// refuses a yield across any of them.
func cstackScript(r *rand.Rand) string {
	levels := []string{
		// Each is the body of f(k), which must call f(k-1) through one C
		// boundary, and returns f(k-1)'s result.
		"local t = setmetatable({}, {__index = function(_, key) return f(k - 1) end}) return t.x",
		"local t = setmetatable({}, {__index = function(_, key) return f(k - 1) end}) return t[1]",
		"local r local t = setmetatable({}, {__newindex = function() r = f(k - 1) end}) t.x = 1 return r",
		"local r = setmetatable({}, {__add = function() return f(k - 1) end}) return r + 1",
		"local r = setmetatable({}, {__concat = function() return f(k - 1) end}) return r .. 'x'",
		"local mt = {__eq = function() return f(k - 1) end} local a = setmetatable({}, mt) == setmetatable({}, mt) return n",
		"local mt = {__lt = function() return f(k - 1) end} local a = setmetatable({}, mt) < setmetatable({}, mt) return n",
		"return tostring(setmetatable({}, {__tostring = function() return tostring(f(k - 1)) end}))",
		"local r table.sort({2, 1}, function(a, b) r = f(k - 1) return a < b end) return r",
		"local r string.gsub('a', 'a', function() r = f(k - 1) end) return r",
		"local r for x in function(_, prev) if prev then return nil end r = f(k - 1) return 1 end do end return r",
		"local ok, v = pcall(f, k - 1) if not ok then error(v, 0) end return v",
		"local ok, v = xpcall(function() return f(k - 1) end, function(m) return m end) if not ok then error(v, 0) end return v",
		"return coroutine.wrap(f)(k - 1)",
		"local co = coroutine.create(f) local ok, v = coroutine.resume(co, k - 1) if not ok then error(v, 0) end return v",
	}
	// Mostly one kind per script (its depth is the clearest signal),
	// sometimes a mix.
	kinds := []int{r.Intn(len(levels))}
	if r.Intn(4) == 0 {
		kinds = append(kinds, r.Intn(len(levels)), r.Intn(len(levels)))
	}
	var b strings.Builder
	// Tables print by address, which differs between servers.
	b.WriteString("local function show(v) if type(v) == 'table' then return 'table:' .. tostring(v.err) end return tostring(v) end ")
	b.WriteString("local n = 0 local f f = function(k) n = n + 1 if k == 0 then ")
	// At the bottom: a value, a yield (refused across any boundary) or
	// an error, which Redis's error handler meets one C call deeper.
	b.WriteString([]string{"return n ", "return n ", "return coroutine.yield(n) ", "error('bottom') ", "local x = nil x = x + 1 ", "error({err = 'E' .. n}) "}[r.Intn(6)])
	b.WriteString("end ")
	for i, kind := range kinds {
		if i > 0 {
			fmt.Fprintf(&b, "elseif k %% %d == %d then ", len(kinds), i)
		} else if len(kinds) > 1 {
			fmt.Fprintf(&b, "if k %% %d == 0 then ", len(kinds))
		}
		b.WriteString(levels[kind] + " ")
	}
	if len(kinds) > 1 {
		b.WriteString("end ")
	}
	b.WriteString("end ")
	depth := []int{1, 50, 100, 150, 190, 195, 196, 197, 198, 199, 200, 201, 250, 1000, r.Intn(300), 97, 98, 99}[r.Intn(18)]
	call := fmt.Sprintf("f(%d)", depth)
	switch r.Intn(3) {
	case 0:
		fmt.Fprintf(&b, "local ok, v = pcall(function() return %s end) return {n, tostring(ok), show(v)}", call)
	case 1:
		fmt.Fprintf(&b, "local co = coroutine.create(function() return %s end) local ok, v = coroutine.resume(co) return {n, tostring(ok), show(v), coroutine.status(co)}", call)
	default:
		fmt.Fprintf(&b, "return {%s, n}", call)
	}
	return b.String()
}

// TestCStackAgainstRedis: generated nestings of C calls (see cstackScript)
// around Lua 5.1's limit of 200, against redis-server.
func TestCStackAgainstRedis(t *testing.T) {
	needHooks(t)
	r := rand.New(rand.NewSource(seed(t)))
	var scripts []string
	for range 400 {
		scripts = append(scripts, cstackScript(r))
	}
	diffAgainstRedis(t, scripts)
}

// TestMetaChainsAgainstRedis: __index and __newindex chains of tables of
// generated lengths around Lua 5.1's MAXTAGLOOP (100), ending in a value, a
// function or nothing, read and written with every kind of key access.
func TestMetaChainsAgainstRedis(t *testing.T) {
	needHooks(t)
	r := rand.New(rand.NewSource(seed(t)))
	ends := []string{"cur.x = 'end' cur[1] = 'one'", "setmetatable(cur, {__index = function(t, k) return 'fn:' .. tostring(k) end, __newindex = function(t, k, v) rawset(t, k, 'fn') end})", "", "setmetatable(cur, {__index = cur})"}
	access := []string{
		"return {pcall(function() return t.x end)}",
		"return {pcall(function() return t[1] end)}",
		"return {pcall(function() local k = 'x' return t[k] end)}",
		"return {pcall(function() return t:x() end)}",
		"local ok, e = pcall(function() t.y = 1 end) return {ok, e, rawget(cur, 'y')}",
		"local ok, e = pcall(function() t[2] = 1 end) return {ok, e, rawget(cur, 2)}",
		"return t.x",
		"t.y = 1 return rawget(cur, 'y')",
	}
	var scripts []string
	for range 300 {
		n := []int{0, 1, 50, 98, 99, 100, 101, 200, r.Intn(150)}[r.Intn(9)]
		ev := []string{"__index", "__newindex"}[r.Intn(2)]
		scripts = append(scripts, fmt.Sprintf("local t = {} local cur = t for i = 1, %d do local nxt = {} setmetatable(cur, {%s = nxt}) cur = nxt end %s %s",
			n, ev, ends[r.Intn(len(ends))], access[r.Intn(len(access))]))
	}
	diffAgainstRedis(t, scripts)
}

// The Go stack a script can make minilock use stays far below what a
// capped stack allows: C calls nest 200 deep at most, Lua-to-Lua calls use
// none, and a coroutine suspended or resumed inside another adds one C
// level each. Each script runs at the deepest nesting Lua 5.1 allows, in
// a process whose Go stacks are capped at cStackCap.
func TestCStackDepthsStayShallow(t *testing.T) {
	needHooks(t)
	// The cap is the whole process's: a goroutine past it kills the test
	// binary (fatal error: stack overflow), which is the failure this
	// test exists to show.
	defer debug.SetMaxStack(debug.SetMaxStack(cStackCap))
	e := newTestEngine(t, Config{})
	for _, s := range []string{
		"local t = setmetatable({}, {__index = function(t, k) return t[k] end}) return t.x",
		"local t = setmetatable({}, {__tostring = function(s) return tostring(s) end}) return tostring(t)",
		"local function f() return coroutine.wrap(f)() end return f()",
		"local function f() local co = coroutine.create(f) local ok, e = coroutine.resume(co) error(e, 0) end return f()",
		"local function f() return pcall(f) end return f()",
		"local function f(n) return 1 + f(n + 1) end return coroutine.wrap(function() return f(1) end)()",
		"local function g() local t = setmetatable({}, {__index = function(t, k) return coroutine.wrap(g)() end}) return t.x end return g()",
	} {
		got := evalReply(e, newFakeHost(), 2, s, "0")
		if !strings.HasPrefix(got, "-ERR") && !strings.HasPrefix(got, ":1") && !strings.HasPrefix(got, "*") {
			t.Errorf("EVAL %q: %q", s, trunc(got))
		}
	}
}

// cStackCap is the Go stack TestCStackDepthsStayShallow allows: an eighth
// of the 64 MiB cap the capped test run uses.
const cStackCap = 8 << 20

// TestCoroutineRuntimeErrorsAgainstRedis: the generated runtime errors of
// TestRuntimeErrorsAgainstRedis raised inside a coroutine, before and after
// a yield, seen through resume, through wrap (which puts its caller's
// position in front) and through a pcall inside the coroutine. Lua 5.1
// names the variable there too.
func TestCoroutineRuntimeErrorsAgainstRedis(t *testing.T) {
	needHooks(t)
	r := rand.New(rand.NewSource(seed(t) + 5000))
	var scripts []string
	for _, s := range genErrScripts(seed(t)+6000, 1500) {
		body := s
		if r.Intn(2) == 0 {
			body = "coroutine.yield(1) " + s
		}
		switch r.Intn(3) {
		case 0:
			scripts = append(scripts, "local co = coroutine.create(function() "+body+" end) local a, b = coroutine.resume(co) if a and b == 1 then a, b = coroutine.resume(co) end return {tostring(a), tostring(b)}")
		case 1:
			scripts = append(scripts, "local co = coroutine.wrap(function() "+body+" end) local ok, e = pcall(co) if ok and e == 1 then ok, e = pcall(co) end return {tostring(ok), tostring(e)}")
		default:
			scripts = append(scripts, "local co = coroutine.create(function() return pcall(function() "+s+" end) end) return {coroutine.resume(co)}")
		}
	}
	diffAgainstRedisBy(t, scripts, maskAddresses)
}
