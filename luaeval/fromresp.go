package luaeval

import (
	"strconv"

	lua "github.com/yuin/gopher-lua"

	"github.com/minilock/minilock/luaeval/internal/lauxlib"
	"github.com/minilock/minilock/luaeval/internal/seam"
	"github.com/minilock/minilock/resp"
)

// replyToLua converts the one reply in b, written by Host.Call, into a Lua
// value (script_lua.c:redisProtocolToLuaType). isErr reports a top-level
// error reply, which redis.call raises.
func (e *Engine) replyToLua(L *lua.LState, b []byte) (v lua.LValue, isErr bool) {
	if v, ok := e.quickReply(b); ok {
		return v, false
	}
	if len(e.replyVals) != 0 {
		e.dropReplyVals(0) // left by an error raised while converting
	}
	v, rest, ok := e.parseReply(L, b, 0)
	if !ok || len(rest) != 0 {
		// A Host that broke its contract: say so rather than guess.
		return errTable(L, "Reply from the command could not be parsed"), true
	}
	if t, ok := v.(*lua.LTable); ok && len(b) > 0 && b[0] == '-' {
		return t, true
	}
	return v, false
}

// quickReply converts the replies lock scripts get most, a small
// non-negative integer (DEL, EXISTS, PEXPIRE ...) and a short bulk string
// (GET), without the general parser; ok is false for anything else.
func (e *Engine) quickReply(b []byte) (lua.LValue, bool) {
	if len(b) < 4 || b[len(b)-2] != '\r' || b[len(b)-1] != '\n' {
		return nil, false
	}
	switch b[0] {
	case ':':
		n, end, ok := smallDecimal(b, 1)
		if !ok || end != len(b)-2 || n >= len(smallInts) {
			return nil, false
		}
		return smallInts[n], true
	case '$':
		n, end, ok := smallDecimal(b, 1)
		if !ok || end+2+n+2 != len(b) || b[end] != '\r' || b[end+1] != '\n' {
			return nil, false
		}
		return e.internedBulk(b[end+2 : end+2+n]), true
	}
	return nil, false
}

// smallDecimal reads the digits of b from i on: at most 6 of them, no sign,
// no leading zero (except "0" itself). end is the index after them.
func smallDecimal(b []byte, i int) (n, end int, ok bool) {
	start := i
	for i < len(b) && i-start < 6 && b[i] >= '0' && b[i] <= '9' {
		n = n*10 + int(b[i]-'0')
		i++
	}
	if i == start || i < len(b) && b[i] >= '0' && b[i] <= '9' || b[start] == '0' && i-start > 1 {
		return 0, 0, false
	}
	return n, i, true
}

// maxReplyDepth bounds the nesting parseReply follows. No command replies
// more than a few levels deep; Redis, past about this depth, would find its
// Lua stack full (lua_checkstack) and panic. Here such a reply is one the
// host should not have written, and the recursion stays short.
const maxReplyDepth = luaMaxCStack / 2

// parseReply converts the reply at the start of b, depth aggregates down.
func (e *Engine) parseReply(L *lua.LState, b []byte, depth int) (lua.LValue, []byte, bool) {
	if depth > maxReplyDepth {
		return lua.LNil, b, false
	}
	it, rest, err := resp.Next(b)
	if err != nil {
		return lua.LNil, b, false
	}
	switch it.Kind {
	case ':':
		if it.Int >= 0 && it.Int < int64(len(smallInts)) {
			return smallInts[it.Int], rest, true
		}
		return lauxlib.Number(L, it.Int), rest, true
	case '$':
		return e.internedBulk(it.Data), rest, true
	case '_':
		// RESP2 null bulk/array ($-1, *-1) is false; RESP3 null is nil.
		// The host writes in the protocol the script chose.
		if e.run.resp == 3 && len(b) > 0 && b[0] == '_' {
			return lua.LNil, rest, true
		}
		return lua.LFalse, rest, true
	case '+':
		t := L.CreateTable(0, 1)
		t.RawSetString("ok", lua.LString(it.Data))
		return t, rest, true
	case '-':
		return errTable(L, "-"+string(it.Data)), rest, true
	case '#':
		return lua.LBool(it.Int != 0), rest, true
	case ',':
		f, err := strconv.ParseFloat(string(it.Data), 64)
		if err != nil {
			if ne, ok := err.(*strconv.NumError); !ok || ne.Err != strconv.ErrRange {
				return lua.LNil, b, false
			}
		}
		t := L.CreateTable(0, 1)
		t.RawSetString("double", lua.LNumber(f))
		return t, rest, true
	case '(':
		t := L.CreateTable(0, 1)
		t.RawSetString("big_number", lua.LString(it.Data))
		return t, rest, true
	case '=':
		format, s := "", it.Data
		if len(s) >= 4 && s[3] == ':' {
			format, s = string(s[:3]), s[4:]
		}
		vt := L.CreateTable(0, 2)
		vt.RawSetString("string", lua.LString(s))
		vt.RawSetString("format", lua.LString(format))
		t := L.CreateTable(0, 1)
		t.RawSetString("verbatim_string", vt)
		return t, rest, true
	case '*', '>':
		return e.parseArray(L, b, rest, it.Int, depth)
	case '%':
		m := seam.NewTable(L, 0, 0)
		for j := int64(0); j < it.Int; j++ {
			var k, v lua.LValue
			var ok bool
			if k, rest, ok = e.parseReply(L, rest, depth+1); !ok {
				return lua.LNil, b, false
			}
			if v, rest, ok = e.parseReply(L, rest, depth+1); !ok {
				return lua.LNil, b, false
			}
			if k != lua.LNil && !isNaN(k) {
				seam.RawSet(L, m, k, v)
			}
		}
		t := seam.NewTable(L, 0, 0)
		seam.RawSetString(L, t, "map", m)
		return t, rest, true
	case '~':
		s := seam.NewTable(L, 0, 0)
		for j := int64(0); j < it.Int; j++ {
			var k lua.LValue
			var ok bool
			if k, rest, ok = e.parseReply(L, rest, depth+1); !ok {
				return lua.LNil, b, false
			}
			if k != lua.LNil && !isNaN(k) {
				seam.RawSet(L, s, k, lua.LTrue)
			}
		}
		t := seam.NewTable(L, 0, 0)
		seam.RawSetString(L, t, "set", s)
		return t, rest, true
	}
	return lua.LNil, b, false
}

// maxKeptReplyVals bounds the scratch parseReply keeps between replies.
const maxKeptReplyVals = 1 << 12

// parseArray converts the n elements of an array reply, in rest (b is the
// whole reply, for the error return). Redis builds the table with
// lua_newtable, then lua_settable of 1, 2, 3 ...: with no nil among the
// elements that leaves an array part of the power of two at or above
// their count and no hash part, made here at once once the elements are
// read (onto e.replyVals, each level above the one it descended from);
// with a nil (a RESP3 null), or past lauxlib.MaxAtOnce elements, the same
// inserts are made one by one. No defer: this is on every redis.call's
// path, and replyToLua empties e.replyVals of what a raised error left.
func (e *Engine) parseArray(L *lua.LState, b, rest []byte, n int64, depth int) (lua.LValue, []byte, bool) {
	base := len(e.replyVals)
	for j := int64(1); j <= n; j++ {
		v, r, ok := e.parseReply(L, rest, depth+1)
		if !ok {
			e.dropReplyVals(base)
			return lua.LNil, b, false
		}
		rest = r
		lauxlib.Push(L, &e.replyVals, v)
	}
	vals := e.replyVals[base:]
	size := arraySizeFor(len(vals))
	if len(vals) > lauxlib.MaxAtOnce {
		size = 0
	}
	for _, v := range vals {
		if v == lua.LNil {
			size = 0
			break
		}
	}
	t := seam.NewTable(L, size, 0)
	for i, v := range vals {
		seam.RawSetInt(L, t, i+1, v)
	}
	e.dropReplyVals(base)
	return t, rest, true
}

// dropReplyVals empties e.replyVals from base on, dropping a large one at
// the top level.
func (e *Engine) dropReplyVals(base int) {
	clear(e.replyVals[base:])
	e.replyVals = e.replyVals[:base]
	if base == 0 && cap(e.replyVals) > maxKeptReplyVals {
		e.replyVals = nil
	}
}

func isNaN(v lua.LValue) bool {
	n, ok := v.(lua.LNumber)
	return ok && n != n
}

// smallInts holds boxed small integers so the common integer replies (DEL,
// EXISTS, SETNX ...) convert without allocating.
var smallInts = func() (a [1024]lua.LValue) {
	for i := range a {
		a[i] = lua.LNumber(i)
	}
	return a
}()
