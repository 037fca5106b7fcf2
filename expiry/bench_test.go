package expiry

import "testing"

// Benchmarks of the deadline index alone.
//
//	go test -run '^$' -bench . -benchmem ./expiry

// benchDeadline spreads n keys over 30 s of deadlines, as lock TTLs set over
// time would be.
func benchDeadline(i int) int64 { return 1_700_000_000_000 + int64(i*7919%30000) }

// Push into an index that already holds 1M deadlines (the heap's depth in
// a server with 1M lock keys).
func BenchmarkIndexPush_1M(b *testing.B) {
	var x Index
	for i := range 1 << 20 {
		x.Push(benchDeadline(i), 0, uint32(i))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		x.Push(benchDeadline(i), 0, uint32(i&(1<<20-1)))
		if x.Len() > 2<<20 {
			b.StopTimer()
			x.Reset()
			for j := range 1 << 20 {
				x.Push(benchDeadline(j), 0, uint32(j))
			}
			b.StartTimer()
		}
	}
}

// benchPopDue fills the index with n deadlines and measures popping them
// all in batches of 1000, as the keyspace's active expiry does.
func benchPopDue(b *testing.B, n int) {
	b.ReportAllocs()
	var x Index
	popped := 0
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		x.Reset()
		for j := range n {
			x.Push(benchDeadline(j), 0, uint32(j&(1<<20-1)))
		}
		b.StartTimer()
		for x.PopDue(1_800_000_000_000, 1000, func(int, uint32, int64) { popped++ }) == 1000 {
		}
	}
	b.StopTimer()
	if popped != n*b.N {
		b.Fatalf("popped %d, want %d", popped, n*b.N)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/key")
}

func BenchmarkIndexPopDue_1M(b *testing.B) { benchPopDue(b, 1_000_000) }

// Compact an index where half the items are stale.
func BenchmarkIndexCompact_1M(b *testing.B) {
	b.ReportAllocs()
	var x Index
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		x.Reset()
		for j := range 1 << 20 {
			x.Push(benchDeadline(j), 0, uint32(j))
		}
		b.StartTimer()
		x.Compact(func(_ int, _ uint32, d int64) bool { return d%2 == 0 })
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N<<20), "ns/item")
}
