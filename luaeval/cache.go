package luaeval

import (
	"crypto/sha1"
	"encoding/hex"

	lua "github.com/yuin/gopher-lua"

	"github.com/minilock/minilock/luaeval/internal/luac"
)

// script is one compiled script. proto is independent of any Lua state; fn is
// the closure made from it for the current sandbox (remade when the sandbox
// is rebuilt or KEYS/ARGV replaced, see sandbox.gen).
type script struct {
	sha      [40]byte
	proto    *lua.FunctionProto
	fn       *lua.LFunction
	fnGen    uint64
	noWrites bool         // shebang flag no-writes
	shebang  bool         // not EVAL compat mode: shebang flags are enforced
	native   nativeScript // runs the script without Lua (see native.go), or nil

	prev, next *script // LRU list, most recent at cache.head
}

// scriptCache maps lower-case SHA1 hex to compiled scripts. It is bounded: a
// full cache drops its least recently used script. Redis 7.0 keeps every
// script forever; a bound costs only a NOSCRIPT + EVAL round trip to a
// client whose script was dropped, and keeps a flood of one-off EVAL bodies
// from growing the heap without limit.
type scriptCache struct {
	m    map[[40]byte]*script
	max  int
	head *script // most recently used
	tail *script
}

func (c *scriptCache) init(max int) {
	c.max = max
	c.m = make(map[[40]byte]*script)
}

// key lower-cases a 40-byte SHA1 into an array; ok is false for any other
// length (eval.c:evalShaCommand answers NOSCRIPT for those).
func shaKey(b []byte) (k [40]byte, ok bool) {
	if len(b) != 40 {
		return k, false
	}
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		k[i] = c
	}
	return k, true
}

// get returns the script for sha and marks it recently used.
func (c *scriptCache) get(sha []byte) *script {
	// Lock clients run the same few scripts over and over: the most
	// recent one is checked without hashing.
	if h := c.head; h != nil && len(sha) == 40 && string(h.sha[:]) == string(sha) {
		return h
	}
	k, ok := shaKey(sha)
	if !ok {
		return nil
	}
	s := c.m[k]
	if s != nil && c.head != s {
		c.unlink(s)
		c.pushFront(s)
	}
	return s
}

// peek returns the script for sha without touching the LRU order.
func (c *scriptCache) peek(sha []byte) *script {
	k, ok := shaKey(sha)
	if !ok {
		return nil
	}
	return c.m[k]
}

func (c *scriptCache) add(s *script) {
	for len(c.m) >= c.max && c.tail != nil {
		old := c.tail
		c.unlink(old)
		delete(c.m, old.sha)
	}
	c.m[s.sha] = s
	c.pushFront(s)
}

func (c *scriptCache) flush() {
	c.m = make(map[[40]byte]*script)
	c.head, c.tail = nil, nil
}

func (c *scriptCache) len() int { return len(c.m) }

func (c *scriptCache) unlink(s *script) {
	if s.prev != nil {
		s.prev.next = s.next
	} else {
		c.head = s.next
	}
	if s.next != nil {
		s.next.prev = s.prev
	} else {
		c.tail = s.prev
	}
	s.prev, s.next = nil, nil
}

func (c *scriptCache) pushFront(s *script) {
	s.next = c.head
	s.prev = nil
	if c.head != nil {
		c.head.prev = s
	}
	c.head = s
	if c.tail == nil {
		c.tail = s
	}
}

// sha1Hex returns the lower-case hex SHA1 of b.
func sha1Hex(b []byte) (out [40]byte) {
	sum := sha1.Sum(b)
	hex.Encode(out[:], sum[:])
	return out
}

// compile returns the cached script for body, compiling and caching it first
// if needed (eval.c:luaCreateFunction).
func (e *Engine) compile(body []byte) (*script, error) {
	sha := sha1Hex(body)
	if s := e.cache.get(sha[:]); s != nil {
		return s, nil
	}
	flags, skip, err := parseShebang(body)
	if err != nil {
		return nil, err
	}
	// The shebang line is cut but its line feed kept, so line numbers in
	// errors still count it (eval.c:luaCreateFunction).
	proto, err := compileChunk(body[skip:], "@user_script", luac.Options{})
	if err != nil {
		return nil, compileError(err)
	}
	s := &script{sha: sha, proto: proto, native: nativeFor(body)}
	if skip > 0 || len(body) >= 2 && body[0] == '#' && body[1] == '!' {
		s.shebang = true
		s.noWrites = flags&flagNoWrites != 0
	}
	e.cache.add(s)
	return s, nil
}
