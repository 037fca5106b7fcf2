package keyspace

import (
	"bytes"
	"math"

	"github.com/minilock/minilock/internal/cmdargs"
	"github.com/minilock/minilock/resp"
)

// Sets (t_set.c).

// setOf finds key's set: nil when missing, errWrongType for another type.
func (k *Keyspace) setOf(c *Ctx, key []byte, read bool) (*setValue, *object, uint32, error) {
	o, i, err := k.objectOf(c, key, kindSet, read)
	if o == nil || err != nil {
		return nil, nil, 0, err
	}
	return o.v.(*setValue), o, i, nil
}

// SADD key member [member ...]: the number added.
func CmdSAdd(k *Keyspace, c *Ctx, args [][]byte) error {
	s, o, i, err := k.setOf(c, args[1], false)
	if err != nil {
		return err
	}
	if s == nil {
		s = newSetFor(args[2])
		o, i = k.create(c, args[1], kindSet, s)
	}
	var n int64
	for _, m := range args[2:] {
		if s.add(m, &k.enc) {
			n++
		}
	}
	if n > 0 { // (a SADD of members all there is no write: WATCH holds)
		k.changed(c, args[1], i, o)
		k.notify(NotifySet, "sadd", args[1], c.DB)
	}
	c.W.Int(n)
	return nil
}

// SREM key member [member ...]: the number removed.
func CmdSRem(k *Keyspace, c *Ctx, args [][]byte) error {
	s, o, i, err := k.setOf(c, args[1], false)
	if err != nil || s == nil {
		if err == nil {
			c.W.Int(0)
		}
		return err
	}
	var n int64
	for _, m := range args[2:] {
		if s.remove(m) {
			n++
			if s.len() == 0 {
				break
			}
		}
	}
	if n > 0 {
		k.changedNotify(c, args[1], i, o, NotifySet, "srem")
	}
	c.W.Int(n)
	return nil
}

// SMOVE source destination member
func CmdSMove(k *Keyspace, c *Ctx, args [][]byte) error {
	// Both keys are looked up before anything is checked, as smoveCommand
	// does: a missing source answers 0 whatever the destination holds.
	src, so, si, err := k.setOf(c, args[1], false)
	dst, do, di, dstErr := k.setOf(c, args[2], false)
	if src == nil && err == nil {
		c.W.Int(0)
		return nil
	}
	if err != nil {
		return err
	}
	if dstErr != nil {
		return dstErr
	}
	if so == do {
		c.W.Int(b2i(src.has(args[3])))
		return nil
	}
	if !src.remove(args[3]) {
		c.W.Int(0)
		return nil
	}
	k.changedNotify(c, args[1], si, so, NotifySet, "srem")
	if dst == nil {
		dst = newSetFor(args[3])
		do, di = k.create(c, args[2], kindSet, dst)
	}
	// The destination changes, for WATCH and its "sadd" event, only when
	// the member was not there already (smoveCommand signals it only
	// then).
	if dst.add(args[3], &k.enc) {
		k.changed(c, args[2], di, do)
		k.notify(NotifySet, "sadd", args[2], c.DB)
	}
	c.W.Int(1)
	return nil
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// SISMEMBER key member
func CmdSIsMember(k *Keyspace, c *Ctx, args [][]byte) error {
	s, _, _, err := k.setOf(c, args[1], true)
	if err != nil {
		return err
	}
	c.W.Int(b2i(s != nil && s.has(args[2])))
	return nil
}

// SMISMEMBER key member [member ...]
func CmdSMIsMember(k *Keyspace, c *Ctx, args [][]byte) error {
	s, _, _, err := k.setOf(c, args[1], true)
	if err != nil {
		return err
	}
	c.W.Array(len(args) - 2)
	for _, m := range args[2:] {
		c.W.Int(b2i(s != nil && s.has(m)))
	}
	return nil
}

// SCARD key
func CmdSCard(k *Keyspace, c *Ctx, args [][]byte) error {
	s, _, _, err := k.setOf(c, args[1], true)
	if err != nil {
		return err
	}
	n := 0
	if s != nil {
		n = s.len()
	}
	c.W.Int(int64(n))
	return nil
}

// SMEMBERS key: a set reply in RESP3.
func CmdSMembers(k *Keyspace, c *Ctx, args [][]byte) error {
	s, _, _, err := k.setOf(c, args[1], true)
	if err != nil {
		return err
	}
	if s == nil {
		c.W.Set(0)
		return nil
	}
	c.W.Set(s.len())
	s.each(func(m []byte) bool { c.W.Bulk(m); return true })
	return nil
}

// SPOP key [count]
func CmdSPop(k *Keyspace, c *Ctx, args [][]byte) error {
	if len(args) > 3 {
		return resp.ErrSyntax
	}
	if len(args) == 3 {
		return k.spopCount(c, args)
	}
	s, o, i, err := k.setOf(c, args[1], false)
	if err != nil {
		return err
	}
	if s == nil {
		c.W.Null()
		return nil
	}
	m := s.random(k)
	m = append([]byte(nil), m...)
	s.remove(m)
	k.changedNotify(c, args[1], i, o, NotifySet, "spop")
	c.W.Bulk(m)
	return nil
}

func (k *Keyspace) spopCount(c *Ctx, args [][]byte) error {
	n, err := positiveArg(args[2])
	if err != nil {
		return err
	}
	s, o, i, err := k.setOf(c, args[1], false)
	if err != nil {
		return err
	}
	if s == nil || n == 0 {
		c.W.Set(0)
		return nil
	}
	count := int(min(n, int64(s.len())))
	c.W.Set(count)
	for ; count > 0; count-- {
		m := append([]byte(nil), s.random(k)...)
		s.remove(m)
		c.W.Bulk(m)
	}
	k.changedNotify(c, args[1], i, o, NotifySet, "spop")
	return nil
}

var errNotPositive = resp.NewError("value is out of range, must be positive")

// positiveArg is getPositiveLongFromObjectOrReply without a message of
// its own: anything but a non-negative integer gets "must be positive".
func positiveArg(b []byte) (int64, error) {
	n, err := intArg(b)
	if err != nil || n < 0 {
		return 0, errNotPositive
	}
	return n, nil
}

// SRANDMEMBER key [count]
func CmdSRandMember(k *Keyspace, c *Ctx, args [][]byte) error {
	if len(args) > 3 {
		return resp.ErrSyntax
	}
	if len(args) == 2 {
		s, _, _, err := k.setOf(c, args[1], true)
		switch {
		case err != nil:
			return err
		case s == nil:
			c.W.Null()
		default:
			c.W.Bulk(s.random(k))
		}
		return nil
	}
	n, err := rangeArg(args[2], -math.MaxInt64, math.MaxInt64)
	if err != nil {
		return err
	}
	s, _, _, err := k.setOf(c, args[1], true)
	if err != nil {
		return err
	}
	if s == nil || n == 0 {
		c.W.Array(0)
		return nil
	}
	if n < 0 || n == 1 {
		count := int64(1)
		if n < 0 {
			count = -n
		}
		if err := checkRandomReply(count, s.size(), s.len(), false); err != nil {
			return err
		}
		c.W.Array(int(count))
		for ; count > 0; count-- {
			c.W.Bulk(s.random(k))
		}
		return nil
	}
	if int(min(n, math.MaxInt32)) >= s.len() {
		c.W.Array(s.len())
		s.each(func(m []byte) bool { c.W.Bulk(m); return true })
		return nil
	}
	count := int(n)
	c.W.Array(count)
	if count*3 > s.len() {
		pick := selection(k, s.len(), count)
		s.each(func(m []byte) bool {
			if pick() {
				c.W.Bulk(m)
			}
			return true
		})
		return nil
	}
	picked := make(map[string]bool, count)
	for len(picked) < count {
		m := s.random(k)
		if !picked[string(m)] {
			picked[string(m)] = true
			c.W.Bulk(m)
		}
	}
	return nil
}

// setOp is a set algebra operation.
type setOp int

const (
	opUnion setOp = iota
	opInter
	opDiff
)

// setsOf looks up every key as a set: nil for a missing key, errWrongType
// on the first key of another type.
func (k *Keyspace) setsOf(c *Ctx, keys [][]byte) ([]*setValue, error) {
	sets := make([]*setValue, len(keys))
	for j, key := range keys {
		s, _, _, err := k.setOf(c, key, true)
		if err != nil {
			return nil, err
		}
		sets[j] = s
	}
	return sets, nil
}

// combine computes op over sets (nil stands for an empty set) into a new
// set value.
func (k *Keyspace) combine(sets []*setValue, op setOp, limit int) *setValue {
	out := &setValue{}
	switch op {
	case opUnion:
		for _, s := range sets {
			if s != nil {
				s.each(func(m []byte) bool { out.add(m, &k.enc); return true })
			}
		}
	case opInter:
		intersect(sets, func(m []byte) bool {
			out.add(m, &k.enc)
			return limit == 0 || out.len() < limit
		})
	case opDiff:
		if sets[0] == nil {
			return out
		}
		sets[0].each(func(m []byte) bool {
			for _, s := range sets[1:] {
				if s != nil && s.has(m) {
					return true
				}
			}
			out.add(m, &k.enc)
			return true
		})
	}
	return out
}

// intersect calls f for each member of every set, walking the smallest,
// until f returns false; a nil (missing) set makes it empty.
func intersect(sets []*setValue, f func(m []byte) bool) {
	smallest := -1
	for j, s := range sets {
		if s == nil {
			return
		}
		if smallest < 0 || s.len() < sets[smallest].len() {
			smallest = j
		}
	}
	sets[smallest].each(func(m []byte) bool {
		for j, s := range sets {
			if j != smallest && !s.has(m) {
				return true
			}
		}
		return f(m)
	})
}

// setAlgebra runs SUNION, SINTER, SDIFF and their STORE forms.
func (k *Keyspace) setAlgebra(c *Ctx, keys [][]byte, op setOp, dst []byte) error {
	sets, err := k.setsOf(c, keys)
	if err != nil {
		return err
	}
	out := k.combine(sets, op, 0)
	if dst == nil {
		c.W.Set(out.len())
		out.each(func(m []byte) bool { c.W.Bulk(m); return true })
		return nil
	}
	k.storeObject(c, dst, kindSet, out, NotifySet, setStoreEvents[op])
	c.W.Int(int64(out.len()))
	return nil
}

// storeObject makes key hold v (overwriting any value and its TTL, as
// setKey does) and reports event, or deletes key when v is empty.
func (k *Keyspace) storeObject(c *Ctx, key []byte, kind Kind, v value, class NotifyClass, event string) {
	if v.len() == 0 {
		// dbDelete, which (unlike setKey's lookup) does not check the
		// deadline: a key past it is deleted as any other.
		if i, ok := k.dbs[c.DB].lookup(key); ok {
			k.remove(c.DB, i)
			k.notify(NotifyGeneric, "del", key, c.DB)
		}
		return
	}
	_, i, found := k.find(c, key)
	if found {
		k.remove(c.DB, i)
	}
	var o *object
	if found {
		o, i = k.overwriteObject(c, key, kind, v)
	} else {
		o, i = k.create(c, key, kind, v)
	}
	k.changed(c, key, i, o)
	k.notify(class, event, key, c.DB)
}

// setStoreEvents are the STORE forms' events by operation.
var setStoreEvents = [...]string{opUnion: "sunionstore", opInter: "sinterstore", opDiff: "sdiffstore"}

// SUNION key [key ...]
func CmdSUnion(k *Keyspace, c *Ctx, args [][]byte) error {
	return k.setAlgebra(c, args[1:], opUnion, nil)
}

// SINTER key [key ...]
func CmdSInter(k *Keyspace, c *Ctx, args [][]byte) error {
	return k.setAlgebra(c, args[1:], opInter, nil)
}

// SDIFF key [key ...]
func CmdSDiff(k *Keyspace, c *Ctx, args [][]byte) error {
	return k.setAlgebra(c, args[1:], opDiff, nil)
}

// SUNIONSTORE destination key [key ...]
func CmdSUnionStore(k *Keyspace, c *Ctx, args [][]byte) error {
	return k.setAlgebra(c, args[2:], opUnion, args[1])
}

// SINTERSTORE destination key [key ...]
func CmdSInterStore(k *Keyspace, c *Ctx, args [][]byte) error {
	return k.setAlgebra(c, args[2:], opInter, args[1])
}

// SDIFFSTORE destination key [key ...]
func CmdSDiffStore(k *Keyspace, c *Ctx, args [][]byte) error {
	return k.setAlgebra(c, args[2:], opDiff, args[1])
}

var (
	errNumKeysPositive = cmdargs.ErrNumKeysPositive
	errNumKeysTooMany  = resp.NewError("Number of keys can't be greater than number of args")
	errLimitNegative   = resp.NewError("LIMIT can't be negative")
)

// SINTERCARD numkeys key [key ...] [LIMIT limit]
func CmdSInterCard(k *Keyspace, c *Ctx, args [][]byte) error {
	numkeys, err := intArg(args[1])
	if err != nil || numkeys < 1 {
		return errNumKeysPositive
	}
	if numkeys > int64(len(args)-2) {
		return errNumKeysTooMany
	}
	limit := int64(0)
	for j := 2 + int(numkeys); j < len(args); j++ {
		if equalFold(args[j], "limit") && j+1 < len(args) {
			j++
			n, err := intArg(args[j])
			if err != nil || n < 0 {
				return errLimitNegative
			}
			limit = n
			continue
		}
		return resp.ErrSyntax
	}
	sets, err := k.setsOf(c, args[2:2+numkeys])
	if err != nil {
		return err
	}
	// Counted, not built: a set of the members would cost what SINTER's
	// does, three times Redis's SINTERCARD.
	var n int64
	intersect(sets, func([]byte) bool {
		n++
		return limit == 0 || n < limit
	})
	c.W.Int(n)
	return nil
}

// SSCAN key cursor [MATCH pattern] [COUNT count]: an intset comes whole
// with cursor 0, as in Redis.
func CmdSScan(k *Keyspace, c *Ctx, args [][]byte) error {
	cursor, ok := parseCursor(args[2])
	if !ok {
		return errInvalidCursor
	}
	// Redis looks the key up before it reads the options: a missing key
	// is an empty scan and a wrong type WRONGTYPE, whatever follows.
	s, _, _, err := k.setOf(c, args[1], true)
	if err != nil || s == nil {
		if err == nil {
			replyScan(c.W, 0, nil)
		}
		return err
	}
	opts, err := parseScanOpts(args[3:], false)
	if err != nil {
		return err
	}
	// A dict's members are views (its key bytes never change): a copy
	// each made SSCAN twice as slow as it needs.
	var out [][]byte
	add := func(m []byte) {
		if opts.pattern == nil || Match(opts.pattern, string(m)) {
			out = append(out, m)
		}
	}
	next := uint64(0)
	switch {
	case s.big != nil:
		next = s.big.Scan(cursor, int(min(opts.count, math.MaxInt32)), func(m string, _ struct{}) { add(readOnly(m)) })
	default:
		// An intset's members are formatted into one buffer: copies.
		s.each(func(m []byte) bool { add(bytes.Clone(m)); return true })
	}
	replyScan(c.W, next, out)
	return nil
}
