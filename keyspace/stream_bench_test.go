package keyspace

import (
	"strconv"
	"testing"

	"github.com/minilock/minilock/resp"
)

// The stream commands bench/run.sh types measures, on the owner alone.
func BenchmarkXAdd(b *testing.B) {
	h := newKSTest(&testing.T{})
	args := [][]byte{[]byte("XADD"), []byte("s"), []byte("*"), []byte("a"), []byte("1"), []byte("b"), []byte("22"), []byte("c"), []byte("333")}
	streamBench(b, h, args)
}

func BenchmarkXRangeCount10(b *testing.B) {
	h := newKSTest(&testing.T{})
	for i := 1; i <= 1000; i++ {
		h.run("XADD", "s", strconv.Itoa(i)+"-1", "a", "1", "b", "22", "c", "333")
	}
	streamBench(b, h, [][]byte{[]byte("XRANGE"), []byte("s"), []byte("-"), []byte("+"), []byte("COUNT"), []byte("10")})
}

func streamBench(b *testing.B, h *ksTest, args [][]byte) {
	run := ksCommands[string(bytesLower(args[0]))]
	var w resp.Writer
	b.ReportAllocs()
	b.ResetTimer()
	c := &Ctx{W: &w, Now: h.k.Now()}
	for i := 0; i < b.N; i++ {
		w.B = w.B[:0]
		if err := run(h.k, c, args); err != nil {
			b.Fatal(err)
		}
	}
}

func bytesLower(b []byte) []byte {
	out := make([]byte, len(b))
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		out[i] = c
	}
	return out
}
