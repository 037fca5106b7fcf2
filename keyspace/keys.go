package keyspace

import (
	"bytes"
	"math"
	"strconv"

	"github.com/minilock/minilock/internal/redisstr"
	"github.com/minilock/minilock/resp"
)

// The generic key commands (db.c).

// DEL key [key ...] and UNLINK: the number of keys removed. A key named
// twice counts once.
func CmdDel(k *Keyspace, c *Ctx, args [][]byte) error {
	var n int64
	for _, key := range args[1:] {
		if k.del(c, key) {
			k.notify(NotifyGeneric, "del", key, c.DB)
			n++
		}
	}
	c.W.Int(n)
	return nil
}

// TOUCH key [key ...]: EXISTS's answer, with the access recorded.
func CmdTouch(k *Keyspace, c *Ctx, args [][]byte) error {
	var n int64
	for _, key := range args[1:] {
		if _, _, ok := k.read(c, key); ok {
			n++
		}
	}
	c.W.Int(n)
	return nil
}

// EXISTS key [key ...]: a key named twice counts twice.
func CmdExists(k *Keyspace, c *Ctx, args [][]byte) error {
	var n int64
	for _, key := range args[1:] {
		if k.exists(c, key) {
			n++
		}
	}
	c.W.Int(n)
	return nil
}

// TYPE key: the value's type, or "none".
func CmdType(k *Keyspace, c *Ctx, args [][]byte) error {
	if e, _, ok := k.readNoTouch(c, args[1]); ok { // LOOKUP_NOTOUCH
		c.W.Status(e.kindOf().String())
	} else {
		c.W.Status("none")
	}
	return nil
}

// DBSIZE: keys in the selected database, as Redis counts them (keys past
// their deadline that nothing has removed yet included).
func CmdDBSize(k *Keyspace, c *Ctx, args [][]byte) error {
	c.W.Int(int64(k.dbs[c.DB].size()))
	return nil
}

// flushArgs checks FLUSHDB's and FLUSHALL's optional ASYNC|SYNC.
func flushArgs(args [][]byte) error {
	switch {
	case len(args) == 1:
	case len(args) == 2 && (redisstr.Option(args[1], "sync") || redisstr.Option(args[1], "async")):
	default:
		return resp.ErrSyntax
	}
	return nil
}

// FLUSHDB [ASYNC|SYNC]
func CmdFlushDB(k *Keyspace, c *Ctx, args [][]byte) error {
	if err := flushArgs(args); err != nil {
		return err
	}
	k.flush(c.DB)
	c.W.OK()
	return nil
}

// FLUSHALL [ASYNC|SYNC]
func CmdFlushAll(k *Keyspace, c *Ctx, args [][]byte) error {
	if err := flushArgs(args); err != nil {
		return err
	}
	for i := range k.dbs {
		k.flush(i)
	}
	c.W.OK()
	return nil
}

// KEYS pattern. Keys past their deadline are left out (and left in place).
func CmdKeys(k *Keyspace, c *Ctx, args [][]byte) error {
	d := &k.dbs[c.DB]
	pattern := args[1]
	all := len(pattern) == 1 && pattern[0] == '*'
	var matched []string
	for i := range d.slots {
		e := &d.slots[i]
		if !e.live() || e.expired(c.Now) {
			continue
		}
		if key := e.key(); all || Match(pattern, key) {
			matched = append(matched, key)
		}
	}
	c.W.Array(len(matched))
	for _, key := range matched {
		c.W.BulkString(key)
	}
	return nil
}

var errInvalidCursor = resp.NewError("invalid cursor")

// SCAN cursor [MATCH pattern] [COUNT count] [TYPE type].
//
// The cursor is 1 + the next slot to look at in the database's entry array,
// walked downwards, so it keeps Redis's guarantee: a key present for the
// whole iteration is returned, and one that comes or goes meanwhile may or
// may not be. COUNT keys are looked at per call.
func CmdScan(k *Keyspace, c *Ctx, args [][]byte) error {
	cursor, ok := parseCursor(args[1])
	if !ok {
		return errInvalidCursor
	}
	o, err := parseScanOpts(args[2:], true)
	if err != nil {
		return err
	}
	count, pattern, typ := o.count, o.pattern, o.typ
	kind, typeKnown := kindByName(typ)
	k.shrink(c.DB)
	d := &k.dbs[c.DB]
	var found []string
	// Downwards from the cursor's slot: compact moves keys only down, so
	// one not yet visited stays below the cursor. At most count*10 free
	// slots are looked at per call, as Redis's scan looks at ten times
	// count empty buckets at most.
	i := int64(len(d.slots)) - 1
	if cursor > 0 && cursor-1 < uint64(len(d.slots)) {
		i = int64(cursor - 1)
	}
	empty := count * 10
	if empty/10 != count {
		empty = math.MaxInt64
	}
	// The bound on len(d.slots) ends the walk when the expired keys it
	// deleted emptied the database, which then starts afresh.
	for ; i >= 0 && i < int64(len(d.slots)) && count > 0 && empty > 0; i-- {
		e := &d.slots[i]
		if !e.live() {
			empty--
			continue
		}
		count--
		if pattern != nil && !Match(pattern, e.key()) {
			continue
		}
		if e.expired(c.Now) {
			// Redis removes the expired keys a SCAN meets (after the
			// MATCH filter); its TYPE filter looks them up first, a miss.
			key := e.key()
			k.expireNow(c.DB, uint32(i))
			if typ != nil {
				k.stats.Misses++
				k.notifyString(NotifyKeyMiss, "keymiss", key, c.DB)
			}
			continue
		}
		if typ != nil && !(typeKnown && e.kindOf() == kind) {
			continue
		}
		found = append(found, e.key())
	}
	next := uint64(0)
	if i >= 0 && i < int64(len(d.slots)) {
		next = uint64(i) + 1
	}
	c.W.Array(2)
	c.W.BulkString(strconv.FormatUint(next, 10))
	c.W.Array(len(found))
	for _, key := range found {
		c.W.BulkString(key)
	}
	return nil
}

// scanOpts are SCAN's and the collection scans' options.
type scanOpts struct {
	count   int64
	pattern []byte // nil: every element (also for "*")
	typ     []byte // SCAN's TYPE, nil when not given
}

// parseScanOpts reads [MATCH pattern] [COUNT count] and, for the keyspace's
// SCAN only, [TYPE type] (db.c:scanGenericCommand).
func parseScanOpts(args [][]byte, withType bool) (scanOpts, error) {
	o := scanOpts{count: 10}
	for i := 0; i < len(args); i += 2 {
		hasValue := i+1 < len(args)
		switch {
		case redisstr.Option(args[i], "count") && hasValue:
			n, err := intArg(args[i+1])
			if err != nil {
				return o, err
			}
			if n < 1 {
				return o, resp.ErrSyntax
			}
			o.count = n
		case redisstr.Option(args[i], "match") && hasValue:
			o.pattern = args[i+1]
			if len(o.pattern) == 1 && o.pattern[0] == '*' {
				o.pattern = nil
			}
		case withType && redisstr.Option(args[i], "type") && hasValue:
			o.typ = args[i+1]
		default:
			return o, resp.ErrSyntax
		}
	}
	return o, nil
}

// replyScan writes a scan's reply: the next cursor and the elements.
func replyScan(w *resp.Writer, next uint64, elems [][]byte) {
	w.Array(2)
	w.BulkString(strconv.FormatUint(next, 10))
	w.Array(len(elems))
	for _, e := range elems {
		w.Bulk(e)
	}
}

// parseCursor reads a SCAN cursor as Redis does with strtoul
// (db.c:parseScanCursorOrReply): an optional sign (a negative number wraps
// around), decimal digits, nothing after them; an empty string is 0.
func parseCursor(b []byte) (uint64, bool) {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	if len(b) == 0 {
		return 0, true
	}
	neg := false
	digits := b
	switch b[0] {
	case '-':
		neg, digits = true, b[1:]
	case '+':
		digits = b[1:]
	}
	if len(digits) == 0 {
		return 0, false
	}
	v, err := strconv.ParseUint(string(digits), 10, 64)
	if err != nil {
		return 0, false
	}
	if neg {
		v = -v
	}
	return v, true
}

var (
	errSameObject = resp.NewError("source and destination objects are the same")
	errDBRange    = resp.NewError("DB index is out of range")
)

// addEntry adds key, absent from database dbi, holding e's value (its
// string, or its object itself: the caller drops e) and deadline, as a new
// value for eviction's clocks.
func (k *Keyspace) addEntry(dbi int, key []byte, val []byte, obj *object, expireAt int64) {
	k.addEntryMeta(dbi, key, val, obj, expireAt, k.freshMeta(k.Now()))
}

// addEntryMeta is addEntry keeping the access data meta: RENAME and MOVE
// move Redis's object, its LRU/LFU field with it.
func (k *Keyspace) addEntryMeta(dbi int, key []byte, val []byte, obj *object, expireAt int64, meta uint32) {
	d := &k.dbs[dbi]
	i := d.insert(key, val)
	d.slots[i].setMeta(meta)
	if obj != nil {
		d.slots[i].obj = obj
		d.account(obj.counted)
		k.signalReady(dbi, key, obj.kind)
	}
	if expireAt != 0 {
		k.setExpire(dbi, i, expireAt)
	}
	k.touch(dbi, key)
	k.notify(NotifyNew, "new", key, dbi)
}

// RENAME key newkey
func CmdRename(k *Keyspace, c *Ctx, args [][]byte) error { return k.rename(c, args, false) }

// RENAMENX key newkey
func CmdRenameNX(k *Keyspace, c *Ctx, args [][]byte) error { return k.rename(c, args, true) }

// rename is renameGenericCommand: the value and its TTL move to newkey,
// replacing what newkey held (RENAMENX: unless newkey exists).
func (k *Keyspace) rename(c *Ctx, args [][]byte, nx bool) error {
	e, i, ok := k.find(c, args[1])
	if !ok {
		return errNoKey
	}
	if bytes.Equal(args[1], args[2]) {
		if nx {
			c.W.Int(0)
		} else {
			c.W.OK()
		}
		return nil
	}
	_, _, exists := k.find(c, args[2])
	if exists && nx {
		c.W.Int(0)
		return nil
	}
	val, obj, at, meta := bytes.Clone(e.val()), e.obj, e.expireAt, e.meta()
	if obj != nil {
		val = nil
	}
	// The source goes first: a client tracking both keys hears of them in
	// that order (Redis signals key, then newkey).
	k.remove(c.DB, i)
	if exists {
		k.del(c, args[2])
	}
	k.addEntryMeta(c.DB, args[2], val, obj, at, meta)
	k.notify(NotifyGeneric, "rename_from", args[1], c.DB)
	k.notify(NotifyGeneric, "rename_to", args[2], c.DB)
	if nx {
		c.W.Int(1)
	} else {
		c.W.OK()
	}
	return nil
}

// dbArg parses a database number as getIntFromObjectOrReply and
// selectDb do.
func (k *Keyspace) dbArg(b []byte) (int, error) {
	n, err := rangeArg(b, math.MinInt32, math.MaxInt32)
	if err != nil {
		return 0, err
	}
	if n < 0 || n >= int64(len(k.dbs)) {
		return 0, errDBRange
	}
	return int(n), nil
}

// COPY source destination [DB destination-db] [REPLACE]
func CmdCopy(k *Keyspace, c *Ctx, args [][]byte) error {
	dst, replace := c.DB, false
	for j := 3; j < len(args); j++ {
		switch {
		case equalFold(args[j], "replace"):
			replace = true
		case equalFold(args[j], "db") && j+1 < len(args):
			n, err := k.dbArg(args[j+1])
			if err != nil {
				return err
			}
			dst = n
			j++
		default:
			return resp.ErrSyntax
		}
	}
	if dst == c.DB && bytes.Equal(args[1], args[2]) {
		return errSameObject
	}
	e, _, ok := k.read(c, args[1])
	if !ok {
		c.W.Int(0)
		return nil
	}
	dc := &Ctx{W: c.W, DB: dst, Now: c.Now}
	if _, _, exists := k.find(dc, args[2]); exists {
		if !replace {
			c.W.Int(0)
			return nil
		}
		k.del(dc, args[2])
		e, _, _ = k.find(c, args[1])
	}
	var obj *object
	val := bytes.Clone(e.val())
	if e.obj != nil {
		val = nil
		v := e.obj.v.clone()
		obj = &object{kind: e.obj.kind, v: v, counted: v.size()}
	}
	k.addEntryMeta(dst, args[2], val, obj, e.expireAt, k.freshMeta(c.Now))
	k.notify(NotifyGeneric, "copy_to", args[2], dst)
	c.W.Int(1)
	return nil
}

// MOVE key db
func CmdMove(k *Keyspace, c *Ctx, args [][]byte) error {
	dst, err := k.dbArg(args[2])
	if err != nil {
		return err
	}
	if dst == c.DB {
		return errSameObject
	}
	e, i, ok := k.find(c, args[1])
	if !ok {
		c.W.Int(0)
		return nil
	}
	if _, _, exists := k.find(&Ctx{DB: dst, Now: c.Now}, args[1]); exists {
		c.W.Int(0)
		return nil
	}
	val, obj, at, meta := bytes.Clone(e.val()), e.obj, e.expireAt, e.meta()
	if obj != nil {
		val = nil
	}
	k.remove(c.DB, i)
	k.addEntryMeta(dst, args[1], val, obj, at, meta)
	k.notify(NotifyGeneric, "move_from", args[1], c.DB)
	k.notify(NotifyGeneric, "move_to", args[1], dst)
	c.W.Int(1)
	return nil
}

// RANDOMKEY: a random live key of the database, or null.
func CmdRandomKey(k *Keyspace, c *Ctx, args [][]byte) error {
	d := &k.dbs[c.DB]
	for d.used > 0 {
		// A dense table (a quarter of the slots live at least) makes a
		// random slot a fair pick in a few tries; expired keys deleted
		// here may make it sparse again.
		k.shrink(c.DB)
		i := uint32(k.rng.IntN(len(d.slots)))
		e := &d.slots[i]
		if !e.live() {
			continue
		}
		if e.expired(c.Now) {
			k.expireNow(c.DB, i)
			continue
		}
		c.W.BulkString(e.key())
		return nil
	}
	c.W.Null()
	return nil
}
