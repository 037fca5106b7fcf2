package server

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/minilock/minilock/expiry"
)

// Eviction seen by a client: fill past maxmemory with a known access
// pattern and check which class of keys went. The keyspace's rng is
// seeded, so a run repeats.

// evictServer starts a server on a manual clock under pol, with keys
// k:0..k:n-1 (those with i%ttlEvery == 0 get a TTL of 1000+i seconds when
// ttlEvery > 0), each holding a 100-byte value.
func evictServer(t *testing.T, pol string, n, ttlEvery int) (*Server, func(string) string) {
	t.Helper()
	clock := expiry.NewManual(time.Unix(1_700_000_000, 0))
	s := RunT(t, Config{Clock: clock})
	s.owner.Do(func() { s.ks.Seed(7) })
	_, send := dial(t, s)
	// Tenacity 100: no time limit, so a slow run (-race) evicts in one go
	// as a fast one does.
	if got := send("CONFIG SET maxmemory-policy " + pol + " maxmemory-samples 10 maxmemory-eviction-tenacity 100"); got != "+OK" {
		t.Fatal(got)
	}
	val := strings.Repeat("v", 100)
	for i := range n {
		cmd := "SET k:" + strconv.Itoa(i) + " " + val
		if ttlEvery > 0 && i%ttlEvery == 0 {
			cmd += " EX " + strconv.Itoa(1000+i)
		}
		if got := send(cmd); got != "+OK" {
			t.Fatal(got)
		}
	}
	return s, send
}

// shrink sets maxmemory to what the server uses less bytes and returns
// the keys left among k:0..k:n-1.
func shrink(t *testing.T, s *Server, send func(string) string, bytes uint64, n int) map[int]bool {
	t.Helper()
	if used := s.usedMemory(); used <= bytes {
		t.Fatalf("used memory %d, not above %d", used, bytes)
	}
	if got := send("CONFIG SET maxmemory " + strconv.FormatUint(s.usedMemory()-bytes, 10)); got != "+OK" {
		t.Fatal(got)
	}
	left := map[int]bool{}
	for i := range n {
		if send("EXISTS k:"+strconv.Itoa(i)) == ":1" {
			left[i] = true
		}
	}
	return left
}

func evictedKeys(t *testing.T, s *Server) int {
	var n int
	s.owner.Do(func() { n = int(s.ks.Stats().Evicted) })
	return n
}

// allkeys-lru keeps the keys read after the rest were written.
func TestEvictAllKeysLRUKeepsRecentlyRead(t *testing.T) {
	s, send := evictServer(t, "allkeys-lru", 2000, 0)
	s.FastForward(100 * time.Second)
	for i := range 500 {
		send("TOUCH k:" + strconv.Itoa(i))
	}
	left := shrink(t, s, send, 150_000, 2000) // about 1000 keys' worth
	for i := range 500 {
		if !left[i] {
			t.Fatalf("recently read k:%d evicted (%d keys left)", i, len(left))
		}
	}
	if len(left) > 1500 || evictedKeys(t, s) != 2000-len(left) {
		t.Fatalf("%d keys left, %d evicted", len(left), evictedKeys(t, s))
	}
	if s.usedMemory() > s.maxMemory {
		t.Fatalf("used %d > maxmemory %d", s.usedMemory(), s.maxMemory)
	}
	if got := send("SET new v"); got != "+OK" { // evicts more, never refuses
		t.Fatal(got)
	}
}

// allkeys-lfu keeps the keys read often, even when the cold ones were
// read last.
func TestEvictAllKeysLFUKeepsHotKeys(t *testing.T) {
	s, send := evictServer(t, "allkeys-lfu", 2000, 0)
	// Factor 1 (p = 1/(c-4) above 5) sets 20 reads well apart from one:
	// at the default 10, 20 reads make a counter of 6 to 8.
	send("CONFIG SET lfu-log-factor 1")
	for range 20 {
		for i := range 200 {
			send("TOUCH k:" + strconv.Itoa(i))
		}
	}
	for i := 200; i < 2000; i++ {
		send("TOUCH k:" + strconv.Itoa(i))
	}
	left := shrink(t, s, send, 150_000, 2000)
	for i := range 200 {
		if !left[i] {
			t.Fatalf("hot k:%d evicted", i)
		}
	}
}

// allkeys-random evicts from the whole keyspace, read or not.
func TestEvictAllKeysRandom(t *testing.T) {
	s, send := evictServer(t, "allkeys-random", 2000, 0)
	for i := range 1000 {
		send("TOUCH k:" + strconv.Itoa(i))
	}
	left := shrink(t, s, send, 150_000, 2000)
	read, unread := 0, 0
	for i := range left {
		if i < 1000 {
			read++
		} else {
			unread++
		}
	}
	if read == 1000 || unread == 1000 {
		t.Fatalf("random eviction spared a whole half: %d read, %d unread left", read, unread)
	}
}

// volatile-* never evicts a key without a TTL; once none with a TTL is
// left, writes get the OOM error.
func TestEvictVolatilePolicies(t *testing.T) {
	for _, pol := range []string{"volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl"} {
		t.Run(pol, func(t *testing.T) {
			s, send := evictServer(t, pol, 900, 3)
			left := shrink(t, s, send, 100_000, 900) // more than all 300 TTL keys hold
			if len(left) != 600 {
				t.Fatalf("%d keys left, want the 600 without a TTL", len(left))
			}
			for i := range left {
				if i%3 == 0 {
					t.Fatalf("k:%d, with a TTL, survived", i)
				}
			}
			want := "-OOM command not allowed when used memory > 'maxmemory'."
			if got := send("SET x y"); got != want {
				t.Fatalf("SET with nothing evictable: %q", got)
			}
			if got := send("GET k:1"); !strings.HasPrefix(got, "$") {
				t.Fatalf("GET: %q", got)
			}
		})
	}
}

// volatile-ttl evicts the soonest deadlines first.
func TestEvictVolatileTTLSoonestFirst(t *testing.T) {
	s, send := evictServer(t, "volatile-ttl", 900, 1)
	left := shrink(t, s, send, 30_000, 900) // about 200 keys
	gone := 0
	for i := range 900 {
		if !left[i] {
			gone++
			if i >= 450 {
				t.Fatalf("k:%d (deadline in %d s) evicted among the first %d", i, 1000+i, 900-len(left))
			}
		}
	}
	if gone == 0 {
		t.Fatal("nothing evicted")
	}
}

// noeviction refuses as before and evicts nothing.
func TestEvictNoEviction(t *testing.T) {
	s, send := evictServer(t, "noeviction", 100, 0)
	left := shrink(t, s, send, 1000, 100)
	if len(left) != 100 || evictedKeys(t, s) != 0 {
		t.Fatalf("noeviction: %d left, %d evicted", len(left), evictedKeys(t, s))
	}
	if got := send("SET x y"); !strings.HasPrefix(got, "-OOM") {
		t.Fatal(got)
	}
}

// maxmemory-eviction-tenacity bounds one command's eviction time; what
// is left is evicted between commands, and the command is not refused.
func TestEvictTenacityDefersTheRest(t *testing.T) {
	s, send := evictServer(t, "allkeys-random", 3000, 0)
	send("CONFIG SET maxmemory-eviction-tenacity 0") // 0 µs: stop after 16 keys
	send("CONFIG SET maxmemory " + strconv.FormatUint(s.usedMemory()-200_000, 10))
	if n := evictedKeys(t, s); n < 16 {
		t.Fatalf("evicted %d on CONFIG SET", n)
	}
	deadline := time.Now().Add(5 * time.Second)
	for s.usedMemory() > s.maxMemory {
		if time.Now().After(deadline) {
			t.Fatalf("still over maxmemory after 5 s: %d > %d, %d evicted", s.usedMemory(), s.maxMemory, evictedKeys(t, s))
		}
		if got := send("PING"); got != "+PONG" {
			t.Fatal(got)
		}
	}
}

// While clients are paused nothing is evicted (isSafeToPerformEvictions);
// the first command after the pause evicts.
func TestEvictNotWhilePaused(t *testing.T) {
	s, send := evictServer(t, "allkeys-lru", 100, 0)
	if got := send("CLIENT PAUSE 100000 WRITE"); got != "+OK" {
		t.Fatal(got)
	}
	send("CONFIG SET maxmemory 1")
	if got := send("DBSIZE"); got != ":100" || evictedKeys(t, s) != 0 {
		t.Fatalf("evicted during a pause: DBSIZE %s", got)
	}
	send("CLIENT UNPAUSE")
	if got := send("DBSIZE"); got != ":0" {
		t.Fatalf("after the pause: DBSIZE %s", got)
	}
}

// INFO's eviction_exceeded_time counts the time memory stays over
// maxmemory, from the first command that finds it over to the first that
// finds it under.
func TestEvictExceededTime(t *testing.T) {
	s, send := evictServer(t, "noeviction", 10, 0)
	send("CONFIG SET maxmemory 1")
	time.Sleep(30 * time.Millisecond)
	send("PING")
	var total, cur int64
	s.owner.Do(func() { total, cur = s.evictExceeded() })
	if cur < 30 || total < cur {
		t.Fatalf("over maxmemory for 30 ms: total %d, current %d", total, cur)
	}
	send("CONFIG SET maxmemory 0") // Redis goes on counting
	send("PING")
	s.owner.Do(func() { total, cur = s.evictExceeded() })
	if cur < 30 {
		t.Fatalf("maxmemory 0: current %d", cur)
	}
	send("CONFIG SET maxmemory 1gb")
	s.owner.Do(func() { total, cur = s.evictExceeded() })
	if cur != 0 || total < 30 {
		t.Fatalf("back under maxmemory: total %d, current %d", total, cur)
	}
	send("CONFIG RESETSTAT")
	s.owner.Do(func() { total, cur = s.evictExceeded() })
	if total != 0 {
		t.Fatalf("after RESETSTAT: total %d", total)
	}
}
