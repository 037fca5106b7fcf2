package keyspace

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

// A list value driven by random operations, with chunks small enough to
// split and empty often, holds what a [][]byte holds.
func TestListValueMatchesASlice(t *testing.T) {
	for _, fill := range []int{-1, 3, 1} {
		for seed := uint64(1); seed <= 4; seed++ {
			rng := rand.New(rand.NewPCG(seed, uint64(fill+10)))
			l := newList(&Encodings{ListMaxListpackSize: fill})
			var model [][]byte
			for step := 0; step < 4000; step++ {
				v := []byte(strconv.Itoa(step) + string(bytes.Repeat([]byte{'x'}, rng.IntN(200))))
				if rng.IntN(3) == 0 {
					// Repeated elements, for remove to find several.
					v = []byte("d" + strconv.Itoa(rng.IntN(3)))
				}
				switch op := rng.IntN(9); {
				case op == 0:
					l.pushFront(v)
					model = append([][]byte{v}, model...)
				case op == 1 || len(model) == 0:
					l.pushBack(v)
					model = append(model, v)
				case op == 2:
					front := rng.IntN(2) == 0
					got := l.pop(front)
					var want []byte
					if front {
						want, model = model[0], model[1:]
					} else {
						want, model = model[len(model)-1], model[:len(model)-1]
					}
					if !bytes.Equal(got, want) {
						t.Fatalf("fill %d seed %d step %d: pop %q, want %q", fill, seed, step, got, want)
					}
				case op == 3:
					i := rng.IntN(len(model) + 1)
					l.insertAt(i, v)
					model = append(model[:i], append([][]byte{v}, model[i:]...)...)
				case op == 4:
					i := rng.IntN(len(model))
					l.set(i, v)
					model[i] = v
				case op == 5:
					i := rng.IntN(len(model))
					l.removeAt(i)
					model = append(model[:i], model[i+1:]...)
				case op == 6:
					i := rng.IntN(len(model))
					n := rng.IntN(len(model) - i + 1)
					l.deleteRange(i, n)
					model = append(model[:i], model[i+n:]...)
				case op == 7:
					// Small limits take remove's deletions in place,
					// bigger ones its one pass.
					limit, rev := []int{0, 1, 2, 3, 20, 100}[rng.IntN(6)], rng.IntN(2) == 0
					got := l.remove(v, limit, rev)
					var want int
					model, want = modelRemove(model, v, limit, rev)
					if got != want {
						t.Fatalf("fill %d seed %d step %d: remove(%q, %d, %v) = %d, want %d", fill, seed, step, v, limit, rev, got, want)
					}
				default:
					if len(model) > 0 {
						from := rng.IntN(len(model))
						to := from + rng.IntN(len(model)-from)
						rev := rng.IntN(2) == 0
						var got [][]byte
						l.each(from, to, rev, func(v []byte) bool { got = append(got, bytes.Clone(v)); return true })
						for j := range got {
							want := model[from+j]
							if rev {
								want = model[to-j]
							}
							if !bytes.Equal(got[j], want) {
								t.Fatalf("fill %d seed %d step %d: each(%d,%d,%v)[%d] = %q, want %q", fill, seed, step, from, to, rev, j, got[j], want)
							}
						}
						if len(got) != to-from+1 {
							t.Fatalf("fill %d seed %d step %d: each gave %d elements, want %d", fill, seed, step, len(got), to-from+1)
						}
					}
				}
				if l.len() != len(model) {
					t.Fatalf("fill %d seed %d step %d: len %d, model %d", fill, seed, step, l.len(), len(model))
				}
				for i := range model {
					if i%37 == 0 && !bytes.Equal(l.at(i), model[i]) {
						t.Fatalf("fill %d seed %d step %d: at(%d)", fill, seed, step, i)
					}
				}
			}
			var sum int64
			for _, c := range l.chunks {
				sum += int64(c.Size())
				if c.Len() == 0 {
					t.Fatalf("fill %d seed %d: an empty chunk stayed", fill, seed)
				}
			}
			if sum != l.bytes {
				t.Fatalf("fill %d seed %d: bytes %d, chunks hold %d", fill, seed, l.bytes, sum)
			}
		}
	}
}

// Copies of a list share its chunks until written (clone, own): lists
// copied from one another at random points, then each driven by random
// writes, each hold what its own [][]byte holds, and a write to one never
// shows in another.
func TestListValueCopiesShareChunksUntilWritten(t *testing.T) {
	for _, fill := range []int{-1, 3} {
		for seed := uint64(1); seed <= 4; seed++ {
			rng := rand.New(rand.NewPCG(seed, uint64(fill+20)))
			lists := []*listValue{newList(&Encodings{ListMaxListpackSize: fill})}
			models := [][][]byte{nil}
			for step := 0; step < 6000; step++ {
				w := rng.IntN(len(lists))
				l, model := lists[w], models[w]
				v := []byte(strconv.Itoa(step) + string(bytes.Repeat([]byte{'x'}, rng.IntN(100))))
				if rng.IntN(3) == 0 {
					v = []byte("d" + strconv.Itoa(rng.IntN(3)))
				}
				switch op := rng.IntN(10); {
				case op == 0 && len(lists) < 6:
					lists = append(lists, l.clone().(*listValue))
					models = append(models, slices.Clone(model))
				case op == 1 || len(model) == 0:
					l.pushBack(v)
					model = append(model, v)
				case op == 2:
					l.pushFront(v)
					model = append([][]byte{v}, model...)
				case op == 3:
					front := rng.IntN(2) == 0
					got := l.pop(front)
					var want []byte
					if front {
						want, model = model[0], model[1:]
					} else {
						want, model = model[len(model)-1], model[:len(model)-1]
					}
					if !bytes.Equal(got, want) {
						t.Fatalf("fill %d seed %d step %d: pop %q, want %q", fill, seed, step, got, want)
					}
				case op == 4:
					i := rng.IntN(len(model) + 1)
					l.insertAt(i, v)
					model = append(model[:i:i], append([][]byte{v}, model[i:]...)...)
				case op == 5:
					i := rng.IntN(len(model))
					l.set(i, v)
					model = slices.Clone(model)
					model[i] = v
				case op == 6:
					i := rng.IntN(len(model))
					l.removeAt(i)
					model = append(model[:i:i], model[i+1:]...)
				case op == 7:
					i := rng.IntN(len(model))
					n := rng.IntN(len(model) - i + 1)
					l.deleteRange(i, n)
					model = append(model[:i:i], model[i+n:]...)
				default:
					limit, rev := []int{0, 1, 2, 20}[rng.IntN(4)], rng.IntN(2) == 0
					l.remove(v, limit, rev)
					model, _ = modelRemove(model, v, limit, rev)
				}
				models[w] = model
				if step%50 != 0 {
					continue
				}
				for x, l := range lists {
					var got [][]byte
					if l.len() > 0 {
						l.each(0, l.len()-1, false, func(v []byte) bool { got = append(got, bytes.Clone(v)); return true })
					}
					if len(got) != len(models[x]) || l.len() != len(models[x]) {
						t.Fatalf("fill %d seed %d step %d: list %d holds %d (len %d), model %d", fill, seed, step, x, len(got), l.len(), len(models[x]))
					}
					for i := range got {
						if !bytes.Equal(got[i], models[x][i]) {
							t.Fatalf("fill %d seed %d step %d: list %d [%d] = %q, want %q", fill, seed, step, x, i, got[i], models[x][i])
						}
					}
					var sum int64
					for _, c := range l.chunks {
						sum += int64(c.Size())
					}
					if sum != l.bytes {
						t.Fatalf("fill %d seed %d step %d: list %d bytes %d, chunks hold %d", fill, seed, step, x, l.bytes, sum)
					}
				}
			}
		}
	}
}

// modelRemove is LREM on a slice: it drops up to limit (0: every) elements
// equal to v, from the tail when rev, and returns what is left and how many
// went.
func modelRemove(model [][]byte, v []byte, limit int, rev bool) ([][]byte, int) {
	var kept [][]byte
	n := 0
	for j := range model {
		if rev {
			j = len(model) - 1 - j
		}
		if bytes.Equal(model[j], v) && (limit == 0 || n < limit) {
			n++
			continue
		}
		kept = append(kept, model[j])
	}
	if rev {
		slices.Reverse(kept)
	}
	return kept, n
}
