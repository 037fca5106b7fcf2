package edge

import (
	"errors"
	"runtime"
	"sync"
	"time"

	"github.com/minilock/minilock/expiry"
)

// Job is work for the owner goroutine. Run is called on the owner; the
// goroutine that submitted the job learns of its end from Run itself (the
// server's connections signal a channel of their own, so a round trip
// allocates nothing).
type Job interface {
	Run()
}

// Due is what falls due with time, kept by the command layer: blocked
// clients' timeouts, key expiry, table compaction. The owner runs Tick
// between jobs, and waits no longer than Next.
type Due interface {
	// Tick runs what the clock (Unix ms) has passed, a bounded batch of
	// it, and reports whether more is due already: the owner then serves
	// waiting work before it ticks again.
	Tick(now int64) (more bool)
	// Next is the earliest deadline (Unix ms), if any.
	Next() (int64, bool)
}

// Waiter is the other way for the owner to wait: the epoll edge, which
// serves its sockets on the owner itself, as Redis's one thread does. With
// a Waiter the owner never selects on a channel; Submit and Do queue their
// job and call Wake.
type Waiter interface {
	// Wait serves what is ready and returns, waiting at most timeout for
	// something to become ready; a negative timeout waits until Wake. It
	// runs on the owner and may run commands (that is its point).
	Wait(timeout time.Duration)
	// Wake makes a Wait in progress, or the next one, return soon. Any
	// goroutine; it must not block.
	Wake()
}

// OwnerConfig configures an Owner.
type OwnerConfig struct {
	// Clock is the clock deadlines are on; a manual clock's moves wake the
	// owner. Nil means the real clock.
	Clock expiry.Clock
	// Due is ticked between jobs. Required.
	Due Due
	// Waiter, when set, is what the owner waits in (the epoll edge). Nil:
	// the owner waits on its job channel (the goroutine edge).
	Waiter Waiter
}

// ErrClosed is returned when work is handed to an owner that has stopped.
var ErrClosed = errors.New("edge: owner closed")

// ErrBusy is returned by Submit when the busy channel fired before the
// owner took the job.
var ErrBusy = errors.New("edge: owner busy")

// Owner is the one goroutine that touches the data. It runs jobs one at a
// time and, between them, what is due; that serial order is the whole
// atomicity story. There is one loop (loop) with two ways to wait: on a
// channel of jobs, or in a Waiter.
type Owner struct {
	clock  expiry.Clock
	moved  <-chan struct{} // clock.Moved(): nil for a clock that moves on its own
	due    Due
	waiter Waiter

	jobs  chan Job // the goroutine edge's hand-off
	queue jobQueue // the Waiter's inbox

	stop    chan struct{}
	stopped chan struct{}
	// timer and armed: the goroutine edge's wait for the next deadline,
	// and the deadline it is set for (0: none), so that a job that leaves
	// the deadline where it was does not reset the timer.
	timer *time.Timer
	armed int64
}

// NewOwner starts the owner goroutine. Close stops it.
func NewOwner(cfg OwnerConfig) *Owner {
	clock := cfg.Clock
	if clock == nil {
		clock = expiry.Real{}
	}
	o := &Owner{
		clock:   clock,
		moved:   clock.Moved(),
		due:     cfg.Due,
		waiter:  cfg.Waiter,
		jobs:    make(chan Job),
		stop:    make(chan struct{}),
		stopped: make(chan struct{}),
	}
	go o.loop()
	return o
}

// Submit hands j to the owner. It blocks until the owner accepts the job,
// not until the job finishes. It returns ErrBusy when busy fires first,
// which is how a connection stops waiting for an owner stuck in a long
// script; busy may be nil.
func (o *Owner) Submit(j Job, busy <-chan struct{}) error {
	if o.waiter != nil {
		return o.enqueue(j)
	}
	select {
	case o.jobs <- j:
		return nil
	case <-busy:
		return ErrBusy
	case <-o.stopped:
		return ErrClosed
	}
}

// Do runs f on the owner and waits for it: the way for embedders, tests
// and other goroutines of the server to read or change data safely. It
// must not be called from the owner itself.
func (o *Owner) Do(f func()) error {
	done := make(chan struct{})
	if err := o.Submit(funcJob{f, done}, nil); err != nil {
		return err
	}
	<-done
	return nil
}

type funcJob struct {
	f    func()
	done chan struct{}
}

func (j funcJob) Run() {
	defer close(j.done)
	j.f()
}

// Close stops the owner after the job it is running, if any.
func (o *Owner) Close() {
	select {
	case <-o.stop:
	default:
		close(o.stop)
	}
	if o.waiter != nil {
		o.waiter.Wake()
	}
	<-o.stopped
}

// loop is the owner goroutine: run what was handed over, tick what is
// due, wait until the next deadline or more work. Redis's aeMain, with
// beforeSleep's expiry cycle.
func (o *Owner) loop() {
	defer close(o.stopped)
	if o.waiter != nil {
		// The owner keeps one OS thread while it serves a Waiter, as
		// Redis's event loop is one thread: it sleeps only in epoll_wait,
		// and the scheduler no longer moves it from thread to thread each
		// time it comes back (under redis-benchmark -P 1 it ran on four
		// threads by turns).
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		defer o.closeQueue()
		o.forwardMoves()
	} else {
		o.timer = time.NewTimer(time.Hour)
		o.timer.Stop()
	}
	for {
		select {
		case <-o.stop:
			return
		default:
		}
		ran := o.runQueued()
		now := o.now()
		more := o.due.Tick(now)
		if ran || more {
			// Jobs may have queued more, or more is due: look, do not wait.
			o.wait(0)
			continue
		}
		next, ok := o.due.Next()
		if !ok {
			o.wait(-1)
			continue
		}
		// Due once the clock is past the deadline.
		o.waitUntil(next, max(time.Duration(next+1-now)*time.Millisecond, 0))
	}
}

func (o *Owner) now() int64 { return expiry.Millis(o.clock.Now()) }

// wait waits at most timeout (negative: until there is work).
func (o *Owner) wait(timeout time.Duration) {
	if o.waiter != nil {
		o.waiter.Wait(timeout)
		return
	}
	if timeout == 0 {
		select {
		case j := <-o.jobs:
			j.Run()
		default:
		}
		return
	}
	o.selectJob()
}

// waitUntil waits for the deadline next, timeout from now.
func (o *Owner) waitUntil(next int64, timeout time.Duration) {
	if o.waiter != nil {
		o.waiter.Wait(timeout)
		return
	}
	if next != o.armed {
		o.timer.Reset(timeout)
		o.armed = next
	}
	o.selectJob()
}

// selectJob is the goroutine edge's wait: a job, the timer, a clock move
// or stop. The timer may be armed for a deadline that went away: then it
// is one spurious wake-up.
func (o *Owner) selectJob() {
	select {
	case j := <-o.jobs:
		j.Run()
	case <-o.timer.C:
		o.armed = 0
	case <-o.moved:
	case <-o.stop:
	}
}

// forwardMoves wakes the Waiter when a manual clock moves, as selectJob's
// select does on the goroutine edge: a move may make keys due.
func (o *Owner) forwardMoves() {
	if o.moved == nil {
		return
	}
	go func() {
		for {
			select {
			case <-o.moved:
				o.waiter.Wake()
			case <-o.stop:
				return
			}
		}
	}()
}

// jobQueue is the owner's inbox when it waits in a Waiter: a slice under a
// mutex, swapped out whole by the owner so that taking n jobs costs one
// lock.
type jobQueue struct {
	mu     sync.Mutex
	jobs   []Job
	closed bool
	spare  []Job // the owner's: the slice it last drained, reused
}

// enqueue hands j to the owner and wakes it.
func (o *Owner) enqueue(j Job) error {
	q := &o.queue
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
		o.waiter.Wake()
	}
	return nil
}

// runQueued runs the queued jobs and reports whether there were any.
func (o *Owner) runQueued() bool {
	if o.waiter == nil {
		return false
	}
	q := &o.queue
	q.mu.Lock()
	jobs := q.jobs
	q.jobs = q.spare[:0]
	q.mu.Unlock()
	for i, j := range jobs {
		j.Run()
		jobs[i] = nil
	}
	q.spare = jobs
	return len(jobs) > 0
}

// closeQueue refuses further jobs and runs the ones queued before the
// close, so that no Do waits forever.
func (o *Owner) closeQueue() {
	q := &o.queue
	q.mu.Lock()
	q.closed = true
	jobs := q.jobs
	q.jobs = nil
	q.mu.Unlock()
	for _, j := range jobs {
		j.Run()
	}
}
