package lauxlib

import lua "github.com/yuin/gopher-lua"

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

// Intern returns b as a Lua string.
func Intern[T string | []byte](in *Interner, b T) lua.LValue {
	if len(b) > MaxInterned || len(b) == 0 {
		return lua.LString(b)
	}
	// lstring.c's hash, inlined for the short strings that get here.
	h := uint32(len(b))
	for i := len(b); i > 0; i-- {
		h ^= (h << 5) + (h >> 2) + uint32(b[i-1])
	}
	slot := &in.slots[h&(internSlots-1)]
	if s, ok := (*slot).(lua.LString); ok && string(s) == string(b) {
		return *slot
	}
	v := lua.LValue(lua.LString(b))
	*slot = v
	return v
}
