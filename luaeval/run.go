package luaeval

import (
	"fmt"
	"runtime/debug"

	lua "github.com/yuin/gopher-lua"

	"github.com/minilock/minilock/luaeval/internal/lauxlib"
	"github.com/minilock/minilock/luaeval/internal/seam"
	"github.com/minilock/minilock/resp"
)

var errROWithWriteFlag = resp.NewError("Can not execute a script with write flag using *_ro command.")

// exec runs a compiled script with its KEYS and ARGV and appends its reply
// to w (script_lua.c:luaCallFunction). begun says the caller has already
// begun the run (it compiled the script first); exec ends it either way.
func (e *Engine) exec(w *resp.Writer, s *script, keys, argv [][]byte, readOnly bool, h Host, begun bool) (err error) {
	// A script with a shebang declares whether it writes; *_RO refuses one
	// that may (script.c:scriptPrepareForRun).
	if s.shebang && !s.noWrites && readOnly {
		if begun {
			e.ctl.end()
		}
		return errROWithWriteFlag
	}
	if s.native != nil && !begun {
		if handled, err := e.execNative(w, s, keys, argv, readOnly, h); handled {
			return err
		}
	}
	sb := e.sandbox()
	L := sb.L
	// KEYS and ARGV first: replacing one makes every script anew (below).
	sb.fillArgs(&sb.keys, "KEYS", keys)
	sb.fillArgs(&sb.argv, "ARGV", argv)
	if s.fnGen != sb.gen {
		s.fn = L.NewFunctionFromProto(sb.specialize(s.proto))
		s.fn.Env = sb.gProxy
		s.fnGen = sb.gen
	}
	sb.cjson.Reset()
	if sb.sources != nil {
		sb.sources = nil
	}
	e.noteArgs(keys, argv)
	e.run = runState{sha: s.sha, host: h, readOnly: readOnly || s.noWrites, resp: 2, active: true}

	if !begun {
		e.ctl.begin(false)
	}
	defer func() {
		if r := recover(); r != nil {
			// Nothing from a script should get here (PCall recovers Go
			// panics); if something does, the state is suspect.
			e.rebuild(fmt.Sprint(r))
			err = resp.NewError("Error running script, the scripting engine was reset")
		}
		e.run = runState{}
		// Released before the run ends: the watchdog takes its next
		// idle sample as the next run's baseline, and one taken over
		// this run's garbage would hide the next run's growth.
		e.releaseMemory()
		e.ctl.end()
	}()

	v, failure := sb.call(s.fn)
	if failure != nil {
		return runError(string(s.sha[:]), failure)
	}
	start := len(w.B)
	if !luaToReply(w, v, e.run.resp, 2, start+e.cfg.MaxReplyBytes) {
		// A copy of what came before, so the partial reply's array can go.
		w.B = append([]byte(nil), w.B[:start]...)
		return resp.NewError("not enough memory for the script's reply (limit " + itoa(e.cfg.MaxReplyBytes) + " bytes)")
	}
	return nil
}

// fillArgs is luaCreateArray: it makes *t (the global name) hold elems, a
// table of strings.
//
// Redis makes new tables each run; refilling the sandbox's own two tables
// is equivalent and lets every script load them as constants (see
// specialize): nothing a script does can keep a reference to them past its
// run (globals are read-only and no state survives a run), so only their
// contents matter, and whatever the last script changed (elements, other
// keys, a metatable) is undone here. A table whose layout is no longer
// the one Redis's fresh table has (a key in its hash part, an array part
// of another size) is replaced instead, and then every script is
// specialized anew for the new table.
func (sb *sandbox) fillArgs(t **lua.LTable, name string, elems [][]byte) {
	if refill(*t, elems) {
		return
	}
	// As Redis makes it (luaCreateArray: lua_newtable, then lua_rawseti
	// one element at a time), so the table's layout is Lua's.
	nt := seam.NewTable(sb.L, 0, 0)
	for i, b := range elems {
		seam.RawSetInt(sb.L, nt, i+1, lua.LString(b))
	}
	*t = nt
	seam.RawSetString(sb.L, sb.gReal, name, nt)
	sb.gen = sandboxGen.Add(1)
}

// refill makes t hold elems and nothing else, and reports whether it could
// do that in place: when t has no hash part and the array part Redis's
// table of len(elems) elements has (the power of two at or above it).
func refill(t *lua.LTable, elems [][]byte) bool {
	size, ok := seam.ArrayOnly(t)
	if !ok || size != seam.ArraySize(len(elems)) {
		return false
	}
	if _, none := t.Metatable.(*lua.LNilType); !none {
		t.Metatable = lua.LNil
	}
	for i, b := range elems {
		// Keep the old value when it is the same string (no allocation).
		if old, ok := seam.GetInt(t, i+1).(lua.LString); !ok || string(old) != string(b) {
			seam.RawSetInt(nil, t, i+1, lua.LString(b))
		}
	}
	for i := len(elems) + 1; i <= size; i++ {
		seam.RawSetInt(nil, t, i, lua.LNil)
	}
	return true
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

// maxInterned bounds how many of a run's KEYS and ARGV strings bulk replies
// are compared against (see noteArgs).
const maxInterned = 8

// noteArgs remembers the Lua strings of the run's first KEYS and ARGV, so a
// bulk reply equal to one of them is given to the script as that very
// string (internedBulk): Lua strings are immutable values, so sharing one is
// invisible, and the lock scripts' GET of a key that holds ARGV[1] (the
// compare of compare-and-delete) then allocates nothing.
func (e *Engine) noteArgs(keys, argv [][]byte) {
	e.interned = e.interned[:0]
	for i := 0; i < len(argv) && len(e.interned) < maxInterned; i++ {
		e.interned = append(e.interned, seam.GetInt(e.sb.argv, i+1))
	}
	for i := 0; i < len(keys) && len(e.interned) < maxInterned; i++ {
		e.interned = append(e.interned, seam.GetInt(e.sb.keys, i+1))
	}
}

// internedBulk returns b as a Lua string, reusing one of the run's KEYS or
// ARGV strings when b equals it, else a short string the replies gave
// before (field names, small values: see lauxlib.Interner).
func (e *Engine) internedBulk(b []byte) lua.LValue {
	for _, v := range e.interned {
		if s, ok := v.(lua.LString); ok && string(s) == string(b) {
			return v
		}
	}
	if e.replyStrs == nil {
		e.replyStrs = new(lauxlib.Interner)
	}
	return lauxlib.InternBytes(e.replyStrs, b)
}

// releaseAfter is the heap growth past which a run's garbage is collected
// and returned to the operating system as soon as the run ends.
const releaseAfter = 32 << 20

// releaseMemory gives back what a run that grew the heap a lot (one stopped
// at its memory limit, typically) left behind, before the next script
// runs. Otherwise Go keeps it until its next collection, which the large
// live heap of such a run has pushed far away, and a script that hits its
// budget, sent again and again, ratchets the process's memory up (135 MB to
// 1.6 GB in 7 runs before this). A forced collection costs the owner a
// few milliseconds per hundred MB of live data; only runs that grew the
// live heap past releaseAfter pay it, or that left more than releaseAfter
// of garbage and more than the data holds (control.madeGarbage): without
// that, a script leaving tens of MB of garbage left the process's RSS
// anywhere between 12 and 65 MB from one run to the next.
func (e *Engine) releaseMemory() {
	e.ctl.dropThreads()
	if e.ctl.reason.Load() == reasonMemory || e.ctl.growth.Load() > releaseAfter || e.ctl.madeGarbage() {
		e.ctl.growth.Store(0)
		debug.FreeOSMemory()
	}
}
