package server_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/minilock/minilock/expiry"
	"github.com/minilock/minilock/internal/redistest"
	"github.com/minilock/minilock/server"
)

var ctx = context.Background()

// client returns a go-redis client for s, closed when the test ends.
func client(t *testing.T, s *server.Server) *redis.Client {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr()})
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

// The test a lock user writes: as short as its miniredis equivalent.
func TestLockExpiresWithFastForward(t *testing.T) {
	s := server.RunT(t, server.Manual())
	rdb := client(t, s)
	if !rdb.SetNX(ctx, "lock", "a", 30*time.Second).Val() {
		t.Fatal("a could not take a free lock")
	}
	s.CheckTTL(t, "lock", 30*time.Second)
	if rdb.SetNX(ctx, "lock", "b", 30*time.Second).Val() {
		t.Fatal("b took a held lock")
	}
	s.FastForward(30*time.Second + time.Millisecond)
	if !rdb.SetNX(ctx, "lock", "b", 30*time.Second).Val() {
		t.Fatal("b could not take an expired lock")
	}
	s.CheckGet(t, "lock", "b")
}

// A key expires once the clock is past its deadline, not at it (Redis's
// keyIsExpired), and a manual clock moves only when told.
func TestManualClockExpiry(t *testing.T) {
	s := server.RunT(t, server.Manual())
	s.SetTTL("k", "v", 10*time.Second)
	steps := []struct {
		move   time.Duration
		exists bool
		ttl    time.Duration
	}{
		{0, true, 10 * time.Second},
		{9 * time.Second, true, time.Second},
		{time.Second, true, 0}, // at the deadline: still there
		{time.Millisecond, false, 0},
	}
	for _, st := range steps {
		s.FastForward(st.move)
		if got := s.Exists("k"); got != st.exists {
			t.Fatalf("after +%v: Exists = %v, want %v", st.move, got, st.exists)
		}
		if got := s.TTL("k"); got != st.ttl {
			t.Fatalf("after +%v: TTL = %v, want %v", st.move, got, st.ttl)
		}
	}
}

func TestSetTimeExpires(t *testing.T) {
	start := time.Unix(1_700_000_000, 0)
	s := server.RunT(t, server.Config{Clock: expiry.NewManual(start)})
	s.SetTTL("k", "v", time.Minute)
	s.SetTime(start.Add(time.Hour))
	if s.Exists("k") {
		t.Fatal("k survived SetTime past its deadline")
	}
	if !s.Now().Equal(start.Add(time.Hour)) {
		t.Fatalf("Now = %v", s.Now())
	}
}

func TestAccessors(t *testing.T) {
	s := server.RunT(t, server.Manual())
	rdb := client(t, s)
	tests := []struct {
		name string
		do   func()
		keys []string // database 0 afterwards
	}{
		{"Set", func() { s.Set("a", "1") }, []string{"a"}},
		{"SetTTL", func() { s.SetTTL("b", "2", time.Second) }, []string{"a", "b"}},
		{"client SET", func() { rdb.Set(ctx, "c", "3", 0) }, []string{"a", "b", "c"}},
		{"DB(1).Set leaves db 0", func() { s.DB(1).Set("d", "4", 0) }, []string{"a", "b", "c"}},
		{"Del", func() { s.Del("a") }, []string{"b", "c"}},
		{"FlushAll", s.FlushAll, nil},
	}
	for _, tt := range tests {
		tt.do()
		if got := s.Keys(); !slices.Equal(got, tt.keys) {
			t.Fatalf("after %s: Keys = %q, want %q", tt.name, got, tt.keys)
		}
	}
	if s.DB(1).Exists("d") {
		t.Fatal("FlushAll left database 1")
	}
}

func TestAccessorsSeeClientWrites(t *testing.T) {
	s := server.RunT(t, server.Manual())
	rdb := client(t, s)
	rdb.Set(ctx, "lock", "tok", 5*time.Second)
	s.CheckGet(t, "lock", "tok")
	s.CheckTTL(t, "lock", 5*time.Second)
	s.Set("lock", "other")
	if got := rdb.Get(ctx, "lock").Val(); got != "other" {
		t.Fatalf("client GET after Set = %q", got)
	}
	s.CheckTTL(t, "lock", 0) // Set replaces the key, TTL included, as SET does
}

// fakeT records what a Check helper reports.
type fakeT struct {
	testing.TB
	errs []string
}

func (f *fakeT) Helper() {}
func (f *fakeT) Errorf(format string, args ...any) {
	f.errs = append(f.errs, fmt.Sprintf(format, args...))
}

func TestCheckHelpers(t *testing.T) {
	s := server.RunT(t, server.Manual())
	s.SetTTL("lock", "a", 10*time.Second)
	s.Set("plain", "p")
	tests := []struct {
		name  string
		check func(testing.TB)
		want  string // "" for no failure
	}{
		{"get ok", func(t testing.TB) { s.CheckGet(t, "lock", "a") }, ""},
		{"get wrong", func(t testing.TB) { s.CheckGet(t, "lock", "b") }, `key "lock" = "a", want "b"`},
		{"get missing", func(t testing.TB) { s.CheckGet(t, "nope", "b") }, `key "nope" does not exist`},
		{"ttl ok", func(t testing.TB) { s.CheckTTL(t, "lock", 10*time.Second) }, ""},
		{"no ttl ok", func(t testing.TB) { s.CheckTTL(t, "plain", 0) }, ""},
		{"ttl wrong", func(t testing.TB) { s.CheckTTL(t, "lock", time.Second) }, `key "lock" has TTL 10s, want 1s`},
		{"ttl missing", func(t testing.TB) { s.CheckTTL(t, "nope", time.Second) }, `key "nope" does not exist`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeT{}
			tt.check(f)
			switch {
			case tt.want == "" && len(f.errs) > 0:
				t.Fatalf("unexpected failure: %q", f.errs)
			case tt.want != "" && (len(f.errs) != 1 || !strings.Contains(f.errs[0], tt.want)):
				t.Fatalf("reported %q, want one error containing %q", f.errs, tt.want)
			}
		})
	}
}

func TestRestartKeepsDataAndAddress(t *testing.T) {
	s := server.RunT(t, server.Manual())
	rdb := client(t, s)
	rdb.Set(ctx, "lock", "tok", 30*time.Second)
	raw, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	// Served before the restart: a connection still in the listener's
	// backlog is reset when the listener closes, not closed.
	if _, err := raw.Write([]byte("PING\r\n")); err != nil {
		t.Fatal(err)
	}
	if n, err := raw.Read(make([]byte, 7)); err != nil || n != 7 {
		t.Fatalf("PING before Restart: %d bytes, %v", n, err)
	}
	addr := s.Addr()

	if err := s.Restart(); err != nil {
		t.Fatal(err)
	}
	if s.Addr() != addr {
		t.Fatalf("Addr after Restart = %s, want %s", s.Addr(), addr)
	}
	// Restart returns once every old connection is closed.
	raw.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := raw.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("old connection after Restart: %v, want EOF", err)
	}
	if got, err := rdb.Get(ctx, "lock").Result(); err != nil || got != "tok" {
		t.Fatalf("GET after Restart = %q, %v", got, err)
	}
	s.CheckTTL(t, "lock", 30*time.Second)
	s.FastForward(31 * time.Second) // the clock and expiry still work
	if s.Exists("lock") {
		t.Fatal("lock survived its TTL after Restart")
	}
}

// A restarted Redis forgets its scripts; clients answer NOSCRIPT by sending
// the script again, so a test can check that its client does.
func TestRestartEmptiesScriptCache(t *testing.T) {
	s := server.RunT(t, server.Manual())
	rdb := client(t, s)
	sha, err := rdb.ScriptLoad(ctx, "return 1").Result()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Restart(); err != nil {
		t.Fatal(err)
	}
	if got := rdb.ScriptExists(ctx, sha).Val(); !slices.Equal(got, []bool{false}) {
		t.Fatalf("SCRIPT EXISTS after Restart = %v", got)
	}
}

func TestRestartAppliesRestartDelay(t *testing.T) {
	s := server.RunT(t, server.Config{Clock: expiry.NewManual(time.Unix(1_700_000_000, 0)), RestartDelay: 5 * time.Second})
	rdb := client(t, s)
	s.FastForward(5 * time.Second)
	if err := rdb.Set(ctx, "k", "1", 0).Err(); err != nil {
		t.Fatalf("SET after the delay: %v", err)
	}
	if err := s.Restart(); err != nil {
		t.Fatal(err)
	}
	if err := rdb.Set(ctx, "k", "2", 0).Err(); err == nil || !strings.HasPrefix(err.Error(), "LOADING") {
		t.Fatalf("SET right after Restart: %v, want LOADING", err)
	}
	s.FastForward(5 * time.Second)
	if err := rdb.Set(ctx, "k", "2", 0).Err(); err != nil {
		t.Fatalf("SET once the delay is over: %v", err)
	}
}

func TestRestartAfterClose(t *testing.T) {
	s, err := server.Start(server.Manual())
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if err := s.Restart(); !errors.Is(err, server.ErrClosed) {
		t.Fatalf("Restart after Close = %v, want ErrClosed", err)
	}
}

func TestTapAndPublish(t *testing.T) {
	s := server.RunT(t)
	tap := s.Tap("lock:*")
	c := redistest.Dial(t, s.Addr())
	if got, err := c.Do("SUBSCRIBE", "lock:a"); err != nil || !strings.HasPrefix(string(got), "*3") {
		t.Fatalf("SUBSCRIBE: %q, %v", got, err)
	}
	if n := s.Publish("lock:a", "released"); n != 1 {
		t.Fatalf("Publish reached %d subscribers, want 1 (a tap is not one)", n)
	}
	got, err := c.ReadReply()
	if want := "*3\r\n$7\r\nmessage\r\n$6\r\nlock:a\r\n$8\r\nreleased\r\n"; err != nil || string(got) != want {
		t.Fatalf("message: %q, %v", got, err)
	}
	other := redistest.Dial(t, s.Addr())
	other.Do("PUBLISH", "other", "x")
	other.Do("SPUBLISH", "lock:b", "y")
	msgs := tap.Wait(t, 2, time.Second)
	want := []server.Message{{Channel: "lock:a", Payload: "released"}, {Channel: "lock:b", Payload: "y", Shard: true}}
	if !slices.Equal(msgs, want) {
		t.Fatalf("tap recorded %+v, want %+v", msgs, want)
	}
}

// TIME reads the server's clock, so a script that takes its timestamps from
// TIME agrees with the TTLs under a manual clock (lab's semaphore-server-time
// relies on it).
func TestTimeFollowsClock(t *testing.T) {
	start := time.Unix(1_700_000_000, 250_000_000)
	s := server.RunT(t, server.Config{Clock: expiry.NewManual(start)})
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr()})
	t.Cleanup(func() { rdb.Close() })
	ctx := context.Background()
	for _, want := range []time.Time{start, start.Add(90*time.Second + 1500*time.Microsecond)} {
		s.SetTime(want)
		got, err := rdb.Time(ctx).Result()
		if err != nil || !got.Equal(want) {
			t.Errorf("TIME = %v, %v; want %v", got, err, want)
		}
		v, err := rdb.Eval(ctx, `local t = redis.call("TIME") return t[1] * 1000000 + t[2]`, nil).Int64()
		if err != nil || v != want.UnixMicro() {
			t.Errorf("TIME in a script = %d, %v; want %d", v, err, want.UnixMicro())
		}
	}
}
