package luaeval

import (
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/minilock/minilock/luaeval/internal/lauxlib"

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
		n := 0
		for k, _ := m.Next(lua.LNil); k != lua.LNil; k, _ = m.Next(k) {
			n++
		}
		w.Map(n)
		// Stack: table, map, key, value, key copy (converted first).
		for k, v := m.Next(lua.LNil); k != lua.LNil; k, v = m.Next(k) {
			if !luaToReply(w, k, scriptResp, used+4, limit) || !luaToReply(w, v, scriptResp, used+3, limit) {
				return false
			}
		}
		return true
	}
	if s, ok := t.RawGetString("set").(*lua.LTable); ok {
		n := 0
		for k, _ := s.Next(lua.LNil); k != lua.LNil; k, _ = s.Next(k) {
			n++
		}
		w.Set(n)
		for k, _ := s.Next(lua.LNil); k != lua.LNil; k, _ = s.Next(k) {
			if !luaToReply(w, k, scriptResp, used+3, limit) {
				return false
			}
		}
		return true
	}
	// An array: t[1], t[2], ... up to the first nil. Counting first is
	// safe: no Lua code runs while the reply is built.
	n := 0
	for t.RawGetInt(n+1) != lua.LNil {
		n++
	}
	w.Array(n)
	for j := 1; j <= n; j++ {
		if !luaToReply(w, t.RawGetInt(j), scriptResp, used+1, limit) {
			return false
		}
	}
	return true
}
