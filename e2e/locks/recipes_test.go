package locks_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/minilock/minilock/internal/lockscripts"
	"github.com/minilock/minilock/server"
)

// The seed articles' lock recipes, exactly as they are written, driven
// through go-redis against minilock: two clients contend, the lock frees at
// its TTL (FastForward on the RunT clock, or a short real TTL), and each
// recipe delivers what it promises: one holder at a time while it works as
// intended, release only by the owner where the recipe checks ownership.
//
//	go test -run TestRecipe -v ./e2e/locks

// recipeClients returns two go-redis clients of s, the contenders.
func recipeClients(t *testing.T, s *server.Server) (a, b *redis.Client) {
	t.Helper()
	a = redis.NewClient(&redis.Options{Addr: s.Addr()})
	b = redis.NewClient(&redis.Options{Addr: s.Addr()})
	t.Cleanup(func() { a.Close(); b.Close() })
	return a, b
}

// recipeToken is the random value the token recipes store in the lock.
func recipeToken(t testing.TB) string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b[:])
}

// recipeMutex checks mutual exclusion: enter fails the test if another
// holder is inside.
type recipeMutex struct {
	inside atomic.Int32
	passes atomic.Int64
}

func (m *recipeMutex) enter(t testing.TB) {
	if n := m.inside.Add(1); n != 1 {
		t.Errorf("%d holders at once", n)
	}
	m.passes.Add(1)
}

func (m *recipeMutex) leave() { m.inside.Add(-1) }

// hold is a critical section that spans a round trip to the server, long
// enough for a second holder to show up if the lock let one in.
func (m *recipeMutex) hold(t testing.TB, rdb *redis.Client) {
	m.enter(t)
	if err := rdb.Ping(context.Background()).Err(); err != nil {
		t.Errorf("PING inside the critical section: %v", err)
	}
	m.leave()
}

// recipeContend runs lockAndWork from clients goroutines, rounds times each,
// and checks that every round got through and no two overlapped. Each
// goroutine has its own connection.
func recipeContend(t *testing.T, s *server.Server, clients, rounds int, lockAndWork func(rdb *redis.Client, m *recipeMutex) error) {
	t.Helper()
	var m recipeMutex
	var wg sync.WaitGroup
	for g := 0; g < clients; g++ {
		rdb := redis.NewClient(&redis.Options{Addr: s.Addr(), PoolSize: 1})
		t.Cleanup(func() { rdb.Close() })
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := 0; r < rounds; r++ {
				if err := lockAndWork(rdb, &m); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if got, want := m.passes.Load(), int64(clients*rounds); got != want {
		t.Errorf("%d critical sections ran, want %d", got, want)
	}
}

// SETNX, then EXPIRE: the lock from the Redis SETNX page before SET had
// options. Release is DEL.
func TestRecipeSetnxExpire(t *testing.T) {
	s := server.RunT(t, server.Manual()) // TTLs read back exactly
	a, b := recipeClients(t, s)

	if ok := a.SetNX(ctx, "lock:res", "a", 0).Val(); !ok {
		t.Fatal("a: SETNX on a free lock failed")
	}
	if ok := a.Expire(ctx, "lock:res", 3*time.Second).Val(); !ok {
		t.Fatal("a: EXPIRE failed")
	}
	if ok := b.SetNX(ctx, "lock:res", "b", 0).Val(); ok {
		t.Fatal("b: SETNX on a held lock succeeded")
	}
	if ttl := b.TTL(ctx, "lock:res").Val(); ttl != 3*time.Second {
		t.Errorf("TTL = %v, want 3s", ttl)
	}
	// a crashes without releasing: the lock frees at its TTL.
	s.FastForward(3*time.Second - time.Millisecond)
	if ok := b.SetNX(ctx, "lock:res", "b", 0).Val(); ok {
		t.Fatal("b took the lock 1 ms before its TTL ended")
	}
	s.FastForward(2 * time.Millisecond)
	if ok := b.SetNX(ctx, "lock:res", "b", 0).Val(); !ok {
		t.Fatal("b could not take the lock after its TTL")
	}
	b.Expire(ctx, "lock:res", 3*time.Second)
	if n := b.Del(ctx, "lock:res").Val(); n != 1 {
		t.Fatalf("b: DEL = %d", n)
	}

	recipeContend(t, server.RunT(t), 4, 50, func(rdb *redis.Client, m *recipeMutex) error {
		for {
			ok, err := rdb.SetNX(ctx, "lock:many", "x", 0).Result()
			if err != nil {
				return err
			}
			if ok {
				break
			}
		}
		if err := rdb.Expire(ctx, "lock:many", 10*time.Second).Err(); err != nil {
			return err
		}
		m.hold(t, rdb)
		return rdb.Del(ctx, "lock:many").Err()
	})
}

// SET k v EX 3 NX and SET my:lock 1 nx ex 10, as the articles write them.
func TestRecipeSetNxEx(t *testing.T) {
	s := server.RunT(t)
	a, b := recipeClients(t, s)

	if v, err := a.Do(ctx, "SET", "k", "v", "EX", "3", "NX").Result(); err != nil || v != "OK" {
		t.Fatalf("a: SET k v EX 3 NX = %v, %v", v, err)
	}
	if _, err := b.Do(ctx, "SET", "k", "v", "EX", "3", "NX").Result(); err != redis.Nil {
		t.Fatalf("b: SET on a held lock = %v, want nil", err)
	}
	if ttl := b.PTTL(ctx, "k").Val(); ttl <= 2900*time.Millisecond || ttl > 3*time.Second {
		t.Errorf("PTTL = %v, want about 3s", ttl)
	}
	s.FastForward(3*time.Second + time.Millisecond)
	if v, err := b.Do(ctx, "SET", "k", "v", "EX", "3", "NX").Result(); err != nil || v != "OK" {
		t.Fatalf("b: SET after the TTL = %v, %v", v, err)
	}

	if v, err := a.Do(ctx, "set", "my:lock", "1", "nx", "ex", "10").Result(); err != nil || v != "OK" {
		t.Fatalf("a: set my:lock 1 nx ex 10 = %v, %v", v, err)
	}
	if _, err := b.Do(ctx, "set", "my:lock", "1", "nx", "ex", "10").Result(); err != redis.Nil {
		t.Fatalf("b: set on a held lock = %v, want nil", err)
	}
	if ttl := a.TTL(ctx, "my:lock").Val(); ttl != 10*time.Second {
		t.Errorf("TTL = %v, want 10s", ttl)
	}
	s.FastForward(10*time.Second + time.Millisecond)
	if v, err := b.Do(ctx, "set", "my:lock", "1", "nx", "ex", "10").Result(); err != nil || v != "OK" {
		t.Fatalf("b: set after the TTL = %v, %v", v, err)
	}

	// Real expiry, without moving the clock: a 50 ms lock.
	if v := a.Do(ctx, "SET", "short", "v", "PX", "50", "NX").Val(); v != "OK" {
		t.Fatalf("SET PX 50 NX = %v", v)
	}
	deadline := time.Now().Add(5 * time.Second)
	for b.Do(ctx, "SET", "short", "v", "PX", "50", "NX").Val() != "OK" {
		if time.Now().After(deadline) {
			t.Fatal("a 50 ms lock did not free in real time")
		}
		time.Sleep(5 * time.Millisecond)
	}

	recipeContend(t, s, 4, 50, func(rdb *redis.Client, m *recipeMutex) error {
		for {
			_, err := rdb.Do(ctx, "SET", "lock:many", "1", "EX", "10", "NX").Result()
			if err == nil {
				break
			}
			if err != redis.Nil {
				return err
			}
		}
		m.hold(t, rdb)
		return rdb.Del(ctx, "lock:many").Err()
	})
}

// The random token with the Lua compare-and-delete release
// (lockscripts.ArticleRelease), sent with EVAL as phpredis does.

func TestRecipeTokenCompareAndDelete(t *testing.T) {
	s := server.RunT(t)
	a, b := recipeClients(t, s)
	tokA, tokB := recipeToken(t), recipeToken(t)

	if !a.SetNX(ctx, "resource", tokA, 30*time.Second).Val() {
		t.Fatal("a could not lock")
	}
	if b.SetNX(ctx, "resource", tokB, 30*time.Second).Val() {
		t.Fatal("b locked a held lock")
	}
	// b may not release a's lock.
	if n, err := b.Eval(ctx, lockscripts.ArticleRelease, []string{"resource"}, tokB).Int(); err != nil || n != 0 {
		t.Fatalf("b's release = %d, %v, want 0", n, err)
	}
	s.CheckGet(t, "resource", tokA)
	if n, err := a.Eval(ctx, lockscripts.ArticleRelease, []string{"resource"}, tokA).Int(); err != nil || n != 1 {
		t.Fatalf("a's release = %d, %v, want 1", n, err)
	}
	if n := a.Eval(ctx, lockscripts.ArticleRelease, []string{"resource"}, tokA).Val(); n != int64(0) {
		t.Fatalf("a's second release = %v, want 0", n)
	}

	// a's lock expires while a works; b takes it; a's late release must
	// not free b's lock.
	if !a.SetNX(ctx, "resource", tokA, 30*time.Second).Val() {
		t.Fatal("a could not lock again")
	}
	s.FastForward(30*time.Second + time.Millisecond)
	if !b.SetNX(ctx, "resource", tokB, 30*time.Second).Val() {
		t.Fatal("b could not take the expired lock")
	}
	if n := a.Eval(ctx, lockscripts.ArticleRelease, []string{"resource"}, tokA).Val(); n != int64(0) {
		t.Fatalf("a's late release = %v, want 0", n)
	}
	s.CheckGet(t, "resource", tokB)

	recipeContend(t, s, 4, 50, func(rdb *redis.Client, m *recipeMutex) error {
		tok := recipeToken(t)
		for {
			ok, err := rdb.SetNX(ctx, "lock:many", tok, 30*time.Second).Result()
			if err != nil {
				return err
			}
			if ok {
				break
			}
		}
		m.hold(t, rdb)
		n, err := rdb.Eval(ctx, lockscripts.ArticleRelease, []string{"lock:many"}, tok).Int()
		if err == nil && n != 1 {
			err = errors.New("the holder's release deleted nothing")
		}
		return err
	})
}

// The Lua setnx/expire lock (lockscripts.ArticleAcquire) and its ttl/del unlock script: SETNX and EXPIRE
// in one script, so a crash between them cannot leave a lock without a TTL
// (EXPIRE gets the TTL as the string ARGV[2]); the unlock tells an expired
// lock (0) from someone else's (-1) and deletes only its owner's (1).
const (
	recipeLuaUnlock = `
local ttl = redis.call('ttl', KEYS[1])
if ttl == -2 then return 0 end
if redis.call('get', KEYS[1]) ~= ARGV[1] then return -1 end
return redis.call('del', KEYS[1])
`
)

func TestRecipeLuaSetnxExpire(t *testing.T) {
	s := server.RunT(t, server.Manual())
	a, b := recipeClients(t, s)
	tokA, tokB := recipeToken(t), recipeToken(t)

	if n, err := a.Eval(ctx, lockscripts.ArticleAcquire, []string{"lock"}, tokA, "10").Int(); err != nil || n != 1 {
		t.Fatalf("a's lock = %d, %v", n, err)
	}
	s.CheckTTL(t, "lock", 10*time.Second) // EXPIRE got the string "10"
	if n, err := b.Eval(ctx, lockscripts.ArticleAcquire, []string{"lock"}, tokB, "10").Int(); err != nil || n != 0 {
		t.Fatalf("b's lock = %d, %v, want 0", n, err)
	}
	s.CheckTTL(t, "lock", 10*time.Second) // b's failed attempt left the TTL alone
	// b may not unlock a's lock.
	s.FastForward(4 * time.Second)
	if n, err := b.Eval(ctx, recipeLuaUnlock, []string{"lock"}, tokB).Int(); err != nil || n != -1 {
		t.Fatalf("b's unlock = %d, %v, want -1", n, err)
	}
	s.CheckTTL(t, "lock", 6*time.Second)
	if n, err := a.Eval(ctx, recipeLuaUnlock, []string{"lock"}, tokA).Int(); err != nil || n != 1 {
		t.Fatalf("a's unlock = %d, %v, want 1", n, err)
	}
	if n := a.Eval(ctx, recipeLuaUnlock, []string{"lock"}, tokA).Val(); n != int64(0) {
		t.Fatalf("unlock of a free lock = %v, want 0", n)
	}
	// The lock frees at its TTL.
	if n := b.Eval(ctx, lockscripts.ArticleAcquire, []string{"lock"}, tokB, "10").Val(); n != int64(1) {
		t.Fatalf("b's lock = %v", n)
	}
	s.FastForward(10 * time.Second)
	if n := a.Eval(ctx, lockscripts.ArticleAcquire, []string{"lock"}, tokA, "10").Val(); n != int64(0) {
		t.Fatal("a took the lock at its deadline (Redis keeps it until the deadline has passed)")
	}
	s.FastForward(time.Millisecond)
	if n := b.Eval(ctx, recipeLuaUnlock, []string{"lock"}, tokB).Val(); n != int64(0) {
		t.Fatalf("b's unlock after its TTL = %v, want 0 (expired)", n)
	}
	if n := a.Eval(ctx, lockscripts.ArticleAcquire, []string{"lock"}, tokA, "10").Val(); n != int64(1) {
		t.Fatal("a could not take the lock after its TTL")
	}
	if n := b.Eval(ctx, recipeLuaUnlock, []string{"lock"}, tokB).Val(); n != int64(-1) {
		t.Fatalf("b's late unlock = %v, want -1: the lock is a's now", n)
	}

	live := server.RunT(t)
	recipeContend(t, live, 4, 50, func(rdb *redis.Client, m *recipeMutex) error {
		tok := recipeToken(t)
		for {
			n, err := rdb.Eval(ctx, lockscripts.ArticleAcquire, []string{"lock:many"}, tok, "10").Int()
			if err != nil {
				return err
			}
			if n == 1 {
				break
			}
		}
		m.hold(t, rdb)
		n, err := rdb.Eval(ctx, recipeLuaUnlock, []string{"lock:many"}, tok).Int()
		if err == nil && n != 1 {
			err = errors.New("the holder's unlock deleted nothing")
		}
		return err
	})
}

// The GETSET timestamp lock (the Redis SETNX page's old recipe): the value
// is the time the lock expires, by the clients' clock.
//
//	SETNX lock <now + timeout + 1>           -> 1: acquired
//	GET lock; if the time in it has passed:
//	  GETSET lock <now + timeout + 1>        -> still a past time: acquired
//	                                            otherwise another client won
type recipeGetsetLock struct {
	rdb     *redis.Client
	key     string
	timeout int64 // seconds
}

func (l recipeGetsetLock) acquire(now int64) (bool, error) {
	stamp := strconv.FormatInt(now+l.timeout+1, 10)
	ok, err := l.rdb.SetNX(ctx, l.key, stamp, 0).Result()
	if err != nil || ok {
		return ok, err
	}
	cur, err := l.rdb.Get(ctx, l.key).Result()
	if err == redis.Nil {
		return false, nil // released meanwhile: try SETNX again later
	}
	if err != nil {
		return false, err
	}
	if t, _ := strconv.ParseInt(cur, 10, 64); t >= now {
		return false, nil // held, not expired
	}
	old, err := l.rdb.GetSet(ctx, l.key, stamp).Result()
	if err == redis.Nil {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	t, _ := strconv.ParseInt(old, 10, 64)
	return t < now, nil
}

// release deletes the lock only if the holder's stamp has not passed (the
// recipe's rule: an expired lock may already belong to someone else).
func (l recipeGetsetLock) release(now, stamp int64) error {
	if now < stamp {
		return l.rdb.Del(ctx, l.key).Err()
	}
	return nil
}

func TestRecipeGetsetTimestamp(t *testing.T) {
	s := server.RunT(t)
	a, b := recipeClients(t, s)
	la := recipeGetsetLock{a, "lock.foo", 10}
	lb := recipeGetsetLock{b, "lock.foo", 10}
	now := int64(1700000000)

	if ok, err := la.acquire(now); !ok || err != nil {
		t.Fatalf("a: %v, %v", ok, err)
	}
	s.CheckGet(t, "lock.foo", strconv.FormatInt(now+11, 10))
	if ok, err := lb.acquire(now + 5); ok || err != nil {
		t.Fatalf("b took a live lock: %v, %v", ok, err)
	}
	if ok, err := lb.acquire(now + 11); ok || err != nil {
		t.Fatalf("b took the lock at its stamp: %v, %v", ok, err)
	}
	// a crashed: once its stamp has passed, b takes over with GETSET.
	if ok, err := lb.acquire(now + 12); !ok || err != nil {
		t.Fatalf("b could not take over an expired lock: %v, %v", ok, err)
	}
	s.CheckGet(t, "lock.foo", strconv.FormatInt(now+12+11, 10))

	// Two clients find the same expired lock: exactly one wins the GETSET.
	for round := 0; round < 20; round++ {
		s.Set("lock.bar", strconv.FormatInt(now-1, 10))
		var wins atomic.Int32
		var wg sync.WaitGroup
		for _, rdb := range []*redis.Client{a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ok, err := recipeGetsetLock{rdb, "lock.bar", 10}.acquire(now)
				if err != nil {
					t.Error(err)
				}
				if ok {
					wins.Add(1)
				}
			}()
		}
		wg.Wait()
		if n := wins.Load(); n != 1 {
			t.Fatalf("round %d: %d clients acquired the expired lock", round, n)
		}
	}

	// Contention on a live lock: one holder at a time.
	recipeContend(t, s, 4, 30, func(rdb *redis.Client, m *recipeMutex) error {
		l := recipeGetsetLock{rdb, "lock.many", 10}
		for {
			at := now
			ok, err := l.acquire(at)
			if err != nil {
				return err
			}
			if ok {
				m.hold(t, rdb)
				return l.release(at, at+l.timeout+1)
			}
		}
	})
}
