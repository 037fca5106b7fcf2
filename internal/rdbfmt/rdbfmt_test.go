package rdbfmt

import (
	"bytes"
	"flag"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/minilock/minilock/internal/redistest"
)

var seedFlag = flag.Uint64("rdbfmt.seed", 0, "seed of the random tests; 0 picks one from the clock")

func seed(t *testing.T) *rand.Rand {
	s := *seedFlag
	if s == 0 {
		s = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (rerun with -rdbfmt.seed=%d)", s, s)
	return rand.New(rand.NewPCG(s, s))
}

func TestCRC64(t *testing.T) {
	// crc64.c's own test vector.
	if got := CRC64(0, []byte("123456789")); got != 0xe9c6d914c4b8d9ca {
		t.Errorf("crc64(123456789) = %#x", got)
	}
}

func TestLen(t *testing.T) {
	for _, n := range []uint64{0, 1, 63, 64, 16383, 16384, 1<<32 - 1, 1 << 32, 1<<64 - 1} {
		b := AppendLen(nil, n)
		r := Reader{B: b}
		got, enc, ok := r.Len()
		if !ok || enc || got != n || r.Remaining() != 0 {
			t.Errorf("len %d: % x read back as %d %v %v", n, b, got, enc, ok)
		}
	}
}

// randomText is text with the repetition LZF finds: words from a small
// vocabulary, some runs of one byte, some random bytes.
func randomText(r *rand.Rand, n int) []byte {
	words := []string{"redis", ".call(", "'set'", "KEYS[1]", "local ", " end\n", "function", "return ", "==", "x"}
	var b []byte
	for len(b) < n {
		switch r.IntN(6) {
		case 0:
			b = append(b, bytes.Repeat([]byte{byte(r.IntN(256))}, 1+r.IntN(300))...)
		case 1:
			for i := r.IntN(20); i > 0; i-- {
				b = append(b, byte(r.IntN(256)))
			}
		default:
			b = append(b, words[r.IntN(len(words))]...)
		}
	}
	return b[:n]
}

func TestStringRoundTrip(t *testing.T) {
	r := seed(t)
	for i := 0; i < 2000; i++ {
		s := randomText(r, r.IntN(5000))
		if i%7 == 0 {
			s = []byte(strings.Repeat("-", r.IntN(3)) + string(rune('0'+r.IntN(10))))
		}
		b := AppendString(nil, s)
		rd := Reader{B: b}
		got, ok := rd.String()
		if !ok || !bytes.Equal(got, s) || rd.Remaining() != 0 {
			t.Fatalf("%q: encoded % x, read back %q %v", s, b[:min(len(b), 40)], got, ok)
		}
	}
}

// TestStringsMatchRedisDump compares AppendString with what redis-server
// 7.0.15 writes for the same value in a DUMP payload (type byte 0, the
// string, the footer): LZF included, byte for byte.
func TestStringsMatchRedisDump(t *testing.T) {
	srv := redistest.Start(t)
	c := redistest.Dial(t, srv.Addr)
	r := seed(t)
	for i := 0; i < 400; i++ {
		v := randomText(r, r.IntN(4000))
		if i%10 == 0 {
			v = []byte("12345")
		}
		if got := c.MustDo("SET", "k", string(v)); got != "+OK\r\n" {
			t.Fatalf("SET = %q", got)
		}
		want := c.MustDo("DUMP", "k")
		p := AppendFooter(AppendString([]byte{0}, v))
		mine := "$" + itoa(len(p)) + "\r\n" + string(p) + "\r\n"
		if want != mine {
			t.Fatalf("value of %d bytes (%q...):\n redis %q\n ours  %q", len(v), v[:min(len(v), 30)], want, mine)
		}
	}
}

func itoa(n int) string {
	var b []byte
	for {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
		if n == 0 {
			return string(b)
		}
	}
}

func TestFooter(t *testing.T) {
	p := AppendFooter([]byte{OpFunction2, 1, 'x'})
	if _, ok := Footer(p); !ok {
		t.Fatal("own footer refused")
	}
	for i := range p {
		q := bytes.Clone(p)
		q[i] ^= 1
		if _, ok := Footer(q); ok {
			t.Errorf("flipped byte %d accepted", i)
		}
	}
	if _, ok := Footer(p[:9]); ok {
		t.Error("9 bytes accepted")
	}
}

// FuzzReader reads arbitrary bytes as strings: no panic, and nothing made
// bigger than the input allows (an LZF string decodes to at most 88 times
// its bytes, plus a little).
func FuzzReader(f *testing.F) {
	f.Add(AppendString(nil, bytes.Repeat([]byte("abc"), 100)))
	f.Add([]byte{0xc3, 0x02, 0x81, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 'a'})
	f.Add([]byte{0x81, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		r := Reader{B: b}
		for r.Remaining() > 0 {
			s, ok := r.String()
			if !ok {
				return
			}
			if len(s) > 88*len(b)+64 {
				t.Fatalf("%d bytes from %d", len(s), len(b))
			}
		}
	})
}

// FuzzCompress: whatever Compress writes decompresses to its input.
func FuzzCompress(f *testing.F) {
	f.Add([]byte(strings.Repeat("abcabcabd", 30)))
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) < 3 {
			return
		}
		out := make([]byte, len(in)+len(in)/16+64)
		n := Compress(in, out)
		if n == 0 {
			return
		}
		got, ok := Decompress(out[:n], uint64(len(in)))
		if !ok || !bytes.Equal(got, in) {
			t.Fatalf("round trip of %q failed", in)
		}
	})
}

// A compressor table reused after other inputs writes what a fresh one
// writes (what Redis writes from a table with nothing of an earlier input
// in it), also across the wrap of its base. Seeded.
func TestCompressReusedTableIsFresh(t *testing.T) {
	seed := *seedFlag
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (-rdbfmt.seed)", seed)
	rng := rand.New(rand.NewPCG(seed, 2))
	words := []string{"redis", "register_function", "return", "local ", "KEYS[1]", " end\n"}
	input := func() []byte {
		var b []byte
		for n := 3 + rng.IntN(400); len(b) < n; {
			b = append(b, words[rng.IntN(len(words))]...)
		}
		return b
	}
	reused := new(lzfTable)
	for i := range 2000 {
		if i == 1000 {
			reused.base = math.MaxInt32 - 500 // the next inputs wrap it
		}
		in := input()
		want := make([]byte, len(in)+64)
		got := make([]byte, len(in)+64)
		wn := new(lzfTable).compress(in, want)
		gn := reused.compress(in, got)
		if !bytes.Equal(got[:gn], want[:wn]) {
			t.Fatalf("seed %d input %d: a reused table wrote %x, a fresh one %x", seed, i, got[:gn], want[:wn])
		}
	}
}

// FUNCTION DUMP compresses each library's code: 10,000 small strings.
func BenchmarkCompressSmallStrings(b *testing.B) {
	in := []byte("#!lua name=lib1234\nredis.register_function('f1234', function() return 1 end)")
	out := make([]byte, len(in))
	for b.Loop() {
		Compress(in, out)
	}
}

// CRC64 eight bytes at a time equals CRC64 a byte at a time, at every
// length and alignment. Seeded.
func TestCRC64Slicing(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 5))
	b := make([]byte, 300)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	bytewise := func(crc uint64, b []byte) uint64 {
		for _, c := range b {
			crc = crcTables[0][byte(crc)^c] ^ crc>>8
		}
		return crc
	}
	for lo := 0; lo < 9; lo++ {
		for hi := lo; hi <= len(b); hi++ {
			if got, want := CRC64(7, b[lo:hi]), bytewise(7, b[lo:hi]); got != want {
				t.Fatalf("CRC64 of b[%d:%d] = %#x, byte at a time %#x", lo, hi, got, want)
			}
		}
	}
}
