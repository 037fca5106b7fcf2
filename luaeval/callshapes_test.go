package luaeval

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/minilock/minilock/luaeval/internal/seam"
)

// Calls and returns between Lua functions (seam/calls.go) against the VM's
// handlers: generated scripts of call shapes, run with the VM loop's fast
// paths on and off, must answer the same byte for byte (addresses masked),
// errors and their positions included. The shapes: functions of zero to
// four parameters called with fewer and more arguments, locals read before
// they are assigned after calls that leave values in the registers above
// (the registers a call clears), results moved by count (none, one, the
// exact count, more, all into a call or a constructor), varargs, tail
// calls, recursion deep enough to cross the call stack's segments and to
// overflow it, closures over loop variables and over a recursion's locals,
// method calls, comparisons and tests fused with their jump, and errors
// raised inside calls at every depth.

type shapeGen struct{ r *rand.Rand }

func (g shapeGen) pick(xs ...string) string { return xs[g.r.Intn(len(xs))] }

func (g shapeGen) val() string {
	return g.pick("0", "1", "-1", "7", "2.5", "8191", "8192", "-1025", "nil", "true", "false", "'s'", "'10'", "{}", "(0/0)", "k", "m")
}

// args is an argument list of 0 to 5 values, sometimes ending in a call
// of all its results.
func (g shapeGen) args() string {
	n := g.r.Intn(6)
	xs := make([]string, n)
	for i := range xs {
		xs[i] = g.val()
	}
	if g.r.Intn(4) == 0 {
		xs = append(xs, g.pick("mr()", "mr(2)", "none()", "va(1, nil, 3)", "unpack({1, 2, 3})", "(mr())"))
	}
	return strings.Join(xs, ", ")
}

// more is args after a comma, or nothing.
func (g shapeGen) more() string {
	if a := g.args(); a != "" {
		return ", " + a
	}
	return ""
}

// fn names a function of the prelude.
func (g shapeGen) fn() string {
	return g.pick("p0", "p1", "p2", "p4", "garbage", "fresh", "mr", "none", "va", "tl", "pick", "deep", "obj.m", "cnt")
}

const shapePrelude = `local R = {}
local function put(...) for j = 1, select('#', ...) do R[#R + 1] = tostring((select(j, ...))) end end
local k, m = 3, 'm'
local function p0() return 0 end
local function p1(a) return a end
local function p2(a, b) return b, a end
local function p4(a, b, c, d) local e return d, c, b, a, e end
local function garbage() local a, b, c, d, e, f = 1, 2, 3, 4, 5, 6 return a, b, c, d, e, f end
local function fresh(a) local b, c, d if a then return b, c, d end local e, f return e, f, a end
local function mr(n) if n == 2 then return 1, 2 end return 1, 2, 3, 4 end
local function none() end
local function va(...) local a, b = ... return select('#', ...), a, b, ... end
local function tl(n, acc) if type(n) ~= 'number' or not (n > 0) or n > 1000 then return acc end return tl(n - 1, (acc or 0) + 1) end
local function pick(a, b, c) if a then return b end return c end
local function deep(n, e) if type(n) ~= 'number' or n <= 0 then if e then error(e) end return nil + e end return (deep(n - 1, e)) end
local function cnt(...) return select('#', ...) end
local obj = {v = 9}
function obj.m(self, a) return self, a end
function obj:get(x) return self.v, x end
local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
local function sum(n) if n <= 0 then return 0 end local s = sum(n - 1) return s + n end
local function counter(start) local c = start return function(d) c = c + d return c end end
`

func (g shapeGen) stmt() string {
	switch g.r.Intn(20) {
	case 0:
		return fmt.Sprintf("put(%s(%s))", g.fn(), g.args())
	case 1:
		return fmt.Sprintf("put(pcall(%s%s))", g.fn(), g.more())
	case 2:
		// A call that leaves values above its results, then one whose
		// locals start unassigned.
		return fmt.Sprintf("do garbage() put(fresh(%s)) put(p4(%s)) end", g.val(), g.args())
	case 3:
		return fmt.Sprintf("do local a, b, c, d, e = %s(%s) put(a, b, c, d, e) end", g.fn(), g.args())
	case 4:
		return fmt.Sprintf("do local t = {%s(%s)} put(#t, t[1], t[4]) end", g.fn(), g.args())
	case 5:
		return fmt.Sprintf("put(cnt(%s(%s)), (%s(%s)))", g.fn(), g.args(), g.fn(), g.args())
	case 6:
		return fmt.Sprintf("put(fib(%d), sum(%d))", g.r.Intn(12), g.r.Intn(60))
	case 7:
		// Deep enough to cross segments, or to overflow the call stack.
		return fmt.Sprintf("put(pcall(sum, %s))", g.pick("8", "9", "16", "17", "100", "1000", "20000", "100000"))
	case 8:
		return fmt.Sprintf("put(pcall(deep, %d, %s))", g.r.Intn(30), g.pick("nil", "'boom'", "{}", "3"))
	case 9:
		return fmt.Sprintf("do local fs = {} for i = 1, %d do local j = i * 2 fs[i] = function(x) return i + j + (x or 0) end end local s = 0 for _, f in ipairs(fs) do s = s + f(%s) end put(s) end",
			g.r.Intn(10), g.pick("1", "nil", "2.5"))
	case 10:
		return fmt.Sprintf("do local s = 0 for i = 1, %d do local f = counter(i) f(1) s = s + f(%s) - 2 + i end put(s) end", g.r.Intn(60), g.pick("1", "-1", "0.5"))
	case 11:
		// Closures made in a recursion, over its locals.
		return fmt.Sprintf(`do local function mk(n) if n <= 0 then return function() return 0 end end local inner = mk(n - 1) return function() return n + inner() end end put(mk(%d)()) end`, g.r.Intn(20))
	case 12:
		return fmt.Sprintf("put(tl(%d, %s))", g.r.Intn(300), g.pick("nil", "1", "'x'"))
	case 13:
		return fmt.Sprintf("put(obj:get(%s), obj.m(%s))", g.val(), g.args())
	case 14:
		return fmt.Sprintf("put(pcall(function(...) local a, b = ... return %s(b, a, ...) end%s))", g.fn(), g.more())
	case 15:
		// Comparisons and tests with their jumps.
		a, b := g.val(), g.val()
		return fmt.Sprintf("put(pcall(function() local a, b = %s, %s local r = {} if a == b then r[1] = 'eq' end if a ~= b then r[2] = 'ne' end if a then r[3] = 't' end if not b then r[4] = 'nb' end r[5] = a and b r[6] = a or b if pcall(function() return a < b end) then r[7] = a < b end return unpack(r, 1, 7) end))", a, b)
	case 16:
		return fmt.Sprintf("do local n = 0 while n < %d do n = n + 1 if n %% 3 == 0 then n = n + 1 end end put(n) end", g.r.Intn(40))
	case 17:
		return fmt.Sprintf("put(pcall(function() local f = %s return f(%s) end))", g.pick("nil", "p1", "{}", "'s'", "obj", "1"), g.args())
	case 18:
		return fmt.Sprintf("put(select('#', %s(%s)), select(2, %s(%s)))", g.fn(), g.args(), g.pick("mr", "va", "p4"), g.args())
	default:
		return fmt.Sprintf("put((function(a, b, c) local x, y = b, c return %s(x, y, a) end)(%s))", g.fn(), g.args())
	}
}

func (g shapeGen) script() string {
	var b strings.Builder
	b.WriteString(shapePrelude)
	for range 1 + g.r.Intn(5) {
		b.WriteString(g.stmt())
		b.WriteByte('\n')
	}
	b.WriteString("return table.concat(R, ' ')")
	return b.String()
}

func genShapeScripts(seed int64, n int) []string {
	g := shapeGen{rand.New(rand.NewSource(seed))}
	out := make([]string, n)
	for i := range out {
		out[i] = g.script()
	}
	return out
}

// TestCallShapesMatchHandlers runs the call shapes on two engines, the VM
// loop's fast paths on and off, and compares every reply.
func TestCallShapesMatchHandlers(t *testing.T) {
	if !seam.Enabled() {
		t.Skip("the seam's hooks are off: there is no fast path")
	}
	s := seed(t)
	fast, slow := newTestEngine(t, Config{}), newTestEngine(t, Config{})
	h := newFakeHost()
	defer seam.SetFastPaths(true)
	bad, errs := 0, 0
	for i, script := range genShapeScripts(s+8000, 1500) {
		seam.SetFastPaths(true)

		got := maskAddresses(evalReply(fast, h, 2, script, "0"))
		seam.SetFastPaths(false)
		want := maskAddresses(evalReply(slow, h, 2, script, "0"))
		if strings.HasPrefix(want, "-ERR Error compiling") {
			t.Fatalf("case %d does not compile: %q\n%s", i, want, script)
		}
		if strings.HasPrefix(want, "-") {
			errs++
		}
		if got != want {
			if bad++; bad <= 5 {
				t.Errorf("case %d:\n%s\nfast paths: %q\nhandlers:   %q", i, script, got, want)
			}
		}
	}
	if bad > 0 {
		t.Fatalf("%d cases differ", bad)
	}
	// The batch must reach the error paths without being mostly errors.
	if errs == 0 || errs > 750 {
		t.Fatalf("%d of 1500 cases end in an error", errs)
	}
	t.Logf("%d of 1500 cases end in an error", errs)
}
