package diff_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/minilock/minilock/internal/redistest"
)

// Bitmaps: SETBIT, GETBIT, BITCOUNT, BITPOS, BITOP, BITFIELD, BITFIELD_RO.
var bitCases = []diffCase{
	tc("setbit getbit", c("SETBIT k 7 1"), c("GET k"), c("SETBIT k 7 1"), c("SETBIT k 7 0"), c("SETBIT k 100 1"),
		c("STRLEN k"), c("GETBIT k 100"), c("GETBIT k 101"), c("GETBIT k 4294967295"), c("GETBIT nosuch 0")),
	tc("setbit offset errors", c("SETBIT k 4294967296 1"), c("SETBIT k -1 1"), c("SETBIT k x 1"), c("SETBIT k 01 1"),
		c("SETBIT k 18446744073709551616 1"), c("GETBIT k 4294967296"), c("GETBIT k -1"), c("EXISTS k")),
	tc("setbit value errors", c("SETBIT k 1 2"), c("SETBIT k 1 -1"), c("SETBIT k 1 x"), c("SETBIT k 1 01"), cmd("SETBIT", "k", "1", ""),
		c("EXISTS k")),
	tc("setbit wrong type", c("RPUSH l a"), c("SETBIT l 0 1"), c("GETBIT l 0"), c("SETBIT l x 1"), c("SETBIT l 0 5")),
	tc("setbit keeps ttl", c("SET k a EX 100"), c("SETBIT k 0 1"), c("TTL k"), c("GET k")),
	tc("setbit on integer", c("SET k 12345"), c("GETBIT k 2"), c("SETBIT k 7 0"), c("GET k"), c("OBJECT ENCODING k").with(stringEncoding)),
	tc("bitcount", c("SET s foobar"), c("BITCOUNT s"), c("BITCOUNT s 0 0"), c("BITCOUNT s 1 1"), c("BITCOUNT s 1 1 BYTE"),
		c("BITCOUNT s 5 30 BIT"), c("BITCOUNT s 5 30 bit"), c("BITCOUNT s -1 -2 foo"), c("BITCOUNT s 0 1 foo"), c("BITCOUNT s 0"),
		c("BITCOUNT s 0 1 bit x"), c("BITCOUNT s x 1"), c("BITCOUNT s 1 x"), c("BITCOUNT s -100 100"), c("BITCOUNT s 7 1 bit"),
		c("BITCOUNT s -9223372036854775808 9223372036854775807 bit"), c("BITCOUNT s -3 -1 bit"), c("BITCOUNT s 0 -1 BYTE")),
	tc("bitcount missing key ignores arguments", c("BITCOUNT nosuch"), c("BITCOUNT nosuch 0"), c("BITCOUNT nosuch x y z"),
		c("BITCOUNT nosuch 0 1 foo")),
	tc("bitcount wrong type", c("HSET h f v"), c("BITCOUNT h"), c("BITCOUNT h x")),
	tc("bitpos", cmd("SET", "s", "\xff\xf0\x00"), c("BITPOS s 0"), c("BITPOS s 1"), c("BITPOS s 1 2"), c("BITPOS s 0 0 -1"),
		c("BITPOS s 1 8 -1 BIT"), c("BITPOS s 0 1 1 BYTE"), c("BITPOS s 1 12 -1 bit"), c("BITPOS s 0 12 -1 bit"), c("BITPOS s 0 5 5 bit"),
		c("BITPOS s 0 0 1 x"), c("BITPOS s 1 0 1 bit x"), c("BITPOS s 1 x"), c("BITPOS s 1 0 x"), c("BITPOS s x"), c("BITPOS s 2"),
		c("BITPOS s -1"), c("BITPOS s 0 -100 100 bit"), c("BITPOS s 1 3 2")),
	tc("bitpos missing key", c("BITPOS nosuch 0"), c("BITPOS nosuch 1"), c("BITPOS nosuch 2"), c("BITPOS nosuch 1 x y z w"),
		c("BITPOS nosuch x")),
	tc("bitpos end given", cmd("SET", "ones", "\xff\xff\xff"), c("BITPOS ones 0"), c("BITPOS ones 0 0"), c("BITPOS ones 0 0 -1"),
		c("BITPOS ones 0 0 -1 bit"), c("BITPOS ones 0 3 bit"), c("BITPOS ones 0 3"), c("BITPOS ones 0 2"), c("BITPOS ones 0 1 1 bit"),
		c("BITPOS ones 0 5 bit"), c("BITPOS ones 0 20 bit"), c("BITPOS ones 0 20 23 bit"), c("BITPOS ones 1 20 23 bit")),
	tc("bitpos empty string", cmd("SET", "e", ""), c("BITPOS e 0"), c("BITPOS e 1"), c("BITPOS e 0 0"), c("BITPOS e 0 0 -1 bit"),
		c("BITCOUNT e"), c("BITCOUNT e 0 -1 bit")),
	tc("bitpos long runs", cmd("SET", "z", string(make([]byte, 1000))+"\x01"), c("BITPOS z 1"), c("BITPOS z 0"),
		c("BITPOS z 1 3 -1"), c("BITPOS z 1 17 8007 bit"), c("BITPOS z 1 17 8006 bit"), c("SETBIT z 8100 0"), c("BITPOS z 1 1001"),
		c("BITPOS z 0 1001"), c("BITCOUNT z 3 -1"), c("BITCOUNT z 17 8007 bit")),
	tc("bitop", c("SET a abc"), c("SET b a"), c("BITOP AND d a b"), c("GET d"), c("BITOP OR d a b nosuch"), c("GET d"),
		c("BITOP XOR d a b"), c("GET d"), c("BITOP NOT d b"), c("GET d"), c("BITOP NOT d a b"), c("BITOP foo d a"), c("bitop Or d a b"),
		c("GET d"), c("BITOP AND d nosuch a"), c("GET d")),
	tc("bitop empty result deletes", c("SET d x EX 100"), c("BITOP AND d nosuch"), c("EXISTS d"), cmd("SET", "e", ""),
		c("HSET d f v"), c("BITOP OR d e nosuch"), c("EXISTS d")),
	tc("bitop replaces any type and ttl", c("SET a abc"), c("SET d x EX 100"), c("BITOP OR d a"), c("TTL d"), c("RPUSH l x"),
		c("BITOP OR l a"), c("TYPE l"), c("GET l"), c("BITOP OR d a l")),
	tc("bitop long strings", cmd("SET", "a", string(make([]byte, 100))+"\xff\x0f"), cmd("SET", "b", "\xf0\xf0\xf0"),
		c("BITOP AND d a b"), c("GET d"), c("BITOP OR d a b"), c("GET d"), c("BITOP XOR d b a b"), c("GET d"), c("BITOP NOT d a"),
		c("BITCOUNT d")),
	tc("bitfield", c("BITFIELD f SET u8 0 255 GET u8 0 INCRBY u8 0 10"),
		c("BITFIELD f OVERFLOW SAT INCRBY u8 0 300 OVERFLOW FAIL INCRBY u8 0 -300"),
		c("BITFIELD f SET i64 0 -1 GET i64 0 GET u63 0 INCRBY i64 0 -9223372036854775808"),
		c("BITFIELD f GET u8 #1 SET u8 #2 5 GET u8 16"), c("BITFIELD f"), c("BITFIELD f OVERFLOW WRAP"),
		c("BITFIELD f OVERFLOW SAT SET i8 0 1000 SET i8 0 -1000 OVERFLOW WRAP SET i8 0 200"),
		c("BITFIELD f INCRBY i5 100 15 INCRBY i5 100 1 OVERFLOW SAT INCRBY i5 100 -40"), c("GET f")),
	tc("bitfield 64-bit edges", c("BITFIELD f SET i64 3 9223372036854775807 INCRBY i64 3 1 OVERFLOW SAT INCRBY i64 3 1"),
		c("BITFIELD f OVERFLOW FAIL INCRBY i64 3 -1 INCRBY i64 3 9223372036854775807 SET i64 3 -9223372036854775808 INCRBY i64 3 -1"),
		c("BITFIELD f OVERFLOW WRAP INCRBY i64 3 -1 OVERFLOW SAT INCRBY i64 3 -9223372036854775808"),
		c("BITFIELD f SET u63 1 9223372036854775807 INCRBY u63 1 1 OVERFLOW SAT INCRBY u63 1 5 INCRBY u63 1 -9223372036854775808"),
		c("BITFIELD f OVERFLOW FAIL SET u63 1 -1 SET u1 0 2 SET i1 0 -1 GET i1 0 GET u1 0"), c("GET f")),
	tc("bitfield errors", c("BITFIELD f GET u64 0"), c("BITFIELD f GET i65 0"), c("BITFIELD f GET i0 0"), c("BITFIELD f GET x8 0"),
		c("BITFIELD f GET u 0"), c("BITFIELD f GET u-1 0"), c("BITFIELD f GET U8 0"), c("BITFIELD f GET u08 0"),
		c("BITFIELD f GET u8 #-1"), c("BITFIELD f GET u8 #536870912"), c("BITFIELD f GET u8 #536870911"), c("BITFIELD f GET u8 #"),
		c("BITFIELD f GET u8 ##1"), c("BITFIELD f GET u8 4294967296"), c("BITFIELD f GET i64 4294967295"),
		c("BITFIELD f OVERFLOW foo GET u8 0"), c("BITFIELD f GET u8"), c("BITFIELD f foo"), c("BITFIELD f OVERFLOW"),
		c("BITFIELD f SET u8 0"), c("BITFIELD f SET u8 0 x"), c("BITFIELD f SET u8 0 1 GET u8 x"), c("BITFIELD f INCRBY u8 x 1"),
		c("EXISTS f"), cmd("BITFIELD", "f", "GET", "u8\x00junk", "0"), cmd("BITFIELD", "f", "GET\x00x", "u8", "0"),
		cmd("BITFIELD", "f", "GET", "", "0")),
	tc("bitfield hash offsets wrap", c("BITFIELD f GET u8 #2305843009213693953"), c("BITFIELD f GET i64 #144115188075855873"),
		c("BITFIELD f GET u8 #9223372036854775807"), c("BITFIELD f GET u2 #4611686018427387905"), c("EXISTS f")),
	tc("bitfield wrong type", c("RPUSH l x"), c("BITFIELD l GET u8 0"), c("BITFIELD l SET u8 0 1"), c("BITFIELD l"),
		c("BITFIELD_RO l GET u8 0"), c("BITFIELD l GET u99 0")),
	tc("bitfield_ro", cmd("SET", "f", "\x01"), c("BITFIELD_RO f GET u8 0 GET i4 #1"), c("BITFIELD_RO f SET u8 0 1"),
		c("BITFIELD_RO f INCRBY u8 0 1 GET x 0"), c("BITFIELD_RO f OVERFLOW SAT GET u8 0"), c("BITFIELD_RO f"),
		c("BITFIELD_RO nosuch GET u8 0"), c("EXISTS nosuch")),
	tc("bitfield fail creates the key", c("BITFIELD n OVERFLOW FAIL INCRBY u8 8 300"), c("GET n"), c("TTL n")),
	tc("bitfield keeps ttl", c("SET k abc EX 100"), c("BITFIELD k SET u4 0 15"), c("TTL k"), c("GET k")),
	tc(bigBitCase, c("SETBIT big 4294967295 1"), c("STRLEN big"), c("GETBIT big 4294967295"),
		c("BITCOUNT big"), c("BITPOS big 1"), c("BITPOS big 1 -1"), c("BITCOUNT big -1 -1 bit"),
		c("BITFIELD big GET u8 4294967288 SET u4 4294967292 5 GET i64 4294967290"), c("STRLEN big"), c("DEL big")).slowly(),

	// WATCH sees a bit command's write only when something changed.
	tc("watch setbit without change", c("SET k \x01"), c("WATCH k"), c("SETBIT k 7 1").on(1), c("GETBIT k 0").on(1), c("MULTI"),
		c("GET k"), c("EXEC")),
	tc("watch setbit change", c("SET k a"), c("WATCH k"), c("SETBIT k 0 1").on(1), c("MULTI"), c("GET k"), c("EXEC")),
	tc("watch setbit grows", c("SET k a"), c("WATCH k"), c("SETBIT k 20 0").on(1), c("MULTI"), c("GET k"), c("EXEC")),
	tc("watch bitfield without change", c("SET k a"), c("WATCH k"), c("BITFIELD k SET u8 0 97 OVERFLOW FAIL INCRBY u8 0 200").on(1),
		c("MULTI"), c("GET k"), c("EXEC")),
	tc("watch bitfield creating nothing changed", c("WATCH k"), c("BITFIELD k OVERFLOW FAIL INCRBY u8 0 300").on(1), c("MULTI"),
		c("GET k"), c("EXEC")),
	tc("watch bitop", c("SET a x"), c("WATCH d"), c("BITOP AND d nosuch").on(1), c("MULTI"), c("GET d"), c("EXEC"), c("WATCH d"),
		c("BITOP OR d a").on(1), c("MULTI"), c("GET d"), c("EXEC")),

	// Scripts: the flags say which commands a read-only script may call
	// and which maxmemory refuses.
	tc("bits in scripts", cmd("EVAL", "redis.call('setbit',KEYS[1],3,1) return redis.call('bitfield',KEYS[1],'get','u8',0)", "1", "k"),
		cmd("EVAL_RO", "return redis.call('bitcount',KEYS[1])", "1", "k"),
		cmd("EVAL_RO", "return redis.call('bitfield_ro',KEYS[1],'get','u4','#0')", "1", "k"),
		cmd("EVAL_RO", "return redis.pcall('setbit',KEYS[1],3,0)", "1", "k"),
		cmd("EVAL_RO", "return redis.pcall('bitfield',KEYS[1],'get','u4',0)", "1", "k"),
		cmd("EVAL", "#!lua flags=no-writes\nreturn redis.pcall('bitop','not',KEYS[1],KEYS[1])", "1", "k"),
		cmd("EVAL", "return redis.pcall('bitpos',KEYS[1],2)", "1", "k"),
		cmd("EVAL", "return redis.call('bitfield',KEYS[1],'overflow','fail','incrby','u2',0,9)", "1", "k")),
	oomCase("bits under maxmemory", c("SETBIT k 0 1"), c("BITFIELD k GET u8 0"), c("BITFIELD k SET u8 0 1"), c("BITFIELD_RO k GET u8 0"),
		c("BITOP OR d before"), c("GETBIT before 0"), c("BITCOUNT before"), c("BITPOS before 1"),
		cmd("EVAL", "return redis.pcall('setbit','k',0,1)", "0"), cmd("EVAL", "return redis.pcall('bitcount','before')", "0")),
}

const bigBitCase = "bit commands on the largest offset"

// randomBitCases are sequences of bitmap commands on two string keys and
// a hash (for WRONGTYPE), with offsets at the edges (byte boundaries,
// 2^32-1 and 2^32, negative, not integers), BITFIELD with every type width,
// signed and unsigned, #offsets and each OVERFLOW mode, and ranges that
// cross the strings' ends. Writes stay below 128 KiB; reads and errors go
// to the largest offsets.
func randomBitCases(r *rand.Rand, n int) []diffCase {
	key := func() string { return []string{"a", "b", "a", "b", "h", "nosuch"}[r.IntN(6)] }
	smallOff := func() string {
		switch r.IntN(6) {
		case 0:
			return strconv.Itoa(r.IntN(64))
		case 1:
			return strconv.Itoa(8*r.IntN(40) + []int{0, 7, 8, -1}[r.IntN(4)])
		case 2:
			return strconv.Itoa(r.IntN(1 << 20))
		case 3:
			return []string{"-1", "x", "", "01", "4294967296", "9223372036854775807", "-9223372036854775808", " 1"}[r.IntN(8)]
		}
		return strconv.Itoa(r.IntN(300))
	}
	bigOff := func() string {
		return strconv.Itoa(4294967296 - r.IntN(80))
	}
	off := func(write bool) string {
		if !write && r.IntN(5) == 0 {
			return bigOff()
		}
		return smallOff()
	}
	idx := func() string {
		switch r.IntN(5) {
		case 0:
			return randomInteger(r)
		case 1:
			return strconv.Itoa(r.IntN(400) - 200)
		}
		return strconv.Itoa(r.IntN(20) - 10)
	}
	unit := func() []string {
		switch r.IntN(5) {
		case 0:
			return nil
		case 1:
			return []string{[]string{"BIT", "bit", "BYTE", "byte", "bits", "Bit"}[r.IntN(6)]}
		}
		return []string{[]string{"BIT", "BYTE"}[r.IntN(2)]}
	}
	ftype := func() string {
		if r.IntN(15) == 0 {
			return []string{"u64", "i65", "i0", "u", "x8", "U8", "i08", "u-3"}[r.IntN(8)]
		}
		if r.IntN(2) == 0 {
			return "u" + strconv.Itoa(1+r.IntN(63))
		}
		return "i" + strconv.Itoa(1+r.IntN(64))
	}
	foff := func(write bool) string {
		if r.IntN(4) == 0 {
			return "#" + strconv.Itoa(r.IntN(30))
		}
		if r.IntN(20) == 0 {
			// #536870912 is past the limit for a field of 8 bits or more,
			// and a write of hundreds of MB for a narrower one.
			if write {
				return []string{"#-1", "#", "#x"}[r.IntN(3)]
			}
			return []string{"#-1", "#", "#x", "#536870912"}[r.IntN(4)]
		}
		return off(write)
	}
	fval := func() string {
		switch r.IntN(4) {
		case 0:
			return randomInteger(r)
		case 1:
			return strconv.FormatInt(r.Int64()>>r.IntN(64)*[]int64{1, -1}[r.IntN(2)], 10)
		}
		return strconv.Itoa(r.IntN(600) - 300)
	}
	val := func() string {
		b := make([]byte, r.IntN(12))
		for i := range b {
			b[i] = []byte{0, 0xff, 0x0f, 0x80, byte(r.Uint32())}[r.IntN(5)]
		}
		return string(b)
	}
	var cases []diffCase
	for i := range n {
		var steps []step
		for range 30 {
			k := key()
			switch r.IntN(16) {
			case 0, 1, 2:
				steps = append(steps, cmd("SETBIT", k, off(true), []string{"0", "1", "1", "0", "2", "-1", "x"}[r.IntN(7)]))
			case 3:
				steps = append(steps, cmd("GETBIT", k, off(false)))
			case 4, 5:
				args := []string{"BITCOUNT", k}
				if r.IntN(6) != 0 {
					args = append(args, idx(), idx())
					args = append(args, unit()...)
				}
				steps = append(steps, cmd(args...))
			case 6, 7:
				args := []string{"BITPOS", k, []string{"0", "1", "1", "0", "2", "x"}[r.IntN(6)]}
				switch r.IntN(4) {
				case 1:
					args = append(args, idx())
				case 2:
					args = append(args, idx(), idx())
				case 3:
					args = append(args, idx(), idx())
					args = append(args, unit()...)
				}
				steps = append(steps, cmd(args...))
			case 8:
				op := []string{"AND", "OR", "XOR", "NOT", "and", "nand"}[r.IntN(6)]
				args := []string{"BITOP", op, key()}
				for range 1 + r.IntN(3) {
					args = append(args, key())
				}
				steps = append(steps, cmd(args...))
			case 9, 10, 11:
				name := "BITFIELD"
				if r.IntN(5) == 0 {
					name = "BITFIELD_RO"
				}
				args := []string{name, k}
				for range r.IntN(5) {
					switch r.IntN(5) {
					case 0:
						args = append(args, "GET", ftype(), foff(false))
					case 1:
						args = append(args, "SET", ftype(), foff(true), fval())
					case 2:
						args = append(args, "INCRBY", ftype(), foff(true), fval())
					case 3:
						args = append(args, "OVERFLOW", []string{"WRAP", "SAT", "FAIL", "fail", "sat", "bogus"}[r.IntN(6)])
					default:
						args = append(args, []string{"GET", "SET", "INCRBY", "OVERFLOW", "foo"}[r.IntN(5)])
					}
				}
				steps = append(steps, cmd(args...))
			case 12:
				steps = append(steps, cmd("SET", k, val()))
			case 13:
				steps = append(steps, cmd([]string{"GET", "STRLEN", "EXISTS", "TYPE"}[r.IntN(4)], k))
			case 14:
				steps = append(steps, cmd("APPEND", k, val()))
			default:
				steps = append(steps, cmd("HSET", "h", "f", "v"), cmd("SETRANGE", k, strconv.Itoa(r.IntN(20)), val()))
			}
		}
		steps = append(steps, cmd("GET", "a"), cmd("GET", "b"))
		cases = append(cases, tc(fmt.Sprintf("bits %d", i), steps...))
	}
	return cases
}

// TestDiffBits runs the bitmap cases, plain and every variant's way, and
// the seeded generator's cases, against redis-server. Rerun a failure of
// the generated ones with -diff.seed.
func TestDiffBits(t *testing.T) {
	redistest.Require(t)
	r := seededRand(t)
	groups := []caseGroup{
		{"bits", bitCases},
		{"bits via", allVia(slices.DeleteFunc(slices.Clone(bitCases), func(dc diffCase) bool {
			return dc.name == bigBitCase // 512 MiB once is enough
		}))},
		{"bits random", randomVia(r, randomBitCases(r, 120))},
	}
	checkCaseNames(t, groups)
	p := newPair(t, "")
	steps := 0
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			for _, dc := range g.cases {
				steps += len(dc.steps)
				t.Run(dc.name, func(t *testing.T) { p.run(t, dc) })
			}
		})
	}
	t.Logf("%d steps compared", steps)
}
