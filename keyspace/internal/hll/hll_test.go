package hll

import (
	"bytes"
	"testing"
)

// FuzzValue runs every operation on a value a client could have stored
// with SET: none may panic, and none may grow a value past what one more
// opcode split (or the dense size) needs.
func FuzzValue(f *testing.F) {
	f.Add(NewSparse(), []byte("a"), uint16(0))
	f.Add(append(NewSparse()[:HdrSize], 0x7f), []byte("b"), uint16(16383))
	f.Add(append(NewSparse()[:HdrSize], 0x40), []byte("c"), uint16(9))
	f.Add(make([]byte, DenseSize), []byte("d"), uint16(1))
	f.Fuzz(func(t *testing.T, v, ele []byte, reg uint16) {
		if len(v) >= 5 {
			copy(v, "HYLL")
		}
		if !Valid(v) {
			return
		}
		var regs [Registers]uint8
		Merge(&regs, v)
		Count(v)
		Decode(v)
		if d, ok := SparseToDense(bytes.Clone(v)); ok && len(d) != DenseSize {
			t.Fatalf("dense value of %d bytes", len(d))
		}
		b, _ := Add(bytes.Clone(v), ele, 3000)
		if len(b) > max(len(v)+4, DenseSize) {
			t.Fatalf("a %d-byte value grew to %d", len(v), len(b))
		}
		if v[4] == Sparse {
			b, _ = SparseSet(bytes.Clone(v), int(reg)%Registers, uint8(reg>>8)%64+1, 3000)
			if len(b) > max(len(v)+4, DenseSize) {
				t.Fatalf("a %d-byte value grew to %d", len(v), len(b))
			}
		}
	})
}

// TestNewSparse checks the empty value PFADD creates (Redis: PFADD h;
// GET h).
func TestNewSparse(t *testing.T) {
	want := "HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x7f\xff"
	if got := string(NewSparse()); got != want {
		t.Fatalf("NewSparse() = %q, want %q", got, want)
	}
	if c, ok := Count(NewSparse()); !ok || c != 0 {
		t.Fatalf("Count(empty) = %d, %v", c, ok)
	}
}
