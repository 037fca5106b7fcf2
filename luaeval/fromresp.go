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
	if v, ok := e.quickReply(L, b); ok {
		return v, false
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

// quickReply converts the replies scripts get most, an integer (DEL,
// EXISTS, PEXPIRE, INCR's ids, LLEN ...), a short bulk string (GET,
// RPOP) and RESP2's null bulk string (GET of a missing key), without the general parser; ok is false for anything else,
// integers written in any but their canonical form included.
func (e *Engine) quickReply(L *lua.LState, b []byte) (lua.LValue, bool) {
	if len(b) < 4 || b[len(b)-2] != '\r' || b[len(b)-1] != '\n' {
		return nil, false
	}
	switch b[0] {
	case ':':
		n, neg, ok := canonicalInt(b[1 : len(b)-2])
		if !ok {
			return nil, false
		}
		if !neg && n < int64(len(smallInts)) {
			return smallInts[n], true
		}
		if neg {
			n = -n
		}
		return lauxlib.Number(L, n), true
	case '$':
		if len(b) == 5 && b[1] == '-' && b[2] == '1' {
			// GET of a missing key: RESP2's null is false, and a
			// RESP3 script's host writes "_" (parseReply).
			return lua.LFalse, true
		}
		n, end, ok := smallDecimal(b, 1)
		if !ok || end+2+n+2 != len(b) || b[end] != '\r' || b[end+1] != '\n' {
			return nil, false
		}
		return e.internedBulk(b[end+2 : end+2+n]), true
	}
	return nil, false
}

// canonicalInt reads d as an integer the way strconv.AppendInt writes one
// (an optional '-', no leading zero, no "-0"), of at most 18 digits so
// that it cannot overflow; ok is false for anything else.
func canonicalInt(d []byte) (n int64, neg, ok bool) {
	if len(d) > 0 && d[0] == '-' {
		neg, d = true, d[1:]
	}
	if len(d) == 0 || len(d) > 18 || d[0] == '0' && (len(d) > 1 || neg) {
		return 0, false, false
	}
	for _, c := range d {
		if c < '0' || c > '9' {
			return 0, false, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, neg, true
}

// bulkAt converts a bulk string with a short length at the start of b
// (most elements of array replies: HGETALL's, LRANGE's) without the
// general parser, and returns what follows it; ok is false for anything
// else.
func (e *Engine) bulkAt(b []byte) (v lua.LValue, rest []byte, ok bool) {
	if len(b) < 4 || b[0] != '$' {
		return nil, b, false
	}
	n, end, ok := smallDecimal(b, 1)
	if !ok || end+n+4 > len(b) || b[end] != '\r' || b[end+1] != '\n' || b[end+n+2] != '\r' || b[end+n+3] != '\n' {
		return nil, b, false
	}
	return e.internedBulk(b[end+2 : end+2+n]), b[end+n+4:], true
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
		// Built as Redis builds it (lua_newtable, then lua_settable one
		// element at a time), so the table's layout is Lua's.
		// seam.SequenceTable: that table, sized at once.
		t := seam.SequenceTable(L, int(min(it.Int, 1<<30)))
		presized := true
		for j := int64(1); j <= it.Int; j++ {
			v, r, ok := e.bulkAt(rest)
			if ok {
				rest = r
			} else if v, rest, ok = e.parseReply(L, rest, depth+1); !ok {
				return lua.LNil, b, false
			}
			if v == lua.LNil && presized {
				t, presized = seam.Resequence(L, t, int(j-1)), false
			}
			seam.RawSetInt(L, t, int(j), v)
		}
		return t, rest, true
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
