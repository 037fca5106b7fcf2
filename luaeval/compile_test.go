package luaeval

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/minilock/minilock/luaeval/internal/luac"
	"github.com/minilock/minilock/luaeval/internal/seam"
)

// TestCompileShapesAgainstRedis compiles and runs, on minilock and on
// redis-server, the sources that broke gopher-lua's compiler: too big for a
// recorded case file, and Redis survives them all.
func TestCompileShapesAgainstRedis(t *testing.T) {
	rc := dialRedis(t)
	e := newTestEngine(t, Config{})
	seq := func(n int) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			b.WriteString(strconv.Itoa(i))
			b.WriteByte(',')
		}
		return b.String()
	}
	for _, tc := range []struct {
		name   string
		script string
	}{
		{"30000 items", "return #{" + seq(30000) + "}"},
		{"30000 items, the last ones", "local t = {" + seq(30000) + "} return {t[25550], t[25551], t[30000], #t}"},
		{"100000 items", "local t = {" + seq(100000) + "} return {#t, t[100000]}"},
		{"2 MB call chain", "local function f() return f end return type(f" + strings.Repeat("()", 1<<20) + ")"},
		{"10 MB one-line sum", "local a = 1 return a" + strings.Repeat("+a", 5<<20)},
		{"1 MB field chain", "local t = {} t.x = t return type(t" + strings.Repeat(".x", 1<<19) + ")"},
		{"262143 constants", "local t = {" + seq(262143) + "} return #t"},
		{"262144 constants", "local t = {" + seq(262144) + "} return #t"},
		{"198 parentheses", "return " + strings.Repeat("(", 198) + "1" + strings.Repeat(")", 198)},
		{"199 parentheses", "return " + strings.Repeat("(", 199) + "1" + strings.Repeat(")", 199)},
		{"199 blocks", strings.Repeat("do ", 199) + strings.Repeat("end ", 199) + "return 1"},
		{"200 blocks", strings.Repeat("do ", 200) + strings.Repeat("end ", 200) + "return 1"},
		{"100000 local declarations", strings.Repeat("local x = 1 x = x + 1 ", 190) + strings.Repeat("do local y = 2 end ", 100000) + "return x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t0 := time.Now()
			want := rc.do(t, "EVAL", tc.script, "0")
			tr := time.Since(t0)
			t0 = time.Now()
			got := evalReply(e, newFakeHost(), 2, tc.script, "0")
			tm := time.Since(t0)
			t.Logf("%d bytes: redis-server %v, minilock %v: %q", len(tc.script), tr, tm, trunc(want))
			if got != want {
				t.Errorf("got %q\nwant %q", trunc(got), trunc(want))
			}
		})
	}
}

// TestCompileFallback runs, in a child process with the hooks off
// (MINILOCK_GOPHERLUA_HOOKS is read once per process), the compile path
// through gopher-lua's compiler: luac still checks each source, with Lua's
// messages, and refuses the shapes gopher-lua cannot compile safely.
func TestCompileFallback(t *testing.T) {
	if os.Getenv("LUAEVAL_FALLBACK_CHILD") == "1" {
		testCompileFallback(t)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestCompileFallback$", "-test.v")
	cmd.Env = append(os.Environ(), "MINILOCK_GOPHERLUA_HOOKS=off", "LUAEVAL_FALLBACK_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestCompileFallback") {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

func testCompileFallback(t *testing.T) {
	if seam.Enabled() {
		t.Fatal("hooks on with MINILOCK_GOPHERLUA_HOOKS=off")
	}
	e := newTestEngine(t, Config{})
	tooComplex := "-ERR Error compiling script (new function): user_script: script too complex for gopher-lua's compiler, which minilock uses when its gopher-lua hooks are off: "
	for _, tc := range []struct{ script, want string }{
		{"return 1 + 2", ":3\r\n"},
		{"local t = {} for i = 1, 3 do t[i] = i * i end return t", "*3\r\n:1\r\n:4\r\n:9\r\n"},
		{"local function f(...) return select('#', ...) end return f(1, 2, 3)", ":3\r\n"},
		{"return #{" + strings.Repeat("1,", 10000) + "}", ":10000\r\n"},
		{"local a = 1 return a" + strings.Repeat("+a", 400), ":401\r\n"},
		// Lua's own errors, from luac's front end
		{"x = = 1", "-ERR Error compiling script (new function): user_script:1: unexpected symbol near '='\r\n"},
		{"return " + strings.Repeat("(", 300) + "1" + strings.Repeat(")", 300), "-ERR Error compiling script (new function): user_script:1: chunk has too many syntax levels\r\n"},
		{"local t = {} t.goto = 1 return t.goto", "-ERR Error compiling script (new function): user_script:1: unexpected symbol near 'goto'\r\n"},
		// beyond luac.FallbackLimits
		{"return #{" + strings.Repeat("1,", 30000) + "}", tooComplex + "a table constructor with more than 10000 items\r\n"},
		{"local a = 1 return a" + strings.Repeat("+a", 5000), tooComplex + "nesting deeper than 500 (chained operators, calls and elseifs count)\r\n"},
		{"local function f() return f end return f" + strings.Repeat("()", 1<<20), tooComplex + "source longer than 262144 bytes\r\n"},
		{"local t = {} return {" + strings.Repeat("'s' .. #t,", 100) + "}", "*100\r\n" + strings.Repeat("$2\r\ns0\r\n", 100)},
		{"local s = '' for i = 1, 2000 do s = s .. i .. ',' end return loadstring('local t = {' .. s .. '} return #t')()", ":2000\r\n"},
		{"local s = '' for i = 1, 2001 do s = s .. i .. ',' end return select(2, loadstring('return {' .. s .. '}', '=s'))",
			"$144\r\ns: script too complex for gopher-lua's compiler, which minilock uses when its gopher-lua hooks are off: a function with more than 2000 constants\r\n"},
		{"local a = 1 if a then" + strings.Repeat(" elseif a then", 2000) + " end", tooComplex + "nesting deeper than 500 (chained operators, calls and elseifs count)\r\n"},
	} {
		if got := evalReply(e, newFakeHost(), 2, tc.script, "0"); got != tc.want {
			t.Errorf("EVAL %q\n got %q\nwant %q", trunc(tc.script), trunc(got), tc.want)
		}
	}
}

// TestKillDuringLoadstring: a long compile by loadstring polls the
// script's budget like any loop a script controls, so SCRIPT KILL stops it
// at once rather than when the compile ends.
func TestKillDuringLoadstring(t *testing.T) {
	src := strings.Repeat("x = 1 ", 1<<20)
	t0 := time.Now()
	if _, err := luac.Compile([]byte(src), "=s", luac.Options{}); err != nil {
		t.Fatal(err)
	}
	full := time.Since(t0)

	e := newTestEngine(t, Config{BusyThreshold: 10 * time.Millisecond})
	h := newFakeHost()
	marked := make(chan struct{})
	h.onCall = func(args [][]byte) {
		if string(args[0]) == "get" && string(args[1]) == "mark" {
			close(marked)
		}
	}
	script := "local s = string.rep('x = 1 ', 1048576) redis.call('get', 'mark') return loadstring(s) and 'compiled'"
	ch := runAsync(e, h, script, "0")
	<-marked
	if !waitFor(5*time.Second, func() bool { return isClosed(e.BusyChan()) }) {
		t.Fatal("not busy")
	}
	t1 := time.Now()
	if err := e.Kill(); err != nil {
		t.Fatalf("Kill = %v", err)
	}
	got := waitReply(t, ch, time.Minute)
	stopped := time.Since(t1)
	if !strings.HasPrefix(got, "-ERR Script killed by user with SCRIPT KILL...") {
		t.Fatalf("reply %q", got)
	}
	t.Logf("the compile takes %v; killed, it ended %v after SCRIPT KILL", full, stopped)
	if stopped > full/4 {
		t.Errorf("the script ended %v after SCRIPT KILL; the whole compile takes %v", stopped, full)
	}
}
