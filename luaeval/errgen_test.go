package luaeval

import (
	"fmt"
	"math/rand"
	"testing"
)

// Generated runtime errors: an operation (index, call, method call,
// arithmetic, concatenation, length, comparison) on a value reached
// through a local, an upvalue, a field, an indexed slot, a method or a
// constant, where the value is nil, a number, a string, a boolean or a
// table. Lua 5.1 names the variable in its message ("attempt to index
// field 'x' (a nil value)", "attempt to call method 'm' ..."), which
// minilock rebuilds from the instruction that failed; the messages must
// be Redis's word for word, position included.

type errGen struct{ r *rand.Rand }

func (g errGen) pick(xs ...string) string { return xs[g.r.Intn(len(xs))] }

// holder is a value that holds fields, one of whose may be missing.
func (g errGen) holder() string {
	return g.pick("{}", "{x = 1}", "{x = {}}", "{x = 'str'}", "{x = true}", "{[1] = {}}", "{x = {y = 2}}", "'str'", "5", "nil", "true")
}

// path reaches a value from the variable v.
func (g errGen) path(v string) string {
	switch g.r.Intn(8) {
	case 0:
		return v
	case 1:
		return v + ".x"
	case 2:
		return v + ".x.y"
	case 3:
		return v + "[1]"
	case 4:
		return v + "[k]"
	case 5:
		return v + ".x[1]"
	case 6:
		return "(" + v + ")"
	default:
		return v + "['x']"
	}
}

// operation applies something that may fail to e.
func (g errGen) operation(e string) string {
	switch g.r.Intn(10) {
	case 0:
		return "return " + e + ".z"
	case 1:
		return "return " + e + "()"
	case 2:
		return "return " + e + ":m()"
	case 3:
		return "return " + e + " + 1"
	case 4:
		return "return 1 - " + e
	case 5:
		return "return " + e + " .. 'a'"
	case 6:
		return "return #" + e
	case 7:
		return "return " + e + " < 1"
	case 8:
		return e + ".z = 1"
	default:
		return "return -" + e
	}
}

func (g errGen) script() string {
	h := g.holder()
	switch g.r.Intn(5) {
	case 0: // a local
		return fmt.Sprintf("local k = 'x' local t = %s %s", h, g.operation(g.path("t")))
	case 1: // an upvalue
		return fmt.Sprintf("local k = 'x' local t = %s local function f() %s end return f()", h, g.operation(g.path("t")))
	case 2: // a parameter, several calls deep
		return fmt.Sprintf("local k = 'x' local function f(t) %s end local function g(t) return f(t) end return g(%s)", g.operation(g.path("t")), h)
	case 3: // a constant table
		return fmt.Sprintf("local k = 'x' %s", g.operation(g.path("("+h+")")))
	default: // globals of the sandbox
		return fmt.Sprintf("local k = 'x' %s", g.operation(g.path(g.pick("redis", "string", "math", "KEYS", "ARGV", "cjson", "table"))))
	}
}

func genErrScripts(seed int64, n int) []string {
	g := errGen{rand.New(rand.NewSource(seed))}
	out := make([]string, n)
	for i := range out {
		out[i] = g.script()
	}
	return out
}

func TestRuntimeErrorsAgainstRedis(t *testing.T) {
	diffAgainstRedisBy(t, genErrScripts(seed(t)+4000, 2000), maskAddresses)
}
