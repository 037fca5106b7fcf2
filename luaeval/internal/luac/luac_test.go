package luac

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"

	"github.com/minilock/minilock/luaeval/internal/luac/luagen"
)

// Compile errors' exact wording is checked against redis-server by the
// recorded cases (luaeval/testdata/compile.jsonl); these tests cover the
// package's own API and properties.

func compileErr(t *testing.T, src string, opt Options) string {
	t.Helper()
	_, err := Compile([]byte(src), "@user_script", opt)
	if err == nil {
		return ""
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("%q: error %T %v", src, err, err)
	}
	return e.Msg
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		src   string
		depth int
		want  string
	}{
		{"x = = 1", 0, "user_script:1: unexpected symbol near '='"},
		{"local a\nlocal b\nreturn a +", 0, "user_script:3: unexpected symbol near '<eof>'"},
		{"return " + strings.Repeat("(", 198) + "1" + strings.Repeat(")", 198), 0, ""},
		{"return " + strings.Repeat("(", 198) + "1" + strings.Repeat(")", 198), 1, "user_script:1: chunk has too many syntax levels"},
		{"return " + strings.Repeat("(", 199) + "1" + strings.Repeat(")", 199), 0, "user_script:1: chunk has too many syntax levels"},
		{"return \x00", 0, "user_script:1: unexpected symbol"},
		{"return 'a\x00b' c", 0, "user_script:1: '<eof>' expected near 'c'"},
		{"return \"a\x00b\" + c d", 0, "user_script:1: '<eof>' expected near 'd'"},
		{"return \"a\x00b", 0, "user_script:1: unfinished string near '<eof>'"},
		{"return \"a\x00b\n", 0, "user_script:1: unfinished string near '\"a'"},
		{"return 1\x00", 0, ""},
		{"local function f() return ... end", 0, "user_script:1: cannot use '...' outside a vararg function near '...'"},
	} {
		if got := compileErr(t, tc.src, Options{CallDepth: tc.depth}); got != tc.want {
			t.Errorf("%q (depth %d):\n got %q\nwant %q", trunc(tc.src), tc.depth, got, tc.want)
		}
	}
}

// testSeed is LUAC_SEED, or the time; either way logged, so a failure can
// be run again.
func testSeed(t *testing.T) int64 {
	seed := time.Now().UnixNano()
	if s := os.Getenv("LUAC_SEED"); s != "" {
		var err error
		if seed, err = strconv.ParseInt(s, 10, 64); err != nil {
			t.Fatalf("LUAC_SEED: %v", err)
		}
	}
	t.Logf("seed %d (LUAC_SEED=%d to repeat)", seed, seed)
	return seed
}

func trunc(s string) string {
	if len(s) > 60 {
		return s[:30] + "..." + s[len(s)-20:]
	}
	return s
}

func TestChunkID(t *testing.T) {
	long := strings.Repeat("x", 100)
	for _, tc := range []struct {
		source string
		size   int
		want   string
	}{
		{"@user_script", IDSize, "user_script"},
		{"=name", IDSize, "name"},
		{"=" + long, IDSize, long[:59]},
		{"=" + long, MaxSrc, long[:79]},
		{"@" + long, IDSize, "..." + long[:52]},
		{"@" + long, MaxSrc, "..." + long[:72]},
		{"return 1", IDSize, `[string "return 1"]`},
		{"return 1\nreturn 2", IDSize, `[string "return 1..."]`},
		{"a\rb", IDSize, `[string "a..."]`},
		{long, IDSize, `[string "` + long[:43] + `..."]`},
		{long, MaxSrc, `[string "` + long[:63] + `..."]`},
		{long[:43], IDSize, `[string "` + long[:43] + `"]`},
		{"ab\x00cd\nef", IDSize, `[string "ab"]`},
		{"", IDSize, `[string ""]`},
	} {
		if got := ChunkID(tc.source, tc.size); got != tc.want {
			t.Errorf("ChunkID(%q, %d) = %q, want %q", tc.source, tc.size, got, tc.want)
		}
	}
}

// TestProto checks what the prototypes carry for gopher-lua's runtime.
func TestProto(t *testing.T) {
	src := "local t = {}\nfunction t.f(a, ...)\n  return string.rep(a, 2), ...\nend\nfor k in next, t do end\nreturn t:f(1)"
	p, err := Compile([]byte(src), "@user_script", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p.SourceName != "user_script" || p.LineDefined != 0 || p.IsVarArg != lua.VarArgIsVarArg || p.NumParameters != 0 {
		t.Errorf("main: %q %d %d %d", p.SourceName, p.LineDefined, p.IsVarArg, p.NumParameters)
	}
	if len(p.DbgSourcePositions) != len(p.Code) {
		t.Errorf("%d lines for %d instructions", len(p.DbgSourcePositions), len(p.Code))
	}
	var names []string
	for _, c := range p.DbgCalls {
		names = append(names, c.Name)
	}
	if got := strings.Join(names, ","); got != "(for generator),f" {
		t.Errorf("main's calls: %s", got)
	}
	f := p.FunctionPrototypes[0]
	if f.LineDefined != 2 || f.LastLineDefined != 4 || f.NumParameters != 1 || f.IsVarArg != lua.VarArgIsVarArg|lua.VarArgHasArg {
		t.Errorf("f: lines %d-%d, %d params, vararg %d", f.LineDefined, f.LastLineDefined, f.NumParameters, f.IsVarArg)
	}
	if len(f.DbgLocals) != 2 || f.DbgLocals[0].Name != "a" || f.DbgLocals[1].Name != "arg" {
		t.Errorf("f's locals: %v", f.DbgLocals)
	}
	if len(f.DbgCalls) != 1 || f.DbgCalls[0].Name != "rep" || getOp(f.Code[f.DbgCalls[0].Pc]) != lua.OP_CALL {
		t.Errorf("f's calls: %v", f.DbgCalls)
	}
	// string.rep: a global, then a string-key read
	if getOp(f.Code[0]) != lua.OP_GETGLOBAL || getOp(f.Code[1]) != lua.OP_GETTABLEKS {
		t.Errorf("f starts with %d %d", getOp(f.Code[0]), getOp(f.Code[1]))
	}
}

// TestNewTableSizes: NEWTABLE's B and C are luaO_int2fb of the
// constructor's array and hash counts.
func TestNewTableSizes(t *testing.T) {
	for _, tc := range []struct {
		src  string
		b, c int
	}{
		{"return {}", 0, 0},
		{"return {1, 2, 3}", 3, 0},
		{"return {1, 2, x = 1, [3] = 3}", 2, 2},
		{"return {f()}", 0, 0},
		{"return {1, f()}", 1, 0},
		{"return {" + strings.Repeat("1,", 17) + "}", 0x11, 0}, // 17 rounds up to 18: (1+1)<<3 | (9-8)
		{"return {" + strings.Repeat("1,", 100) + "}", int2fb(100), 0},
	} {
		p, err := Compile([]byte(tc.src), "@t", Options{})
		if err != nil {
			t.Fatal(err)
		}
		in := p.Code[0]
		if getOp(in) != lua.OP_NEWTABLE || getB(in) != tc.b || getC(in) != tc.c {
			t.Errorf("%q: NEWTABLE %d %d, want %d %d", trunc(tc.src), getB(in), getC(in), tc.b, tc.c)
		}
	}
	for x := uint(0); x < 1<<20; x += 1 + x/7 {
		if got := fb2int(int2fb(x)); got < int(x) || x >= 8 && float64(got) > float64(x)*1.125+1 {
			t.Fatalf("fb2int(int2fb(%d)) = %d", x, got)
		}
	}
}

// fb2int is lobject.c:luaO_fb2int.
func fb2int(x int) int {
	e := (x >> 3) & 31
	if e == 0 {
		return x
	}
	return ((x & 7) + 8) << (e - 1)
}

// TestSetListBlocks: a constructor past 511 blocks of 50 puts the block
// number in the word after SETLIST, as Lua does.
func TestSetListBlocks(t *testing.T) {
	p, err := Compile([]byte("return {"+strings.Repeat("1,", 30000)+"}"), "@t", Options{})
	if err != nil {
		t.Fatal(err)
	}
	blocks := 0
	for i := 0; i < len(p.Code); i++ {
		if getOp(p.Code[i]) != lua.OP_SETLIST {
			continue
		}
		blocks++
		c := getC(p.Code[i])
		if c == 0 {
			i++
			c = int(p.Code[i])
		}
		if c != blocks {
			t.Fatalf("SETLIST %d has block %d", blocks, c)
		}
	}
	if blocks != 600 {
		t.Fatalf("%d blocks", blocks)
	}
}

func TestInterrupt(t *testing.T) {
	stop := errors.New("stopped")
	calls := 0
	opt := Options{InterruptEvery: 100, Interrupt: func() error {
		calls++
		if calls == 3 {
			return stop
		}
		return nil
	}}
	_, err := Compile([]byte("return {"+strings.Repeat("1,", 10000)+"}"), "@t", opt)
	if err != stop || calls != 3 {
		t.Fatalf("err %v after %d calls", err, calls)
	}
	calls = 0
	if _, err := Compile([]byte("return 1"), "@t", opt); err != nil || calls != 0 {
		t.Fatalf("short source: err %v, %d calls", err, calls)
	}
}

// TestJumpListTails compiles generated programs and deep shapes with every
// concat checked against Lua's own walk of the jump list.
func TestJumpListTails(t *testing.T) {
	checkTails = true
	defer func() { checkTails = false }()
	seed := testSeed(t)
	r := rand.New(rand.NewSource(seed))
	for i := 0; i < 300; i++ {
		src := luagen.Program(r.Int63(), 10+r.Intn(40))
		if i%2 == 1 {
			src = luagen.Deep(r, 50+r.Intn(500))
		}
		if _, err := Compile([]byte(src), "@t", Options{}); err != nil && strings.Contains(err.Error(), "internal") {
			t.Fatalf("%v\n%s", err, src)
		}
	}
}

// TestGeneratedCompile: every generated program compiles, and no mutant
// of one makes an internal error. (Which mutants compile, and with what
// message, is checked against redis-server by the recorded cases.)
func TestGeneratedCompile(t *testing.T) {
	seed := testSeed(t)
	r := rand.New(rand.NewSource(seed))
	for i := 0; i < 200; i++ {
		src := luagen.Program(r.Int63(), 10+r.Intn(40))
		if _, err := Compile([]byte(src), "@t", Options{}); err != nil {
			t.Fatalf("%v\n%s", err, src)
		}
		m := luagen.Mutate(r, src)
		if _, err := Compile([]byte(m), "@t", Options{}); err != nil && strings.Contains(err.Error(), "internal") {
			t.Fatalf("%v\n%s", err, m)
		}
	}
}

// TestLinear compiles each shape at two sizes, the second 32 times the
// first: linear time takes about 32 times longer, quadratic about 1000.
func TestLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles megabytes")
	}
	for _, sh := range shapes {
		small, big := sh.src(20000), sh.src(640000)
		ts := minTime(3, func() { mustCompile(t, small) })
		tb := minTime(2, func() { mustCompile(t, big) })
		ratio := float64(tb) / float64(ts)
		t.Logf("%-12s %8d bytes %10v, %9d bytes %10v: x%.0f", sh.name, len(small), ts, len(big), tb, ratio)
		// Quadratic is about 1000; the margin below it absorbs a shared,
		// loaded machine (GC and scheduling noise on one run).
		if ratio > 400 {
			t.Errorf("%s: 32 times the source took %.0f times as long", sh.name, ratio)
		}
	}
}

func minTime(n int, f func()) time.Duration {
	best := time.Duration(1 << 62)
	for i := 0; i < n; i++ {
		t0 := time.Now()
		f()
		if d := time.Since(t0); d < best {
			best = d
		}
	}
	return best
}

func mustCompile(tb testing.TB, src []byte) {
	if _, err := Compile(src, "@t", Options{}); err != nil {
		tb.Fatal(err)
	}
}

// shapes are sources of n terms of each shape that breaks a recursive or
// quadratic compiler.
var shapes = []struct {
	name string
	src  func(n int) []byte
}{
	{"sum", func(n int) []byte { return []byte("local a = 1 return a" + strings.Repeat("+a", n)) }},
	{"calls", func(n int) []byte {
		return []byte("local function f() return f end return f" + strings.Repeat("()", n))
	}},
	{"fields", func(n int) []byte { return []byte("local t = {} return t" + strings.Repeat(".x", n)) }},
	{"and", func(n int) []byte {
		// 5000 'and's a statement: one statement's jumps stay within reach
		return []byte("local a = 1 " + strings.Repeat("do local x = a"+strings.Repeat(" and a", 5000)+" end ", n/5000+1))
	}},
	{"elseif", func(n int) []byte {
		// 16 elseifs per if: one if's jumps stay within reach
		return []byte(strings.Repeat("if a then"+strings.Repeat(" elseif a then", 16)+" end ", n/16))
	}},
	{"constructor", func(n int) []byte { return []byte("return {" + strings.Repeat("1,", n) + "}") }},
	{"constants", func(n int) []byte {
		var b strings.Builder
		b.WriteString("return {")
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "%d,", i%200000)
		}
		b.WriteString("}")
		return []byte(b.String())
	}},
	{"statements", func(n int) []byte { return []byte(strings.Repeat("x = 1 y = x + 1 ", n/4)) }},
}

// lockScript is node-redlock's release script: what a lock client sends.
const lockScript = `
  local count = 0
  for i, key in ipairs(KEYS) do
    -- Only remove entries for *this* lock value.
    if redis.call("get", key) == ARGV[1] then
      redis.pcall("del", key)
      count = count + 1
    end
  end

  -- Return the number of entries removed.
  return count
`

func BenchmarkCompileLockScript(b *testing.B) {
	src := []byte(lockScript)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		mustCompile(b, src)
	}
}

// BenchmarkCompileLockScriptGopherLua is the same with gopher-lua's parser
// and compiler, which minilock used before luac.
func BenchmarkCompileLockScriptGopherLua(b *testing.B) {
	src := []byte(lockScript)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		stmts, err := parse.Parse(bytes.NewReader(src), "t")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := lua.Compile(stmts, "t"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompileShape compiles each shape at three sizes: linear time
// keeps MB/s flat across them.
func BenchmarkCompileShape(b *testing.B) {
	for _, sh := range shapes {
		for _, n := range []int{1000, 10000, 100000} {
			src := sh.src(n)
			b.Run(fmt.Sprintf("%s/%d", sh.name, n), func(b *testing.B) {
				b.SetBytes(int64(len(src)))
				for i := 0; i < b.N; i++ {
					mustCompile(b, src)
				}
			})
		}
	}
}

// FuzzCompile compiles random sources (the fuzzer's, generated programs,
// their mutations, deep and long shapes): it fails on a panic, on an
// internal error, or when the compile takes longer than a bound
// proportional to the source's size.
func FuzzCompile(f *testing.F) {
	for _, s := range []string{
		"return 1", "local a = ... return a", "x = = 1", "return [[", "for i = 1, 2 do end",
		"local t = {1, 2, x = 3, [4] = 4, f()} return #t", "return " + strings.Repeat("(", 300),
		"local function f(...) return arg, ... end", "a, b.c, d[1] = 1, 2",
	} {
		f.Add(s, int64(0), uint8(0))
	}
	for i := int64(0); i < 6; i++ {
		f.Add("", i, uint8(1))
		f.Add("", i, uint8(2))
		f.Add("", i, uint8(3))
	}
	f.Fuzz(func(t *testing.T, src string, seed int64, mode uint8) {
		r := rand.New(rand.NewSource(seed))
		switch mode % 4 {
		case 1:
			src = luagen.Program(seed, 5+r.Intn(40))
		case 2:
			src = luagen.Mutate(r, luagen.Program(seed, 5+r.Intn(40)))
		case 3:
			src = luagen.Deep(r, 10+r.Intn(20000))
		}
		start := time.Now()
		_, err := Compile([]byte(src), "@fuzz", Options{})
		elapsed := time.Since(start)
		if err != nil && strings.Contains(err.Error(), "internal compiler error") {
			t.Fatalf("%v\n%s", err, trunc(src))
		}
		// A microsecond a byte is ten times the slowest shape under -race.
		if limit := 100*time.Millisecond + time.Duration(len(src))*time.Microsecond; elapsed > limit {
			t.Fatalf("%d bytes took %v (limit %v)", len(src), elapsed, limit)
		}
	})
}
