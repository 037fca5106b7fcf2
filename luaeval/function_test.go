package luaeval

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/minilock/minilock/internal/rdbfmt"
	"github.com/minilock/minilock/resp"
)

// Functions in the engine: the load environment, registration, the call
// convention, their state apart from EVAL's, the load time limit, and
// hostile FUNCTION RESTORE payloads. The replies' texts are checked
// against redis-server by e2e/diff (functions cases).
//
//	go test -run 'TestFunction|FuzzFunction' -v ./luaeval

// fcallReply runs FCALL (or FCALL_RO) and returns the raw reply.
func fcallReply(e *Engine, h Host, proto int, ro bool, args ...string) string {
	argv := [][]byte{[]byte("fcall")}
	for _, a := range args {
		argv = append(argv, []byte(a))
	}
	w := &resp.Writer{Proto: proto}
	if err := e.FCall(w, argv, ro, h); err != nil {
		w.Err(err)
	}
	return string(w.B)
}

func mustLoad(t *testing.T, e *Engine, code string, replace bool) {
	t.Helper()
	if _, err := e.FunctionLoad([]byte(code), replace); err != nil {
		t.Fatalf("FUNCTION LOAD: %v", err)
	}
}

func TestFunctionCallConvention(t *testing.T) {
	e := newTestEngine(t, Config{})
	h := newFakeHost()
	mustLoad(t, e, "#!lua name=l\n"+
		"local calls = 0\n"+
		"redis.register_function('args', function(keys, args) calls = calls + 1 return {keys, args, calls} end)\n"+
		"redis.register_function('set', function(keys, args) return redis.call('set', keys[1], args[1]) end)\n"+
		"redis.register_function{function_name='get', callback=function(keys) return redis.call('get', keys[1]) end, flags={'no-writes'}}", false)
	for _, c := range []struct {
		ro   bool
		args []string
		want string
	}{
		{args: []string{"args", "1", "k", "a", "b"}, want: "*3\r\n*1\r\n$1\r\nk\r\n*2\r\n$1\r\na\r\n$1\r\nb\r\n:1\r\n"},
		{args: []string{"ARGS", "0"}, want: "*3\r\n*0\r\n*0\r\n:2\r\n"},
		{args: []string{"set", "1", "k", "v"}, want: "+OK\r\n"},
		{ro: true, args: []string{"get", "1", "k"}, want: "$1\r\nv\r\n"},
		{ro: true, args: []string{"set", "1", "k", "v"}, want: "-ERR Can not execute a script with write flag using *_ro command.\r\n"},
		{args: []string{"nope", "0"}, want: "-ERR Function not found\r\n"},
		{args: []string{"get", "x"}, want: "-ERR Bad number of keys provided\r\n"},
		{args: []string{"get", "2", "k"}, want: "-ERR Number of keys can't be greater than number of args\r\n"},
		{args: []string{"get", "-1"}, want: "-ERR Number of keys can't be negative\r\n"},
	} {
		if got := fcallReply(e, h, 2, c.ro, c.args...); got != c.want {
			t.Errorf("FCALL %q: got %q want %q", c.args, got, c.want)
		}
	}
	// SCRIPT FLUSH does not touch functions; functions do not see EVAL's
	// KEYS.
	if got := evalReply(e, h, 2, "return KEYS[1]", "1", "evalkey"); got != "$7\r\nevalkey\r\n" {
		t.Fatalf("EVAL = %q", got)
	}
	e.Flush()
	if got := fcallReply(e, h, 2, false, "args", "0"); got != "*3\r\n*0\r\n*0\r\n:3\r\n" {
		t.Errorf("after SCRIPT FLUSH: %q", got)
	}
	mustLoad(t, e, "#!lua name=k\nredis.register_function('keys', function() return KEYS end)", false)
	if got := fcallReply(e, h, 2, false, "keys", "0"); !strings.Contains(got, "nonexistent global variable 'KEYS'") {
		t.Errorf("KEYS in a function: %q", got)
	}
}

func TestFunctionLoadEnvironment(t *testing.T) {
	e := newTestEngine(t, Config{})
	for _, c := range []struct{ body, want string }{
		{"error('x')", "ERR Error registering functions: ERR user_function:2: Script attempted to access nonexistent global variable 'error'"},
		{"redis.call('ping')", "ERR Error registering functions: ERR user_function:2: Script attempted to access nonexistent global variable 'call'"},
		{"local s = string", "ERR Error registering functions: ERR user_function:2: Script attempted to access nonexistent global variable 'string'"},
		{"redis = 1", "ERR Error registering functions: ERR user_function:2: Attempt to modify a readonly table"},
		{"redis.log(redis.LOG_NOTICE, 'hi')", "ERR No functions registered"},
		{"return +", "ERR Error compiling function: user_function:2: unexpected symbol near '+'"},
	} {
		_, err := e.FunctionLoad([]byte("#!lua name=x\n"+c.body), false)
		if got := errText(err); got != c.want {
			t.Errorf("%q: got %q want %q", c.body, got, c.want)
		}
	}
	// The function's closure, kept from the load, sees the full globals.
	mustLoad(t, e, "#!lua name=x\nredis.register_function('f', function() return string.upper('ok') end)", false)
	if got := fcallReply(e, newFakeHost(), 2, false, "f", "0"); got != "$2\r\nOK\r\n" {
		t.Errorf("FCALL f = %q", got)
	}
	// A load-time redis table kept in an upvalue cannot register later.
	mustLoad(t, e, "#!lua name=y\nlocal r = redis\nredis.register_function('g', function() r.register_function('h', function() end) end)", false)
	if got := fcallReply(e, newFakeHost(), 2, false, "g", "0"); !strings.Contains(got, "redis.register_function can only be called on FUNCTION LOAD command") {
		t.Errorf("late register: %q", got)
	}
}

// TestFunctionLoadTimeout: a library that never finishes loading is
// stopped at LoadTimeout, also when FUNCTION RESTORE loads it (Redis gives
// a restore no limit), and a huge allocation at load meets the memory
// limit.
func TestFunctionLoadTimeout(t *testing.T) {
	e := newTestEngine(t, Config{MemoryLimit: 64 << 20})
	loop := "#!lua name=x\nwhile true do end"
	start := time.Now()
	_, err := e.FunctionLoad([]byte(loop), false)
	if got, want := errText(err), "ERR Error registering functions: ERR FUNCTION LOAD timeout"; got != want {
		t.Errorf("load: got %q want %q", got, want)
	}
	if d := time.Since(start); d < LoadTimeout || d > LoadTimeout+2*time.Second {
		t.Errorf("load took %v", d)
	}
	p := rdbfmt.AppendFooter(rdbfmt.AppendString([]byte{rdbfmt.OpFunction2}, []byte(loop)))
	if got := errText(e.FunctionRestore(p, RestoreAppend)); !strings.Contains(got, "FUNCTION LOAD timeout") {
		t.Errorf("restore: %q", got)
	}
	_, err = e.FunctionLoad([]byte("#!lua name=x\nlocal t = {} local i = 0 while true do i = i + 1 t[i] = i end"), false)
	if got := errText(err); !strings.HasPrefix(got, "ERR Error registering functions: ") {
		t.Errorf("memory: %q", got)
	}
	if e.Running() {
		t.Error("still running")
	}
	libs, funcs := e.FunctionCount()
	if libs != 0 || funcs != 0 {
		t.Errorf("count %d %d", libs, funcs)
	}
}

func TestFunctionDumpRestore(t *testing.T) {
	e := newTestEngine(t, Config{})
	a := "#!lua name=a\nredis.register_function('fa', function() return 'a' end)"
	b := "#!lua name=b\nredis.register_function('fb', function() return '" + strings.Repeat("b", 100) + "' end)"
	mustLoad(t, e, a, false)
	mustLoad(t, e, b, false)
	dump := e.FunctionDump()
	e.FunctionFlush()
	if err := e.FunctionRestore(dump, RestoreAppend); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(e.FunctionDump(), dump) {
		t.Error("dump after restore differs")
	}
	for policy, want := range map[int]string{
		RestoreAppend:  "ERR Library a already exists",
		RestoreReplace: "",
		RestoreFlush:   "",
	} {
		if got := errText(e.FunctionRestore(dump, policy)); got != want {
			t.Errorf("policy %d: %q want %q", policy, got, want)
		}
	}
	if got := fcallReply(e, newFakeHost(), 2, false, "fb", "0"); !strings.HasPrefix(got, "$100\r\n") {
		t.Errorf("FCALL fb = %q", got)
	}
}

var (
	fuzzFnEngine *Engine
)

// FuzzFunctionRestore gives FUNCTION RESTORE arbitrary payloads, with the
// footer made right (fix) so the records themselves are parsed, or as
// they come: never a panic, never a run left behind, and the libraries
// afterwards are whatever a valid restore can leave (each one callable).
func FuzzFunctionRestore(f *testing.F) {
	rec := func(code string) []byte {
		return rdbfmt.AppendString([]byte{rdbfmt.OpFunction2}, []byte(code))
	}
	f.Add(rec("#!lua name=a\nredis.register_function('f', function() return 1 end)"), true, uint8(0))
	f.Add(append(rec("#!lua name=a\nredis.register_function('f', function() return 1 end)"), rec("#!lua name=b\nredis.register_function('g', function(k, a) return a end)")...), true, uint8(1))
	f.Add([]byte{rdbfmt.OpFunction, 1, 'x', 3, 'l', 'u', 'a', 0, 5, 'r', 'e', 't', 'u', 'r'}, true, uint8(2))
	f.Add([]byte{rdbfmt.OpFunction2, 0xc3, 0x02, 0x81, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 'a'}, true, uint8(0))
	f.Add([]byte{rdbfmt.OpFunction2, 0x81, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, false, uint8(0))
	f.Fuzz(func(t *testing.T, body []byte, fix bool, policy uint8) {
		if fuzzFnEngine == nil {
			fuzzFnEngine = New(Config{MemoryLimit: 64 << 20})
		}
		e := fuzzFnEngine
		p := body
		if fix {
			p = rdbfmt.AppendFooter(bytes.Clone(body))
		}
		_ = e.FunctionRestore(p, int(policy%3))
		if e.Running() {
			t.Fatal("still running")
		}
		libs, funcs := e.FunctionCount()
		if libs != int64(len(e.Libraries())) || funcs < libs {
			t.Fatalf("counts %d %d for %d libraries", libs, funcs, len(e.Libraries()))
		}
		if libs > 50 {
			e.FunctionFlush()
		}
	})
}

// errText is the error's reply text, "" for nil.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return resp.Text(err)
}

// BenchmarkFCallCompareAndDelete is the lock release as a function
// (compare with BenchmarkEvalSHACompareAndDelete*).
func BenchmarkFCallCompareAndDelete(b *testing.B) {
	e := New(Config{})
	defer e.Close()
	if _, err := e.FunctionLoad([]byte("#!lua name=lock\nredis.register_function('release', function(keys, args) if redis.call('get', keys[1]) == args[1] then return redis.call('del', keys[1]) else return 0 end end)"), false); err != nil {
		b.Fatal(err)
	}
	h := &benchHost{m: map[string][]byte{"lock:1": []byte("token-123")}}
	args := [][]byte{[]byte("fcall"), []byte("release"), []byte("1"), []byte("lock:1"), []byte("token-123")}
	w := &resp.Writer{}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w.B = w.B[:0]
		if err := e.FCall(w, args, false, h); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if string(w.B) != ":1\r\n" {
		b.Fatalf("reply %q", w.B)
	}
}

// FUNCTION RESTORE <dump> REPLACE of 10,000 one-function libraries (the
// cost audit's row).
func BenchmarkFunctionRestore10000(b *testing.B) {
	e := New(Config{})
	defer e.Close()
	for i := range 10000 {
		code := "#!lua name=lib" + strconv.Itoa(i) + "\nredis.register_function('f" + strconv.Itoa(i) + "', function() return 1 end)"
		if _, err := e.FunctionLoad([]byte(code), false); err != nil {
			b.Fatal(err)
		}
	}
	dump := e.FunctionDump()
	for b.Loop() {
		if err := e.FunctionRestore(dump, RestoreReplace); err != nil {
			b.Fatal(err)
		}
	}
}

// TestFunctionArgStrings checks FCALL's reuse of the last call's argument
// strings (functions.argTable): each call sees its own KEYS and ARGV
// whether they repeat, change, shrink, grow or move between KEYS and
// ARGV, a long one included; and a table a function kept from an earlier
// call is not refilled by a later one.
func TestFunctionArgStrings(t *testing.T) {
	e := newTestEngine(t, Config{})
	h := newFakeHost()
	mustLoad(t, e, "#!lua name=l\n"+
		"local kept\n"+
		"redis.register_function('j', function(keys, args) return table.concat(keys, ',') .. '|' .. table.concat(args, ',') end)\n"+
		"redis.register_function('keep', function(keys, args) if not kept then kept = args end return table.concat(kept, ',') end)", false)
	long := strings.Repeat("x", maxArgStrBytes+1)
	for _, c := range [][]string{
		{"j", "1", "k", "a", "b"},
		{"j", "1", "k", "a", "b"},
		{"j", "1", "k", "a", "c"},
		{"j", "2", "k", "a", "c"},
		{"j", "0", "k", "a"},
		{"j", "1", long, long},
		{"j", "1", long, "y" + long[1:]},
		{"j", "3", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15", "16", "17", "18"},
		{"j", "0"},
		{"j", "1", "k", "a", "b"},
	} {
		n, _ := strconv.Atoi(c[1])
		want := strings.Join(c[2:2+n], ",") + "|" + strings.Join(c[2+n:], ",")
		if got := fcallReply(e, h, 2, false, c...); got != "$"+strconv.Itoa(len(want))+"\r\n"+want+"\r\n" {
			t.Fatalf("FCALL %.40q: %.60q, want %.60q", c, got, want)
		}
	}
	for _, args := range [][]string{{"a", "b"}, {"c", "d"}, {"a", "b", "e"}} {
		if got := fcallReply(e, h, 2, false, append([]string{"keep", "0"}, args...)...); got != "$3\r\na,b\r\n" {
			t.Fatalf("FCALL keep %q: %q, want the first call's a,b", args, got)
		}
	}
}

// TestSpecializedFunctionsAgainstRedis: FCALL runs a registered function
// specialized as EVAL's scripts are (the libraries as constants), while the
// library's own code keeps the closure it registered. The replies, errors
// naming globals and fields included, are redis-server's.
func TestSpecializedFunctionsAgainstRedis(t *testing.T) {
	rc := dialRedis(t)
	e := newTestEngine(t, Config{})
	h := newFakeHost()
	libs := []string{
		// A helper called while the library loads sees the load
		// environment: no string there, in the specialized function either.
		"#!lua name=a\nlocal function up(s) return string.upper(s) end\nredis.register_function('a_up', function(k, a) return up(a[1]) end)\nlocal x = up('x')",
		"#!lua name=b\nlocal function up(s) return string.upper(s) end\nredis.register_function('b_up', function(k, a) return up(a[1]) .. string.format('%d:%s', string.byte(a[1], 1), table.concat({math.floor(2.5), 'y'}, ',')) end)",
		"#!lua name=c\nlocal n = 0\nredis.register_function('c_inc', function() n = n + 1 return n end)\nredis.register_function('c_get', function() return n * 10 end)",
		"#!lua name=d\nredis.register_function('d_field', function() return string.nope('x') end)\n" +
			"redis.register_function('d_arith', function() return string + 1 end)\n" +
			"redis.register_function('d_global', function() return nosuch end)\n" +
			"redis.register_function('d_keys', function() return KEYS end)\n" +
			"redis.register_function('d_call', function() return cjson.encode({1, 2}) .. cmsgpack.pack(1) .. tostring(type(bit.band)) end)\n" +
			"redis.register_function('d_index', function() local t = nil return t.x end)\n" +
			"redis.register_function('d_redis', function(k) redis.call('set', k[1], 'v') return redis.call('get', k[1]) end)",
	}
	for _, lib := range libs {
		want := rc.do(t, "FUNCTION", "LOAD", "REPLACE", lib)
		_, err := e.FunctionLoad([]byte(lib), true)
		got := "$1\r\n" + string(lib[len("#!lua name="):len("#!lua name=")+1]) + "\r\n"
		if err != nil {
			got = "-" + errText(err) + "\r\n"
		}
		if got != want {
			t.Errorf("FUNCTION LOAD %.40q: got %q, Redis %q", lib, got, want)
		}
	}
	for _, args := range [][]string{
		{"b_up", "0", "hi"}, {"c_inc", "0"}, {"c_inc", "0"}, {"c_get", "0"},
		{"d_field", "0"}, {"d_arith", "0"}, {"d_global", "0"}, {"d_keys", "0"},
		{"d_call", "0"}, {"d_index", "0"}, {"d_redis", "1", "k"},
	} {
		want := rc.do(t, append([]string{"FCALL"}, args...)...)
		if got := fcallReply(e, h, 2, false, args...); got != want {
			t.Errorf("FCALL %q: got %q, Redis %q", args, got, want)
		}
	}
}
