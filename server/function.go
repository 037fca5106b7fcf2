package server

import (
	"time"

	"github.com/minilock/minilock/internal/redisstr"
	"github.com/minilock/minilock/keyspace"
	"github.com/minilock/minilock/luaeval"
	"github.com/minilock/minilock/resp"
)

// Functions (Redis 7.0): FCALL, FCALL_RO and the FUNCTION container. The
// libraries and their Lua state live in luaeval (function.go); this file
// parses the commands and writes their replies as functions.c does. Like
// the rest of minilock they live in memory only.

// fcall runs FCALL or FCALL_RO, as eval does EVAL.
func (x *call) fcall(args [][]byte, readOnly bool) error {
	// Functions are fed to monitors before the commands they run
	// (functions.c:fcallCommandGeneric).
	x.s.feedMonitors(x, args)
	h := &x.s.host
	h.s, h.caller, h.db, h.now = x.s, x.c, x.DB, x.Now
	h.oom, h.dirty = x.s.outOfMemory(), false
	// Looked up only out of memory, as EVALSHA reads its script's flags
	// (eval): otherwise FCall's own lookup is the only one.
	if h.oom {
		if f := x.s.lua.LookupFunction(args[1]); f != nil && f.Flags&luaeval.FlagAllowOOM != 0 {
			// allow-oom: the function's commands run even out of memory
			// (script.c:scriptVerifyOOM).
			h.oom = false
		}
	}
	h.x = call{s: x.s, c: x.c, script: h, Ctx: keyspace.Ctx{Now: x.Now}}
	spill := noSpill(x.W)
	err := x.s.lua.FCall(x.W, args, readOnly, h)
	x.restoreSpill(spill)
	h.caller, h.x = nil, call{}
	if err != nil && x.s.net.Closing.Load() {
		x.c.CloseNow = true
		return errNoReply
	}
	return err
}

// FCALL function numkeys [key ...] [arg ...]
func cmdFCall(x *call, args [][]byte) error { return x.fcall(args, false) }

// FCALL_RO function numkeys [key ...] [arg ...]
func cmdFCallRO(x *call, args [][]byte) error { return x.fcall(args, true) }

// FUNCTION LOAD [REPLACE] code
func cmdFunctionLoad(x *call, args [][]byte) error {
	replace := false
	i := 2
	for ; i < len(args)-1; i++ {
		if !redisstr.Option(args[i], "replace") {
			return resp.NewError("Unknown option given: " + redisstr.CString(args[i]))
		}
		replace = true
	}
	if i >= len(args) {
		return resp.NewError("Function code is missing")
	}
	name, err := x.s.lua.FunctionLoad(args[i], replace)
	if err != nil {
		return err
	}
	x.W.BulkString(name)
	return nil
}

// FUNCTION DELETE library-name
func cmdFunctionDelete(x *call, args [][]byte) error {
	if err := x.s.lua.FunctionDelete(args[2]); err != nil {
		return err
	}
	x.W.OK()
	return nil
}

var errFunctionFlushArgs = resp.NewError("FUNCTION FLUSH only supports SYNC|ASYNC option")

// FUNCTION FLUSH [ASYNC|SYNC]
func cmdFunctionFlush(x *call, args [][]byte) error {
	if len(args) > 3 {
		return errSubSyntax(args)
	}
	if len(args) == 3 && !redisstr.Option(args[2], "sync") && !redisstr.Option(args[2], "async") {
		return errFunctionFlushArgs
	}
	x.s.lua.FunctionFlush()
	x.W.OK()
	return nil
}

// FUNCTION LIST [LIBRARYNAME pattern] [WITHCODE]
func cmdFunctionList(x *call, args [][]byte) error {
	withCode := false
	var pattern []byte
	havePattern := false
	for i := 2; i < len(args); i++ {
		a := args[i]
		if !withCode && redisstr.Option(a, "withcode") {
			withCode = true
			continue
		}
		if !havePattern && redisstr.Option(a, "libraryname") {
			if i >= len(args)-1 {
				return resp.NewError("library name argument was not given")
			}
			i++
			pattern, havePattern = args[i], true
			continue
		}
		return resp.NewError("Unknown argument " + redisstr.CString(a))
	}
	var keep func(*luaeval.Library) bool
	if havePattern {
		// stringmatchlen with nocase: both sides folded to lower case.
		pattern = asciiLower(pattern)
		var name []byte
		keep = func(l *luaeval.Library) bool {
			name = append(name[:0], l.Name...)
			lowerInPlace(name)
			return keyspace.Match(pattern, string(name))
		}
	}
	libs := x.s.lua.LibrariesWhere(keep)
	w := x.W
	w.Array(len(libs))
	for _, l := range libs {
		if withCode {
			w.Map(4)
		} else {
			w.Map(3)
		}
		w.BulkString("library_name")
		w.BulkString(l.Name)
		w.BulkString("engine")
		w.BulkString("LUA")
		w.BulkString("functions")
		fs := l.SortedFuncs()
		w.Array(len(fs))
		for _, f := range fs {
			w.Map(3)
			w.BulkString("name")
			w.BulkString(f.Name)
			w.BulkString("description")
			if f.Desc != nil {
				w.BulkString(*f.Desc)
			} else {
				w.Null()
			}
			w.BulkString("flags")
			names := luaeval.FlagNames(f.Flags)
			w.Set(len(names))
			for _, n := range names {
				w.Status(n)
			}
		}
		if withCode {
			w.BulkString("library_code")
			w.BulkString(l.Code)
		}
	}
	return nil
}

// FUNCTION STATS. It also runs while a script is busy (serveWhileBusy),
// where it describes the running function, or answers an EVAL script's
// BUSY error.
func cmdFunctionStats(x *call, args [][]byte) error {
	lua := x.s.lua
	running := lua.RunningFunction()
	if lua.Running() && !lua.RunningIsFunction() {
		return resp.ErrBusy
	}
	w := x.W
	w.Map(2)
	w.BulkString("running_script")
	if running == nil {
		w.Null()
	} else {
		w.Map(3)
		w.BulkString("name")
		w.BulkString(running.Name)
		w.BulkString("command")
		w.Array(len(running.Argv))
		for _, a := range running.Argv {
			w.Bulk(a)
		}
		w.BulkString("duration_ms")
		w.Int(time.Since(running.Start).Milliseconds())
	}
	libs, funcs := lua.FunctionCount()
	w.BulkString("engines")
	w.Map(1)
	w.BulkString("LUA")
	w.Map(2)
	w.BulkString("libraries_count")
	w.Int(libs)
	w.BulkString("functions_count")
	w.Int(funcs)
	return nil
}

// FUNCTION KILL. On the owner nothing runs (NOTBUSY); during a busy
// function the connection's goroutine answers it (serveWhileBusy).
func cmdFunctionKill(x *call, args [][]byte) error {
	if err := x.s.lua.KillFunction(); err != nil {
		return err
	}
	x.W.OK()
	return nil
}

// FUNCTION DUMP
func cmdFunctionDump(x *call, args [][]byte) error {
	x.W.Bulk(x.s.lua.FunctionDump())
	return nil
}

var errRestorePolicy = resp.NewError("Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.")

// FUNCTION RESTORE payload [FLUSH|APPEND|REPLACE]
func cmdFunctionRestore(x *call, args [][]byte) error {
	if len(args) > 4 {
		return errSubSyntax(args)
	}
	policy := luaeval.RestoreAppend
	if len(args) == 4 {
		switch {
		case redisstr.Option(args[3], "append"):
		case redisstr.Option(args[3], "replace"):
			policy = luaeval.RestoreReplace
		case redisstr.Option(args[3], "flush"):
			policy = luaeval.RestoreFlush
		default:
			return errRestorePolicy
		}
	}
	if err := x.s.lua.FunctionRestore(args[2], policy); err != nil {
		return err
	}
	x.W.OK()
	return nil
}

// FUNCTION HELP
func cmdFunctionHelp(x *call, args [][]byte) error {
	return writeHelp(x, "FUNCTION",
		"LOAD [REPLACE] <FUNCTION CODE>",
		"    Create a new library with the given library name and code.",
		"DELETE <LIBRARY NAME>",
		"    Delete the given library.",
		"LIST [LIBRARYNAME PATTERN] [WITHCODE]",
		"    Return general information on all the libraries:",
		"    * Library name",
		"    * The engine used to run the Library",
		"    * Library description",
		"    * Functions list",
		"    * Library code (if WITHCODE is given)",
		"    It also possible to get only function that matches a pattern using LIBRARYNAME argument.",
		"STATS",
		"    Return information about the current function running:",
		"    * Function name",
		"    * Command used to run the function",
		"    * Duration in MS that the function is running",
		"    If no function is running, return nil",
		"    In addition, returns a list of available engines.",
		"KILL",
		"    Kill the current running function.",
		"FLUSH [ASYNC|SYNC]",
		"    Delete all the libraries.",
		"    When called without the optional mode argument, the behavior is determined by the",
		"    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
		"    * ASYNC: Asynchronously flush the libraries.",
		"    * SYNC: Synchronously flush the libraries.",
		"DUMP",
		"    Return a serialized payload representing the current libraries, can be restored using FUNCTION RESTORE command",
		"RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
		"    Restore the libraries represented by the given payload, it is possible to give a restore policy to",
		"    control how to handle existing libraries (default APPEND):",
		"    * FLUSH: delete all existing libraries.",
		"    * APPEND: appends the restored libraries to the existing libraries. On collision, abort.",
		"    * REPLACE: appends the restored libraries to the existing libraries, On collision, replace the old",
		"      libraries with the new libraries (notice that even on this option there is a chance of failure",
		"      in case of functions name collision with another library).")
}

// asciiLower is b with A-Z folded as C's tolower folds them.
func asciiLower(b []byte) []byte {
	out := append([]byte(nil), b...)
	lowerInPlace(out)
	return out
}

// lowerInPlace folds b's ASCII letters to lower case.
func lowerInPlace(b []byte) {
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
}

// scriptDenyOOM says whether, out of memory, a script command (or an
// EXEC that queued one) is refused for its script's flags: a function, or
// an EVAL script with a shebang, declares whether it may grow memory, and
// one without allow-oom or no-writes is denyoom (script.c:
// scriptFlagsToCmdFlags, which processCommand applies through
// fcallGetCommandFlags and evalGetCommandFlags). Owner goroutine.
func (s *Server) scriptDenyOOM(c *client, cmd *command, args [][]byte) bool {
	if cmd.name == "exec" {
		for _, q := range c.multi.cmdsOrNil() {
			if s.scriptDenyOOM(c, q.cmd, q.args) {
				return true
			}
		}
		return false
	}
	switch cmd.name {
	case "fcall", "fcall_ro":
		return s.functionDenyOOM(args)
	case "eval", "eval_ro", "evalsha", "evalsha_ro":
		deny, _ := s.lua.ScriptOOM(args[1:], cmd.name == "evalsha" || cmd.name == "evalsha_ro")
		return deny
	}
	return false
}

func (s *Server) functionDenyOOM(args [][]byte) bool {
	if len(args) < 2 {
		return false
	}
	f := s.lua.LookupFunction(args[1])
	return f != nil && f.Flags&(luaeval.FlagAllowOOM|luaeval.FlagNoWrites) == 0
}
