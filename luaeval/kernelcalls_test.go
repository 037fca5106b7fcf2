package luaeval

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/minilock/minilock/luaeval/internal/seam"
)

// byteGen writes numeric loops and loops over ipairs whose bodies a kernel
// runs with calls of string.byte and table reads and writes
// (seam/kernel.go's kByte, kGetTab, kSetTab, kIpairs) besides arithmetic: positions in and out of the string
// (negative, zero, fractional, NaN), tables with holes, strings and
// booleans among the numbers, a metatable with __index and __newindex,
// keys past the array part (the table grows), NaN and nil keys, a value
// that is not a table or not string.byte; so the kernel's checks fail
// and the interpreter takes over anywhere in the loop, errors included.
type byteGen struct {
	loopGen
}

func (g *byteGen) index(scope []string) string {
	switch g.r.Intn(6) {
	case 0:
		return g.pick("0", "-1", "-3", "1.5", "(0/0)", "9", "100", "2^53", "-0", "3")
	case 1:
		return "i"
	case 2:
		return "i % 5 + 1"
	default:
		return g.expr(scope, 1) + " % " + g.pick("4", "6", "8", "12") + " + " + g.pick("1", "0", "-2")
	}
}

func (g *byteGen) callStmt(b *strings.Builder, scope []string, indent string) {
	v := g.vars[g.r.Intn(len(g.vars))]
	switch g.r.Intn(9) {
	case 0, 1, 2:
		fmt.Fprintf(b, "%s%s = %s + string.byte(%s, %s) * %s\n", indent, v, g.operand(scope), g.pick("'abcdefgh'", "'xyz'", "'\\0\\255'", "''", "'Zz9'"), g.index(scope), g.constant())
	case 3:
		fmt.Fprintf(b, "%s%s = t[%s] + %s\n", indent, v, g.index(scope), g.operand(scope))
	case 4:
		fmt.Fprintf(b, "%st[%s] = %s\n", indent, g.index(scope), g.expr(scope, 1))
	case 5:
		fmt.Fprintf(b, "%st[%s] = t[%s] + %s\n", indent, g.index(scope), g.index(scope), g.operand(scope))
	case 7:
		// A string in a local: moved to the call's argument, assigned.
		if g.r.Intn(4) == 0 {
			fmt.Fprintf(b, "%sstr = %s\n", indent, g.pick("'hello'", "'q'", "''", "'42'"))
		} else {
			fmt.Fprintf(b, "%s%s = %s + string.byte(str, %s)\n", indent, v, g.operand(scope), g.index(scope))
		}
	case 6:
		// Not kernels': a call whose function is a local, two results.
		fmt.Fprintf(b, "%s%s = %s\n", indent, v, g.pick("sb('abc', i % 3 + 1)", "select(2, string.byte('abc', 1, 2)) + i", "#t + i"))
	default:
		fmt.Fprintf(b, "%s%s = %s\n", indent, v, g.expr(scope, 2))
	}
}

func (g *byteGen) script() string {
	var b strings.Builder
	g.vars = g.vars[:0]
	for i := 0; i < 2+g.r.Intn(3); i++ {
		v := fmt.Sprintf("v%d", i)
		g.vars = append(g.vars, v)
		fmt.Fprintf(&b, "local %s = %s\n", v, g.pick("0", "1", "2.5", "-7", "1e15"))
	}
	b.WriteString("local sb = string.byte\n")
	fmt.Fprintf(&b, "local str = %s\n", g.pick("'abcdefgh'", "'xyz'", "'12'", "ARGV[1]", "12", "nil"))
	n := g.r.Intn(12)
	switch g.r.Intn(10) {
	case 0:
		b.WriteString("local t = " + g.pick("5", "nil", "'str'") + "\n")
	case 1:
		fmt.Fprintf(&b, "local t = setmetatable({}, {__index = function(t, k) return 2 end, __newindex = function(t, k, v) rawset(t, k, v * 2) end})\nfor k = 1, %d do rawset(t, k, k) end\n", n)
	case 2:
		// Holes in the array part: __index and __newindex are consulted
		// for them.
		fmt.Fprintf(&b, "local t = setmetatable({1, 2, nil, 4, nil, 6, 7, nil}, {__index = {7, 8, 9, 10, 11, 12}, __newindex = function(t, k, v) rawset(t, k, v + 1) end})\n")
	default:
		b.WriteString("local t = {}\n")
		for k := 1; k <= n; k++ {
			x := fmt.Sprint(k * 3)
			if g.r.Intn(8) == 0 {
				x = g.pick("nil", "'9'", "true", "0.5", "-0")
			}
			fmt.Fprintf(&b, "t[%d] = %s\n", k, x)
		}
	}
	scope := append([]string{"i", "c"}, g.vars...)
	switch g.r.Intn(3) {
	case 0:
		// The generic for over ipairs, with the value or without.
		if g.r.Intn(3) == 0 {
			b.WriteString("local c = 0\nfor i in ipairs(t) do\n")
		} else {
			b.WriteString("local c = 0\nfor i, x in ipairs(t) do\n")
			scope = append(scope, "x")
		}
		b.WriteString("  c = c + 1\n  if c > 60 then break end\n")
	default:
		fmt.Fprintf(&b, "local c = 0\nfor i = %s, %s do\n  c = c + 1\n", g.pick("1", "1", "0", "-2", "3"), g.pick("10", "20", "5", "40"))
	}
	for k := 1 + g.r.Intn(5); k > 0; k-- {
		if g.r.Intn(5) == 0 {
			fmt.Fprintf(&b, "  if %s then\n", g.cond(scope, 0))
			g.callStmt(&b, scope, "    ")
			b.WriteString("  end\n")
			continue
		}
		g.callStmt(&b, scope, "  ")
	}
	b.WriteString("end\nlocal out = {}\n")
	for _, v := range append(g.vars, "c") {
		fmt.Fprintf(&b, "out[#out + 1] = string.format('%%.17g', %s)\n", v)
	}
	b.WriteString("if type(t) == 'table' then for k = -2, 45 do out[#out + 1] = tostring(rawget(t, k)) end out[#out + 1] = #t end\nreturn out\n")
	return b.String()
}

func genByteScripts(seed int64, n int) []string {
	g := &byteGen{loopGen{r: rand.New(rand.NewSource(seed)), noPow: true}}
	out := make([]string, n)
	for i := range out {
		out[i] = g.script()
	}
	return out
}

// TestKernelCallsAgainstInterpreter: generated loops with string.byte and
// table reads and writes give the same reply, errors with their positions
// included, run as kernels and by the interpreter alone; many run as
// kernels.
func TestKernelCallsAgainstInterpreter(t *testing.T) {
	scripts := genByteScripts(seed(t), 3000)
	e := newTestEngine(t, Config{})
	defer seam.KernelsOff.Store(false)
	seam.CountKernels.Store(true)
	defer seam.CountKernels.Store(false)
	ran, bad := 0, 0
	for _, s := range scripts {
		seam.KernelsOff.Store(true)
		want := evalReply(e, newFakeHost(), 2, s, "0", "hello")
		seam.KernelsOff.Store(false)
		n := seam.KernelRuns.Load()
		got := evalReply(e, newFakeHost(), 2, s, "0", "hello")
		if seam.KernelRuns.Load() > n {
			ran++
		}
		if got != want {
			t.Errorf("%s\ninterpreter %q\nkernel      %q", s, trunc(want), trunc(got))
			if bad++; bad == 5 {
				t.Fatal("stopping after 5 differences")
			}
		}
	}
	t.Logf("%d of %d scripts ran a kernel", ran, len(scripts))
	if ran < len(scripts)/3 {
		t.Fatalf("only %d of %d scripts ran a kernel", ran, len(scripts))
	}
}

// TestKernelCallsAgainstRedis: a smaller set of them against redis-server.
func TestKernelCallsAgainstRedis(t *testing.T) {
	diffAgainstRedis(t, genByteScripts(seed(t)+1, 300))
}

// TestKernelShapes: the benchmark's arith and table-array loops (and a
// hash over a constant string, ipairs loops) run as kernels and answer as
// Redis does.
func TestKernelShapes(t *testing.T) {
	scripts := []string{
		"local s = 0 for i = 1, 200 do s = (s + string.byte('abcdefgh', i % 8 + 1) * 3) % 1000 + i / 100 end return math.floor(s)",
		"local t = {} for i = 1, 200 do t[i] = i end local s = 0 for i = 1, #t do s = s + t[i] end return {s, #t}",
		"local h = 5381 for i = 1, 11 do h = (h * 33 + string.byte('hello world', -i)) % 4294967296 end return h",
		"local t = {} for i = 1, 10 do t[i * 2] = i end return {#t, t[4], t[20]}",
		"local t = {1, 2, 3} local s = 0 for i = 1, 5 do s = s + t[i] end return s",
		"local s = 0 for i = 1, 10 do s = s + string.byte('abc', i) end return s",
		"local t = {} for i = 1, 200 do t[i] = i end local s = 0 for _, v in ipairs(t) do s = s + v end return s",
		"local t = {1, 2, 3, 'x', 5} local s = 0 for i, v in ipairs(t) do s = s + i + v end return s",
		"local t = {5, 6, 7} local s = 0 for i in ipairs(t) do s = s * 2 + i end return s",
		"local s, h = 'hello world', 7 for i = 1, #s do h = (h * 31 + string.byte(s, i)) % 1000003 end return h",
		"local s, h = ARGV[1] or 'abc', 7 for i = 1, #s do h = (h * 31 + string.byte(s, i)) % 1000003 end return h",
	}
	seam.CountKernels.Store(true)
	defer seam.CountKernels.Store(false)
	for _, s := range scripts {
		runs := seam.KernelRuns.Load()
		diffAgainstRedis(t, []string{s})
		if seam.KernelRuns.Load() == runs {
			t.Errorf("no kernel ran: %s", s)
		}
	}
}
