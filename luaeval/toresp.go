package luaeval

import (
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/minilock/minilock/luaeval/internal/lauxlib"
	"github.com/minilock/minilock/luaeval/internal/seam"

	"github.com/minilock/minilock/resp"
)

// luaToReply appends v as a reply (script_lua.c:luaReplyToRedisReply). w is
// in the caller's protocol; scriptResp is what the script chose with
// redis.setresp (it decides how booleans are sent).
//
// used mirrors how many Lua stack slots Redis holds at this depth, so a
// self-referencing or very deep table ends with Redis's "reached lua stack
// limit" error element at exactly the same depth.
//
// It returns false, with part of the reply written, as soon as w.B would
// grow past limit: a table can hold one string, or one table, many times, so
// a small one can stand for a reply of any size (Redis builds it whole).
func luaToReply(w *resp.Writer, v lua.LValue, scriptResp, used, limit int) bool {
	if len(w.B) > limit {
		return false
	}
	if used+4 > luaMaxCStack {
		w.Error("ERR reached lua stack limit")
		return true
	}
	switch x := v.(type) {
	case lua.LString:
		if len(w.B)+len(x) > limit {
			return false
		}
		w.BulkString(string(x))
	case lua.LBool:
		if scriptResp == 2 {
			if x {
				w.Int(1)
			} else {
				w.Null()
			}
		} else {
			w.Bool(bool(x))
		}
	case lua.LNumber:
		w.Int(lauxlib.ToInteger(float64(x)))
	case *lua.LTable:
		return tableToReply(w, x, scriptResp, used, limit)
	default:
		w.Null()
	}
	return true
}

func tableToReply(w *resp.Writer, t *lua.LTable, scriptResp, used, limit int) bool {
	// The single-string forms, checked before the string is copied.
	fits := func(s lua.LString) bool { return len(w.B)+len(s) <= limit }
	if s, ok := t.RawGetString("err").(lua.LString); ok {
		if !fits(s) {
			return false
		}
		w.Error(sanitize(string(s)))
		return true
	}
	if s, ok := t.RawGetString("ok").(lua.LString); ok {
		if !fits(s) {
			return false
		}
		w.Status(string(s))
		return true
	}
	if n, ok := t.RawGetString("double").(lua.LNumber); ok {
		w.Double(float64(n))
		return true
	}
	if s, ok := t.RawGetString("big_number").(lua.LString); ok {
		if !fits(s) {
			return false
		}
		w.BigNumber(strings.NewReplacer("\r", " ", "\n", " ").Replace(string(s)))
		return true
	}
	if vt, ok := t.RawGetString("verbatim_string").(*lua.LTable); ok {
		f, okf := vt.RawGetString("format").(lua.LString)
		s, oks := vt.RawGetString("string").(lua.LString)
		if okf && oks {
			if !fits(s) {
				return false
			}
			w.Verbatim(string(f), string(s))
			return true
		}
	}
	if m, ok := t.RawGetString("map").(*lua.LTable); ok {
		w.Map(countKeys(m))
		// Stack: table, map, key, value, key copy (converted first).
		for k, v := nextOf(m, lua.LNil); k != lua.LNil; k, v = nextOf(m, k) {
			if !luaToReply(w, k, scriptResp, used+4, limit) || !luaToReply(w, v, scriptResp, used+3, limit) {
				return false
			}
		}
		return true
	}
	if s, ok := t.RawGetString("set").(*lua.LTable); ok {
		w.Set(countKeys(s))
		for k, _ := nextOf(s, lua.LNil); k != lua.LNil; k, _ = nextOf(s, k) {
			if !luaToReply(w, k, scriptResp, used+3, limit) {
				return false
			}
		}
		return true
	}
	// An array: t[1], t[2], ... up to the first nil. Counting first is
	// safe: no Lua code runs while the reply is built.
	n := 0
	for seam.GetInt(t, n+1) != lua.LNil {
		n++
	}
	w.Array(n)
	for j := 1; j <= n; j++ {
		if !luaToReply(w, seam.GetInt(t, j), scriptResp, used+1, limit) {
			return false
		}
	}
	return true
}

// The iteration Redis's conversion does with lua_next, in the table's own
// order (Lua 5.1's: the array part, then the hash part's nodes). No Lua
// code runs while a reply is built, so the table cannot change under it.

func nextOf(t *lua.LTable, k lua.LValue) (lua.LValue, lua.LValue) {
	nk, v, _ := seam.Next(t, k)
	return nk, v
}

func countKeys(t *lua.LTable) int {
	n := 0
	for k, _ := nextOf(t, lua.LNil); k != lua.LNil; k, _ = nextOf(t, k) {
		n++
	}
	return n
}
