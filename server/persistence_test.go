package server

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/minilock/minilock/internal/redistest"
)

func TestPersistenceCommands(t *testing.T) {
	before := time.Now().Unix()
	s := RunT(t, Config{})
	after := time.Now().Unix()
	_, send := dial(t, s)
	got := send("LASTSAVE")
	n, err := strconv.ParseInt(strings.TrimPrefix(got, ":"), 10, 64)
	if err != nil || !strings.HasPrefix(got, ":") || n < before || n > after {
		t.Fatalf("LASTSAVE = %q, want the start time in [%d, %d]", got, before, after)
	}
	if got := send("BGSAVE now"); got != "-ERR syntax error" {
		t.Errorf("BGSAVE now = %q", got)
	}
}

// SAVE writes dir/dbfilename; a server started on that dir loads it:
// every type, TTLs, other databases and the function libraries.
func TestSaveAndLoadRDB(t *testing.T) {
	dir := t.TempDir()
	params := [][2]string{{"dbfilename", "other.rdb"}}
	s := RunT(t, Config{Dir: dir, Params: params})
	c := redistest.Dial(t, s.Addr())
	for _, cmd := range [][]string{
		{"SET", "s", "hello"}, {"SET", "n", "12345"}, {"SET", "t", "v", "PX", "100000000"}, {"RPUSH", "l", "a", "b", "1", "2"},
		{"SADD", "si", "1", "2", "3"}, {"SADD", "ss", "a", "b"}, {"ZADD", "z", "1", "a", "2.5", "b"}, {"HSET", "h", "f", "v", "g", "2"},
		{"XADD", "x", "1-1", "a", "1"}, {"XGROUP", "CREATE", "x", "g", "0"}, {"PFADD", "p", "a", "b", "c"},
		{"FUNCTION", "LOAD", "#!lua name=lib\nredis.register_function('f', function() return 1 end)"},
		{"SELECT", "5"}, {"SET", "five", "5"}, {"SELECT", "0"},
	} {
		if got := c.MustDo(cmd...); strings.HasPrefix(got, "-") {
			t.Fatalf("%q = %q", cmd, got)
		}
	}
	if got := c.MustDo("SAVE"); got != "+OK\r\n" {
		t.Fatalf("SAVE = %q", got)
	}
	dumps := map[string]string{}
	for _, k := range []string{"s", "n", "t", "l", "si", "ss", "z", "h", "x", "p"} {
		dumps[k] = c.MustDo("DUMP", k)
	}
	s.Close()

	s2 := RunT(t, Config{Dir: dir, Params: params})
	c2 := redistest.Dial(t, s2.Addr())
	for k, want := range dumps {
		if got := c2.MustDo("DUMP", k); got != want {
			t.Errorf("DUMP %s after the restart = %q, want %q", k, got, want)
		}
	}
	if got := c2.MustDo("PTTL", "t"); got == ":-1\r\n" || got == ":-2\r\n" {
		t.Errorf("PTTL t = %q, want the TTL kept", got)
	}
	c2.MustDo("SELECT", "5")
	if got := c2.MustDo("GET", "five"); got != "$1\r\n5\r\n" {
		t.Errorf("GET five in db 5 = %q", got)
	}
	if got := c2.MustDo("FCALL", "f", "0"); got != ":1\r\n" {
		t.Errorf("FCALL f 0 = %q, want the library loaded", got)
	}
}

// A file that is not an RDB stops the start, as it stops redis-server.
func TestCorruptRDBStopsStart(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "dump.rdb"), []byte("REDIS0010\xfe\x00\x00\x01k"), 0o644); err != nil {
		t.Fatal(err)
	}
	if s, err := Start(Config{Dir: dir}); err == nil {
		s.Close()
		t.Fatal("Start loaded a truncated RDB file")
	}
}
