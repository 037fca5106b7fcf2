package lauxlib

import (
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// Interner gives short strings as boxed Lua strings, the same value for the
// same bytes while it stays in its slot. A Go string made into an
// lua.LValue costs two allocations (its bytes and the boxed header); the
// decoders (cjson, cmsgpack, replies of redis.call) make the same keys and
// short values again and again, run after run, and Lua interns every
// string anyway: sharing one immutable string value is invisible to a
// script. The cache is direct-mapped and small (at most internSlots
// strings of at most MaxInterned bytes), so what it keeps alive is
// bounded whatever the scripts do. One owner goroutine only.
type Interner struct {
	slots [internSlots]lua.LValue
}

const internSlots = 256

// MaxInterned is the longest string an Interner keeps.
const MaxInterned = 32

// InternString returns s as a Lua string. A string it keeps is a copy: s
// may be part of a larger one (a document being decoded) that the cache
// must not keep alive.
func InternString(in *Interner, s string) lua.LValue {
	slot, hit := lookup(in, s)
	if hit {
		return *slot
	}
	v := lua.LValue(lua.LString(strings.Clone(s)))
	if slot != nil {
		*slot = v
	}
	return v
}

// InternBytes returns b as a Lua string.
func InternBytes(in *Interner, b []byte) lua.LValue {
	slot, hit := lookup(in, b)
	if hit {
		return *slot
	}
	v := lua.LValue(lua.LString(b))
	if slot != nil {
		*slot = v
	}
	return v
}

// Slot returns b's slot in the cache (nil for a string too long or empty
// to keep) and whether it holds b: a caller that makes b's value itself
// (seam's concatenation, in one allocation) stores it there on a miss.
func Slot(in *Interner, b []byte) (*lua.LValue, bool) { return lookup(in, b) }

// lookup returns b's slot (nil for a string too long or empty to keep)
// and whether it holds b.
func lookup[T string | []byte](in *Interner, b T) (*lua.LValue, bool) {
	if len(b) > MaxInterned || len(b) == 0 {
		return nil, false
	}
	// lstring.c's hash, over every byte of these short strings.
	h := uint32(len(b))
	for i := len(b); i > 0; i-- {
		h ^= (h << 5) + (h >> 2) + uint32(b[i-1])
	}
	slot := &in.slots[h&(internSlots-1)]
	s, ok := (*slot).(lua.LString)
	return slot, ok && string(s) == string(b)
}
