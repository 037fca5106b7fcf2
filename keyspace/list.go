package keyspace

import (
	"bytes"

	"github.com/minilock/minilock/internal/cmdargs"
	"github.com/minilock/minilock/resp"
)

// Lists (t_list.c). The blocking forms (BLPOP ...) build on these in the
// server, which parks their clients until a push makes a list ready.

var (
	errNoKey      = resp.NewError("no such key")
	errIndexRange = resp.NewError("index out of range")
	errRankZero   = resp.NewError("RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list")
	errCountNeg   = resp.NewError("COUNT can't be negative")
	errMaxLenNeg  = resp.NewError("MAXLEN can't be negative")
)

// listOf finds key's list: nil when missing, errWrongType for another type.
func (k *Keyspace) listOf(c *Ctx, key []byte, read bool) (*listValue, *object, uint32, error) {
	o, i, err := k.objectOf(c, key, kindList, read)
	if o == nil || err != nil {
		return nil, nil, 0, err
	}
	return o.v.(*listValue), o, i, nil
}

// push is pushGenericCommand: LPUSH, RPUSH, LPUSHX, RPUSHX.
func (k *Keyspace) push(c *Ctx, args [][]byte, front, xx bool) error {
	l, o, i, err := k.listOf(c, args[1], false)
	if err != nil {
		return err
	}
	if l == nil {
		if xx {
			c.W.Int(0)
			return nil
		}
		l = newList(&k.enc)
		o, i = k.create(c, args[1], kindList, l)
	}
	for _, v := range args[2:] {
		l.push(v, front)
	}
	k.changed(c, args[1], i, o)
	k.notify(NotifyList, pushEvent(front), args[1], c.DB)
	c.W.Int(int64(l.len()))
	return nil
}

// LPUSH key element [element ...]
func CmdLPush(k *Keyspace, c *Ctx, args [][]byte) error { return k.push(c, args, true, false) }

// RPUSH key element [element ...]
func CmdRPush(k *Keyspace, c *Ctx, args [][]byte) error { return k.push(c, args, false, false) }

// LPUSHX key element [element ...]
func CmdLPushX(k *Keyspace, c *Ctx, args [][]byte) error { return k.push(c, args, true, true) }

// RPUSHX key element [element ...]
func CmdRPushX(k *Keyspace, c *Ctx, args [][]byte) error { return k.push(c, args, false, true) }

// LINSERT key BEFORE|AFTER pivot element
func CmdLInsert(k *Keyspace, c *Ctx, args [][]byte) error {
	var after bool
	switch {
	case equalFold(args[2], "after"):
		after = true
	case equalFold(args[2], "before"):
	default:
		return resp.ErrSyntax
	}
	l, o, i, err := k.listOf(c, args[1], false)
	if err != nil || l == nil {
		if err == nil {
			c.W.Int(0)
		}
		return err
	}
	at := -1
	idx := 0
	l.each(0, l.len()-1, false, func(v []byte) bool {
		if bytes.Equal(v, args[3]) {
			at = idx
			return false
		}
		idx++
		return true
	})
	if at < 0 {
		c.W.Int(-1)
		return nil
	}
	if after {
		at++
	}
	l.insertAt(at, args[4])
	k.changed(c, args[1], i, o)
	k.notify(NotifyList, "linsert", args[1], c.DB)
	c.W.Int(int64(l.len()))
	return nil
}

// LLEN key
func CmdLLen(k *Keyspace, c *Ctx, args [][]byte) error {
	l, _, _, err := k.listOf(c, args[1], true)
	if err != nil {
		return err
	}
	n := 0
	if l != nil {
		n = l.len()
	}
	c.W.Int(int64(n))
	return nil
}

// LINDEX key index
func CmdLIndex(k *Keyspace, c *Ctx, args [][]byte) error {
	l, _, _, err := k.listOf(c, args[1], true)
	if err != nil {
		return err
	}
	if l == nil {
		c.W.Null()
		return nil
	}
	idx, err := intArg(args[2])
	if err != nil {
		return err
	}
	if idx < 0 {
		idx += int64(l.len())
	}
	if idx < 0 || idx >= int64(l.len()) {
		c.W.Null()
		return nil
	}
	c.W.Bulk(l.at(int(idx)))
	return nil
}

// LSET key index element
func CmdLSet(k *Keyspace, c *Ctx, args [][]byte) error {
	l, o, i, err := k.listOf(c, args[1], false)
	if err != nil {
		return err
	}
	if l == nil {
		return errNoKey
	}
	idx, err := intArg(args[2])
	if err != nil {
		return err
	}
	if idx < 0 {
		idx += int64(l.len())
	}
	if idx < 0 || idx >= int64(l.len()) {
		return errIndexRange
	}
	l.set(int(idx), args[3])
	k.changed(c, args[1], i, o)
	k.notify(NotifyList, "lset", args[1], c.DB)
	c.W.OK()
	return nil
}

// replyRange writes elements start..end (Redis's clamping) of l, from the
// end backwards with reverse (addListRangeReply).
func replyRange(w *resp.Writer, l *listValue, start, end int64, reverse bool) (int, int, int) {
	n := int64(l.len())
	if start < 0 {
		start += n
	}
	if end < 0 {
		end += n
	}
	start = max(start, 0)
	if start > end || start >= n {
		w.Array(0)
		return 0, 0, 0
	}
	end = min(end, n-1)
	w.Array(int(end - start + 1))
	l.each(int(start), int(end), reverse, func(v []byte) bool { w.Bulk(v); return true })
	return int(start), int(end), int(end - start + 1)
}

// LRANGE key start stop
func CmdLRange(k *Keyspace, c *Ctx, args [][]byte) error {
	start, err := intArg(args[2])
	if err != nil {
		return err
	}
	end, err := intArg(args[3])
	if err != nil {
		return err
	}
	l, _, _, err := k.listOf(c, args[1], true)
	if err != nil {
		return err
	}
	if l == nil {
		c.W.Array(0)
		return nil
	}
	replyRange(c.W, l, start, end, false)
	return nil
}

// popRange pops up to count elements from one end of l into the reply, as
// an array, and removes them.
func popRange(w *resp.Writer, l *listValue, front bool, count int64) {
	n := int(min(count, int64(l.len())))
	if front {
		replyRange(w, l, 0, int64(n-1), false)
		l.deleteRange(0, n)
		return
	}
	replyRange(w, l, int64(-n), -1, true)
	l.deleteRange(l.len()-n, n)
}

// pop is popGenericCommand: LPOP and RPOP, with or without a count.
func (k *Keyspace) pop(c *Ctx, args [][]byte, front bool) error {
	if len(args) > 3 {
		return resp.ErrWrongArgs(string(bytes.ToLower(args[0])))
	}
	hasCount := len(args) == 3
	var count int64
	if hasCount {
		n, err := positiveArg(args[2])
		if err != nil {
			return err
		}
		count = n
	}
	l, o, i, err := k.listOf(c, args[1], false)
	if err != nil {
		return err
	}
	switch {
	case l == nil && hasCount:
		c.W.NullArray()
		return nil
	case l == nil:
		c.W.Null()
		return nil
	case hasCount && count == 0:
		c.W.Array(0)
		return nil
	case !hasCount:
		c.W.Bulk(l.pop(front))
	default:
		popRange(c.W, l, front, count)
	}
	k.changedNotify(c, args[1], i, o, NotifyList, popEvent(front))
	return nil
}

// LPOP key [count]
func CmdLPop(k *Keyspace, c *Ctx, args [][]byte) error { return k.pop(c, args, true) }

// RPOP key [count]
func CmdRPop(k *Keyspace, c *Ctx, args [][]byte) error { return k.pop(c, args, false) }

// LMPOP numkeys key [key ...] LEFT|RIGHT [COUNT count]
func CmdLMPop(k *Keyspace, c *Ctx, args [][]byte) error {
	keys, right, count, err := cmdargs.MPop(args, 1, "left", "right")
	if err != nil {
		return err
	}
	return k.MPop(c, keys, !right, count)
}

// MPop pops up to count elements from the first non-empty list of keys
// (mpopGenericCommand): [key, [elements]], or a null array when all are
// empty. BLMPOP runs it once a list is ready.
func (k *Keyspace) MPop(c *Ctx, keys [][]byte, front bool, count int64) error {
	for _, key := range keys {
		l, o, i, err := k.listOf(c, key, false)
		if err != nil {
			return err
		}
		if l == nil {
			continue
		}
		c.W.Array(2)
		c.W.Bulk(key)
		popRange(c.W, l, front, count)
		k.changedNotify(c, key, i, o, NotifyList, popEvent(front))
		return nil
	}
	c.W.NullArray()
	return nil
}

// LTRIM key start stop
func CmdLTrim(k *Keyspace, c *Ctx, args [][]byte) error {
	start, err := intArg(args[2])
	if err != nil {
		return err
	}
	end, err := intArg(args[3])
	if err != nil {
		return err
	}
	l, o, i, err := k.listOf(c, args[1], false)
	if err != nil {
		return err
	}
	if l == nil {
		c.W.OK()
		return nil
	}
	n := int64(l.len())
	if start < 0 {
		start += n
	}
	if end < 0 {
		end += n
	}
	start = max(start, 0)
	var ltrim, rtrim int64
	if start > end || start >= n {
		ltrim, rtrim = n, 0
	} else {
		end = min(end, n-1)
		ltrim, rtrim = start, n-end-1
	}
	l.deleteRange(0, int(ltrim))
	l.deleteRange(l.len()-int(rtrim), int(rtrim))
	k.changedNotify(c, args[1], i, o, NotifyList, "ltrim")
	c.W.OK()
	return nil
}

// LPOS key element [RANK rank] [COUNT num-matches] [MAXLEN len]
func CmdLPos(k *Keyspace, c *Ctx, args [][]byte) error {
	rank, count, maxlen := int64(1), int64(-1), int64(0)
	for j := 3; j < len(args); j++ {
		more := j+1 < len(args)
		switch {
		case equalFold(args[j], "rank") && more:
			j++
			n, err := intArg(args[j])
			if err != nil {
				return err
			}
			if n == 0 {
				return errRankZero
			}
			rank = n
		case equalFold(args[j], "count") && more:
			j++
			n, err := intArg(args[j])
			if err != nil || n < 0 {
				return errCountNeg
			}
			count = n
		case equalFold(args[j], "maxlen") && more:
			j++
			n, err := intArg(args[j])
			if err != nil || n < 0 {
				return errMaxLenNeg
			}
			maxlen = n
		default:
			return resp.ErrSyntax
		}
	}
	reverse := rank < 0
	if reverse {
		rank = -rank
	}
	l, _, _, err := k.listOf(c, args[1], true)
	if err != nil {
		return err
	}
	if l == nil {
		if count != -1 {
			c.W.Array(0)
		} else {
			c.W.Null()
		}
		return nil
	}
	// scan calls emit with each position the reply holds. The reply is
	// written in a second scan, once the first has counted the positions
	// (its length comes first): gathering 1,000,000 positions in a slice
	// first cost more than the walk itself (LPOS l a COUNT 0).
	n := int64(l.len())
	scan := func(emit func(pos int64)) {
		var matches, index int64
		l.each(0, l.len()-1, reverse, func(v []byte) bool {
			if maxlen != 0 && index >= maxlen {
				return false
			}
			if bytes.Equal(v, args[2]) {
				matches++
				if matches >= rank {
					pos := index
					if reverse {
						pos = n - index - 1
					}
					emit(pos)
					if count == -1 || count != 0 && matches-rank+1 >= count {
						return false
					}
				}
			}
			index++
			return true
		})
	}
	if count == -1 {
		found := int64(-1)
		scan(func(pos int64) { found = pos })
		if found >= 0 {
			c.W.Int(found)
		} else {
			c.W.Null()
		}
		return nil
	}
	total := 0
	scan(func(int64) { total++ })
	c.W.Array(total)
	if total > 0 {
		scan(c.W.Int)
	}
	return nil
}

// LREM key count element
func CmdLRem(k *Keyspace, c *Ctx, args [][]byte) error {
	toRemove, err := intArg(args[2])
	if err != nil {
		return err
	}
	l, o, i, err := k.listOf(c, args[1], false)
	if err != nil || l == nil {
		if err == nil {
			c.W.Int(0)
		}
		return err
	}
	reverse := toRemove < 0
	if reverse {
		toRemove = -toRemove
	}
	// A count past the list's length removes every match, as 0 does; so
	// does -2^63, which stays negative (Redis's count never reaches it).
	if toRemove < 0 || toRemove > int64(l.len()) {
		toRemove = 0
	}
	removed := l.remove(args[3], int(toRemove), reverse)
	if removed > 0 {
		k.changedNotify(c, args[1], i, o, NotifyList, "lrem")
	}
	c.W.Int(int64(removed))
	return nil
}

// LMOVE source destination LEFT|RIGHT LEFT|RIGHT
func CmdLMove(k *Keyspace, c *Ctx, args [][]byte) error {
	from, err := cmdargs.ListEnd(args[3])
	if err != nil {
		return err
	}
	to, err := cmdargs.ListEnd(args[4])
	if err != nil {
		return err
	}
	return k.Move(c, args[1], args[2], from, to)
}

// RPOPLPUSH source destination
func CmdRPopLPush(k *Keyspace, c *Ctx, args [][]byte) error {
	return k.Move(c, args[1], args[2], false, true)
}

// Move pops an element from one end of src and pushes it at one end of dst
// (lmoveGenericCommand), replying with it, or null when src is empty.
// BLMOVE runs it once src is ready.
func (k *Keyspace) Move(c *Ctx, src, dst []byte, fromFront, toFront bool) error {
	sl, so, si, err := k.listOf(c, src, false)
	if err != nil {
		return err
	}
	if sl == nil {
		c.W.Null()
		return nil
	}
	dl, do, di, err := k.listOf(c, dst, false)
	if err != nil {
		return err
	}
	v := sl.pop(fromFront)
	if dl == nil {
		dl = newList(&k.enc)
		do, di = k.create(c, dst, kindList, dl)
	}
	dl.push(v, toFront)
	// The destination first: src and dst may be the same list, which the
	// push has refilled.
	k.changed(c, dst, di, do)
	k.notify(NotifyList, pushEvent(toFront), dst, c.DB)
	if so != do {
		k.changedNotify(c, src, si, so, NotifyList, popEvent(fromFront))
	} else {
		k.notify(NotifyList, popEvent(fromFront), src, c.DB)
	}
	c.W.Bulk(v)
	return nil
}

// pushEvent and popEvent name a push's and a pop's events.
func pushEvent(front bool) string {
	if front {
		return "lpush"
	}
	return "rpush"
}

func popEvent(front bool) string {
	if front {
		return "lpop"
	}
	return "rpop"
}
