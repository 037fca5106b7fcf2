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

// TYPE key: "string" or "none", the only types minilock holds.
func CmdType(k *Keyspace, c *Ctx, args [][]byte) error {
	c.W.Status(k.typeOf(c, args[1]))
	return nil
}

func (k *Keyspace) typeOf(c *Ctx, key []byte) string {
	if k.exists(c, key) {
		return "string"
	}
	return "none"
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
	count := int64(10)
	var pattern, typ []byte
	for i := 2; i < len(args); i += 2 {
		hasValue := i+1 < len(args)
		switch {
		case redisstr.Option(args[i], "count") && hasValue:
			n, err := intArg(args[i+1])
			if err != nil {
				return err
			}
			if n < 1 {
				return resp.ErrSyntax
			}
			count = n
		case redisstr.Option(args[i], "match") && hasValue:
			pattern = args[i+1]
			if len(pattern) == 1 && pattern[0] == '*' {
				pattern = nil
			}
		case redisstr.Option(args[i], "type") && hasValue:
			typ = args[i+1]
		default:
			return resp.ErrSyntax
		}
	}
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
		if typ != nil && !redisstr.Option(typ, "string") {
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
