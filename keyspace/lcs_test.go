package keyspace

import (
	"math/rand/v2"
	"testing"
)

func init() {
	ksCommands["lcs"] = CmdLCS
	ksCommands["substr"] = CmdGetRange
}

func TestLCS(t *testing.T) {
	syntax := errReply("syntax error")
	rng := func(a0, a1, b0, b1 int64) string { return arr(arr(num(a0), num(a1)), arr(num(b0), num(b1))) }
	rngLen := func(a0, a1, b0, b1, n int64) string { return arr(arr(num(a0), num(a1)), arr(num(b0), num(b1)), num(n)) }
	runKSCases(t, []ksCase{
		// The examples of Redis's LCS documentation.
		{"documented", []ksStep{do("MSET key1 ohmytext key2 mynewtext", ok), do("LCS key1 key2", bulk("mytext")),
			do("LCS key1 key2 LEN", num(6)),
			do("LCS key1 key2 IDX", arr(bulk("matches"), arr(rng(4, 7, 5, 8), rng(2, 3, 0, 1)), bulk("len"), num(6))),
			do("LCS key1 key2 IDX MINMATCHLEN 4", arr(bulk("matches"), arr(rng(4, 7, 5, 8)), bulk("len"), num(6))),
			do("LCS key1 key2 IDX MINMATCHLEN 4 WITHMATCHLEN", arr(bulk("matches"), arr(rngLen(4, 7, 5, 8, 4)), bulk("len"), num(6)))}},
		{"errors", []ksStep{do("SET a x", ok), do("RPUSH l x", num(1)), do("LCS a l", errReply("The specified keys must contain string values")),
			do("LCS l a FOO", errReply("The specified keys must contain string values")), do("LCS a b FOO", syntax),
			do("LCS a b MINMATCHLEN", syntax), do("LCS a b MINMATCHLEN x", errReply("value is not an integer or out of range")),
			do("LCS a b LEN IDX", errReply("If you want both the length and indexes, please just use IDX.")),
			do("LCS a b MINMATCHLEN -3 LEN", num(0)), do("LCS nosuch nosuch", bulk(""))}},
		{"substr", []ksStep{do("SET k Hello", ok), do("SUBSTR k 1 3", bulk("ell")), do("SUBSTR k -3 -1", bulk("llo")),
			do("SUBSTR nosuch 0 -1", bulk(""))}},
	})
}

// The transient table is refused past proto-max-bulk-len, as Redis
// counts it: 4 bytes for each of (len(a)+1)*(len(b)+1) cells.
func TestLCSLimit(t *testing.T) {
	h := newKSTest(t)
	h.k.maxLen = 4 * 11 * 11
	for _, st := range []ksStep{
		do("MSET a 0123456789 b 0123456789 c 01234567890", ok),
		do("LCS a b LEN", num(10)),
		do("LCS a c LEN", errReply("Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len")),
	} {
		if got := h.run(st.args...); got != st.want {
			t.Fatalf("%q: got %q, want %q", st.args, got, st.want)
		}
	}
}

// The one-bit table walks back the same way as Redis's full table of
// lengths: the LCS it builds is a common subsequence of the full length.
func TestLCSModel(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 500 {
		a, b := randBytes(r, 30), randBytes(r, 30)
		full := make([][]uint32, len(a)+1)
		for i := range full {
			full[i] = make([]uint32, len(b)+1)
			for j := 1; i > 0 && j <= len(b); j++ {
				if a[i-1] == b[j-1] {
					full[i][j] = full[i-1][j-1] + 1
				} else {
					full[i][j] = max(full[i-1][j], full[i][j-1])
				}
			}
		}
		n, up := lcsTable(a, b)
		if n != full[len(a)][len(b)] {
			t.Fatalf("%q %q: length %d, want %d", a, b, n, full[len(a)][len(b)])
		}
		for i := 1; i <= len(a); i++ {
			for j := 1; j <= len(b); j++ {
				bit := (i-1)*len(b) + j - 1
				got := up[bit>>6]&(1<<(bit&63)) != 0
				if want := a[i-1] != b[j-1] && full[i-1][j] > full[i][j-1]; got != want {
					t.Fatalf("%q %q: cell %d,%d: %v, want %v", a, b, i, j, got, want)
				}
			}
		}
	}
}

func randBytes(r *rand.Rand, max int) []byte {
	b := make([]byte, r.IntN(max+1))
	for i := range b {
		b[i] = "abc"[r.IntN(3)]
	}
	return b
}
