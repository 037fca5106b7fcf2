package server

import (
	"net"
	"sync"
	"sync/atomic"
)

// serverListener hands redcon guarded connections and lets Close drain:
// once stopAccepting has closed the socket, Accept holds its error back
// until release, because redcon closes every connection as soon as Accept
// fails, and replies still in flight must reach their clients first.
type serverListener struct {
	net.Listener
	limits   guardLimits
	stop     sync.Once
	stopped  atomic.Bool
	released chan struct{}
}

func newServerListener(ln net.Listener, lim guardLimits) *serverListener {
	return &serverListener{Listener: ln, limits: lim, released: make(chan struct{})}
}

// Accept returns the next connection, wrapped in the frame guard.
func (l *serverListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		if l.stopped.Load() {
			<-l.released
		}
		return nil, err // transient errors are redcon's AcceptError's to handle
	}
	return newGuardConn(c, l.limits), nil
}

// stopAccepting closes the socket so no new client can connect.
func (l *serverListener) stopAccepting() {
	l.stop.Do(func() {
		l.stopped.Store(true)
		l.Listener.Close()
	})
}

// release lets a failed Accept return, so redcon shuts the rest down.
func (l *serverListener) release() {
	l.stopAccepting()
	select {
	case <-l.released:
	default:
		close(l.released)
	}
}
