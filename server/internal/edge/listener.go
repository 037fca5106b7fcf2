package edge

import (
	"net"
	"sync"
	"sync/atomic"
)

// Listener is one listening socket and the frame limits of the
// connections it accepts.
type Listener struct {
	net.Listener
	Limits  *LiveLimits
	stop    sync.Once
	stopped atomic.Bool // see Stopped
	// OnStop, set by the event loop, closes the loop's own descriptor of
	// the socket.
	OnStop func()
}

// NewListener serves ln with the frame limits lim, which its connections
// read live (several listeners may share them).
func NewListener(ln net.Listener, lim *LiveLimits) *Listener {
	return &Listener{Listener: ln, Limits: lim}
}

// StopAccepting closes the socket so no new client can connect.
func (l *Listener) StopAccepting() {
	l.stop.Do(func() {
		l.stopped.Store(true)
		l.Listener.Close()
		if l.OnStop != nil {
			l.OnStop()
		}
	})
}

// Stopped reports whether StopAccepting has been called: a connection
// accepted meanwhile is turned away.
func (l *Listener) Stopped() bool { return l.stopped.Load() }
