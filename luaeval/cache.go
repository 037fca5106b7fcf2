package luaeval

import (
	"crypto/sha1"
	"encoding/hex"
	"strconv"

	lua "github.com/yuin/gopher-lua"

	"github.com/minilock/minilock/luaeval/internal/luac"
	"github.com/minilock/minilock/resp"
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
	allowOOM bool         // shebang flag allow-oom
	shebang  bool         // not EVAL compat mode: shebang flags are enforced
	native   nativeScript // runs the script without Lua (see native.go), or nil
	bytes    int64        // what the cache holds for it (see scriptBytes)
}

// scriptCache maps lower-case SHA1 hex to compiled scripts. As in Redis 7.0
// it keeps every script until SCRIPT FLUSH: a client that loaded a script
// may EVALSHA it at any later time and must not get NOSCRIPT. What it holds
// is counted in bytes (INFO's used_memory_scripts_eval); minilock's own
// bound, Config.ScriptCacheBytes, refuses new scripts past it instead of
// forgetting loaded ones.
type scriptCache struct {
	m     map[[40]byte]*script
	last  *script // the script run last, found without hashing
	bytes int64
	max   int64
}

func (c *scriptCache) init(max int64) {
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

// get returns the script for sha (any letter case), or nil.
func (c *scriptCache) get(sha []byte) *script {
	// Lock clients run the same few scripts over and over: the last one
	// is checked without hashing.
	if l := c.last; l != nil && len(sha) == 40 && string(l.sha[:]) == string(sha) {
		return l
	}
	k, ok := shaKey(sha)
	if !ok {
		return nil
	}
	s := c.m[k]
	if s != nil {
		c.last = s
	}
	return s
}

// errFull is the reply to a new script past Config.ScriptCacheBytes.
func (c *scriptCache) errFull(need int64) error {
	return resp.NewError("script cache full: cached scripts hold " + strconv.FormatInt(c.bytes, 10) +
		" bytes and this one needs " + strconv.FormatInt(need, 10) + ", over minilock's limit of " +
		strconv.FormatInt(c.max, 10) + " bytes; SCRIPT FLUSH empties the cache")
}

// add caches s, or refuses it when the cache would pass its bound.
func (c *scriptCache) add(s *script) error {
	if c.max > 0 && c.bytes+s.bytes > c.max {
		return c.errFull(s.bytes)
	}
	c.m[s.sha] = s
	c.bytes += s.bytes
	return nil
}

func (c *scriptCache) flush() {
	c.m = make(map[[40]byte]*script)
	c.last = nil
	c.bytes = 0
}

func (c *scriptCache) len() int { return len(c.m) }

// scriptBytes estimates what a cached script holds: its compiled
// prototypes (code, constants, debug information) and the cache entry.
func scriptBytes(p *lua.FunctionProto) int64 {
	const entry = 256 // script struct, map slot, closure
	return entry + protoBytes(p)
}

func protoBytes(p *lua.FunctionProto) int64 {
	n := int64(160) // the FunctionProto struct
	n += int64(len(p.Code))*4 + int64(len(p.DbgSourcePositions))*8
	n += int64(len(p.Constants)) * 16
	for _, k := range p.Constants {
		if s, ok := k.(lua.LString); ok {
			n += int64(len(s)) + 16
		}
	}
	for _, l := range p.DbgLocals {
		n += int64(len(l.Name)) + 48
	}
	for _, u := range p.DbgUpvalues {
		n += int64(len(u)) + 16
	}
	n += int64(len(p.DbgCalls)) * 32
	for _, c := range p.FunctionPrototypes {
		n += 8 + protoBytes(c)
	}
	return n
}

// sha1Hex returns the lower-case hex SHA1 of b.
func sha1Hex(b []byte) (out [40]byte) {
	sum := sha1.Sum(b)
	hex.Encode(out[:], sum[:])
	return out
}

// compile compiles body, whose SHA1 is sha, and caches it
// (eval.c:luaCreateFunction). The caller has begun a run (ctl.begin): a
// compile stopped by SCRIPT KILL, SHUTDOWN NOSAVE or the memory watchdog
// answers as a stopped script does.
func (e *Engine) compile(body []byte, sha [40]byte) (*script, error) {
	flags, skip, err := parseShebang(body)
	if err != nil {
		return nil, err
	}
	// The shebang line is cut but its line feed kept, so line numbers in
	// errors still count it (eval.c:luaCreateFunction).
	proto, err := compileChunk(body[skip:], "@user_script", luac.Options{Interrupt: e.ctl.interrupted})
	if e.ctl.killed() {
		return nil, resp.NewError(killMessage(e.ctl.reason.Load())[len("ERR "):])
	}
	if err != nil {
		return nil, compileError(err)
	}
	s := &script{sha: sha, proto: proto, native: nativeFor(body), bytes: scriptBytes(proto)}
	if skip > 0 || len(body) >= 2 && body[0] == '#' && body[1] == '!' {
		s.shebang = true
		s.noWrites = flags&flagNoWrites != 0
		s.allowOOM = flags&flagAllowOOM != 0
	}
	if err := e.cache.add(s); err != nil {
		return nil, err
	}
	return s, nil
}
