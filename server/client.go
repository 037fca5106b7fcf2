package server

import (
	"net"
	"sort"
	"syscall"
	"time"

	"github.com/minilock/minilock/keyspace"
	"github.com/minilock/minilock/resp"
	"github.com/minilock/minilock/server/internal/acl"
	"github.com/minilock/minilock/server/internal/edge"
)

// client is one connection's session: what a Redis client is on the
// server (its database, authentication, name, MULTI queue, WATCH set,
// subscriptions, the command it is blocked in, CLIENT REPLY and NO-EVICT),
// beside its socket, the edge.Conn it embeds (the guard, the reply
// buffer, the batch being served). Its fields are read and written on the
// keyspace owner goroutine while a batch of its commands runs there (its
// own goroutine waits meanwhile), so they need no locks; the few
// exceptions say so.
type client struct {
	*edge.Conn
	call call // the command being executed; see execute
	srv  *Server
	id   int64
	born time.Time

	db      int
	name    string
	authed  bool
	user    *acl.User // the ACL user (acl.go); the default user's at first
	lastCmd string
	lastAt  time.Time

	multi   *multiState // non-nil between MULTI and EXEC/DISCARD
	watch   keyspace.Watch
	monitor bool
	pubsub  subscriptions  // channels and patterns (pubsub.go)
	track   clientTracking // CLIENT TRACKING (tracking.go)
	// pushed are the pub/sub frames in W.B that the running command did
	// not write as its reply: messages it published to c itself (directly,
	// from a script or in EXEC) and its (un)subscribe confirmations. They
	// are Redis's CLIENT_PUSHING output: a reply dropped after them (an
	// error, CLIENT REPLY OFF or SKIP) leaves them in place (dropReply).
	// Offsets into W.B, in order; only for the command running on the
	// owner (runBatch empties it around each one).
	pushed []span

	// parked is the blocking command c waits to finish (blocking.go);
	// owner goroutine only. bw receives its reply (the socket's
	// MustWait and Wake tell c's goroutine to wait for it).
	parked  *parked
	onOwner bool // c's batch is running on the owner (owner goroutine only)
	bw      resp.Writer

	// CLIENT NO-EVICT and CLIENT REPLY state (clientcmds.go). replySkip
	// is set while the command that SKIP drops runs, and until it does
	// (Redis's CLIENT_REPLY_SKIP: it drops MONITOR lines meanwhile too).
	noEvict                            bool
	replyOff, replySkipNext, replySkip bool
	// While replies are dropped (CLIENT REPLY OFF or SKIP), quietFrom is
	// where the dropped part of W.B began; quieted are the stretches of
	// the running command's output that CLIENT REPLY ON ended already (an
	// EXEC may switch replies off and on). They go when the command ends
	// (cutQuiet), all but their pub/sub frames: Redis drops a reply at the
	// moment it is written, so a transaction may lose its array header and
	// keep the replies after its CLIENT REPLY ON.
	quiet     bool
	quietFrom int
	quieted   []span
}

func newClient(s *Server, conn *edge.Guard) *client {
	c := &client{
		Conn: &edge.Conn{
			Guard: conn,
			Addr:  conn.RemoteAddr().String(),
			Done:  make(chan struct{}, 1),
			Wake:  make(chan struct{}, 1),
		},
		srv:    s,
		id:     s.nextID.Add(1) - 1,
		born:   time.Now(),
		authed: s.defaultNoPass(),
		user:   s.acl.def,
	}
	c.lastAt = c.born
	c.W.Proto = 2
	// A big reply is held in pieces of edge.ReplyChunk (resp.Writer.SpillAt).
	c.W.SpillAt = edge.ReplyChunk
	c.FD = -1
	if sc, ok := conn.Conn.(interface {
		SyscallConn() (syscall.RawConn, error)
	}); ok {
		c.FD = connFD(sc)
	}
	conn.SetAuthPending(!c.authed)
	if a := conn.LocalAddr(); a != nil {
		c.LAddr = a.String()
	}
	return c
}

// setAuthed records the outcome of AUTH, HELLO AUTH or RESET, and tells the
// frame guard whether Redis's tighter unauthenticated limits still apply.
func (c *client) setAuthed(ok bool) {
	c.authed = ok
	c.Guard.SetAuthPending(!ok)
}

// serveBatch runs c.Batch on the owner and waits for it. When a script has
// been running past busy-reply-threshold, the owner cannot take the batch:
// the connection then answers it itself (BUSY for most commands), as Redis
// keeps answering other clients during a long script.
func (s *Server) serveBatch(c *client) {
	for {
		busy := s.lua.BusyChan()
		switch err := s.owner.Submit(c, busy); err {
		case nil:
			<-c.Done
			return
		case edge.ErrBusy:
			select {
			case <-s.lua.BusyChan():
				s.serveWhileBusy(c)
				return
			default:
				// The script ended just now: try the owner again.
			}
		default: // keyspace closed: the server is shutting down
			c.CloseNow = true
			return
		}
	}
}

// Run executes the batch, from c.Next on, on the owner goroutine
// (edge.Job), and signals c's goroutine.
func (c *client) Run() {
	c.runBatch()
	c.Done <- struct{}{}
}

// runBatch executes the batch from c.Next on: the goroutine edge's Run, and
// what the event loop calls directly. It stops after QUIT, at a blocking
// command that parks c, at CLIENT PAUSE, and once the replies pass
// edge.ReplyChunk, leaving c.Next at the first command not run. Owner goroutine
// only.
func (c *client) runBatch() {
	c.onOwner = true
	defer func() { c.onOwner = false }() // only the owner reads it
	c.lastAt = time.Now()
	c.srv.batchStart()
	if c.Killed.Load() {
		c.CloseNow = true
		return
	}
	for c.Next < len(c.Batch) {
		args := c.Batch[c.Next].Args
		if paused, over, until := c.srv.pausedFor(c, args); paused {
			// CLIENT PAUSE: the connection waits, then runs the rest.
			c.PauseOver, c.PauseUntil = over, until
			break
		}
		// CLIENT REPLY OFF or SKIP: the command runs, its reply is
		// dropped (not the pub/sub frames among it).
		c.pushed, c.quieted = c.pushed[:0], c.quieted[:0]
		c.W.SpillAt = edge.ReplyChunk // see pin
		if c.replyOff || c.replySkip {
			c.quietStart()
		}
		c.srv.execute(c, args)
		if c.parked != nil {
			// Its answer, when it comes, too.
			c.parked.quiet = c.replyOff || c.replySkip
		}
		c.quietStop()
		c.cutQuiet()
		c.replySkip = false
		if c.replySkipNext {
			c.replySkipNext, c.replySkip = false, true
		}
		c.Next++
		if c.parked != nil {
			c.MustWait = true // the rest waits until it is answered
			break
		}
		if c.CloseNow {
			break // QUIT: what was pipelined after it is not executed
		}
		if c.W.Len()-c.Sent >= edge.ReplyChunk {
			break
		}
		if c.Next == len(c.Batch) && !c.OnLoop() && c.Reads == nil && c.PendingRead == nil && c.takeHeld() {
			continue
		}
	}
	c.srv.trackingTick() // BCAST's messages: Redis's beforeSleep
	if c.CloseNow {
		c.srv.endSession(c)
	}
	c.pushed = c.pushed[:0]
	// The batch's writes reach the AOF (and the disk, with appendfsync
	// always) before any of its replies leaves: here on the goroutine
	// edge, whose connection writes them as soon as the batch ends; once
	// for the iteration on the event loop (BeforeWrite).
	if !c.OnLoop() {
		c.srv.aofFlush()
	}
	c.NoteReplies(int64(c.W.Len()-c.Sent), c.lastAt.Unix())
	c.FlushToFeed()
	c.srv.ops.notePeakBuffers(c.lastAt.Unix(), c.InBytes, int64(c.W.Len()))
}

// takeHeld makes the batch the commands the guard already holds beyond it
// (it stops parsing after a RESET, and after each command while AUTH is
// pending), so that they run in this turn of the owner: Redis runs a
// client's whole query buffer before it serves another client, and a
// client woken meanwhile (a BLPOP served by this batch's LPUSH) must not
// run its pipeline between RESET and what follows it. The goroutine edge
// only (the event loop goes on the same way in serve), and only while no
// read made while parked is in flight: the connection's goroutine is
// waiting for this batch, so the guard is the owner's now.
func (c *client) takeHeld() bool {
	r, ok := c.Guard.Held()
	if !ok {
		return false
	}
	c.Batch, c.Args = r.Args(c.Batch[:0], c.Args[:0])
	c.Next = 0
	c.InBytes += int64(r.N)
	return len(c.Batch) > 0
}

// span is [from, to) in a buffer.
type span struct{ from, to int }

// dropReply drops what the running command wrote from start (an offset
// in c.W.Len's count) on, except the pub/sub frames (c.pushed), which move
// down to start in their order. Owner goroutine, while c's command runs.
func (c *client) dropReply(start int) {
	start -= c.spilled()
	if start < 0 {
		// The reply spilled since start, so nothing after start is
		// pinned (see pin): there are no frames to keep.
		c.W.Truncate(start + c.spilled())
		return
	}
	n := start
	for i, p := range c.pushed {
		if p.from < start {
			continue
		}
		m := copy(c.W.B[n:], c.W.B[p.from:p.to]) // n <= p.from: a move down
		c.pushed[i] = span{n, n + m}
		n += m
	}
	c.W.B = c.W.B[:n]
	// What is left of the stretches to drop: the frames, kept anyway.
	c.quietFrom = min(c.quietFrom, n)
	for i := range c.quieted {
		c.quieted[i] = span{min(c.quieted[i].from, n), min(c.quieted[i].to, n)}
	}
}

// quietStart and quietStop mark where in c.W.B replies stop and start
// being sent again (CLIENT REPLY OFF, SKIP, ON, RESET). Owner goroutine,
// while c's command runs.
func (c *client) quietStart() {
	if !c.quiet {
		c.quiet, c.quietFrom = true, len(c.W.B)
		c.pin()
	}
}

func (c *client) quietStop() {
	if c.quiet {
		c.quieted = append(c.quieted, span{c.quietFrom, len(c.W.B)})
		c.quiet = false
	}
}

// cutQuiet removes the stretches of c.W.B marked quieted, all but the
// pub/sub frames in them, once the command that wrote them has ended (no
// offset into the buffer is held any more).
func (c *client) cutQuiet() {
	if len(c.quieted) == 0 {
		return
	}
	b := c.W.B
	n := c.quieted[0].from // where the kept bytes go
	r := n                 // the first byte not looked at
	p := 0
	for _, q := range c.quieted {
		n += copy(b[n:], b[r:q.from])
		for ; p < len(c.pushed) && c.pushed[p].from < q.to; p++ {
			if c.pushed[p].from >= q.from {
				n += copy(b[n:], b[c.pushed[p].from:c.pushed[p].to])
			}
		}
		r = q.to
	}
	n += copy(b[n:], b[r:])
	c.W.B = b[:n]
	c.quieted = c.quieted[:0]
}

// replyStart is where the running command's own reply begins when it
// began writing at start (both in c.W.Len's count): past the pub/sub
// frames delivered to c before it wrote anything (a PUBLISH to itself, a
// script's).
func (c *client) replyStart(start int) int {
	off := c.spilled()
	start -= off
	if start < 0 {
		return start + off // spilled since: no frames (see pin)
	}
	for _, p := range c.pushed {
		if p.from == start {
			start = p.to
		}
	}
	return start + off
}

// spilled is how much of the reply c.W has moved out of c.W.B
// (resp.Writer.SpillAt).
func (c *client) spilled() int { return c.W.Len() - len(c.W.B) }

// pin stops c.W from spilling for the rest of the running command: the
// pub/sub frames and quiet stretches recorded in c.pushed and c.quieted
// are offsets into c.W.B, which a spill would move. runBatch lets it spill
// again at the next command. A big reply is held whole only in a command
// that published to its own client or switched its replies off.
func (c *client) pin() { c.W.SpillAt = 0 }

// pinned reports whether the running command has pinned c.W.
func (c *client) pinned() bool { return len(c.pushed) > 0 || c.quiet || len(c.quieted) > 0 }

// pushStart pins c.W (see pin) before a pub/sub frame is written to w, so
// that the frame stays in w.B, and returns where it begins there.
func (c *client) pushStart(w *resp.Writer) int {
	if w == &c.W && c.onOwner {
		c.pin()
	}
	return len(w.B)
}

// markPush records b[from:] as a pub/sub frame just written to c's reply
// buffer (see c.pushed). Frames written to another writer (none are:
// (UN)SUBSCRIBE are refused in scripts) need no record.
func (c *client) markPush(w *resp.Writer, from int) {
	if w == &c.W && c.onOwner {
		c.pushed = append(c.pushed, span{from, len(w.B)})
		c.pin()
	}
}

// needsCleanup reports whether a closed client left state on the owner.
func (c *client) needsCleanup() bool {
	return c.watch.Watching() || c.monitor || c.pubsub.count() > 0 || c.Feed != nil || c.track.flags != 0
}

// cleanup forgets a closed client's owner-side state. Owner goroutine only.
func (s *Server) cleanup(c *client) {
	s.endSession(c)
	if c.Feed != nil {
		c.Feed.Stop()
	}
}

// endSession drops what other clients can see of c: its watches, its
// MONITOR registration, its subscriptions and its tracking. A batch that
// ends in QUIT does it on the owner before the reply goes out, as Redis
// frees a client before it reads the next command: a client that saw the
// connection close and asks PUBSUB NUMSUB must not count it (on the
// goroutine edge the close itself reaches the owner later). Owner
// goroutine only.
func (s *Server) endSession(c *client) {
	s.ks.Unwatch(&c.watch)
	if c.monitor {
		s.removeMonitor(c)
	}
	s.unsubscribeAll(c)
	if c.track.flags != 0 {
		s.disableTracking(c)
	}
}

func sortClients(cs []*client) {
	sort.Slice(cs, func(i, j int) bool { return cs[i].id < cs[j].id })
}

// remoteHostIsLoopback reports whether the peer's address is 127.0.0.1 or
// ::1, the only two that Redis's protected mode lets in: it compares the
// address text (networking.c:clientAcceptHandler), so a client from
// 127.0.0.2, loopback as it is, gets -DENIED too (checked against
// redis-server 7.0.15).
func remoteHostIsLoopback(conn net.Conn) bool {
	a, ok := conn.RemoteAddr().(*net.TCPAddr)
	return ok && (a.IP.Equal(net.IPv4(127, 0, 0, 1)) || a.IP.Equal(net.IPv6loopback))
}

// Socket is c's connection (edge.Session).
func (c *client) Socket() *edge.Conn { return c.Conn }

// netHandler is the server as both edges see it (edge.Handler,
// edge.LoopHandler); a type of its own so that the handler's methods stay
// out of Server's API.
type netHandler Server

func (h *netHandler) Admit(ln *edge.Listener, g *edge.Guard) edge.Session {
	if c := (*Server)(h).admit(ln, g); c != nil {
		return c
	}
	return nil // not a nil *client in an interface
}

func (h *netHandler) Forget(sess edge.Session) { (*Server)(h).forget(sess.(*client)) }

func (h *netHandler) IdleTimeout() time.Duration { return (*Server)(h).idleTimeout() }

func (h *netHandler) Serve(sess edge.Session) { (*Server)(h).serveBatch(sess.(*client)) }

func (h *netHandler) Gone(sess edge.Session) bool {
	s, c := (*Server)(h), sess.(*client)
	gone := false
	return s.owner.Do(func() { gone = s.dropParked(c) }) != nil || gone
}

func (h *netHandler) Answered(sess edge.Session) { sess.(*client).takeParked() }

func (h *netHandler) RunBatch(sess edge.Session) { sess.(*client).runBatch() }

func (h *netHandler) ServeWhileBusy(sess edge.Session) { (*Server)(h).serveWhileBusy(sess.(*client)) }

func (h *netHandler) Parked(sess edge.Session) bool { return sess.(*client).parked != nil }

// BeforeWrite is edge.BeforeWriter: the AOF is written (and fsynced with
// appendfsync always) before the event loop writes the replies.
func (h *netHandler) BeforeWrite() { (*Server)(h).aofFlush() }
