package keyspace

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/minilock/minilock/internal/redistest"
	"github.com/minilock/minilock/resp"
)

func TestParseNotifyFlags(t *testing.T) {
	cases := []struct {
		in, out string
		bad     bool
	}{
		{"", "", false},
		{"KEA", "AKE", false},
		{"AKE", "AKE", false},
		{"A", "A", false},
		{"Ex", "xE", false},
		{"$x", "$x", false},
		{"Kg$lshzxetd", "AK", false},
		{"Kg$lshzxet", "g$lshzxetK", false},
		{"KEAmn", "AKEm", false}, // n is not shown beside A, as in notify.c
		{"nmEK", "nKEm", false},
		{"gg", "g", false},
		{"KEA ", "", true},
		{"a", "", true},
		{"KEAM", "", true},
	}
	for _, c := range cases {
		f, err := ParseNotifyFlags(c.in)
		if c.bad {
			if err != ErrNotifyFlags {
				t.Errorf("%q: err %v, want %v", c.in, err, ErrNotifyFlags)
			}
			continue
		}
		if err != nil || f.String() != c.out {
			t.Errorf("%q: %q, %v; want %q", c.in, f.String(), err, c.out)
		}
	}
}

// TestNotifyDisabledNoAlloc: with notifications off, a report is a test of
// a bit.
func TestNotifyDisabledNoAlloc(t *testing.T) {
	h := newKSTest(t)
	key := []byte("k")
	allocs := testing.AllocsPerRun(100, func() {
		h.k.notify(NotifyString, "set", key, 0)
		h.k.notifyString(NotifyExpired, "expired", "k", 0)
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per disabled notify", allocs)
	}
	// Flags without K or E publish nothing: the class bits alone do not
	// turn the reports on.
	called := false
	h.k.SetNotify(NotifyAll|NotifyKeyMiss, func(int, string, []byte, NotifyClass) { called = true })
	h.run("SET", "k", "v")
	h.run("GET", "missing")
	if called {
		t.Fatal("events reported with neither K nor E set")
	}
}

// TestNotifyEmbedded: the direct API reports as SET and DEL do.
func TestNotifyEmbedded(t *testing.T) {
	h := newKSTest(t)
	rec := &recorder{flags: NotifyKeyevent | NotifyAll | NotifyNew}
	h.k.SetNotify(rec.flags, rec.record)
	h.k.SetValue(0, "k", "v", time.Second)
	h.k.Delete(0, "k")
	want := []string{"__keyevent@0__:new k", "__keyevent@0__:set k", "__keyevent@0__:expire k", "__keyevent@0__:del k"}
	if got := rec.take(); !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// lazyCase is a command run on keys whose deadline has passed but which
// nothing has removed yet: Redis removes them as the command looks them up
// (expired, then keymiss for a read), in the order it looks them up.
type lazyCase struct {
	setup  string   // commands, ";"-separated, run before the keys expire
	expire []string // keys given a deadline 5 ms ahead
	cmd    string
}

var lazyCases = []lazyCase{
	{"SET k v", []string{"k"}, "GET k"},
	{"SET k v", []string{"k"}, "SET k w"},
	{"SET k v", []string{"k"}, "SET k w GET"},
	{"SET k v", []string{"k"}, "SET k w NX"},
	{"SET k v", []string{"k"}, "SET k w XX"},
	{"SET k v", []string{"k"}, "GETSET k w"},
	{"SET k v", []string{"k"}, "GETDEL k"},
	{"SET k v", []string{"k"}, "GETEX k PERSIST"},
	{"SET k v", []string{"k"}, "APPEND k w"},
	{"SET k 1", []string{"k"}, "INCR k"},
	{"SET k 1", []string{"k"}, "INCRBYFLOAT k 1.5"},
	{"SET k v", []string{"k"}, "SETRANGE k 1 w"},
	{"SET k v; SET j v", []string{"k", "j"}, "MGET j k x"},
	{"SET k v; SET j v", []string{"k", "j"}, "MSET j 1 k 2"},
	{"SET k v; SET j v", []string{"k"}, "MSETNX k 1 j 2"},
	{"SET k v; SET j v", []string{"k", "j"}, "DEL j x k"},
	{"SET k v; SET j v", []string{"k", "j"}, "EXISTS k j x"},
	{"SET k v", []string{"k"}, "TOUCH k"},
	{"SET k v", []string{"k"}, "TYPE k"},
	{"SET k v", []string{"k"}, "TTL k"},
	{"SET k v", []string{"k"}, "EXPIRE k 100"},
	{"SET k v", []string{"k"}, "PERSIST k"},
	{"SET k v", []string{"k"}, "RENAME k j"},
	{"SET k v; SET j v", []string{"j"}, "RENAME k j"},
	{"SET k v; SET j v", []string{"j"}, "RENAMENX k j"},
	{"SET k v", []string{"k"}, "COPY k j"},
	{"SET k v; SET j v", []string{"j"}, "COPY k j"},
	{"SET k v", []string{"k"}, "MOVE k 1"},
	{"SET k v; SET j v; SET i v", []string{"k"}, "SCAN 0"},
	{"SET k v; HSET j f v", []string{"k"}, "SCAN 0 TYPE string"},
	{"SET k v; HSET j f v", []string{"j"}, "SCAN 0 TYPE string"},
	{"SET k v; SET j v", []string{"k", "j"}, "SCAN 0 MATCH k"},
	{"SET k v", []string{"k"}, "RANDOMKEY"},
	{"SET k v; SET j v", []string{"k", "j"}, "KEYS *"},
	{"SET k v; SET j v", []string{"k", "j"}, "DBSIZE"},
	{"HSET k f v", []string{"k"}, "HGET k f"},
	{"HSET k f v", []string{"k"}, "HSET k f w"},
	{"HSET k f v", []string{"k"}, "HDEL k f"},
	{"HSET k f 1", []string{"k"}, "HINCRBY k f 2"},
	{"RPUSH k a b", []string{"k"}, "LPUSH k c"},
	{"RPUSH k a b", []string{"k"}, "RPOP k"},
	{"RPUSH k a b", []string{"k"}, "LRANGE k 0 -1"},
	{"RPUSH k a b; RPUSH j c", []string{"k"}, "LMOVE k j LEFT LEFT"},
	{"RPUSH k a b; RPUSH j c", []string{"j"}, "LMOVE k j LEFT LEFT"},
	{"RPUSH k a b; RPUSH j c", []string{"k"}, "LMPOP 2 k j LEFT"},
	{"SADD k a b", []string{"k"}, "SADD k c"},
	{"SADD k a b", []string{"k"}, "SISMEMBER k a"},
	{"SADD k a b; SADD j c", []string{"k"}, "SMOVE k j a"},
	{"SADD k a b; SADD j c", []string{"j"}, "SMOVE k j a"},
	{"SADD k a b; SADD j c", []string{"k", "j"}, "SMOVE k j a"},
	{"SADD k a b; SADD j c", []string{"k"}, "SUNIONSTORE k j"},
	{"SADD k a b; SADD j c", []string{"j"}, "SUNIONSTORE k j"},
	{"SADD k a b; SADD j c", []string{"k"}, "SINTERSTORE k x"},
	{"SADD k a b; SADD j c", []string{"k"}, "SINTER k j"},
	{"ZADD k 1 a 2 b", []string{"k"}, "ZADD k 3 c"},
	{"ZADD k 1 a 2 b", []string{"k"}, "ZSCORE k a"},
	{"ZADD k 1 a 2 b; ZADD j 1 c", []string{"k"}, "ZPOPMIN k"},
	{"ZADD k 1 a 2 b; ZADD j 1 c", []string{"k"}, "ZMPOP 2 k j MIN"},
	{"ZADD k 1 a 2 b; ZADD j 1 c", []string{"j"}, "ZUNIONSTORE k 2 k j"},
	{"ZADD k 1 a 2 b; ZADD j 1 c", []string{"k"}, "ZRANGESTORE k j 0 -1"},
	{"ZADD k 1 a 2 b; ZADD j 1 c", []string{"k"}, "ZINTERSTORE k 2 x j"},
}

// TestNotifyLazyExpiryDiff runs lazyCases on redis-server, its active
// expiry turned off, and on a Keyspace whose commands run past the
// deadlines before any sweep, and compares the events.
func TestNotifyLazyExpiryDiff(t *testing.T) { runLazyCases(t, lazyCases) }

func runLazyCases(t *testing.T, cases []lazyCase) {
	srv := redistest.Start(t, "--enable-debug-command", "yes")
	const flags = "KEAmn"
	nflags, _ := ParseNotifyFlags(flags)
	r := newNotifyRedis(t, srv.Addr, flags)
	if got := r.cmd.MustDo("DEBUG", "SET-ACTIVE-EXPIRE", "0"); got != "+OK\r\n" {
		t.Fatalf("DEBUG SET-ACTIVE-EXPIRE: %q", got)
	}
	compared := 0
	for _, lc := range cases {
		r.do("FLUSHALL")
		h := newKSTest(t)
		rec := &recorder{flags: nflags}
		for _, line := range strings.Split(lc.setup, ";") {
			args := strings.Fields(line)
			r.do(args...)
			h.run(args...)
		}
		for _, key := range lc.expire {
			r.do("PEXPIRE", key, "5")
			h.run("PEXPIRE", key, "5")
		}
		time.Sleep(10 * time.Millisecond)
		args := strings.Fields(lc.cmd)
		want, wantEv := r.do(args...)
		h.k.SetNotify(nflags, rec.record)
		got := h.runAt(testNow+10, args...)
		gotEv := rec.take()
		if !strings.HasPrefix(lc.cmd, "SCAN") && !strings.HasPrefix(lc.cmd, "KEYS") && got != want {
			t.Errorf("%s / %s: reply %q, redis %q", lc.setup, lc.cmd, got, want)
		}
		if !slices.Equal(gotEv, wantEv) {
			t.Errorf("%s / expire %v / %s:\n  minilock %q\n  redis    %q", lc.setup, lc.expire, lc.cmd, gotEv, wantEv)
		}
		compared += len(wantEv)
	}
	t.Logf("%d cases, %d published messages compared", len(cases), compared)
}

// runAt is run at the time now (Unix ms), without moving the clock: keys
// past their deadline are found by the command itself, not by a sweep.
func (h *ksTest) runAt(now int64, args ...string) string {
	h.t.Helper()
	run := ksCommands[strings.ToLower(args[0])]
	var w resp.Writer
	argv := make([][]byte, len(args))
	for i, a := range args {
		argv[i] = []byte(a)
	}
	c := &Ctx{W: &w, DB: h.db, Now: now}
	if err := run(h.k, c, argv); err != nil {
		w.Err(err)
	}
	return string(w.B)
}
