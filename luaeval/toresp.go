package luaeval

import (
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/minilock/minilock/resp"
)

// luaToReply appends v as a reply (script_lua.c:luaReplyToRedisReply). w is
// in the caller's protocol; scriptResp is what the script chose with
// redis.setresp (it decides how booleans are sent).
//
// used mirrors how many Lua stack slots Redis holds at this depth, so a
// self-referencing or very deep table ends with Redis's "reached lua stack
// limit" error element at exactly the same depth.
func luaToReply(w *resp.Writer, v lua.LValue, scriptResp int, used int) {
	if used+4 > luaMaxCStack {
		w.Error("ERR reached lua stack limit")
		return
	}
	switch x := v.(type) {
	case lua.LString:
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
		w.Int(toInteger(float64(x)))
	case *lua.LTable:
		tableToReply(w, x, scriptResp, used)
	default:
		w.Null()
	}
}

func tableToReply(w *resp.Writer, t *lua.LTable, scriptResp, used int) {
	if s, ok := t.RawGetString("err").(lua.LString); ok {
		w.Error(sanitize(string(s)))
		return
	}
	if s, ok := t.RawGetString("ok").(lua.LString); ok {
		w.Status(string(s))
		return
	}
	if n, ok := t.RawGetString("double").(lua.LNumber); ok {
		writeDouble(w, float64(n))
		return
	}
	if s, ok := t.RawGetString("big_number").(lua.LString); ok {
		w.BigNumber(strings.NewReplacer("\r", " ", "\n", " ").Replace(string(s)))
		return
	}
	if vt, ok := t.RawGetString("verbatim_string").(*lua.LTable); ok {
		f, okf := vt.RawGetString("format").(lua.LString)
		s, oks := vt.RawGetString("string").(lua.LString)
		if okf && oks {
			writeVerbatim(w, string(f), string(s))
			return
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
			luaToReply(w, k, scriptResp, used+4)
			luaToReply(w, v, scriptResp, used+3)
		}
		return
	}
	if s, ok := t.RawGetString("set").(*lua.LTable); ok {
		n := 0
		for k, _ := s.Next(lua.LNil); k != lua.LNil; k, _ = s.Next(k) {
			n++
		}
		w.Set(n)
		for k, _ := s.Next(lua.LNil); k != lua.LNil; k, _ = s.Next(k) {
			luaToReply(w, k, scriptResp, used+3)
		}
		return
	}
	// An array: t[1], t[2], ... up to the first nil. Counting first is
	// safe: no Lua code runs while the reply is built.
	n := 0
	for t.RawGetInt(n+1) != lua.LNil {
		n++
	}
	w.Array(n)
	for j := 1; j <= n; j++ {
		luaToReply(w, t.RawGetInt(j), scriptResp, used+1)
	}
}

// writeDouble is addReplyDouble: "%.17g", as a bulk string in RESP2.
func writeDouble(w *resp.Writer, f float64) {
	var buf [40]byte
	s := appendG17(buf[:0], f)
	if w.RESP3() {
		w.B = append(w.B, ',')
		w.B = append(w.B, s...)
		w.B = append(w.B, '\r', '\n')
		return
	}
	w.Bulk(s)
}

// writeVerbatim is addReplyVerbatim: the format is cut or padded to three
// characters in RESP3 (Redis copies exactly three bytes).
func writeVerbatim(w *resp.Writer, format, s string) {
	if !w.RESP3() {
		w.BulkString(s)
		return
	}
	f := []byte(format + "\x00\x00\x00")[:3]
	w.B = append(w.B, '=')
	w.B = strconv.AppendInt(w.B, int64(len(s)+4), 10)
	w.B = append(w.B, '\r', '\n')
	w.B = append(w.B, f...)
	w.B = append(w.B, ':')
	w.B = append(w.B, s...)
	w.B = append(w.B, '\r', '\n')
}
