package luaeval

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/minilock/minilock/luaeval/internal/seam"
)

// tailCallGen generates scripts whose functions end in `return F(...)` of
// a Go function (the VM loop's fastTailCallGo): library functions with
// few and many results, varargs, errors raised at levels 1 and 2, yields,
// a Go function calling back into Lua, called directly, through a Lua
// function that was itself tail-called, under pcall and in coroutines.
type tailCallGen struct{ r *rand.Rand }

func (g tailCallGen) pick(xs ...string) string { return xs[g.r.Intn(len(xs))] }

func (g tailCallGen) call() string {
	return g.pick(
		"select('#', ...)", "select(2, ...)", "select(-1, ...)", "select(5, ...)",
		"tostring(...)", "tonumber(...)", "type(...)", "math.floor(3.7)", "math.max(...)",
		"string.rep('ab', 3)", "string.byte('abc', 1, -1)", "string.format('%s-%s', ...)",
		"unpack({1, 2, nil, 4})", "unpack({...})", "unpack({}, 1, 3)",
		"error('boom')", "error('boom', 2)", "error('boom', 0)", "error({})", "error(nil)", "error(...)",
		"pcall(error, 'x')", "pcall(error, 'x', 2)", "pcall(function(...) return ... end, ...)",
		"pcall(nil)", "pcall(function() error('in', 2) end)", "xpcall(function() return nil + 1 end, function(e) return 'h:' .. e end)",
		"assert(false, 'asserted')", "assert(nil)", "assert(1, 2, 3)", "assert(...)",
		"rawget({k = 'v'}, 'k')", "rawequal(...)", "next({})",
		"cjson.encode({1, 'two', {a = 3}})", "cjson.decode('[1,2,{\"k\":null}]')", "cmsgpack.unpack(cmsgpack.pack(1, 'b', 3))",
		"coroutine.yield(1, 2)", "coroutine.running()", "table.concat({...}, ',')", "table.sort({...})",
		"string.gsub('hello', 'l', function(c) return c:upper() end)", "setmetatable({}, nil) and 1")
}

func (g tailCallGen) args() string {
	return g.pick("", "1", "1, 2, 3", "'7', 'x'", "nil, 2", "nil", "1, nil, 3, nil", "'a', 'b', 'c', 'd', 'e', 'f'", "{}")
}

func (g tailCallGen) stmt() string {
	f := "function(...) return " + g.call() + " end"
	a := g.args()
	if a != "" {
		a = ", " + a // after the function in each call below
	}
	switch g.r.Intn(6) {
	case 0:
		return fmt.Sprintf("put(pcall(%s%s))", f, a)
	case 1:
		// Through a Lua function's own tail call.
		return fmt.Sprintf("do local g = %s local function h(...) return g(...) end put(pcall(h%s)) end", f, a)
	case 2:
		// A local that the callee's closure captures (its upvalue is
		// open while the Go function runs).
		return fmt.Sprintf("do local n = 0 local inc = function() n = n + 1 return n end put(pcall(function(...) n = 5 return pcall(inc) end%s)) put(n) end", a)
	case 3:
		return fmt.Sprintf("do local co = coroutine.wrap(%s) put(pcall(co%s)) end", f, a)
	case 4:
		return fmt.Sprintf("put(select('#', pcall(%s%s)))", f, a)
	}
	return fmt.Sprintf("put(xpcall(function() return (%s)(0%s) end, function(e) return 'handled: ' .. tostring(e) end))", f, a)
}

func genTailCallScripts(seed int64, n int) []string {
	g := tailCallGen{rand.New(rand.NewSource(seed))}
	out := make([]string, n)
	for i := range out {
		var b strings.Builder
		b.WriteString(callPrelude)
		for range 1 + g.r.Intn(4) {
			b.WriteString(g.stmt())
			b.WriteByte('\n')
		}
		if g.r.Intn(4) == 0 {
			// The script's own chunk ends in one (its frame is the base).
			b.WriteString("R[#R + 1] = select('#', unpack(R))\nreturn " + g.pick("table.concat(R, ' ')", "unpack(R)", "error(table.concat(R, ' '))", "redis.status_reply(table.concat(R, ' '))"))
		} else {
			b.WriteString("return table.concat(R, ' ')")
		}
		out[i] = b.String()
	}
	return out
}

// TestTailCallsOfGoFunctions runs the generated scripts with the VM
// loop's fast paths on and off (gopher-lua's OP_TAILCALL handler) and on
// redis-server, and compares every reply.
func TestTailCallsOfGoFunctions(t *testing.T) {
	if !seam.Enabled() {
		t.Skip("the seam's hooks are off: there is no fast path")
	}
	scripts := genTailCallScripts(seed(t)+2600, 600)
	rc := dialRedis(t)
	fast, slow := newTestEngine(t, Config{}), newTestEngine(t, Config{})
	h := newFakeHost()
	defer seam.SetFastPaths(true)
	bad := 0
	for i, s := range scripts {
		seam.SetFastPaths(true)
		got := maskAddresses(evalReply(fast, h, 2, s, "0"))
		seam.SetFastPaths(false)
		handlers := maskAddresses(evalReply(slow, h, 2, s, "0"))
		want := maskAddresses(rc.do(t, "EVAL", s, "0"))
		if strings.HasPrefix(want, "-ERR Error compiling") {
			t.Fatalf("case %d does not compile: %q\n%s", i, want, s)
		}
		// A coroutine's function ending in a Go function's tail call
		// goes to gopher-lua's handler either way, which names neither
		// the script's line nor the function in a bad argument's error
		// ("bad argument #1 to '?'", Redis "user_script:2: bad argument
		// #1 to 'tonumber'"): compared with the handlers only.
		if strings.Contains(s, "coroutine.wrap(function(...) return") {
			want = handlers
		}
		if got != handlers || got != want {
			if bad++; bad <= 5 {
				t.Errorf("case %d:\n%s\nfast paths: %q\nhandlers:   %q\nredis:      %q", i, s[len(callPrelude):], got, handlers, want)
			}
		}
	}
	if bad > 0 {
		t.Fatalf("%d of %d cases differ", bad, len(scripts))
	}
}
