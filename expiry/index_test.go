package expiry

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestIndexPopsInDeadlineOrder(t *testing.T) {
	const seed = 7
	rng := rand.New(rand.NewPCG(seed, seed))
	var x Index
	var want []int64
	for i := range 1000 {
		d := rng.Int64N(10_000)
		x.Push(d, i%3, 7)
		want = append(want, d)
	}
	slices.Sort(want)
	var got []int64
	x.PopDue(10_000, 400, func(db int, ref uint32, deadline int64) { got = append(got, deadline) })
	x.PopDue(10_000, 10_000, func(db int, ref uint32, deadline int64) { got = append(got, deadline) })
	if !slices.Equal(got, want) {
		t.Fatalf("seed %d: popped out of order", seed)
	}
	if x.Len() != 0 {
		t.Fatalf("Len = %d after popping everything", x.Len())
	}
}

func TestIndexPopDueIsStrict(t *testing.T) {
	// A key is expired once now > deadline, so at now == deadline it stays.
	var x Index
	x.Push(100, 0, 7)
	if n := x.PopDue(100, 10, func(int, uint32, int64) {}); n != 0 {
		t.Fatalf("popped %d items at now == deadline", n)
	}
	if n := x.PopDue(101, 10, func(int, uint32, int64) {}); n != 1 {
		t.Fatalf("popped %d items at now == deadline+1, want 1", n)
	}
	if _, ok := x.Next(); ok {
		t.Fatal("Next reports a deadline on an empty index")
	}
}

func TestIndexCompactKeepsLiveItemsInOrder(t *testing.T) {
	var x Index
	for i := range 100 {
		x.Push(int64(100-i), 0, uint32(i))
	}
	x.Compact(func(db int, ref uint32, deadline int64) bool { return deadline%2 == 0 })
	if x.Len() != 50 {
		t.Fatalf("Len = %d after compacting away odd deadlines, want 50", x.Len())
	}
	prev := int64(-1)
	x.PopDue(1000, 1000, func(db int, ref uint32, deadline int64) {
		if deadline%2 != 0 || deadline < prev {
			t.Fatalf("deadline %d after %d", deadline, prev)
		}
		prev = deadline
	})
}

func BenchmarkIndexPushPop(b *testing.B) {
	b.ReportAllocs()
	var x Index
	for i := 0; b.Loop(); i++ {
		x.Push(int64(i), 0, 7)
		if x.Len() > 1024 {
			x.PopDue(int64(i), 512, func(int, uint32, int64) {})
		}
	}
}

func TestIndexSwapDBs(t *testing.T) {
	var x Index
	x.Push(30, 0, 1)
	x.Push(10, 1, 2)
	x.Push(20, 2, 3)
	x.SwapDBs(0, 1)
	var got []string
	x.PopDue(100, 10, func(db int, ref uint32, deadline int64) {
		got = append(got, fmt.Sprint(deadline, ":", db, "/", ref))
	})
	want := "[10:0/2 20:2/3 30:1/1]"
	if fmt.Sprint(got) != want {
		t.Fatalf("after SwapDBs(0, 1): %v, want %v", got, want)
	}
}
