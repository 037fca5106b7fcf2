package keyspace

import (
	"math"
	"sort"
	"strings"

	"github.com/minilock/minilock/internal/cmdargs"
	"github.com/minilock/minilock/internal/redisstr"
	"github.com/minilock/minilock/resp"
)

// Sorted sets (t_zset.c).

var (
	errNotFloat2     = resp.NewError("min or max is not a float")
	errNotLexRange   = resp.NewError("min or max not valid string range item")
	errZAddNXXX      = resp.NewError("XX and NX options at the same time are not compatible")
	errZAddGTLTNX    = resp.NewError("GT, LT, and/or NX options at the same time are not compatible")
	errZAddIncrPairs = resp.NewError("INCR option supports a single increment-element pair")
	errZNaN          = resp.NewError("resulting score is not a number (NaN)")
	errLimitRank     = resp.NewError("syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX")
	errScoresLex     = resp.NewError("syntax error, WITHSCORES not supported in combination with BYLEX")
	errWeightFloat   = resp.NewError("weight value is not a float")
)

// zsetOf finds key's sorted set: nil when missing, errWrongType for
// another type.
func (k *Keyspace) zsetOf(c *Ctx, key []byte, read bool) (*zsetValue, *object, uint32, error) {
	o, i, err := k.objectOf(c, key, kindZSet, read)
	if o == nil || err != nil {
		return nil, nil, 0, err
	}
	return o.v.(*zsetValue), o, i, nil
}

// floatArg is getDoubleFromObject: strtod over the whole argument, no
// leading space, no overflow or underflow to zero, no NaN.
func floatArg(b []byte) (float64, bool) {
	if f, ok := plainScore(b); ok {
		return f, true
	}
	return redisstr.String2d(string(b))
}

// zrangeSpec is a score range (zrangespec).
type zrangeSpec struct {
	min, max     float64
	minex, maxex bool
}

// plainScore parses the scores clients mostly send, a decimal integer of
// up to 15 digits (exact in a float64) or an infinity with its sign, as
// strtod reads them; false for anything else, which strtod then reads.
func plainScore(b []byte) (float64, bool) {
	neg := false
	d := b
	if len(d) > 0 && (d[0] == '-' || d[0] == '+') {
		neg, d = d[0] == '-', d[1:]
	}
	if len(d) == 0 || len(d) > 15 {
		return 0, false
	}
	var n int64
	for _, c := range d {
		if c < '0' || c > '9' {
			if len(d) == 3 && (d[0]|0x20) == 'i' && (d[1]|0x20) == 'n' && (d[2]|0x20) == 'f' {
				if neg {
					return math.Inf(-1), true
				}
				return math.Inf(1), true
			}
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	f := float64(n)
	if neg {
		f = -f // -0 too, as strtod gives
	}
	return f, true
}

// parseScoreBound is one end of zslParseRange: "(" makes it exclusive;
// the rest is strtod over the whole string (an empty one is 0).
func parseScoreBound(b []byte) (float64, bool, bool) {
	ex := false
	if len(b) > 0 && b[0] == '(' {
		ex, b = true, b[1:]
	}
	if f, ok := plainScore(b); ok {
		return f, ex, true
	}
	s := string(b)
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i] // C reads up to the NUL; eptr[0] is then '\0'
	}
	f, n := redisstr.Strtod(s)
	if n != len(s) || f != f {
		return 0, false, false
	}
	return f, ex, true
}

func parseScoreRange(min, max []byte) (zrangeSpec, bool) {
	var r zrangeSpec
	var ok bool
	if r.min, r.minex, ok = parseScoreBound(min); !ok {
		return r, false
	}
	if r.max, r.maxex, ok = parseScoreBound(max); !ok {
		return r, false
	}
	return r, true
}

func (r zrangeSpec) gteMin(s float64) bool {
	if r.minex {
		return s > r.min
	}
	return s >= r.min
}

func (r zrangeSpec) lteMax(s float64) bool {
	if r.maxex {
		return s < r.max
	}
	return s <= r.max
}

// zlexSpec is a lex range (zlexrangespec): -inf and +inf for "-" and "+".
type zlexSpec struct {
	min, max       string
	minInf, maxInf int // -1: "-", +1: "+", 0: a string
	minex, maxex   bool
}

func parseLexItem(b []byte) (s string, inf int, ex bool, ok bool) {
	if len(b) == 0 {
		return "", 0, false, false
	}
	switch b[0] {
	case '+', '-':
		if len(b) > 1 && b[1] != 0 {
			return "", 0, false, false
		}
		if b[0] == '+' {
			return "", 1, true, true
		}
		return "", -1, true, true
	case '(':
		return string(b[1:]), 0, true, true
	case '[':
		return string(b[1:]), 0, false, true
	}
	return "", 0, false, false
}

func parseLexRange(min, max []byte) (zlexSpec, bool) {
	var r zlexSpec
	var ok bool
	if r.min, r.minInf, r.minex, ok = parseLexItem(min); !ok {
		return r, false
	}
	if r.max, r.maxInf, r.maxex, ok = parseLexItem(max); !ok {
		return r, false
	}
	return r, true
}

// cmpLex compares member with a range item (sdscmplex).
func cmpLex(member, item string, inf int) int {
	switch inf {
	case -1:
		return 1
	case 1:
		return -1
	}
	return strings.Compare(member, item)
}

func (r zlexSpec) gteMin(m string) bool {
	if r.minex {
		return cmpLex(m, r.min, r.minInf) > 0
	}
	return cmpLex(m, r.min, r.minInf) >= 0
}

func (r zlexSpec) lteMax(m string) bool {
	if r.maxex {
		return cmpLex(m, r.max, r.maxInf) < 0
	}
	return cmpLex(m, r.max, r.maxInf) <= 0
}

// scoreRanks is the rank interval [lo, hi] of members in r (lo > hi: none).
func (z *zsetValue) scoreRanks(r zrangeSpec) (int, int) {
	if r.min > r.max || r.min == r.max && (r.minex || r.maxex) {
		return 0, -1
	}
	lo := z.firstScoreRank(r.gteMin)
	hi := z.firstScoreRank(func(s float64) bool { return !r.lteMax(s) }) - 1
	return lo, hi
}

// lexRanks is scoreRanks for a lex range: from the first member at or
// past min, as long as members stay within max (zzlFirstInLexRange and the
// walk after it; meaningful when all scores are equal, as Redis says).
func (z *zsetValue) lexRanks(r zlexSpec) (int, int) {
	if !z.inLexRange(r) {
		return 0, -1
	}
	lo := z.firstRank(func(it zitem) bool { return r.gteMin(it.member) })
	hi := lo - 1
	if z.tree != nil {
		lo2, hi2 := lo, z.tree.Len()
		for lo2 < hi2 {
			mid := int(uint(lo2+hi2) >> 1)
			if !r.lteMax(z.itemAt(mid).member) {
				hi2 = mid
			} else {
				lo2 = mid + 1
			}
		}
		return lo, lo2 - 1
	}
	z.each(lo, z.len()-1, false, func(m []byte, _ float64) bool {
		if !r.lteMax(transient(m)) {
			return false
		}
		hi++
		return true
	})
	return lo, hi
}

// inLexRange is zzlIsInLexRange/zslIsInLexRange: a lex range that the
// last member is below or the first member above is empty, whatever lies
// between. (With equal scores this only saves work; with unequal ones,
// which Redis calls undefined, it decides the answer.)
func (z *zsetValue) inLexRange(r zlexSpec) bool {
	n := z.len()
	if n == 0 {
		return false
	}
	last, _ := z.at(n - 1)
	first, _ := z.at(0)
	return r.gteMin(string(last)) && r.lteMax(string(first))
}

// revLexRanks is lexRanks for a reversed lex range, as zzlLastInLexRange
// and the walk back from it find it: from the last member, back to the
// first one within max; then back as long as members stay within min. It
// differs from lexRanks only when scores differ. A large set's index is
// searched as lexRanks does (Redis's skiplist search is its own there).
func (z *zsetValue) revLexRanks(r zlexSpec) (int, int) {
	if z.tree != nil {
		return z.lexRanks(r)
	}
	if !z.inLexRange(r) {
		return 0, -1
	}
	var members []string
	z.each(0, z.len()-1, false, func(m []byte, _ float64) bool {
		members = append(members, string(m))
		return true
	})
	hi := len(members) - 1
	for hi >= 0 && !r.lteMax(members[hi]) {
		hi--
	}
	if hi < 0 || !r.gteMin(members[hi]) {
		return 0, -1
	}
	lo := hi
	for lo > 0 && r.gteMin(members[lo-1]) {
		lo--
	}
	return lo, hi
}

// replyScore writes a score as addReplyDouble does.
func replyScore(w *resp.Writer, s float64) { w.Double(s) }

// ZADD key [NX|XX] [GT|LT] [CH] [INCR] score member [score member ...]
func CmdZAdd(k *Keyspace, c *Ctx, args [][]byte) error { return k.zadd(c, args, false) }

// ZINCRBY key increment member
func CmdZIncrBy(k *Keyspace, c *Ctx, args [][]byte) error { return k.zadd(c, args, true) }

// zadd is zaddGenericCommand: ZADD, and ZINCRBY as ZADD INCR.
func (k *Keyspace) zadd(c *Ctx, args [][]byte, zincrby bool) error {
	var nx, xx, gt, lt, ch bool
	incr := zincrby
	idx := 2
	// ZINCRBY reads options too (Redis runs the same loop): its increment
	// spelled as an option leaves one argument, a syntax error.
	for ; idx < len(args); idx++ {
		switch a := args[idx]; {
		case equalFold(a, "nx"):
			nx = true
		case equalFold(a, "xx"):
			xx = true
		case equalFold(a, "ch"):
			ch = true
		case equalFold(a, "incr"):
			incr = true
		case equalFold(a, "gt"):
			gt = true
		case equalFold(a, "lt"):
			lt = true
		default:
			goto pairs
		}
	}
pairs:
	n := len(args) - idx
	if n%2 != 0 || n == 0 {
		return resp.ErrSyntax
	}
	n /= 2
	switch {
	case nx && xx:
		return errZAddNXXX
	case gt && nx, lt && nx, gt && lt:
		return errZAddGTLTNX
	case incr && n > 1:
		return errZAddIncrPairs
	}
	scores := make([]float64, n)
	for j := range scores {
		f, ok := floatArg(args[idx+2*j])
		if !ok {
			return errNotFloat
		}
		scores[j] = f
	}
	z, o, i, err := k.zsetOf(c, args[1], false)
	if err != nil {
		return err
	}
	var added, updated, processed int
	var score float64
	if z == nil && !xx {
		z = &zsetValue{}
		o, i = k.create(c, args[1], kindZSet, z)
	}
	if z != nil && !xx {
		z.reserve(args[idx:], scores, &k.enc)
	}
	for j := 0; z != nil && j < n; j++ {
		member := args[idx+2*j+1]
		score = scores[j]
		// One search: a small set's walk also finds where a new
		// member goes; a large set's lookup keeps the dict slot.
		var f zfound
		var cur float64
		var slot uint32
		var exists bool
		if z.tree == nil {
			f = z.smallFind(member, score)
			cur, exists = f.score, f.off >= 0
		} else {
			cur, slot, exists = z.lookup(member)
		}
		switch {
		case exists && nx, !exists && xx:
			continue // a no-op
		case exists:
			if incr {
				score += cur
				if score != score {
					if added+updated > 0 {
						k.changed(c, args[1], i, o)
						k.notify(NotifyZSet, zaddEvent(incr), args[1], c.DB)
					}
					return errZNaN
				}
			}
			if lt && score >= cur || gt && score <= cur {
				continue
			}
			processed++
			if score != cur {
				if z.tree != nil {
					z.move(slot, cur, score)
				} else {
					z.moveSmall(member, f, score)
				}
				updated++
			}
		default:
			if z.tree == nil && z.len() < k.enc.ZSetMaxListpackEntries && len(member) <= k.enc.ZSetMaxListpackValue {
				z.insertSmall(member, score, f.at, f.atB)
			} else {
				z.putKnown(member, score, &k.enc, true)
			}
			added++
			processed++
		}
	}
	if added+updated > 0 {
		k.changed(c, args[1], i, o)
		k.notify(NotifyZSet, zaddEvent(incr), args[1], c.DB)
	}
	switch {
	case incr && processed > 0:
		replyScore(c.W, score)
	case incr:
		c.W.Null()
	case ch:
		c.W.Int(int64(added + updated))
	default:
		c.W.Int(int64(added))
	}
	return nil
}

// ZREM key member [member ...]
func CmdZRem(k *Keyspace, c *Ctx, args [][]byte) error {
	z, o, i, err := k.zsetOf(c, args[1], false)
	if err != nil || z == nil {
		if err == nil {
			c.W.Int(0)
		}
		return err
	}
	var n int64
	for _, m := range args[2:] {
		if z.del(m) {
			n++
			if z.len() == 0 {
				break
			}
		}
	}
	if n > 0 {
		k.changedNotify(c, args[1], i, o, NotifyZSet, "zrem")
	}
	c.W.Int(n)
	return nil
}

// ZCARD key
func CmdZCard(k *Keyspace, c *Ctx, args [][]byte) error {
	z, _, _, err := k.zsetOf(c, args[1], true)
	if err != nil {
		return err
	}
	n := 0
	if z != nil {
		n = z.len()
	}
	c.W.Int(int64(n))
	return nil
}

// ZSCORE key member
func CmdZScore(k *Keyspace, c *Ctx, args [][]byte) error {
	z, _, _, err := k.zsetOf(c, args[1], true)
	if err != nil {
		return err
	}
	if z != nil {
		if s, ok := z.score(args[2]); ok {
			replyScore(c.W, s)
			return nil
		}
	}
	c.W.Null()
	return nil
}

// ZMSCORE key member [member ...]
func CmdZMScore(k *Keyspace, c *Ctx, args [][]byte) error {
	z, _, _, err := k.zsetOf(c, args[1], true)
	if err != nil {
		return err
	}
	c.W.Array(len(args) - 2)
	for _, m := range args[2:] {
		if z != nil {
			if s, ok := z.score(m); ok {
				replyScore(c.W, s)
				continue
			}
		}
		c.W.Null()
	}
	return nil
}

// ZRANK key member
func CmdZRank(k *Keyspace, c *Ctx, args [][]byte) error { return k.zrank(c, args, false) }

// ZREVRANK key member
func CmdZRevRank(k *Keyspace, c *Ctx, args [][]byte) error { return k.zrank(c, args, true) }

func (k *Keyspace) zrank(c *Ctx, args [][]byte, rev bool) error {
	z, _, _, err := k.zsetOf(c, args[1], true)
	if err != nil {
		return err
	}
	if z != nil {
		if r, ok := z.rank(args[2]); ok {
			if rev {
				r = z.len() - 1 - r
			}
			c.W.Int(int64(r))
			return nil
		}
	}
	c.W.Null()
	return nil
}

// ZCOUNT key min max
func CmdZCount(k *Keyspace, c *Ctx, args [][]byte) error {
	r, ok := parseScoreRange(args[2], args[3])
	if !ok {
		return errNotFloat2
	}
	z, _, _, err := k.zsetOf(c, args[1], true)
	if err != nil {
		return err
	}
	n := 0
	if z != nil {
		lo, hi := z.scoreRanks(r)
		n = max(hi-lo+1, 0)
	}
	c.W.Int(int64(n))
	return nil
}

// ZLEXCOUNT key min max
func CmdZLexCount(k *Keyspace, c *Ctx, args [][]byte) error {
	r, ok := parseLexRange(args[2], args[3])
	if !ok {
		return errNotLexRange
	}
	z, _, _, err := k.zsetOf(c, args[1], true)
	if err != nil {
		return err
	}
	n := 0
	if z != nil {
		lo, hi := z.lexRanks(r)
		n = max(hi-lo+1, 0)
	}
	c.W.Int(int64(n))
	return nil
}

type zrangeKind int

const (
	zrAuto zrangeKind = iota
	zrRank
	zrScore
	zrLex
)

// zrangeOpts is what zrangeGenericCommand parses.
type zrangeOpts struct {
	kind          zrangeKind
	rev, revFixed bool
	withScores    bool
	offset, limit int64 // limit < 0: no limit
	start, end    int64 // ranks
	score         zrangeSpec
	lex           zlexSpec
}

// parseZRange parses <min> <max> and the options after them (args starts
// at min) for ZRANGE and its older forms; kind and rev fix what the
// command's name already says.
func parseZRange(args [][]byte, kind zrangeKind, rev, revFixed, store bool) (zrangeOpts, error) {
	o := zrangeOpts{kind: kind, rev: rev, revFixed: revFixed, limit: -1}
	for j := 2; j < len(args); j++ {
		left := len(args) - j - 1
		switch a := args[j]; {
		case !store && equalFold(a, "withscores"):
			o.withScores = true
		case equalFold(a, "limit") && left >= 2:
			off, err := intArg(args[j+1])
			if err != nil {
				return o, err
			}
			lim, err := intArg(args[j+2])
			if err != nil {
				return o, err
			}
			o.offset, o.limit = off, lim
			j += 2
		case !revFixed && !o.rev && equalFold(a, "rev"):
			o.rev = true
		case o.kind == zrAuto && equalFold(a, "bylex"):
			o.kind = zrLex
		case o.kind == zrAuto && equalFold(a, "byscore"):
			o.kind = zrScore
		default:
			return o, resp.ErrSyntax
		}
	}
	if o.kind == zrAuto {
		o.kind = zrRank
	}
	if o.limit != -1 && o.kind == zrRank {
		return o, errLimitRank
	}
	if o.withScores && o.kind == zrLex {
		return o, errScoresLex
	}
	min, max := args[0], args[1]
	if o.rev && o.kind != zrRank {
		min, max = max, min // given as [max, min]
	}
	var err error
	var ok bool
	switch o.kind {
	case zrRank:
		if o.start, err = intArg(min); err != nil {
			return o, err
		}
		if o.end, err = intArg(max); err != nil {
			return o, err
		}
	case zrScore:
		if o.score, ok = parseScoreRange(min, max); !ok {
			return o, errNotFloat2
		}
	case zrLex:
		if o.lex, ok = parseLexRange(min, max); !ok {
			return o, errNotLexRange
		}
	}
	return o, nil
}

// selectRange returns the ranks the range selects, in the order they are
// reported (descending for rev), as from..to stepping by ±1 (n of them).
func (z *zsetValue) selectRange(o zrangeOpts) (from, to, n int) {
	size := z.len()
	switch o.kind {
	case zrRank:
		start, end := o.start, o.end
		if start < 0 {
			start += int64(size)
		}
		if end < 0 {
			end += int64(size)
		}
		start = max(start, 0)
		if start > end || start >= int64(size) {
			return 0, -1, 0
		}
		end = min(end, int64(size)-1)
		n = int(end - start + 1)
		if o.rev {
			return size - 1 - int(start), size - 1 - int(end), n
		}
		return int(start), int(end), n
	}
	// By score or lex: the matching ranks, then LIMIT's offset and count
	// along the reported order (genericZrangebyscoreCommand).
	var lo, hi int
	switch {
	case o.kind == zrScore && !o.rev && o.limit >= 0 && o.offset >= 0 && z.tree == nil:
		// A pack walks forwards only, so finding the range's end
		// walked the rest of the set: LIMIT bounds the walk, as
		// Redis's stops at its count.
		lo, hi = 0, -1
		if r := o.score; !(r.min > r.max || r.min == r.max && (r.minex || r.maxex)) {
			lo = z.firstScoreRank(r.gteMin)
			hi = lo - 1
			span := int64(size) // offset+limit, without overflowing
			if o.offset < span && o.limit < span {
				span = o.offset + o.limit
			}
			z.each(lo, int(min(int64(size-1), int64(lo)+span-1)), false, func(_ []byte, s float64) bool {
				if r.lteMax(s) {
					hi++
					return true
				}
				return false
			})
		}
	case o.kind == zrScore:
		lo, hi = z.scoreRanks(o.score)
	case o.rev:
		lo, hi = z.revLexRanks(o.lex)
	default:
		lo, hi = z.lexRanks(o.lex)
	}
	if o.offset > 0 && o.offset >= int64(size) || o.offset < 0 || hi < lo {
		return 0, -1, 0
	}
	count := int64(hi - lo + 1)
	if o.offset >= count {
		return 0, -1, 0
	}
	count -= o.offset
	if o.limit >= 0 {
		count = min(count, o.limit)
	}
	if count == 0 {
		return 0, -1, 0
	}
	if o.rev {
		first := hi - int(o.offset)
		return first, first - int(count) + 1, int(count)
	}
	first := lo + int(o.offset)
	return first, first + int(count) - 1, int(count)
}

// eachInRange calls f for the n members selectRange selected, in reported
// order.
func (z *zsetValue) eachInRange(from, to, n int, f func(m []byte, s float64) bool) {
	switch {
	case n == 0:
	case from <= to:
		z.each(from, to, false, f)
	default:
		z.each(to, from, true, f)
	}
}

// replyMembers writes n members with or without scores: flat in RESP2,
// [member, score] pairs in RESP3.
func replyMembers(w *resp.Writer, n int, withScores bool, each func(func(m []byte, s float64) bool)) {
	replyMembersHeader(w, n, withScores)
	each(func(m []byte, s float64) bool {
		replyMember(w, withScores, m, s)
		return true
	})
}

// replyMembersHeader and replyMember are replyMembers in parts, for a
// caller that loops itself (no closure to allocate).
func replyMembersHeader(w *resp.Writer, n int, withScores bool) {
	if withScores && !w.RESP3() {
		w.Array(2 * n)
	} else {
		w.Array(n)
	}
}

func replyMember(w *resp.Writer, withScores bool, m []byte, s float64) {
	if withScores && w.RESP3() {
		w.Array(2)
	}
	w.Bulk(m)
	if withScores {
		replyScore(w, s)
	}
}

// zrange runs every ZRANGE form; dst is ZRANGESTORE's destination.
func (k *Keyspace) zrange(c *Ctx, key []byte, rangeArgs [][]byte, kind zrangeKind, rev, revFixed bool, dst []byte) error {
	o, err := parseZRange(rangeArgs, kind, rev, revFixed, dst != nil)
	if err != nil {
		return err
	}
	z, _, _, err := k.zsetOf(c, key, true)
	if err != nil {
		return err
	}
	if dst != nil {
		var items []zitem
		if z != nil && z.tree != nil && o.kind == zrScore {
			for _, n := range z.scoreNodes(o.score, o.rev, o.offset, o.limit, nil) {
				items = append(items, zitem{n.score(), z.dict.Key(n.slot)})
			}
		} else if z != nil {
			from, to, n := z.selectRange(o)
			z.eachInRange(from, to, n, func(m []byte, s float64) bool {
				items = append(items, zitem{s, string(m)})
				return true
			})
		}
		out := newZSetOf(items, &k.enc)
		k.storeObject(c, dst, kindZSet, out, NotifyZSet, "zrangestore")
		c.W.Int(int64(out.len()))
		return nil
	}
	if z == nil {
		c.W.Array(0)
		return nil
	}
	if z.tree != nil && o.kind == zrScore {
		var buf [16]znode
		nodes := z.scoreNodes(o.score, o.rev, o.offset, o.limit, buf[:0])
		replyMembersHeader(c.W, len(nodes), o.withScores)
		for len(nodes) > 0 {
			// Each member is a cache miss or two in the dict: look a few
			// up before writing any, so that the misses overlap.
			var keys [8]string
			batch := nodes[:min(len(nodes), len(keys))]
			for j, n := range batch {
				keys[j] = z.dict.Key(n.slot)
			}
			for j, n := range batch {
				replyMember(c.W, o.withScores, readOnly(keys[j]), n.score())
			}
			nodes = nodes[len(batch):]
		}
		return nil
	}
	from, to, n := z.selectRange(o)
	replyMembers(c.W, n, o.withScores, func(f func([]byte, float64) bool) { z.eachInRange(from, to, n, f) })
	return nil
}

// newZSetOf builds a sorted set of items (distinct members, any order) in
// the encoding enc gives its size, as zsetConvertToListpackIfNeeded leaves
// a store command's result.
func newZSetOf(items []zitem, enc *Encodings) *zsetValue {
	sort.Slice(items, func(a, b int) bool { return zless(items[a], items[b]) })
	small := len(items) <= enc.ZSetMaxListpackEntries
	for _, it := range items {
		small = small && len(it.member) <= enc.ZSetMaxListpackValue
	}
	z := &zsetValue{}
	if small {
		var buf [9]byte
		base := int64(0)
		for _, it := range items {
			z.small.AppendJoined([]byte(it.member), packScore(&buf, it.score, base))
			base = baseOf(it.score)
		}
		return z
	}
	z.loadSorted(func(f func(m []byte, s float64) bool) {
		for _, it := range items {
			if !f([]byte(it.member), it.score) {
				return
			}
		}
	})
	return z
}

// ZRANGE key start stop [BYSCORE|BYLEX] [REV] [LIMIT offset count] [WITHSCORES]
func CmdZRange(k *Keyspace, c *Ctx, args [][]byte) error {
	return k.zrange(c, args[1], args[2:], zrAuto, false, false, nil)
}

// ZRANGESTORE dst src min max [BYSCORE|BYLEX] [REV] [LIMIT offset count]
func CmdZRangeStore(k *Keyspace, c *Ctx, args [][]byte) error {
	return k.zrange(c, args[2], args[3:], zrAuto, false, false, args[1])
}

// ZREVRANGE key start stop [WITHSCORES]
func CmdZRevRange(k *Keyspace, c *Ctx, args [][]byte) error {
	return k.zrange(c, args[1], args[2:], zrRank, true, true, nil)
}

// ZRANGEBYSCORE key min max [WITHSCORES] [LIMIT offset count]
func CmdZRangeByScore(k *Keyspace, c *Ctx, args [][]byte) error {
	return k.zrange(c, args[1], args[2:], zrScore, false, true, nil)
}

// ZREVRANGEBYSCORE key max min [WITHSCORES] [LIMIT offset count]
func CmdZRevRangeByScore(k *Keyspace, c *Ctx, args [][]byte) error {
	return k.zrange(c, args[1], args[2:], zrScore, true, true, nil)
}

// ZRANGEBYLEX key min max [LIMIT offset count]
func CmdZRangeByLex(k *Keyspace, c *Ctx, args [][]byte) error {
	return k.zrange(c, args[1], args[2:], zrLex, false, true, nil)
}

// ZREVRANGEBYLEX key max min [LIMIT offset count]
func CmdZRevRangeByLex(k *Keyspace, c *Ctx, args [][]byte) error {
	return k.zrange(c, args[1], args[2:], zrLex, true, true, nil)
}

// zremrange is ZREMRANGEBYRANK, BYSCORE and BYLEX.
func (k *Keyspace) zremrange(c *Ctx, args [][]byte, kind zrangeKind) error {
	o := zrangeOpts{kind: kind, limit: -1}
	var ok bool
	var err error
	switch kind {
	case zrRank:
		if o.start, err = intArg(args[2]); err != nil {
			return err
		}
		if o.end, err = intArg(args[3]); err != nil {
			return err
		}
	case zrScore:
		if o.score, ok = parseScoreRange(args[2], args[3]); !ok {
			return errNotFloat2
		}
	case zrLex:
		if o.lex, ok = parseLexRange(args[2], args[3]); !ok {
			return errNotLexRange
		}
	}
	z, ob, i, err := k.zsetOf(c, args[1], false)
	if err != nil || z == nil {
		if err == nil {
			c.W.Int(0)
		}
		return err
	}
	var n int
	switch {
	case z.tree == nil:
		// The range is a run of entries: one deletion.
		var from, to int
		if from, to, n = z.selectRange(o); n > 0 {
			z.delRange(from, to)
		}
	case kind == zrScore:
		var buf [16]znode
		nodes := z.scoreNodes(o.score, false, 0, -1, buf[:0])
		z.delNodes(nodes)
		n = len(nodes)
	default:
		var from, to int
		from, to, n = z.selectRange(o)
		var members [][]byte
		z.eachInRange(from, to, n, func(m []byte, _ float64) bool {
			members = append(members, m) // the dict's bytes: they stay
			return true
		})
		for _, m := range members {
			z.del(m)
		}
	}
	if n > 0 {
		k.changedNotify(c, args[1], i, ob, NotifyZSet, zremrangeEvents[kind])
	}
	c.W.Int(int64(n))
	return nil
}

// ZREMRANGEBYRANK key start stop
func CmdZRemRangeByRank(k *Keyspace, c *Ctx, args [][]byte) error {
	return k.zremrange(c, args, zrRank)
}

// ZREMRANGEBYSCORE key min max
func CmdZRemRangeByScore(k *Keyspace, c *Ctx, args [][]byte) error {
	return k.zremrange(c, args, zrScore)
}

// ZREMRANGEBYLEX key min max
func CmdZRemRangeByLex(k *Keyspace, c *Ctx, args [][]byte) error {
	return k.zremrange(c, args, zrLex)
}

// zpop pops up to count members from the first non-empty of keys, at the
// low end or (max) the high end (genericZpopCommand). count < 0 is the
// plain single pop. emitKey and nested choose the reply's shape.
func (k *Keyspace) zpop(c *Ctx, keys [][]byte, maxEnd bool, count int64, emitKey, nested, nilWhenEmpty bool) error {
	var z *zsetValue
	var o *object
	var i uint32
	var key []byte
	for _, kk := range keys {
		var err error
		if z, o, i, err = k.zsetOf(c, kk, false); err != nil {
			return err
		}
		if z != nil {
			key = kk
			break
		}
	}
	if z == nil {
		if nilWhenEmpty {
			c.W.NullArray()
		} else {
			c.W.Array(0)
		}
		return nil
	}
	if count == 0 {
		c.W.Array(0)
		return nil
	}
	if count < 0 {
		count = 1
	}
	n := int(min(count, int64(z.len())))
	switch {
	case !nested && !emitKey:
		c.W.Array(2 * n)
	case nested && !emitKey:
		c.W.Array(n)
	case !nested && emitKey:
		c.W.Array(2*n + 1)
		c.W.Bulk(key)
	default:
		c.W.Array(2)
		c.W.Bulk(key)
		c.W.Array(n)
	}
	for ; n > 0; n-- {
		r := 0
		if maxEnd {
			r = z.len() - 1
		}
		m, s := z.at(r)
		m = append([]byte(nil), m...)
		z.del(m)
		if nested {
			c.W.Array(2)
		}
		c.W.Bulk(m)
		replyScore(c.W, s)
	}
	event := "zpopmin"
	if maxEnd {
		event = "zpopmax"
	}
	k.changedNotify(c, key, i, o, NotifyZSet, event)
	return nil
}

// ZPOPMIN key [count]
func CmdZPopMin(k *Keyspace, c *Ctx, args [][]byte) error { return k.zpopCmd(c, args, false) }

// ZPOPMAX key [count]
func CmdZPopMax(k *Keyspace, c *Ctx, args [][]byte) error { return k.zpopCmd(c, args, true) }

func (k *Keyspace) zpopCmd(c *Ctx, args [][]byte, maxEnd bool) error {
	if len(args) > 3 {
		return resp.ErrSyntax
	}
	count := int64(-1)
	if len(args) == 3 {
		n, err := positiveArg(args[2])
		if err != nil {
			return err
		}
		count = n
	}
	return k.zpop(c, args[1:2], maxEnd, count, false, c.W.RESP3() && count != -1, false)
}

// ZMPOP numkeys key [key ...] MIN|MAX [COUNT count]
func CmdZMPop(k *Keyspace, c *Ctx, args [][]byte) error {
	keys, maxEnd, count, err := cmdargs.MPop(args, 1, "min", "max")
	if err != nil {
		return err
	}
	return k.zpop(c, keys, maxEnd, count, true, true, true)
}

// zsource is one input of ZUNION, ZINTER and ZDIFF: a sorted set, a set
// (every member scored 1), or nothing.
type zsource struct {
	z      *zsetValue
	s      *setValue
	weight float64
}

func (src *zsource) len() int {
	switch {
	case src.z != nil:
		return src.z.len()
	case src.s != nil:
		return src.s.len()
	}
	return 0
}

func (src *zsource) each(f func(m []byte, s float64) bool) {
	switch {
	case src.z != nil:
		src.z.each(0, src.z.len()-1, false, f)
	case src.s != nil:
		src.s.each(func(m []byte) bool { return f(m, 1) })
	}
}

func (src *zsource) score(m []byte) (float64, bool) {
	switch {
	case src.z != nil:
		return src.z.score(m)
	case src.s != nil:
		return 1, src.s.has(m)
	}
	return 0, false
}

type aggregate int

const (
	aggSum aggregate = iota
	aggMin
	aggMax
)

func (a aggregate) apply(target, v float64) float64 {
	switch a {
	case aggMin:
		if v < target {
			return v
		}
		return target
	case aggMax:
		if v > target {
			return v
		}
		return target
	}
	if t := target + v; t == t {
		return t
	}
	return 0 // +inf + -inf: Redis's convention
}

// zalgebra is zunionInterDiffGenericCommand. numkeysAt is where numkeys
// is; dst is the STORE forms' destination; cardOnly is ZINTERCARD.
func (k *Keyspace) zalgebra(c *Ctx, args [][]byte, numkeysAt int, op setOp, dst []byte, cardOnly bool, name string) error {
	setnum, err := intArg(args[numkeysAt])
	if err != nil {
		return err
	}
	if setnum < 1 {
		return resp.NewError("at least 1 input key is needed for '" + name + "' command")
	}
	if setnum > int64(len(args)-(numkeysAt+1)) {
		return resp.ErrSyntax
	}
	srcs := make([]zsource, setnum)
	j := numkeysAt + 1
	for n := range srcs {
		srcs[n].weight = 1
		e, _, ok := k.read(c, args[j])
		j++
		if !ok {
			continue
		}
		switch e.kindOf() {
		case kindZSet:
			srcs[n].z = e.obj.v.(*zsetValue)
		case kindSet:
			srcs[n].s = e.obj.v.(*setValue)
		default:
			return errWrongType
		}
	}
	agg, withScores, limit := aggSum, false, int64(0)
	for j < len(args) {
		left := len(args) - j
		switch a := args[j]; {
		case op != opDiff && !cardOnly && left >= len(srcs)+1 && equalFold(a, "weights"):
			j++
			for n := range srcs {
				w, ok := floatArg(args[j])
				if !ok {
					return errWeightFloat
				}
				srcs[n].weight = w
				j++
			}
		case op != opDiff && !cardOnly && left >= 2 && equalFold(a, "aggregate"):
			switch b := args[j+1]; {
			case equalFold(b, "sum"):
				agg = aggSum
			case equalFold(b, "min"):
				agg = aggMin
			case equalFold(b, "max"):
				agg = aggMax
			default:
				return resp.ErrSyntax
			}
			j += 2
		case left >= 1 && dst == nil && !cardOnly && equalFold(a, "withscores"):
			withScores = true
			j++
		case cardOnly && left >= 2 && equalFold(a, "limit"):
			n, err := intArg(args[j+1])
			if err != nil || n < 0 {
				return errLimitNegative
			}
			limit = n
			j += 2
		default:
			return resp.ErrSyntax
		}
	}
	if op != opDiff {
		sort.SliceStable(srcs, func(a, b int) bool { return srcs[a].len() < srcs[b].len() })
	}
	scores := map[string]float64{}
	var order []string // members of the result, as found
	var card int64     // ZINTERCARD's count
	switch op {
	case opInter:
		if srcs[0].len() == 0 {
			break
		}
		srcs[0].each(func(m []byte, s float64) bool {
			score := srcs[0].weight * s
			if score != score {
				score = 0
			}
			for n := 1; n < len(srcs); n++ {
				v, ok := srcs[n].score(m)
				if !ok {
					return true
				}
				score = agg.apply(score, v*srcs[n].weight)
			}
			if cardOnly {
				// ZINTERCARD counts; a map of the members cost it
				// twice Redis's time.
				card++
				return limit == 0 || card < limit
			}
			scores[string(m)] = score
			order = append(order, string(m))
			return true
		})
	case opUnion:
		for n := range srcs {
			srcs[n].each(func(m []byte, s float64) bool {
				v := srcs[n].weight * s
				if v != v {
					v = 0
				}
				if old, ok := scores[string(m)]; ok {
					scores[string(m)] = agg.apply(old, v)
				} else {
					scores[string(m)] = v
					order = append(order, string(m))
				}
				return true
			})
		}
	case opDiff:
		srcs[0].each(func(m []byte, s float64) bool {
			for n := 1; n < len(srcs); n++ {
				if _, ok := srcs[n].score(m); ok {
					return true
				}
			}
			scores[string(m)] = s
			order = append(order, string(m))
			return true
		})
	}
	if cardOnly {
		c.W.Int(card)
		return nil
	}
	items := make([]zitem, len(order))
	for n, m := range order {
		items[n] = zitem{scores[m], m}
	}
	out := newZSetOf(items, &k.enc)
	if dst != nil {
		k.storeObject(c, dst, kindZSet, out, NotifyZSet, zstoreEvents[op])
		c.W.Int(int64(out.len()))
		return nil
	}
	replyMembers(c.W, out.len(), withScores, func(f func([]byte, float64) bool) {
		out.each(0, out.len()-1, false, f)
	})
	return nil
}

// ZUNIONSTORE destination numkeys key [key ...] [WEIGHTS ...] [AGGREGATE SUM|MIN|MAX]
func CmdZUnionStore(k *Keyspace, c *Ctx, args [][]byte) error {
	return k.zalgebra(c, args, 2, opUnion, args[1], false, "zunionstore")
}

// ZINTERSTORE destination numkeys key [key ...] [WEIGHTS ...] [AGGREGATE ...]
func CmdZInterStore(k *Keyspace, c *Ctx, args [][]byte) error {
	return k.zalgebra(c, args, 2, opInter, args[1], false, "zinterstore")
}

// ZDIFFSTORE destination numkeys key [key ...]
func CmdZDiffStore(k *Keyspace, c *Ctx, args [][]byte) error {
	return k.zalgebra(c, args, 2, opDiff, args[1], false, "zdiffstore")
}

// ZUNION numkeys key [key ...] [WEIGHTS ...] [AGGREGATE ...] [WITHSCORES]
func CmdZUnion(k *Keyspace, c *Ctx, args [][]byte) error {
	return k.zalgebra(c, args, 1, opUnion, nil, false, "zunion")
}

// ZINTER numkeys key [key ...] [WEIGHTS ...] [AGGREGATE ...] [WITHSCORES]
func CmdZInter(k *Keyspace, c *Ctx, args [][]byte) error {
	return k.zalgebra(c, args, 1, opInter, nil, false, "zinter")
}

// ZDIFF numkeys key [key ...] [WITHSCORES]
func CmdZDiff(k *Keyspace, c *Ctx, args [][]byte) error {
	return k.zalgebra(c, args, 1, opDiff, nil, false, "zdiff")
}

// ZINTERCARD numkeys key [key ...] [LIMIT limit]
func CmdZInterCard(k *Keyspace, c *Ctx, args [][]byte) error {
	return k.zalgebra(c, args, 1, opInter, nil, true, "zintercard")
}

// ZSCAN key cursor [MATCH pattern] [COUNT count]: a packed set comes whole
// with cursor 0; scores as strings, as d2string prints them.
func CmdZScan(k *Keyspace, c *Ctx, args [][]byte) error {
	cursor, ok := parseCursor(args[2])
	if !ok {
		return errInvalidCursor
	}
	// Redis looks the key up before it reads the options: a missing key
	// is an empty scan and a wrong type WRONGTYPE, whatever follows.
	z, _, _, err := k.zsetOf(c, args[1], true)
	if err != nil || z == nil {
		if err == nil {
			replyScan(c.W, 0, nil)
		}
		return err
	}
	opts, err := parseScanOpts(args[3:], false)
	if err != nil {
		return err
	}
	var out [][]byte
	add := func(m []byte, s float64) {
		if opts.pattern == nil || Match(opts.pattern, string(m)) {
			out = append(out, append([]byte(nil), m...), resp.FormatDouble(nil, s))
		}
	}
	next := uint64(0)
	switch {
	case z.tree != nil:
		next = z.dict.Scan(cursor, int(min(opts.count, math.MaxInt32)), func(m string, s float64) { add([]byte(m), s) })
	default:
		z.each(0, z.len()-1, false, func(m []byte, s float64) bool { add(m, s); return true })
	}
	replyScan(c.W, next, out)
	return nil
}

// ZRANDMEMBER key [count [WITHSCORES]]
func CmdZRandMember(k *Keyspace, c *Ctx, args [][]byte) error {
	if len(args) == 2 {
		z, _, _, err := k.zsetOf(c, args[1], true)
		switch {
		case err != nil:
			return err
		case z == nil:
			c.W.Null()
		default:
			m, _ := z.random(k)
			c.W.Bulk(m)
		}
		return nil
	}
	n, err := rangeArg(args[2], -math.MaxInt64, math.MaxInt64)
	if err != nil {
		return err
	}
	withScores := false
	if len(args) > 4 || len(args) == 4 && !equalFold(args[3], "withscores") {
		return resp.ErrSyntax
	} else if len(args) == 4 {
		withScores = true
		if n < -math.MaxInt64/2 || n > math.MaxInt64/2 {
			return errOutOfRange
		}
	}
	z, _, _, err := k.zsetOf(c, args[1], true)
	if err != nil {
		return err
	}
	if z == nil || n == 0 {
		c.W.Array(0)
		return nil
	}
	if n < 0 || n == 1 {
		count := int64(1)
		if n < 0 {
			count = -n
		}
		if err := checkRandomReply(count, z.size(), z.len(), withScores); err != nil {
			return err
		}
		replyMembers(c.W, int(count), withScores, func(f func([]byte, float64) bool) {
			for ; count > 0; count-- {
				f(z.random(k))
			}
		})
		return nil
	}
	if n >= int64(z.len()) {
		// The whole set, as Redis's set iterator walks it: from the top.
		replyMembers(c.W, z.len(), withScores, func(f func([]byte, float64) bool) { z.each(0, z.len()-1, true, f) })
		return nil
	}
	count := int(n)
	if count*3 > z.len() {
		pick := selection(k, z.len(), count)
		replyMembers(c.W, count, withScores, func(f func([]byte, float64) bool) {
			z.each(0, z.len()-1, false, func(m []byte, s float64) bool {
				if pick() {
					return f(m, s)
				}
				return true
			})
		})
		return nil
	}
	picked := make(map[string]bool, count)
	replyMembers(c.W, count, withScores, func(f func([]byte, float64) bool) {
		for len(picked) < count {
			m, s := z.random(k)
			if !picked[string(m)] {
				picked[string(m)] = true
				f(m, s)
			}
		}
	})
	return nil
}

// zaddEvent is ZADD's event: zincr for ZINCRBY and ZADD INCR.
func zaddEvent(incr bool) string {
	if incr {
		return "zincr"
	}
	return "zadd"
}

// zremrangeEvents and zstoreEvents name the events of the ZREMRANGEBY*
// commands and of the STORE forms.
var (
	zremrangeEvents = map[zrangeKind]string{zrRank: "zremrangebyrank", zrScore: "zremrangebyscore", zrLex: "zremrangebylex"}
	zstoreEvents    = [...]string{opUnion: "zunionstore", opInter: "zinterstore", opDiff: "zdiffstore"}
)
