package luaeval

import (
	"testing"

	"github.com/minilock/minilock/resp"
)

// Replies of the EVAL family, Redis 7.0.15's (recorded from
// redis-server 7.0.15).
func TestEvalAPI(t *testing.T) {
	type step struct {
		sha, ro bool
		script  string
		args    []string
		want    string
	}
	steps := []step{
		{script: "return 1", args: []string{"x"}, want: "-ERR value is not an integer or out of range\r\n"},
		{script: "return 1", args: []string{"2", "a"}, want: "-ERR Number of keys can't be greater than number of args\r\n"},
		{script: "return 1", args: []string{"-1"}, want: "-ERR Number of keys can't be negative\r\n"},
		{script: "return 1", args: []string{"01"}, want: "-ERR value is not an integer or out of range\r\n"},
		// numkeys is checked before the script is compiled or looked up.
		{script: "return +", args: []string{"5"}, want: "-ERR Number of keys can't be greater than number of args\r\n"},
		{sha: true, script: "abc", args: []string{"0"}, want: "-NOSCRIPT No matching script. Please use EVAL.\r\n"},
		{sha: true, script: "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", args: []string{"0"}, want: "-NOSCRIPT No matching script. Please use EVAL.\r\n"},
		{sha: true, script: "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", args: []string{"x"}, want: "-ERR value is not an integer or out of range\r\n"},
		// EVAL caches under sha1hex(body); EVALSHA ignores letter case.
		{script: "return 1", args: []string{"0"}, want: ":1\r\n"},
		{sha: true, script: "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", args: []string{"0"}, want: ":1\r\n"},
		{sha: true, script: "E0E1F9FABFC9D4800C877A703B823AC0578FF8DB", args: []string{"0"}, want: ":1\r\n"},
		{ro: true, script: "return redis.call('set','a','b')", args: []string{"0"}, want: "-ERR Write commands are not allowed from read-only scripts. script: ff967d0ae0e68b4f9e360fa91c54598bc25ad9b6, on @user_script:1.\r\n"},
		{ro: true, script: "return redis.call('get','a')", args: []string{"0"}, want: "$-1\r\n"},
		{ro: true, script: "#!lua\nreturn 1", args: []string{"0"}, want: "-ERR Can not execute a script with write flag using *_ro command.\r\n"},
		{ro: true, script: "#!lua flags=no-writes\nreturn 1", args: []string{"0"}, want: ":1\r\n"},
		{script: "#!lua flags=no-writes\nreturn redis.call('set','a','b')", args: []string{"0"}, want: "-ERR Write commands are not allowed from read-only scripts. script: 6acb400a50fe96e33eca4e0af6e9dcfb21193726, on @user_script:2.\r\n"},
		{script: "#!lua\nerror('x')", args: []string{"0"}, want: "-ERR user_script:2: x script: f0363b84b71234131413165ce8dee0dbb5f9ce96, on @user_script:2.\r\n"},
		{script: "#!lua\nreturn 1", args: []string{"0"}, want: ":1\r\n"},
		{script: "#!lua  flags=no-writes\nreturn 1", args: []string{"0"}, want: ":1\r\n"},
		{script: "#!lua flags=no-writes,allow-oom\nreturn 1", args: []string{"0"}, want: ":1\r\n"},
		{script: "#!lua", args: []string{"0"}, want: "-ERR Invalid script shebang\r\n"},
		{script: "#!lua flags=", args: []string{"0"}, want: "-ERR Invalid script shebang\r\n"},
		{script: "#!lua flags=no-writes,,allow-oom\nreturn 1", args: []string{"0"}, want: "-ERR Unexpected flag in script shebang: \r\n"},
		{script: "#!lua name=x\nreturn 1", args: []string{"0"}, want: "-ERR Unknown lua shebang option: name=x\r\n"},
		{script: "#!python\nreturn 1", args: []string{"0"}, want: "-ERR Unexpected engine in script shebang: #!python\r\n"},
		{script: "#!\nreturn 1", args: []string{"0"}, want: "-ERR Unexpected engine in script shebang: #!\r\n"},
		{script: "#! lua\nreturn 1", args: []string{"0"}, want: "-ERR Unexpected engine in script shebang: #!\r\n"},
		{script: "#!lua flags=foo\nreturn 1", args: []string{"0"}, want: "-ERR Unexpected flag in script shebang: foo\r\n"},
		{script: "return {KEYS[1], KEYS[2], ARGV[1], #ARGV}", args: []string{"2", "k1", "k2", "a1", "a2"}, want: "*4\r\n$2\r\nk1\r\n$2\r\nk2\r\n$2\r\na1\r\n:2\r\n"},
	}
	e := newTestEngine(t, Config{})
	h := newFakeHost()
	for i, s := range steps {
		if got := runReply(e, h, 2, s.sha, s.ro, s.script, s.args...); got != s.want {
			t.Errorf("step %d (%q %v): got %q want %q", i, s.script, s.args, got, s.want)
		}
	}
}

func TestLoadExists(t *testing.T) {
	e := newTestEngine(t, Config{})
	sha, err := e.Load([]byte("return 1"))
	if err != nil || sha != "e0e1f9fabfc9d4800c877a703b823ac0578ff8db" {
		t.Fatalf("Load = %q, %v", sha, err)
	}
	if !e.Exists([]byte("E0E1F9FABFC9D4800C877A703B823AC0578FF8DB")) || e.Exists([]byte("e0e1")) {
		t.Fatal("Exists")
	}
	// Redis 7.0.15's texts.
	for body, want := range map[string]string{
		"return +":                  "ERR Error compiling script (new function): user_script:1: unexpected symbol near '+'",
		"#!lua flags=bad\nreturn 1": "ERR Unexpected flag in script shebang: bad",
		"return 1 error":            "ERR Error compiling script (new function): user_script:1: '<eof>' expected near 'error'",
		"if x then\nreturn 1":       "ERR Error compiling script (new function): user_script:2: 'end' expected (to close 'if' at line 1) near '<eof>'",
		"f\n(1)":                    "ERR Error compiling script (new function): user_script:2: ambiguous syntax (function call x new statement) near '('",
		"local a = 1 local function f() local b = ... end": "ERR Error compiling script (new function): user_script:1: cannot use '...' outside a vararg function near '...'",
	} {
		if _, err := e.Load([]byte(body)); err == nil || resp.Text(err) != want {
			t.Errorf("Load(%q) = %v, want %q", body, err, want)
		}
	}
	e.Flush()
	if e.Exists([]byte(sha)) {
		t.Fatal("Flush")
	}
}

// Everything a client writes in RESP3 (HELLO 3): replies follow the
// caller's protocol, booleans the script's.
func TestRESP3Caller(t *testing.T) {
	e := newTestEngine(t, Config{})
	for _, tc := range []struct{ script, want string }{
		{"return redis.call('get', 'nokey')", "_\r\n"},
		{"redis.setresp(3) return redis.call('get', 'nokey')", "_\r\n"},
		{"redis.setresp(3) return {redis.call('get', 'nokey') == nil}", "*1\r\n#t\r\n"},
		{"redis.setresp(3) return redis.call('smembers', 's')", "~2\r\n$1\r\na\r\n$1\r\nb\r\n"},
		{"redis.setresp(3) local s = redis.call('smembers', 's') return s.set.a", "#t\r\n"},
		{"return redis.call('smembers', 's')", "*2\r\n$1\r\na\r\n$1\r\nb\r\n"},
		{"return false", "_\r\n"},
		{"return true", ":1\r\n"},
		{"redis.setresp(3) return false", "#f\r\n"},
		{"return {double = 0.5}", ",0.5\r\n"},
	} {
		if got := evalReply(e, newFakeHost(), 3, tc.script, "0"); got != tc.want {
			t.Errorf("RESP3 EVAL %q: got %q want %q", tc.script, got, tc.want)
		}
	}
}
