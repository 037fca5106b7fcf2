package miniredis_test

import (
	"reflect"
	"testing"

	"github.com/minilock/minilock/miniredis"
)

// miniredis's stream and HyperLogLog helpers, with its signatures, over
// Redis's own commands.
func TestStreamsAndHyperLogLogs(t *testing.T) {
	m := miniredis.RunT(t)
	rdb := client(t, m)
	if id, err := m.XAdd("s", "1-1", []string{"a", "1"}); err != nil || id != "1-1" {
		t.Fatalf("XAdd: %q, %v", id, err)
	}
	if _, err := m.DB(0).XAdd("s", "*", []string{"b", "2"}); err != nil {
		t.Fatal(err)
	}
	entries, err := m.Stream("s")
	if err != nil || len(entries) != 2 || !reflect.DeepEqual(entries[0], miniredis.StreamEntry{ID: "1-1", Values: []string{"a", "1"}}) {
		t.Fatalf("Stream: %v, %v", entries, err)
	}
	if n := rdb.XLen(ctx, "s").Val(); n != 2 {
		t.Fatalf("client's XLEN: %d", n)
	}
	if entries, err := m.Stream("missing"); entries != nil || err != nil {
		t.Fatalf("Stream of a missing key: %v, %v; miniredis answers nil, nil", entries, err)
	}
	m.Set("str", "x")
	if _, err := m.Stream("str"); err != miniredis.ErrWrongType {
		t.Fatalf("Stream of a string: %v, want ErrWrongType", err)
	}

	if n, err := m.PfAdd("h", "a", "b", "c"); err != nil || n != 1 {
		t.Fatalf("PfAdd: %d, %v", n, err)
	}
	if _, err := m.DB(0).HllAdd("h2", "c", "d"); err != nil {
		t.Fatal(err)
	}
	if n, err := m.PfCount("h", "h2"); err != nil || n != 4 {
		t.Fatalf("PfCount of the union: %d, %v", n, err)
	}
	if err := m.PfMerge("u", "h", "h2"); err != nil {
		t.Fatal(err)
	}
	if n := rdb.PFCount(ctx, "u").Val(); n != 4 {
		t.Fatalf("client's PFCOUNT of the merge: %d", n)
	}
}
