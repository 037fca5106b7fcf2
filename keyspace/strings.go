package keyspace

import (
	"math"

	"github.com/minilock/minilock/internal/redisstr"
	"github.com/minilock/minilock/keyspace/internal/ldouble"
	"github.com/minilock/minilock/resp"
)

// The string commands (t_string.c).

// setOpts are the options of SET and GETEX, read left to right as Redis's
// parseExtendedStringArgumentsOrReply reads them.
type setOpts struct {
	nx, xx, get, keepTTL, persist bool
	// unit is the expiry option given (EX, PX, EXAT or PXAT), or 0.
	unit   expireUnit
	expire []byte
}

type expireUnit int

const (
	unitNone expireUnit = iota
	unitEX
	unitPX
	unitEXAT
	unitPXAT
)

var unitNames = map[string]expireUnit{"ex": unitEX, "px": unitPX, "exat": unitEXAT, "pxat": unitPXAT}

// parseSetOpts parses args as SET's options (forSet) or GETEX's. A repeated
// option is accepted and the last value wins; conflicting ones, unknown ones
// and a missing value are a syntax error.
func parseSetOpts(args [][]byte, forSet bool) (setOpts, error) {
	var o setOpts
	for j := 0; j < len(args); j++ {
		a := args[j]
		hasNext := j+1 < len(args)
		switch {
		case forSet && redisstr.Option(a, "nx") && !o.xx:
			o.nx = true
		case forSet && redisstr.Option(a, "xx") && !o.nx:
			o.xx = true
		case forSet && redisstr.Option(a, "get"):
			o.get = true
		case forSet && redisstr.Option(a, "keepttl") && !o.persist && o.unit == unitNone:
			o.keepTTL = true
		case !forSet && redisstr.Option(a, "persist") && o.unit == unitNone && !o.keepTTL:
			o.persist = true
		default:
			u := unitOf(a)
			if u == unitNone || o.keepTTL || o.persist || (o.unit != unitNone && o.unit != u) || !hasNext {
				return o, resp.ErrSyntax
			}
			o.unit = u
			o.expire = args[j+1]
			j++
		}
	}
	return o, nil
}

func unitOf(a []byte) expireUnit {
	for name, u := range unitNames {
		if redisstr.Option(a, name) {
			return u
		}
	}
	return unitNone
}

// deadline turns an EX/PX/EXAT/PXAT argument into an absolute deadline in
// Unix ms, with Redis's errors (t_string.c:getExpireMillisecondsOrReply):
// not positive, or overflowing once converted or added to now, is an
// "invalid expire time" error for the command cmd.
func deadline(cmd string, u expireUnit, arg []byte, now int64) (int64, error) {
	n, err := intArg(arg)
	if err != nil {
		return 0, err
	}
	seconds := u == unitEX || u == unitEXAT
	if n <= 0 || (seconds && n > math.MaxInt64/1000) {
		return 0, resp.ErrInvalidExpire(cmd)
	}
	if seconds {
		n *= 1000
	}
	if u == unitEX || u == unitPX {
		if n > math.MaxInt64-now {
			return 0, resp.ErrInvalidExpire(cmd)
		}
		n += now
	}
	return n, nil
}

// set runs SET and the commands built on it (setGenericCommand). okReply and
// abortReply replace +OK and the null reply (SETNX answers :1 and :0).
func (k *Keyspace) set(c *Ctx, cmd string, key, val []byte, o setOpts, okReply, abortReply func(*resp.Writer)) error {
	var at int64
	if o.unit != unitNone {
		var err error
		if at, err = deadline(cmd, o.unit, o.expire, c.Now); err != nil {
			return err
		}
	}
	if o.get {
		if err := k.replyValue(c, key); err != nil {
			return err
		}
	}
	_, i, found := k.find(c, key)
	if (o.nx && found) || (o.xx && !found) {
		if !o.get {
			abortReply(c.W)
		}
		return nil
	}
	i = k.put(c, i, found, key, val, o.keepTTL)
	k.notify(NotifyString, "set", key, c.DB)
	if at != 0 {
		k.setExpire(c.DB, i, at)
		k.notify(NotifyGeneric, "expire", key, c.DB)
	}
	if !o.get {
		okReply(c.W)
	}
	return nil
}

func replyOK(w *resp.Writer)   { w.OK() }
func replyNull(w *resp.Writer) { w.Null() }
func replyOne(w *resp.Writer)  { w.Int(1) }
func replyZero(w *resp.Writer) { w.Int(0) }

// replyValue replies with key's value, or null when it is missing
// (getGenericCommand); a key of another type is WRONGTYPE.
func (k *Keyspace) replyValue(c *Ctx, key []byte) error {
	e, _, ok, err := k.readString(c, key)
	switch {
	case err != nil:
		return err
	case ok:
		c.W.Bulk(e.val())
	default:
		c.W.Null()
	}
	return nil
}

// readString is read for a command on strings: errWrongType when key
// holds another type.
func (k *Keyspace) readString(c *Ctx, key []byte) (*entry, uint32, bool, error) {
	e, i, ok := k.read(c, key)
	if ok && e.obj != nil {
		return nil, 0, false, errWrongType
	}
	return e, i, ok, nil
}

// findString is find for a command that changes a string: errWrongType
// when key holds another type.
func (k *Keyspace) findString(c *Ctx, key []byte) (*entry, uint32, bool, error) {
	e, i, ok := k.find(c, key)
	if ok && e.obj != nil {
		return nil, 0, false, errWrongType
	}
	return e, i, ok, nil
}

// SET key value [NX|XX] [GET] [EX s|PX ms|EXAT ts|PXAT ms-ts|KEEPTTL]
func CmdSet(k *Keyspace, c *Ctx, args [][]byte) error {
	o, err := parseSetOpts(args[3:], true)
	if err != nil {
		return err
	}
	return k.set(c, "set", args[1], args[2], o, replyOK, replyNull)
}

// SETNX key value
func CmdSetNX(k *Keyspace, c *Ctx, args [][]byte) error {
	return k.set(c, "setnx", args[1], args[2], setOpts{nx: true}, replyOne, replyZero)
}

// SETEX key seconds value
func CmdSetEX(k *Keyspace, c *Ctx, args [][]byte) error {
	return k.set(c, "setex", args[1], args[3], setOpts{unit: unitEX, expire: args[2]}, replyOK, replyNull)
}

// PSETEX key milliseconds value
func CmdPSetEX(k *Keyspace, c *Ctx, args [][]byte) error {
	return k.set(c, "psetex", args[1], args[3], setOpts{unit: unitPX, expire: args[2]}, replyOK, replyNull)
}

// GET key
func CmdGet(k *Keyspace, c *Ctx, args [][]byte) error {
	return k.replyValue(c, args[1])
}

// GETSET key value: the old value, and the new one without a TTL.
func CmdGetSet(k *Keyspace, c *Ctx, args [][]byte) error {
	if err := k.replyValue(c, args[1]); err != nil {
		return err
	}
	k.store(c, args[1], args[2], false)
	k.notify(NotifyString, "set", args[1], c.DB)
	return nil
}

// GETDEL key
func CmdGetDel(k *Keyspace, c *Ctx, args [][]byte) error {
	e, i, ok, err := k.readString(c, args[1])
	if err != nil {
		return err
	}
	if !ok {
		c.W.Null()
		return nil
	}
	c.W.Bulk(e.val())
	k.remove(c.DB, i)
	k.notify(NotifyGeneric, "del", args[1], c.DB)
	return nil
}

// GETEX key [EX s|PX ms|EXAT ts|PXAT ms-ts|PERSIST]
func CmdGetEX(k *Keyspace, c *Ctx, args [][]byte) error {
	o, err := parseSetOpts(args[2:], false)
	if err != nil {
		return err
	}
	e, i, ok, err := k.readString(c, args[1])
	if err != nil {
		return err
	}
	if !ok {
		c.W.Null()
		return nil
	}
	var at int64
	if o.unit != unitNone {
		if at, err = deadline("getex", o.unit, o.expire, c.Now); err != nil {
			return err
		}
	}
	c.W.Bulk(e.val())
	switch {
	case (o.unit == unitEXAT || o.unit == unitPXAT) && at <= c.Now:
		k.remove(c.DB, i) // an absolute deadline already passed
		k.notify(NotifyGeneric, "del", args[1], c.DB)
	case at != 0:
		k.setExpire(c.DB, i, at)
		k.notify(NotifyGeneric, "expire", args[1], c.DB)
	case o.persist:
		if k.clearExpire(c.DB, e) {
			k.touch(c.DB, args[1])
			k.notify(NotifyGeneric, "persist", args[1], c.DB)
		}
	}
	return nil
}

// GETRANGE key start end, with Redis's clamping of negative and
// out-of-range indexes.
func CmdGetRange(k *Keyspace, c *Ctx, args [][]byte) error {
	start, err := intArg(args[2])
	if err != nil {
		return err
	}
	end, err := intArg(args[3])
	if err != nil {
		return err
	}
	e, _, ok, err := k.readString(c, args[1])
	if err != nil {
		return err
	}
	if !ok {
		c.W.BulkString("")
		return nil
	}
	val := e.val()
	n := int64(len(val))
	if start < 0 && end < 0 && start > end {
		c.W.BulkString("")
		return nil
	}
	if start < 0 {
		start += n
	}
	if end < 0 {
		end += n
	}
	start, end = max(start, 0), max(end, 0)
	if end >= n {
		end = n - 1
	}
	if start > end || n == 0 {
		c.W.BulkString("")
		return nil
	}
	c.W.Bulk(val[start : end+1])
	return nil
}

// STRLEN key
func CmdStrLen(k *Keyspace, c *Ctx, args [][]byte) error {
	var n int
	e, _, ok, err := k.readString(c, args[1])
	if err != nil {
		return err
	}
	if ok {
		n = len(e.val())
	}
	c.W.Int(int64(n))
	return nil
}

// APPEND key value: the new length. The TTL is kept.
func CmdAppend(k *Keyspace, c *Ctx, args [][]byte) error {
	_, i, ok, err := k.findString(c, args[1])
	if err != nil {
		return err
	}
	if !ok {
		i = k.store(c, args[1], args[2], false)
	} else {
		if err := k.checkStringLength(len(k.dbs[c.DB].slots[i].val()), len(args[2])); err != nil {
			return err
		}
		k.dbs[c.DB].appendVal(i, args[2])
		k.touch(c.DB, args[1])
	}
	k.notify(NotifyString, "append", args[1], c.DB)
	c.W.Int(int64(len(k.dbs[c.DB].slots[i].val())))
	return nil
}

// errStringTooLong is t_string.c:checkStringLength's reply.
var errStringTooLong = resp.NewError("string exceeds maximum allowed size (proto-max-bulk-len)")

// checkStringLength refuses to grow a string of size to size+add past
// proto-max-bulk-len (t_string.c:checkStringLength).
func (k *Keyspace) checkStringLength(size, add int) error {
	if int64(size)+int64(add) > k.maxLen {
		return errStringTooLong
	}
	return nil
}

// MGET key [key ...]
func CmdMGet(k *Keyspace, c *Ctx, args [][]byte) error {
	c.W.Array(len(args) - 1)
	for _, key := range args[1:] {
		// MGET answers null for a key of another type.
		if e, _, ok := k.read(c, key); ok && e.obj == nil {
			c.W.Bulk(e.val())
		} else {
			c.W.Null()
		}
	}
	return nil
}

// MSET key value [key value ...]
func CmdMSet(k *Keyspace, c *Ctx, args [][]byte) error {
	if len(args)%2 == 0 {
		return resp.ErrWrongArgs("mset")
	}
	for j := 1; j < len(args); j += 2 {
		k.store(c, args[j], args[j+1], false)
		k.notify(NotifyString, "set", args[j], c.DB)
	}
	c.W.OK()
	return nil
}

// MSETNX key value [key value ...]: all or nothing.
func CmdMSetNX(k *Keyspace, c *Ctx, args [][]byte) error {
	if len(args)%2 == 0 {
		return resp.ErrWrongArgs("msetnx")
	}
	for j := 1; j < len(args); j += 2 {
		if _, _, found := k.find(c, args[j]); found {
			c.W.Int(0)
			return nil
		}
	}
	for j := 1; j < len(args); j += 2 {
		k.store(c, args[j], args[j+1], false)
		k.notify(NotifyString, "set", args[j], c.DB)
	}
	c.W.Int(1)
	return nil
}

// errDecrOverflow is DECRBY's own message for negating LLONG_MIN.
var errDecrOverflow = resp.NewError("decrement would overflow")

// incr adds by to the integer in key (incrDecrCommand). A missing key counts
// as 0; the TTL is kept.
func (k *Keyspace) incr(c *Ctx, key []byte, by int64) error {
	var old int64
	e, i, ok, err := k.findString(c, key)
	if err != nil {
		return err
	}
	if ok {
		var valid bool
		if old, valid = redisstr.ParseInt(e.val()); !valid {
			return resp.ErrNotInteger
		}
	}
	if (by < 0 && old < 0 && by < math.MinInt64-old) || (by > 0 && old > 0 && by > math.MaxInt64-old) {
		return resp.ErrOverflow
	}
	n := old + by
	var buf [24]byte
	k.put(c, i, ok, key, appendInt(buf[:0], n), true)
	k.notify(NotifyString, "incrby", key, c.DB)
	c.W.Int(n)
	return nil
}

// INCR key
func CmdIncr(k *Keyspace, c *Ctx, args [][]byte) error { return k.incr(c, args[1], 1) }

// DECR key
func CmdDecr(k *Keyspace, c *Ctx, args [][]byte) error { return k.incr(c, args[1], -1) }

// INCRBY key increment
func CmdIncrBy(k *Keyspace, c *Ctx, args [][]byte) error {
	by, err := intArg(args[2])
	if err != nil {
		return err
	}
	return k.incr(c, args[1], by)
}

// DECRBY key decrement
func CmdDecrBy(k *Keyspace, c *Ctx, args [][]byte) error {
	by, err := intArg(args[2])
	if err != nil {
		return err
	}
	if by == math.MinInt64 {
		return errDecrOverflow
	}
	return k.incr(c, args[1], -by)
}

var errOffsetRange = resp.NewError("offset is out of range")

// SETRANGE key offset value: the new length; a gap is filled with zero
// bytes. The TTL is kept.
func CmdSetRange(k *Keyspace, c *Ctx, args [][]byte) error {
	offset, err := intArg(args[2])
	if err != nil {
		return err
	}
	if offset < 0 {
		return errOffsetRange
	}
	val := args[3]
	e, i, ok, err := k.findString(c, args[1])
	if err != nil {
		return err
	}
	old := 0
	if ok {
		old = len(e.val())
	}
	if len(val) == 0 {
		c.W.Int(int64(old)) // nothing to set: no key is made
		return nil
	}
	if offset > k.maxLen || k.checkStringLength(int(offset), len(val)) != nil {
		return errStringTooLong
	}
	end := int(offset) + len(val)
	buf := make([]byte, max(old, end))
	if ok {
		copy(buf, e.val())
	}
	copy(buf[offset:], val)
	k.put(c, i, ok, args[1], buf, true)
	k.notify(NotifyString, "setrange", args[1], c.DB)
	c.W.Int(int64(len(buf)))
	return nil
}

// INCRBYFLOAT key increment, in long double arithmetic and printed as
// Redis prints it (t_string.c:incrbyfloatCommand). The TTL is kept.
func CmdIncrByFloat(k *Keyspace, c *Ctx, args [][]byte) error {
	e, i, ok, err := k.findString(c, args[1])
	if err != nil {
		return err
	}
	var old ldouble.Float
	if ok {
		if old, ok = ldouble.Parse(e.val()); !ok {
			return errNotFloat
		}
		ok = true
	}
	by, valid := ldouble.Parse(args[2])
	if !valid {
		return errNotFloat
	}
	sum := ldouble.Add(old, by)
	if sum.IsInf() {
		return errIncrNaNInf
	}
	s := sum.Human()
	k.put(c, i, ok, args[1], []byte(s), true)
	k.notify(NotifyString, "incrbyfloat", args[1], c.DB)
	c.W.BulkString(s)
	return nil
}
