package rueidis_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/rueidis"

	"github.com/minilock/minilock/internal/redistest"
	"github.com/minilock/minilock/server"
)

// targets are the servers every test runs against: a redis-server 7
// started for the test, and minilock, embedded (the goroutine edge, or the
// epoll edge under MINILOCK_EDGE=epoll).
func targets(t *testing.T) map[string]string {
	redistest.Require(t)
	rs := redistest.Start(t)
	ms := server.RunT(t, server.Config{})
	return map[string]string{"redis": rs.Addr, "minilock": ms.Addr()}
}

// newClient is rueidis with its defaults (client-side caching on: RESP3
// and CLIENT TRACKING ON OPTIN), plus the options given.
func newClient(t *testing.T, addr string, opt rueidis.ClientOption) rueidis.Client {
	t.Helper()
	opt.InitAddress = []string{addr}
	c, err := rueidis.NewClient(opt)
	if err != nil {
		t.Fatalf("rueidis.NewClient: %v", err)
	}
	t.Cleanup(c.Close)
	return c
}

// cachedGet reads key through the client-side cache and reports the value
// and whether it came from the cache.
func cachedGet(t *testing.T, c rueidis.Client, key string) (string, bool) {
	t.Helper()
	resp := c.DoCache(context.Background(), c.B().Get().Key(key).Cache(), time.Minute)
	v, err := resp.ToString()
	if err != nil && !rueidis.IsRedisNil(err) {
		t.Fatalf("DoCache GET %s: %v", key, err)
	}
	return v, resp.IsCacheHit()
}

// eventually waits until read (a cached read) returns want from the server
// (not from the cache), as it must once the invalidation has arrived.
func eventually(t *testing.T, what string, read func() (string, bool), want string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		v, hit := read()
		if v == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: still %q (cache hit %v), want %q: the invalidation never came", what, v, hit, want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestRueidisCachedReads: DoCache serves the second read from the cache;
// a write from another client invalidates it (CLIENT TRACKING's push), and
// the next read goes to the server; DEL, EXPIRE and FLUSHALL do the same.
func TestRueidisCachedReads(t *testing.T) {
	ctx := context.Background()
	for name, addr := range targets(t) {
		t.Run(name, func(t *testing.T) {
			reader := newClient(t, addr, rueidis.ClientOption{})
			writer := newClient(t, addr, rueidis.ClientOption{DisableCache: true})
			set := func(k, v string) {
				t.Helper()
				if err := writer.Do(ctx, writer.B().Set().Key(k).Value(v).Build()).Error(); err != nil {
					t.Fatalf("SET %s: %v", k, err)
				}
			}
			set("k", "v1")
			if v, hit := cachedGet(t, reader, "k"); v != "v1" || hit {
				t.Fatalf("first read = %q, cache hit %v; want v1 from the server", v, hit)
			}
			if v, hit := cachedGet(t, reader, "k"); v != "v1" || !hit {
				t.Fatalf("second read = %q, cache hit %v; want v1 from the cache", v, hit)
			}
			set("k", "v2")
			eventually(t, "after SET", func() (string, bool) { return cachedGet(t, reader, "k") }, "v2")
			if v, hit := cachedGet(t, reader, "k"); v != "v2" || !hit {
				t.Fatalf("read after refill = %q, cache hit %v; want v2 from the cache", v, hit)
			}

			if err := writer.Do(ctx, writer.B().Del().Key("k").Build()).Error(); err != nil {
				t.Fatal(err)
			}
			eventually(t, "after DEL", func() (string, bool) { return cachedGet(t, reader, "k") }, "")

			// A key expiring on the server is invalidated too.
			if err := writer.Do(ctx, writer.B().Set().Key("e").Value("x").Px(100*time.Millisecond).Build()).Error(); err != nil {
				t.Fatal(err)
			}
			if v, _ := cachedGet(t, reader, "e"); v != "x" {
				t.Fatalf("read of e = %q", v)
			}
			eventually(t, "after expiry", func() (string, bool) { return cachedGet(t, reader, "e") }, "")

			// MGET through the cache, then FLUSHALL: a null invalidation
			// drops every cached key.
			set("a", "1")
			set("b", "2")
			mget := func() (string, bool) {
				m, err := rueidis.MGetCache(reader, ctx, time.Minute, []string{"a", "b"})
				if err != nil {
					t.Fatalf("MGetCache: %v", err)
				}
				ma, mb := m["a"], m["b"]
				a, _ := ma.ToString()
				b, _ := mb.ToString()
				return a + b, ma.IsCacheHit() && mb.IsCacheHit()
			}
			if v, _ := mget(); v != "12" {
				t.Fatalf("MGetCache = %q", v)
			}
			if v, hit := mget(); v != "12" || !hit {
				t.Fatalf("MGetCache again = %q, cache hit %v", v, hit)
			}
			if err := writer.Do(ctx, writer.B().Flushall().Build()).Error(); err != nil {
				t.Fatal(err)
			}
			eventually(t, "after FLUSHALL", mget, "")
		})
	}
}

// TestRueidisBroadcast: rueidis in BCAST mode with a prefix hears of every
// change to the keys under it, read or not.
func TestRueidisBroadcast(t *testing.T) {
	ctx := context.Background()
	for name, addr := range targets(t) {
		t.Run(name, func(t *testing.T) {
			reader := newClient(t, addr, rueidis.ClientOption{
				ClientTrackingOptions: []string{"PREFIX", "user:", "BCAST"},
			})
			writer := newClient(t, addr, rueidis.ClientOption{DisableCache: true})
			if err := writer.Do(ctx, writer.B().Set().Key("user:1").Value("ann").Build()).Error(); err != nil {
				t.Fatal(err)
			}
			read := func() (string, bool) { return cachedGet(t, reader, "user:1") }
			if v, _ := read(); v != "ann" {
				t.Fatalf("read = %q", v)
			}
			if v, hit := read(); v != "ann" || !hit {
				t.Fatalf("second read = %q, cache hit %v", v, hit)
			}
			if err := writer.Do(ctx, writer.B().Set().Key("user:1").Value("bob").Build()).Error(); err != nil {
				t.Fatal(err)
			}
			eventually(t, "after SET", read, "bob")
		})
	}
}
