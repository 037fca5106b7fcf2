package keyspace

import (
	"bytes"
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
			n++
		}
	}
	c.W.Int(n)
	return nil
}

// EXISTS key [key ...]: a key named twice counts twice. TOUCH answers the
// same.
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
	if e, _, ok := k.read(c, args[1]); ok {
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
// The cursor is a slot number in the database's entry array, so it keeps
// Redis's guarantee: a key present for the whole iteration is returned, and
// one that comes or goes meanwhile may or may not be. COUNT slots are looked
// at per call.
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
	d := &k.dbs[c.DB]
	var found []string
	next := uint64(0)
	for i := cursor; i < uint64(len(d.slots)); i++ {
		if count == 0 {
			next = i
			break
		}
		e := &d.slots[i]
		if !e.live() {
			continue
		}
		count--
		if e.expired(c.Now) || (pattern != nil && !Match(pattern, e.key())) {
			continue
		}
		if typ != nil && !(typeKnown && e.kindOf() == kind) {
			continue
		}
		found = append(found, e.key())
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
