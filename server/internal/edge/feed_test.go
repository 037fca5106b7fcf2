package edge

import (
	"net"
	"testing"
	"time"
)

// TestFeedSoftLimit: a feed past its soft limit for softFor is closed, as
// client-output-buffer-limit's soft limit closes a client; under it, or
// past it for less time, the feed lives.
func TestFeedSoftLimit(t *testing.T) {
	server, client := net.Pipe()
	defer client.Close()
	f := NewFeed(server, 1<<20, 100, 50*time.Millisecond)
	defer f.Stop()
	// Nobody reads client: what is pushed stays pending (or in flight).
	f.Push(make([]byte, 60))
	f.Push(make([]byte, 60)) // past soft: the clock starts
	f.mu.Lock()
	stopped := f.stopped
	f.mu.Unlock()
	if stopped {
		t.Fatal("closed as soon as it passed the soft limit")
	}
	time.Sleep(60 * time.Millisecond)
	f.Push(make([]byte, 1)) // still past soft, for longer than softFor
	f.mu.Lock()
	stopped = f.stopped
	f.mu.Unlock()
	if !stopped {
		t.Fatal("still open after being past the soft limit for longer than softFor")
	}
}
