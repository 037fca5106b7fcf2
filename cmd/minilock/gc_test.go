package main

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

// The idle release runs after a quiet tick, and only when the heap holds
// enough beyond its live bytes; a busy tick or a small excess leaves it.
func TestIdleReleaseDue(t *testing.T) {
	const mb = 1 << 20
	steps := []struct {
		name string
		s    heapSample
		want bool
	}{
		{"first tick: no rate yet", heapSample{allocs: 100 * mb, live: 10 * mb, objects: 20 * mb}, false},
		{"busy tick", heapSample{allocs: 200 * mb, live: 10 * mb, objects: 20 * mb}, false},
		{"quiet tick, 10 MB of garbage", heapSample{allocs: 200*mb + 1000, live: 10 * mb, objects: 20 * mb}, true},
		{"quiet, free memory counts too", heapSample{allocs: 200*mb + 2000, live: 10 * mb, objects: 10 * mb, free: 5 * mb}, true},
		{"quiet, excess under 1 MB", heapSample{allocs: 200*mb + 3000, live: 10 * mb, objects: 10*mb + mb/2}, false},
		{"quiet, excess under a sixteenth of a large heap", heapSample{allocs: 200*mb + 4000, live: 320 * mb, objects: 335 * mb}, false},
		{"quiet, excess past a sixteenth", heapSample{allocs: 200*mb + 5000, live: 320 * mb, objects: 341 * mb}, true},
		{"a tick at the idle limit is busy", heapSample{allocs: 200*mb + 5000 + idleAlloc, live: 10 * mb, objects: 20 * mb}, false},
		{"no live heap measured yet", heapSample{allocs: 200*mb + 5000 + idleAlloc, objects: 20 * mb}, false},
	}
	var r idleRelease
	for _, st := range steps {
		if got := r.due(st.s); got != st.want {
			t.Errorf("%s: due %v, want %v", st.name, got, st.want)
		}
	}
}

// The metrics the policy reads exist in this Go: were one renamed, the
// policy would silently never run.
func TestHeapMetricsKnown(t *testing.T) {
	s := make([]metrics.Sample, len(heapMetrics))
	for i, name := range heapMetrics {
		s[i].Name = name
	}
	metrics.Read(s)
	for _, x := range s {
		if x.Value.Kind() != metrics.KindUint64 {
			t.Errorf("%s: kind %v, want uint64", x.Name, x.Value.Kind())
		}
	}
	if h := readHeap(s); h.allocs == 0 || h.objects == 0 {
		t.Errorf("heap sample %+v", h)
	}
}

// The floor raises the percent for a small live heap so that the next
// collection is heapFloor of allocation away, and leaves the base for a
// large one.
func TestFloorPercent(t *testing.T) {
	const mb = 1 << 20
	cases := []struct {
		live uint64
		want int
	}{
		{0, 50},                      // nothing measured yet
		{1, maxPercent},              // a nearly empty heap: bounded
		{heapFloor / 20, maxPercent}, // 0.8 MB live
		{4 * mb, 400},                // 16 MB of headroom
		{3 * mb, 534},                // 533.3, rounded up: never under the floor
		{16 * mb, 100},               // still 16 MB of headroom
		{2 * heapFloor, 50},          // from here GOGC=50 gives more
		{1000 * mb, 50},              // a million keys: unchanged
	}
	for _, c := range cases {
		got := floorPercent(c.live, 50)
		if got != c.want {
			t.Errorf("floorPercent(%d): %d, want %d", c.live, got, c.want)
		}
		if c.live > 0 && got < maxPercent && c.live*uint64(got)/100 < heapFloor {
			t.Errorf("floorPercent(%d) = %d leaves %d bytes of headroom, under the floor", c.live, got, c.live*uint64(got)/100)
		}
	}
}

// After a collection the hook has set the percent from the live heap,
// and once stopped it puts the base back.
func TestKeepHeapFloorSetsPercent(t *testing.T) {
	old := debug.SetGCPercent(50)
	defer debug.SetGCPercent(old)
	stop := make(chan struct{})
	keepHeapFloor(50, stop)
	gogc := func() uint64 {
		s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
		metrics.Read(s)
		return s[0].Value.Uint64()
	}
	// The finalizer runs on its own goroutine after the collection.
	deadline := time.Now().Add(10 * time.Second)
	for gogc() == 50 && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if got, want := gogc(), uint64(floorPercent(s[0].Value.Uint64(), 50)); got == 50 || got != want {
		t.Fatalf("GOGC %d after collections with %d bytes live, want %d", got, s[0].Value.Uint64(), want)
	}
	close(stop)
	for gogc() != 50 && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if got := gogc(); got != 50 {
		t.Fatalf("GOGC %d after stop, want the base 50", got)
	}
}
