package keyspace

import (
	"runtime"
	"sync"
	"time"
)

// Poller is what the owner goroutine waits in when it serves more than
// jobs: the server's event loop on Linux, which reads and writes sockets on
// the owner itself, as Redis's one thread does. With a Poller the owner
// never selects on a channel. It runs the jobs other goroutines handed it,
// active expiry and the Timers, then calls Wait with the time until the
// next deadline; Submit and DoFunc queue their job under a mutex and call
// Wake, which must make a Wait in progress (or the next one) return soon.
//
// Wait runs on the owner and may run commands itself (that is its point);
// Wake may be called from any goroutine.
type Poller interface {
	// Wait serves what is ready and returns, waiting at most timeout for
	// something to become ready; a negative timeout waits until Wake.
	Wait(timeout time.Duration)
	// Wake makes Wait return. Any goroutine; it must not block.
	Wake()
}

// jobQueue is the owner's inbox when it waits in a Poller: a slice under a
// mutex, swapped out whole by the owner so that taking n jobs costs one
// lock.
type jobQueue struct {
	mu     sync.Mutex
	jobs   []Job
	closed bool
	spare  []Job // the owner's: the slice it last drained, reused
}

// enqueue hands j to the owner and wakes it.
func (k *Keyspace) enqueue(j Job) error {
	q := &k.queue
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return ErrClosed
	}
	q.jobs = append(q.jobs, j)
	first := len(q.jobs) == 1
	q.mu.Unlock()
	if first {
		// A queue that was not empty already woke the owner, which has
		// not taken it yet.
		k.poller.Wake()
	}
	return nil
}

// runJobs runs the queued jobs and reports whether there were any.
func (k *Keyspace) runJobs() bool {
	q := &k.queue
	q.mu.Lock()
	jobs := q.jobs
	q.jobs = q.spare[:0]
	q.mu.Unlock()
	for i, j := range jobs {
		j.Run(k)
		jobs[i] = nil
	}
	q.spare = jobs
	return len(jobs) > 0
}

// runPolled is run's twin for a keyspace with a Poller: the owner runs the
// queued jobs, the Timers and active expiry, then waits in the poller until
// the next deadline, a Wake or an event the poller serves.
//
// The owner keeps one OS thread (runtime.LockOSThread) while it serves a
// Poller, as Redis's event loop is one thread. It sleeps only in the
// poller's epoll_wait (and, briefly, on the job queue's mutex), so a
// thread of its own costs nothing, and the scheduler no longer moves it
// from thread to thread when it comes back from a blocking epoll_wait or a
// preemption: under redis-benchmark -P 1 it ran on four threads by turns.
func (k *Keyspace) runPolled() {
	defer close(k.stopped)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	defer func() {
		q := &k.queue
		q.mu.Lock()
		q.closed = true
		jobs := q.jobs
		q.jobs = nil
		q.mu.Unlock()
		// Jobs queued before the close still run, so no DoFunc waits
		// forever.
		for _, j := range jobs {
			j.Run(k)
		}
	}()
	moved := k.clock.Moved()
	if moved != nil {
		// A moved manual clock may make keys due: wake the owner, as run's
		// select does.
		go func() {
			for {
				select {
				case <-moved:
					k.poller.Wake()
				case <-k.stop:
					return
				}
			}
		}()
	}
	for {
		select {
		case <-k.stop:
			return
		default:
		}
		ran := k.runJobs()
		k.fireTimers()
		k.shrinkAll()
		more := k.index.Len() > 0 && k.sweep(k.Now()) == sweepBatch
		timeout := time.Duration(-1)
		if next, ok := k.nextDeadline(); ok {
			timeout = max(time.Duration(next+1-k.Now())*time.Millisecond, 0)
		}
		if ran || more {
			timeout = 0 // jobs may have queued more, or more keys are due
		}
		k.poller.Wait(timeout)
	}
}

// nextDeadline is the earliest of the next key expiry and the next Timers
// deadline.
func (k *Keyspace) nextDeadline() (int64, bool) {
	next, ok := k.index.Next()
	if k.index.Len() == 0 {
		ok = false
	}
	if k.timers != nil {
		if t, tok := k.timers.Next(); tok && (!ok || t < next) {
			next, ok = t, true
		}
	}
	return next, ok
}
