package keyspace

import (
	"bytes"
	"math"
	"strconv"

	"github.com/minilock/minilock/internal/redisstr"
	"github.com/minilock/minilock/keyspace/internal/dict"
	"github.com/minilock/minilock/keyspace/internal/ldouble"
	"github.com/minilock/minilock/resp"
)

// Hashes (t_hash.c). A small hash keeps its fields and values as pairs in
// one hpack (Redis's listpack encoding); past hash-max-listpack-entries
// fields or a field or value longer than hash-max-listpack-value it moves
// to a dict (Redis's hashtable) for good.

type hashValue struct {
	small hpack // while big is nil
	big   *dict.Dict[string]
	vals  int64 // bytes of big's values
}

func (h *hashValue) len() int {
	if h.big != nil {
		return h.big.Len()
	}
	return h.small.len()
}

func (h *hashValue) size() int64 {
	if h.big != nil {
		return h.big.Size() + h.vals
	}
	return int64(h.small.size())
}

// get returns field's value.
func (h *hashValue) get(field []byte) ([]byte, bool) {
	if h.big != nil {
		v, ok := h.big.Get(field)
		return []byte(v), ok
	}
	if off := h.small.find(field); off >= 0 {
		_, v, _ := h.small.at(off)
		return v, true
	}
	return nil, false
}

// lookup is get that also returns the offset of a small hash's pair
// (-1 when large or missing), for hpack.setValue.
func (h *hashValue) lookup(field []byte) ([]byte, int, bool) {
	if h.big != nil {
		v, ok := h.get(field)
		return v, -1, ok
	}
	if off := h.small.find(field); off >= 0 {
		_, v, _ := h.small.at(off)
		return v, off, true
	}
	return nil, -1, false
}

// set makes field's value val and reports whether field is new, converting
// the hash to a dict when it outgrows enc.
func (h *hashValue) set(field, val []byte, enc *Encodings) bool {
	if h.big == nil && (len(field) > enc.HashMaxListpackValue || len(val) > enc.HashMaxListpackValue) {
		h.convert()
	}
	if h.big != nil {
		if ref, ok := h.big.Ref(field); ok {
			h.vals += int64(len(val) - len(*ref))
			*ref = string(val)
			return false
		}
		h.vals += int64(len(val))
		return h.big.Set(field, string(val))
	}
	if off := h.small.find(field); off >= 0 {
		h.small.setValue(off, val)
		return false
	}
	h.small.add(field, val)
	if h.len() > enc.HashMaxListpackEntries {
		h.convert()
	}
	return true
}

// reserve grows a small hash's pack once for the fields among pairs
// (field, value ...) that it does not hold yet, when they keep it small.
func (h *hashValue) reserve(pairs [][]byte, enc *Encodings) {
	if h.big != nil || len(pairs) < 4 || len(pairs)/2 > enc.HashMaxListpackEntries {
		return // (too many to stay small: not worth a search each)
	}
	need, fields := 0, h.len()
	for j := 0; j+1 < len(pairs); j += 2 {
		f, v := pairs[j], pairs[j+1]
		if len(f) > enc.HashMaxListpackValue || len(v) > enc.HashMaxListpackValue {
			return
		}
		if h.small.find(f) < 0 {
			need += pairSize(len(f), len(v))
			fields++
		}
	}
	if fields <= enc.HashMaxListpackEntries {
		h.small.grow(need)
	}
}

// del removes field and reports whether it was there.
func (h *hashValue) del(field []byte) bool {
	if h.big != nil {
		v, ok := h.big.Get(field)
		h.vals -= int64(len(v))
		return ok && h.big.Delete(field)
	}
	if off := h.small.find(field); off >= 0 {
		h.small.remove(off)
		return true
	}
	return false
}

// each calls f for every field and value, in the hash's order, until f
// returns false.
func (h *hashValue) each(f func(field, val []byte) bool) {
	if h.big != nil {
		h.big.All(func(k string, v string) bool { return f([]byte(k), []byte(v)) })
		return
	}
	for off := 0; off < h.small.end(); {
		var k, v []byte
		k, v, off = h.small.at(off)
		if !f(k, v) {
			return
		}
	}
}

// random returns a random field and its value; the hash is not empty.
func (h *hashValue) random(k *Keyspace) ([]byte, []byte) {
	if h.big != nil {
		// Views, not copies: HRANDFIELD -3,000,000 WITHVALUES made six
		// million of those.
		f, v := h.big.Random(k.rng.IntN)
		return readOnly(f), readOnly(v)
	}
	f, v, _ := h.small.at(h.small.offset(k.rng.IntN(h.len())))
	return f, v
}

func (h *hashValue) convert() {
	d := &dict.Dict[string]{}
	var vals int64
	h.each(func(f, v []byte) bool { d.Set(f, string(v)); vals += int64(len(v)); return true })
	h.big, h.small, h.vals = d, hpack{}, vals
}

// hashOf finds key's hash: nil when missing, errWrongType for another type.
func (k *Keyspace) hashOf(c *Ctx, key []byte, read bool) (*hashValue, *object, uint32, error) {
	o, i, err := k.objectOf(c, key, kindHash, read)
	if o == nil || err != nil {
		return nil, nil, 0, err
	}
	return o.v.(*hashValue), o, i, nil
}

// hashForWrite is hashOf for a command that adds fields: a missing hash is
// created (hashTypeLookupWriteOrCreate). The caller reports the change
// with k.changed, which also removes a hash it left empty.
func (k *Keyspace) hashForWrite(c *Ctx, key []byte) (*hashValue, *object, uint32, error) {
	h, o, i, err := k.hashOf(c, key, false)
	if err != nil || h != nil {
		return h, o, i, err
	}
	h = &hashValue{}
	o, i = k.create(c, key, kindHash, h)
	return h, o, i, nil
}

// HSET key field value [field value ...]: the number of new fields. HMSET
// is the same command answering +OK.
func CmdHSet(k *Keyspace, c *Ctx, args [][]byte) error {
	if len(args)%2 == 1 {
		return resp.ErrWrongArgs(redisstr.CString(bytes.ToLower(args[0])))
	}
	h, o, i, err := k.hashForWrite(c, args[1])
	if err != nil {
		return err
	}
	h.reserve(args[2:], &k.enc)
	var added int64
	for j := 2; j < len(args); j += 2 {
		if h.set(args[j], args[j+1], &k.enc) {
			added++
		}
	}
	k.changed(c, args[1], i, o)
	k.notify(NotifyHash, "hset", args[1], c.DB)
	if args[0][1] == 'm' || args[0][1] == 'M' {
		c.W.OK()
	} else {
		c.W.Int(added)
	}
	return nil
}

// HSETNX key field value
func CmdHSetNX(k *Keyspace, c *Ctx, args [][]byte) error {
	h, o, i, err := k.hashForWrite(c, args[1])
	if err != nil {
		return err
	}
	if _, ok := h.get(args[2]); ok {
		c.W.Int(0)
		return nil
	}
	h.set(args[2], args[3], &k.enc)
	k.changed(c, args[1], i, o)
	k.notify(NotifyHash, "hset", args[1], c.DB)
	c.W.Int(1)
	return nil
}

// HGET key field
func CmdHGet(k *Keyspace, c *Ctx, args [][]byte) error {
	h, _, _, err := k.hashOf(c, args[1], true)
	if err != nil {
		return err
	}
	if h != nil {
		if v, ok := h.get(args[2]); ok {
			c.W.Bulk(v)
			return nil
		}
	}
	c.W.Null()
	return nil
}

// HMGET key field [field ...]
func CmdHMGet(k *Keyspace, c *Ctx, args [][]byte) error {
	h, _, _, err := k.hashOf(c, args[1], true)
	if err != nil {
		return err
	}
	c.W.Array(len(args) - 2)
	for _, f := range args[2:] {
		if h != nil {
			if v, ok := h.get(f); ok {
				c.W.Bulk(v)
				continue
			}
		}
		c.W.Null()
	}
	return nil
}

// HDEL key field [field ...]: the number removed.
func CmdHDel(k *Keyspace, c *Ctx, args [][]byte) error {
	h, o, i, err := k.hashOf(c, args[1], false)
	if err != nil || h == nil {
		if err == nil {
			c.W.Int(0)
		}
		return err
	}
	var n int64
	for _, f := range args[2:] {
		if h.del(f) {
			n++
			if h.len() == 0 {
				break
			}
		}
	}
	if n > 0 {
		k.changedNotify(c, args[1], i, o, NotifyHash, "hdel")
	}
	c.W.Int(n)
	return nil
}

// HLEN key
func CmdHLen(k *Keyspace, c *Ctx, args [][]byte) error {
	h, _, _, err := k.hashOf(c, args[1], true)
	if err != nil {
		return err
	}
	n := 0
	if h != nil {
		n = h.len()
	}
	c.W.Int(int64(n))
	return nil
}

// HSTRLEN key field
func CmdHStrLen(k *Keyspace, c *Ctx, args [][]byte) error {
	h, _, _, err := k.hashOf(c, args[1], true)
	if err != nil {
		return err
	}
	n := 0
	if h != nil {
		v, _ := h.get(args[2])
		n = len(v)
	}
	c.W.Int(int64(n))
	return nil
}

// HEXISTS key field
func CmdHExists(k *Keyspace, c *Ctx, args [][]byte) error {
	h, _, _, err := k.hashOf(c, args[1], true)
	if err != nil {
		return err
	}
	n := int64(0)
	if h != nil {
		if _, ok := h.get(args[2]); ok {
			n = 1
		}
	}
	c.W.Int(n)
	return nil
}

// hashAll replies with the hash's fields, values or both
// (genericHgetallCommand): a map for both in RESP3.
func (k *Keyspace) hashAll(c *Ctx, key []byte, fields, values bool) error {
	h, _, _, err := k.hashOf(c, key, true)
	if err != nil {
		return err
	}
	n := 0
	if h != nil {
		n = h.len()
	}
	if fields && values {
		c.W.Map(n)
	} else {
		c.W.Array(n)
	}
	if h != nil {
		h.each(func(f, v []byte) bool {
			if fields {
				c.W.Bulk(f)
			}
			if values {
				c.W.Bulk(v)
			}
			return true
		})
	}
	return nil
}

// HKEYS key
func CmdHKeys(k *Keyspace, c *Ctx, args [][]byte) error { return k.hashAll(c, args[1], true, false) }

// HVALS key
func CmdHVals(k *Keyspace, c *Ctx, args [][]byte) error { return k.hashAll(c, args[1], false, true) }

// HGETALL key
func CmdHGetAll(k *Keyspace, c *Ctx, args [][]byte) error { return k.hashAll(c, args[1], true, true) }

var (
	errHashNotInt   = resp.NewError("hash value is not an integer")
	errHashNotFloat = resp.NewError("hash value is not a float")
	errNotFloat     = resp.NewError("value is not a valid float")
	errFloatNaNInf  = resp.NewError("value is NaN or Infinity")
	errIncrNaNInf   = resp.NewError("increment would produce NaN or Infinity")
)

// HINCRBY key field increment
func CmdHIncrBy(k *Keyspace, c *Ctx, args [][]byte) error {
	by, err := intArg(args[3])
	if err != nil {
		return err
	}
	h, o, i, err := k.hashForWrite(c, args[1])
	if err != nil {
		return err
	}
	var old int64
	v, off, ok := h.lookup(args[2])
	if ok {
		// (Errors come only from a field that exists: the hash was
		// there already and nothing changed.)
		if old, ok = redisstr.ParseInt(v); !ok {
			return errHashNotInt
		}
	}
	if (by < 0 && old < 0 && by < math.MinInt64-old) || (by > 0 && old > 0 && by > math.MaxInt64-old) {
		return resp.ErrOverflow
	}
	n := old + by
	var buf [24]byte
	if val := strconv.AppendInt(buf[:0], n, 10); off >= 0 && len(val) <= k.enc.HashMaxListpackValue {
		h.small.setValue(off, val) // found already: no second walk
	} else {
		h.set(args[2], val, &k.enc)
	}
	k.changed(c, args[1], i, o)
	k.notify(NotifyHash, "hincrby", args[1], c.DB)
	c.W.Int(n)
	return nil
}

// HINCRBYFLOAT key field increment, in long double arithmetic as Redis.
func CmdHIncrByFloat(k *Keyspace, c *Ctx, args [][]byte) error {
	by, ok := ldouble.Parse(args[3])
	if !ok {
		return errNotFloat
	}
	if by.IsInf() {
		return errFloatNaNInf
	}
	h, o, i, err := k.hashForWrite(c, args[1])
	if err != nil {
		return err
	}
	var old ldouble.Float
	if v, ok := h.get(args[2]); ok {
		if old, ok = ldouble.Parse(v); !ok {
			return errHashNotFloat
		}
	}
	sum := ldouble.Add(old, by)
	if sum.IsInf() {
		if h.len() == 0 {
			k.changed(c, args[1], i, o) // drops the hash made for nothing
		}
		return errIncrNaNInf
	}
	s := sum.Human()
	h.set(args[2], []byte(s), &k.enc)
	k.changed(c, args[1], i, o)
	k.notify(NotifyHash, "hincrbyfloat", args[1], c.DB)
	c.W.BulkString(s)
	return nil
}

// HSCAN key cursor [MATCH pattern] [COUNT count]: a packed hash comes whole
// with cursor 0, as in Redis; a dict is scanned by minilock's cursors.
func CmdHScan(k *Keyspace, c *Ctx, args [][]byte) error {
	cursor, ok := parseCursor(args[2])
	if !ok {
		return errInvalidCursor
	}
	// Redis looks the key up before it reads the options: a missing key
	// is an empty scan and a wrong type WRONGTYPE, whatever follows.
	h, _, _, err := k.hashOf(c, args[1], true)
	if err != nil || h == nil {
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
	add := func(f, v []byte) {
		if opts.pattern == nil || Match(opts.pattern, string(f)) {
			out = append(out, f, v)
		}
	}
	next := uint64(0)
	switch {
	case h.big != nil:
		next = h.big.Scan(cursor, int(min(opts.count, math.MaxInt32)), func(f string, v string) { add([]byte(f), []byte(v)) })
	default:
		h.each(func(f, v []byte) bool { add(f, v); return true })
	}
	replyScan(c.W, next, out)
	return nil
}

// HRANDFIELD key [count [WITHVALUES]]
func CmdHRandField(k *Keyspace, c *Ctx, args [][]byte) error {
	if len(args) == 2 {
		h, _, _, err := k.hashOf(c, args[1], true)
		switch {
		case err != nil:
			return err
		case h == nil:
			c.W.Null()
		default:
			f, _ := h.random(k)
			c.W.Bulk(f)
		}
		return nil
	}
	n, err := rangeArg(args[2], -math.MaxInt64, math.MaxInt64)
	if err != nil {
		return err
	}
	withValues := false
	if len(args) > 4 || len(args) == 4 && !redisstr.Option(args[3], "withvalues") {
		return resp.ErrSyntax
	} else if len(args) == 4 {
		withValues = true
		if n < -math.MaxInt64/2 || n > math.MaxInt64/2 {
			return errOutOfRange
		}
	}
	h, _, _, err := k.hashOf(c, args[1], true)
	if err != nil {
		return err
	}
	if h == nil || n == 0 {
		c.W.Array(0)
		return nil
	}
	pair := func(f, v []byte) {
		if withValues && c.W.RESP3() {
			c.W.Array(2)
		}
		c.W.Bulk(f)
		if withValues {
			c.W.Bulk(v)
		}
	}
	header := func(count int) {
		if withValues && !c.W.RESP3() {
			c.W.Array(2 * count)
		} else {
			c.W.Array(count)
		}
	}
	if n < 0 || n == 1 {
		// Repeats allowed, in random order: sized by the client, so
		// bounded (see checkRandomReply).
		count := int(min(-n, math.MaxInt32))
		if n == 1 {
			count = 1
		}
		if err := checkRandomReply(int64(count), h.size(), h.len(), withValues); err != nil {
			return err
		}
		header(count)
		for ; count > 0; count-- {
			pair(h.random(k))
		}
		return nil
	}
	count := int(min(n, int64(h.len())))
	header(count)
	if count == h.len() {
		h.each(func(f, v []byte) bool { pair(f, v); return true })
		return nil
	}
	if count*3 > h.len() {
		pick := selection(k, h.len(), count)
		h.each(func(f, v []byte) bool {
			if pick() {
				pair(f, v)
			}
			return true
		})
		return nil
	}
	// Distinct fields, few of them: random draws without repeats.
	picked := make(map[string]bool, count)
	for len(picked) < count {
		f, v := h.random(k)
		if !picked[string(f)] {
			picked[string(f)] = true
			pair(f, v)
		}
	}
	return nil
}

// selection returns a function to call for each of n elements in turn:
// it reports whether to take the element, taking count of them, each set
// of count equally likely (Knuth's selection sampling, as Redis's
// SRANDMEMBER case 3 keeps a fair subset of its copy). One pass and no
// memory, where drawing until count distinct elements came up takes
// n*ln(n/(n-count)) draws and a map of them: 900,000 of 1,000,000
// fields took 1.8 s that way.
func selection(k *Keyspace, n, count int) func() bool {
	return func() bool {
		take := k.rng.IntN(n) < count
		n--
		if take {
			count--
		}
		return take
	}
}

// maxRandomReply bounds a reply whose length a client chooses with a
// negative count (HRANDFIELD, SRANDMEMBER, ZRANDMEMBER): Redis builds any
// such reply, minilock refuses one over this many bytes.
const maxRandomReply = 512 << 20

var errRandomReply = resp.NewError("the reply would be larger than minilock's limit for random replies (512 MiB); ask for fewer elements")

// checkRandomReply refuses count random elements of a collection of n
// elements holding size bytes when their reply would pass maxRandomReply.
func checkRandomReply(count, size int64, n int, pairs bool) error {
	per := size/int64(max(n, 1)) + 16
	if pairs {
		per *= 2
	}
	if count > maxRandomReply/per {
		return errRandomReply
	}
	return nil
}

var errOutOfRange = resp.NewError("value is out of range")

// rangeArg parses an integer argument within [lo, hi]
// (getRangeLongFromObjectOrReply without a message of its own).
func rangeArg(b []byte, lo, hi int64) (int64, error) {
	n, err := intArg(b)
	if err != nil {
		return 0, err
	}
	if n < lo || n > hi {
		return 0, resp.NewError("value is out of range, value must between " + strconv.FormatInt(lo, 10) + " and " + strconv.FormatInt(hi, 10))
	}
	return n, nil
}

func (h *hashValue) clone() value {
	c := &hashValue{small: h.small.clone(), vals: h.vals}
	if h.big != nil {
		c.big = h.big.Clone()
	}
	return c
}
