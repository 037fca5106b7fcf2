package luaeval

import (
	"context"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/minilock/minilock/luaeval/internal/lauxlib"
	"github.com/minilock/minilock/luaeval/internal/seam"
	"github.com/minilock/minilock/resp"
)

// Run states (control.state). Only the owner goroutine moves a run out of
// stIdle and back; Kill moves stRunning to stKilled; the owner brackets each
// Host.Call with stInCall so a Kill cannot slip in between a write command
// running and the engine learning that it wrote.
const (
	stIdle    int32 = iota // no script
	stRunning              // a script runs and has not written
	stInCall               // inside Host.Call, write-ness not known yet
	stWrote                // the script has written: UNKILLABLE
	stKilled               // stopped by Kill / KillForShutdown / the memory watchdog
)

// Why a run was stopped (control.reason).
const (
	reasonKill int32 = iota + 1
	reasonShutdown
	reasonMemory
	reasonLoadTimeout // FUNCTION LOAD ran past LoadTimeout
)

var (
	errNotBusy    = &resp.Error{Code: "NOTBUSY", Msg: "No scripts in execution right now."}
	errUnkillable = &resp.Error{Code: "UNKILLABLE", Msg: "Sorry the script already executed write commands against the dataset. You can either wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command."}
)

// control is the part of the engine other goroutines touch: run state,
// kill channel, busy channel and the watchdog goroutine.
//
// The owner goroutine pays two atomic stores per run and one CAS pair per
// redis.call; the mutex is only taken on the rare paths (a kill, a busy
// script).
type control struct {
	e     *Engine
	state atomic.Int32
	// gen is odd while a script runs and even between runs; the watchdog
	// uses it to tell one run from the next.
	gen    atomic.Uint64
	reason atomic.Int32
	// isFunc says the run is a function's (FCALL), not an EVAL script's:
	// SCRIPT KILL and FUNCTION KILL each stop only their own kind.
	isFunc atomic.Bool

	mu       sync.Mutex
	killCh   chan struct{} // closed to stop the current run; replaced after
	busyCh   chan struct{}
	busyShut bool        // busyCh is closed
	busyFlag atomic.Bool // the watchdog may have closed busyCh
	parked   atomic.Bool // the watchdog sleeps until a run starts
	wake     chan struct{}
	done     chan struct{}
	stopped  chan struct{}
	heapLast atomic.Uint64 // last heap sample (bytes), for collectgarbage("count")
	growth   atomic.Int64  // the current run's heap growth at the last sample
	// idleHeap is the heap, the data excluded, at the watchdog's last
	// sample between runs; sampled says the watchdog has seen the current
	// run (it has lasted a tick); heapNow reads the heap as a run ends
	// (owner goroutine). See madeGarbage.
	idleHeap atomic.Int64
	sampled  atomic.Bool
	heapNow  []metrics.Sample
	// ccalls counts each thread's nested C-boundary calls (lauxlib.EnterC)
	// in the current run; owner goroutine only. Most runs have one thread:
	// its count is first (of thread firstL), outside the map, and the last
	// thread asked for is remembered, so a run costs no allocation and no
	// map operation, and EnterC/LeaveC no lookup.
	ccalls map[*lua.LState]*lauxlib.CCount
	firstL *lua.LState
	first  lauxlib.CCount
	lastL  *lua.LState
	lastN  *lauxlib.CCount
	ticks  uint32 // polls of Done; owner goroutine only
	// servePolls is how many polls of Done make busyServeEvery
	// instructions.
	servePolls uint32
	tick       time.Duration
	threshold  atomic.Int64 // busy-reply-threshold in ns: CONFIG SET changes it while the monitor reads it
	memLimit   int64
}

func (c *control) init(e *Engine) {
	c.e = e
	c.ccalls = make(map[*lua.LState]*lauxlib.CCount)
	c.heapNow = []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	c.killCh = make(chan struct{})
	c.busyCh = make(chan struct{})
	c.wake = make(chan struct{}, 1)
	c.done = make(chan struct{})
	c.stopped = make(chan struct{})
	c.threshold.Store(int64(e.cfg.BusyThreshold))
	c.servePolls = uint32(max(busyServeEvery/seam.PollInterval(), 1))
	c.memLimit = e.cfg.MemoryLimit
	c.tick = c.tickFor()
}

// tickFor is the monitor's sampling period for the threshold now in force:
// every few ms keeps BUSY late by at most a tick and stops a runaway
// allocation after a few ms of growth.
func (c *control) tickFor() time.Duration {
	tick := 5 * time.Millisecond
	if t := time.Duration(c.threshold.Load()) / 4; t < tick {
		tick = max(t, time.Millisecond)
	}
	return tick
}

// begin marks the start of a run (owner goroutine), a function's (FCALL)
// when fn.
//
// A store that would not change its value is skipped: a load costs
// nothing on the owner, a sequentially consistent store a locked
// instruction, and skipping one is the store done at the load (whatever
// another goroutine stores later is ordered after it either way). Only
// state and gen, which announce the run, are always written, after the
// others. isFunc keeps its value between runs (each run sets its own
// kind before it starts): it is read only while a run is in progress.
func (c *control) begin(fn bool) {
	c.dropThreads()
	if c.reason.Load() != 0 {
		c.reason.Store(0)
	}
	if c.growth.Load() != 0 {
		c.growth.Store(0)
	}
	if c.sampled.Load() {
		c.sampled.Store(false)
	}
	if c.isFunc.Load() != fn {
		c.isFunc.Store(fn)
	}
	c.state.Store(stRunning)
	c.gen.Add(1)
	if c.parked.Load() && c.parked.CompareAndSwap(true, false) {
		select {
		case c.wake <- struct{}{}:
		default:
		}
	}
}

// end marks the end of a run (owner goroutine).
func (c *control) end() {
	c.dropThreads()
	old := c.state.Swap(stIdle)
	c.gen.Add(1)
	if old == stKilled {
		c.mu.Lock()
		c.killCh = make(chan struct{})
		c.mu.Unlock()
	}
	if c.busyFlag.Load() {
		c.mu.Lock()
		if c.busyShut {
			c.busyCh = make(chan struct{})
			c.busyShut = false
		}
		c.busyFlag.Store(false)
		c.mu.Unlock()
	}
}

// dropThreads forgets the run's C-call counts, which name its coroutines,
// so that what a script left behind is garbage as soon as it ends (owner
// goroutine).
func (c *control) dropThreads() {
	if len(c.ccalls) > 0 {
		clear(c.ccalls)
	}
	c.firstL, c.lastL, c.lastN = nil, nil, nil
}

// enterCall is called before Host.Call; false means the run was stopped and
// the command must not run.
func (c *control) enterCall() bool {
	if c.state.CompareAndSwap(stRunning, stInCall) {
		return true
	}
	return c.state.Load() == stWrote
}

// leaveCall is called after Host.Call with what it returned.
func (c *control) leaveCall(wrote bool) {
	if wrote {
		c.state.CompareAndSwap(stInCall, stWrote)
	} else {
		c.state.CompareAndSwap(stInCall, stRunning)
	}
}

// killed reports whether the current run was stopped.
func (c *control) killed() bool { return c.state.Load() == stKilled }

// interrupted is killed as the compiler polls it (luac.Options.Interrupt),
// every thousand tokens: a compile counts as running, so once busy it lets
// Config.WhileBusy serve other clients too.
func (c *control) interrupted() error {
	c.whileBusy()
	if c.killed() {
		return errScriptKilled
	}
	return nil
}

// kill implements SCRIPT KILL (force=false) and SHUTDOWN NOSAVE / the memory
// watchdog (force=true).
func (c *control) kill(force bool) error {
	reason := reasonKill
	if force {
		reason = reasonShutdown
	}
	return c.stopRun(force, reason, 0)
}

// killKind is SCRIPT KILL (fn false) or FUNCTION KILL (fn true): each
// refuses to stop the other kind of run, with that kind's BUSY reply, once
// NOTBUSY and UNKILLABLE have been ruled out (script.c:scriptKill).
func (c *control) killKind(fn bool) error {
	return c.stopRunKind(false, reasonKill, 0, fn)
}

// stopRun stops the current run. With gen != 0 it only stops that run.
func (c *control) stopRun(force bool, reason int32, gen uint64) error {
	return c.stopRunKind(force, reason, gen, false)
}

func (c *control) stopRunKind(force bool, reason int32, gen uint64, fn bool) error {
	for {
		c.mu.Lock()
		if gen != 0 && c.gen.Load() != gen {
			c.mu.Unlock()
			return errNotBusy
		}
		s := c.state.Load()
		switch {
		case s == stIdle:
			c.mu.Unlock()
			return errNotBusy
		case s == stKilled:
			c.mu.Unlock()
			return nil
		case s == stWrote && !force:
			c.mu.Unlock()
			return errUnkillable
		case s == stInCall && !force:
			// The command being run decides: wait for it (commands take
			// microseconds).
			c.mu.Unlock()
			time.Sleep(20 * time.Microsecond)
			continue
		case !force && c.isFunc.Load() != fn:
			c.mu.Unlock()
			if fn {
				return resp.ErrBusy
			}
			return ErrBusyFunction
		}
		if !c.state.CompareAndSwap(s, stKilled) {
			c.mu.Unlock()
			continue
		}
		c.reason.Store(reason)
		close(c.killCh)
		c.mu.Unlock()
		return nil
	}
}

func (c *control) busyChan() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.busyCh
}

func (c *control) stop() {
	close(c.done)
	<-c.stopped
}

// memSample is what the watchdog reads of memory: the heap's objects (live
// and garbage not yet collected), the live heap as the last collection
// marked it, GOGC, and the data's bytes (Config.DataBytes).
type memSample struct {
	heap, live, gogc, data int64
}

// overLimit reports whether a run that started at base holds more than
// limit bytes of memory beyond the data it wrote: either alive at the last
// collection, or in the heap now, garbage included, past what the
// collector leaves uncollected of everything else (GOGC percent of the
// rest of the live heap: on a large dataset that garbage is the
// collector's, not the script's).
func (now memSample) overLimit(base memSample, limit int64) (growth int64, over bool) {
	data := now.data - base.data
	live := now.live - base.live - data
	total := now.heap - base.heap - data
	rest := now.live - max(live, 0)
	slack := rest * now.gogc / 100
	return max(live, 0), live > limit || total > limit+slack
}

// monitor is the watchdog goroutine. While scripts run it wakes every tick:
// it closes the busy channel once a run has lasted BusyThreshold and stops a
// run that holds more than MemoryLimit (see memSample.overLimit). After a
// second without scripts it parks until the next run starts, so an idle
// server does no work.
func (c *control) monitor() {
	defer close(c.stopped)
	samples := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/heap/live:bytes"}, {Name: "/gc/gogc:percent"}}
	read := func() memSample {
		metrics.Read(samples)
		var m memSample
		if samples[0].Value.Kind() == metrics.KindUint64 {
			m.heap = int64(samples[0].Value.Uint64())
			c.heapLast.Store(uint64(m.heap))
		}
		if samples[1].Value.Kind() == metrics.KindUint64 {
			m.live = int64(samples[1].Value.Uint64())
		}
		m.gogc = 100
		if samples[2].Value.Kind() == metrics.KindUint64 {
			m.gogc = int64(samples[2].Value.Uint64())
		}
		if c.e.cfg.DataBytes != nil {
			m.data = c.e.cfg.DataBytes()
		}
		return m
	}
	t := time.NewTicker(c.tick)
	defer t.Stop()
	var (
		watched   uint64    // gen of the run being watched
		seenAt    time.Time // when it was first seen
		base      memSample // memory before it started
		prev      = read()
		idleSince = time.Now()
	)
	for {
		select {
		case <-c.done:
			return
		case <-t.C:
		}
		if tick := c.tickFor(); tick != c.tick {
			// CONFIG SET busy-reply-threshold changed the threshold.
			c.tick = tick
			t.Reset(tick)
		}
		m := read()
		g := c.gen.Load()
		now := time.Now()
		if g%2 == 0 { // no run right now
			prev = m
			c.idleHeap.Store(m.heap - m.data)
			if now.Sub(idleSince) > time.Second {
				c.parked.Store(true)
				if c.gen.Load() != g {
					c.parked.Store(false)
					continue
				}
				t.Stop()
				select {
				case <-c.done:
					return
				case <-c.wake:
				}
				c.parked.Store(false)
				prev = read()
				c.idleHeap.Store(prev.heap - prev.data)
				t.Reset(c.tick)
				idleSince = time.Now()
			}
			continue
		}
		idleSince = now
		if g != watched {
			// First sight of this run: the previous sample was taken
			// before it started.
			watched, seenAt, base = g, now, prev
			c.sampled.Store(true)
		}
		prev = m
		growth, over := m.overLimit(base, c.memLimit)
		c.growth.Store(growth)
		if now.Sub(seenAt) >= time.Duration(c.threshold.Load()) {
			c.setBusy(g)
		}
		if c.memLimit > 0 && over {
			if c.stopRun(true, reasonMemory, g) == nil {
				c.e.log(3, "Lua script stopped: it used more than the scripting memory limit")
			}
		}
	}
}

// setBusy closes the busy channel if run gen is still the current one.
func (c *control) setBusy(gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.busyShut {
		return
	}
	// Announce before checking gen, so end() either sees the flag or we
	// see the new gen (both atomics are sequentially consistent).
	c.busyFlag.Store(true)
	if c.gen.Load() != gen {
		return
	}
	close(c.busyCh)
	c.busyShut = true
}

// runCtx is the context.Context gopher-lua polls between instructions. Done
// is the current kill channel, read on the owner goroutine only. Coroutine
// threads are given this very context (coroutineLib), never one derived from
// it: context.WithCancel would start a goroutine, or call back after the run
// when Err is nil again.
type runCtx struct {
	c  *control
	sb *sandbox
}

// ForIn is seam.ForInSource's: the sandbox's ipairs iterator and next,
// which the VM loop runs inside the generic for without calling them.
func (r runCtx) ForIn() *seam.ForIn {
	if r.sb == nil || r.sb.forIn.Next == nil {
		return nil
	}
	return &r.sb.forIn
}

// ConcatStrings is seam.ConcatSource's: the sandbox's cache of short
// concatenation results.
func (r runCtx) ConcatStrings() *lauxlib.Interner {
	if r.sb == nil {
		return nil
	}
	return &r.sb.concatStrs
}

func (r runCtx) Deadline() (time.Time, bool) { return time.Time{}, false }
func (r runCtx) Value(any) any               { return nil }

// busyServeEvery is how many Lua instructions run between two calls of
// Config.WhileBusy once a script is busy (a power of two): a fraction of a
// millisecond, as Redis's hook runs every 100,000 instructions.
const busyServeEvery = 1 << 14

// Done is polled every seam.PollInterval() instructions; once the script
// is busy it also lets Config.WhileBusy serve other clients now and then,
// before the kill channel is read, so a SCRIPT KILL it served stops the
// script at this very poll.
func (r runCtx) Done() <-chan struct{} {
	c := r.c
	if c.ticks++; c.ticks%c.servePolls == 0 {
		c.whileBusy()
	}
	return c.killCh
}

// whileBusy calls Config.WhileBusy if the run is busy. Owner goroutine:
// the VM (Done), the compiler (interrupted) and Go library code that
// checks its budget as it goes (Alloc, Stopped: cmsgpack, cjson, reply
// conversion), so a long stretch without Lua instructions still lets
// other clients be answered.
func (c *control) whileBusy() {
	if c.busyFlag.Load() && c.e.cfg.WhileBusy != nil {
		c.e.cfg.WhileBusy()
	}
}

func (r runCtx) Err() error {
	if r.c.state.Load() == stKilled {
		return errScriptKilled
	}
	return nil
}

var (
	_ context.Context = runCtx{}
	_ lauxlib.Budget  = runCtx{}
)

// Alloc is lauxlib.Budget's: one string (or other single allocation) may
// not pass MaxStringBytes, and the run's heap growth as last sampled, plus
// n, may not pass MemoryLimit.
func (r runCtx) Alloc(n int) bool {
	r.c.whileBusy()
	if n > r.c.e.cfg.MaxStringBytes {
		return false
	}
	return r.c.memLimit <= 0 || r.c.growth.Load()+int64(n) <= r.c.memLimit
}

// Stopped is lauxlib.Budget's: the kill error once the run was stopped.
func (r runCtx) Stopped() error {
	r.c.whileBusy()
	return r.Err()
}

// CCalls is lauxlib.Budget's: thread L's count of nested C-boundary calls
// in this run. Owner goroutine only.
func (r runCtx) CCalls(L *lua.LState) *lauxlib.CCount {
	c := r.c
	if L == c.lastL {
		return c.lastN
	}
	var n *lauxlib.CCount
	switch {
	case c.firstL == nil:
		c.firstL, c.first = L, lauxlib.CCount{}
		n = &c.first
	case L == c.firstL:
		n = &c.first
	default:
		if n = c.ccalls[L]; n == nil {
			n = new(lauxlib.CCount)
			c.ccalls[L] = n
		}
	}
	c.lastL, c.lastN = L, n
	return n
}

type killedError struct{}

func (killedError) Error() string { return "Script killed by user with SCRIPT KILL..." }

var errScriptKilled error = killedError{}

// madeGarbage reports whether the run ending now, if it lasted long enough
// for the watchdog to see it, leaves the heap (garbage included, the data
// excluded) more than releaseAfter above where it was between runs, and by
// more than the data holds: a forced collection marks the whole live heap,
// mostly the data, so such a run pays for it at most about as much again
// as it spent allocating. Owner goroutine; a short run costs one atomic
// load.
func (c *control) madeGarbage() bool {
	if !c.sampled.Load() {
		return false
	}
	metrics.Read(c.heapNow)
	if c.heapNow[0].Value.Kind() != metrics.KindUint64 {
		return false
	}
	now, data := int64(c.heapNow[0].Value.Uint64()), int64(0)
	if c.e.cfg.DataBytes != nil {
		data = c.e.cfg.DataBytes()
	}
	total := now - data - c.idleHeap.Load()
	return total > releaseAfter && total > data
}
