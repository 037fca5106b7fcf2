package keyspace

import (
	"bytes"
	"math"
	"math/big"
	"strings"

	"github.com/minilock/minilock/internal/redisstr"
	"github.com/minilock/minilock/resp"
)

// SORT and SORT_RO, as Redis 7.0's sort.c: the options parsed in its
// order and with its errors, the same vector loaded from the list, set or
// sorted set, the same comparator, and the same algorithms where the
// order of elements that compare equal shows: glibc 2.36's qsort is a
// stable merge sort (msort), and a
// BY pattern with a LIMIT that leaves elements out runs Redis's own
// partial quicksort (pqsort.go).

// errSortScores is SORT's answer when a score it sorts by is no number.
var errSortScores = resp.NewError("One or more scores can't be converted into double")

// sortItem is one element of the vector SORT sorts (redisSortObject).
type sortItem struct {
	elem  []byte
	score float64
	// key is what an ALPHA sort compares: the element or its BY value,
	// cut at its first NUL unless the result is stored (strcoll reads C
	// strings, memcmp does not). hasKey is false when the BY pattern
	// found nothing (NULL, which sorts first).
	key    []byte
	hasKey bool
}

// sortSpec is how the vector is ordered (the server.sort_* globals of
// sort.c).
type sortSpec struct {
	desc, alpha, byPattern, store bool
}

// compare is sortCompare, for keys set as sortItem.key says.
func (s *sortSpec) compare(a, b *sortItem) int {
	var r int
	switch {
	case !s.alpha:
		switch {
		case a.score > b.score:
			r = 1
		case a.score < b.score:
			r = -1
		default:
			// Equal scores fall back to the elements' bytes, so the
			// result is deterministic.
			r = bytes.Compare(a.elem, b.elem)
		}
	case s.byPattern && (!a.hasKey || !b.hasKey):
		if a.hasKey == b.hasKey {
			r = 0
		} else if !a.hasKey {
			r = -1
		} else {
			r = 1
		}
	default:
		// strcoll as redis-server runs it (setlocale(LC_COLLATE, "")
		// under C or C.UTF-8, whose collation is strcmp's) is byte
		// order.
		r = bytes.Compare(a.key, b.key)
	}
	if s.desc {
		return -r
	}
	return r
}

// msort is glibc 2.36's qsort, a merge sort, stable: elements that compare
// equal keep their order. tmp has room for len(v). It sorts indexes into
// the vector: moving them costs no write barrier, as pointers would while
// the collector runs.
func msort(v, tmp []int32, cmp func(a, b int32) int) {
	n := len(v)
	if n <= 1 {
		return
	}
	n1 := n / 2
	msort(v[:n1], tmp, cmp)
	msort(v[n1:], tmp, cmp)
	t := tmp[:0]
	i, j := 0, n1
	for i < n1 && j < n {
		if cmp(v[i], v[j]) <= 0 {
			t = append(t, v[i])
			i++
		} else {
			t = append(t, v[j])
			j++
		}
	}
	t = append(t, v[i:n1]...)
	copy(v, t)
}

// cstr is b as C's string functions see it: up to its first NUL.
func cstr(b []byte) []byte {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return b[:i]
	}
	return b
}

// CmdSort is SORT key [BY pattern] [LIMIT offset count] [GET pattern ...]
// [ASC|DESC] [ALPHA] [STORE destination]. script says whether a script
// runs it: a set sorted BY a constant is then sorted ALPHA anyway.
func CmdSort(k *Keyspace, c *Ctx, args [][]byte, script bool) error {
	return k.sort(c, args, false, script)
}

// CmdSortRO is SORT_RO, SORT without STORE.
func CmdSortRO(k *Keyspace, c *Ctx, args [][]byte, script bool) error {
	return k.sort(c, args, true, script)
}

// sort is sortCommandGeneric.
func (k *Keyspace) sort(c *Ctx, args [][]byte, readonly, script bool) error {
	var spec sortSpec
	limitStart, limitCount := int64(0), int64(-1)
	dontsort := false
	var sortby, storekey []byte
	var gets [][]byte
	for j := 2; j < len(args); j++ {
		left := len(args) - j - 1
		a := args[j]
		switch {
		case redisstr.Option(a, "asc"):
			spec.desc = false
		case redisstr.Option(a, "desc"):
			spec.desc = true
		case redisstr.Option(a, "alpha"):
			spec.alpha = true
		case redisstr.Option(a, "limit") && left >= 2:
			var err error
			if limitStart, err = intArg(args[j+1]); err != nil {
				return err
			}
			if limitCount, err = intArg(args[j+2]); err != nil {
				return err
			}
			j += 2
		case !readonly && redisstr.Option(a, "store") && left >= 1:
			storekey = args[j+1]
			j++
		case redisstr.Option(a, "by") && left >= 1:
			sortby = args[j+1]
			// A pattern without '*' names one key for every element:
			// nothing to sort by. (Once set, a later BY does not clear
			// it, as in sort.c.)
			if bytes.IndexByte(cstr(sortby), '*') < 0 {
				dontsort = true
			}
			j++
		case redisstr.Option(a, "get") && left >= 1:
			gets = append(gets, args[j+1])
			j++
		default:
			return resp.ErrSyntax
		}
	}

	e, _, found := k.read(c, args[1])
	kind := kindList
	var o *object
	if found {
		kind = e.kindOf()
		if kind != kindList && kind != kindSet && kind != kindZSet {
			return errWrongType
		}
		o = e.obj
	}

	// A set has no order of its own: where the result must be the same
	// everywhere (stored, or in a script), it is sorted.
	if dontsort && kind == kindSet && (storekey != nil || script) {
		dontsort, spec.alpha, sortby = false, true, nil
	}
	if kind == kindZSet {
		k.sortConvertZSet(c, o)
	}

	vectorlen := int64(0)
	if o != nil {
		vectorlen = int64(o.v.len())
	}
	start := min(max(limitStart, 0), vectorlen)
	limitCount = min(max(limitCount, -1), vectorlen)
	end := vectorlen - 1
	if limitCount >= 0 {
		end = start + limitCount - 1
	}
	if start >= vectorlen {
		start, end = vectorlen-1, vectorlen-2
	}
	if end >= vectorlen {
		end = vectorlen - 1
	}
	// A list or sorted set in its own order loads only the range asked
	// for.
	if (kind == kindZSet || kind == kindList) && dontsort && (start != 0 || end != vectorlen-1) {
		vectorlen = end - start + 1
	}

	vector := make([]sortItem, 0, max(vectorlen, 0))
	var arena []byte
	add := func(v []byte) bool {
		vector = append(vector, sortItem{elem: v})
		arena = append(arena, v...)
		return true
	}
	total := int64(0)
	switch {
	case o == nil:
	case kind == kindList && dontsort:
		l := o.v.(*listValue)
		if end >= start {
			n := int(l.len())
			if spec.desc {
				to := n - int(start) - 1
				l.each(to-int(vectorlen)+1, to, true, add)
			} else {
				l.each(int(start), int(start+vectorlen)-1, false, add)
			}
			end -= start
			start = 0
		}
	case kind == kindList:
		l := o.v.(*listValue)
		l.each(0, l.len()-1, false, add)
	case kind == kindSet:
		o.v.(*setValue).each(func(m []byte) bool { return add(m) })
	case kind == kindZSet && dontsort:
		z := o.v.(*zsetValue)
		n := z.len()
		if spec.desc {
			to := n - int(start) - 1
			z.each(to-int(vectorlen)+1, to, true, func(m []byte, _ float64) bool { return add(m) })
		} else {
			z.each(int(start), int(start+vectorlen)-1, false, func(m []byte, _ float64) bool { return add(m) })
		}
		end -= start
		start = 0
	case kind == kindZSet:
		z := o.v.(*zsetValue)
		z.each(0, z.len()-1, false, func(m []byte, _ float64) bool { return add(m) })
	}
	// The elements were appended to vector as slices of the value; they
	// now point into one copy of their bytes, so nothing a lookup below
	// does to the keyspace can change them.
	for i := range vector {
		n := int64(len(vector[i].elem))
		vector[i].elem = arena[total : total+n : total+n]
		total += n
	}

	var name []byte // the keys BY and GET name, one at a time
	convErr := false
	order := make([]int32, len(vector))
	for i := range order {
		order[i] = int32(i)
	}
	if !dontsort {
		spec.byPattern = sortby != nil
		spec.store = storekey != nil
		var keys []byte // the ALPHA BY values' bytes, one copy
		for j := range vector {
			it := &vector[j]
			byval := it.elem
			if sortby != nil {
				v, ok := k.sortLookup(c, sortby, it.elem, &name)
				if !ok {
					continue
				}
				byval = v
			}
			if spec.alpha {
				if !spec.store {
					byval = cstr(byval)
				}
				if sortby != nil {
					keys = append(keys, byval...)
				}
				it.key, it.hasKey = byval, true
				continue
			}
			f, ok := sortScore(byval)
			if !ok {
				convErr = true
			}
			it.score = f
		}
		if sortby != nil && spec.alpha {
			// The BY values may alias what later lookups changed (an
			// expired key removed): point them into the copy.
			off := 0
			for j := range vector {
				if it := &vector[j]; it.hasKey {
					n := len(it.key)
					it.key = keys[off : off+n : off+n]
					off += n
				}
			}
		}
		if sortby != nil && (start != 0 || end != int64(len(vector))-1) {
			pqsort(order, func(a, b *int32) int { return spec.compare(&vector[*a], &vector[*b]) }, int(start), int(end))
		} else {
			msort(order, make([]int32, 0, len(order)), func(a, b int32) int { return spec.compare(&vector[a], &vector[b]) })
		}
	}

	getop := int64(len(gets))
	outputlen := end - start + 1
	if getop > 0 {
		outputlen *= getop
	}
	switch {
	case convErr:
		return errSortScores
	case storekey == nil:
		c.W.Array(int(outputlen))
		for j := start; j <= end; j++ {
			it := &vector[order[j]]
			if getop == 0 {
				c.W.Bulk(it.elem)
			}
			for _, g := range gets {
				if v, ok := k.sortLookup(c, g, it.elem, &name); ok {
					c.W.Bulk(v)
				} else {
					c.W.Null()
				}
			}
		}
	default:
		l := newList(&k.enc)
		for j := start; j <= end; j++ {
			it := &vector[order[j]]
			if getop == 0 {
				l.pushBack(it.elem)
			}
			for _, g := range gets {
				v, _ := k.sortLookup(c, g, it.elem, &name) // a missing one is stored as ""
				l.pushBack(v)
			}
		}
		k.storeObject(c, storekey, kindList, l, NotifyList, "sortstore")
		c.W.Int(outputlen)
	}
	return nil
}

// sortConvertZSet converts a sorted set to its large encoding for good,
// as sort.c's zsetConvert does (OBJECT ENCODING reports "skiplist" after
// a SORT); the key is not changed for WATCH.
func (k *Keyspace) sortConvertZSet(c *Ctx, o *object) {
	if o == nil {
		return
	}
	z := o.v.(*zsetValue)
	if z.tree != nil {
		return
	}
	z.convert()
	n := z.size()
	k.dbs[c.DB].account(n - o.counted)
	o.counted = n
}

// sortLookup is lookupKeyByPattern: pattern's first '*' replaced by subst
// names a key holding a string, or, with "->field" after the '*', a hash
// whose field is read; "#" is subst itself. The key is read as a client's
// read (a hit or a miss for INFO, a keymiss event). The value aliases the
// keyspace: use it before the next change.
// buf is scratch space for the key's name, reused from call to call.
func (k *Keyspace) sortLookup(c *Ctx, pattern, subst []byte, buf *[]byte) ([]byte, bool) {
	cp := cstr(pattern)
	if len(cp) == 1 && cp[0] == '#' {
		return subst, true
	}
	star := bytes.IndexByte(cp, '*')
	if star < 0 {
		return nil, false
	}
	var field []byte
	if f := bytes.Index(cp[star+1:], []byte("->")); f >= 0 && star+1+f+2 < len(cp) {
		field = pattern[star+1+f+2:]
	}
	postfix := len(pattern) - (star + 1)
	if field != nil {
		postfix -= len(field) + 2
	}
	key := append(append(append((*buf)[:0], pattern[:star]...), subst...), pattern[star+1:star+1+postfix]...)
	*buf = key
	e, _, ok := k.read(c, key)
	switch {
	case !ok:
		return nil, false
	case field != nil:
		if e.kindOf() != kindHash {
			return nil, false
		}
		return e.obj.v.(*hashValue).get(field)
	case e.kindOf() != kindString:
		return nil, false
	}
	return e.val(), true
}

// sortScore reads a score as sort.c does: strtod up to the string's end or
// its first NUL, refusing NaN and what strtod reports as out of range
// (ERANGE): an overflow to infinity, an underflow to zero, and a result
// in the subnormal range that is not exact.
func sortScore(b []byte) (float64, bool) {
	cs := cstr(b)
	if f, ok := plainScore(cs); ok {
		return f, true
	}
	s := transient(cs) // not kept
	f, n := redisstr.Strtod(s)
	if n != len(s) || f != f {
		return 0, false
	}
	t := strings.TrimLeft(s, " \t\n\v\f\r")
	switch {
	case math.IsInf(f, 0):
		return f, redisstr.IsInfWord(t)
	case f == 0:
		return f, len(t) == 0 || !redisstr.Underflows(t)
	case math.Abs(f) < 0x1p-1022:
		return f, exactly(t, f)
	}
	return f, true
}

// exactly reports whether the number s spells is f with no rounding
// (glibc's strtod sets ERANGE for an inexact subnormal result). A longer
// literal than any exact subnormal needs is taken as inexact, which also
// bounds the arithmetic.
func exactly(s string, f float64) bool {
	if len(s) > 4096 {
		return false
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return false
	}
	return r.Cmp(new(big.Rat).SetFloat64(f)) == 0
}
