package luaeval

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/minilock/minilock/luaeval/internal/seam"
)

// The VM loop's fast paths (seam/loop.go) against the VM's handlers: the
// same generated scripts run on two engines, one with the loop running
// instructions itself and one with every instruction left to gopher-lua's
// handlers and minilock's hooks, must give the same reply byte for byte
// (table and function addresses masked), errors and their positions
// included. The scripts are the core-language and runtime-error batches
// (exprgen_test.go, errgen_test.go) and callGen's: calls with too few and
// too many arguments, recursion, tail calls, varargs, closures and shared
// upvalues, metamethods, coroutines, errors raised at every level, and
// arithmetic at the edges of the static small integers (seam/number.go).

type callGen struct{ r *rand.Rand }

func (g callGen) pick(xs ...string) string { return xs[g.r.Intn(len(xs))] }

// num is a number at the edges the loop's integer and boxed paths meet,
// or now and then something that is not a number.
func (g callGen) num() string {
	if g.r.Intn(12) == 0 {
		return g.pick("nil", "true", "'7'", "' 0x10 '", "'x'", "{}", "o")
	}
	return g.pick("0", "-0", "1", "-1", "2", "3", "-3", "7", "8191", "8192", "-1024", "-1025", "4096", "-512",
		"2.5", "-0.5", "1e15", "2^53", "(0/0)", "(1/0)", "(-1/0)", "1e-310", "100", "-8192", "12345")
}

// arith is an arithmetic expression over n, locals and numbers.
func (g callGen) arith(depth int) string {
	if depth == 0 || g.r.Intn(3) == 0 {
		return g.pick(g.num(), g.num(), "n", "i", "x")
	}
	if g.r.Intn(6) == 0 {
		return "(- " + g.arith(depth-1) + ")"
	}
	op := g.pick("+", "-", "*", "/", "%", "^", "+", "-", "*", "%")
	return "(" + g.arith(depth-1) + " " + op + " " + g.arith(depth-1) + ")"
}

// cond is a comparison or a test.
func (g callGen) cond() string {
	switch g.r.Intn(4) {
	case 0:
		return g.arith(1) + " " + g.pick("==", "~=", "<", "<=", ">", ">=") + " " + g.arith(1)
	case 1:
		return "not " + g.arith(0)
	case 2:
		return g.arith(0) + " and " + g.arith(0)
	default:
		return g.arith(0) + " " + g.pick("<", "==", "<=") + " " + g.num()
	}
}

// prelude defines the functions every statement may use.
const callPrelude = `local R = {}
local function put(...) for j = 1, select('#', ...) do R[#R + 1] = tostring((select(j, ...))) end end
local mt = {}
mt.__add = function(a, b) return 'add' end
mt.__sub = function(a, b) return rawequal(a, b) end
mt.__mul = function(a, b) return 6 end
mt.__unm = function(a) return 'unm' end
mt.__eq = function(a, b) return true end
mt.__lt = function(a, b) return false end
mt.__le = function(a, b) return true end
mt.__concat = function(a, b) return 'cat' end
mt.__index = function(t, k) return tostring(k) .. '!' end
mt.__call = function(self, a, b) return a, b end
local o = setmetatable({}, mt)
local o2 = setmetatable({}, mt)
local function two(a, b) return a, b end
local function sum(a, b, c) return (a or 0) + (b or 0) + (c or 0) end
local function va(...) local a, b = ... return select('#', ...), a, b, ... end
local function rec(n) if n <= 0 then return 0 end return n + rec(n - 1) end
local function tail(n, acc) if n <= 0 then return acc end return tail(n - 1, acc + n) end
local function mk(x) local c = x return function(d) c = c + d return c end, function() return c end end
local function boom(t) return t.y.z end
local function thrower(v, lvl) error(v, lvl) end
local Base = {} Base.__index = Base
function Base.get(self) return self.v end
function Base:name() return 'base' end
local Mid = setmetatable({}, Base) Mid.__index = Mid
function Mid:name() return 'mid ' .. tostring(self.v) end
local Leaf = setmetatable({}, Mid) Leaf.__index = Leaf
local obj = setmetatable({v = 5}, Leaf)
local bare = {v = 1, get = function(self) return self.v end}
`

// stmt is one statement that puts its results in R.
func (g callGen) stmt(depth int) string {
	x := g.arith(2)
	switch g.r.Intn(27) {
	case 0:
		return fmt.Sprintf("put(two(%s))", x)
	case 1:
		return fmt.Sprintf("put(two(%s, %s, %s))", x, g.num(), g.num())
	case 2:
		return fmt.Sprintf("put(sum(%s, %s))", x, g.num())
	case 3:
		return fmt.Sprintf("put(va(%s, nil, %s))", x, g.num())
	case 4:
		return fmt.Sprintf("put(va())")
	case 5:
		return fmt.Sprintf("put(rec(%d))", g.r.Intn(40))
	case 6:
		return fmt.Sprintf("put(tail(%d, %s))", g.r.Intn(300), g.num())
	case 7:
		return fmt.Sprintf("do local inc, get = mk(%s) inc(%s) put(inc(%s), get()) end", g.num(), g.num(), x)
	case 8:
		return fmt.Sprintf("do local s = 0 for i = 1, %d do local f = mk(i) f(%s) s = s + f(1) end put(s) end", g.r.Intn(30), g.num())
	case 9:
		return fmt.Sprintf("put(o + %s, %s + o, o - o, o * 2, -o, o == o2, o < o2, o <= o2, o .. 'x', o.k, o[%s], o(%s, 2))", x, x, g.num(), x)
	case 10:
		return fmt.Sprintf("put(pcall(boom, %s))", g.pick("nil", "{}", "{y = 1}", "{y = {z = 3}}", "5", "'s'"))
	case 11:
		return fmt.Sprintf("put(pcall(thrower, %s, %d))", g.pick("'msg'", "nil", "{}", "42", "'x' .. 1"), g.r.Intn(4))
	case 12:
		return fmt.Sprintf("put(pcall(function() return %s end))", x)
	case 13:
		return fmt.Sprintf("do local i = 0 while %s and i < 5 do i = i + 1 end put(i) end", g.cond())
	case 14:
		return fmt.Sprintf("if %s then put('y', %s) else put('n', %s) end", g.cond(), x, g.arith(1))
	case 15:
		return fmt.Sprintf("do local co = coroutine.wrap(function(a) local b = coroutine.yield(a + 1) return b * 2, tail(%d, 0) end) put(co(%s)) put(co(%s)) end",
			g.r.Intn(20), g.num(), g.num())
	case 16:
		return fmt.Sprintf("put(pcall(%s))", g.pick(
			"function() local function r(k) return 1 + r(k + 1) end return r(1) end",
			"function() local t = setmetatable({}, {__index = function(t, k) return t[k] end}) return t.x end",
			"function() return nil + 1 end", "function() local a return a.b end",
			"function() return ('x')() end", "function() return #5 end", "string.rep", "error"))
	case 17:
		return fmt.Sprintf("do local a, b, c = %s, %s put(a, b, c) a, b = b, a put(a, b, not a, not c) end", x, g.num())
	case 18:
		return fmt.Sprintf("do local t = {} for i = 1, %d do t[#t + 1] = function() return i * %s end end local s = {} for _, f in ipairs(t) do s[#s + 1] = f() end put(unpack(s)) end",
			g.r.Intn(8), g.num())
	case 19:
		return fmt.Sprintf("put(select('#', va(%s, %s)), (va(%s)))", x, g.num(), x)
	case 22:
		return fmt.Sprintf("put(pcall(function() return %s end))", g.pick(
			"obj:get(), obj:name(), obj.missing, Leaf.name(obj), Mid.get(obj)", "bare:get(), bare.nope",
			"('abc'):upper(), ('x'):rep(3), ('abc'):byte(2), ('s').len", "(5):m()", "obj:nope()", "bare.x.y",
			"string.nope, math.huge, math.floor(2.5), string.len('ab'), #KEYS, ARGV[1]",
			"undefined_global", "undefined_global.x", "string.byte('A'), table.concat({1, 2}, '-')",
			"(nil):m()", "o:method(1)", "coroutine.running()"))
	case 23:
		return fmt.Sprintf("do local t = setmetatable({}, {__index = %s}) put(pcall(function() return t.v, t.get, t[1] end)) end",
			g.pick("obj", "Base", "{v = 3}", "'str'", "function(t, k) return k end", "setmetatable({}, {__index = {v = 'deep'}})"))
	case 25, 26:
		// == and ~= over every type: equal and unequal strings of one
		// length, numbers and numeric strings, booleans, nil, the same
		// and different tables (with and without __eq), functions.
		v := func() string {
			return g.pick("'ab'", "'ba'", "'a'", "''", "'10'", "10", "n", "x", "true", "false", "nil", "o", "o2", "obj", "bare", "two", "sum", "put", "(0/0)", "-0", "0")
		}
		return fmt.Sprintf("do local a, b = %s, %s put(a == b, a ~= b, b == a, a == %s, %s ~= b) end", v(), v(), v(), v())
	case 24:
		return fmt.Sprintf("do local n = %s put(pcall(function() local s = 0 for i = 1, 10 do s = s + (n %% 7) * i - i / 4 end return s end)) end", x)
	case 20:
		if depth > 0 {
			return fmt.Sprintf("put(pcall(function(n, x) %s return %s end, %s, %s))", g.stmt(depth-1), g.arith(1), g.num(), g.num())
		}
		return "put(string.byte('abc', 2), math.floor(7.5), string.format('%d', 3))"
	default:
		return fmt.Sprintf("do local n, x = %s, %s for i = %s, %s, %s do n = %s end put(n) end",
			g.num(), g.num(), g.pick("1", "0", "-2", "8190"), g.pick("3", "10", "-1", "8200"), g.pick("1", "2", "-1", "0.5"), x)
	}
}

func (g callGen) script() string {
	var b strings.Builder
	b.WriteString(callPrelude)
	fmt.Fprintf(&b, "local n, x, i = %s, %s, %s\n", g.num(), g.num(), g.num())
	for range 1 + g.r.Intn(5) {
		// Statements that fail end the script with Lua's error, as a
		// script's error reply; most are inside a pcall of their own.
		b.WriteString(g.stmt(2))
		b.WriteByte('\n')
	}
	b.WriteString("return table.concat(R, ' ')")
	return b.String()
}

func genCallScripts(seed int64, n int) []string {
	g := callGen{rand.New(rand.NewSource(seed))}
	out := make([]string, n)
	for i := range out {
		out[i] = g.script()
	}
	return out
}

// TestFastPathsMatchHandlers runs the generated batches on two engines
// with the VM loop's fast paths on and off and compares every reply.
func TestFastPathsMatchHandlers(t *testing.T) {
	if !seam.Enabled() {
		t.Skip("the seam's hooks are off: there is no fast path")
	}
	s := seed(t)
	fast, slow := newTestEngine(t, Config{}), newTestEngine(t, Config{})
	h := newFakeHost()
	defer seam.SetFastPaths(true)
	const ncall = 3000
	scripts := append(genCallScripts(s+6000, ncall), genExprScripts(s+2000, 1500)...)
	scripts = append(scripts, genErrScripts(s+4000, 1000)...)
	bad := 0
	for i, script := range scripts {
		seam.SetFastPaths(true)
		got := maskAddresses(evalReply(fast, h, 2, script, "0"))
		seam.SetFastPaths(false)
		want := maskAddresses(evalReply(slow, h, 2, script, "0"))
		if i < ncall && strings.HasPrefix(want, "-ERR Error compiling") || strings.HasPrefix(want, "-ERR wrong number") {
			t.Fatalf("case %d does not run: %q\n%s", i, want, script)
		}
		if got != want {
			if bad++; bad <= 5 {
				t.Errorf("case %d:\n%s\nfast paths: %q\nhandlers:   %q", i, script, got, want)
			}
		}
	}
	if bad > 0 {
		t.Fatalf("%d of %d cases differ", bad, len(scripts))
	}
}

// TestSmallIntegerArithmetic: the loop's integer arithmetic on the static
// numbers gives Lua 5.1's floats, signed zeros and remainders included,
// and NaNs keep their signs (values as redis-server 7.0.15 prints them).
func TestSmallIntegerArithmetic(t *testing.T) {
	if !seam.Enabled() {
		t.Skip("the seam's hooks are off: gopher-lua's own arithmetic (signed zeros and NaNs differ)")
	}
	e := newTestEngine(t, Config{})
	h := newFakeHost()
	for script, want := range map[string]string{
		"local a, b = 8191, 1 return tostring(a + b)":                    "8192",
		"local a, b = -1024, 1 return tostring(a - b)":                   "-1025",
		"local a, b = 0, -1 return tostring(a * b)":                      "-0",
		"local a, b = -3, 0 return tostring(a * b)":                      "-0",
		"local a, b = 3, 0 return tostring(a * b)":                       "0",
		"local a, b = -4, 2 return tostring(a % b)":                      "0",
		"local a, b = 3, -2 return tostring(a % b)":                      "-1",
		"local a, b = -5, 3 return tostring(a % b)":                      "1",
		"local a, b = 5, -3 return tostring(a % b)":                      "-1",
		"local a, b = 7, 7 return tostring(a - b)":                       "0",
		"local a = -0 return tostring(a + 0)":                            "-0", // one constant for 0 and -0, as in Lua
		"local a = -0 return tostring(-a)":                               "0",
		"local a = 0 return tostring(-a)":                                "-0",
		"local a, b = 90, 91 return tostring(a * b)":                     "8190",
		"local a, b = 91, 91 return tostring(a * b)":                     "8281",
		"local a, b = 8191, 8191 return tostring(a + b)":                 "16382",
		"local a, b = 1, 3 return tostring(a / b)":                       "0.33333333333333",
		"local s = 0 for i = 8190, 8193 do s = i end return tostring(s)": "8193",
		// A NaN operand is the result, the left one first (x86's rule,
		// which Go's compiler may not follow: it can swap a*b).
		"local x = 0/0 return tostring((- x) * (0/0)) .. ' ' .. tostring((0/0) * (- x)) .. ' ' .. tostring((-x) + (0/0))": "nan -nan nan",
	} {
		if got := evalReply(e, h, 2, script, "0"); got != fmt.Sprintf("$%d\r\n%s\r\n", len(want), want) {
			t.Errorf("%s: %q, want %q", script, got, want)
		}
	}
}
