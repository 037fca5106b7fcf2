package edge

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/minilock/minilock/expiry"
)

// chanWaiter is a Waiter made of a channel: what the epoll edge does with
// an eventfd and epoll_wait.
type chanWaiter struct {
	wake  chan struct{}
	waits atomic.Int64
}

func newChanWaiter() *chanWaiter { return &chanWaiter{wake: make(chan struct{}, 1)} }

func (w *chanWaiter) Wait(timeout time.Duration) {
	w.waits.Add(1)
	if timeout < 0 {
		<-w.wake
		return
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-w.wake:
	case <-t.C:
	}
}

func (w *chanWaiter) Wake() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// deadlines is a Due holding deadlines (Unix ms), as blocked clients' and
// keys' are: Tick drops the ones the clock has passed, at most batch of
// them per call.
type deadlines struct {
	mu    sync.Mutex // the test reads fired from its own goroutine
	at    []int64    // sorted
	fired int
	batch int
	ticks int
}

func (d *deadlines) Tick(now int64) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.ticks++
	n := 0
	for n < len(d.at) && d.at[n] < now && (d.batch == 0 || n < d.batch) {
		n++
	}
	d.at = d.at[n:]
	d.fired += n
	return d.batch > 0 && n == d.batch
}

func (d *deadlines) Next() (int64, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.at) == 0 {
		return 0, false
	}
	return d.at[0], true
}

func (d *deadlines) firedCount() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.fired
}

// waits are the owner's two ways to wait, for tests that must pass on both.
var waits = []struct {
	name   string
	waiter func() Waiter
}{
	{"channel", func() Waiter { return nil }},
	{"waiter", func() Waiter { return newChanWaiter() }},
}

func TestOwnerRunsJobsInOrder(t *testing.T) {
	for _, w := range waits {
		t.Run(w.name, func(t *testing.T) {
			o := NewOwner(OwnerConfig{Due: &deadlines{}, Waiter: w.waiter()})
			defer o.Close()
			var got []int
			var wg sync.WaitGroup
			for i := range 100 {
				// Do from one goroutine runs in order; jobs from others
				// interleave but each runs alone.
				if err := o.Do(func() { got = append(got, i) }); err != nil {
					t.Fatalf("Do %d: %v", i, err)
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					o.Do(func() { got = append(got, -1) })
				}()
			}
			wg.Wait()
			var mine []int
			for _, v := range got {
				if v >= 0 {
					mine = append(mine, v)
				}
			}
			if len(got) != 200 || len(mine) != 100 {
				t.Fatalf("ran %d jobs, %d of them in order, want 200 and 100", len(got), len(mine))
			}
			for i, v := range mine {
				if v != i {
					t.Fatalf("job %d ran as %d", i, v)
				}
			}
		})
	}
}

// A deadline falls due while the owner waits: its wait ends at the
// deadline, so what was due runs without any job.
func TestOwnerWakesAtNextDeadline(t *testing.T) {
	for _, w := range waits {
		t.Run(w.name, func(t *testing.T) {
			d := &deadlines{}
			o := NewOwner(OwnerConfig{Due: d, Waiter: w.waiter()})
			defer o.Close()
			o.Do(func() { d.at = []int64{expiry.Millis(time.Now()) + 30} })
			deadline := time.Now().Add(5 * time.Second)
			for d.firedCount() != 1 {
				if time.Now().After(deadline) {
					t.Fatal("the deadline was not run without a job")
				}
				time.Sleep(5 * time.Millisecond)
			}
		})
	}
}

// A manual clock moved by another goroutine wakes the owner, which runs
// what fell due.
func TestOwnerClockMoveWakes(t *testing.T) {
	for _, w := range waits {
		t.Run(w.name, func(t *testing.T) {
			clock := expiry.NewManual(time.Now())
			d := &deadlines{}
			o := NewOwner(OwnerConfig{Clock: clock, Due: d, Waiter: w.waiter()})
			o.Do(func() { d.at = []int64{expiry.Millis(clock.Now()) + 1000} })
			clock.FastForward(2 * time.Second)
			deadline := time.Now().Add(5 * time.Second)
			for d.firedCount() != 1 {
				if time.Now().After(deadline) {
					t.Fatal("the moved clock did not run what fell due")
				}
				time.Sleep(5 * time.Millisecond)
			}
			o.Close()
			if err := o.Do(func() {}); err != ErrClosed {
				t.Fatalf("Do after Close: %v, want ErrClosed", err)
			}
		})
	}
}

// When Tick reports more due work, the owner serves a waiting job before
// it ticks again: a million due deadlines in batches of 10 do not hold up a
// Do for the whole sweep.
func TestOwnerServesJobsBetweenBatches(t *testing.T) {
	for _, w := range waits {
		t.Run(w.name, func(t *testing.T) {
			clock := expiry.NewManual(time.Now())
			d := &deadlines{batch: 10}
			o := NewOwner(OwnerConfig{Clock: clock, Due: d, Waiter: w.waiter()})
			defer o.Close()
			var left int
			o.Do(func() {
				now := expiry.Millis(clock.Now())
				for i := range 1_000_000 {
					d.at = append(d.at, now+int64(i%100))
				}
			})
			clock.FastForward(time.Second)
			// Wait until the sweep has started, then hand over a job.
			for d.firedCount() == 0 {
				runtime.Gosched()
			}
			o.Do(func() { left = len(d.at) })
			if left == 0 {
				t.Fatal("the job waited for the whole sweep")
			}
		})
	}
}

// Submit gives up when busy fires before the owner takes the job: a
// connection's way out of waiting for an owner stuck in a long script.
func TestSubmitBusy(t *testing.T) {
	o := NewOwner(OwnerConfig{Due: &deadlines{}})
	defer o.Close()
	release := make(chan struct{})
	started := make(chan struct{})
	go o.Do(func() { close(started); <-release })
	<-started
	busy := make(chan struct{})
	close(busy)
	if err := o.Submit(funcJob{func() {}, make(chan struct{})}, busy); err != ErrBusy {
		t.Fatalf("Submit to a busy owner: %v, want ErrBusy", err)
	}
	close(release)
}

// signalJob is a job as a connection hands it over: a reusable, buffered
// done channel, so a round trip allocates nothing.
type signalJob struct{ done chan struct{} }

func (j *signalJob) Run() { j.done <- struct{}{} }

// benchHandoff measures one hand-off to the owner and the wait for its
// completion on the goroutine edge, from one goroutine or from 50 at once,
// the way connections hand over their pipelines. The commands' own cost is
// keyspace's benchmarks'; the epoll edge hands nothing over.
func benchHandoff(b *testing.B, parallel bool) {
	o := NewOwner(OwnerConfig{Due: &deadlines{}})
	defer o.Close()
	b.ReportAllocs()
	if !parallel {
		j := &signalJob{done: make(chan struct{}, 1)}
		for b.Loop() {
			if err := o.Submit(j, nil); err != nil {
				b.Fatal(err)
			}
			<-j.done
		}
		return
	}
	// 50 goroutines on the machine's GOMAXPROCS, as redis-benchmark -c 50.
	b.SetParallelism(max(1, 50/runtime.GOMAXPROCS(0)))
	b.RunParallel(func(pb *testing.PB) {
		j := &signalJob{done: make(chan struct{}, 1)}
		for pb.Next() {
			if err := o.Submit(j, nil); err != nil {
				b.Error(err)
				return
			}
			<-j.done
		}
	})
}

func BenchmarkHandoff(b *testing.B)           { benchHandoff(b, false) }
func BenchmarkHandoff_50clients(b *testing.B) { benchHandoff(b, true) }

// Do is the embedding API's hand-off: a closure and a fresh channel per
// call.
func BenchmarkHandoff_Do(b *testing.B) {
	o := NewOwner(OwnerConfig{Due: &deadlines{}})
	defer o.Close()
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		o.Do(func() { n++ })
	}
}
