package libraries_test

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/minilock/minilock/internal/redistest"
	"github.com/minilock/minilock/server"
)

// TestTrackingRESP2Redirect is client-side caching as a RESP2 client does
// it, through go-redis with Protocol 2: one connection subscribes to
// __redis__:invalidate, another turns tracking on with REDIRECT to it and
// reads; a write from a third client arrives as a pub/sub message whose
// payload is the array of invalidated keys. Against redis-server and
// minilock alike.
//
//	go test -run TestTrackingRESP2Redirect -v ./e2e/libraries
func TestTrackingRESP2Redirect(t *testing.T) {
	redistest.Require(t)
	rs := redistest.Start(t)
	ms := server.RunT(t, server.Config{})
	for name, addr := range map[string]string{"redis": rs.Addr, "minilock": ms.Addr()} {
		t.Run(name, func(t *testing.T) { testRESP2Redirect(t, addr) })
	}
}

func testRESP2Redirect(t *testing.T, addr string) {
	ctx := context.Background()
	opts := func(name string) *redis.Options {
		return &redis.Options{Addr: addr, Protocol: 2, ClientName: name, DisableIdentity: true}
	}
	subs := redis.NewClient(opts("invalidations"))
	defer subs.Close()
	ps := subs.Subscribe(ctx, "__redis__:invalidate")
	defer ps.Close()
	if _, err := ps.Receive(ctx); err != nil { // the subscription's confirmation
		t.Fatalf("subscribe: %v", err)
	}
	msgs := ps.Channel()

	rdb := redis.NewClient(opts("app"))
	defer rdb.Close()
	redirect := clientIDNamed(t, rdb, "invalidations")
	cache := rdb.Conn() // tracking belongs to one connection
	defer cache.Close()
	if err := cache.Do(ctx, "CLIENT", "TRACKING", "on", "REDIRECT", redirect).Err(); err != nil {
		t.Fatalf("CLIENT TRACKING on REDIRECT %d: %v", redirect, err)
	}
	if got, err := cache.Do(ctx, "CLIENT", "GETREDIR").Int64(); err != nil || got != redirect {
		t.Fatalf("CLIENT GETREDIR = %d, %v; want %d", got, err, redirect)
	}

	writer := redis.NewClient(opts("writer"))
	defer writer.Close()
	writer.MSet(ctx, "k1", "v", "k2", "v", "k3", "v")
	if err := cache.Get(ctx, "k1").Err(); err != nil {
		t.Fatal(err)
	}
	if err := cache.MGet(ctx, "k2", "k3").Err(); err != nil {
		t.Fatal(err)
	}
	next := func(what string) *redis.Message {
		t.Helper()
		select {
		case m := <-msgs:
			if m.Channel != "__redis__:invalidate" {
				t.Fatalf("%s: message on %q", what, m.Channel)
			}
			return m
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: no invalidation message", what)
			return nil
		}
	}
	writer.Set(ctx, "k1", "w", 0)
	if m := next("SET k1"); !slices.Equal(m.PayloadSlice, []string{"k1"}) {
		t.Fatalf("SET k1: payload %q %q, want [k1]", m.Payload, m.PayloadSlice)
	}
	writer.Set(ctx, "k1", "x", 0) // no longer tracked: no message
	writer.Del(ctx, "k3", "k2")
	for _, want := range []string{"k3", "k2"} {
		if m := next("DEL k3 k2"); !slices.Equal(m.PayloadSlice, []string{want}) {
			t.Fatalf("DEL: payload %q, want [%s]", m.PayloadSlice, want)
		}
	}
	// FLUSHALL's message has a null payload, which go-redis's PubSub
	// does not pass on (from redis-server neither): what follows must
	// still arrive in order.
	writer.FlushAll(ctx)
	if err := cache.Get(ctx, "k4").Err(); err != redis.Nil {
		t.Fatalf("GET k4 = %v", err)
	}
	writer.Set(ctx, "k4", "v", 0)
	if m := next("SET k4"); !slices.Equal(m.PayloadSlice, []string{"k4"}) {
		t.Fatalf("SET k4: payload %q, want [k4]", m.PayloadSlice)
	}
	select {
	case m := <-msgs:
		t.Fatalf("unexpected message %q %q", m.Payload, m.PayloadSlice)
	case <-time.After(100 * time.Millisecond):
	}
}

// clientIDNamed finds the id of the connection named name in CLIENT LIST.
func clientIDNamed(t *testing.T, rdb *redis.Client, name string) int64 {
	t.Helper()
	list, err := rdb.ClientList(context.Background()).Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(list, "\n") {
		if !strings.Contains(line, " name="+name+" ") {
			continue
		}
		id, _, _ := strings.Cut(strings.TrimPrefix(line, "id="), " ")
		n, err := strconv.ParseInt(id, 10, 64)
		if err != nil {
			t.Fatalf("CLIENT LIST line %q: %v", line, err)
		}
		return n
	}
	t.Fatalf("no client named %s in %q", name, list)
	return 0
}
