package edge

import (
	"sync/atomic"
	"time"

	"github.com/tidwall/redcon"

	"github.com/minilock/minilock/resp"
)

// Conn is what a connection has as a socket: the guard that reads it, its
// addresses, the replies on their way out, the batch of commands read and
// not run yet, and what its goroutine waits on. The session a client has
// on the server (its database, authentication, MULTI, subscriptions ...)
// is the command layer's, which keeps a *Conn beside it.
//
// Its fields are read and written on the owner goroutine while a batch of
// the connection's commands runs there (the connection's own goroutine
// waits meanwhile), and on the connection's goroutine between batches, so
// they need no locks; the few exceptions say so.
type Conn struct {
	Guard *Guard
	Addr  string // the peer's address, for CLIENT LIST and MONITOR
	LAddr string
	FD    int // the socket's descriptor, for CLIENT LIST; -1 when unknown

	// W holds the replies of the batch being served; W.Proto is the
	// protocol. On the event loop it is the output buffer, and the first
	// Sent bytes of its first piece (W.Spilled[0], or W.B when nothing
	// spilled) are written already.
	W    resp.Writer
	Sent int
	// Feed, once set, carries all of the connection's output (feed.go):
	// MONITOR, pub/sub and replies alike. Set on the owner; the
	// connection's goroutine reads it after its batch.
	Feed *Feed

	// The batch handed to the owner, and the channel it signals when done.
	// Reused from batch to batch so a round trip allocates nothing. The
	// arguments are windows on the guard's buffer until the next read.
	Batch []redcon.Command
	Args  [][]byte // every argument of the batch; Batch[i].Args are windows on it
	Done  chan struct{}
	// Next is the index in Batch of the first command not run yet: the
	// owner stops early when the replies pass ReplyChunk.
	Next    int
	InBytes int64 // the size of the batch being served

	// CloseNow: close once the replies are out (QUIT, SHUTDOWN, a write
	// that failed).
	CloseNow bool
	// MustWait tells the connection's goroutine, after a batch, that it
	// stopped at a command that waits (a blocking command parked on the
	// owner); Wake signals it when that command is answered. PendingRead
	// and Reads are the connection's goroutine's: a read made meanwhile.
	MustWait    bool
	Wake        chan struct{}
	Reads       chan ReadResult
	PendingRead *ReadResult
	// PauseOver and PauseUntil: the batch stopped at a command that must
	// wait for CLIENT PAUSE to end.
	PauseOver  chan struct{}
	PauseUntil time.Time

	// WriteBy is the write deadline last set on the connection; zero when
	// none is set. Connection goroutine only.
	WriteBy time.Time
	// What the connection holds between batches, for CLIENT LIST and
	// INFO, written by its own goroutine: the reply buffer's capacity and
	// all its buffers together.
	ReplyCap, HeldMem atomic.Int64
	// replyPeak is CLIENT LIST's rbp: the most reply bytes one turn on
	// the owner produced, in the window that began at peakAt (Unix s).
	// Owner goroutine only.
	replyPeak, peakAt int64
	// Killed is set by CLIENT KILL: the connection is closed, and what it
	// had sent but not run yet does not run.
	Killed atomic.Bool

	// lc is the connection's state on the event loop (eventloop_linux.go);
	// nil on the goroutine edge.
	lc *loopConn
}

// peakWindow is how long rbp remembers a peak, as Redis's clientsCron
// resets buf_peak every 5 seconds.
const peakWindow = 5

// NoteReplies records that a turn on the owner produced n reply bytes, at
// Unix second now. Owner goroutine.
func (c *Conn) NoteReplies(n, now int64) {
	if now-c.peakAt >= peakWindow {
		c.replyPeak, c.peakAt = 0, now
	}
	c.replyPeak = max(c.replyPeak, n)
}

// ReplyPeak is rbp: the most reply bytes one turn produced in the last
// peakWindow seconds, 0 once they have passed. Owner goroutine.
func (c *Conn) ReplyPeak(now int64) int64 {
	if now-c.peakAt >= peakWindow {
		return 0
	}
	return c.replyPeak
}

// OnLoop reports whether the connection is served by the event loop.
func (c *Conn) OnLoop() bool { return c.lc != nil }

// Unparked tells the event loop that the command c's pipeline waited for
// has its answer in c.W (or c.Feed): the loop writes it and goes on with
// the pipeline. Owner goroutine; the event loop's connections only (the
// goroutine edge's wait on Wake).
func (c *Conn) Unparked() { c.lc.unparked() }

// StartFeed gives c a feed with the given limits, unless it has one.
// Owner goroutine only.
func (c *Conn) StartFeed(hard, soft int, softFor time.Duration) {
	if c.Feed == nil && c.lc != nil {
		c.Feed = NewLoopFeed(c.Guard, hard, soft, softFor, c.lc.outputQueued)
	} else if c.Feed == nil {
		c.Feed = NewFeed(c.Guard, hard, soft, softFor)
		c.Guard.ErrOut = c.Feed.Push
	}
}

// FlushToFeed moves the replies gathered so far into c's feed, if it has
// one, so they keep their place among the messages the owner queues for c.
// Owner goroutine only.
func (c *Conn) FlushToFeed() {
	if c.Feed == nil {
		return
	}
	for _, p := range c.W.Spilled {
		c.Feed.Push(p[c.Sent:])
		c.Sent = 0
	}
	if len(c.W.B) > c.Sent {
		c.Feed.Push(c.W.B[c.Sent:])
	}
	c.W.Reset()
	c.Sent = 0
}

// ReadResult is one guard read made while the connection waited.
type ReadResult struct {
	Cmds Requests
	Err  error
}
