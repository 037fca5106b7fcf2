package main

import (
	"runtime/metrics"
	"testing"
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
