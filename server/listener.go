package server

import (
	"net"
	"sync"
	"sync/atomic"
)

// serverListener is one listening socket and the frame limits of the
// connections it accepts.
type serverListener struct {
	net.Listener
	limits  guardLimits
	stop    sync.Once
	stopped atomic.Bool
	// onStop, set by the event loop, closes the loop's own descriptor of
	// the socket.
	onStop func()
}

func newServerListener(ln net.Listener, lim guardLimits) *serverListener {
	return &serverListener{Listener: ln, limits: lim}
}

// stopAccepting closes the socket so no new client can connect.
func (l *serverListener) stopAccepting() {
	l.stop.Do(func() {
		l.stopped.Store(true)
		l.Listener.Close()
		if l.onStop != nil {
			l.onStop()
		}
	})
}
