package libraries_test

import (
	"errors"
	"fmt"
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

// python-redis-lock's algorithm (version 4.0.1), replayed through go-redis
// with our own scripts speaking its protocol (testdata/pyredislock-protocol): a
// lock is `lock:<name>` taken with SET NX EX; a waiter that finds it taken
// parks in BLPOP on `lock-signal:<name>`; the unlock script deletes the
// lock and pushes one element onto the signal list, so each release wakes
// exactly one waiter. A holder that crashes sends no signal: the waiters'
// BLPOP times out after the lock's expire, and they find it expired.
//
//	go test -run TestPyRedisLock -v ./e2e/libraries

var prlScripts = sync.OnceValues(func() (map[string]*redis.Script, error) {
	return loadScripts(filepath.Join("testdata", "pyredislock-protocol"))
})

// prl is redis_lock.Lock: one instance, with its id.
type prl struct {
	t            testing.TB
	rdb          *redis.Client
	name, signal string
	id           string
	expire       int // seconds; 0: the lock does not expire
	signalExpire int // milliseconds (signal_expire, default 1000)

	wakes atomic.Int64 // BLPOPs that returned an element
}

func newPrl(t testing.TB, rdb *redis.Client, name, id string, expire int) *prl {
	return &prl{t: t, rdb: rdb, name: "lock:" + name, signal: "lock-signal:" + name, id: id, expire: expire, signalExpire: 1000}
}

// script runs one of the scripts as redis-py's Script does: EVALSHA, and on
// NOSCRIPT, SCRIPT LOAD and EVALSHA again.
func (l *prl) script(name string, args ...any) (any, error) {
	scripts, err := prlScripts()
	if err != nil {
		l.t.Fatal(err)
	}
	sc := scripts[name]
	keys := []string{l.name, l.signal}
	v, err := sc.EvalSha(ctx, l.rdb, keys, args...).Result()
	if err != nil && redis.HasErrorPrefix(err, "NOSCRIPT") {
		if err := sc.Load(ctx, l.rdb).Err(); err != nil {
			return nil, err
		}
		v, err = sc.EvalSha(ctx, l.rdb, keys, args...).Result()
	}
	return v, err
}

// acquire follows Lock.acquire(blocking, timeout): SET NX EX, then BLPOP
// on the signal, until it gets the lock or gives up; timeout 0 is
// Python's None.
func (l *prl) acquire(blocking bool, timeout int) (bool, error) {
	blpopTimeout := timeout
	if blpopTimeout == 0 {
		blpopTimeout = l.expire
	}
	timedOut := false
	for {
		args := []any{"SET", l.name, l.id}
		if l.expire > 0 {
			args = append(args, "EX", l.expire)
		}
		err := l.rdb.Do(ctx, append(args, "NX")...).Err()
		if err == nil {
			return true, nil
		}
		if !errors.Is(err, redis.Nil) {
			return false, err
		}
		if timedOut || !blocking {
			return false, nil
		}
		_, err = l.rdb.BLPop(ctx, time.Duration(blpopTimeout)*time.Second, l.signal).Result()
		switch {
		case errors.Is(err, redis.Nil):
			timedOut = timeout != 0
		case err != nil:
			return false, err
		default:
			l.wakes.Add(1)
			timedOut = false
		}
	}
}

// release is Lock.release: 0 released, 1 not held (NotAcquired).
func (l *prl) release() (any, error) { return l.script("unlock", l.id, l.signalExpire) }

// extend is Lock.extend(expire): 0 extended, 1 not held, 2 no expire.
func (l *prl) extend(expire int) (any, error) { return l.script("extend", l.id, expire) }

// reset is Lock.reset: deletes the lock whoever holds it, and signals.
func (l *prl) reset() (any, error) { return l.script("reset", l.id, l.signalExpire) }

// blockedOn counts the clients parked on the server, from INFO clients.
func blockedOn(rdb *redis.Client) int {
	info, err := rdb.InfoMap(ctx, "clients").Result()
	if err != nil {
		return -1
	}
	n, _ := strconv.Atoi(info["Clients"]["blocked_clients"])
	return n
}

// eventually polls cond for up to 10 s (a cheap INFO or GET each time).
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 10 s", what)
		}
	}
}

// TestPyRedisLockScripts: the unlock, extend and reset scripts' answers and
// effects, the same on minilock and on redis-server.
func TestPyRedisLockScripts(t *testing.T) {
	got := map[string][]string{}
	// The doctor watches, and its findings are checked below rather than
	// failing the test: python-redis-lock's expire=None and reset() are
	// unsafe by design, and it must say so, and say nothing else.
	s, err := server.Start(server.Config{Doctor: &server.DoctorConfig{}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ends := map[string]string{"minilock": s.Addr(), "redis-server": redistest.Start(t).Addr}
	for name, addr := range ends {
		rdb := redis.NewClient(&redis.Options{Addr: addr})
		defer rdb.Close()
		var lines []string
		add := func(step, result string) { lines = append(lines, step+" -> "+result) }
		state := func() {
			pttl, _ := rdb.Do(ctx, "PTTL", "lock:job").Int64()
			spttl, _ := rdb.Do(ctx, "PTTL", "lock-signal:job").Int64()
			sig, _ := rdb.LRange(ctx, "lock-signal:job", 0, -1).Result()
			lines = append(lines, fmt.Sprintf("state: lock ttl %s, signal %q ttl %s",
				bucket(pttl, 60*time.Second), sig, bucket(spttl, time.Second)))
		}
		a, b := newPrl(t, rdb, "job", "id-a", 60), newPrl(t, rdb, "job", "id-b", 60)
		ok, err := a.acquire(false, 0)
		add("a acquire", show(ok, err))
		ok, err = b.acquire(false, 0)
		add("b acquire (non-blocking)", show(ok, err))
		state()
		add("b release", show(b.release()))
		add("b extend", show(b.extend(100)))
		add("a extend 100", show(a.extend(100)))
		pttl, _ := rdb.Do(ctx, "PTTL", "lock:job").Int64()
		lines = append(lines, "lock ttl after extend: "+bucket(pttl, 100*time.Second))
		add("a release", show(a.release()))
		state()
		add("a release again", show(a.release()))
		noExpire := newPrl(t, rdb, "job", "id-c", 0)
		ok, err = noExpire.acquire(false, 0)
		add("c acquire without expire", show(ok, err))
		add("c extend", show(noExpire.extend(10)))
		add("a reset", show(a.reset()))
		state()
		add("a reset again", show(a.reset()))
		got[name] = lines
	}
	if m, r := got["minilock"], got["redis-server"]; !slices.Equal(m, r) {
		t.Errorf("transcripts differ:\nminilock:\n%s\nredis-server:\n%s", strings.Join(m, "\n"), strings.Join(r, "\n"))
	} else {
		t.Logf("transcript:\n%s", strings.Join(m, "\n"))
	}
	// Lock c, taken without expire, lived with no TTL; a's reset() deleted
	// it with a DEL that checks nothing. The acquire, extend and release
	// scripts of locks with a TTL raise nothing.
	findings, _ := s.DoctorFindings()
	var hazards []string
	for _, f := range findings {
		hazards = append(hazards, string(f.Hazard)+" "+f.Key)
	}
	if want := []string{"no-ttl lock:job", "plain-del lock:job"}; !slices.Equal(hazards, want) {
		t.Errorf("doctor found %q, want %q:\n%s", hazards, want, s.DoctorReport())
	}
}

// bucket records a PTTL reply (milliseconds, or -1, -2) as the transcript
// compares it: real clocks move.
func bucket(ms int64, max time.Duration) string {
	if ms > 0 && ms <= max.Milliseconds() {
		return "in (0," + max.String() + "]"
	}
	return strconv.FormatInt(ms, 10)
}

// TestPyRedisLockFiveWaiters: five waiters park in BLPOP on the signal, one
// after another; each release by the holder wakes exactly one of them, the
// longest waiting, which acquires; it then releases in turn. The same on
// minilock and on redis-server.
func TestPyRedisLockFiveWaiters(t *testing.T) {
	const waiters = 5
	got := map[string][]string{}
	for name, addr := range rsnEndpoints(t) {
		t.Run(name, func(t *testing.T) {
			rdb := redis.NewClient(&redis.Options{Addr: addr, PoolSize: waiters + 4})
			defer rdb.Close()
			rdb.FlushAll(ctx)
			holder := newPrl(t, rdb, "report", "holder", 60)
			if ok, err := holder.acquire(true, 0); !ok || err != nil {
				t.Fatalf("holder acquire = %v, %v", ok, err)
			}
			var (
				mu    sync.Mutex
				order []int
				locks = make([]*prl, waiters)
				done  = make([]chan struct{}, waiters) // closed: waiter i may release
				errs  = make(chan error, waiters)
				wg    sync.WaitGroup
			)
			for i := range waiters {
				locks[i] = newPrl(t, rdb, "report", fmt.Sprint("waiter-", i), 60)
				done[i] = make(chan struct{})
				wg.Add(1)
				go func() {
					defer wg.Done()
					ok, err := locks[i].acquire(true, 0)
					if !ok || err != nil {
						errs <- fmt.Errorf("waiter %d acquire = %v, %v", i, ok, err)
						return
					}
					mu.Lock()
					order = append(order, i)
					mu.Unlock()
					<-done[i]
					if v, err := locks[i].release(); err != nil || v != int64(0) {
						errs <- fmt.Errorf("waiter %d release = %v, %v", i, v, err)
					}
				}()
				eventually(t, fmt.Sprintf("waiter %d parks", i), func() bool { return blockedOn(rdb) == i+1 })
			}
			var lines []string
			wakes := func() (n int64) {
				for _, l := range locks {
					n += l.wakes.Load()
				}
				return n
			}
			acquired := func() int { mu.Lock(); defer mu.Unlock(); return len(order) }
			if v, err := holder.release(); err != nil || v != int64(0) {
				t.Fatalf("holder release = %v, %v", v, err)
			}
			for k := range waiters {
				eventually(t, fmt.Sprintf("release %d wakes a waiter", k+1), func() bool { return acquired() == k+1 })
				owner, _ := rdb.Get(ctx, "lock:report").Result()
				lines = append(lines, fmt.Sprintf("release %d: %d wake-ups in all, %d still parked, lock held by %s, signal list exists %d",
					k+1, wakes(), blockedOn(rdb), owner, rdb.Exists(ctx, "lock-signal:report").Val()))
				mu.Lock()
				next := order[k]
				mu.Unlock()
				close(done[next])
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			for k, w := range order {
				if w != k {
					t.Errorf("waiter %d acquired in turn %d: not the longest waiting (%v)", w, k, order)
				}
			}
			// The last release signals with nobody waiting: the element
			// stays, for at most signal_expire.
			spttl, _ := rdb.Do(ctx, "PTTL", "lock-signal:report").Int64()
			lines = append(lines, fmt.Sprintf("end: %d wake-ups, lock exists %d, signal ttl %s",
				wakes(), rdb.Exists(ctx, "lock:report").Val(), bucket(spttl, time.Second)))
			for k, line := range lines[:waiters] {
				want := fmt.Sprintf("release %d: %d wake-ups in all, %d still parked, lock held by waiter-%d, signal list exists 0",
					k+1, k+1, waiters-k-1, k)
				if line != want {
					t.Errorf("got  %s\nwant %s", line, want)
				}
			}
			got[name] = lines
			t.Logf("%s:\n%s", name, strings.Join(lines, "\n"))
		})
	}
	if m, r := got["minilock"], got["redis-server"]; len(m) > 0 && len(r) > 0 && !slices.Equal(m, r) {
		t.Errorf("minilock and redis-server differ:\n%s\n--\n%s", strings.Join(m, "\n"), strings.Join(r, "\n"))
	}
}

// TestPyRedisLockCrashedHolder: the holder never releases. On a manual
// clock, nothing wakes the waiters until the lock's expire (10 s) has
// passed; then their BLPOPs time out, they find the lock expired, one takes
// it and the others park again, and from there each release signals the
// next. A waiter whose acquire has a timeout gives up when it passes.
func TestPyRedisLockCrashedHolder(t *testing.T) {
	const waiters, expire = 3, 10
	s := server.RunT(t, withDoctor(server.Manual()))
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr(), PoolSize: waiters + 6})
	defer rdb.Close()
	crashed := redis.NewClient(&redis.Options{Addr: s.Addr()})
	if ok, err := newPrl(t, crashed, "backup", "crashed", expire).acquire(true, 0); !ok || err != nil {
		t.Fatalf("holder acquire = %v, %v", ok, err)
	}
	crashed.Close() // gone, without releasing

	impatient := newPrl(t, rdb, "backup", "impatient", expire)
	gaveUp := make(chan error, 1)
	go func() {
		ok, err := impatient.acquire(true, 5)
		if err == nil && ok {
			err = errors.New("the impatient waiter acquired a lock held by the crashed holder")
		}
		gaveUp <- err
	}()
	eventually(t, "the impatient waiter parks", func() bool { return blockedOn(rdb) == 1 })

	var mu sync.Mutex
	var order []int
	locks := make([]*prl, waiters)
	release := make(chan struct{}, waiters)
	var wg sync.WaitGroup
	errs := make(chan error, waiters)
	for i := range waiters {
		locks[i] = newPrl(t, rdb, "backup", fmt.Sprint("waiter-", i), expire)
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, err := locks[i].acquire(true, 0)
			if !ok || err != nil {
				errs <- fmt.Errorf("waiter %d acquire = %v, %v", i, ok, err)
				return
			}
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
			<-release
			if v, err := locks[i].release(); err != nil || v != int64(0) {
				errs <- fmt.Errorf("waiter %d release = %v, %v", i, v, err)
			}
		}()
	}
	eventually(t, "every waiter parks", func() bool { return blockedOn(rdb) == waiters+1 })
	acquired := func() int { mu.Lock(); defer mu.Unlock(); return len(order) }

	s.FastForward(5*time.Second + time.Millisecond)
	if err := <-gaveUp; err != nil {
		t.Fatal(err)
	}
	s.FastForward(4 * time.Second)
	// 9.001 s after the crash: still held, everyone still parked. The
	// FastForward has run the timeouts that fell due before it returned.
	s.CheckGet(t, "lock:backup", "crashed")
	if n, a := blockedOn(rdb), acquired(); n != waiters || a != 0 {
		t.Fatalf("before the expire: %d parked, %d acquired; want %d parked, none acquired", n, a, waiters)
	}
	s.FastForward(time.Second)
	eventually(t, "one waiter takes the expired lock", func() bool { return acquired() == 1 })
	eventually(t, "the others park again", func() bool { return blockedOn(rdb) == waiters-1 })
	if n := acquired(); n != 1 {
		t.Fatalf("%d waiters hold the lock after it expired", n)
	}
	for k := 1; k < waiters; k++ {
		release <- struct{}{}
		eventually(t, fmt.Sprintf("release %d wakes the next", k), func() bool { return acquired() == k+1 })
		eventually(t, "the others stay parked", func() bool { return blockedOn(rdb) == waiters-k-1 })
	}
	release <- struct{}{}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	var wakes int64
	for _, l := range locks {
		wakes += l.wakes.Load()
	}
	t.Logf("order %v, %d wake-ups by signal (the first acquisition came from the expire)", order, wakes)
	if wakes != waiters-1 {
		t.Errorf("%d wake-ups by signal, want %d: one per release", wakes, waiters-1)
	}
	if s.Exists("lock:backup") {
		t.Error("the lock is still held at the end")
	}
	// The last release signalled with nobody waiting: the element stays
	// for signal_expire (1 s), so a late waiter would wake at once, and is
	// gone by active expiry once that has passed.
	s.CheckTTL(t, "lock-signal:backup", time.Second)
	s.FastForward(time.Second + time.Millisecond)
	if s.Exists("lock-signal:backup") {
		t.Error("the signal list outlived its PEXPIRE")
	}
}
