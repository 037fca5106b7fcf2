package server

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/minilock/minilock/internal/redistest"
)

// aofIncr reads the AOF's incremental files, in the manifest's order.
func aofIncr(t *testing.T, dir string) string {
	t.Helper()
	text, err := os.ReadFile(filepath.Join(dir, "appendonlydir", "appendonly.aof.manifest"))
	if err != nil {
		t.Fatal(err)
	}
	_, incr, _, err := parseManifest(string(text))
	if err != nil {
		t.Fatal(err)
	}
	var all string
	for _, f := range incr {
		b, _ := os.ReadFile(filepath.Join(dir, "appendonlydir", f.name))
		all += string(b)
	}
	return all
}

func cmdText(args ...string) string { return string(appendCommand(nil, bytesOf(args)...)) }

func bytesOf(args []string) [][]byte {
	out := make([][]byte, len(args))
	for i, a := range args {
		out[i] = []byte(a)
	}
	return out
}

// TestAOFPropagation checks what is written for each kind of write, as
// Redis 7.0 propagates it: commands as sent with SELECT, relative times as
// absolute ones, transactions wrapped, a script as its effects, a failed
// or no-op write not at all.
func TestAOFPropagation(t *testing.T) {
	dir := t.TempDir()
	s := RunT(t, Config{Dir: dir, Params: [][2]string{{"appendonly", "yes"}, {"appendfsync", "always"}}})
	c := redistest.Dial(t, s.Addr())
	for _, cmd := range [][]string{
		{"SET", "a", "1"},
		{"SET", "lock", "tok", "NX", "PXAT", "99999999999999"},
		{"SET", "lock", "other", "NX"}, // not set: not written
		{"GET", "a"},                   // a read: not written
		{"EXPIREAT", "a", "99999999999"},
		{"SELECT", "3"},
		{"HSET", "h", "f", "v"},
		{"MULTI"}, {"INCR", "n"}, {"INCR", "n"}, {"EXEC"},
		{"EVAL", "redis.call('set', KEYS[1], 'x') redis.call('del', KEYS[2]) return 1", "2", "s", "h"},
	} {
		c.MustDo(cmd...)
	}
	want := cmdText("SELECT", "0") + cmdText("SET", "a", "1") +
		cmdText("SET", "lock", "tok", "NX", "PXAT", "99999999999999") +
		cmdText("PEXPIREAT", "a", "99999999999000") +
		cmdText("SELECT", "3") + cmdText("HSET", "h", "f", "v") +
		cmdText("MULTI") + cmdText("INCR", "n") + cmdText("INCR", "n") + cmdText("EXEC") +
		cmdText("MULTI")
	got := aofIncr(t, dir)
	if !strings.HasPrefix(got, want) {
		t.Fatalf("the AOF holds\n%q\nwant it to begin\n%q", got, want)
	}
	rest := got[len(want):]
	if !strings.Contains(rest, cmdText("DEL", "h")) || !strings.Contains(rest, "RESTORE") || !strings.HasSuffix(rest, cmdText("EXEC")) {
		t.Errorf("the script's effects: %q", rest)
	}
}

// TestAOFBothWays: minilock's AOF directory (after a rewrite, with writes
// before and after it) is accepted by redis-check-aof and loaded by
// redis-server; redis-server's AOF directory loads in minilock.
func TestAOFBothWays(t *testing.T) {
	dir := t.TempDir()
	params := [][2]string{{"appendonly", "yes"}}
	s := RunT(t, Config{Dir: dir, Params: params})
	c := redistest.Dial(t, s.Addr())
	c.MustDo("SET", "before", "1", "EX", "1000")
	c.MustDo("RPUSH", "list", "a", "b")
	if got := c.MustDo("BGREWRITEAOF"); got != "+Background append only file rewriting started\r\n" {
		t.Fatalf("BGREWRITEAOF = %q", got)
	}
	c.MustDo("SET", "after", "2")
	c.MustDo("SPOP", "nothing")
	c.MustDo("SADD", "set", "x", "y", "z")
	c.MustDo("SPOP", "set")
	deadline := time.Now().Add(10 * time.Second)
	for persistField(t, c, "aof_rewrite_in_progress") != "0" || persistField(t, c, "aof_rewrites") != "1" {
		if time.Now().After(deadline) {
			t.Fatal("the rewrite never ended")
		}
		time.Sleep(5 * time.Millisecond)
	}
	s.Close()
	aofdir := filepath.Join(dir, "appendonlydir")
	if check, err := exec.LookPath("redis-check-aof"); err == nil {
		out, err := exec.Command(check, filepath.Join(aofdir, "appendonly.aof.manifest")).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "All AOF files and manifest are valid") {
			t.Errorf("redis-check-aof: %v\n%s", err, out)
		}
	} else if os.Getenv("CI") == "true" {
		t.Fatal("redis-check-aof is not installed")
	}
	// redis-server on a copy of minilock's directory.
	rdir := t.TempDir()
	copyDir(t, aofdir, filepath.Join(rdir, "appendonlydir"))
	r, err := redistest.Launch(redistest.Require(t), rdir, "--appendonly", "yes")
	if err != nil {
		t.Fatal(err)
	}
	stop := sync.OnceFunc(r.Stop) // Stop waits for an exit it sees once
	t.Cleanup(stop)
	rc := redistest.Dial(t, r.Addr)
	for _, tc := range []struct{ cmd, want string }{
		{"DBSIZE", ":4\r\n"},
		{"GET after", "$1\r\n2\r\n"},
		{"LRANGE list 0 -1", "*2\r\n$1\r\na\r\n$1\r\nb\r\n"},
		{"SCARD set", ":2\r\n"},
	} {
		if got := rc.MustDo(strings.Fields(tc.cmd)...); got != tc.want {
			t.Errorf("redis-server: %s = %q, want %q", tc.cmd, got, tc.want)
		}
	}
	// redis-server writes too; then minilock loads redis-server's files.
	rc.MustDo("SET", "from-redis", "v", "PX", "100000")
	rc.MustDo("EVAL", "redis.call('incr', 'cnt') redis.call('incr', 'cnt')", "0")
	stop()
	mdir := t.TempDir()
	copyDir(t, filepath.Join(rdir, "appendonlydir"), filepath.Join(mdir, "appendonlydir"))
	s2 := RunT(t, Config{Dir: mdir, Params: params})
	c2 := redistest.Dial(t, s2.Addr())
	for _, tc := range []struct{ cmd, want string }{
		{"DBSIZE", ":6\r\n"},
		{"GET cnt", "$1\r\n2\r\n"},
		{"GET before", "$1\r\n1\r\n"},
		{"SCARD set", ":2\r\n"},
	} {
		if got := c2.MustDo(strings.Fields(tc.cmd)...); got != tc.want {
			t.Errorf("minilock on redis-server's AOF: %s = %q, want %q", tc.cmd, got, tc.want)
		}
	}
	if got := c2.MustDo("PTTL", "from-redis"); !strings.HasPrefix(got, ":") || got == ":-1\r\n" || got == ":-2\r\n" {
		t.Errorf("PTTL from-redis = %q", got)
	}
}

// TestConfigSetAppendonly: turning the AOF on at run time writes a base
// of the data as it is, and a restart loads it and what followed.
func TestConfigSetAppendonly(t *testing.T) {
	dir := t.TempDir()
	s := RunT(t, Config{Dir: dir})
	c := redistest.Dial(t, s.Addr())
	c.MustDo("SET", "old", "1")
	if got := c.MustDo("CONFIG", "SET", "appendonly", "yes"); got != "+OK\r\n" {
		t.Fatalf("CONFIG SET appendonly yes = %q", got)
	}
	c.MustDo("SET", "new", "2")
	deadline := time.Now().Add(10 * time.Second)
	for persistField(t, c, "aof_rewrites") != "1" {
		if time.Now().After(deadline) {
			t.Fatal("no rewrite after CONFIG SET appendonly yes")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if got := persistField(t, c, "aof_enabled"); got != "1" {
		t.Errorf("aof_enabled:%s", got)
	}
	s.Close()
	s2 := RunT(t, Config{Dir: dir, Params: [][2]string{{"appendonly", "yes"}}})
	c2 := redistest.Dial(t, s2.Addr())
	if got := c2.MustDo("MGET", "old", "new"); got != "*2\r\n$1\r\n1\r\n$1\r\n2\r\n" {
		t.Errorf("MGET after the restart = %q", got)
	}
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	if err := os.MkdirAll(to, 0o755); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
