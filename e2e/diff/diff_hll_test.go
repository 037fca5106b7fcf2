package diff_test

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/minilock/minilock/internal/redistest"
)

// HyperLogLog against redis-server: the values are strings, so every case
// reads them back with GET, byte for byte, sparse and dense, cached
// cardinality included.

// hllHeader is a value's header: "HYLL", the encoding, three unused
// bytes, the cached cardinality (little endian; top bit: stale).
func hllHeader(enc byte, card uint64, stale bool) string {
	h := []byte{'H', 'Y', 'L', 'L', enc, 0, 0, 0}
	for i := range 8 {
		h = append(h, byte(card>>(8*i)))
	}
	if stale {
		h[15] |= 0x80
	}
	return string(h)
}

var hllCases = []diffCase{
	tc("pfadd pfcount get",
		c("PFADD h a b c"), c("GET h"), c("PFADD h a"), c("PFCOUNT h"), c("GET h"), c("PFADD h d"), c("GET h"),
		c("PFCOUNT h"), c("GET h"), c("PFADD e"), c("PFADD e"), c("GET e"), c("PFCOUNT e nosuch"), c("PFCOUNT nosuch"),
		c("EXISTS nosuch"), c("STRLEN h"), c("TYPE h"), c("OBJECT ENCODING h").with(stringEncoding)),
	tc("pfmerge sparse and dense",
		c("PFADD a 1 2 3 4"), c("PFADD b 4 5 6"), c("PFMERGE m a b nosuch"), c("GET m"), c("PFCOUNT m"),
		c("PFDEBUG TODENSE b"), c("GET b"), c("PFMERGE m2 a b"), c("GET m2"), c("PFDEBUG ENCODING m2"),
		c("PFMERGE a b"), c("GET a"), c("PFMERGE n"), c("GET n"), c("PFCOUNT a b m m2 n nosuch")),
	tc("pfdebug",
		c("PFDEBUG GETREG nosuch"), c("PFADD h x y z"), c("PFDEBUG DECODE h"), c("PFDEBUG ENCODING h"),
		c("PFDEBUG what h"), c("PFDEBUG getreg h"), c("GET h"), c("PFDEBUG DECODE h"), c("PFDEBUG TODENSE h"),
		c("PFDEBUG ENCODING h"), c("PFDEBUG GETREG h x"), c("PFDEBUG")),
	tc("pf wrong values",
		c("SET s hello"), c("PFADD s x"), c("PFCOUNT s"), c("PFCOUNT s nosuch"), c("PFMERGE d s"), c("EXISTS d"),
		c("PFMERGE s"), c("PFDEBUG ENCODING s"), c("SET i 1234"), c("PFCOUNT i"), c("LPUSH l x"), c("PFADD l x"),
		c("PFCOUNT l"), c("PFMERGE l"), c("PFMERGE x l"), c("PFCOUNT x l"),
		cmd("SET", "x", hllHeader(2, 0, true)), c("PFCOUNT x"),
		cmd("SET", "x", hllHeader(0, 0, true)), c("PFCOUNT x"), c("PFADD x a"),
		cmd("SET", "x", "HYLL"), c("PFCOUNT x"), cmd("SET", "x", hllHeader(1, 7, false)), c("PFCOUNT x"), c("PFADD x a"),
		c("GET x"), c("PFCOUNT x nosuch"), c("PFDEBUG DECODE x")),
	tc("pf arity", c("PFADD"), c("PFCOUNT"), c("PFMERGE"), c("PFDEBUG x"), c("PFSELFTEST x")),
	tc("pf expiry kept", c("PFADD h a"), c("EXPIRE h 3000"), c("PFADD h b"), c("PFCOUNT h"), c("TTL h"),
		c("PFMERGE h"), c("TTL h")),
	tc("pf hll-sparse-max-bytes",
		c("CONFIG SET hll-sparse-max-bytes 60"), c("CONFIG GET hll-sparse-max-bytes"),
		c("PFADD h a b c d e f g h i j k l m n o p q r s t u v w x y z"), c("PFDEBUG ENCODING h"), c("GET h"),
		c("PFADD h2 a b c d e"), c("PFDEBUG ENCODING h2"), c("PFMERGE h3 h2"), c("GET h3"),
		c("CONFIG SET hll-sparse-max-bytes 3000")),
}

// hllOnce are cases sent only as they are: the notifications need a
// subscriber, WATCH a connection of its own.
var hllOnce = []diffCase{
	notifyCase("pf notifications", "KEAn",
		c("PFADD h a"), recv(1, 4), c("PFADD h a"), c("PFCOUNT h"), c("PFADD h b c"), recv(1, 2),
		c("PFMERGE h"), recv(1, 2), c("PFMERGE d h"), recv(1, 4), c("PFDEBUG TODENSE h"), c("PFCOUNT nosuch"),
		c("SET s x"), recv(1, 4), c("PFADD s x"), c("PFMERGE s"), c("PFADD h2"), recv(1, 4)),
	tc("pfcount under watch",
		c("PFADD h a"), c("WATCH h"), c("PFCOUNT h"), c("MULTI"), c("PING"), c("EXEC"),
		c("WATCH h"), c("PFCOUNT h"), c("MULTI"), c("PING"), c("EXEC"),
		c("WATCH h"), c("PFDEBUG TODENSE h"), c("MULTI"), c("PING"), c("EXEC")),
}

func TestDiffHLL(t *testing.T) {
	redistest.Require(t)
	p := newPair(t, "")
	for _, g := range []caseGroup{{"hll", hllCases}, {"hll once", hllOnce}, {"hll via", allVia(hllCases)}} {
		t.Run(g.name, func(t *testing.T) {
			for _, dc := range g.cases {
				t.Run(dc.name, func(t *testing.T) { p.run(t, dc) })
			}
		})
	}
}

// TestDiffPFSelfTest runs PFSELFTEST (ten million additions, dense and
// sparse side by side) on both servers, with time for a race-detector
// build: both must pass it.
func TestDiffPFSelfTest(t *testing.T) {
	redistest.Require(t)
	p := newPair(t, "")
	for _, e := range p.ends {
		c := redistest.Dial(t, e.addr)
		c.Timeout = 3 * time.Minute
		if r, err := c.Do("PFSELFTEST"); err != nil || string(r) != "+OK\r\n" {
			t.Errorf("%s: PFSELFTEST = %q, %v", e.name, r, err)
		}
	}
}

// TestDiffRandomHLL sends generated HyperLogLog cases: thousands of
// additions that cross the sparse to dense switch, merges of sparse and
// dense values, and values crafted or corrupted byte by byte (SET then
// every PF command), each followed by GET of every key. Seeded: rerun a
// failure with -diff.seed.
func TestDiffRandomHLL(t *testing.T) {
	redistest.Require(t)
	r := seededRand(t)
	p := newPair(t, "")
	for _, g := range []caseGroup{
		{"growth", randomHLLGrowth(r, 6)},
		{"merge", randomVia(r, randomHLLMerge(r, 30))},
		{"corrupt", randomHLLCorrupt(r, 400)},
	} {
		t.Run(g.name, func(t *testing.T) {
			for _, dc := range g.cases {
				t.Run(dc.name, func(t *testing.T) { p.run(t, dc) })
			}
		})
	}
}

// hllElements returns n distinct-ish elements of random lengths (the hash
// reads 8 bytes at a time, then a tail).
func hllElements(r *rand.Rand, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = strconv.FormatUint(r.Uint64()>>r.IntN(64), 36) + randomString(r, "xyz\x00\xff", 3)
	}
	return out
}

// randomHLLGrowth adds up to a few thousand elements to one key in
// batches, reading the value and its count as it goes; the threshold is
// sometimes lowered so the switch comes sooner.
func randomHLLGrowth(r *rand.Rand, n int) []diffCase {
	var cases []diffCase
	for i := range n {
		steps := []step{cmd("CONFIG", "SET", "hll-sparse-max-bytes", []string{"3000", "3000", "500", "0", "5000"}[r.IntN(5)])}
		total := 0
		for total < 4000 {
			batch := 1 + r.IntN(60)
			total += batch
			steps = append(steps, cmd(append([]string{"PFADD", "h"}, hllElements(r, batch)...)...))
			switch r.IntN(4) {
			case 0:
				steps = append(steps, c("GET h"))
			case 1:
				steps = append(steps, c("PFCOUNT h"), c("GET h"))
			case 2:
				steps = append(steps, c("PFCOUNT h nosuch"))
			}
		}
		steps = append(steps, c("GET h"), c("PFDEBUG ENCODING h"), c("PFCOUNT h"), c("GET h"),
			cmd("CONFIG", "SET", "hll-sparse-max-bytes", "3000"))
		cases = append(cases, tc(fmt.Sprintf("growth %d", i), steps...))
	}
	return cases
}

// randomHLLMerge builds a few keys of random sizes (some dense) and
// merges and counts them in random mixes.
func randomHLLMerge(r *rand.Rand, n int) []diffCase {
	keys := []string{"a", "b", "c", "d"}
	var cases []diffCase
	for i := range n {
		var steps []step
		for range 12 {
			k := keys[r.IntN(len(keys))]
			switch r.IntN(5) {
			case 0, 1:
				size := []int{1, 5, 50, 400, 1500}[r.IntN(5)]
				steps = append(steps, cmd(append([]string{"PFADD", k}, hllElements(r, size)...)...))
			case 2:
				args := []string{"PFMERGE", k}
				for range r.IntN(4) {
					args = append(args, keys[r.IntN(len(keys))])
				}
				steps = append(steps, cmd(args...), cmd("GET", k))
			case 3:
				args := []string{"PFCOUNT"}
				for range 1 + r.IntN(3) {
					args = append(args, keys[r.IntN(len(keys))])
				}
				steps = append(steps, cmd(args...))
			default:
				steps = append(steps, cmd("PFDEBUG", []string{"TODENSE", "ENCODING", "DECODE"}[r.IntN(3)], k))
			}
		}
		for _, k := range keys {
			steps = append(steps, cmd("GET", k))
		}
		cases = append(cases, tc(fmt.Sprintf("merge %d", i), steps...))
	}
	return cases
}

// randomSparse is a sparse value whose opcodes cover exactly the 16384
// registers: runs of zeroes (ZERO up to 64, XZERO up to 16384) and of
// values (VAL: value 1-32, run up to 4), in random order.
func randomSparse(r *rand.Rand) []byte {
	b := []byte(hllHeader(1, uint64(r.IntN(100)), r.IntN(4) != 0))
	left := 16384
	for left > 0 {
		switch r.IntN(3) {
		case 0:
			n := min(left, 1+r.IntN(64))
			b = append(b, byte(n-1))
			left -= n
		case 1:
			n := min(left, 1+r.IntN(16384))
			b = append(b, byte((n-1)>>8)|0x40, byte(n-1))
			left -= n
		default:
			n := min(left, 1+r.IntN(4))
			b = append(b, byte((r.IntN(32))<<2|(n-1))|0x80)
			left -= n
		}
	}
	return b
}

// randomDense is a dense value with random registers (up to 63, past what
// a sparse value can hold).
func randomDense(r *rand.Rand) []byte {
	b := []byte(hllHeader(0, uint64(r.IntN(100)), r.IntN(2) == 0))
	for range 12288 {
		if r.IntN(8) == 0 {
			b = append(b, byte(r.IntN(256)))
		} else {
			b = append(b, 0)
		}
	}
	return b
}

// corrupt damages v one of several ways, or leaves it whole.
func corrupt(r *rand.Rand, v []byte) []byte {
	v = append([]byte(nil), v...)
	switch r.IntN(8) {
	case 0: // a few bytes anywhere past the header
		for range 1 + r.IntN(3) {
			if len(v) > 16 {
				v[16+r.IntN(len(v)-16)] = byte(r.IntN(256))
			}
		}
	case 1: // cut short, often mid-opcode
		v = v[:r.IntN(len(v)+1)]
	case 2: // a header byte
		v[r.IntN(16)] = byte(r.IntN(256))
	case 3: // bytes appended
		for range 1 + r.IntN(4) {
			v = append(v, byte(r.IntN(256)))
		}
	case 4: // bytes inserted
		at := 16 + r.IntN(len(v)-15)
		ins := []byte{byte(r.IntN(256)), byte(r.IntN(256))}[:1+r.IntN(2)]
		v = append(v[:at], append(ins, v[at:]...)...)
	case 5: // the last byte dropped: an XZERO there loses its second byte
		v = v[:len(v)-1]
	}
	return v
}

// randomHLLCorrupt stores crafted values, whole or damaged, and sends one
// PF command at them, then reads every key back.
func randomHLLCorrupt(r *rand.Rand, n int) []diffCase {
	var cases []diffCase
	for i := range n {
		var v []byte
		if r.IntN(4) == 0 {
			v = randomDense(r)
		} else {
			v = randomSparse(r)
		}
		v = corrupt(r, v)
		steps := []step{cmd("PFADD", "good", "x", "y"), cmd("SET", "k", string(v))}
		if r.IntN(3) == 0 {
			steps = append(steps, cmd("CONFIG", "SET", "hll-sparse-max-bytes", strconv.Itoa(r.IntN(200))))
		}
		els := hllElements(r, []int{1, 3, 30, 300}[r.IntN(4)])
		switch r.IntN(8) {
		case 0, 1:
			steps = append(steps, cmd(append([]string{"PFADD", "k"}, els...)...))
		case 2:
			steps = append(steps, c("PFCOUNT k"))
		case 3:
			steps = append(steps, c("PFCOUNT good k"))
		case 4:
			steps = append(steps, c("PFMERGE k good"))
		case 5:
			steps = append(steps, c("PFMERGE d k good"))
		case 6:
			steps = append(steps, cmd("PFDEBUG", []string{"GETREG", "DECODE", "ENCODING", "TODENSE"}[r.IntN(4)], "k"))
		default:
			steps = append(steps, c("PFADD k"))
		}
		steps = append(steps, c("GET k"), c("GET d"), c("PFCOUNT k"), c("GET k"),
			cmd("CONFIG", "SET", "hll-sparse-max-bytes", "3000"))
		cases = append(cases, tc(fmt.Sprintf("corrupt %d %s", i, strings.ToLower(fmt.Sprint(len(v)))), steps...))
	}
	return cases
}
