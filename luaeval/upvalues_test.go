package luaeval

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// A caught error closes the upvalues of the frames its pcall unwinds and
// no others (luaD_pcall's luaF_close): a closure over a local of a frame
// outside the pcall stays linked to it. gopher-lua closed every frame's
// (closeAllUpvalues), so `local n = 0 local function f() n = n + 1 end
// pcall(error, 'x') f() return n` answered 0 where Redis answers 1.
func TestCaughtErrorsKeepOuterUpvaluesAgainstRedis(t *testing.T) {
	scripts := []string{
		"local n = 0 local function f() n = n + 1 end pcall(error, 'x') f() return n",
		"local n = 0 local function f() pcall(error, 'x') n = n + 1 end f() f() return n",
		"local n = 0 local function f() n = n + 1 end pcall(function() pcall(error, 'a') error('b') end) f() return n",
		"local get local ok = pcall(function() local m = 1 get = function() return m end m = 7 error('x') end) return get()",
		"local n = 0 local function inc() n = n + 1 end xpcall(function() error('e') end, function(m) inc() return m end) inc() return n",
		"local co = coroutine.create(function() local n = 0 local function f() n = n + 1 end pcall(error, 'x') f() coroutine.yield(n) f() return n end) local a, b = coroutine.resume(co) local c, d = coroutine.resume(co) return {b, d}",
		"local n = 0 local f = function() n = n + 1 end local ok = pcall(loadstring, 'x x') f() return n",
		"local n = 0 local f = function() n = n + 1 end local ok = pcall(redis.call, 'nosuchcommand') f() return n",
		"local n = 0 local f = function() n = n + 1 end local co = coroutine.create(function() error('x') end) coroutine.resume(co) f() return n",
	}
	r := rand.New(rand.NewSource(seed(t) + 7))
	for range 400 {
		scripts = append(scripts, genCaughtErrorScript(r))
	}
	diffTimed(t, scripts)
}

// genCaughtErrorScript nests functions that capture locals at every level,
// raises errors at random depths, catches some with pcall or xpcall, and
// reads and writes the captured locals before and after: what each
// closure sees is Redis's only if the right upvalues were closed.
func genCaughtErrorScript(r *rand.Rand) string {
	var b strings.Builder
	b.WriteString("local log = {} local function note(v) log[#log + 1] = tostring(v) end\n")
	var body func(depth int) string
	body = func(depth int) string {
		var s strings.Builder
		v := fmt.Sprintf("v%d", depth)
		fmt.Fprintf(&s, "local %s = %d local function get%d() return %s end local function set%d(x) %s = x end\n", v, depth, depth, v, depth, v)
		for i, n := 0, 1+r.Intn(4); i < n; i++ {
			switch r.Intn(7) {
			case 0:
				fmt.Fprintf(&s, "set%d(get%d() + %d)\n", depth, depth, 1+r.Intn(9))
			case 1:
				fmt.Fprintf(&s, "note(get%d())\n", depth)
			case 2:
				if depth < 4 {
					fmt.Fprintf(&s, "note(select('#', pcall(function()\n%s end)))\n", body(depth+1))
				}
			case 3:
				if depth < 4 {
					fmt.Fprintf(&s, "xpcall(function()\n%s end, function(e) set%d(get%d() * 2) return e end)\n", body(depth+1), depth, depth)
				}
			case 4:
				if depth > 0 && r.Intn(2) == 0 {
					fmt.Fprintf(&s, "if get%d() %% 2 == 0 then error('e%d') end\n", depth, depth)
				}
			case 5:
				fmt.Fprintf(&s, "%s = %s + 1\n", v, v)
			case 6:
				if depth > 0 {
					fmt.Fprintf(&s, "keep = keep or {} keep[#keep + 1] = get%d\n", depth)
				}
			}
		}
		return s.String()
	}
	b.WriteString("local keep = nil\n")
	b.WriteString(body(0))
	b.WriteString("if keep then for _, g in ipairs(keep) do note(g()) end end\nreturn log")
	return b.String()
}
