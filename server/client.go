package server

import (
	"net"
	"sort"
	"time"

	"github.com/tidwall/redcon"

	"github.com/minilock/minilock/keyspace"
	"github.com/minilock/minilock/resp"
)

// client is one connection's state. Its fields are read and written on the
// keyspace owner goroutine while a batch of its commands runs there (its own
// goroutine waits meanwhile), so they need no locks; the few exceptions say
// so.
type client struct {
	srv   *Server
	id    int64
	conn  redcon.Conn
	guard *guardConn
	addr  string
	laddr string
	born  time.Time

	db      int
	w       resp.Writer // replies of the batch being served; w.Proto is the protocol
	name    string
	authed  bool
	lastCmd string
	lastAt  time.Time

	multi   *multiState // non-nil between MULTI and EXEC/DISCARD
	watch   keyspace.Watch
	monitor bool
	feed    *monitorFeed // MONITOR's output, when monitor is set
	// feedStarted is only touched by the connection's goroutine.
	feedStarted bool
	closeNow    bool // QUIT or SHUTDOWN: close once the replies are out

	// The batch handed to the owner, and the channel it signals when done.
	// Reused from batch to batch so a round trip allocates nothing.
	batch []redcon.Command
	done  chan struct{}
}

func newClient(s *Server, conn redcon.Conn) *client {
	c := &client{
		srv:    s,
		id:     s.nextID.Add(1) - 1,
		conn:   conn,
		addr:   conn.RemoteAddr(),
		born:   time.Now(),
		authed: s.cfg.Password == "",
		done:   make(chan struct{}, 1),
	}
	c.lastAt = c.born
	c.w.Proto = 2
	nc := conn.NetConn()
	if g, ok := nc.(*guardConn); ok {
		c.guard = g
		g.SetAuthPending(!c.authed)
	}
	if a := nc.LocalAddr(); a != nil {
		c.laddr = a.String()
	}
	return c
}

// setAuthed records the outcome of AUTH, HELLO AUTH or RESET, and tells the
// frame guard whether Redis's tighter unauthenticated limits still apply.
func (c *client) setAuthed(ok bool) {
	c.authed = ok
	if c.guard != nil {
		c.guard.SetAuthPending(!ok)
	}
}

// maxIdleBuffer is the reply buffer a connection keeps between batches;
// a larger one (a big GET) is dropped rather than held while idle.
const maxIdleBuffer = 64 << 10

// handle serves one pipeline: redcon calls it for the first command it has
// read; the rest are taken with ReadPipeline, and the whole batch goes to
// the owner in one hand-off.
func (s *Server) handle(conn redcon.Conn, cmd redcon.Command) {
	c, ok := conn.Context().(*client)
	if !ok {
		conn.Close()
		return
	}
	s.inflight.Add(1)
	defer s.inflight.Add(-1)
	if s.closing.Load() {
		conn.Close()
		return
	}
	c.batch = append(c.batch[:0], cmd)
	c.batch = append(c.batch, conn.ReadPipeline()...)
	s.serveBatch(c)
	conn.WriteRaw(c.w.B)
	if c.feed != nil && !c.feedStarted {
		// MONITOR's +OK must reach the client before the first line.
		redcon.BaseWriter(conn).Flush()
		c.feedStarted = true
		c.feed.start()
	}
	if cap(c.w.B) > maxIdleBuffer {
		c.w.B = nil
	} else {
		c.w.B = c.w.B[:0]
	}
	clear(c.batch)
	if c.closeNow || s.closing.Load() {
		conn.Close() // flushes first
	}
}

// serveBatch runs c.batch on the owner and waits for it. When a script has
// been running past busy-reply-threshold, the owner cannot take the batch:
// the connection then answers it itself (BUSY for most commands), as Redis
// keeps answering other clients during a long script.
func (s *Server) serveBatch(c *client) {
	for {
		busy := s.lua.BusyChan()
		switch err := s.ks.Submit(c, busy); err {
		case nil:
			<-c.done
			return
		case keyspace.ErrBusy:
			select {
			case <-s.lua.BusyChan():
				s.serveWhileBusy(c)
				return
			default:
				// The script ended just now: try the owner again.
			}
		default: // keyspace closed: the server is shutting down
			c.closeNow = true
			return
		}
	}
}

// Run executes the batch on the owner goroutine (keyspace.Job).
func (c *client) Run(k *keyspace.Keyspace) {
	c.lastAt = time.Now()
	for i := range c.batch {
		c.srv.execute(c, c.batch[i].Args)
		if c.closeNow {
			break // QUIT: what was pipelined after it is not executed
		}
	}
	c.done <- struct{}{}
}

// needsCleanup reports whether a closed client left state on the owner.
func (c *client) needsCleanup() bool { return c.watch.Watching() || c.monitor }

// cleanup forgets a closed client's owner-side state. Owner goroutine only.
func (s *Server) cleanup(c *client) {
	s.ks.Unwatch(&c.watch)
	if c.monitor {
		s.removeMonitor(c)
	}
}

func sortClients(cs []*client) {
	sort.Slice(cs, func(i, j int) bool { return cs[i].id < cs[j].id })
}

// remoteHostIsLoopback reports whether the peer is on this machine.
func remoteHostIsLoopback(conn net.Conn) bool {
	a, ok := conn.RemoteAddr().(*net.TCPAddr)
	return ok && a.IP.IsLoopback()
}
