package luaeval

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/minilock/minilock/luaeval/internal/seam"
	"github.com/minilock/minilock/resp"
)

// loopGen writes scripts made of numeric for loops whose bodies the VM
// runs as kernels (seam/kernel.go): locals set from arithmetic on locals,
// the loop variable and constants (0, -0, huge, fractional, inf, NaN),
// nested ifs on comparisons, inner while loops, breaks; now and then a
// statement that is not a kernel's (a call, a string, a nested for), or a
// local that does not hold a number, so the interpreter takes the loop.
// Every loop ends: a counter breaks out after 40 iterations whatever the
// step (0 included).
type loopGen struct {
	r     *rand.Rand
	vars  []string
	other bool // statements a kernel does not run
	tmp   int
	// noPow leaves out ^: lauxlib.Pow is not always glibc's pow to the
	// last bit (123456789^2 is 15241578750190520 here and
	// 15241578750190522 in Redis), with or without kernels.
	noPow bool
}

func (g *loopGen) pick(xs ...string) string { return xs[g.r.Intn(len(xs))] }

func (g *loopGen) constant() string {
	return g.pick("0", "-0", "1", "-1", "2", "3", "7", "10", "0.5", "-2.5", "0.1", "1e308", "-1e308",
		"1e-300", "2^53", "2^53+1", "123456789", "1009", "(1/0)", "(-1/0)", "(0/0)", "(-(0/0))", "3.25", "-7")
}

func (g *loopGen) operand(scope []string) string {
	switch g.r.Intn(3) {
	case 0:
		return g.constant()
	default:
		return scope[g.r.Intn(len(scope))]
	}
}

func (g *loopGen) expr(scope []string, depth int) string {
	if depth <= 0 || g.r.Intn(3) == 0 {
		return g.operand(scope)
	}
	switch g.r.Intn(8) {
	case 0:
		return "-(" + g.expr(scope, depth-1) + ")" // not "--", a comment
	case 1:
		return "(" + g.expr(scope, depth-1) + ")"
	default:
		op := g.pick("+", "-", "*", "/", "%", "^", "%", "+")
		if op == "^" && g.noPow {
			op = "*"
		}
		return g.expr(scope, depth-1) + " " + op + " " + g.expr(scope, depth-1)
	}
}

func (g *loopGen) cond(scope []string, depth int) string {
	c := g.expr(scope, 1) + " " + g.pick("<", "<=", ">", ">=", "==", "~=") + " " + g.expr(scope, 1)
	switch g.r.Intn(6) {
	case 0:
		return "not (" + c + ")"
	case 1:
		if depth > 0 {
			return "(" + c + ") " + g.pick("and", "or") + " (" + g.cond(scope, depth-1) + ")"
		}
	}
	return c
}

func (g *loopGen) block(b *strings.Builder, scope []string, depth int, indent string) {
	for n := 1 + g.r.Intn(4); n > 0; n-- {
		g.stmt(b, scope, depth, indent)
	}
}

func (g *loopGen) stmt(b *strings.Builder, scope []string, depth int, indent string) {
	v := g.vars[g.r.Intn(len(g.vars))]
	switch k := g.r.Intn(20); {
	case k < 8 || depth <= 0:
		fmt.Fprintf(b, "%s%s = %s\n", indent, v, g.expr(scope, 3))
	case k < 12:
		fmt.Fprintf(b, "%sif %s then\n", indent, g.cond(scope, 1))
		g.block(b, scope, depth-1, indent+"  ")
		if g.r.Intn(2) == 0 {
			fmt.Fprintf(b, "%selseif %s then\n", indent, g.cond(scope, 1))
			g.block(b, scope, depth-1, indent+"  ")
		}
		if g.r.Intn(2) == 0 {
			fmt.Fprintf(b, "%selse\n", indent)
			g.block(b, scope, depth-1, indent+"  ")
		}
		fmt.Fprintf(b, "%send\n", indent)
	case k < 14:
		// A local of the body: a register written before it is read.
		g.tmp++
		t := fmt.Sprintf("t%d", g.tmp)
		fmt.Fprintf(b, "%slocal %s = %s\n", indent, t, g.expr(scope, 2))
		scope = append(scope[:len(scope):len(scope)], t)
		fmt.Fprintf(b, "%s%s = %s\n", indent, v, g.expr(scope, 2))
	case k < 15:
		g.tmp++
		w := fmt.Sprintf("w%d", g.tmp)
		fmt.Fprintf(b, "%slocal %s = 0\n%swhile %s < %d do\n", indent, w, indent, w, 1+g.r.Intn(4))
		g.block(b, append(scope[:len(scope):len(scope)], w), depth-1, indent+"  ")
		fmt.Fprintf(b, "%s  %s = %s + 1\n%send\n", indent, w, w, indent)
	case k < 16:
		fmt.Fprintf(b, "%sif %s then break end\n", indent, g.cond(scope, 0))
	case k < 17 && g.other:
		fmt.Fprintf(b, "%s%s = %s\n", indent, v, g.pick("math.floor("+v+")", "#tostring("+v+")", "("+v+" > 0 and 1 or 2)"))
	case k < 18 && g.other:
		g.tmp++
		j := fmt.Sprintf("j%d", g.tmp)
		fmt.Fprintf(b, "%sfor %s = 1, %d do\n", indent, j, 1+g.r.Intn(3))
		g.block(b, append(scope[:len(scope):len(scope)], j), depth-1, indent+"  ")
		fmt.Fprintf(b, "%send\n", indent)
	default:
		fmt.Fprintf(b, "%s%s = %s\n", indent, v, g.expr(scope, 2))
	}
}

func (g *loopGen) script() string {
	var b strings.Builder
	g.vars = g.vars[:0]
	g.tmp = 0
	g.other = g.r.Intn(4) == 0
	for i := 0; i < 2+g.r.Intn(4); i++ {
		v := fmt.Sprintf("v%d", i)
		g.vars = append(g.vars, v)
		init := g.constant()
		if g.r.Intn(40) == 0 {
			init = g.pick("nil", "'10'", "'x'", "true")
		}
		fmt.Fprintf(&b, "local %s = %s\n", v, init)
	}
	fmt.Fprintf(&b, "local c = 0\n")
	// Mostly loops that run (up with a positive step, down with a
	// negative one), limits reached exactly or not; else anything.
	start, limit, step := "1", "10", ""
	switch g.r.Intn(3) {
	case 0:
		start = g.pick("1", "0", "-3", "0.5", "-0", "1e15", "2^53", "-2.5")
		limit = g.pick("10", "20", "7.5", "100", "1e15+3", "(1/0)", "2^53+2", "c + 30", "v0")
		step = g.pick("", ", 1", ", 2", ", 0.5", ", 0.1", ", 3", ", 0.25", ", 1e300")
	case 1:
		start = g.pick("10", "0", "-0", "7.5", "1e15", "-2^53")
		limit = g.pick("1", "0", "-5", "-7.5", "-(1/0)", "-1e15", "v0")
		step = g.pick(", -1", ", -2", ", -0.5", ", -0.25", ", -3", ", -1e300")
	default:
		start = g.pick("1", "0", "-3", "10", "0.5", "-0", "1e15", "(0/0)", "2^53", "(1/0)")
		limit = g.pick("10", "1", "0", "-5", "7.5", "100", "(1/0)", "(-1/0)", "(0/0)", "v0")
		step = g.pick("", ", 1", ", -1", ", 0", ", -0", ", (1/0)", ", (-1/0)", ", (0/0)", ", 0.5")
	}
	fmt.Fprintf(&b, "for i = %s, %s%s do\n  c = c + 1\n  if c > 40 then break end\n", start, limit, step)
	g.block(&b, append([]string{"i", "c"}, g.vars...), 3, "  ")
	b.WriteString("end\nreturn {")
	for _, v := range append(g.vars, "c") {
		fmt.Fprintf(&b, "string.format('%%.17g', %s), ", v)
	}
	b.WriteString("}\n")
	return b.String()
}

func genLoopScripts(seed int64, n int, noPow bool) []string {
	g := &loopGen{r: rand.New(rand.NewSource(seed)), noPow: noPow}
	out := make([]string, n)
	for i := range out {
		out[i] = g.script()
	}
	return out
}

// TestKernelsAgainstInterpreter: generated numeric loops give the same
// reply, errors included, run as kernels and by the interpreter alone;
// most of them do run as kernels.
func TestKernelsAgainstInterpreter(t *testing.T) {
	scripts := genLoopScripts(seed(t), 4000, false)
	e := newTestEngine(t, Config{})
	defer seam.KernelsOff.Store(false)
	seam.CountKernels.Store(true)
	defer seam.CountKernels.Store(false)
	before := seam.KernelRuns.Load()
	ran, bad := 0, 0
	for _, s := range scripts {
		seam.KernelsOff.Store(true)
		want := evalReply(e, newFakeHost(), 2, s, "0")
		seam.KernelsOff.Store(false)
		n := seam.KernelRuns.Load()
		got := evalReply(e, newFakeHost(), 2, s, "0")
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
	t.Logf("%d of %d scripts ran a kernel (%d kernel runs)", ran, len(scripts), seam.KernelRuns.Load()-before)
	if ran < len(scripts)*2/5 {
		t.Fatalf("only %d of %d scripts ran a kernel", ran, len(scripts))
	}
}

// TestKernelsAgainstRedis: a smaller set of the generated loops against
// redis-server (without ^, see noPow).
func TestKernelsAgainstRedis(t *testing.T) {
	diffAgainstRedis(t, genLoopScripts(seed(t)+1, 400, true))
}

// TestKernelNaNOperands: when both operands of an operation are NaNs of
// different signs, Lua's C returns the first one's; so do the kernels, in
// both operand orders and for each operation.
func TestKernelNaNOperands(t *testing.T) {
	var scripts []string
	for _, op := range []string{"+", "-", "*", "/", "%", "^"} {
		for _, pre := range []string{"local x, y = 0/0, -(0/0)", "local x, y = -(0/0), 0/0", "local x, y = 0/0, 1", "local x, y = 1, -(0/0)"} {
			scripts = append(scripts,
				pre+" local z = 0 for i = 1, 3 do z = x "+op+" y end return string.format('%.17g', z)",
				pre+" local z = 0 for i = 1, 3 do z = y "+op+" x end return string.format('%.17g', z)")
		}
	}
	seam.CountKernels.Store(true)
	defer seam.CountKernels.Store(false)
	runs := seam.KernelRuns.Load()
	diffAgainstRedis(t, scripts)
	if n := seam.KernelRuns.Load() - runs; n < int64(len(scripts)) {
		t.Fatalf("%d kernel runs for %d scripts", n, len(scripts))
	}
}

// TestKernelKill: a loop the kernel runs for 10^9 iterations stops within
// milliseconds of SCRIPT KILL (EVAL) and FUNCTION KILL (FCALL), and lets
// Config.WhileBusy serve while it runs.
func TestKernelKill(t *testing.T) {
	bodies := []string{"local a, b = 0, 1 for i = 1, 1e9 do if i % 3 == 0 then a = a + i * 2 else a = a - 1 end b = (b * 7 + i) % 1009 end return a + b",
		// string.byte and a table's slots, in the kernel too.
		"local t, s = {0, 0}, 0 for i = 1, 1e9 do s = (s + string.byte('abc', i % 3 + 1) + t[2]) % 1009 t[1] = s end return s"}
	for i, fcall := range []bool{false, true, false, true} {
		body := bodies[i/2]
		t.Run(fmt.Sprint("body=", i/2, ",fcall=", fcall), func(t *testing.T) {
			served := make(chan struct{}, 1)
			e := newTestEngine(t, Config{BusyThreshold: 20 * time.Millisecond, WhileBusy: func() {
				select {
				case served <- struct{}{}:
				default:
				}
			}})
			seam.CountKernels.Store(true)
			defer seam.CountKernels.Store(false)
			runs := seam.KernelRuns.Load()
			var ch <-chan string
			if fcall {
				if _, err := e.FunctionLoad([]byte("#!lua name=k\nredis.register_function('k', function() "+body+" end)"), false); err != nil {
					t.Fatal(err)
				}
				c := make(chan string, 1)
				go func() { c <- fcallReply(e, newFakeHost(), 2, false, "k", "0") }()
				ch = c
			} else {
				ch = runAsync(e, newFakeHost(), body, "0")
			}
			if !waitFor(5*time.Second, func() bool { return isClosed(e.BusyChan()) }) {
				t.Fatal("not busy")
			}
			select {
			case <-served:
			case <-time.After(5 * time.Second):
				t.Fatal("WhileBusy not called while the kernel ran")
			}
			if seam.KernelRuns.Load() == runs {
				t.Fatal("the loop did not run as a kernel")
			}
			start := time.Now()
			var err error
			if fcall {
				err = e.KillFunction()
			} else {
				err = e.Kill()
			}
			if err != nil {
				t.Fatalf("kill = %v", err)
			}
			got := waitReply(t, ch, 5*time.Second)
			d := time.Since(start)
			// Without the kernel's poll the loop runs to its end, tens of
			// seconds; a second leaves room for a loaded machine (the
			// latency itself is logged, about 0.1 ms when idle).
			if d > time.Second {
				t.Errorf("the kill took %v", d)
			}
			t.Logf("stopped %v after the kill", d)
			if !strings.Contains(got, "killed by user") {
				t.Fatalf("reply %q", got)
			}
			if r := evalReply(e, newFakeHost(), 2, "return 1", "0"); r != ":1\r\n" {
				t.Fatalf("next script after kill: %q", r)
			}
		})
	}
}

// BenchmarkKernel runs loops with and without the kernels: numloop's
// body, the same with a call inside (no kernel), and short inner loops
// entered often (a kernel's entry and exit against few iterations).
//
//	go test -run '^$' -bench 'Kernel/' -benchtime 2000x ./luaeval/
func BenchmarkKernel(b *testing.B) {
	for _, c := range []struct{ name, script string }{
		{"numloop", "local a, b = 0, 1 for i = 1, 1000 do if i % 3 == 0 then a = a + i * 2 else a = a - 1 end b = (b * 7 + i) % 1009 end return a + b"},
		{"numloop-call", "local a, b = 0, 1 for i = 1, 1000 do if i % 3 == 0 then a = a + i * 2 else a = a - 1 end b = (b * 7 + string.byte('a')) % 1009 end return a + b"},
		{"inner-1", "local s = 0 for i = 1, 300 do for j = 1, 1 do s = s + j * i end end return s"},
		{"inner-3", "local s = 0 for i = 1, 300 do for j = 1, 3 do s = s + j * i end end return s"},
		{"nested", "local s = 0 for i = 1, 30 do for j = 1, 30 do s = (s + i * j) % 65521 end end return s"},
	} {
		for _, off := range []bool{false, true} {
			name := c.name + "/kernel"
			if off {
				name = c.name + "/interpreter"
			}
			b.Run(name, func(b *testing.B) {
				seam.KernelsOff.Store(off)
				defer seam.KernelsOff.Store(false)
				e := New(Config{})
				defer e.Close()
				sha, err := e.Load([]byte(c.script))
				if err != nil {
					b.Fatal(err)
				}
				args := [][]byte{[]byte(sha), []byte("0")}
				h := newFakeHost()
				w := &resp.Writer{}
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					w.B = w.B[:0]
					if err := e.EvalSHA(w, args, false, h); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
