package minilock_test

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/minilock/minilock/server"
)

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
