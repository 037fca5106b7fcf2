package libraries_test

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/minilock/minilock/internal/redistest"
	"github.com/minilock/minilock/server"
)

// Redisson's RLock, RReadWriteLock, RFairLock, RSemaphore and
// RPermitExpirableSemaphore, replayed through go-redis: our own Lua scripts
// speaking Redisson's protocol (testdata/redisson-protocol; SOURCE.md there
// says which methods and which Redisson version), with the keys, KEYS, ARGV,
// channels and messages Redisson uses, over EVALSHA and EVAL as a script
// cache does. Every scenario runs
// against minilock and against a real redis-server, and the two transcripts
// (replies, hash contents, messages published) must be equal. The wait paths
// (subscribe to the lock's channel, try, wait for the unlock message, retry)
// must wake their waiters by the message, long before the lock's TTL; the
// fair lock's waiters, each on its own channel, in the queue's order.
//
//	go test -run TestRedisson -v ./e2e/libraries

const (
	// rsnLease is Redisson's default lease: Config.lockWatchdogTimeout, 30 s.
	rsnLease = 30000
	// rsnLatchTimeout is ARGV "timeout" of the unlock scripts: how long the
	// unlock latch key lives so that a retried unlock (same request id)
	// returns the first answer. Redisson computes it from its timeout and
	// retry settings; any positive value exercises the same code.
	rsnLatchTimeout = 20000
	// Redisson's LockPubSub messages.
	rsnUnlockMessage     = 0
	rsnReadUnlockMessage = 1
)

// rsnScripts are the scripts of testdata/redisson-protocol, by file name
// without .lua, loaded once per test binary.
var rsnScripts = sync.OnceValues(func() (map[string]*redis.Script, error) {
	return loadScripts(filepath.Join("testdata", "redisson-protocol"))
})

func loadScripts(dir string) (map[string]*redis.Script, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.lua"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("no scripts in %s: %v", dir, err)
	}
	out := map[string]*redis.Script{}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		out[strings.TrimSuffix(filepath.Base(f), ".lua")] = redis.NewScript(string(src))
	}
	return out, nil
}

func rsnScript(t testing.TB, name string) *redis.Script {
	t.Helper()
	scripts, err := rsnScripts()
	if err != nil {
		t.Fatal(err)
	}
	sc, ok := scripts[name]
	if !ok {
		t.Fatalf("no script %s in testdata/redisson-protocol", name)
	}
	return sc
}

// rsn is one Redisson instance: its ServiceManager id (a UUID in Redisson)
// and the publish command its PublishSubscribeService chose.
type rsn struct {
	t       testing.TB
	rdb     *redis.Client
	id      string
	publish string // PUBLISH or SPUBLISH
}

// prefixName and suffixName are RedissonObject's.
func prefixName(prefix, name string) string {
	if strings.Contains(name, "{") {
		return prefix + ":" + name
	}
	return prefix + ":{" + name + "}"
}

func suffixName(name, suffix string) string {
	if strings.Contains(name, "{") {
		return name + ":" + suffix
	}
	return "{" + name + "}:" + suffix
}

func (r *rsn) lockName(thread int) string { return r.id + ":" + strconv.Itoa(thread) }

func (r *rsn) run(script string, keys []string, args ...any) (any, error) {
	return rsnScript(r.t, script).Run(ctx, r.rdb, keys, args...).Result()
}

// RLock.

func (r *rsn) tryLock(name string, thread int, lease int64) (any, error) {
	return r.run("lock_try", []string{name}, lease, r.lockName(thread))
}

// unlock is unlockInnerAsync; with cleanup it then deletes the unlock latch
// as RedissonBaseLock does once the answer arrived. Without it, a second
// call with the same request is Redisson's retry after a lost answer.
func (r *rsn) unlock(name string, thread int, request string, cleanup bool) (any, error) {
	latch := prefixName("redisson_unlock_latch", name) + ":" + request
	v, err := r.run("lock_unlock", []string{name, prefixName("redisson_lock__channel", name), latch},
		rsnUnlockMessage, rsnLease, r.lockName(thread), r.publish, rsnLatchTimeout)
	if cleanup {
		r.rdb.Del(ctx, latch)
	}
	return v, err
}

func (r *rsn) forceUnlock(name string) (any, error) {
	return r.run("lock_forceunlock", []string{name, prefixName("redisson_lock__channel", name)}, rsnUnlockMessage, r.publish)
}

// renew is the watchdog's chunk: one entry per lock, ARGV[i+1] its holder.
func (r *rsn) renew(names []string, threads []int) (any, error) {
	args := []any{rsnLease}
	for _, th := range threads {
		args = append(args, r.lockName(th))
	}
	return r.run("lock_renew", names, args...)
}

// RReadWriteLock.

func (r *rsn) rwTimeoutPrefix(name string, thread int) string {
	return suffixName(name, r.lockName(thread)) + ":rwlock_timeout"
}

func (r *rsn) readLock(name string, thread int, lease int64) (any, error) {
	return r.run("readlock_try", []string{name, r.rwTimeoutPrefix(name, thread)},
		lease, r.lockName(thread), r.lockName(thread)+":write")
}

func (r *rsn) readUnlock(name string, thread int, request string) (any, error) {
	prefix := r.rwTimeoutPrefix(name, thread)
	keyPrefix, _, _ := strings.Cut(prefix, ":"+r.lockName(thread)) // RedissonReadLock.getKeyPrefix
	latch := prefixName("redisson_unlock_latch", name) + ":" + request
	v, err := r.run("readlock_unlock", []string{name, prefixName("redisson_rwlock", name), prefix, keyPrefix, latch},
		rsnUnlockMessage, r.lockName(thread), r.publish, rsnLatchTimeout)
	r.rdb.Del(ctx, latch)
	return v, err
}

func (r *rsn) writeLock(name string, thread int, lease int64) (any, error) {
	return r.run("writelock_try", []string{name}, lease, r.lockName(thread)+":write")
}

func (r *rsn) writeUnlock(name string, thread int, request string) (any, error) {
	latch := prefixName("redisson_unlock_latch", name) + ":" + request
	v, err := r.run("writelock_unlock", []string{name, prefixName("redisson_rwlock", name), latch},
		rsnReadUnlockMessage, rsnLease, r.lockName(thread)+":write", r.publish, rsnLatchTimeout)
	r.rdb.Del(ctx, latch)
	return v, err
}

// RSemaphore.

func (r *rsn) trySetPermits(name string, permits int) (any, error) {
	return r.run("semaphore_trysetpermits", []string{name, prefixName("redisson_sc", name)}, permits, r.publish)
}

func (r *rsn) tryAcquire(name string, permits int) (any, error) {
	return r.run("semaphore_tryacquire", []string{name}, permits)
}

func (r *rsn) release(name string, permits int) (any, error) {
	return r.run("semaphore_release", []string{name, prefixName("redisson_sc", name)}, permits, r.publish)
}

// show writes a reply as the transcript records it.
func show(v any, err error) string {
	switch {
	case errors.Is(err, redis.Nil):
		return "nil"
	case err != nil:
		return "error " + err.Error()
	}
	switch v := v.(type) {
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = show(e, nil)
		}
		return "[" + strings.Join(parts, " ") + "]"
	case string:
		return strconv.Quote(v)
	}
	return fmt.Sprint(v)
}

// showTTL is show for a reply that is a lock's remaining time: the real
// server's clock moves while the test runs, so a TTL is recorded as being in
// (0, rsnLease] rather than as its value.
func showTTL(v any, err error) string {
	if n, ok := v.(int64); ok && err == nil && n > 0 && n <= rsnLease {
		return fmt.Sprintf("ttl in (0,%d]", rsnLease)
	}
	return show(v, err)
}

// rsnTranscript is what a scenario saw, one line a step.
type rsnTranscript struct {
	t     testing.TB
	rdb   *redis.Client
	lines []string
}

func (tr *rsnTranscript) add(step, result string) { tr.lines = append(tr.lines, step+" -> "+result) }

// state records a hash's fields and values (sorted) and its TTL (showTTL).
func (tr *rsnTranscript) state(key string) {
	h, err := tr.rdb.HGetAll(ctx, key).Result()
	if err != nil {
		tr.add("HGETALL "+key, show(nil, err))
		return
	}
	var fields []string
	for _, f := range slices.Sorted(maps.Keys(h)) {
		fields = append(fields, f+"="+h[f])
	}
	pttl, err := tr.rdb.Do(ctx, "PTTL", key).Result()
	tr.add("state "+key, "{"+strings.Join(fields, " ")+"} "+showTTL(pttl, err))
}

// rsnSubscriber records the messages of some channels, subscribed with
// SUBSCRIBE or (for SPUBLISH) SSUBSCRIBE.
type rsnSubscriber struct {
	ps       *redis.PubSub
	channels []string
	publish  string
}

func rsnSubscribe(t testing.TB, rdb *redis.Client, publish string, channels ...string) *rsnSubscriber {
	t.Helper()
	var ps *redis.PubSub
	if publish == "SPUBLISH" {
		ps = rdb.SSubscribe(ctx, channels...)
	} else {
		ps = rdb.Subscribe(ctx, channels...)
	}
	t.Cleanup(func() { ps.Close() })
	for range channels {
		if _, err := ps.ReceiveTimeout(ctx, 5*time.Second); err != nil { // the confirmations
			t.Fatal(err)
		}
	}
	return &rsnSubscriber{ps: ps, channels: channels, publish: publish}
}

// messages publishes an end marker on every channel and returns what
// arrived before the markers, in order: no sleep, and nothing missed.
func (s *rsnSubscriber) messages(t testing.TB, rdb *redis.Client) []string {
	t.Helper()
	for _, ch := range s.channels {
		if err := rdb.Do(ctx, s.publish, ch, "end").Err(); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for ends := 0; ends < len(s.channels); {
		m, err := s.ps.ReceiveTimeout(ctx, 5*time.Second)
		if err != nil {
			t.Fatalf("waiting for messages: %v (have %q)", err, got)
		}
		switch m := m.(type) {
		case *redis.Message:
			if m.Payload == "end" {
				ends++
				continue
			}
			got = append(got, m.Channel+" "+m.Payload)
		default:
			got = append(got, fmt.Sprintf("%T %v", m, m))
		}
	}
	return got
}

// rsnEndpoints starts minilock and a real redis-server for one test.
func rsnEndpoints(t *testing.T) map[string]string {
	t.Helper()
	s := server.RunT(t, server.Doctor())
	rs := redistest.Start(t)
	return map[string]string{"minilock": s.Addr(), "redis-server": rs.Addr}
}

// rsnCompare runs scenario against both servers, with each of Redisson's
// publish commands and both protocols, and requires equal transcripts.
func rsnCompare(t *testing.T, scenario func(t *testing.T, tr *rsnTranscript, publish string)) {
	ends := rsnEndpoints(t)
	for _, publish := range []string{"PUBLISH", "SPUBLISH"} {
		for _, proto := range []int{2, 3} {
			t.Run(fmt.Sprintf("%s/RESP%d", publish, proto), func(t *testing.T) {
				got := map[string][]string{}
				for _, name := range []string{"minilock", "redis-server"} {
					rdb := redis.NewClient(&redis.Options{Addr: ends[name], Protocol: proto})
					rdb.FlushAll(ctx)
					tr := &rsnTranscript{t: t, rdb: rdb}
					scenario(t, tr, publish)
					rdb.Close()
					got[name] = tr.lines
				}
				m, r := got["minilock"], got["redis-server"]
				for i := range max(len(m), len(r)) {
					var ml, rl string
					if i < len(m) {
						ml = m[i]
					}
					if i < len(r) {
						rl = r[i]
					}
					if ml != rl {
						t.Errorf("step %d:\n  minilock:     %s\n  redis-server: %s", i, ml, rl)
					}
				}
				if t.Failed() || testing.Verbose() {
					t.Logf("minilock transcript:\n%s", strings.Join(m, "\n"))
				}
			})
		}
	}
}

func newRsn(t testing.TB, rdb *redis.Client, id, publish string) *rsn {
	return &rsn{t: t, rdb: rdb, id: id, publish: publish}
}

// TestRedissonLockScripts: RLock's acquire, reentry, contention, unlock
// (with a retried unlock answered from its latch), watchdog renewal and
// forceUnlock, with the unlock messages published on the lock's channel.
func TestRedissonLockScripts(t *testing.T) {
	rsnCompare(t, func(t *testing.T, tr *rsnTranscript, publish string) {
		a := newRsn(t, tr.rdb, "5b3a1e6c-aaaa-4c1e-9d2e-000000000001", publish)
		b := newRsn(t, tr.rdb, "5b3a1e6c-bbbb-4c1e-9d2e-000000000002", publish)
		const name = "lock"
		sub := rsnSubscribe(t, tr.rdb, publish, prefixName("redisson_lock__channel", name))
		tr.add("A:1 tryLock", show(a.tryLock(name, 1, rsnLease)))
		tr.add("A:1 tryLock again (reentrant)", show(a.tryLock(name, 1, rsnLease)))
		tr.state(name)
		v, err := b.tryLock(name, 7, rsnLease)
		tr.add("B:7 tryLock", showTTL(v, err))
		tr.add("A:2 tryLock (same instance, other thread)", showTTL(a.tryLock(name, 2, rsnLease)))
		tr.add("B:7 unlock (not the holder)", show(b.unlock(name, 7, "req-b1", true)))
		tr.add("A:1 unlock req-1", show(a.unlock(name, 1, "req-1", false)))
		tr.add("A:1 unlock req-1 retried", show(a.unlock(name, 1, "req-1", true)))
		tr.state(name)
		tr.add("watchdog renew [lock lock-other]", show(a.renew([]string{name, "other"}, []int{1, 1})))
		tr.add("A:1 unlock req-2", show(a.unlock(name, 1, "req-2", true)))
		tr.add("EXISTS lock", show(tr.rdb.Exists(ctx, name).Result()))
		tr.add("A:1 unlock req-3 (nothing held)", show(a.unlock(name, 1, "req-3", true)))
		tr.add("B:7 tryLock lease 5000", show(b.tryLock(name, 7, 5000)))
		pttl, err := tr.rdb.PTTL(ctx, name).Result()
		tr.add("PTTL after a 5 s lease", fmt.Sprint(err == nil && pttl > 4*time.Second && pttl <= 5*time.Second))
		tr.add("watchdog renew", show(b.renew([]string{name}, []int{7})))
		pttl, err = tr.rdb.PTTL(ctx, name).Result()
		tr.add("PTTL after renew", fmt.Sprint(err == nil && pttl > 29*time.Second && pttl <= 30*time.Second))
		tr.add("forceUnlock", show(a.forceUnlock(name)))
		tr.add("forceUnlock again", show(a.forceUnlock(name)))
		tr.add("keys", show(tr.rdb.Keys(ctx, "*").Result()))
		for _, m := range sub.messages(t, tr.rdb) {
			tr.add("message", m)
		}
	})
}

// TestRedissonReadWriteLockScripts: RReadWriteLock's readers sharing, a
// writer excluded until the last reader leaves, a writer taking a read lock
// (downgrade), and the messages each unlock publishes on
// redisson_rwlock:{name} (the read unlock calls ARGV[3], PUBLISH or
// SPUBLISH, from inside the script).
func TestRedissonReadWriteLockScripts(t *testing.T) {
	rsnCompare(t, func(t *testing.T, tr *rsnTranscript, publish string) {
		a := newRsn(t, tr.rdb, "0c6e9f7a-aaaa-4d2b-8f00-00000000000a", publish)
		b := newRsn(t, tr.rdb, "0c6e9f7a-bbbb-4d2b-8f00-00000000000b", publish)
		c := newRsn(t, tr.rdb, "0c6e9f7a-cccc-4d2b-8f00-00000000000c", publish)
		const name = "rw"
		sub := rsnSubscribe(t, tr.rdb, publish, prefixName("redisson_rwlock", name))
		keys := func(step string) {
			k, err := tr.rdb.Keys(ctx, "*").Result()
			slices.Sort(k)
			tr.add(step, show(k, err))
		}
		tr.add("A:1 readLock", show(a.readLock(name, 1, rsnLease)))
		tr.add("B:2 readLock", show(b.readLock(name, 2, rsnLease)))
		tr.add("A:1 readLock again", show(a.readLock(name, 1, rsnLease)))
		tr.state(name)
		keys("keys with three read holds")
		tr.add("C:3 writeLock", showTTL(c.writeLock(name, 3, rsnLease)))
		tr.add("A:1 readUnlock", show(a.readUnlock(name, 1, "r1")))
		tr.add("A:1 readUnlock", show(a.readUnlock(name, 1, "r2")))
		tr.add("A:1 readUnlock (none left)", show(a.readUnlock(name, 1, "r3")))
		tr.state(name)
		tr.add("B:2 readUnlock (last reader)", show(b.readUnlock(name, 2, "r4")))
		keys("keys after the last reader")
		tr.add("C:3 writeLock", show(c.writeLock(name, 3, rsnLease)))
		tr.add("C:3 writeLock again", show(c.writeLock(name, 3, rsnLease)))
		pttl, err := tr.rdb.PTTL(ctx, name).Result()
		tr.add("PTTL after reentry adds a lease", fmt.Sprint(err == nil && pttl > 59*time.Second && pttl <= 60*time.Second))
		var v any
		v, err = a.readLock(name, 1, rsnLease)
		n, _ := v.(int64)
		tr.add("A:1 readLock", fmt.Sprint("ttl in (59000,60000]: ", err == nil && n > 59000 && n <= 60000))
		tr.add("C:3 readLock (the writer)", show(c.readLock(name, 3, rsnLease)))
		tr.add("C:3 writeUnlock", show(c.writeUnlock(name, 3, "w1")))
		tr.add("C:3 writeUnlock (downgrades)", show(c.writeUnlock(name, 3, "w2")))
		tr.state(name)
		tr.add("A:1 readLock", show(a.readLock(name, 1, rsnLease)))
		tr.add("C:3 readUnlock", show(c.readUnlock(name, 3, "r5")))
		tr.add("A:1 readUnlock", show(a.readUnlock(name, 1, "r6")))
		tr.add("C:3 writeLock", show(c.writeLock(name, 3, rsnLease)))
		tr.add("C:3 writeUnlock", show(c.writeUnlock(name, 3, "w3")))
		tr.add("B:2 writeUnlock (nothing held)", show(b.writeUnlock(name, 2, "w4")))
		keys("keys at the end")
		for _, m := range sub.messages(t, tr.rdb) {
			tr.add("message", m)
		}
	})
}

// TestRedissonSemaphoreScripts: RSemaphore's trySetPermits, tryAcquire and
// release, each release publishing the new count on redisson_sc:{name}.
func TestRedissonSemaphoreScripts(t *testing.T) {
	rsnCompare(t, func(t *testing.T, tr *rsnTranscript, publish string) {
		a := newRsn(t, tr.rdb, "9d1c2b3a-aaaa-4e5f-8a9b-0000000000aa", publish)
		const name = "sem"
		sub := rsnSubscribe(t, tr.rdb, publish, prefixName("redisson_sc", name))
		tr.add("tryAcquire before trySetPermits", show(a.tryAcquire(name, 1)))
		tr.add("trySetPermits 2", show(a.trySetPermits(name, 2)))
		tr.add("trySetPermits 5", show(a.trySetPermits(name, 5)))
		for i := range 3 {
			tr.add(fmt.Sprint("tryAcquire 1 #", i), show(a.tryAcquire(name, 1)))
		}
		tr.add("release 1", show(a.release(name, 1)))
		tr.add("tryAcquire 2", show(a.tryAcquire(name, 2)))
		tr.add("release 1", show(a.release(name, 1)))
		tr.add("tryAcquire 2", show(a.tryAcquire(name, 2)))
		tr.add("GET", show(tr.rdb.Get(ctx, name).Result()))
		tr.add("release 3", show(a.release(name, 3)))
		tr.add("tryAcquire 4", show(a.tryAcquire(name, 4)))
		for _, m := range sub.messages(t, tr.rdb) {
			tr.add("message", m)
		}
	})
}

// rsnWait is Redisson's wait: the first message on the subscription or the
// time limit, whichever comes first. It reports whether a message woke it.
func rsnWait(ps *redis.PubSub, limit time.Duration) (bool, error) {
	m, err := ps.ReceiveTimeout(ctx, limit)
	var ne interface{ Timeout() bool }
	if errors.As(err, &ne) && ne.Timeout() {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if _, ok := m.(*redis.Message); !ok {
		return false, fmt.Errorf("unexpected %T %v", m, m)
	}
	return true, nil
}

// TestRedissonLockWaitPath is RedissonLock.lock(): a waiter that finds the
// lock held subscribes to redisson_lock__channel:{name}, tries again, gets
// the TTL, and waits up to that TTL for the unlock message; the holder's
// unlock publishes it, and the waiter retries and acquires. The waiter must
// be woken by the message, in far less than the 30 s TTL, after exactly
// three tries (no polling), on both servers alike.
func TestRedissonLockWaitPath(t *testing.T) {
	for name, addr := range rsnEndpoints(t) {
		t.Run(name, func(t *testing.T) {
			rdb := redis.NewClient(&redis.Options{Addr: addr, PoolSize: 8})
			defer rdb.Close()
			rdb.FlushAll(ctx)
			holder := newRsn(t, rdb, "holder-uuid", "PUBLISH")
			waiter := newRsn(t, rdb, "waiter-uuid", "PUBLISH")
			const lock = "order:42"
			if v, err := holder.tryLock(lock, 1, rsnLease); !errors.Is(err, redis.Nil) {
				t.Fatalf("holder tryLock = %v, %v", v, err)
			}
			parked := make(chan struct{})
			type result struct {
				tries      int
				byMessage  bool
				err        error
				acquiredAt time.Time
			}
			res := make(chan result, 1)
			go func() {
				var r result
				defer func() { res <- r }()
				try := func() (int64, bool) {
					r.tries++
					v, err := waiter.tryLock(lock, 9, rsnLease)
					if errors.Is(err, redis.Nil) {
						return 0, true
					}
					if err != nil {
						r.err = err
						return 0, false
					}
					return v.(int64), false
				}
				if _, ok := try(); ok || r.err != nil {
					r.err = fmt.Errorf("acquired (%v) before the holder let go", r.err)
					return
				}
				ps := rdb.Subscribe(ctx, prefixName("redisson_lock__channel", lock))
				defer ps.Close()
				if _, err := ps.Receive(ctx); err != nil {
					r.err = err
					return
				}
				signalled := false
				for {
					ttl, ok := try()
					if r.err != nil {
						return
					}
					if ok {
						r.acquiredAt = time.Now()
						return
					}
					if !signalled {
						close(parked)
						signalled = true
					}
					r.byMessage, r.err = rsnWait(ps, time.Duration(ttl)*time.Millisecond)
					if r.err != nil || !r.byMessage {
						return
					}
				}
			}()
			select {
			case <-parked:
			case r := <-res:
				t.Fatalf("the waiter stopped before waiting: %+v", r)
			}
			released := time.Now()
			if v, err := holder.unlock(lock, 1, "req-1", true); err != nil || v != int64(1) {
				t.Fatalf("holder unlock = %v, %v", v, err)
			}
			r := <-res
			if r.err != nil {
				t.Fatal(r.err)
			}
			if !r.byMessage {
				t.Fatal("the waiter was not woken by the unlock message")
			}
			if r.tries != 3 {
				t.Errorf("the waiter tried %d times, want 3 (try, try after subscribing, try after the message)", r.tries)
			}
			wake := r.acquiredAt.Sub(released)
			t.Logf("%s: unlock to acquired in %v (TTL was %d ms)", name, wake, rsnLease)
			if wake > 2*time.Second {
				t.Errorf("the waiter acquired %v after the unlock: it did not wake on the message", wake)
			}
			if h, _ := rdb.HGetAll(ctx, lock).Result(); len(h) != 1 || h[waiter.lockName(9)] != "1" {
				t.Errorf("lock hash = %v, want the waiter holding it once", h)
			}
		})
	}
}

// TestRedissonLockManyWaiters: 20 Redisson waiters (each its own instance,
// as 20 JVMs would be) on one lock, all waiting before its first holder
// lets go. Each unlock message wakes them all; one
// wins, the others get the TTL and wait again. Every waiter acquires in
// turn, no two hold at once, and nobody ever waits out a TTL: every wake-up
// is a message.
func TestRedissonLockManyWaiters(t *testing.T) {
	const waiters = 20
	for name, addr := range rsnEndpoints(t) {
		t.Run(name, func(t *testing.T) {
			rdb := redis.NewClient(&redis.Options{Addr: addr, PoolSize: 2*waiters + 4})
			defer rdb.Close()
			rdb.FlushAll(ctx)
			const lock = "inventory"
			first := newRsn(t, rdb, "instance-first", "PUBLISH")
			if _, err := first.tryLock(lock, 1, rsnLease); !errors.Is(err, redis.Nil) {
				t.Fatalf("first tryLock: %v", err)
			}
			var holding, acquired, timeouts, tries, waiting atomic.Int64
			var wg sync.WaitGroup
			errs := make(chan error, waiters)
			start := time.Now()
			for i := range waiters {
				wg.Add(1)
				go func() {
					defer wg.Done()
					r := newRsn(t, rdb, fmt.Sprintf("instance-%02d", i), "PUBLISH")
					counted := false
					ps := rdb.Subscribe(ctx, prefixName("redisson_lock__channel", lock))
					defer ps.Close()
					if _, err := ps.Receive(ctx); err != nil {
						errs <- err
						return
					}
					for {
						tries.Add(1)
						v, err := r.tryLock(lock, 1, rsnLease)
						if errors.Is(err, redis.Nil) {
							break
						}
						if err != nil {
							errs <- err
							return
						}
						if !counted {
							waiting.Add(1)
							counted = true
						}
						byMessage, err := rsnWait(ps, time.Duration(v.(int64))*time.Millisecond)
						if err != nil {
							errs <- err
							return
						}
						if !byMessage {
							timeouts.Add(1)
						}
					}
					if holding.Add(1) != 1 {
						errs <- fmt.Errorf("instance %d acquired while another held the lock", i)
					}
					acquired.Add(1)
					time.Sleep(time.Millisecond) // the critical section
					holding.Add(-1)
					if v, err := r.unlock(lock, 1, fmt.Sprint("req-", i), true); err != nil || v != int64(1) {
						errs <- fmt.Errorf("instance %d unlock = %v, %v", i, v, err)
					}
				}()
			}
			// Everyone has failed a try and is waiting before the first
			// unlock: every acquisition below comes from a wake-up.
			for deadline := time.Now().Add(10 * time.Second); waiting.Load() < waiters; time.Sleep(time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("only %d of %d waiters are waiting", waiting.Load(), waiters)
				}
			}
			if v, err := first.unlock(lock, 1, "req-first", true); err != nil || v != int64(1) {
				t.Fatalf("first unlock = %v, %v", v, err)
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			t.Logf("%s: %d waiters acquired in turn in %v, %d tries, %d TTL timeouts",
				name, acquired.Load(), time.Since(start).Round(time.Millisecond), tries.Load(), timeouts.Load())
			if acquired.Load() != waiters {
				t.Errorf("%d acquisitions, want %d", acquired.Load(), waiters)
			}
			if timeouts.Load() != 0 {
				t.Errorf("%d waits ran out their TTL: a waiter missed an unlock message", timeouts.Load())
			}
			if n, _ := rdb.Exists(ctx, lock).Result(); n != 0 {
				t.Error("the lock is still held at the end")
			}
		})
	}
}

// TestRedissonSemaphoreWaitPath is RedissonSemaphore.tryAcquire(permits,
// waitTime): 8 workers, 3 permits, all taken until every worker waits; a
// worker that finds none subscribes to redisson_sc:{name} and waits for a
// release's message. Never more than 3
// hold at once, every worker gets a permit, and no wait runs out.
func TestRedissonSemaphoreWaitPath(t *testing.T) {
	const workers, permits = 8, 3
	for name, addr := range rsnEndpoints(t) {
		t.Run(name, func(t *testing.T) {
			rdb := redis.NewClient(&redis.Options{Addr: addr, PoolSize: 2*workers + 4})
			defer rdb.Close()
			rdb.FlushAll(ctx)
			const sem = "pool"
			setup := newRsn(t, rdb, "setup", "PUBLISH")
			if v, err := setup.trySetPermits(sem, permits); err != nil || v != int64(1) {
				t.Fatalf("trySetPermits = %v, %v", v, err)
			}
			for range permits {
				if v, err := setup.tryAcquire(sem, 1); err != nil || v != int64(1) {
					t.Fatalf("setup tryAcquire = %v, %v", v, err)
				}
			}
			var holding, maxHeld, acquired, timeouts, waiting atomic.Int64
			var wg sync.WaitGroup
			errs := make(chan error, workers)
			for i := range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					r := newRsn(t, rdb, fmt.Sprintf("worker-%d", i), "PUBLISH")
					counted := false
					ps := rdb.Subscribe(ctx, prefixName("redisson_sc", sem))
					defer ps.Close()
					if _, err := ps.Receive(ctx); err != nil {
						errs <- err
						return
					}
					for {
						v, err := r.tryAcquire(sem, 1)
						if err != nil {
							errs <- err
							return
						}
						if v == int64(1) {
							break
						}
						if !counted {
							waiting.Add(1)
							counted = true
						}
						byMessage, err := rsnWait(ps, 10*time.Second)
						if err != nil {
							errs <- err
							return
						}
						if !byMessage {
							timeouts.Add(1)
						}
					}
					n := holding.Add(1)
					for m := maxHeld.Load(); n > m && !maxHeld.CompareAndSwap(m, n); m = maxHeld.Load() {
					}
					acquired.Add(1)
					time.Sleep(2 * time.Millisecond)
					holding.Add(-1)
					if _, err := r.release(sem, 1); err != nil && !errors.Is(err, redis.Nil) {
						errs <- err
					}
				}()
			}
			// Every worker found no permit and waits before the setup gives
			// its permits back, one release (one message) at a time.
			for deadline := time.Now().Add(10 * time.Second); waiting.Load() < workers; time.Sleep(time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("only %d of %d workers are waiting", waiting.Load(), workers)
				}
			}
			for range permits {
				if _, err := setup.release(sem, 1); err != nil && !errors.Is(err, redis.Nil) {
					t.Fatal(err)
				}
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			t.Logf("%s: %d workers acquired, at most %d at once, %d waits timed out", name, acquired.Load(), maxHeld.Load(), timeouts.Load())
			if acquired.Load() != workers || maxHeld.Load() > permits || timeouts.Load() != 0 {
				t.Errorf("acquired %d (want %d), max held %d (limit %d), timeouts %d (want 0)",
					acquired.Load(), workers, maxHeld.Load(), permits, timeouts.Load())
			}
			if v, _ := rdb.Get(ctx, sem).Result(); v != strconv.Itoa(permits) {
				t.Errorf("permits at the end = %q, want %d", v, permits)
			}
		})
	}
}

// RFairLock: a queue of waiting threads and their timeouts; the unlock
// publishes only on the channel of the thread at the head of the queue.

// rsnFairWait is Config.fairLockWaitTimeout's default, 5 s.
const rsnFairWait = 5000

func (r *rsn) fairKeys(name string) []string {
	return []string{name, prefixName("redisson_lock_queue", name), prefixName("redisson_lock_timeout", name)}
}

// fairChannel is the channel a fair-lock waiter subscribes to: its own.
func (r *rsn) fairChannel(name string, thread int) string {
	return prefixName("redisson_lock__channel", name) + ":" + r.lockName(thread)
}

func (r *rsn) fairTry(name string, thread int, now int64) (any, error) {
	return r.run("fairlock_try", r.fairKeys(name), rsnLease, r.lockName(thread), rsnFairWait, now)
}

func (r *rsn) fairUnlock(name string, thread int, request string, now int64) (any, error) {
	latch := prefixName("redisson_unlock_latch", name) + ":" + request
	keys := append(r.fairKeys(name), prefixName("redisson_lock__channel", name), latch)
	v, err := r.run("fairlock_unlock", keys, rsnUnlockMessage, rsnLease, r.lockName(thread), now, r.publish, rsnLatchTimeout)
	r.rdb.Del(ctx, latch)
	return v, err
}

func (r *rsn) fairAcquireFailed(name string, thread int) (any, error) {
	return r.run("fairlock_acquirefailed", r.fairKeys(name)[1:], r.lockName(thread), rsnFairWait)
}

// within is show for a time in milliseconds that the real clock makes
// vary: recorded as being in (0, hi].
func within(hi int64) func(any, error) string {
	return func(v any, err error) string {
		if n, ok := v.(int64); ok && err == nil && n > 0 && n <= hi {
			return fmt.Sprintf("in (0,%d]", hi)
		}
		return show(v, err)
	}
}

// TestRedissonFairLockScripts: RFairLock's queue (waiters join in order,
// the head is the only one that may take a free lock), the unlock message
// on the head's own channel, a waiter giving up, and a stale waiter (its
// timeout passed on the client's clock) dropped from the queue.
func TestRedissonFairLockScripts(t *testing.T) {
	rsnCompare(t, func(t *testing.T, tr *rsnTranscript, publish string) {
		var ids []*rsn
		for _, id := range []string{"a", "b", "c", "d", "e"} {
			ids = append(ids, newRsn(t, tr.rdb, "7f3e2d1c-"+id+id+id+id+"-4b5a-9c8d-00000000000"+id, publish))
		}
		a, b, c, d, e := ids[0], ids[1], ids[2], ids[3], ids[4]
		const name = "fair"
		var channels []string
		for i, r := range ids {
			channels = append(channels, r.fairChannel(name, i+1))
		}
		sub := rsnSubscribe(t, tr.rdb, publish, channels...)
		now := time.Now().UnixMilli()
		queue := func(step string) {
			q, _ := tr.rdb.LRange(ctx, prefixName("redisson_lock_queue", name), 0, -1).Result()
			z, _ := tr.rdb.ZRange(ctx, prefixName("redisson_lock_timeout", name), 0, -1).Result()
			tr.add(step, fmt.Sprintf("queue %q timeouts %q", q, z))
		}
		tr.add("A:1 fairTry", show(a.fairTry(name, 1, now)))
		tr.add("B:2 fairTry", within(rsnLease)(b.fairTry(name, 2, now)))
		tr.add("C:3 fairTry (second in the queue)", within(rsnLease+rsnFairWait)(c.fairTry(name, 3, now)))
		tr.add("B:2 fairTry again", within(rsnLease)(b.fairTry(name, 2, now)))
		queue("queue")
		tr.add("A:1 fairUnlock", show(a.fairUnlock(name, 1, "u1", now)))
		tr.add("C:3 fairTry (not the head)", show(c.fairTry(name, 3, now)))
		tr.add("B:2 fairTry (the head)", show(b.fairTry(name, 2, now)))
		queue("queue")
		tr.add("C:3 gives up", show(c.fairAcquireFailed(name, 3)))
		queue("queue")
		tr.add("D:4 fairTry", within(rsnLease)(d.fairTry(name, 4, now)))
		later := now + 60000 // D's timeout has passed on the client's clock
		tr.add("E:5 fairTry 60 s later", within(rsnLease)(e.fairTry(name, 5, later)))
		queue("queue (D dropped as stale)")
		tr.add("B:2 fairUnlock", show(b.fairUnlock(name, 2, "u2", later)))
		tr.add("E:5 fairTry", show(e.fairTry(name, 5, later)))
		tr.add("E:5 fairUnlock", show(e.fairUnlock(name, 5, "u3", later)))
		tr.add("E:5 fairUnlock again", show(e.fairUnlock(name, 5, "u4", later)))
		tr.add("keys", show(tr.rdb.Keys(ctx, "*").Result()))
		for _, m := range sub.messages(t, tr.rdb) {
			tr.add("message", m)
		}
	})
}

// TestRedissonFairLockWaitPath is RFairLock's lock(): 10 waiters join the
// queue in order, each subscribed to its own channel; each unlock wakes the
// head of the queue only, so they acquire first come first served, each by
// a message and none by waiting out its TTL.
func TestRedissonFairLockWaitPath(t *testing.T) {
	const waiters = 10
	for name, addr := range rsnEndpoints(t) {
		t.Run(name, func(t *testing.T) {
			rdb := redis.NewClient(&redis.Options{Addr: addr, PoolSize: 2*waiters + 4})
			defer rdb.Close()
			rdb.FlushAll(ctx)
			const lock = "fifo"
			first := newRsn(t, rdb, "first", "PUBLISH")
			if _, err := first.fairTry(lock, 1, time.Now().UnixMilli()); !errors.Is(err, redis.Nil) {
				t.Fatalf("first fairTry: %v", err)
			}
			var (
				mu       sync.Mutex
				order    []int
				timeouts atomic.Int64
				wg       sync.WaitGroup
				errs     = make(chan error, waiters)
			)
			for i := range waiters {
				joined := make(chan struct{})
				wg.Add(1)
				go func() {
					defer wg.Done()
					r := newRsn(t, rdb, fmt.Sprintf("waiter-%d", i), "PUBLISH")
					v, err := r.fairTry(lock, 1, time.Now().UnixMilli())
					close(joined)
					if err != nil {
						errs <- fmt.Errorf("waiter %d first try: %v, %v", i, v, err)
						return
					}
					ps := rdb.Subscribe(ctx, r.fairChannel(lock, 1))
					defer ps.Close()
					if _, err := ps.Receive(ctx); err != nil {
						errs <- err
						return
					}
					for {
						v, err := r.fairTry(lock, 1, time.Now().UnixMilli())
						if errors.Is(err, redis.Nil) {
							break
						}
						if err != nil {
							errs <- err
							return
						}
						byMessage, err := rsnWait(ps, time.Duration(v.(int64))*time.Millisecond)
						if err != nil {
							errs <- err
							return
						}
						if !byMessage {
							timeouts.Add(1)
						}
					}
					mu.Lock()
					order = append(order, i)
					mu.Unlock()
					if v, err := r.fairUnlock(lock, 1, fmt.Sprint("u", i), time.Now().UnixMilli()); err != nil || v != int64(1) {
						errs <- fmt.Errorf("waiter %d unlock = %v, %v", i, v, err)
					}
				}()
				<-joined // the queue order is the order of the first tries
			}
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
				subs, _ := rdb.PubSubNumPat(ctx).Result()
				channels, _ := rdb.PubSubChannels(ctx, "redisson_lock__channel:*").Result()
				if subs == 0 && len(channels) == waiters {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("%d of %d waiters subscribed", len(channels), waiters)
				}
			}
			if v, err := first.fairUnlock(lock, 1, "u-first", time.Now().UnixMilli()); err != nil || v != int64(1) {
				t.Fatalf("first unlock = %v, %v", v, err)
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			t.Logf("%s: order %v, %d TTL timeouts", name, order, timeouts.Load())
			if !slices.Equal(order, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}) {
				t.Errorf("acquired in order %v, want the queue's order", order)
			}
			if timeouts.Load() != 0 {
				t.Errorf("%d waits ran out: a waiter missed its message", timeouts.Load())
			}
		})
	}
}

// RPermitExpirableSemaphore: permits with ids and lease deadlines in a
// sorted set; a permit whose lease passed (on the client's clock) is taken
// back by the next acquire, which publishes the new count.

const rsnNonExpirable = 922337203685477

func (r *rsn) permitTryAcquire(name string, timeoutDate, now int64, ids ...string) (any, error) {
	args := []any{len(ids), timeoutDate, now, rsnNonExpirable, r.publish}
	for _, id := range ids {
		args = append(args, id)
	}
	return r.run("permitsem_tryacquire", []string{name, suffixName(name, "timeout"), prefixName("redisson_sc", name)}, args...)
}

func (r *rsn) permitTryRelease(name, id string, now int64) (any, error) {
	return r.run("permitsem_tryrelease", []string{name, prefixName("redisson_sc", name), suffixName(name, "timeout")}, id, 1, now, r.publish)
}

// permitID is a permit id as Redisson sends it: 16 raw bytes
// (ByteBufUtil.decodeHexDump of a random hex id), not valid UTF-8.
func permitID(i int) string {
	return string([]byte{0xde, 0xad, 0xbe, 0xef, 0x00, 0xff, 0x80, 0x0d, 0x0a, 0x22, 0x27, 0x5c, 0, 0, 0, byte(i)})
}

// TestRedissonPermitExpirableSemaphoreScripts: acquire with and without a
// lease, the nearest lease reported when no permit is free, an expired
// lease taken back (with its message), releases of live and reclaimed
// permits.
func TestRedissonPermitExpirableSemaphoreScripts(t *testing.T) {
	rsnCompare(t, func(t *testing.T, tr *rsnTranscript, publish string) {
		r := newRsn(t, tr.rdb, "permits", publish)
		const name = "leases"
		sub := rsnSubscribe(t, tr.rdb, publish, prefixName("redisson_sc", name))
		now := time.Now().UnixMilli()
		rel := func(v any, err error) string { // client times, relative to now
			s := show(v, err)
			for _, d := range []int64{1000, 5000} {
				s = strings.ReplaceAll(s, strconv.FormatInt(now+d, 10), fmt.Sprint("now+", d))
			}
			return s
		}
		tr.add("trySetPermits 2", show(r.trySetPermits(name, 2)))
		tr.add("acquire id1 lease 1 s", rel(r.permitTryAcquire(name, now+1000, now, permitID(1))))
		tr.add("acquire id2 no lease", rel(r.permitTryAcquire(name, rsnNonExpirable, now, permitID(2))))
		tr.add("acquire id3 (none free)", rel(r.permitTryAcquire(name, now+5000, now, permitID(3))))
		zs, err := tr.rdb.ZRangeWithScores(ctx, suffixName(name, "timeout"), 0, -1).Result()
		var leases []string
		for _, z := range zs {
			if z.Score == rsnNonExpirable {
				leases = append(leases, fmt.Sprintf("%q@never", z.Member))
			} else {
				leases = append(leases, fmt.Sprintf("%q@now+%d", z.Member, int64(z.Score)-now))
			}
		}
		tr.add("ZRANGE timeout WITHSCORES, relative to now", fmt.Sprint(leases, err))
		tr.add("acquire id3 2 s later (id1 expired)", rel(r.permitTryAcquire(name, now+5000, now+2000, permitID(3))))
		tr.add("release id1 (taken back)", rel(r.permitTryRelease(name, permitID(1), now+2000)))
		tr.add("release id2", rel(r.permitTryRelease(name, permitID(2), now+2000)))
		tr.add("release id3 after its lease", rel(r.permitTryRelease(name, permitID(3), now+6000)))
		tr.add("acquire id4 id5", rel(r.permitTryAcquire(name, now+5000, now+6000, permitID(4), permitID(5))))
		tr.add("GET", show(tr.rdb.Get(ctx, name).Result()))
		tr.add("ZCARD", show(tr.rdb.ZCard(ctx, suffixName(name, "timeout")).Result()))
		for _, m := range sub.messages(t, tr.rdb) {
			tr.add("message", m)
		}
	})
}
