package minilock_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/minilock/minilock/expiry"
	"github.com/minilock/minilock/server"
)

// End-to-end tests through the real go-redis v9 client, in the
// configurations real applications use.

var ctx = context.Background()

// clientConfigs are the go-redis option sets every command is driven
// through: the default handshake (HELLO 3, CLIENT SETINFO), RESP2, a
// password, and a non-zero DB with a client name.
func clientConfigs(t *testing.T) map[string]func() (*server.Server, *redis.Options) {
	return map[string]func() (*server.Server, *redis.Options){
		"default": func() (*server.Server, *redis.Options) {
			s := server.RunT(t)
			return s, &redis.Options{Addr: s.Addr()}
		},
		"resp2": func() (*server.Server, *redis.Options) {
			s := server.RunT(t)
			return s, &redis.Options{Addr: s.Addr(), Protocol: 2}
		},
		"password": func() (*server.Server, *redis.Options) {
			s := server.RunT(t, server.Config{Password: "s3cret"})
			return s, &redis.Options{Addr: s.Addr(), Password: "s3cret"}
		},
		"db1-named": func() (*server.Server, *redis.Options) {
			s := server.RunT(t)
			return s, &redis.Options{Addr: s.Addr(), DB: 1, ClientName: "locker"}
		},
	}
}

func TestGoRedisCommands(t *testing.T) {
	for name, setup := range clientConfigs(t) {
		t.Run(name, func(t *testing.T) {
			s, opts := setup()
			rdb := redis.NewClient(opts)
			defer rdb.Close()
			exerciseCommands(t, rdb, s, opts)
		})
	}
}

// exerciseCommands runs every data and connection command once through
// go-redis and checks the results.
func exerciseCommands(t *testing.T, rdb *redis.Client, s *server.Server, opts *redis.Options) {
	t.Helper()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	eq := func(got, want any) {
		t.Helper()
		if !equal(got, want) {
			t.Fatalf("got %#v, want %#v", got, want)
		}
	}

	eq(rdb.Ping(ctx).Val(), "PONG")
	eq(rdb.Echo(ctx, "hi").Val(), "hi")

	// strings
	must(rdb.Set(ctx, "k", "v", 0).Err())
	eq(rdb.Get(ctx, "k").Val(), "v")
	ok, err := rdb.SetNX(ctx, "k", "w", time.Minute).Result()
	must(err)
	eq(ok, false)
	ok, err = rdb.SetNX(ctx, "lock", "tok", 30*time.Second).Result()
	must(err)
	eq(ok, true)
	eq(rdb.TTL(ctx, "lock").Val(), 30*time.Second)
	ok, err = rdb.SetXX(ctx, "missing", "v", 0).Result()
	must(err)
	eq(ok, false)
	eq(rdb.SetArgs(ctx, "k", "v2", redis.SetArgs{Get: true}).Val(), "v")
	eq(rdb.SetArgs(ctx, "k", "v3", redis.SetArgs{KeepTTL: true}).Val(), "OK")
	must(rdb.SetEx(ctx, "ex", "1", 100*time.Second).Err())
	eq(rdb.TTL(ctx, "ex").Val(), 100*time.Second)
	eq(rdb.GetSet(ctx, "ex", "2").Val(), "1")
	eq(rdb.TTL(ctx, "ex").Val(), time.Duration(-1)) // GETSET drops the TTL
	eq(rdb.GetEx(ctx, "ex", 50*time.Second).Val(), "2")
	eq(rdb.TTL(ctx, "ex").Val(), 50*time.Second)
	eq(rdb.GetDel(ctx, "ex").Val(), "2")
	_, err = rdb.Get(ctx, "ex").Result()
	eq(err, redis.Nil)
	must(rdb.Set(ctx, "r", "Hello World", 0).Err())
	eq(rdb.GetRange(ctx, "r", 0, 4).Val(), "Hello")
	eq(rdb.GetRange(ctx, "r", -5, -1).Val(), "World")
	eq(rdb.StrLen(ctx, "r").Val(), int64(11))
	eq(rdb.Append(ctx, "r", "!").Val(), int64(12))
	must(rdb.MSet(ctx, "a", "1", "b", "2").Err())
	eq(rdb.MGet(ctx, "a", "b", "nope").Val(), []any{"1", "2", nil})
	eq(rdb.MSetNX(ctx, "a", "x", "c", "3").Val(), false)
	eq(rdb.Incr(ctx, "n").Val(), int64(1))
	eq(rdb.IncrBy(ctx, "n", 10).Val(), int64(11))
	eq(rdb.Decr(ctx, "n").Val(), int64(10))
	eq(rdb.DecrBy(ctx, "n", 4).Val(), int64(6))
	eq(rdb.Incr(ctx, "r").Err().Error(), "ERR value is not an integer or out of range")

	// keys
	eq(rdb.Exists(ctx, "a", "b", "a", "nope").Val(), int64(3))
	eq(rdb.Type(ctx, "a").Val(), "string")
	eq(rdb.Type(ctx, "nope").Val(), "none")
	keys := rdb.Keys(ctx, "*").Val()
	slices.Sort(keys)
	eq(keys, []string{"a", "b", "k", "lock", "n", "r"})
	var scanned []string
	iter := rdb.Scan(ctx, 0, "[ab]", 2).Iterator()
	for iter.Next(ctx) {
		scanned = append(scanned, iter.Val())
	}
	must(iter.Err())
	slices.Sort(scanned)
	eq(scanned, []string{"a", "b"})
	eq(rdb.DBSize(ctx).Val(), int64(6))
	eq(rdb.Del(ctx, "a", "a", "nope").Val(), int64(1))
	eq(rdb.Unlink(ctx, "b").Val(), int64(1))
	eq(rdb.Touch(ctx, "k", "nope").Val(), int64(1))

	// expiry
	eq(rdb.Expire(ctx, "k", 100*time.Second).Val(), true)
	eq(rdb.ExpireNX(ctx, "k", 200*time.Second).Val(), false)
	eq(rdb.ExpireGT(ctx, "k", 200*time.Second).Val(), true)
	eq(rdb.ExpireLT(ctx, "k", 300*time.Second).Val(), false)
	eq(rdb.TTL(ctx, "k").Val(), 200*time.Second)
	eq(rdb.PExpire(ctx, "k", 1500*time.Millisecond).Val(), true)
	if pttl := rdb.PTTL(ctx, "k").Val(); pttl <= time.Second || pttl > 1500*time.Millisecond {
		t.Fatalf("PTTL %v after PEXPIRE 1500", pttl)
	}
	at := time.Now().Add(time.Hour).Truncate(time.Second)
	eq(rdb.ExpireAt(ctx, "k", at).Val(), true)
	eq(rdb.ExpireTime(ctx, "k").Val(), time.Duration(at.Unix())*time.Second)
	eq(rdb.PExpireAt(ctx, "k", at.Add(time.Second)).Val(), true)
	eq(rdb.PExpireTime(ctx, "k").Val(), time.Duration(at.Add(time.Second).UnixMilli())*time.Millisecond)
	eq(rdb.Persist(ctx, "k").Val(), true)
	eq(rdb.TTL(ctx, "k").Val(), time.Duration(-1))
	eq(rdb.TTL(ctx, "nope").Val(), time.Duration(-2))
	eq(rdb.Expire(ctx, "k", -1).Val(), true) // a past deadline deletes
	eq(rdb.Exists(ctx, "k").Val(), int64(0))

	// the fixture's clock: FastForward expires the lock
	s.FastForward(31 * time.Second)
	_, err = rdb.Get(ctx, "lock").Result()
	eq(err, redis.Nil)

	// transactions
	cmds, err := rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, "t1", "1", 0)
		p.Incr(ctx, "t1")
		return nil
	})
	must(err)
	eq(cmds[1].(*redis.IntCmd).Val(), int64(2))
	err = rdb.Watch(ctx, func(tx *redis.Tx) error {
		n, err := tx.Get(ctx, "t1").Int()
		if err != nil {
			return err
		}
		_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Set(ctx, "t1", n+1, 0)
			return nil
		})
		return err
	}, "t1")
	must(err)
	eq(rdb.Get(ctx, "t1").Val(), "3")

	// connection and server
	eq(rdb.ClientID(ctx).Val() > 0, true)
	if opts.ClientName != "" {
		eq(rdb.ClientGetName(ctx).Val(), opts.ClientName)
	}
	list := rdb.ClientList(ctx).Val()
	eq(strings.Contains(list, "db="), true)
	eq(strings.Contains(rdb.Info(ctx, "keyspace").Val(), "# Keyspace"), true)
	eq(rdb.ConfigGet(ctx, "databases").Val(), map[string]string{"databases": "16"})
	eq(len(rdb.Time(ctx).Val().String()) > 0, true)
	eq(rdb.Do(ctx, "COMMAND", "COUNT").Err(), nil)
	must(rdb.FlushDB(ctx).Err())
	eq(rdb.DBSize(ctx).Val(), int64(0))
	must(rdb.FlushAll(ctx).Err())
}

func equal(a, b any) bool {
	switch a := a.(type) {
	case []string:
		b, ok := b.([]string)
		return ok && slices.Equal(a, b)
	case []any:
		b, ok := b.([]any)
		return ok && slices.Equal(a, b)
	case map[string]string:
		b, ok := b.(map[string]string)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, v := range a {
			if b[k] != v {
				return false
			}
		}
		return true
	case error:
		be, ok := b.(error)
		return ok && errors.Is(a, be)
	}
	return a == b
}

// TestGoRedisWrongPassword checks that a client with a bad password cannot
// run commands, and sees Redis's error.
func TestGoRedisWrongPassword(t *testing.T) {
	s := server.RunT(t, server.Config{Password: "right"})
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr(), Password: "wrong"})
	defer rdb.Close()
	err := rdb.Ping(ctx).Err()
	if err == nil || !strings.Contains(err.Error(), "WRONGPASS") {
		t.Fatalf("PING with a wrong password: %v, want WRONGPASS", err)
	}
	bare := redis.NewClient(&redis.Options{Addr: s.Addr()})
	defer bare.Close()
	if err := bare.Get(ctx, "k").Err(); err == nil || err.Error() != "NOAUTH Authentication required." {
		t.Fatalf("GET without AUTH: %v", err)
	}
}

// TestRealTimeExpiry checks that keys expire on their own in real time,
// without any command touching them: the active expiry the fixture face
// promises (miniredis cannot).
func TestRealTimeExpiry(t *testing.T) {
	s := server.RunT(t, server.Config{Clock: expiry.Real{}})
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr()})
	defer rdb.Close()
	if err := rdb.Set(ctx, "lock", "tok", 50*time.Millisecond).Err(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(s.Keys()) > 0 {
		if time.Now().After(deadline) {
			t.Fatal("key still present 5 s after a 50 ms TTL")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Wake-ups through go-redis: PubSub, blocking pops under a manual clock,
// CLIENT UNBLOCK, a waiter that disconnects, and a queue of waiters served
// first come first served.

func TestGoRedisPubSub(t *testing.T) {
	for name, config := range clientConfigs(t) {
		t.Run(name, func(t *testing.T) {
			_, opts := config()
			rdb := redis.NewClient(opts)
			defer rdb.Close()
			sub := rdb.Subscribe(ctx, "lock:released")
			defer sub.Close()
			if _, err := sub.Receive(ctx); err != nil { // the subscription's confirmation
				t.Fatal(err)
			}
			psub := rdb.PSubscribe(ctx, "lock:*")
			defer psub.Close()
			if _, err := psub.Receive(ctx); err != nil {
				t.Fatal(err)
			}
			if n, err := rdb.Publish(ctx, "lock:released", "token-1").Result(); err != nil || n != 2 {
				t.Fatalf("PUBLISH = %d, %v; want 2 receivers", n, err)
			}
			for _, ps := range []*redis.PubSub{sub, psub} {
				msg, err := ps.ReceiveMessage(ctx)
				if err != nil || msg.Channel != "lock:released" || msg.Payload != "token-1" {
					t.Fatalf("message = %+v, %v", msg, err)
				}
			}
			if got, _ := rdb.PubSubNumSub(ctx, "lock:released").Result(); got["lock:released"] != 1 {
				t.Errorf("PUBSUB NUMSUB = %v, want 1", got)
			}
			if n, _ := rdb.PubSubNumPat(ctx).Result(); n != 1 {
				t.Errorf("PUBSUB NUMPAT = %d, want 1", n)
			}
		})
	}
}

// TestBlockingTimeoutFollowsManualClock: under server.Manual() a BLPOP's
// timeout passes when the test moves the clock, at once, with no sleep.
func TestBlockingTimeoutFollowsManualClock(t *testing.T) {
	s := server.RunT(t, server.Manual())
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr()})
	defer rdb.Close()
	done := make(chan error, 1)
	go func() {
		_, err := rdb.BLPop(ctx, 0, "queue").Result() // go-redis: 0 = forever
		done <- err
	}()
	timed := make(chan error, 1)
	go func() {
		_, err := rdb.BLPop(ctx, 10*time.Minute, "other").Result()
		timed <- err
	}()
	waitBlocked(t, rdb, 2)
	s.FastForward(10*time.Minute + time.Millisecond)
	select {
	case err := <-timed:
		if !errors.Is(err, redis.Nil) {
			t.Fatalf("BLPOP after its timeout = %v, want redis.Nil", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("FastForward past the timeout did not wake the BLPOP")
	}
	select {
	case err := <-done:
		t.Fatalf("BLPOP with timeout 0 returned %v after FastForward", err)
	default:
	}
	rdb.RPush(ctx, "queue", "job")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// waitBlocked waits until n clients are parked, as CLIENT UNBLOCK would
// find them, by polling a cheap command sequence (tests only).
func waitBlocked(t *testing.T, rdb *redis.Client, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if blockedClients(rdb) >= n {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
	t.Fatalf("%d clients never blocked", n)
}

// blockedClients counts clients parked: CLIENT UNBLOCK of every id with
// TIMEOUT would disturb them, so this reads INFO clients instead.
func blockedClients(rdb *redis.Client) int {
	info, err := rdb.InfoMap(ctx, "clients").Result()
	if err != nil {
		return 0
	}
	var n int
	fmt.Sscan(info["Clients"]["blocked_clients"], &n)
	return n
}

func TestClientUnblock(t *testing.T) {
	s := server.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr(), PoolSize: 4})
	defer rdb.Close()
	waiter := rdb.Conn()
	defer waiter.Close()
	id, err := waiter.ClientID(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	res := make(chan error, 1)
	go func() { _, err := waiter.BLPop(ctx, 0, "q").Result(); res <- err }()
	waitBlocked(t, rdb, 1)
	if n, _ := rdb.ClientUnblockWithError(ctx, id).Result(); n != 1 {
		t.Fatalf("CLIENT UNBLOCK ERROR = %d, want 1", n)
	}
	if err := <-res; err == nil || err.Error() != "UNBLOCKED client unblocked via CLIENT UNBLOCK" {
		t.Fatalf("unblocked BLPOP = %v", err)
	}
	if n, _ := rdb.ClientUnblock(ctx, id).Result(); n != 0 {
		t.Fatalf("CLIENT UNBLOCK of a client that is not blocked = %d, want 0", n)
	}
	// The connection goes on serving.
	if err := waiter.Ping(ctx).Err(); err != nil {
		t.Fatal(err)
	}
}

// TestBlockedClientDisconnects: a waiter that goes away leaves nothing
// behind; the next push is for the waiters still there.
func TestBlockedClientDisconnects(t *testing.T) {
	s := server.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr()})
	defer rdb.Close()
	gone := redis.NewClient(&redis.Options{Addr: s.Addr()})
	go gone.BLPop(ctx, 0, "q")
	waitBlocked(t, rdb, 1)
	gone.Close()
	deadline := time.Now().Add(5 * time.Second)
	for blockedClients(rdb) != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the disconnected waiter is still counted as blocked")
		}
		time.Sleep(2 * time.Millisecond)
	}
	rdb.RPush(ctx, "q", "x")
	if got, _ := rdb.LRange(ctx, "q", 0, -1).Result(); len(got) != 1 {
		t.Fatalf("the push went to a disconnected waiter: list = %v", got)
	}
}

// TestHundredWaitersFIFO: 100 clients wait on one lock's signal list; each
// release (one push) wakes exactly the longest waiter, in order.
func TestHundredWaitersFIFO(t *testing.T) {
	s := server.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr(), PoolSize: 110})
	defer rdb.Close()
	const n = 100
	var mu sync.Mutex
	var order []int
	var wg sync.WaitGroup
	for i := range n {
		waitBlocked(t, rdb, i) // each starts after the one before is parked
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := rdb.BLPop(ctx, 0, "lock:signal").Result(); err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
		}()
	}
	waitBlocked(t, rdb, n)
	for i := range n {
		rdb.RPush(ctx, "lock:signal", "token")
		deadline := time.Now().Add(5 * time.Second)
		for {
			mu.Lock()
			got := len(order)
			mu.Unlock()
			if got == i+1 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("release %d woke nobody", i)
			}
			runtime.Gosched()
		}
	}
	wg.Wait()
	for i, w := range order {
		if w != i {
			t.Fatalf("waiter %d acquired in turn %d: not first come first served (%v)", w, i, order)
		}
	}
}
