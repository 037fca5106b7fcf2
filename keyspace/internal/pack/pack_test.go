package pack

import (
	"bytes"
	"math/rand/v2"
	"strconv"
	"testing"
)

// A pack driven by random operations holds what a [][]byte model holds.
func TestPackMatchesASlice(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		var p Pack
		var model [][]byte
		for step := 0; step < 5000; step++ {
			v := bytes.Repeat([]byte{byte('a' + rng.IntN(26))}, rng.IntN(300))
			before := p.Size()
			switch op := rng.IntN(8); {
			case op == 0 || len(model) == 0:
				p.Append(v)
				model = append(model, v)
			case op == 1:
				i := rng.IntN(len(model) + 1)
				p.Insert(p.Offset(i), v)
				model = append(model[:i], append([][]byte{v}, model[i:]...)...)
			case op == 4:
				w := v[:rng.IntN(len(v)+1)]
				p.AppendPair(v, w)
				model = append(model, v, w)
			case op == 5:
				w := v[:rng.IntN(len(v)+1)]
				i := rng.IntN(len(model) + 1)
				p.InsertPair(p.Offset(i), v, w)
				model = append(model[:i], append([][]byte{v, w}, model[i:]...)...)
			case op == 6:
				w := v[:rng.IntN(len(v)+1)]
				p.AppendJoined(v, w)
				model = append(model, append(append([]byte(nil), v...), w...))
			case op == 7:
				w := v[:rng.IntN(len(v)+1)]
				i := rng.IntN(len(model) + 1)
				p.InsertJoined(p.Offset(i), v, w)
				model = append(model[:i], append([][]byte{append(append([]byte(nil), v...), w...)}, model[i:]...)...)
			case op == 2:
				i := rng.IntN(len(model))
				p.Replace(p.Offset(i), v)
				model[i] = v
			default:
				i := rng.IntN(len(model))
				n := 1 + rng.IntN(min(3, len(model)-i))
				p.Delete(p.Offset(i), n)
				model = append(model[:i], model[i+n:]...)
			}
			if p.Len() != len(model) {
				t.Fatalf("seed %d step %d: Len %d, model %d", seed, step, p.Len(), len(model))
			}
			// A pack that grew holds no more than its size class: Go's
			// classes are at most an eighth apart up to 32 KiB, whole
			// pages past it.
			if grew := p.Size() > before; grew && p.Size() > p.End()+p.End()/8+16 && p.Size() > p.End()+8192 {
				t.Fatalf("seed %d step %d: %d bytes held for %d", seed, step, p.Size(), p.End())
			}
			i := 0
			for off := 0; off < p.End(); i++ {
				var e []byte
				e, off = p.At(off)
				if !bytes.Equal(e, model[i]) {
					t.Fatalf("seed %d step %d: entry %d is %q, model %q", seed, step, i, e, model[i])
				}
			}
		}
	}
}

func TestFind(t *testing.T) {
	var p Pack
	for i := 0; i < 10; i++ {
		p.Append([]byte("f" + strconv.Itoa(i)))
		p.Append([]byte("f" + strconv.Itoa(i+1))) // a value equal to the next field
	}
	if off := p.Find([]byte("f3"), 2); off != p.Offset(6) {
		t.Fatalf("Find f3 among fields: %d, want %d", off, p.Offset(6))
	}
	if off := p.Find([]byte("f10"), 2); off != -1 {
		t.Fatalf("f10 is only a value, found at %d", off)
	}
}
