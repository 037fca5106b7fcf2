package libraries_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bsm/redislock"
	"github.com/go-redsync/redsync/v4"
	rsredis "github.com/go-redsync/redsync/v4/redis"
	redsyncgoredis "github.com/go-redsync/redsync/v4/redis/goredis/v9"
	"github.com/redis/go-redis/v9"

	"github.com/minilock/minilock/internal/lockscripts"
	"github.com/minilock/minilock/server"
)

// Real lock libraries against minilock: go-redis's Script (EVALSHA, then
// EVAL on NOSCRIPT), redsync (single node and Redlock over three
// in-process servers) and bsm/redislock. Each is taken, contended, left to
// expire, extended and released, and a release by someone who does not
// hold the lock is refused.
//
//	go test -run TestLib -v ./e2e/libraries

// libCommands records the EVAL and EVALSHA commands a go-redis client sends
// (not the connection handshake).
type libCommands struct {
	mu    sync.Mutex
	names []string
}

func (h *libCommands) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *libCommands) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if name := cmd.Name(); name == "eval" || name == "evalsha" {
			h.mu.Lock()
			h.names = append(h.names, name)
			h.mu.Unlock()
		}
		return next(ctx, cmd)
	}
}

func (h *libCommands) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// take returns the names recorded so far and forgets them.
func (h *libCommands) take() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := h.names
	h.names = nil
	return out
}

func libClient(t *testing.T, s *server.Server) *redis.Client {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr()})
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

// go-redis Script.Run: EVALSHA first, EVAL when the server answers
// NOSCRIPT, EVALSHA alone once the script is cached; and again EVAL after
// SCRIPT FLUSH.
func TestLibGoRedisScriptRun(t *testing.T) {
	s := server.RunT(t, server.Doctor())
	rdb := libClient(t, s)
	var rec libCommands
	rdb.AddHook(&rec)
	release := redis.NewScript(lockscripts.ArticleRelease)

	s.Set("lock", "tok")
	if n, err := release.Run(ctx, rdb, []string{"lock"}, "other").Int(); err != nil || n != 0 {
		t.Fatalf("first run = %d, %v", n, err)
	}
	if got := rec.take(); !slices.Equal(got, []string{"evalsha", "eval"}) {
		t.Errorf("first run sent %q, want evalsha then eval", got)
	}
	if n, err := release.Run(ctx, rdb, []string{"lock"}, "tok").Int(); err != nil || n != 1 {
		t.Fatalf("second run = %d, %v", n, err)
	}
	if got := rec.take(); !slices.Equal(got, []string{"evalsha"}) {
		t.Errorf("second run sent %q, want evalsha only", got)
	}
	if s.Exists("lock") {
		t.Error("the owner's release left the lock")
	}
	if exists := release.Exists(ctx, rdb).Val(); !slices.Equal(exists, []bool{true}) {
		t.Errorf("SCRIPT EXISTS = %v", exists)
	}
	if err := rdb.ScriptFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	rec.take()
	if n, err := release.Run(ctx, rdb, []string{"lock"}, "tok").Int(); err != nil || n != 0 {
		t.Fatalf("run after SCRIPT FLUSH = %d, %v", n, err)
	}
	if got := rec.take(); !slices.Equal(got, []string{"evalsha", "eval"}) {
		t.Errorf("run after SCRIPT FLUSH sent %q, want evalsha then eval", got)
	}
	// The NOSCRIPT error itself, as go-redis sees it.
	err := rdb.EvalSha(ctx, strings.Repeat("0", 40), []string{"k"}).Err()
	if !redis.HasErrorPrefix(err, "NOSCRIPT") || err.Error() != "NOSCRIPT No matching script. Please use EVAL." {
		t.Errorf("EVALSHA of an unknown script: %v", err)
	}
	// Load, then EvalSha directly (redis-py's flow: SCRIPT LOAD on NOSCRIPT).
	sha, err := release.Load(ctx, rdb).Result()
	if err != nil || sha != release.Hash() {
		t.Fatalf("SCRIPT LOAD = %q, %v, want %q", sha, err, release.Hash())
	}
	if n := rdb.EvalSha(ctx, strings.ToUpper(sha), []string{"lock"}, "tok").Val(); n != int64(0) {
		t.Errorf("EVALSHA with an upper-case SHA1 = %v", n)
	}
}

func redsyncFor(servers ...*server.Server) *redsync.Redsync {
	var pools []rsredis.Pool
	for _, s := range servers {
		rdb := redis.NewClient(&redis.Options{
			Addr: s.Addr(),
			// A stopped node fails at once.
			DialTimeout:        200 * time.Millisecond,
			DialerRetries:      1,
			DialerRetryTimeout: time.Millisecond,
			MaxRetries:         -1,
		})
		pools = append(pools, redsyncgoredis.NewPool(rdb))
	}
	return redsync.New(pools...)
}

func TestLibRedsync(t *testing.T) {
	s := server.RunT(t, server.Doctor())
	rs := redsyncFor(s)
	m1 := rs.NewMutex("job", redsync.WithExpiry(8*time.Second), redsync.WithTries(1))
	m2 := rs.NewMutex("job", redsync.WithExpiry(8*time.Second), redsync.WithTries(1))

	if err := m1.Lock(); err != nil {
		t.Fatalf("m1.Lock: %v", err)
	}
	s.CheckGet(t, "job", m1.Value())
	if ttl := s.TTL("job"); ttl <= 7900*time.Millisecond || ttl > 8*time.Second {
		t.Errorf("TTL %v, want about 8s", ttl)
	}
	// Contention: m2 fails at once with one try ...
	var taken *redsync.ErrTaken
	if err := m2.Lock(); !errors.As(err, &taken) {
		t.Fatalf("m2.Lock on a held lock: %v, want ErrTaken", err)
	}
	// ... and a non-owner's unlock is refused.
	if ok, err := m2.Unlock(); ok || !errors.As(err, &taken) {
		t.Fatalf("m2.Unlock of m1's lock = %v, %v", ok, err)
	}
	s.CheckGet(t, "job", m1.Value())

	// Extend: the TTL starts again.
	s.FastForward(5 * time.Second)
	if ok, err := m1.Extend(); !ok || err != nil {
		t.Fatalf("m1.Extend = %v, %v", ok, err)
	}
	if ttl := s.TTL("job"); ttl <= 7900*time.Millisecond {
		t.Errorf("TTL after Extend %v, want about 8s", ttl)
	}
	if ok, err := m2.Extend(); ok || err == nil {
		t.Errorf("m2.Extend of m1's lock = %v, %v", ok, err)
	}

	// Expiry: m2 gets the lock once it has expired; m1's late unlock and
	// extend are refused and leave m2's lock alone.
	s.FastForward(8*time.Second + time.Millisecond)
	if err := m2.Lock(); err != nil {
		t.Fatalf("m2.Lock after expiry: %v", err)
	}
	if ok, _ := m1.Unlock(); ok {
		t.Error("m1 unlocked m2's lock")
	}
	if ok, _ := m1.Extend(); ok {
		t.Error("m1 extended m2's lock")
	}
	s.CheckGet(t, "job", m2.Value())
	if ok, err := m2.Unlock(); !ok || err != nil {
		t.Fatalf("m2.Unlock = %v, %v", ok, err)
	}
	if s.Exists("job") {
		t.Error("the lock survived its owner's Unlock")
	}
	// Unlock of a lock that is gone: the delete script's -1.
	if ok, err := m2.Unlock(); ok || !errors.Is(err, redsync.ErrLockAlreadyExpired) {
		t.Errorf("second Unlock = %v, %v, want ErrLockAlreadyExpired", ok, err)
	}

	// Retrying: m3 waits until m1 releases.
	if err := m1.Lock(); err != nil {
		t.Fatal(err)
	}
	m3 := rs.NewMutex("job", redsync.WithExpiry(8*time.Second), redsync.WithTries(100), redsync.WithRetryDelay(5*time.Millisecond))
	done := make(chan error, 1)
	go func() { done <- m3.Lock() }()
	time.Sleep(30 * time.Millisecond)
	select {
	case err := <-done:
		t.Fatalf("m3 got a held lock: %v", err)
	default:
	}
	if ok, err := m1.Unlock(); !ok || err != nil {
		t.Fatalf("m1.Unlock = %v, %v", ok, err)
	}
	if err := <-done; err != nil {
		t.Fatalf("m3.Lock after m1's release: %v", err)
	}
	s.CheckGet(t, "job", m3.Value())

	// WithSetNXOnExtend: extending a lock that expired takes it again.
	m4 := rs.NewMutex("other", redsync.WithExpiry(2*time.Second), redsync.WithSetNXOnExtend())
	if err := m4.Lock(); err != nil {
		t.Fatal(err)
	}
	s.FastForward(2*time.Second + time.Millisecond)
	if ok, err := m4.Extend(); !ok || err != nil {
		t.Fatalf("Extend with SETNX of an expired lock = %v, %v", ok, err)
	}
	s.CheckGet(t, "other", m4.Value())
}

// Redlock: redsync over three minilock servers. With one stopped the
// quorum (2 of 3) still grants the lock; with two stopped it does not.
func TestLibRedlock(t *testing.T) {
	s1, s2, s3 := server.RunT(t, server.Doctor()), server.RunT(t, server.Doctor()), server.RunT(t, server.Doctor())
	rs := redsyncFor(s1, s2, s3)
	opts := []redsync.Option{redsync.WithExpiry(10 * time.Second), redsync.WithTries(1)}

	m1 := rs.NewMutex("res", opts...)
	if err := m1.Lock(); err != nil {
		t.Fatalf("all nodes up: %v", err)
	}
	for _, s := range []*server.Server{s1, s2, s3} {
		s.CheckGet(t, "res", m1.Value())
	}
	if err := rs.NewMutex("res", opts...).Lock(); err == nil {
		t.Fatal("a second mutex took a held Redlock")
	}
	if ok, err := m1.Unlock(); !ok || err != nil {
		t.Fatalf("Unlock = %v, %v", ok, err)
	}

	s3.Close()
	m2 := rs.NewMutex("res", opts...)
	if err := m2.Lock(); err != nil {
		t.Fatalf("one node down: %v", err)
	}
	s1.CheckGet(t, "res", m2.Value())
	s2.CheckGet(t, "res", m2.Value())
	if err := rs.NewMutex("res", opts...).Lock(); err == nil {
		t.Fatal("one node down: a second mutex took a held Redlock")
	}
	if ok, err := m2.Extend(); !ok || err != nil {
		t.Errorf("one node down: Extend = %v, %v", ok, err)
	}
	// The lock expires on the two live nodes: another client gets it.
	s1.FastForward(10*time.Second + time.Millisecond)
	s2.FastForward(10*time.Second + time.Millisecond)
	m3 := rs.NewMutex("res", opts...)
	if err := m3.Lock(); err != nil {
		t.Fatalf("one node down, after expiry: %v", err)
	}
	if ok, _ := m2.Unlock(); ok {
		t.Error("m2 unlocked m3's Redlock")
	}
	if ok, err := m3.Unlock(); !ok || err != nil {
		t.Fatalf("one node down: Unlock = %v, %v", ok, err)
	}

	s2.Close()
	if err := rs.NewMutex("res", opts...).Lock(); err == nil {
		t.Fatal("two nodes down: the lock was granted without a quorum")
	}
	if s1.Exists("res") {
		t.Error("the failed Redlock left its lock on the live node")
	}
}

func TestLibRedislock(t *testing.T) {
	s := server.RunT(t, server.Doctor())
	locker := redislock.New(libClient(t, s))
	other := redislock.New(libClient(t, s))

	lock, err := locker.Obtain(ctx, "report", 5*time.Second, nil)
	if err != nil {
		t.Fatalf("Obtain: %v", err)
	}
	s.CheckGet(t, "report", lock.Token())
	if ttl, err := lock.TTL(ctx); err != nil || ttl <= 4900*time.Millisecond || ttl > 5*time.Second {
		t.Errorf("TTL = %v, %v, want about 5s", ttl, err)
	}
	// Contention without retry fails at once.
	if _, err := other.Obtain(ctx, "report", 5*time.Second, nil); !errors.Is(err, redislock.ErrNotObtained) {
		t.Fatalf("Obtain of a held lock: %v", err)
	}
	// Refresh sets a new TTL (the script's PEXPIRE).
	if err := lock.Refresh(ctx, 20*time.Second, nil); err != nil {
		t.Fatalf("Refresh: %v", err)
	}
	if ttl := s.TTL("report"); ttl <= 19900*time.Millisecond || ttl > 20*time.Second {
		t.Errorf("TTL after Refresh = %v", ttl)
	}
	// Expiry: another client obtains it; the first one's refresh, TTL and
	// release are refused and leave the new lock alone.
	s.FastForward(20*time.Second + time.Millisecond)
	if ttl, err := lock.TTL(ctx); err != nil || ttl != 0 {
		t.Errorf("TTL of an expired lock = %v, %v", ttl, err)
	}
	lock2, err := other.Obtain(ctx, "report", 5*time.Second, nil)
	if err != nil {
		t.Fatalf("Obtain after expiry: %v", err)
	}
	if err := lock.Refresh(ctx, 5*time.Second, nil); !errors.Is(err, redislock.ErrNotObtained) {
		t.Errorf("Refresh by the old holder: %v", err)
	}
	if err := lock.Release(ctx); !errors.Is(err, redislock.ErrLockNotHeld) {
		t.Errorf("Release by the old holder: %v", err)
	}
	s.CheckGet(t, "report", lock2.Token())
	if err := lock2.Release(ctx); err != nil {
		t.Fatalf("Release: %v", err)
	}
	if err := lock2.Release(ctx); !errors.Is(err, redislock.ErrLockNotHeld) {
		t.Errorf("second Release: %v", err)
	}

	// Retry: a waiter gets the lock once the holder releases it.
	lock3, err := locker.Obtain(ctx, "report", 5*time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	go func() {
		l, err := other.Obtain(ctx, "report", 5*time.Second, &redislock.Options{RetryStrategy: redislock.LinearBackoff(5 * time.Millisecond)})
		if err == nil {
			err = l.Release(ctx)
		}
		got <- err
	}()
	time.Sleep(30 * time.Millisecond)
	if err := lock3.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-got; err != nil {
		t.Fatalf("waiter: %v", err)
	}

	// Metadata and a chosen token: the obtain script's GETRANGE branch lets
	// the same token take its own lock again with new metadata.
	l4, err := locker.Obtain(ctx, "meta", 5*time.Second, &redislock.Options{Token: "tok-4", Metadata: "v1"})
	if err != nil {
		t.Fatal(err)
	}
	l5, err := locker.Obtain(ctx, "meta", 9*time.Second, &redislock.Options{Token: "tok-4", Metadata: "v2"})
	if err != nil {
		t.Fatalf("re-obtain with the same token: %v", err)
	}
	if l5.Metadata() != "v2" || l4.Token() != l5.Token() {
		t.Errorf("metadata %q token %q/%q", l5.Metadata(), l4.Token(), l5.Token())
	}
	s.CheckGet(t, "meta", "tok-4v2")
	if _, err := other.Obtain(ctx, "meta", 5*time.Second, &redislock.Options{Token: "tok-5"}); !errors.Is(err, redislock.ErrNotObtained) {
		t.Errorf("Obtain with another token: %v", err)
	}
}

// withDoctor turns the lock doctor on in cfg: every library here runs
// under it, and a hazard it flags fails the test (false positives on real
// lock libraries are tested to be zero this way).
func withDoctor(cfg server.Config) server.Config {
	cfg.Doctor = &server.DoctorConfig{}
	return cfg
}
