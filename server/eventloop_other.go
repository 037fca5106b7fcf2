//go:build !linux

package server

import (
	"errors"
	"time"

	"github.com/minilock/minilock/server/internal/edge"
)

// The epoll edge is Linux's (eventloop_linux.go). Elsewhere Config.EventLoop
// is ignored and every connection has its own goroutine; these stubs keep
// the shared code free of build tags and are never called.

const eventLoopSupported = false

type eventLoop struct{}

func newEventLoop(*Server) (*eventLoop, error) {
	return nil, errors.New("server: the event loop needs Linux")
}

func (*eventLoop) Wait(time.Duration)          {}
func (*eventLoop) Wake()                       {}
func (*eventLoop) listen(*edge.Listener) error { return nil }
func (*eventLoop) close()                      {}
func (*eventLoop) closeAll()                   {}
func (*eventLoop) pendingOutput() bool         { return false }
func (*eventLoop) whileBusy()                  {}

type loopConn struct{}

func (*loopConn) outputQueued() {}
func (*loopConn) unparked()     {}
