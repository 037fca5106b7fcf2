package main

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// Giving memory back when idle. With GOGC=50 a heap grows to half again
// its live bytes before a collection, and Go's scavenger keeps that much
// (and a tenth more) resident for good: after a load of small hashes or
// sorted sets, whose packs are nearly all the heap, RSS stayed about 1.4x
// the live heap, above redis-server's (jemalloc gives dirty pages back
// over a few seconds). So once the server goes quiet, and the heap holds
// a meaningful amount beyond its live bytes, one forced collection gives
// the rest back (debug.FreeOSMemory). Under load it never runs: a busy
// server keeps GOGC=50's headroom and pays nothing but a metrics read per
// tick.

const (
	idleTick = 250 * time.Millisecond
	// idleAlloc is what a tick may allocate and still count as idle: a
	// client or two polling a lock, not a load.
	idleAlloc = 256 << 10
	// minExcess is the least garbage worth a collection; beyond it, a
	// sixteenth of the live heap (so a large heap is not collected for
	// the last few percent).
	minExcess = 1 << 20
)

// heapSample is what the policy reads from runtime/metrics.
type heapSample struct {
	allocs  uint64 // bytes allocated since the process started
	live    uint64 // live heap at the last collection
	objects uint64 // bytes in objects: live ones and garbage not yet collected
	free    uint64 // free heap memory not yet given back to the system
}

var heapMetrics = []string{
	"/gc/heap/allocs:bytes",
	"/gc/heap/live:bytes",
	"/memory/classes/heap/objects:bytes",
	"/memory/classes/heap/free:bytes",
}

func readHeap(s []metrics.Sample) heapSample {
	metrics.Read(s)
	v := func(i int) uint64 {
		if s[i].Value.Kind() != metrics.KindUint64 {
			return 0 // unknown to this Go: the policy then never runs
		}
		return s[i].Value.Uint64()
	}
	return heapSample{allocs: v(0), live: v(1), objects: v(2), free: v(3)}
}

// idleRelease decides, tick by tick, when to give memory back.
type idleRelease struct {
	last    uint64 // allocs at the previous tick
	started bool
}

// due reports whether, with the heap now as s, the server has been idle
// for the last tick and holds enough beyond its live heap to release.
func (r *idleRelease) due(s heapSample) bool {
	idle := r.started && s.allocs-r.last < idleAlloc
	r.last, r.started = s.allocs, true
	if !idle || s.live == 0 {
		return false
	}
	held := s.objects + s.free
	return held > s.live && held-s.live > max(minExcess, s.live/16)
}

// releaseWhenIdle runs the policy until stop closes.
func releaseWhenIdle(stop <-chan struct{}) {
	s := make([]metrics.Sample, len(heapMetrics))
	for i, name := range heapMetrics {
		s[i].Name = name
	}
	var r idleRelease
	t := time.NewTicker(idleTick)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		if r.due(readHeap(s)) {
			debug.FreeOSMemory()
			r.last = readHeap(s).allocs
		}
	}
}

// A heap floor. GOGC=50 lets the heap grow by half its live bytes before
// the next collection: with a million keys that is 60 MB, but a server
// whose data are small (a few thousand locks, the scripts of a job queue)
// lives in a heap of 2-5 MB and collected every megabyte or two it
// allocated. Over the network that was a fifth to a third of the CPU of a
// script-heavy load (bench/run.sh lua beside a GOGC=400 build: 1.2-1.4x on
// most rows). So after each collection the percent is raised until the
// heap may grow by at least heapFloor before the next, and it falls back
// to the base percent as the live heap passes 2*heapFloor. What that costs:
// up to heapFloor of garbage held while the server is busy and its data are
// small (the idle release above gives it back when the load stops); a
// large dataset's RSS is unchanged.
const (
	heapFloor = 16 << 20
	// maxPercent bounds the percent for a nearly empty heap.
	maxPercent = 2000
)

// floorPercent is the GOGC percent for a heap with live bytes live: base,
// or more so that the next collection comes no sooner than heapFloor of
// allocation.
func floorPercent(live uint64, base int) int {
	if live == 0 {
		return base
	}
	p := int((heapFloor*100 + live - 1) / live)
	return max(base, min(p, maxPercent))
}

// sentinel is what keepHeapFloor hangs its finalizer on: big enough not
// to be a tiny allocation, whose finalizers may never run.
type sentinel struct{ _ [64]byte }

// keepHeapFloor sets the GOGC percent after every collection, from the
// live heap that collection marked, until stop closes. It runs on the
// finalizer goroutine: a finalizer on a fresh object runs once that
// object is found unreachable, that is after the next collection, and
// arms the next one.
func keepHeapFloor(base int, stop <-chan struct{}) {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	cur := base
	var arm func()
	arm = func() {
		runtime.SetFinalizer(new(sentinel), func(*sentinel) {
			select {
			case <-stop:
				debug.SetGCPercent(base)
				return
			default:
			}
			metrics.Read(s)
			if s[0].Value.Kind() == metrics.KindUint64 {
				if p := floorPercent(s[0].Value.Uint64(), base); p != cur {
					debug.SetGCPercent(p)
					cur = p
				}
			}
			arm()
		})
	}
	arm()
}
