package edge

import (
	"net"
	"sync"
	"time"
)

// A Feed is a connection's output once the owner may write to it at any
// moment, not only in answer to the connection's own commands: a MONITOR
// stream, pub/sub messages, keyspace notifications. The owner appends to
// the feed and never waits; the feed's own goroutine writes to the socket.
// Once a connection has a feed, every byte it is sent goes through it (the
// replies to its own commands too, appended by the owner at the end of each
// batch), so replies and messages reach the socket in exactly the order the
// owner produced them. Output produced for the connection whose own batch
// is running (it publishes to itself, or monitors itself) goes into its
// reply buffer instead, where its command has got to (the command layer
// puts it there), and reaches the feed with the batch's replies.
//
// A reader slower than the server is disconnected when what waits for it
// passes the feed's limits, as Redis's client-output-buffer-limit does: a
// hard limit at once, a soft limit once it has been exceeded for softFor
// without a break.
type Feed struct {
	conn net.Conn

	hard, soft int
	softFor    time.Duration

	mu        sync.Mutex
	pending   outQueue
	inflight  int       // bytes being written now, still counted against the limits
	overSince time.Time // when pending+inflight first passed soft; zero when under
	stopped   bool
	draining  bool          // write what is pending, then stop
	drained   chan struct{} // closed when run returns
	wake      chan struct{}
	// queued, on the event loop, tells the loop that pending has bytes to
	// write; such a feed has no goroutine (see FlushTo).
	queued func()
}

// NewFeed is a feed with its own goroutine writing to conn, cut off at
// the hard limit at once and at soft once past it for softFor.
func NewFeed(conn net.Conn, hard, soft int, softFor time.Duration) *Feed {
	f := &Feed{conn: conn, hard: hard, soft: soft, softFor: softFor, wake: make(chan struct{}, 1), drained: make(chan struct{})}
	go f.run()
	return f
}

// NewLoopFeed is a feed the event loop writes (FlushTo) instead of a
// goroutine of its own; queued tells the loop it has bytes to write.
func NewLoopFeed(conn net.Conn, hard, soft int, softFor time.Duration, queued func()) *Feed {
	return &Feed{conn: conn, hard: hard, soft: soft, softFor: softFor, wake: make(chan struct{}, 1), drained: make(chan struct{}), queued: queued}
}

// FlushTo writes what is pending with write, which must not block (the
// event loop's non-blocking socket write), keeps what it could not write,
// and returns how much that is. Owner goroutine only.
func (f *Feed) FlushTo(write func([]byte) (int, error)) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stopped || f.pending.size() == 0 {
		return 0, nil
	}
	err := f.pending.writeTo(write)
	return f.pending.size(), err
}

// Push queues b (copied) for the socket. Owner goroutine only; never blocks.
func (f *Feed) Push(b []byte) {
	if len(b) == 0 {
		return
	}
	f.mu.Lock()
	if f.stopped || f.cutOff(len(b)) {
		f.mu.Unlock()
		return
	}
	f.pending.push(b)
	f.mu.Unlock()
	if f.queued != nil {
		f.queued()
		return
	}
	f.signal()
}

// Admits reports whether n more bytes, held outside the feed for now (the
// output of the command that is running for the feed's own connection,
// which reaches the feed when its batch ends), keep the feed within its
// limits. When they do not, the feed stops and the connection closes, as
// in Push: a script publishing to its own caller in a loop is cut off at
// the same limit as a subscriber that does not read. Owner goroutine only.
func (f *Feed) Admits(n int) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return !f.stopped && !f.cutOff(n)
}

// cutOff reports whether n more bytes break the limits, and if so stops the
// feed and closes its connection. f.mu held.
func (f *Feed) cutOff(n int) bool {
	if !f.overLimit(f.pending.size() + f.inflight + n) {
		return false
	}
	f.stopped = true
	f.pending.reset()
	f.conn.Close() // the connection's goroutine (or the loop) notices and cleans up
	f.signal()
	return true
}

// overLimit reports whether a feed of n bytes breaks the limits. f.mu held.
func (f *Feed) overLimit(n int) bool {
	if f.hard > 0 && n > f.hard {
		return true
	}
	if f.soft <= 0 || n <= f.soft {
		f.overSince = time.Time{}
		return false
	}
	now := time.Now()
	if f.overSince.IsZero() {
		f.overSince = now
	}
	return now.Sub(f.overSince) >= f.softFor
}

// SetLimits changes the feed's limits (CONFIG SET
// client-output-buffer-limit applies to the clients already connected, as
// Redis checks server.client_obuf_limits at every write). The new limits
// are checked at the next byte queued. Any goroutine.
func (f *Feed) SetLimits(hard, soft int, softFor time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.hard, f.soft, f.softFor = hard, soft, softFor
}

// Size is the bytes waiting to be written (CLIENT LIST's omem).
func (f *Feed) Size() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.pending.size() + f.inflight
}

// Stop drops what is pending and stops the feed.
func (f *Feed) Stop() {
	f.mu.Lock()
	f.stopped = true
	f.pending.reset()
	f.mu.Unlock()
	f.signal()
}

// Drain writes what is pending and stops the feed, waiting at most d:
// QUIT's +OK and the replies before it still reach the client.
func (f *Feed) Drain(d time.Duration) {
	f.mu.Lock()
	f.draining = true
	f.mu.Unlock()
	f.signal()
	select {
	case <-f.drained:
	case <-time.After(d):
	}
}

func (f *Feed) signal() {
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

func (f *Feed) run() {
	defer close(f.drained)
	for range f.wake {
		f.mu.Lock()
		if f.stopped {
			f.mu.Unlock()
			return
		}
		f.inflight = f.pending.size()
		out := f.pending.take()
		last := f.draining
		if last {
			f.stopped = true
		}
		f.mu.Unlock()
		if len(out) > 0 {
			_, err := out.WriteTo(f.conn)
			f.mu.Lock()
			f.inflight = 0
			f.mu.Unlock()
			if err != nil {
				f.Stop()
				return
			}
		}
		if last {
			return
		}
	}
}
