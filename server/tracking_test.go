package server

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/minilock/minilock/expiry"
	"github.com/minilock/minilock/internal/redistest"
)

// Client-side caching's own tests; its replies and messages are compared
// with redis-server's in e2e/diff (diff_tracking_test.go and the random
// generator), and rueidis runs against it in e2e/libraries/rueidis.

// trackingInfo reads INFO's tracking_* fields.
func trackingInfo(t *testing.T, c *redistest.Conn) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, section := range []string{"clients", "stats"} {
		for _, line := range strings.Split(c.MustDo("INFO", section), "\r\n") {
			if name, v, ok := strings.Cut(line, ":"); ok && strings.HasPrefix(name, "tracking_") {
				n, err := strconv.Atoi(v)
				if err != nil {
					t.Fatalf("INFO %s", line)
				}
				out[name] = n
			}
		}
	}
	return out
}

// TestTrackingRedirectToRESP3WithoutSubscription: on the event loop, a
// RESP3 client that neither tracks nor subscribes still gets the pushes
// redirected to it, as in Redis. (The goroutine edge cannot start such a
// client's feed while its goroutine may be writing: docs/differences.md.)
func TestTrackingRedirectToRESP3WithoutSubscription(t *testing.T) {
	s := RunT(t, Config{EventLoop: true})
	if s.loop == nil {
		t.Skip("no event loop on this platform")
	}
	target := redistest.Dial(t, s.Addr())
	target.MustDo("HELLO", "3")
	id := strings.TrimSuffix(strings.TrimPrefix(target.MustDo("CLIENT", "ID"), ":"), "\r\n")
	tracker := redistest.Dial(t, s.Addr())
	if got := tracker.MustDo("CLIENT", "TRACKING", "on", "REDIRECT", id); got != "+OK\r\n" {
		t.Fatalf("CLIENT TRACKING = %q", got)
	}
	tracker.MustDo("GET", "k")
	writer := redistest.Dial(t, s.Addr())
	writer.MustDo("SET", "k", "v")
	if got := target.MustReply(); got != ">2\r\n$10\r\ninvalidate\r\n*1\r\n$1\r\nk\r\n" {
		t.Fatalf("redirected push = %q", got)
	}
	// Its own replies keep their place after the push.
	if got := target.MustDo("PING"); got != "+PONG\r\n" {
		t.Fatalf("PING = %q", got)
	}
}

// TestTrackingSlowReaderIsCut: a tracking client that never reads is
// disconnected once what waits for it passes the normal class's hard
// limit, instead of growing the server's memory without bound.
func TestTrackingSlowReaderIsCut(t *testing.T) {
	s := RunT(t)
	admin := redistest.Dial(t, s.Addr())
	if got := admin.MustDo("CONFIG", "SET", "client-output-buffer-limit", "normal 65536 0 0"); got != "+OK\r\n" {
		t.Fatalf("CONFIG SET = %q", got)
	}
	tracker := redistest.Dial(t, s.Addr())
	tracker.MustDo("HELLO", "3")
	tracker.MustDo("CLIENT", "TRACKING", "on", "BCAST")
	// Each SET below puts its 2 KiB key in a push: 20 MiB of them is far
	// past 64 KiB, however much the socket buffers take.
	pad := strings.Repeat("k", 2048)
	var pipe []byte
	const n = 10000
	for i := range n {
		pipe = append(pipe, redistest.Encode("SET", pad+strconv.Itoa(i), "v")...)
	}
	admin.MustSend(pipe)
	for range n {
		admin.MustReply()
	}
	deadline := time.Now().Add(5 * time.Second)
	for trackingInfo(t, admin)["tracking_clients"] != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the tracking client that does not read is still connected: %v", trackingInfo(t, admin))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestTrackingTableLimitIsKept: however many keys a tracking client reads,
// the table holds at most tracking-table-max-keys of them once the next
// command has run, and every key dropped is sent as an invalidation.
func TestTrackingTableLimitIsKept(t *testing.T) {
	s := RunT(t)
	c := redistest.Dial(t, s.Addr())
	c.MustDo("HELLO", "3")
	c.MustDo("CONFIG", "SET", "tracking-table-max-keys", "10")
	c.MustDo("CLIENT", "TRACKING", "on")
	const n = 50
	args := []string{"MGET"}
	for i := range n {
		args = append(args, "k"+strconv.Itoa(i))
	}
	c.MustDo(args...)
	// Before PING runs, 40 keys go, each an invalidation before its reply.
	c.MustSend(redistest.Encode("PING"))
	pushes := 0
	for {
		r := c.MustReply()
		if r == "+PONG\r\n" {
			break
		}
		if !strings.HasPrefix(r, ">2\r\n$10\r\ninvalidate\r\n*1\r\n") {
			t.Fatalf("unexpected %q", r)
		}
		pushes++
	}
	if pushes != n-10 {
		t.Fatalf("%d invalidations, want %d", pushes, n-10)
	}
	info := trackingInfo(t, c)
	if info["tracking_total_keys"] != 10 || info["tracking_total_items"] != 10 {
		t.Fatalf("after the limit: %v", info)
	}
}

// TestTrackingExpiryOnRead: a tracked key found past its deadline when a
// read comes is invalidated like any change, for every client that tracks
// it, and the reader tracks it again. (The owner runs what fell due before
// the read, so the expiry is an active one here and its message comes
// before the read's reply; a lazy one, found by the read itself, is the
// same hook and comes after it, as in Redis.)
func TestTrackingExpiryOnRead(t *testing.T) {
	clock := expiry.NewManual(time.Now())
	s := RunT(t, Config{Clock: clock})
	c := redistest.Dial(t, s.Addr())
	c.MustDo("HELLO", "3")
	c.MustDo("CLIENT", "TRACKING", "on")
	other := redistest.Dial(t, s.Addr())
	other.MustDo("HELLO", "3")
	other.MustDo("CLIENT", "TRACKING", "on")
	c.MustDo("SET", "k", "v", "PX", "100000")
	c.MustDo("GET", "k")
	other.MustDo("GET", "k")
	clock.FastForward(200 * time.Second) // not the server's: nothing runs now
	c.MustSend(redistest.Encode("GET", "k"))
	push := ">2\r\n$10\r\ninvalidate\r\n*1\r\n$1\r\nk\r\n"
	got := []string{c.MustReply(), c.MustReply()}
	slices.Sort(got)
	if got[0] != push || got[1] != "_\r\n" {
		t.Fatalf("reader: %q, want the invalidation and a null reply", got)
	}
	if got := other.MustReply(); got != push {
		t.Fatalf("other client: %q, want %q", got, push)
	}
	if got := trackingInfo(t, c); got["tracking_total_keys"] != 1 || got["tracking_total_items"] != 1 {
		t.Fatalf("the reader tracks k again: %v", got)
	}
}
