package server

import (
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/minilock/minilock/internal/redistest"
)

// TestPublishToYourselfIsBounded runs a script that publishes 50 MB to its
// own RESP3 caller, on both edges. The frames go into the caller's reply
// buffer as the script runs (deliver), not through the feed, and still
// count against the pubsub output limit: past it the connection is
// closed, as Redis's client-output-buffer-limit closes it, and the heap
// does not grow with what the script goes on publishing.
func TestPublishToYourselfIsBounded(t *testing.T) {
	for _, loop := range []bool{true, false} {
		s := RunT(t, Config{EventLoop: loop})
		c := redistest.Dial(t, s.Addr())
		c.MustDo("HELLO", "3")
		if got := c.MustDo("CONFIG", "SET", "client-output-buffer-limit", "pubsub 1mb 0 0"); got != "+OK\r\n" {
			t.Fatalf("CONFIG SET: %q", got)
		}
		c.MustDo("SUBSCRIBE", "a")
		runtime.GC()
		var base runtime.MemStats
		runtime.ReadMemStats(&base)
		var peak atomic.Uint64
		stop := make(chan struct{})
		sampled := make(chan struct{})
		go func() {
			defer close(sampled)
			var m runtime.MemStats
			for {
				select {
				case <-stop:
					return
				case <-time.After(5 * time.Millisecond):
				}
				runtime.ReadMemStats(&m)
				if m.HeapAlloc > peak.Load() {
					peak.Store(m.HeapAlloc)
				}
			}
		}()
		c.MustSend(redistest.Encode("EVAL", "for i = 1, 50000 do redis.call('publish', 'a', ARGV[1]) end return 1", "0", strings.Repeat("m", 1024)))
		c.Timeout = 60 * time.Second
		out, err := c.ReadUntilEOF()
		close(stop)
		<-sampled
		t.Logf("event loop %v: peak heap growth %d MB, %d bytes before the close", loop, (int64(peak.Load())-int64(base.HeapAlloc))>>20, len(out))
		if grew := int64(peak.Load()) - int64(base.HeapAlloc); grew > 20<<20 {
			t.Errorf("event loop %v: the heap grew by %d MB while the script published 50 MB to its caller", loop, grew>>20)
		}
		if err != nil {
			t.Fatalf("event loop %v: still connected after 4 MB to itself (have %d bytes): %v", loop, len(out), err)
		}
		if len(out) > 1<<20 {
			t.Errorf("event loop %v: %d bytes sent past the 1 MB limit", loop, len(out))
		}
		other := redistest.Dial(t, s.Addr())
		waitFor(t, func() bool { return other.MustDo("PUBSUB", "NUMSUB", "a") == "*2\r\n$1\r\na\r\n:0\r\n" })
		if got := other.MustDo("PING"); got != "+PONG\r\n" {
			t.Fatalf("PING: %q", got)
		}
	}
}
