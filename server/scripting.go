package server

import (
	"github.com/minilock/minilock/internal/redisstr"
	"github.com/minilock/minilock/keyspace"
	"github.com/minilock/minilock/resp"
	"github.com/minilock/minilock/server/internal/acl"
)

// Scripting commands: EVAL, EVALSHA, their _RO forms, and SCRIPT. The Lua
// engine (luaeval) runs scripts; this file connects it to the command table
// so that redis.call runs the very same command implementations as the
// network does, on the owner goroutine, at the script's frozen time.

// scriptHost runs a script's redis.call and redis.pcall (luaeval.Host). A
// script starts on its caller's database and a SELECT inside it stays
// inside it; every call sees the time the script started at.
type scriptHost struct {
	s      *Server
	caller *client
	db     int
	now    int64
	x      call     // the command being run for the script (see eval)
	cmds   cmdCache // kept from script to script
	// oom is whether the server was out of memory when the script started
	// and dirty whether it has called a write command since (oom.go).
	oom, dirty bool
}

var (
	errScriptUnknown  = resp.NewError("Unknown Redis command called from script")
	errScriptArity    = resp.NewError("Wrong number of args calling Redis command from script")
	errScriptNotAllow = resp.NewError("This Redis command is not allowed from script")
	errScriptReadOnly = resp.NewError("Write commands are not allowed from read-only scripts.")
)

// Call runs one command for the script (script.c:scriptCall's checks, in
// its order) and reports whether it was a write command.
func (h *scriptHost) Call(args [][]byte, readOnly bool, w *resp.Writer) bool {
	cmd := h.command(args)
	var err error
	switch {
	case cmd == nil:
		err = errScriptUnknown
	case !arityOK(cmd, len(args)):
		err = errScriptArity
	case cmd.flags&fNoScript != 0:
		err = errScriptNotAllow
	case !h.x.c.user.Unrestricted && h.s.aclRefusedInScript(&h.x, h.db, cmd, args, &err):
	case readOnly && cmd.flags&(fWrite|fMayReplicate) != 0:
		err = errScriptReadOnly
	case cmd.flags&fWrite != 0 && !h.s.goodReplicas():
		// script.c:scriptVerifyWriteCommandAllow: reached by an EVAL
		// script without a shebang; one with flags was refused before
		// it ran.
		err = errNoGoodReplicas
	case cmd.flags&fWrite != 0 && h.now < h.s.writableAt:
		err = h.s.errRestartDelay(h.now)
	case h.oom && !h.dirty && cmd.flags&fDenyOOM != 0:
		err = errOOM
	}
	if err != nil {
		h.s.scriptRejected(cmd, err)
		w.Err(err)
		return false
	}
	// Calls never nest (no command a script may call runs a script), so
	// one call value, kept in the host and filled in by eval, serves them
	// all without an allocation each.
	if cmd.flags&fWrite != 0 {
		h.dirty = true
	}
	x := &h.x
	x.W, x.DB = w, h.db
	h.s.run(x, cmd, args)
	h.db = x.DB
	return cmd.flags&fWrite != 0
}

// cmdCache remembers the command names scripts called, exactly as they
// spelled them ("get", "DEL" ...), so a script's redis.call finds its
// command without lower-casing and hashing the name into the command
// table each time. It is direct-mapped by a hash of the spelling: a script
// calling more distinct commands than a few (a job queue's calls eight)
// still hits, where a small round-robin list was evicted on every call.
// Owner goroutine only.
type cmdCache struct {
	entries [cmdCacheSlots]cmdCacheEntry
}

const cmdCacheSlots = 64 // a power of two

type cmdCacheEntry struct {
	name string
	cmd  *command
}

// find is find(commands, name) through the cache.
func (cc *cmdCache) find(name []byte) *command {
	h := uint(len(name))
	for _, c := range name {
		h = h*31 + uint(c)
	}
	e := &cc.entries[h&(cmdCacheSlots-1)]
	if e.cmd != nil && e.name == string(name) {
		return e.cmd
	}
	cmd := find(commands, name)
	if cmd != nil {
		*e = cmdCacheEntry{string(name), cmd}
	}
	return cmd
}

// Known reports whether args name a command, for redis.acl_check_cmd
// (luaeval.CommandChecker): an unknown command, or an unknown subcommand of
// a container, is "Invalid command passed to redis.acl_check_cmd()".
func (h *scriptHost) Known(args [][]byte) bool { return h.command(args) != nil }

// Permitted reports whether the script's user may run args (of a known
// command), as acl_check_cmd asks ACLCheckAllUserCommandPerm: no ACL LOG
// entry.
func (h *scriptHost) Permitted(args [][]byte) bool {
	cmd := h.command(args)
	if h.x.c.user.Unrestricted {
		return true
	}
	a := acl.Args{Argv: args}
	r, _ := h.x.c.user.Check(cmd.acl, &a)
	return r == acl.OK
}

// command finds the command args name, or the subcommand for a container
// such as SCRIPT; nil if there is none.
func (h *scriptHost) command(args [][]byte) *command {
	cmd := h.cmds.find(args[0])
	if cmd != nil && cmd.subs != nil && len(args) >= 2 {
		cmd = find(cmd.subIndex, args[1])
	}
	return cmd
}

// eval runs one EVAL-family command.
func (x *call) eval(args [][]byte, readOnly bool, sha bool) error {
	x.s.feedMonitors(x, args)
	h := &x.s.host // scripts never nest, so one host serves them all
	h.s, h.caller, h.db, h.now = x.s, x.c, x.DB, x.Now
	h.oom, h.dirty = x.s.outOfMemory(), false
	if h.oom {
		if _, allow := x.s.lua.ScriptOOM(args[1:], sha); allow {
			h.oom = false // allow-oom: its commands run out of memory too
		}
	}
	h.x = call{s: x.s, c: x.c, script: h, Ctx: keyspace.Ctx{Now: x.Now}}
	var err error
	spill := noSpill(x.W)
	if sha {
		err = x.s.lua.EvalSHA(x.W, args[1:], readOnly, h)
	} else {
		err = x.s.lua.Eval(x.W, args[1:], readOnly, h)
	}
	x.restoreSpill(spill)
	h.caller, h.x = nil, call{} // keep no client past the script
	if err != nil && x.s.net.Closing.Load() {
		// SHUTDOWN NOSAVE (or Close) stopped the script. redis-server
		// exits without answering the script's caller: its connection
		// just closes, and so does this one.
		x.c.CloseNow = true
		return errNoReply
	}
	return err
}

// noSpill stops w from spilling while a script writes its reply, and
// returns the SpillAt to restore after: the engine measures the reply
// against its limit in w.B and drops a partial one from w.B.
func noSpill(w *resp.Writer) int {
	at := w.SpillAt
	w.SpillAt = 0
	return at
}

// restoreSpill gives x.W back the SpillAt noSpill took, unless the script
// pinned its client's writer meanwhile (it published to its own client:
// see client.pin).
func (x *call) restoreSpill(at int) {
	if x.W == &x.c.W && x.c.pinned() {
		return
	}
	x.W.SpillAt = at
}

// EVAL script numkeys [key ...] [arg ...]
func cmdEval(x *call, args [][]byte) error { return x.eval(args, false, false) }

// EVALSHA sha1 numkeys [key ...] [arg ...]
func cmdEvalSHA(x *call, args [][]byte) error { return x.eval(args, false, true) }

// EVAL_RO script numkeys [key ...] [arg ...]
func cmdEvalRO(x *call, args [][]byte) error { return x.eval(args, true, false) }

// EVALSHA_RO sha1 numkeys [key ...] [arg ...]
func cmdEvalSHARO(x *call, args [][]byte) error { return x.eval(args, true, true) }

// SCRIPT LOAD script
func cmdScriptLoad(x *call, args [][]byte) error {
	sha, err := x.s.lua.Load(args[2])
	if err != nil {
		return err
	}
	x.W.BulkString(sha)
	return nil
}

// SCRIPT EXISTS sha1 [sha1 ...]
func cmdScriptExists(x *call, args [][]byte) error {
	x.W.Array(len(args) - 2)
	for _, sha := range args[2:] {
		if x.s.lua.Exists(sha) {
			x.W.Int(1)
		} else {
			x.W.Int(0)
		}
	}
	return nil
}

var errScriptFlushArgs = resp.NewError("SCRIPT FLUSH only support SYNC|ASYNC option")

// SCRIPT FLUSH [ASYNC|SYNC]
func cmdScriptFlush(x *call, args [][]byte) error {
	if len(args) > 3 || (len(args) == 3 && !redisstr.Option(args[2], "sync") && !redisstr.Option(args[2], "async")) {
		return errScriptFlushArgs
	}
	x.s.lua.Flush()
	x.W.OK()
	return nil
}

// SCRIPT KILL. On the owner goroutine no script can be running, so this
// answers NOTBUSY; during a long script the connection's own goroutine
// answers it (serveWhileBusy).
func cmdScriptKill(x *call, args [][]byte) error {
	if err := x.s.lua.Kill(); err != nil {
		return err
	}
	x.W.OK()
	return nil
}

var (
	errScriptDebugArgs  = resp.NewError("Use SCRIPT DEBUG YES/SYNC/NO")
	errScriptDebugMulti = resp.NewError("SCRIPT DEBUG must be called outside a pipeline")
	errScriptDebugNone  = resp.NewError("SCRIPT DEBUG YES and SYNC are not supported: minilock has no Lua debugger")
)

// SCRIPT DEBUG YES|SYNC|NO. Only NO, which leaves scripts running normally,
// is accepted: minilock has no Lua debugger (a deliberate difference).
// Redis refuses the command while replies are pending (in EXEC, or after
// other pipelined commands), and so does this.
func cmdScriptDebug(x *call, args [][]byte) error {
	if x.inExec || x.W.Len() > 0 {
		return errScriptDebugMulti
	}
	switch {
	case redisstr.Option(args[2], "no"):
		x.W.OK()
		return nil
	case redisstr.Option(args[2], "yes"), redisstr.Option(args[2], "sync"):
		return errScriptDebugNone
	}
	return errScriptDebugArgs
}

// SCRIPT HELP
func cmdScriptHelp(x *call, args [][]byte) error {
	return writeHelp(x, "SCRIPT",
		"DEBUG (YES|SYNC|NO)",
		"    Set the debug mode for subsequent scripts executed.",
		"EXISTS <sha1> [<sha1> ...]",
		"    Return information about the existence of the scripts in the script cache.",
		"FLUSH [ASYNC|SYNC]",
		"    Flush the Lua scripts cache. Very dangerous on replicas.",
		"    When called without the optional mode argument, the behavior is determined by the",
		"    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
		"    * ASYNC: Asynchronously flush the scripts cache.",
		"    * SYNC: Synchronously flush the scripts cache.",
		"KILL",
		"    Kill the currently executing Lua script.",
		"LOAD <script>",
		"    Load a script into the scripts cache without executing it.")
}
