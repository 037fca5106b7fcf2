package keyspace

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/minilock/minilock/expiry"
)

// chanPoller is a Poller made of a channel: what the server's event loop
// does with an eventfd and epoll_wait.
type chanPoller struct {
	wake  chan struct{}
	waits atomic.Int64
}

func (p *chanPoller) Wait(timeout time.Duration) {
	p.waits.Add(1)
	if timeout < 0 {
		<-p.wake
		return
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-p.wake:
	case <-t.C:
	}
}

func (p *chanPoller) Wake() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

func TestPollerRunsJobs(t *testing.T) {
	p := &chanPoller{wake: make(chan struct{}, 1)}
	k := New(Config{Poller: p})
	defer k.Close()
	for i := range 100 {
		var got int
		if err := k.DoFunc(func() { got = i }); err != nil || got != i {
			t.Fatalf("DoFunc %d: got %d, err %v", i, got, err)
		}
	}
	if p.waits.Load() == 0 {
		t.Fatal("the owner never waited in the poller")
	}
}

// A key falls due while the owner waits in the poller: the wait's timeout
// is the key's deadline, so active expiry deletes it without any job.
func TestPollerTimeoutIsNextDeadline(t *testing.T) {
	p := &chanPoller{wake: make(chan struct{}, 1)}
	k := New(Config{Poller: p})
	defer k.Close()
	k.DoFunc(func() { k.SetValue(0, "k", "v", 30*time.Millisecond) })
	deadline := time.Now().Add(2 * time.Second)
	for {
		var n int64
		k.DoFunc(func() { n = k.Stats().Expired })
		if n == 1 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the key was not expired actively")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A manual clock moved by another goroutine wakes the owner, which expires
// what fell due.
func TestPollerClockMoveWakes(t *testing.T) {
	p := &chanPoller{wake: make(chan struct{}, 1)}
	clock := expiry.NewManual(time.Now())
	k := New(Config{Poller: p, Clock: clock})
	k.DoFunc(func() { k.SetValue(0, "k", "v", time.Second) })
	clock.FastForward(2 * time.Second)
	deadline := time.Now().Add(2 * time.Second)
	for {
		var n int64
		k.DoFunc(func() { n = k.Stats().Expired })
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the moved clock did not expire the key")
		}
		time.Sleep(5 * time.Millisecond)
	}
	k.Close()
	if err := k.DoFunc(func() {}); err != ErrClosed {
		t.Fatalf("DoFunc after Close: %v, want ErrClosed", err)
	}
}
