//go:build !linux

package edge

import (
	"errors"
	"time"
)

// The epoll edge is Linux's (eventloop_linux.go). Elsewhere Config.EventLoop
// is ignored and every connection has its own goroutine; these stubs keep
// the shared code free of build tags and are never called.

// LoopSupported tells the server whether Config.EventLoop can be honoured.
const LoopSupported = false

// Loop is the epoll edge, which needs Linux.
type Loop struct{ Owner *Owner }

// NewLoop fails: the event loop needs Linux.
func NewLoop(*Edge, LoopHandler) (*Loop, error) {
	return nil, errors.New("server: the event loop needs Linux")
}

func (*Loop) Wait(time.Duration)     {}
func (*Loop) Wake()                  {}
func (*Loop) Listen(*Listener) error { return nil }
func (*Loop) Close()                 {}
func (*Loop) CloseAll()              {}
func (*Loop) PendingOutput() bool    { return false }
func (*Loop) WhileBusy()             {}

type loopConn struct{}

func (*loopConn) outputQueued() {}
func (*loopConn) unparked()     {}
