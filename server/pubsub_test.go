package server

import (
	"fmt"
	"io"
	"net"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/minilock/minilock/internal/redistest"
)

// TestSlowSubscriberIsDropped: a subscriber that stops reading is
// disconnected once pubsubHardLimit of messages waits for it (Redis's
// client-output-buffer-limit pubsub 32mb), while the publisher is answered
// at once every time and another subscriber keeps receiving.
// CONFIG SET client-output-buffer-limit's pubsub class is the limit a new
// subscriber gets: 24 MiB published at one that reads nothing, under the
// 32 MiB default, drops it only once the limit is 2 MiB.
func TestPubsubLimitFollowsConfig(t *testing.T) {
	for _, tc := range []struct {
		limit   string
		dropped bool
	}{{"", false}, {"pubsub 2mb 0 0", true}} {
		s := RunT(t)
		pub := redistest.Dial(t, s.Addr())
		if tc.limit != "" {
			if got, err := pub.Do("CONFIG", "SET", "client-output-buffer-limit", tc.limit); err != nil || string(got) != "+OK\r\n" {
				t.Fatalf("CONFIG SET: %q, %v", got, err)
			}
		}
		slow, err := net.Dial("tcp", s.Addr())
		if err != nil {
			t.Fatal(err)
		}
		defer slow.Close()
		slow.Write([]byte("SUBSCRIBE news\r\n"))
		waitFor(t, func() bool { return s.pubsubCount("news") == 1 })
		msg := strings.Repeat("m", 1<<20)
		for range 24 {
			if _, err := pub.Do("PUBLISH", "news", msg); err != nil {
				t.Fatal(err)
			}
		}
		got, err := pub.Do("PUBSUB", "NUMSUB", "news")
		want := "*2\r\n$4\r\nnews\r\n:1\r\n"
		if tc.dropped {
			want = "*2\r\n$4\r\nnews\r\n:0\r\n"
		}
		if err != nil || string(got) != want {
			t.Errorf("limit %q: PUBSUB NUMSUB after 24 MiB: %q, want %q", tc.limit, got, want)
		}
	}
}

func TestSlowSubscriberIsDropped(t *testing.T) {
	s := RunT(t)
	slow, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	want := "*3\r\n$9\r\nsubscribe\r\n$4\r\nnews\r\n:1\r\n"
	if _, err := slow.Write([]byte("SUBSCRIBE news\r\n")); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, len(want))
	slow.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadFull(slow, got); err != nil || string(got) != want {
		t.Fatalf("SUBSCRIBE: %q, %v", got, err)
	}
	// slow reads nothing more from here on.

	fast, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	fast.Write([]byte("SUBSCRIBE news\r\n"))
	drained := make(chan int64)
	go func() { n, _ := io.Copy(io.Discard, fast); drained <- n }()
	waitFor(t, func() bool { return s.pubsubCount("news") == 2 })

	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	pub := redistest.Dial(t, s.Addr())
	msg := strings.Repeat("m", 1<<20)
	const sends = 3 * pubsubHardLimit >> 20
	for i := range sends {
		start := time.Now()
		got, err := pub.Do("PUBLISH", "news", msg)
		if err != nil || (string(got) != ":2\r\n" && string(got) != ":1\r\n") {
			t.Fatalf("PUBLISH %d of %d: %q, %v", i+1, sends, got, err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Fatalf("PUBLISH %d took %v: the publisher waited on a subscriber", i+1, d)
		}
	}
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 3*pubsubHardLimit {
		t.Errorf("heap grew by %d MiB with a stalled subscriber, want at most %d MiB", grew>>20, 3*pubsubHardLimit>>20)
	}
	got, err = pub.Do("PUBSUB", "NUMSUB", "news")
	if err != nil || string(got) != "*2\r\n$4\r\nnews\r\n:1\r\n" {
		t.Fatalf("PUBSUB NUMSUB after the slow subscriber was dropped: %q, %v", got, err)
	}
	slow.SetReadDeadline(time.Now().Add(10 * time.Second))
	n, err := io.Copy(io.Discard, slow)
	if err != nil {
		t.Fatalf("the stalled subscriber was not disconnected (read %d bytes, then %v)", n, err)
	}
	if n >= int64(sends)<<20 {
		t.Fatalf("the slow subscriber received everything (%d bytes): never dropped", n)
	}
	fast.SetReadDeadline(time.Now().Add(2 * time.Second)) // ends the copy once all is in
	if n := <-drained; n < int64(sends)<<20 {
		t.Fatalf("the reading subscriber got %d bytes, want all %d messages", n, sends)
	}
}

// pubsubCount is PUBSUB NUMSUB channel, read on the owner.
func (s *Server) pubsubCount(channel string) (n int) {
	s.owner.Do(func() { n = len(s.pubsub.channels[channel]) })
	return n
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in 5s")
		}
		time.Sleep(time.Millisecond)
	}
}

// TestCloseWithParkedClient: a client parked in BLPOP does not hold up
// Close (it is not a batch in flight) and is disconnected by it.
func TestCloseWithParkedClient(t *testing.T) {
	s := RunT(t) // Close below; RunT's cleanup closes again, harmlessly
	c := redistest.Dial(t, s.Addr())
	if err := c.Send(redistest.Encode("BLPOP", "q", "0")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool {
		n := 0
		s.owner.Do(func() { n = s.blocking.parked })
		return n == 1
	})
	start := time.Now()
	s.Close()
	if d := time.Since(start); d > time.Second {
		t.Fatalf("Close took %v with a parked client", d)
	}
	if _, err := c.ReadReply(); err == nil {
		t.Fatal("the parked client got a reply instead of being disconnected")
	}
}

// TestSubscribeManyChannels: one SUBSCRIBE of 200,000 channels and a bare
// UNSUBSCRIBE cost a map operation per channel (a client's subscriptions
// are a set): both are answered, frame by frame, and nothing is left.
func TestSubscribeManyChannels(t *testing.T) {
	s := RunT(t)
	c := redistest.Dial(t, s.Addr())
	c.Timeout = time.Minute
	const n = 200000
	args := []string{"SUBSCRIBE"}
	for i := range n {
		args = append(args, "ch:"+strconv.Itoa(i))
	}
	if err := c.Send(redistest.Encode(args...)); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		got, err := c.ReadReply()
		if want := fmt.Sprintf("*3\r\n$9\r\nsubscribe\r\n$%d\r\nch:%d\r\n:%d\r\n", len("ch:"+strconv.Itoa(i)), i, i+1); err != nil || string(got) != want {
			t.Fatalf("frame %d: %q, %v", i, got, err)
		}
	}
	if err := c.Send(redistest.Encode("UNSUBSCRIBE")); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if _, err := c.ReadReply(); err != nil {
			t.Fatalf("unsubscribe frame %d: %v", i, err)
		}
	}
	if got, err := c.Do("PING"); err != nil || string(got) != "+PONG\r\n" {
		t.Fatalf("PING after: %q, %v", got, err)
	}
	left := -1
	s.owner.Do(func() { left = len(s.pubsub.channels) })
	if left != 0 {
		t.Fatalf("%d channels left in the server's table", left)
	}
}

// TestBLPOPManyKeys: a BLPOP naming 100,000 keys, one of them 100,000
// times over, parks and is woken and unparked in linear time.
func TestBLPOPManyKeys(t *testing.T) {
	s := RunT(t)
	c := redistest.Dial(t, s.Addr())
	c.Timeout = time.Minute
	args := []string{"BLPOP"}
	for i := range 100000 {
		args = append(args, "k:"+strconv.Itoa(i), "same")
	}
	args = append(args, "0")
	if err := c.Send(redistest.Encode(args...)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool {
		n := 0
		s.owner.Do(func() { n = s.blocking.parked })
		return n == 1
	})
	other := redistest.Dial(t, s.Addr())
	if got, err := other.Do("RPUSH", "same", "x"); err != nil || string(got) != ":1\r\n" {
		t.Fatalf("RPUSH: %q, %v", got, err)
	}
	if got, err := c.ReadReply(); err != nil || string(got) != "*2\r\n$4\r\nsame\r\n$1\r\nx\r\n" {
		t.Fatalf("BLPOP: %q, %v", got, err)
	}
	left := -1
	s.owner.Do(func() { left = len(s.blocking.byKey) })
	if left != 0 {
		t.Fatalf("%d keys still awaited", left)
	}
}

// TestQuitLeavesNoSubscription: once a subscriber's QUIT has been answered
// and its connection closed, another client's PUBSUB NUMSUB no longer
// counts it, on both edges (Redis frees the client before it reads the
// next command; on the goroutine edge the close reaches the owner after
// the client has seen it, so the subscription must go with the QUIT).
func TestQuitLeavesNoSubscription(t *testing.T) {
	for _, loop := range []bool{false, true} {
		s := RunT(t, Config{EventLoop: loop})
		probe := redistest.Dial(t, s.Addr())
		for i := range 200 {
			sub := redistest.Dial(t, s.Addr())
			if _, err := sub.Do("SUBSCRIBE", "a"); err != nil {
				t.Fatal(err)
			}
			if got, _ := sub.Do("QUIT"); string(got) != "+OK\r\n" {
				t.Fatalf("QUIT: %q", got)
			}
			if _, err := sub.Do("PING"); err == nil {
				t.Fatal("the connection stayed open after QUIT")
			}
			if got, _ := probe.Do("PUBSUB", "NUMSUB", "a"); string(got) != "*2\r\n$1\r\na\r\n:0\r\n" {
				t.Fatalf("event loop %v, round %d: PUBSUB NUMSUB a after the subscriber's QUIT: %q", loop, i, got)
			}
		}
	}
}
