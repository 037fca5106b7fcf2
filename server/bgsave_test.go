package server

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/minilock/minilock/internal/redistest"
)

// persistField reads one field of INFO persistence.
func persistField(t *testing.T, c *redistest.Conn, name string) string {
	t.Helper()
	for _, line := range strings.Split(c.MustDo("INFO", "persistence"), "\r\n") {
		if v, ok := strings.CutPrefix(line, name+":"); ok {
			return v
		}
	}
	t.Fatalf("INFO persistence has no %s", name)
	return ""
}

// waitBgSave waits until no background save runs.
func waitBgSave(t *testing.T, c *redistest.Conn) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for persistField(t, c, "rdb_bgsave_in_progress") != "0" {
		if time.Now().After(deadline) {
			t.Fatal("the background save never ends")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestBgSaveIsAsOfItsStart: the writes pipelined right behind BGSAVE run
// before the owner copies a single key out, yet the file holds the data as
// it was when BGSAVE was accepted: overwritten, deleted, expired-since and
// created-since keys included. A server started on the file has exactly
// that data.
func TestBgSaveIsAsOfItsStart(t *testing.T) {
	dir := t.TempDir()
	s := RunT(t, Config{Dir: dir})
	c := redistest.Dial(t, s.Addr())
	const n = 20000 // several hundred steps of the walk
	var fill []byte
	for i := range n {
		fill = append(fill, redistest.Encode("SET", "lock:"+strconv.Itoa(i), "token-"+strconv.Itoa(i))...)
	}
	fill = append(fill, redistest.Encode("HSET", "h", "a", "1", "b", "2")...)
	fill = append(fill, redistest.Encode("RPUSH", "l", "x", "y")...)
	fill = append(fill, redistest.Encode("SET", "ttl", "v", "PX", "100000")...)
	c.MustSend(fill)
	for range n + 3 {
		c.MustReply()
	}
	c.MustSend([]byte(string(redistest.Encode("BGSAVE")) +
		string(redistest.Encode("SET", "lock:0", "changed")) +
		string(redistest.Encode("DEL", "lock:1")) +
		string(redistest.Encode("SET", "lock:new", "born")) +
		string(redistest.Encode("HSET", "h", "a", "9")) +
		string(redistest.Encode("RPOP", "l")) +
		string(redistest.Encode("PERSIST", "ttl")) +
		string(redistest.Encode("FLUSHDB")) +
		string(redistest.Encode("SET", "after", "flush"))))
	if got := c.MustReply(); got != "+Background saving started\r\n" {
		t.Fatalf("BGSAVE = %q", got)
	}
	for range 8 {
		c.MustReply()
	}
	waitBgSave(t, c)
	if got := persistField(t, c, "rdb_last_bgsave_status"); got != "ok" {
		t.Fatalf("rdb_last_bgsave_status:%s", got)
	}

	s2 := RunT(t, Config{Dir: dir})
	c2 := redistest.Dial(t, s2.Addr())
	if got := c2.MustDo("DBSIZE"); got != ":"+strconv.Itoa(n+3)+"\r\n" {
		t.Errorf("DBSIZE after loading = %q, want %d", got, n+3)
	}
	for _, tc := range []struct{ cmd, want string }{
		{"GET lock:0", "$7\r\ntoken-0\r\n"},
		{"GET lock:1", "$7\r\ntoken-1\r\n"},
		{"GET lock:19999", "$11\r\ntoken-19999\r\n"},
		{"EXISTS lock:new", ":0\r\n"},
		{"EXISTS after", ":0\r\n"},
		{"HGET h a", "$1\r\n1\r\n"},
		{"LRANGE l 0 -1", "*2\r\n$1\r\nx\r\n$1\r\ny\r\n"},
	} {
		if got := c2.MustDo(strings.Fields(tc.cmd)...); got != tc.want {
			t.Errorf("%s = %q, want %q", tc.cmd, got, tc.want)
		}
	}
	if got := c2.MustDo("PTTL", "ttl"); !strings.HasPrefix(got, ":9") {
		t.Errorf("PTTL ttl = %q, want its deadline kept", got)
	}
}

// TestBgSaveReplies: BGSAVE while one runs, inside a transaction, LASTSAVE
// and the INFO figures after a save.
func TestBgSaveReplies(t *testing.T) {
	dir := t.TempDir()
	s := RunT(t, Config{Dir: dir})
	c := redistest.Dial(t, s.Addr())
	c.MustDo("SET", "k", "v")
	before := c.MustDo("LASTSAVE")
	if got := persistField(t, c, "rdb_changes_since_last_save"); got == "0" {
		t.Errorf("rdb_changes_since_last_save:0 after a SET")
	}
	// One batch: the second BGSAVE runs before the owner can see the
	// first one end.
	c.MustSend([]byte(string(redistest.Encode("BGSAVE")) + string(redistest.Encode("BGSAVE", "SCHEDULE"))))
	if a, b := c.MustReply(), c.MustReply(); a != "+Background saving started\r\n" || b != "-ERR Background save already in progress\r\n" {
		t.Fatalf("BGSAVE, BGSAVE SCHEDULE = %q, %q", a, b)
	}
	waitBgSave(t, c)
	for field, want := range map[string]string{"rdb_last_bgsave_status": "ok", "rdb_changes_since_last_save": "0", "rdb_saves": "1", "rdb_current_bgsave_time_sec": "-1", "rdb_last_bgsave_time_sec": "0"} {
		if got := persistField(t, c, field); got != want {
			t.Errorf("%s:%s, want %s", field, got, want)
		}
	}
	if after := c.MustDo("LASTSAVE"); after < before {
		t.Errorf("LASTSAVE went from %q to %q", before, after)
	}
	if got := c.MustDo("BGSAVE", "now"); got != "-ERR syntax error\r\n" {
		t.Errorf("BGSAVE now = %q", got)
	}
	// Inside EXEC it is scheduled, then started after the transaction.
	c.MustDo("MULTI")
	c.MustDo("BGSAVE")
	if got := c.MustDo("EXEC"); got != "*1\r\n+Background saving scheduled\r\n" {
		t.Errorf("EXEC = %q", got)
	}
	deadline := time.Now().Add(10 * time.Second)
	for persistField(t, c, "rdb_saves") != "2" || persistField(t, c, "rdb_bgsave_in_progress") != "0" {
		if time.Now().After(deadline) {
			t.Fatal("the scheduled BGSAVE never ran")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if _, err := os.Stat(filepath.Join(dir, "dump.rdb")); err != nil {
		t.Fatal(err)
	}
}

// TestBgSaveFailureRefusesWrites: a save into a directory that is not
// there fails; with save points set, writes and PING get MISCONF (Redis's
// text) until stop-writes-on-bgsave-error is turned off; SHUTDOWN then
// cannot save and refuses, unless NOSAVE.
func TestBgSaveFailureRefusesWrites(t *testing.T) {
	s := RunT(t, Config{Dir: filepath.Join(t.TempDir(), "missing"), Params: [][2]string{{"save", "3600 1"}}})
	c := redistest.Dial(t, s.Addr())
	if got := c.MustDo("BGSAVE"); got != "+Background saving started\r\n" {
		t.Fatalf("BGSAVE = %q", got)
	}
	waitBgSave(t, c)
	if got := persistField(t, c, "rdb_last_bgsave_status"); got != "err" {
		t.Fatalf("rdb_last_bgsave_status:%s", got)
	}
	misconf := "-MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk. Commands that may modify the data set are disabled, because this instance is configured to report errors during writes if RDB snapshotting fails (stop-writes-on-bgsave-error option). Please check the Redis logs for details about the RDB error.\r\n"
	for _, cmd := range [][]string{{"SET", "a", "b"}, {"PING"}} {
		if got := c.MustDo(cmd...); got != misconf {
			t.Errorf("%s = %q", cmd[0], got)
		}
	}
	if got := c.MustDo("GET", "a"); got != "$-1\r\n" {
		t.Errorf("GET = %q: reads go on", got)
	}
	if got := c.MustDo("SHUTDOWN"); got != "-ERR Errors trying to SHUTDOWN. Check logs.\r\n" {
		t.Errorf("SHUTDOWN = %q", got)
	}
	c.MustDo("CONFIG", "SET", "stop-writes-on-bgsave-error", "no")
	if got := c.MustDo("SET", "a", "b"); got != "+OK\r\n" {
		t.Errorf("SET with stop-writes-on-bgsave-error no = %q", got)
	}
	c.MustSend(redistest.Encode("SHUTDOWN", "NOSAVE"))
	if got := c.MustUntilEOF(); got != "" {
		t.Errorf("SHUTDOWN NOSAVE answered %q", got)
	}
}

// TestSavePointsAndShutdownSave: a save point falls due on the server's
// clock; SHUTDOWN saves when save points are set; redis-server loads the
// file and redis-check-rdb accepts it.
func TestSavePointsAndShutdownSave(t *testing.T) {
	dir := t.TempDir()
	s := RunT(t, Config{Dir: dir, Params: [][2]string{{"save", "1 2"}, {"rdbchecksum", "yes"}}})
	c := redistest.Dial(t, s.Addr())
	c.MustDo("SET", "a", "1")
	c.MustDo("SET", "b", "2")
	c.MustDo("HSET", "h", "f", "v")
	deadline := time.Now().Add(10 * time.Second)
	for persistField(t, c, "rdb_saves") == "0" || persistField(t, c, "rdb_bgsave_in_progress") != "0" {
		if time.Now().After(deadline) {
			t.Fatal("the save point never started a save")
		}
		time.Sleep(20 * time.Millisecond)
	}
	c.MustDo("SET", "c", "3") // after the save: only SHUTDOWN's save has it
	c.MustSend(redistest.Encode("SHUTDOWN"))
	c.MustUntilEOF()
	<-s.Done()

	path := filepath.Join(dir, "dump.rdb")
	if check, err := exec.LookPath("redis-check-rdb"); err == nil {
		if out, err := exec.Command(check, path).CombinedOutput(); err != nil || !strings.Contains(string(out), "RDB looks OK") {
			t.Errorf("redis-check-rdb: %v\n%s", err, out)
		}
	} else if os.Getenv("CI") == "true" {
		t.Fatal("redis-check-rdb is not installed")
	}
	rdir := t.TempDir()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(rdir, "dump.rdb"), b, 0o644)
	r, err := redistest.Launch(redistest.Require(t), rdir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Stop)
	rc := redistest.Dial(t, r.Addr)
	for _, tc := range []struct{ cmd, want string }{
		{"DBSIZE", ":4\r\n"},
		{"GET c", "$1\r\n3\r\n"},
		{"HGET h f", "$1\r\nv\r\n"},
	} {
		if got := rc.MustDo(strings.Fields(tc.cmd)...); got != tc.want {
			t.Errorf("redis-server: %s = %q, want %q", tc.cmd, got, tc.want)
		}
	}
}
