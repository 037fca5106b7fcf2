package edge

// The epoll edge: the owner goroutine serves the sockets itself, as Redis's
// one thread does (ae.c, networking.c). It is the owner's Waiter
// (Waiter): between jobs and what falls due the owner calls Wait,
// which is one iteration of the loop:
//
//  1. epoll_wait, level-triggered, for at most the time until the next key
//     or blocked-client deadline (the owner computes it), shorter when
//     the loop's own timers (idle timeout, stalled writers, CLIENT PAUSE,
//     the accept backoff) are due sooner; the eventfd wakes it when
//     another goroutine queues work (Do, Close, signals). A busy loop
//     finds events ready without waiting: it looks first with a zero
//     timeout (poll).
//  2. For each event: accept (up to maxAccepts) on a listener; on a
//     connection, write what EPOLLOUT lets through, then read once, parse
//     through the frame guard (every limit of the goroutine edge), and run
//     the complete commands at once (LoopHandler.RunBatch, what the
//     goroutine edge's job runs on the owner): no hand-off, no goroutine.
//  3. Resume the pipelines that may go on: clients unparked by a push,
//     unpaused, or whose output drained below ReplyChunk.
//  4. Write every connection that has output, once.
//
// Writes wait until the end of the iteration so that all the replies a
// connection's read produced, and whatever the iteration's PUBLISHes and
// wake-ups added, leave in one write(2), as Redis's beforeSleep
// handleClientsWithPendingWrites does. A write that cannot finish keeps its
// bytes in the connection's buffer and waits for EPOLLOUT; the loop never
// blocks on a socket. While that buffer holds ReplyChunk or more the
// connection's pipeline stops (nothing more is read or run for it), so a
// client that does not read holds at most ReplyChunk plus one command's
// reply; WriteTimeout without progress disconnects it.
//
// The reads, writes and zero-timeout epoll_waits are raw system calls
// (rawRead, rawWrite, epollReady): on non-blocking descriptors they never
// wait, so the runtime's entersyscall/exitsyscall around each, and sysmon
// waking thousands of times a second to watch an owner forever entering
// system calls, are cost for nothing. Only the epoll_wait that sleeps goes
// through the runtime, which lets the owner's P go meanwhile. The owner
// keeps one thread and yields now and then (yieldEvery).
//
// Connection state belongs to the owner: a connection is closed by marking
// it and queueing it, and torn down only at a point where no command of
// its is on the stack (reap).

import (
	"errors"
	"io"
	"net"
	"runtime"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// LoopSupported tells the server whether Config.EventLoop can be honoured.
const LoopSupported = true

// maxAccepts bounds the connections one listener event accepts, as Redis's
// MAX_ACCEPTS_PER_CALL, so a connection storm cannot starve the clients
// already connected.
const maxAccepts = 1000

// loopTick is how often the loop looks at its own timers (idle clients,
// stalled writers, pauses) while any are set; Redis's clientsCron runs at
// hz 10 too.
const loopTick = 100 * time.Millisecond

// minAcceptDelay and maxAcceptDelay bound how long the loop stops watching
// its listeners after accept failed for want of descriptors or memory
// (EMFILE, ENFILE, ENOBUFS, ENOMEM), doubling from one to the other as
// net/http's Server.Serve does: the listener is level-triggered, so
// watching it meanwhile would spin the owner on a connection it cannot
// take (Redis logs and spins).
const (
	minAcceptDelay = 5 * time.Millisecond
	maxAcceptDelay = time.Second
)

// Loop is the epoll edge of one server.
type Loop struct {
	e *Edge
	h LoopHandler
	// before is h's BeforeWrite, if it has one.
	before BeforeWriter
	// Owner is the owner goroutine the loop waits for (its Waiter): the
	// server sets it once both exist.
	Owner  *Owner
	epfd   int
	evfd   int
	events []unix.EpollEvent

	lns   map[int]*Listener // by the loop's own descriptor
	conns []*loopConn       // by descriptor
	gen   int32             // stamps each registration, against stale events (> 0)

	ready   []*loopConn // pipelines that may go on
	dirty   []*loopConn // connections with output to write
	closing []*loopConn // closed, to tear down at the next safe point
	paused  []*loopConn // waiting for CLIENT PAUSE to end
	stalled map[*loopConn]struct{}

	lastScan time.Time // of idle clients

	// now is the monotonic clock (nanotime) when this iteration's events
	// came in: the idle clock of the commands they bring.
	now int64

	// acceptDelay is the current accept backoff (0: accepting); while it
	// runs the listeners are out of the epoll set until acceptAt
	// (nanotime).
	acceptDelay time.Duration
	acceptAt    int64

	yielded int64 // nanotime of the owner's last yield
	sleptAt int64 // nanotime when this iteration's poll went to sleep; 0: it did not

	// current is the connection whose batch runs now; while a script of
	// its runs past busy-reply-threshold, WhileBusy leaves it alone.
	current  *loopConn
	busy     bool      // WhileBusy is serving
	busyPoll time.Time // WhileBusy's last poll: it polls once a millisecond at most
}

// NewLoop is the epoll edge of e, serving the sessions of h.
func NewLoop(e *Edge, h LoopHandler) (*Loop, error) {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, err
	}
	evfd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		unix.Close(epfd)
		return nil, err
	}
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(evfd)}
	if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, evfd, &ev); err != nil {
		unix.Close(epfd)
		unix.Close(evfd)
		return nil, err
	}
	l := &Loop{
		e: e, h: h, epfd: epfd, evfd: evfd,
		events:  make([]unix.EpollEvent, 256),
		lns:     map[int]*Listener{},
		stalled: map[*loopConn]struct{}{},
	}
	l.before, _ = h.(BeforeWriter)
	return l, nil
}

// listenerEvent stamps a listener's epoll events (a connection's carry its
// registration's gen, always positive), so that telling the two apart
// costs no map lookup per event.
const listenerEvent = -1

var one = [8]byte{1}

// Wake makes Wait return (Waiter). Any goroutine.
func (l *Loop) Wake() {
	for {
		_, err := unix.Write(l.evfd, one[:])
		if err != unix.EINTR {
			return // EAGAIN: the counter is already non-zero, Wait wakes
		}
	}
}

// Close releases the loop's descriptors once the owner has stopped.
func (l *Loop) Close() {
	for fd := range l.lns {
		unix.Close(fd)
	}
	unix.Close(l.evfd)
	unix.Close(l.epfd)
}

// Listen hands ln's socket to the loop: the loop accepts on a duplicate
// of its descriptor. Go's listener stays open but is never accepted on
// (closing it would unlink a Unix socket's path); StopAccepting closes
// both.
func (l *Loop) Listen(ln *Listener) error {
	fd, err := dupListener(ln.Listener)
	if err != nil {
		return err
	}
	ln.OnStop = func() {
		if l.Owner.Do(func() { l.unlisten(fd) }) != nil {
			unix.Close(fd) // the owner has stopped: close owns it now
		}
	}
	return l.Owner.Do(func() {
		if l.acceptAt != 0 {
			l.lns[fd] = ln // accepting is paused: resumeAccepting watches it
			return
		}
		ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(fd), Pad: listenerEvent}
		if err := unix.EpollCtl(l.epfd, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
			l.e.Log.Error("event loop: watching a listener", "err", err)
			return
		}
		l.lns[fd] = ln
	})
}

// dupListener returns a non-blocking duplicate of a TCP or Unix
// listener's socket.
func dupListener(ln net.Listener) (int, error) {
	tl, ok := ln.(interface {
		SyscallConn() (syscall.RawConn, error)
	})
	if !ok {
		return -1, errors.New("event loop: not a socket listener")
	}
	rc, err := tl.SyscallConn()
	if err != nil {
		return -1, err
	}
	fd := -1
	var derr error
	if err := rc.Control(func(s uintptr) {
		fd, derr = unix.FcntlInt(s, unix.F_DUPFD_CLOEXEC, 0)
	}); err != nil {
		return -1, err
	}
	if derr != nil {
		return -1, derr
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

// unlisten stops accepting on fd. Owner goroutine.
func (l *Loop) unlisten(fd int) {
	if _, ok := l.lns[fd]; ok {
		delete(l.lns, fd)
		// Connections the kernel completed but the loop has not accepted
		// yet would be reset by the close: accept them and close them, so
		// their clients see an orderly EOF, as if served and closed.
		for range maxAccepts {
			cfd, _, err := unix.Accept4(fd, unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC)
			if err != nil {
				break
			}
			unix.Close(cfd)
		}
		unix.Close(fd)
	}
}

// Wait is one iteration of the loop (Waiter); see the file's doc.
func (l *Loop) Wait(timeout time.Duration) {
	if len(l.ready) > 0 || len(l.closing) > 0 || len(l.dirty) > 0 {
		timeout = 0
	}
	if (len(l.paused) > 0 || len(l.stalled) > 0 || l.h.IdleTimeout() > 0) && (timeout < 0 || timeout > loopTick) {
		timeout = loopTick
	}
	if l.acceptAt != 0 {
		if d := time.Duration(max(l.acceptAt-nanotime(), 0)); timeout < 0 || timeout > d {
			timeout = d
		}
	}
	n := l.poll(timeout)
	l.now = nanotime()
	switch {
	case l.sleptAt != 0 && l.now-l.sleptAt >= int64(yieldEvery):
		// A rest, not a busy owner: a yield would only delay the
		// request that woke it (two thread wake-ups).
		l.yielded = l.now
	case l.now-l.yielded >= int64(yieldEvery):
		l.yield()
	}
	for i := 0; i < n; i++ {
		ev := l.events[i]
		fd := int(ev.Fd)
		switch {
		case fd == l.evfd:
			var b [8]byte
			rawRead(l.evfd, b[:])
		case ev.Pad == listenerEvent:
			if ln := l.lns[fd]; ln != nil {
				l.accept(fd, ln)
			}
		default:
			if lc := l.connFor(fd, ev.Pad); lc != nil {
				l.event(lc, ev.Events)
			}
		}
		l.reap()
	}
	l.resume()
	l.tick()
	l.flush()
	l.reap()
}

// yieldEvery is how often a busy owner yields its P (runtime.Gosched).
// The scheduler counts a goroutine that has not been rescheduled for 10 ms
// (forcePreemptNS) as hogging its P: sysmon then preempts it with a signal
// every 10 ms and, whenever it finds it in a blocking epoll_wait, takes its
// P away, which puts sysmon itself back to waking every 20 us. An owner
// that yields twice as often is never such a goroutine. It keeps its
// thread (keyspace's runPolled locks it), so a yield costs two thread
// wake-ups, a few hundred a second at most, and only while busy: an owner
// that slept that long in epoll_wait does not yield on waking.
const yieldEvery = 5 * time.Millisecond

// yield lets the scheduler reschedule the owner: see yieldEvery.
func (l *Loop) yield() {
	l.yielded = l.now
	runtime.Gosched()
}

// poll returns the number of events ready in l.events, waiting up to
// timeout (negative: until one comes) when none is ready yet.
//
// It first looks without waiting, through a raw system call: one that
// cannot block needs none of the runtime's entersyscall/exitsyscall
// bookkeeping, and a busy loop finds events ready nearly every time. Only
// when nothing is ready does it wait in epoll_wait through the runtime's
// syscall path, which lets the owner's P go while the thread sleeps.
func (l *Loop) poll(timeout time.Duration) int {
	l.sleptAt = 0
	n := epollReady(l.epfd, l.events)
	if n > 0 || timeout == 0 {
		return n
	}
	l.sleptAt = nanotime()
	ms := -1
	if timeout > 0 {
		ms = int((timeout + time.Millisecond - 1) / time.Millisecond)
	}
	n, err := unix.EpollWait(l.epfd, l.events, ms)
	if err != nil {
		if err != unix.EINTR {
			l.e.Log.Error("event loop: epoll_wait", "err", err)
		}
		return 0
	}
	return n
}

// epollReady is epoll_wait with a zero timeout, as a raw system call.
func epollReady(epfd int, events []unix.EpollEvent) int {
	// epoll_pwait with no signal mask is epoll_wait on every architecture
	// (arm64 has no epoll_wait).
	r, _, e := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(epfd),
		uintptr(unsafe.Pointer(&events[0])), uintptr(len(events)), 0, 0, 0)
	if e != 0 {
		return 0 // EINTR: the next iteration looks again
	}
	return int(r)
}

// accept takes the waiting connections of one listener.
func (l *Loop) accept(lfd int, ln *Listener) {
	for range maxAccepts {
		fd, sa, err := unix.Accept4(lfd, unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC)
		if err != nil {
			switch err {
			case unix.EAGAIN:
			case unix.EINTR, unix.ECONNABORTED:
				continue // that one is gone; the next may be there
			case unix.EMFILE, unix.ENFILE, unix.ENOBUFS, unix.ENOMEM:
				l.pauseAccepting(err)
			default:
				l.e.Log.Warn("accept", "err", err)
			}
			return
		}
		l.acceptDelay = 0
		unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
		keepAliveFD(fd, ln.Limits.KeepAlive())
		lc := &loopConn{l: l, fd: fd, raddr: sockAddr(sa)}
		if lsa, err := unix.Getsockname(fd); err == nil {
			lc.laddr = sockAddr(lsa)
		}
		sess := l.h.Admit(ln, NewLiveGuard(lc, ln.Limits))
		if sess == nil {
			continue // refused: Admit answered and closed it
		}
		c := sess.Socket()
		c.lc, c.FD, lc.c, lc.sess = lc, fd, c, sess
		if l.gen++; l.gen <= 0 {
			l.gen = 1 // wrapped: stay clear of listenerEvent
		}
		lc.gen = l.gen
		lc.lastRead = nanotime()
		lc.events = unix.EPOLLIN | unix.EPOLLRDHUP
		ev := unix.EpollEvent{Events: lc.events, Fd: int32(fd), Pad: lc.gen}
		if err := unix.EpollCtl(l.epfd, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
			l.e.Log.Error("event loop: watching a connection", "err", err)
			l.h.Forget(sess) // closes fd: lc is not registered yet
			continue
		}
		for fd >= len(l.conns) {
			l.conns = append(l.conns, nil)
		}
		l.conns[fd] = lc
		lc.registered = true
	}
}

// pauseAccepting takes the listeners out of the epoll set for the next
// backoff delay: accept failed for want of a resource, and a
// level-triggered listener would report the waiting connection again at
// once. tick puts them back.
func (l *Loop) pauseAccepting(err error) {
	if l.acceptDelay == 0 {
		l.acceptDelay = minAcceptDelay
	} else {
		l.acceptDelay = min(2*l.acceptDelay, maxAcceptDelay)
	}
	l.e.Log.Warn("accept", "err", err, "retrying in", l.acceptDelay)
	if l.acceptAt == 0 {
		for fd := range l.lns {
			unix.EpollCtl(l.epfd, unix.EPOLL_CTL_DEL, fd, nil)
		}
	}
	l.acceptAt = nanotime() + int64(l.acceptDelay)
}

// resumeAccepting watches the listeners again once the backoff is over.
func (l *Loop) resumeAccepting() {
	l.acceptAt = 0
	for fd := range l.lns {
		ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(fd), Pad: listenerEvent}
		if err := unix.EpollCtl(l.epfd, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
			l.e.Log.Error("event loop: watching a listener", "err", err)
		}
	}
}

// sockAddr is sa as the net package would report it.
func sockAddr(sa unix.Sockaddr) net.Addr {
	switch a := sa.(type) {
	case *unix.SockaddrInet4:
		return &net.TCPAddr{IP: net.IPv4(a.Addr[0], a.Addr[1], a.Addr[2], a.Addr[3]), Port: a.Port}
	case *unix.SockaddrInet6:
		ip := make(net.IP, net.IPv6len)
		copy(ip, a.Addr[:])
		zone := ""
		if a.ZoneId != 0 {
			if ifi, err := net.InterfaceByIndex(int(a.ZoneId)); err == nil {
				zone = ifi.Name
			}
		}
		return &net.TCPAddr{IP: ip, Port: a.Port, Zone: zone}
	case *unix.SockaddrUnix:
		return &net.UnixAddr{Name: a.Name, Net: "unix"}
	}
	return &net.UnixAddr{Net: "unix"} // an unnamed Unix socket's peer
}

// event serves one connection's readiness.
func (l *Loop) event(lc *loopConn, events uint32) {
	if lc.closed {
		return
	}
	if events&unix.EPOLLOUT != 0 {
		l.write(lc)
	}
	if lc.closed {
		return
	}
	if lc.reading() {
		if events&(unix.EPOLLIN|unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR) != 0 {
			l.read(lc)
		}
		return
	}
	switch {
	case events&(unix.EPOLLHUP|unix.EPOLLERR) != 0:
		lc.Close()
	case events&unix.EPOLLRDHUP != 0 && l.h.Parked(lc.sess):
		// The goroutine edge's read while parked sees EOF: the client is
		// gone, its blocking command is dropped.
		lc.Close()
	case events&unix.EPOLLRDHUP != 0:
		lc.rdhup = true // level-triggered: stop asking until it reads again
		l.update(lc)
	}
}

// read takes one read's commands from lc and runs them.
func (l *Loop) read(lc *loopConn) {
	cmds, ok, err := lc.c.Guard.TryCommands(true)
	l.serve(lc, cmds, ok, err)
}

// serve runs cmds (one read's complete commands) and then what the guard
// still holds, until the connection must wait: for input, for its output
// to drain, for a push, for a pause, or to close.
func (l *Loop) serve(lc *loopConn, cmds Requests, ok bool, err error) {
	c := lc.c
	for {
		if err != nil {
			if c.Guard.ProtocolError() == nil {
				lc.Close() // EOF, a reset
				return
			}
			// A protocol error's reply is queued (the query-buffer limit
			// has none): close once the output is out.
			lc.quit()
			return
		}
		if !ok {
			c.Guard.Release() // back to waiting for input
			return
		}
		// As the goroutine edge's read deadline, the idle clock times
		// whole commands: bytes trickling in do not reset it.
		lc.lastRead = l.now
		if l.e.Closing.Load() {
			lc.Close()
			return
		}
		l.e.Stats.Reads.Add(1)
		l.e.Stats.NetIn.Add(int64(cmds.N))
		c.InBytes = int64(cmds.N)
		c.Batch, c.Args = cmds.Args(c.Batch[:0], c.Args[:0])
		c.Next = 0
		if len(c.Batch) > 0 {
			lc.inBatch = true
			if l.busy {
				l.answerBusy(lc)
			}
			if !l.run(lc) {
				return
			}
		}
		cmds, ok, err = c.Guard.TryCommands(false)
	}
}

// run runs lc's batch from c.Next on, and reports whether it is done and
// the connection may take more input.
func (l *Loop) run(lc *loopConn) bool {
	c := lc.c
	for c.Next < len(c.Batch) {
		if l.e.Closing.Load() || lc.closed {
			lc.Close()
			return false
		}
		prev := l.current
		l.current = lc
		l.h.RunBatch(lc.sess)
		l.current = prev
		if c.MustWait {
			c.MustWait = false
			lc.parked = true
			l.outputQueued(lc)
			l.update(lc)
			return false
		}
		if c.PauseOver != nil {
			lc.pauseOver, lc.pauseUntil = c.PauseOver, c.PauseUntil
			c.PauseOver = nil
			l.paused = append(l.paused, lc)
			l.outputQueued(lc)
			l.update(lc)
			return false
		}
		if c.CloseNow {
			break
		}
		if c.Next < len(c.Batch) {
			// Past ReplyChunk: write now; go on only if that drained it.
			l.write(lc)
			if lc.closed {
				return false
			}
			if lc.pending() >= ReplyChunk {
				lc.waitOut = true
				l.update(lc)
				return false
			}
		}
	}
	lc.inBatch = false
	lc.lastRead = nanotime() // the batch may have run long
	c.EndBatch()
	l.outputQueued(lc)
	if c.CloseNow {
		lc.quit()
		return false
	}
	return true
}

// WhileBusy serves the sockets from inside a script that has run past
// busy-reply-threshold (luaeval.Config.WhileBusy), as Redis's
// processEventsWhileBlocked: one non-waiting poll, accepts, writes, and
// for the commands read, LoopHandler.ServeWhileBusy's answers (-BUSY but
// for AUTH, HELLO, QUIT, SCRIPT KILL, SHUTDOWN). The script's own
// connection is left alone: its reply is being built. Nothing here runs a
// command on the data.
func (l *Loop) WhileBusy() {
	if now := time.Now(); l.busy || now.Sub(l.busyPoll) < time.Millisecond {
		return
	} else {
		l.busyPoll = now
	}
	l.now = nanotime()
	l.busy = true
	defer func() { l.busy = false }()
	n := epollReady(l.epfd, l.events)
	for i := 0; i < n; i++ {
		ev := l.events[i]
		fd := int(ev.Fd)
		switch {
		case fd == l.evfd:
			// Jobs wait for the script, as on the goroutine edge; keep the
			// eventfd readable so that the owner looks at them after it.
		case ev.Pad == listenerEvent:
			if ln := l.lns[fd]; ln != nil {
				l.accept(fd, ln)
			}
		default:
			if lc := l.connFor(fd, ev.Pad); lc != nil && lc != l.current {
				l.event(lc, ev.Events)
			}
		}
	}
	l.flush()
	l.reap()
}

// answerBusy answers lc's batch (LoopHandler.ServeWhileBusy), leaving
// nothing for run to do but finish the batch.
func (l *Loop) answerBusy(lc *loopConn) {
	l.h.ServeWhileBusy(lc.sess)
}

// connFor is the connection an event is for, unless the event is stale.
func (l *Loop) connFor(fd int, gen int32) *loopConn {
	if fd < len(l.conns) && l.conns[fd] != nil && l.conns[fd].gen == gen {
		return l.conns[fd]
	}
	return nil
}

// resume goes on with the pipelines that were waiting and may now run.
func (l *Loop) resume() {
	for len(l.ready) > 0 {
		ready := l.ready
		l.ready = nil
		for _, lc := range ready {
			lc.queued = false
			if lc.closed || lc.waiting() {
				continue
			}
			if lc.inBatch && !l.run(lc) {
				continue
			}
			l.update(lc)
			// Input the guard already holds (read while the batch ran
			// is impossible, but a RESET or AUTH stop leaves some).
			cmds, ok, err := lc.c.Guard.TryCommands(false)
			l.serve(lc, cmds, ok, err)
		}
	}
}

// schedule queues lc for resume.
func (l *Loop) schedule(lc *loopConn) {
	if !lc.queued {
		lc.queued = true
		l.ready = append(l.ready, lc)
	}
}

// tick runs the loop's own timers: CLIENT PAUSE ending, writers stalled
// past WriteTimeout, idle clients past timeout, the accept backoff.
func (l *Loop) tick() {
	if l.acceptAt != 0 && nanotime() >= l.acceptAt {
		l.resumeAccepting()
	}
	idle := l.h.IdleTimeout()
	if len(l.paused) == 0 && len(l.stalled) == 0 && idle <= 0 {
		return
	}
	now := time.Now()
	if len(l.paused) > 0 {
		keep := l.paused[:0]
		for _, lc := range l.paused {
			over := false
			select {
			case <-lc.pauseOver:
				over = true
			default:
				over = !now.Before(lc.pauseUntil)
			}
			switch {
			case lc.closed:
			case over || lc.c.Killed.Load():
				lc.pauseOver = nil
				l.update(lc)
				l.schedule(lc)
			default:
				keep = append(keep, lc)
			}
		}
		clear(l.paused[len(keep):])
		l.paused = keep
	}
	if wt := l.e.WriteTimeout; wt > 0 {
		for lc := range l.stalled {
			if !lc.closed && now.Sub(lc.stallSince) >= wt {
				lc.Close()
			}
		}
	}
	if idle > 0 && now.Sub(l.lastScan) >= loopTick {
		l.lastScan = now
		mono := nanotime()
		for _, lc := range l.conns {
			if lc != nil && !lc.closed && lc.reading() && time.Duration(mono-lc.lastRead) >= idle {
				lc.Close()
			}
		}
	}
}

// flush writes every connection that has output.
func (l *Loop) flush() {
	dirty := l.dirty
	l.dirty = nil
	for _, lc := range dirty {
		lc.isDirty = false
		switch {
		case lc.closed:
		case lc == l.current:
			l.outputQueued(lc) // its reply is being built: after the script
		default:
			l.write(lc)
		}
	}
	clear(dirty)
	if l.dirty == nil {
		l.dirty = dirty[:0]
	}
}

// outputQueued notes that lc has output to write at the end of the
// iteration.
func (l *Loop) outputQueued(lc *loopConn) {
	if !lc.isDirty {
		lc.isDirty = true
		l.dirty = append(l.dirty, lc)
	}
}

// write writes what lc's output holds, without blocking, and keeps the
// rest for EPOLLOUT.
func (l *Loop) write(lc *loopConn) {
	if l.before != nil {
		// The first write of an iteration flushes for all of them.
		l.before.BeforeWrite()
	}
	c := lc.c
	var left, before int
	var err error
	if c.Feed != nil {
		c.FlushToFeed()
		before = c.Feed.Size()
		left, err = c.Feed.FlushTo(lc.writeNow)
	} else if c.W.Len() > c.Sent {
		before = c.W.Len() - c.Sent
		// The pieces a big reply spilled go first, each dropped once
		// written; never under a command that is writing them (its
		// error would truncate them).
		full := false
		for len(c.W.Spilled) > 0 && !lc.running() && !full && err == nil {
			p := c.W.Spilled[0]
			var n int
			n, err = lc.writeNow(p[c.Sent:])
			c.Sent += n
			if full = c.Sent < len(p); !full {
				c.W.DropSpilled()
				c.Sent = 0
			}
		}
		if len(c.W.Spilled) == 0 && !full && err == nil && len(c.W.B) > c.Sent {
			var n int
			n, err = lc.writeNow(c.W.B[c.Sent:])
			c.Sent += n
			switch {
			case c.Sent == len(c.W.B):
				c.W.B, c.Sent = c.W.B[:0], 0
			case c.Sent > len(c.W.B)/2 && !lc.running():
				// As feed.flushTo: past half, move the rest down; never
				// under a command that is appending to it.
				c.W.B, c.Sent = c.W.B[:copy(c.W.B, c.W.B[c.Sent:])], 0
			}
		}
		left = c.W.Len() - c.Sent
	}
	if before > 0 {
		l.e.Stats.Writes.Add(1)
		l.e.Stats.NetOut.Add(int64(before - left))
	}
	if err != nil {
		lc.Close()
		return
	}
	if left > 0 {
		if !lc.stalledNow || left < before {
			lc.stallSince = time.Now() // progress restarts WriteTimeout
		}
		if !lc.stalledNow {
			lc.stalledNow = true
			l.stalled[lc] = struct{}{}
		}
		l.update(lc)
		return
	}
	if lc.stalledNow {
		lc.stalledNow = false
		delete(l.stalled, lc)
	}
	if c.Feed == nil && cap(c.W.B) > MaxIdleBuffer && !lc.inBatch {
		c.W.B = nil
	}
	if lc.quitting {
		lc.Close()
		return
	}
	if lc.waitOut {
		lc.waitOut = false
		l.schedule(lc)
	}
	l.update(lc)
}

// update tells epoll what lc waits for now.
func (l *Loop) update(lc *loopConn) {
	if lc.closed {
		return
	}
	want := uint32(0)
	if lc.reading() {
		want |= unix.EPOLLIN | unix.EPOLLRDHUP
		lc.rdhup = false
	} else if !lc.rdhup {
		want |= unix.EPOLLRDHUP
	}
	if lc.stalledNow {
		want |= unix.EPOLLOUT
	}
	if want == lc.events {
		return
	}
	lc.events = want
	ev := unix.EpollEvent{Events: want, Fd: int32(lc.fd), Pad: lc.gen}
	if err := unix.EpollCtl(l.epfd, unix.EPOLL_CTL_MOD, lc.fd, &ev); err != nil {
		lc.Close()
	}
}

// reap tears down the connections closed since the last call. Owner
// goroutine, at a point where none of their commands is running.
func (l *Loop) reap() {
	var later *loopConn
	for len(l.closing) > 0 {
		closing := l.closing
		l.closing = nil
		for _, lc := range closing {
			if lc == l.current {
				later = lc // its script is running: torn down after it
				continue
			}
			l.teardown(lc)
		}
	}
	if later != nil {
		l.closing = append(l.closing, later)
	}
}

func (l *Loop) teardown(lc *loopConn) {
	if lc.fd < 0 {
		return
	}
	if lc.fd < len(l.conns) && l.conns[lc.fd] == lc {
		l.conns[lc.fd] = nil
	}
	delete(l.stalled, lc)
	unix.Close(lc.fd) // also takes it out of the epoll set
	lc.fd = -1
	l.h.Forget(lc.sess)
}

// PendingOutput reports whether a connection still holds replies it has
// not been able to write: Close lets them go out for up to drainTimeout, as
// the goroutine edge waits for batches in flight. Owner goroutine.
func (l *Loop) PendingOutput() bool {
	for _, lc := range l.conns {
		if lc == nil || lc.closed || lc.c == nil {
			continue
		}
		if c := lc.c; c.W.Len() > c.Sent || c.Feed != nil && c.Feed.Size() > 0 {
			return true
		}
	}
	return false
}

// CloseAll closes every connection, writing what each has pending if the
// socket takes it at once: Close and Restart. Owner goroutine.
func (l *Loop) CloseAll() {
	for _, lc := range l.conns {
		if lc != nil && !lc.closed {
			l.write(lc)
			lc.Close()
		}
	}
	l.reap()
}

// loopConn is a connection on the event loop: a net.Conn over a
// non-blocking socket whose every method runs on the owner goroutine.
// Read never waits (ErrWouldBlock); Write queues on the connection's
// output, which the loop writes; Close marks it for teardown.
type loopConn struct {
	l            *Loop
	c            *Conn
	sess         Session
	fd           int
	gen          int32
	raddr, laddr net.Addr
	registered   bool
	events       uint32 // what epoll watches for it

	closed     bool
	inBatch    bool // c.Batch has commands not run yet
	parked     bool // waiting for a push (a blocking command; see Conn.Unparked)
	waitOut    bool // its pipeline waits for its output to drain
	quitting   bool // close once the output is out (QUIT, protocol error)
	rdhup      bool // the peer shut its side while the loop was not reading
	queued     bool // in l.ready
	isDirty    bool // in l.dirty
	stalledNow bool // output left that the socket did not take
	pauseOver  chan struct{}
	pauseUntil time.Time
	stallSince time.Time
	lastRead   int64 // the idle clock (nanotime): the last command read or finished
}

// reading reports whether the loop takes lc's input now.
func (lc *loopConn) reading() bool {
	return !lc.inBatch && !lc.quitting && !lc.closed
}

// waiting reports whether lc's pipeline is held.
func (lc *loopConn) waiting() bool {
	return lc.parked || lc.pauseOver != nil || lc.waitOut || lc.quitting
}

// pending is the output not written yet.
func (lc *loopConn) pending() int {
	if lc.c.Feed != nil {
		return lc.c.Feed.Size()
	}
	return lc.c.W.Len() - lc.c.Sent
}

// running reports whether lc's command is on the stack (a script past the
// busy threshold, whose caller's reply buffer is in use).
func (lc *loopConn) running() bool { return lc == lc.l.current }

// outputQueued tells the loop lc has output (the feed's hook).
func (lc *loopConn) outputQueued() { lc.l.outputQueued(lc) }

// unparked resumes lc's pipeline after a push answered its blocking
// command (Conn.Unparked, on the owner).
func (lc *loopConn) unparked() {
	lc.parked = false
	lc.l.outputQueued(lc)
	lc.l.schedule(lc)
}

// quit closes lc once its output is written.
func (lc *loopConn) quit() {
	lc.quitting = true
	lc.inBatch = false
	lc.l.outputQueued(lc)
	lc.l.update(lc)
}

// writeNow writes b, as much as the socket takes now.
func (lc *loopConn) writeNow(b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := rawWrite(lc.fd, b[n:])
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			return n, nil
		case err != nil:
			return n, err
		}
		n += m
	}
	return n, nil
}

// Read reads what the socket holds without waiting.
func (lc *loopConn) Read(p []byte) (int, error) {
	for {
		n, err := rawRead(lc.fd, p)
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			return 0, ErrWouldBlock
		case err != nil:
			return 0, err
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

// Write queues b on the connection's output: the guard's protocol-error
// replies. Before the connection is registered (Admit refusing it) it is
// written at once, as much as the socket takes.
func (lc *loopConn) Write(b []byte) (int, error) {
	c := lc.c
	if c == nil || !lc.registered {
		return lc.writeNow(b)
	}
	if c.Feed != nil {
		c.Feed.Push(b)
	} else {
		c.W.B = append(c.W.B, b...)
	}
	lc.l.outputQueued(lc)
	return len(b), nil
}

// Close marks the connection closed; the loop tears it down at its next
// safe point. Owner goroutine.
func (lc *loopConn) Close() error {
	if !lc.registered {
		if lc.fd >= 0 {
			unix.Close(lc.fd)
			lc.fd = -1
		}
		return nil
	}
	if !lc.closed {
		lc.closed = true
		lc.l.closing = append(lc.l.closing, lc)
	}
	return nil
}

func (lc *loopConn) LocalAddr() net.Addr { return lc.laddr }

func (lc *loopConn) RemoteAddr() net.Addr { return lc.raddr }

// The deadlines are the loop's timers (tick), not the socket's.
func (lc *loopConn) SetDeadline(time.Time) error      { return nil }
func (lc *loopConn) SetReadDeadline(time.Time) error  { return nil }
func (lc *loopConn) SetWriteDeadline(time.Time) error { return nil }

// rawRead and rawWrite are read(2) and write(2) on a non-blocking socket
// as raw system calls: they never wait, so the runtime need not know the
// owner is in the kernel (entersyscall/exitsyscall cost more than a short
// read on loopback, and run twice a request at -P 1).
func rawRead(fd int, p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	r, _, e := unix.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}

func rawWrite(fd int, p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	r, _, e := unix.RawSyscall(unix.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}

// nanotime is the runtime's monotonic clock: half the cost of time.Now,
// which also reads the wall clock (server's stats.go has the same).
//
//go:linkname nanotime runtime.nanotime
func nanotime() int64
