package keyspace

import "github.com/minilock/minilock/internal/redisstr"

// ObjectInfo is what OBJECT ENCODING and REFCOUNT report about a key's
// value, as Redis 7.0 would for the same contents.
type ObjectInfo struct {
	// Encoding is Redis's name for the representation: int, embstr or
	// raw for a string; quicklist for a list; intset or hashtable for a
	// set; listpack or skiplist for a sorted set; listpack or hashtable
	// for a hash.
	Encoding string
	// SmallInt is set for a string holding an integer 0..9999, a value
	// Redis keeps as one of its shared integers (OBJ_SHARED_INTEGERS)
	// when its eviction policy allows.
	SmallInt bool
}

// embstrMax is the longest string Redis keeps as embstr
// (OBJ_ENCODING_EMBSTR_SIZE_LIMIT).
const embstrMax = 44

// ObjectInfo looks key up as Redis's objectCommandLookup does (lazy
// expiry, a keyspace hit or miss counted, no keymiss event) and describes
// its value; false when the key is missing. A collection's encoding is
// the representation minilock holds it in, which follows Redis's
// conversion rules (and, like Redis, never converts back down); a
// string's is decided from its contents as tryObjectEncoding decides it,
// so a string Redis made raw by APPEND or SETRANGE reads here as int or
// embstr when short. Owner goroutine only.
func (k *Keyspace) ObjectInfo(c *Ctx, key []byte) (ObjectInfo, bool) {
	e, ok := k.objectLookup(c, key)
	if !ok {
		return ObjectInfo{}, false
	}
	if e.obj == nil {
		v := e.val()
		if n, ok := redisstr.ParseInt(v); ok {
			return ObjectInfo{Encoding: "int", SmallInt: n >= 0 && n < 10000}, true
		}
		if len(v) <= embstrMax {
			return ObjectInfo{Encoding: "embstr"}, true
		}
		return ObjectInfo{Encoding: "raw"}, true
	}
	switch v := e.obj.v.(type) {
	case *hashValue:
		if v.big != nil {
			return ObjectInfo{Encoding: "hashtable"}, true
		}
		return ObjectInfo{Encoding: "listpack"}, true
	case *setValue:
		if v.big != nil {
			return ObjectInfo{Encoding: "hashtable"}, true
		}
		return ObjectInfo{Encoding: "intset"}, true
	case *streamValue:
		return ObjectInfo{Encoding: "stream"}, true
	case *zsetValue:
		if v.tree != nil {
			return ObjectInfo{Encoding: "skiplist"}, true
		}
		return ObjectInfo{Encoding: "listpack"}, true
	}
	// Redis 7.0 keeps every list as a quicklist.
	return ObjectInfo{Encoding: "quicklist"}, true
}
