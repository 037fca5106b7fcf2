package keyspace

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/minilock/minilock/internal/redisstr"
)

// A large sorted set driven by random adds, moves and deletes (many ties,
// -0 and 0, enough deletes to compact its dict, clones along the way)
// holds what a model holds, in Redis's order; and so does a small one,
// packed throughout (thresholds out of reach).
func TestZSetValueMatchesAModel(t *testing.T) {
	for _, small := range []bool{false, true} {
		t.Run(map[bool]string{false: "large", true: "small"}[small], func(t *testing.T) { testZSetValueModel(t, small) })
	}
}

func testZSetValueModel(t *testing.T, small bool) {
	enc := DefaultEncodings()
	if small {
		enc.ZSetMaxListpackEntries = 1 << 20
	}
	for seed := uint64(1); seed <= 3; seed++ {
		rng := rand.New(rand.NewPCG(seed, 11))
		z := &zsetValue{}
		model := map[string]float64{}
		var clone *zsetValue
		var cloneModel map[string]float64
		check := func(z *zsetValue, model map[string]float64, step int) {
			want := make([]zitem, 0, len(model))
			for m, s := range model {
				want = append(want, zitem{s, m})
			}
			slices.SortFunc(want, func(a, b zitem) int {
				switch {
				case zless(a, b):
					return -1
				case zless(b, a):
					return 1
				}
				return 0
			})
			if z.len() != len(want) {
				t.Fatalf("seed %d step %d: len %d, want %d", seed, step, z.len(), len(want))
			}
			i := 0
			z.each(0, z.len()-1, false, func(m []byte, s float64) bool {
				if string(m) != want[i].member || math.Float64bits(s) != math.Float64bits(want[i].score) {
					t.Fatalf("seed %d step %d: rank %d is %q %v, want %q %v", seed, step, i, m, s, want[i].member, want[i].score)
				}
				if r, ok := z.rank(m); !ok || r != i {
					t.Fatalf("seed %d step %d: rank(%q) = %d, %v; want %d", seed, step, m, r, ok, i)
				}
				if sc, ok := z.score(m); !ok || math.Float64bits(sc) != math.Float64bits(s) {
					t.Fatalf("seed %d step %d: score(%q) = %v, %v; want %v", seed, step, m, sc, ok, s)
				}
				i++
				return true
			})
			if len(want) == 0 {
				return
			}
			// Backwards over a middle range, and rank by rank.
			from, to := len(want)/4, len(want)-1-len(want)/4
			j := to
			z.each(from, to, true, func(m []byte, s float64) bool {
				if string(m) != want[j].member || math.Float64bits(s) != math.Float64bits(want[j].score) {
					t.Fatalf("seed %d step %d: backwards, rank %d is %q %v, want %q %v", seed, step, j, m, s, want[j].member, want[j].score)
				}
				j--
				return true
			})
			if j != from-1 {
				t.Fatalf("seed %d step %d: backwards from %d to %d stopped at %d", seed, step, to, from, j)
			}
			for _, r := range []int{0, from, to, len(want) - 1} {
				if m, s := z.at(r); string(m) != want[r].member || math.Float64bits(s) != math.Float64bits(want[r].score) {
					t.Fatalf("seed %d step %d: at(%d) is %q %v, want %q %v", seed, step, r, m, s, want[r].member, want[r].score)
				}
			}
		}
		for step := 0; step < 20000; step++ {
			m := "m" + strconv.Itoa(rng.IntN(1500))
			switch {
			case step > 14000 || rng.IntN(3) == 0:
				_, had := model[m]
				if z.del([]byte(m)) != had {
					t.Fatalf("seed %d step %d: del(%s) disagrees", seed, step, m)
				}
				delete(model, m)
			default:
				s := float64(rng.IntN(20) - 10)
				switch rng.IntN(10) {
				case 0:
					s += 0.5 // a float in a pack
				case 1:
					s *= 1e12 // a wide integer
				}
				if s == 0 && rng.IntN(2) == 0 {
					s = math.Copysign(0, -1)
				}
				wasSmall := z.tree == nil
				z.put([]byte(m), s, &enc)
				if wasSmall && z.tree != nil {
					for k, v := range model { // a pack loses -0's sign
						model[k] = v + 0
					}
				}
				if z.tree == nil {
					s += 0
				}
				model[m] = s
			}
			if step%4000 == 0 && z.tree != nil {
				clone, cloneModel = z.clone().(*zsetValue), maps(model)
				clone.put([]byte("only-in-clone"), 1, &enc)
				cloneModel["only-in-clone"] = 1
			}
			if step%1000 == 0 {
				check(z, model, step)
				if clone != nil {
					check(clone, cloneModel, step)
				}
			}
		}
		check(z, model, -1)
	}
}

func maps(m map[string]float64) map[string]float64 {
	c := make(map[string]float64, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// A small set's entry reads back as it was written (-0 as 0), whatever
// the member's bytes, its score in as few bytes as an integral score
// needs.
func TestPackScoreRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	scores := []float64{0, math.Copysign(0, -1), 1, -1, 63, 64, -64, -65, 127, 128, -128, -129, 255, 256, 8191, 8192, -8192, -8193, 32767, 32768, -32769,
		1<<53 - 1, -(1<<53 - 1), 1 << 53, -(1 << 53), 1e300, -1e300, 0.5, -2.25, math.Inf(1), math.Inf(-1),
		math.SmallestNonzeroFloat64, math.MaxFloat64, 1 << 62, -(1 << 63), 1764000000000}
	for i := 0; i < 10000; i++ {
		scores = append(scores, float64(rng.Int64N(1<<54)-1<<53), float64(rng.Int64N(1<<20)-1<<19), rng.NormFloat64()*1e6, math.Float64frombits(rng.Uint64()))
	}
	members := [][]byte{nil, {0}, {0x80}, {0xff, 0}, []byte("member:1"), {0, 0, 0, 0, 0, 0, 0, 0, 0, 0}}
	for i, f := range scores {
		if math.IsNaN(f) {
			continue
		}
		member := members[i%len(members)]
		if i%7 == 0 {
			member = make([]byte, rng.IntN(20))
			for j := range member {
				member[j] = byte(rng.IntN(256))
			}
		}
		var buf [9]byte
		b := packScore(&buf, f, 0)
		base := int64(0)
		m, got := splitEntry(append(append([]byte(nil), member...), b...), &base)
		if math.Float64bits(got) != math.Float64bits(f+0) || string(m) != string(member) || base != baseOf(f) {
			t.Fatalf("%q %v packs as %x, reads back as %q %v (base %d)", member, f, b, m, got, base)
		}
		// After another integral score, as the difference from it.
		prev := float64(rng.Int64N(1<<54) - 1<<53)
		if i%3 == 0 {
			prev = f + float64(rng.IntN(1000))
		}
		if integral(prev) {
			d := packScore(&buf, f, baseOf(prev))
			base := baseOf(prev)
			if m, got := splitEntry(append(append([]byte(nil), member...), d...), &base); math.Float64bits(got) != math.Float64bits(f+0) || string(m) != string(member) || base != baseOf(f) {
				t.Fatalf("%q %v after %v packs as %x, reads back as %q %v", member, f, prev, d, m, got)
			}
			if integral(f) && math.Abs(f-prev) < 64 && len(d) > 1 {
				t.Fatalf("%v after %v packs in %d bytes", f, prev, len(d))
			}
		}
		if f == math.Trunc(f) && math.Abs(f) < 8192 && len(b) > 2 || f == math.Trunc(f) && math.Abs(f) < 1<<40 && len(b) > 6 || len(b) > 9 {
			t.Fatalf("%v packs in %d bytes", f, len(b))
		}
	}
}

// ZADD of many members grows a small set's pack once (see
// TestHashReserveGrowsOnce); members already there reserve nothing.
func TestZSetReserveGrowsOnce(t *testing.T) {
	enc := DefaultEncodings()
	var pairs [][]byte
	var scores []float64
	for j := range 100 {
		scores = append(scores, float64(j*7919))
		pairs = append(pairs, []byte(strconv.Itoa(j*7919)), []byte("member:"+strconv.Itoa(j)))
	}
	var z *zsetValue
	allocs := testing.AllocsPerRun(10, func() {
		z = &zsetValue{}
		z.reserve(pairs, scores, &enc)
		for j, s := range scores {
			z.put(pairs[2*j+1], s, &enc)
		}
	})
	if allocs > 4 {
		t.Errorf("ZADD of 100 members: %.0f allocations", allocs)
	}
	if size, used := z.small.Size(), z.small.End(); size > used+used/8+16 {
		t.Errorf("pack holds %d bytes for %d", size, used)
	}
	before := z.small.Size()
	z.reserve(pairs, scores, &enc)
	if z.small.Size() != before {
		t.Errorf("reserving for members already there grew the pack from %d to %d", before, z.small.Size())
	}
}

// ZRANGEBYSCORE with LIMIT on a packed set stops its walk at the limit; it
// answers as the same set converted to its index does, huge offsets and
// counts included.
func TestZRangeByScoreLimitPackedAsIndexed(t *testing.T) {
	h := newKSTest(t)
	rng := rand.New(rand.NewPCG(21, 4))
	for j := range 100 {
		s := strconv.Itoa(rng.IntN(40) - 20)
		h.run("ZADD", "small", s, "m"+strconv.Itoa(j))
		h.run("ZADD", "big", s, "m"+strconv.Itoa(j))
	}
	h.run("ZADD", "big", "0", strings.Repeat("x", 100)) // past zset-max-listpack-value: converted
	h.run("ZREM", "big", strings.Repeat("x", 100))
	for _, key := range []string{"small", "big"} {
		i, _ := h.k.dbs[0].lookup([]byte(key))
		if z := h.k.dbs[0].slots[i].obj.v.(*zsetValue); (z.tree != nil) != (key == "big") {
			t.Errorf("%s: indexed %v", key, z.tree != nil)
		}
	}
	bounds := []string{"-inf", "+inf", "(0", "5", "(-3", "-20", "19", "(19"}
	counts := []string{"0", "1", "3", "-1", "1000", "9223372036854775807"}
	offsets := []string{"0", "1", "7", "99", "100", "9223372036854775807"}
	for i := 0; i < 2000; i++ {
		args := []string{"ZRANGEBYSCORE", "", bounds[rng.IntN(len(bounds))], bounds[rng.IntN(len(bounds))], "LIMIT", offsets[rng.IntN(len(offsets))], counts[rng.IntN(len(counts))]}
		if rng.IntN(2) == 0 {
			args = append(args, "WITHSCORES")
		}
		args[1] = "small"
		small := h.run(args...)
		args[1] = "big"
		if big := h.run(args...); small != big {
			t.Fatalf("%q: packed %q, indexed %q", args[2:], small, big)
		}
	}
}

// The score-range commands answer on an indexed set as on the same set
// packed (whose walks are the reference here; e2e/diff holds both to
// redis-server): ties, -0, infinities, exclusive bounds, REV, LIMIT
// offsets past the rank seek's threshold, ZCOUNT, ZRANGESTORE, and
// ZREMRANGEBYSCORE and BYRANK, which leave both sets equal.
func TestZScoreRangesPackedAsIndexed(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		t.Run(strconv.FormatUint(seed, 10), func(t *testing.T) { testZScoreRangesPackedAsIndexed(t, seed) })
	}
}

func testZScoreRangesPackedAsIndexed(t *testing.T, seed uint64) {
	h := newKSTest(t)
	rng := rand.New(rand.NewPCG(seed, 5))
	fill := func() {
		h.run("DEL", "small", "big")
		for range 100 + rng.IntN(27) {
			s := strconv.Itoa(rng.IntN(40) - 20)
			switch rng.IntN(12) {
			case 0:
				s = []string{"-0", "inf", "-inf", "0.5", "-3.25", "1e300"}[rng.IntN(6)]
			}
			m := "m" + strconv.Itoa(rng.IntN(200))
			h.run("ZADD", "small", s, m)
			h.run("ZADD", "big", s, m)
		}
		h.run("ZADD", "big", "0", strings.Repeat("x", 100)) // past zset-max-listpack-value: converted
		h.run("ZREM", "big", strings.Repeat("x", 100))
		for _, key := range []string{"small", "big"} {
			i, _ := h.k.dbs[0].lookup([]byte(key))
			if z := h.k.dbs[0].slots[i].obj.v.(*zsetValue); (z.tree != nil) != (key == "big") {
				t.Fatalf("%s: indexed %v", key, z.tree != nil)
			}
		}
	}
	fill()
	bounds := []string{"-inf", "+inf", "(-inf", "(+inf", "(0", "0", "-0", "(-0", "5", "(-3", "-3.25", "(-3.25", "0.5", "(0.5",
		"-20", "19", "(19", "1e300", "(1e300", "7.5"}
	bound := func() string { return bounds[rng.IntN(len(bounds))] }
	counts := []string{"0", "1", "3", "-1", "1000", "9223372036854775807"}
	offsets := []string{"0", "1", "7", "63", "64", "65", "80", "99", "100", "125", "9223372036854775807", "-1"}
	both := func(args ...string) {
		t.Helper()
		args[1] = "small"
		small := h.run(args...)
		args[1] = "big"
		if big := h.run(args...); small != big {
			t.Fatalf("seed %d %q: packed %q, indexed %q", seed, args, small, big)
		}
	}
	for i := 0; i < 3000; i++ {
		var args []string
		switch rng.IntN(8) {
		case 0, 1, 2:
			args = []string{[]string{"ZRANGEBYSCORE", "ZREVRANGEBYSCORE"}[rng.IntN(2)], "", bound(), bound()}
			if rng.IntN(3) > 0 {
				args = append(args, "LIMIT", offsets[rng.IntN(len(offsets))], counts[rng.IntN(len(counts))])
			}
			if rng.IntN(2) == 0 {
				args = append(args, "WITHSCORES")
			}
		case 3:
			args = []string{"ZRANGE", "", bound(), bound(), "BYSCORE", "REV", "LIMIT", offsets[rng.IntN(len(offsets))], counts[rng.IntN(len(counts))]}
		case 4:
			args = []string{"ZCOUNT", "", bound(), bound()}
		case 5:
			tail := []string{bound(), bound(), "BYSCORE", "LIMIT", offsets[rng.IntN(len(offsets))], counts[rng.IntN(len(counts))]}
			if rng.IntN(2) == 0 {
				tail = append(tail, "REV")
			}
			small := h.run(append([]string{"ZRANGESTORE", "dsmall", "small"}, tail...)...)
			big := h.run(append([]string{"ZRANGESTORE", "dbig", "big"}, tail...)...)
			small += h.run("ZRANGE", "dsmall", "0", "-1", "WITHSCORES")
			big += h.run("ZRANGE", "dbig", "0", "-1", "WITHSCORES")
			if small != big {
				t.Fatalf("seed %d ZRANGESTORE %q: packed %q, indexed %q", seed, tail, small, big)
			}
			continue
		case 6:
			// (Lex ranges over unequal scores are undefined: the
			// encodings may differ, as Redis's do.)
			if rng.IntN(2) == 0 {
				args = []string{"ZREMRANGEBYSCORE", "", bound(), bound()}
			} else {
				args = []string{"ZREMRANGEBYRANK", "", strconv.Itoa(rng.IntN(20) - 10), strconv.Itoa(rng.IntN(20) - 10)}
			}
			both(args...)
			args = []string{"ZRANGE", "", "0", "-1", "WITHSCORES"}
		default:
			if rng.IntN(10) == 0 {
				fill()
			}
			continue
		}
		both(args...)
	}
}

// plainScore reads what strtod reads, where it answers at all.
func TestPlainScoreAsStrtod(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	words := []string{"inf", "-inf", "+inf", "INF", "-Inf", "infinity", "in", "-", "+", "", "-0", "+0", "0", "007", "-007",
		"999999999999999", "-999999999999999", "1000000000000000", "9223372036854775807", "1.5", "1e3", " 1", "1 ", "0x10", "nan", "--1", "+-1", "(1"}
	for range 2000 {
		words = append(words, strconv.FormatInt(rng.Int64N(1<<50)-1<<49, 10))
	}
	for _, w := range words {
		f, ok := plainScore([]byte(w))
		if !ok {
			continue
		}
		want, n := redisstr.Strtod(w)
		if n != len(w) || math.Float64bits(f) != math.Float64bits(want) {
			t.Errorf("plainScore(%q) = %v; strtod reads %v (%d of %d bytes)", w, f, want, n, len(w))
		}
	}
	for _, w := range []string{"infinity", "1.5", " 1", "1 ", "0x10", "nan", "", "-", "9223372036854775807", "1000000000000000"} {
		if _, ok := plainScore([]byte(w)); ok {
			t.Errorf("plainScore(%q) answered; strtod should", w)
		}
	}
}

// ZADD and ZINCRBY on a packed set (one walk finds the member and where a
// new one goes; a move deletes and inserts from the old place) leave it
// as the same commands leave an indexed set: scores of every encoding
// (small and wide integers, fractions, infinities), NX/XX/GT/LT/CH/INCR,
// several pairs at once.
func TestZAddPackedAsIndexed(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3, 4} {
		h := newKSTest(t)
		rng := rand.New(rand.NewPCG(seed, 9))
		// The indexed set keeps a long member (past zset-max-listpack-value)
		// last: compared without it.
		h.run("ZADD", "big", "inf", strings.Repeat("x", 100))
		score := func() string {
			switch rng.IntN(8) {
			case 0:
				// (No -0: a pack keeps it as 0, as a listpack does.)
				return []string{"0", "inf", "-inf", "0.5", "-2.75", "1e300"}[rng.IntN(6)]
			case 1:
				return strconv.Itoa(rng.IntN(2000000000000) - 1000000000000)
			}
			return strconv.Itoa(rng.IntN(60) - 30)
		}
		for i := 0; i < 4000; i++ {
			args := []string{"ZADD", ""}
			switch rng.IntN(10) {
			case 0:
				args = append(args, []string{"NX", "XX", "GT", "LT", "CH", "XX CH", "GT CH"}[rng.IntN(7)])
				args = append(args[:2], strings.Fields(args[2])...)
			case 1:
				args = append(args, "INCR")
			}
			for n := 1 + rng.IntN(3); n > 0; n-- {
				args = append(args, score(), "m"+strconv.Itoa(rng.IntN(100)))
				if args[2] == "INCR" {
					break
				}
			}
			if rng.IntN(20) == 0 {
				args = []string{"ZREM", "", "m" + strconv.Itoa(rng.IntN(100)), "m" + strconv.Itoa(rng.IntN(100))}
			}
			args[1] = "small"
			small := h.run(args...) + h.run("ZRANGE", "small", "0", "-1", "WITHSCORES")
			args[1] = "big"
			big := h.run(args...) + h.run("ZRANGE", "big", "0", "-2", "WITHSCORES")
			if small != big {
				t.Fatalf("seed %d step %d %q:\npacked  %q\nindexed %q", seed, i, args, small, big)
			}
		}
		for _, key := range []string{"small", "big"} {
			if i, ok := h.k.dbs[0].lookup([]byte(key)); ok {
				if z := h.k.dbs[0].slots[i].obj.v.(*zsetValue); (z.tree != nil) != (key == "big") {
					t.Errorf("seed %d: %s indexed %v", seed, key, z.tree != nil)
				}
			}
		}
	}
}
