package luaeval

import (
	"fmt"

	lua "github.com/yuin/gopher-lua"

	"github.com/minilock/minilock/resp"
)

var errROWithWriteFlag = resp.NewError("Can not execute a script with write flag using *_ro command.")

// exec runs a compiled script with its KEYS and ARGV and appends its reply
// to w (script_lua.c:luaCallFunction).
func (e *Engine) exec(w *resp.Writer, s *script, keys, argv [][]byte, readOnly bool, h Host) (err error) {
	// A script with a shebang declares whether it writes; *_RO refuses one
	// that may (script.c:scriptPrepareForRun).
	if s.shebang && !s.noWrites && readOnly {
		return errROWithWriteFlag
	}
	sb := e.sb
	L := sb.L
	if s.fnGen != sb.gen {
		s.fn = L.NewFunctionFromProto(sb.specialize(s.proto))
		s.fn.Env = sb.gProxy
		s.fnGen = sb.gen
	}
	sb.resetCjson()
	if sb.sources != nil {
		sb.sources = nil
	}
	if t := fillArray(L, sb.keys, keys); t != sb.keys {
		sb.keys = t
		sb.gReal.RawSetString("KEYS", t)
	}
	if t := fillArray(L, sb.argv, argv); t != sb.argv {
		sb.argv = t
		sb.gReal.RawSetString("ARGV", t)
	}
	e.run = runState{sha: s.sha, host: h, readOnly: readOnly || s.noWrites, resp: 2, active: true}

	e.ctl.begin()
	defer func() {
		if r := recover(); r != nil {
			// Nothing from a script should get here (PCall recovers Go
			// panics); if something does, the state is suspect.
			e.rebuild(fmt.Sprint(r))
			err = resp.NewError("Error running script, the scripting engine was reset")
		}
		e.run = runState{}
		e.ctl.end()
	}()

	L.Push(s.fn)
	perr := L.PCall(0, 1, sb.handler)
	if perr != nil {
		var obj lua.LValue = lua.LString(perr.Error())
		if ae, ok := perr.(*lua.ApiError); ok {
			obj = ae.Object
		}
		L.SetTop(0)
		return runError(&s.sha, obj)
	}
	v := L.Get(-1)
	L.SetTop(0)
	luaToReply(w, v, e.run.resp, 2)
	return nil
}

// fillArray is luaCreateArray: a table of strings for KEYS or ARGV.
//
// Redis makes new tables each run; reusing last run's is equivalent and
// saves allocations: nothing a script does can keep a reference to them
// past its run (globals are read-only and no state survives a run), so
// only their contents matter. A table the last script changed in any way
// other than its elements (a metatable, extra keys) is replaced.
func fillArray(L *lua.LState, t *lua.LTable, elems [][]byte) *lua.LTable {
	if t == nil || t.Metatable != lua.LNil {
		t = L.CreateTable(len(elems), 0)
	}
	for i, b := range elems {
		// Keep the old value when it is the same string (no allocation).
		if old, ok := t.RawGetInt(i + 1).(lua.LString); !ok || string(old) != string(b) {
			t.RawSetInt(i+1, lua.LString(b))
		}
	}
	var after lua.LValue = lua.LNil
	if len(elems) > 0 {
		after = lua.LNumber(len(elems))
	}
	if k, _ := t.Next(after); k != lua.LNil {
		// Leftovers from the previous run (more elements, other keys).
		t = L.CreateTable(len(elems), 0)
		for i, b := range elems {
			t.RawSetInt(i+1, lua.LString(b))
		}
	}
	return t
}

// rebuild replaces the Lua state after a Go panic inside gopher-lua, whose
// internal state can no longer be trusted. Compiled prototypes survive;
// closures are remade on first use.
func (e *Engine) rebuild(why string) {
	e.log(3, "Lua engine reset after an internal error: "+why)
	old := e.sb
	e.sb = newSandbox(e)
	old.L.Close()
}
