package server

import (
	"github.com/minilock/minilock/keyspace"
	"github.com/minilock/minilock/resp"
)

// Scripting commands: EVAL, EVALSHA, their _RO forms, and SCRIPT. The Lua
// engine (luaeval) runs scripts; this file connects it to the command table
// so that redis.call runs the very same command implementations as the
// network does, on the owner goroutine, at the script's frozen time.

func init() {
	register(
		// MONITOR shows the commands a script runs, not EVAL itself.
		&command{name: "eval", arity: -3, flags: fNoScript | fSkipMonitor, run: cmdEval},
		&command{name: "evalsha", arity: -3, flags: fNoScript | fSkipMonitor, run: cmdEvalSHA},
		&command{name: "eval_ro", arity: -3, flags: fNoScript | fReadOnly | fSkipMonitor, run: cmdEvalRO},
		&command{name: "evalsha_ro", arity: -3, flags: fNoScript | fReadOnly | fSkipMonitor, run: cmdEvalSHARO},
	)
	container("script", fNoScript,
		&command{name: "load", arity: 3, flags: fNoScript, run: cmdScriptLoad},
		&command{name: "exists", arity: -3, flags: fNoScript, run: cmdScriptExists},
		&command{name: "flush", arity: -2, flags: fNoScript, run: cmdScriptFlush},
		&command{name: "kill", arity: 2, flags: fNoScript | fAllowBusy, run: cmdScriptKill},
	)
}

// scriptHost runs a script's redis.call and redis.pcall (luaeval.Host). A
// script starts on its caller's database and a SELECT inside it stays
// inside it; every call sees the time the script started at.
type scriptHost struct {
	s      *Server
	caller *client
	db     int
	now    int64
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
	cmd := find(commands, args[0])
	if cmd != nil && cmd.subs != nil && len(args) >= 2 {
		cmd = find(cmd.subs, args[1])
	}
	var err error
	switch {
	case cmd == nil:
		err = errScriptUnknown
	case (cmd.arity > 0 && len(args) != cmd.arity) || len(args) < -cmd.arity:
		err = errScriptArity
	case cmd.flags&fNoScript != 0:
		err = errScriptNotAllow
	case readOnly && cmd.flags&fWrite != 0:
		err = errScriptReadOnly
	case cmd.flags&fWrite != 0 && h.now < h.s.writableAt:
		err = h.s.errRestartDelay(h.now)
	}
	if err != nil {
		w.Err(err)
		return false
	}
	x := call{s: h.s, c: h.caller, script: h, Ctx: keyspace.Ctx{W: w, DB: h.db, Now: h.now}}
	h.s.run(&x, cmd, args)
	h.db = x.DB
	return cmd.flags&fWrite != 0
}

// eval runs one EVAL-family command through f.
func (x *call) eval(args [][]byte, readOnly bool, sha bool) error {
	h := &x.s.host // scripts never nest, so one host serves them all
	*h = scriptHost{s: x.s, caller: x.c, db: x.DB, now: x.Now}
	if sha {
		return x.s.lua.EvalSHA(x.W, args[1:], readOnly, h)
	}
	return x.s.lua.Eval(x.W, args[1:], readOnly, h)
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
	if len(args) > 3 || (len(args) == 3 && !keyspace.Option(args[2], "sync") && !keyspace.Option(args[2], "async")) {
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
