package keyspace

import (
	"github.com/minilock/minilock/internal/cmdargs"
	"github.com/minilock/minilock/resp"
)

// Values other than strings. A string key keeps its value in its entry's
// own array (db.go); a key holding a list, set, sorted set or hash keeps
// only its name there and points to an object. Every command reaches an
// object through objectOf or create, and reports every change through
// changed, which keeps the memory count, WATCH and empty-key removal in
// step, as Redis's lookupKey*, dbAdd and signalModifiedKey do.

// Kind is the type of a key's value, as TYPE names it.
type Kind uint8

const (
	kindString Kind = iota
	kindList
	kindSet
	kindZSet
	kindHash
	kindStream
)

var kindNames = [...]string{kindString: "string", kindList: "list", kindSet: "set", kindZSet: "zset", kindHash: "hash", kindStream: "stream"}

func (t Kind) String() string { return kindNames[t] }

// kindByName is the Kind a SCAN TYPE argument names (any letter case), and
// false for a name that is no type.
func kindByName(name []byte) (Kind, bool) {
	for t, n := range kindNames {
		if equalFold(name, n) {
			return Kind(t), true
		}
	}
	return 0, false
}

// value is what an object holds.
type value interface {
	// len is the number of elements; an object of none is deleted.
	len() int
	// size is the bytes the value holds, for the memory count.
	size() int64
	// clone is a deep copy (COPY).
	clone() value
}

// object is the value of a key that is not a string.
type object struct {
	kind    Kind
	counted int64 // size() when the memory count last saw it
	v       value
}

// errWrongType is the reply to a command on a key of another type.
var errWrongType = &resp.Error{Code: "WRONGTYPE", Msg: "Operation against a key holding the wrong kind of value"}

// kindOf is the kind of e's value.
func (e *entry) kindOf() Kind {
	if e.obj == nil {
		return kindString
	}
	return e.obj.kind
}

// objectOf finds key's value of the given kind in c's database: nil (and
// no error) when the key is missing, errWrongType when it holds another
// kind. With read set it counts a keyspace hit or miss, as
// lookupKeyRead does; write commands look keys up without counting.
func (k *Keyspace) objectOf(c *Ctx, key []byte, kind Kind, read bool) (*object, uint32, error) {
	var e *entry
	var i uint32
	var ok bool
	if read {
		e, i, ok = k.read(c, key)
	} else {
		e, i, ok = k.find(c, key)
	}
	switch {
	case !ok:
		return nil, 0, nil
	case e.kindOf() != kind:
		return nil, 0, errWrongType
	}
	return e.obj, i, nil
}

// create adds key, absent from c's database, holding v, and returns its
// object and slot (db.c:dbAdd, with its "new" event). The caller fills v
// and then calls changed.
func (k *Keyspace) create(c *Ctx, key []byte, kind Kind, v value) (*object, uint32) {
	o := &object{kind: kind, v: v}
	i := k.dbs[c.DB].insert(key, nil)
	k.dbs[c.DB].slots[i].obj = o
	k.born(c.DB, i, c.Now)
	k.signalReady(c.DB, key, kind)
	k.notify(NotifyNew, "new", key, c.DB)
	return o, i
}

// overwriteObject puts v in place of key's value, just removed
// (db.c:dbOverwrite): unlike create, no "new" event, and no wake-up for
// clients blocked on the key.
func (k *Keyspace) overwriteObject(c *Ctx, key []byte, kind Kind, v value) (*object, uint32) {
	o := &object{kind: kind, v: v}
	i := k.dbs[c.DB].insert(key, nil)
	k.dbs[c.DB].slots[i].obj = o
	k.born(c.DB, i, c.Now)
	return o, i
}

// changed is told that a command changed the object o of key (slot i of
// c's database): the memory count follows its size, an object left empty
// is deleted with its key, and watchers of the key see the change. It
// reports whether the key was deleted: the command then follows its own
// event with a "del" one, as Redis's do.
func (k *Keyspace) changed(c *Ctx, key []byte, i uint32, o *object) (deleted bool) {
	d := &k.dbs[c.DB]
	if o.v.len() == 0 {
		k.remove(c.DB, i) // touches the watchers too
		return true
	}
	n := o.v.size()
	d.account(n - o.counted)
	o.counted = n
	k.touch(c.DB, key)
	return false
}

// changedNotify is changed followed by the command's event and, when the
// key was left empty and deleted, the "del" event.
func (k *Keyspace) changedNotify(c *Ctx, key []byte, i uint32, o *object, class NotifyClass, event string) {
	deleted := k.changed(c, key, i, o)
	k.notify(class, event, key, c.DB)
	if deleted {
		k.notify(NotifyGeneric, "del", key, c.DB)
	}
}

func equalFold(b []byte, lower string) bool { return cmdargs.EqualFold(b, lower) }
