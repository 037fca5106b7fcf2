package edge

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"time"
)

// An outQueue written in random slices, as a non-blocking socket takes
// them, gives back exactly what was pushed, in order, and holds about the
// bytes queued (pieces of outPiece), never one growing copy. Seeded.
func TestOutQueueKeepsOrderAndSize(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 4))
	var q outQueue
	var want, got []byte
	for step := range 4000 {
		if rng.IntN(3) > 0 {
			b := bytes.Repeat([]byte{byte(step)}, rng.IntN(3000)+rng.IntN(2)*rng.IntN(100000))
			q.push(b)
			want = append(want, b...)
		} else {
			q.writeTo(func(b []byte) (int, error) {
				n := min(len(b), rng.IntN(40000))
				got = append(got, b[:n]...)
				return n, nil
			})
		}
		if q.size() != len(want)-len(got) {
			t.Fatalf("seed %d step %d: size %d, %d queued", seed, step, q.size(), len(want)-len(got))
		}
		held := 0
		for _, p := range q.bufs {
			if len(p) == 0 {
				t.Fatalf("seed %d step %d: an empty piece is queued", seed, step)
			}
			held += cap(p)
		}
		if held > q.size()+2*outPiece+q.sent {
			t.Fatalf("seed %d step %d: %d bytes held for %d queued", seed, step, held, q.size())
		}
	}
	q.writeTo(func(b []byte) (int, error) { got = append(got, b...); return len(b), nil })
	if !bytes.Equal(got, want) {
		t.Fatalf("seed %d: %d bytes came out, %d went in, or not in order", seed, len(got), len(want))
	}
	if q.size() != 0 || len(q.bufs) != 0 {
		t.Fatalf("seed %d: written out, the queue holds %d bytes in %d pieces", seed, q.size(), len(q.bufs))
	}
}
