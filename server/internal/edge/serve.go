package edge

import (
	"log/slog"
	"net"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/tidwall/redcon"
)

// The goroutine edge: a goroutine per connection reads and parses, hands
// each read's commands to the command layer as one batch (Handler.Serve,
// which runs it on the owner and waits), and writes the replies it gets
// back.

// maxIdleArgs is the most arguments' room a connection keeps between
// batches (24 bytes each); after a bigger pipeline it is dropped.
const maxIdleArgs = 4096

// ReplyChunk bounds the replies one batch accumulates before they are
// written: past it, the owner stops running the batch, the connection
// writes what it has and then hands the owner the rest. A client that
// pipelines thousands of GETs of a big value and never reads therefore
// holds at most this much plus one command's reply in server memory, and
// blocks only its own goroutine; WriteTimeout then disconnects it.
const ReplyChunk = 64 << 10

// DefaultWriteTimeout is Config.WriteTimeout's zero value.
const DefaultWriteTimeout = 60 * time.Second

// Stats are the edge's counters, which INFO reports. Read and written
// from any goroutine.
type Stats struct {
	NetIn, NetOut atomic.Int64 // total_net_input_bytes, total_net_output_bytes
	Reads, Writes atomic.Int64 // total_reads_processed, total_writes_processed
}

// A Session is the command layer's state of one connection; Socket is
// the connection it belongs to.
type Session interface {
	Socket() *Conn
}

// Handler is the command layer as the goroutine edge sees it.
type Handler interface {
	// Admit registers a new connection read through g, or refuses it as
	// Redis would, closes it and returns nil.
	Admit(ln *Listener, g *Guard) Session
	// Forget closes a connection and drops its session.
	Forget(Session)
	// IdleTimeout is how long a connection may send nothing (CONFIG SET
	// timeout may change it at any time); 0 means forever.
	IdleTimeout() time.Duration
	// Serve runs the batch, from Conn.Next on, on the owner and waits for
	// it. It stops early (see Conn.MustWait, CloseNow, PauseOver, and
	// ReplyChunk), leaving Next at the first command not run.
	Serve(Session)
	// Gone drops, on the owner, the blocking command the batch stopped at
	// (MustWait), whose connection went away meanwhile; false when the
	// owner had answered it already (and signals Wake).
	Gone(Session) bool
	// Answered moves the answer of that command, once Wake has been
	// signalled, to Conn.W (unless the feed carried it).
	Answered(Session)
}

// LoopHandler is the command layer as the event loop (the epoll edge)
// sees it: the loop runs on the owner, so it runs batches itself.
type LoopHandler interface {
	Handler
	// RunBatch runs the batch from Conn.Next on, as Serve's job does on
	// the owner, stopping early in the same places.
	RunBatch(Session)
	// ServeWhileBusy answers the batch while a script runs past
	// busy-reply-threshold (BUSY for most commands), leaving nothing for
	// RunBatch to do.
	ServeWhileBusy(Session)
	// Parked reports whether the session waits in a blocking command.
	Parked(Session) bool
}

// BeforeWriter is what a LoopHandler may have besides: BeforeWrite runs
// on the owner before the loop writes to a connection. The loop writes
// every connection's replies at the end of an iteration, so the first
// call flushes what the whole iteration must have on disk before a reply
// leaves, as Redis's beforeSleep flushes the AOF before
// handleClientsWithPendingWrites; the others find nothing to do.
type BeforeWriter interface {
	BeforeWrite()
}

// Edge is the goroutine edge of one server, and what the event loop
// shares with it (the counters, Closing, the write timeout).
type Edge struct {
	H            Handler
	Log          *slog.Logger
	Stats        *Stats
	WriteTimeout time.Duration // negative: none
	// Closing is set once the server closes: no new batch runs.
	Closing atomic.Bool
	// Inflight counts the batches being served, which Close waits for.
	Inflight atomic.Int64
}

// Accept accepts ln's connections in the background, each served by
// ServeConn on its own goroutine, until ln stops accepting.
func (e *Edge) Accept(ln *Listener) {
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				if ln.Stopped() {
					return
				}
				// Out of file descriptors and the like: back off instead
				// of spinning on Accept, as net/http does.
				e.Log.Warn("accept", "err", err)
				time.Sleep(5 * time.Millisecond)
				continue
			}
			keepAliveConn(conn, ln.Limits.KeepAlive())
			go e.ServeConn(ln, NewLiveGuard(conn, ln.Limits))
		}
	}()
}

// ServeConn serves one connection until it closes: the guard reads complete
// commands, and handle runs each read's commands as one batch.
func (e *Edge) ServeConn(ln *Listener, g *Guard) {
	sess := e.H.Admit(ln, g)
	if sess == nil {
		return
	}
	defer e.H.Forget(sess)
	c := sess.Socket()
	deadline := false // a read deadline is set on conn
	for {
		// timeout may change at any time (CONFIG SET).
		if t := e.H.IdleTimeout(); t > 0 {
			g.SetReadDeadline(time.Now().Add(t))
			deadline = true
		} else if deadline {
			g.SetReadDeadline(time.Time{})
			deadline = false
		}
		cmds, err := c.nextRead()
		if err != nil {
			if c.Feed != nil && c.Guard.ProtocolError() != nil {
				// The replies before the bad frame, and its error, are
				// in the feed: they go out before the close.
				c.Feed.Drain(e.DrainTimeout())
			}
			return
		}
		if !e.handle(sess, c, cmds) {
			return
		}
	}
}

// nextRead returns the connection's next commands: those read while it
// was parked, the read then still running, or a new read.
func (c *Conn) nextRead() (Requests, error) {
	if r := c.PendingRead; r != nil {
		c.PendingRead = nil
		return r.Cmds, r.Err
	}
	if c.Reads != nil {
		r := <-c.Reads
		c.Reads = nil
		return r.Cmds, r.Err
	}
	return c.Guard.Commands()
}

// handle serves one read's worth of commands: the whole batch goes to the
// owner in one hand-off (several, when its replies pass ReplyChunk), and
// the replies go out in one write. It reports whether the connection stays
// open.
func (e *Edge) handle(sess Session, c *Conn, cmds Requests) bool {
	e.Inflight.Add(1)
	defer e.Inflight.Add(-1)
	if e.Closing.Load() {
		return false
	}
	e.Stats.Reads.Add(1)
	e.Stats.NetIn.Add(int64(cmds.N))
	c.InBytes = int64(cmds.N)
	c.Batch, c.Args = cmds.Args(c.Batch[:0], c.Args[:0])
	if len(c.Batch) == 0 {
		return true // only *0 frames, which Redis ignores
	}
	c.Next = 0
	for {
		e.H.Serve(sess)
		if c.MustWait {
			c.MustWait = false
			if !e.Write(c) || !e.waitUnparked(sess, c) {
				c.CloseNow = true
				break
			}
			if c.Next == len(c.Batch) {
				break
			}
			continue
		}
		if c.Next == len(c.Batch) || c.CloseNow {
			break
		}
		// The rest waits until this part's replies are on their way.
		if !e.Write(c) {
			c.CloseNow = true // the client stopped reading or went away
			break
		}
		if c.PauseOver != nil && !e.waitPause(c) {
			return false
		}
	}
	if c.Feed != nil {
		// The owner handed the replies to the feed. A feed may be quiet
		// for hours: its connection gets no write deadline (the feed has
		// its own limits).
		if !c.WriteBy.IsZero() {
			c.Guard.SetWriteDeadline(time.Time{})
			c.WriteBy = time.Time{}
		}
		if c.CloseNow {
			c.Feed.Drain(e.DrainTimeout())
		}
	} else if !e.Write(c) {
		c.CloseNow = true
	}
	c.EndBatch()
	return !c.CloseNow && !e.Closing.Load()
}

// waitUnparked waits, on the connection's goroutine, until the owner
// answers the command the batch stopped at, and appends the answer to the
// replies. A read stays open meanwhile so that a client that disconnects
// is noticed and forgotten; commands it pipelines meanwhile wait for
// their turn. It reports false when the connection is gone.
func (e *Edge) waitUnparked(sess Session, c *Conn) bool {
	c.ownRest()
	if c.Reads == nil && c.PendingRead == nil {
		c.Guard.SetReadDeadline(time.Time{}) // a parked client is not idle
		c.Reads = make(chan ReadResult, 1)
		go func(ch chan ReadResult) {
			cmds, err := c.Guard.Commands()
			ch <- ReadResult{Cmds: cmds, Err: err}
		}(c.Reads)
	}
	// A parked client is not a batch in flight: Close need not wait for it
	// (closing its connection ends the read below).
	e.Inflight.Add(-1)
	defer e.Inflight.Add(1)
	select {
	case <-c.Wake:
	case r := <-c.Reads:
		c.Reads = nil
		if r.Err != nil {
			if e.H.Gone(sess) {
				return false
			}
			<-c.Wake // the owner answered just before
			return false
		}
		c.PendingRead = &r
		<-c.Wake
	}
	e.H.Answered(sess)
	return true
}

// ownRest copies the arguments of the commands after the parked one: they
// point into the guard's buffer, which the next read reuses.
func (c *Conn) ownRest() {
	for j := c.Next; j < len(c.Batch); j++ {
		args := c.Batch[j].Args
		own := make([][]byte, len(args))
		for i, a := range args {
			own[i] = append([]byte(nil), a...)
		}
		c.Batch[j].Args = own
	}
}

// EndBatch records what the connection holds once a batch is done, and
// drops buffers too big to keep while idle.
func (c *Conn) EndBatch() {
	if cap(c.W.B) > MaxIdleBuffer && len(c.W.B) == 0 {
		c.W.B = nil // the event loop may still have replies to write
	}
	clear(c.Batch)
	clear(c.Args)
	if cap(c.Args) > maxIdleArgs {
		c.Batch, c.Args = nil, nil
	}
	// What a big reply spilled and the socket has not taken yet is
	// held too.
	spilled := int64(c.W.Len() - len(c.W.B))
	c.ReplyCap.Store(int64(cap(c.W.B)))
	c.HeldMem.Store(int64(cap(c.W.B)) + spilled + int64(cap(c.Args))*int64(unsafe.Sizeof([]byte(nil))) + int64(cap(c.Batch))*int64(unsafe.Sizeof(redcon.Command{})))
}

// DrainTimeout bounds how long a closing connection's feed may take to
// write what it holds.
func (e *Edge) DrainTimeout() time.Duration {
	if e.WriteTimeout > 0 {
		return e.WriteTimeout
	}
	return DefaultWriteTimeout
}

// Write sends the replies gathered so far, under the write deadline.
func (e *Edge) Write(c *Conn) bool {
	if c.W.Len() == 0 {
		return true
	}
	e.armWriteDeadline(c)
	var n int64
	var err error
	if len(c.W.Spilled) == 0 {
		var m int
		m, err = c.Guard.Write(c.W.B)
		n = int64(m)
	} else {
		bufs := net.Buffers(append(c.W.Spilled, c.W.B))
		n, err = bufs.WriteTo(c.Guard)
	}
	e.Stats.Writes.Add(1)
	e.Stats.NetOut.Add(n)
	c.W.Reset()
	return err == nil
}

// armWriteDeadline bounds the write of the replies about to be flushed by
// WriteTimeout. To spare a timer update per batch it re-arms only
// when less than half the timeout is left, so a client that stops reading
// is disconnected between WriteTimeout/2 and WriteTimeout after its last
// completed write.
func (e *Edge) armWriteDeadline(c *Conn) {
	if e.WriteTimeout < 0 {
		return
	}
	now := time.Now()
	if !c.WriteBy.IsZero() && c.WriteBy.Sub(now) > e.WriteTimeout/2 {
		return
	}
	c.WriteBy = now.Add(e.WriteTimeout)
	c.Guard.SetWriteDeadline(c.WriteBy)
}

// waitPause waits, on the connection's goroutine, for the CLIENT PAUSE
// that stopped c's batch to end; false if the server closes meanwhile.
func (e *Edge) waitPause(c *Conn) bool {
	over, until := c.PauseOver, c.PauseUntil
	c.PauseOver = nil
	// Close waits for batches in flight: look at closing now and then
	// rather than hold it up.
	const poll = 50 * time.Millisecond
	for !e.Closing.Load() && !c.Killed.Load() {
		left := time.Until(until)
		if left <= 0 {
			return true
		}
		t := time.NewTimer(min(left, poll))
		select {
		case <-over:
			t.Stop()
			return true
		case <-t.C:
		}
	}
	return false
}
