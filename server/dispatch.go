package server

import (
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/minilock/minilock/internal/cmdspec"
	"github.com/minilock/minilock/keyspace"
	"github.com/minilock/minilock/resp"
	"github.com/minilock/minilock/server/internal/acl"
)

// command is one entry of the command table.
type command struct {
	name  string // full lower-case name: "get", "script|load"
	arity int    // Redis's arity: N exactly, -N at least N (name included)
	flags cmdFlags
	run   func(x *call, args [][]byte) error
	subs  []*command // subcommands of a container (CLIENT, SCRIPT ...)
	// subIndex finds subs by name (built by index).
	subIndex map[string]*command
	// id numbers the command for its statistics (stats.go).
	id int
	// spec is the command's metadata (commandspec_gen.go), whose arity
	// and flags index copies into the fields above.
	spec *cmdspec.Command
	// acl is the command as the ACL rules know it (acl.go).
	acl *acl.Command
}

// call is one command being executed on the owner goroutine.
type call struct {
	keyspace.Ctx
	s *Server
	// c is the connection the command came from; inside a script it is
	// the script's caller.
	c *client
	// script is non-nil for commands a script runs with redis.call.
	script *scriptHost
	// inExec is set while EXEC runs the queued commands.
	inExec bool
	// offOwner: serveWhileBusy runs the command on the connection's
	// goroutine while a script holds the owner (stats.go defers its
	// counting).
	offOwner bool
	// loading is set while the AOF's commands are replayed at start: no
	// client sent them, so MONITOR and the lock doctor do not see them.
	loading bool
}

// errNoReply is returned by a command that must send no reply at all.
var errNoReply = errors.New("no reply")

// lookup finds the command args names, checking its arity, with Redis's
// errors for an unknown command or subcommand and a wrong argument count
// (server.c:processCommand, steps 1 and 2). A wrong argument count comes
// with the command it is for.
func lookup(args [][]byte) (*command, error) {
	cmd := find(commands, args[0])
	if cmd == nil {
		return nil, resp.ErrUnknownCommand(args[0], args[1:])
	}
	if cmd.subs != nil && len(args) >= 2 {
		sub := find(cmd.subIndex, args[1])
		if sub == nil {
			return nil, resp.ErrUnknownSubcommand(args[0], args[1])
		}
		cmd = sub
	}
	if !arityOK(cmd, len(args)) {
		return cmd, resp.ErrWrongArgs(cmd.name)
	}
	return cmd, nil
}

// find looks name up case-insensitively without allocating.
func find(table map[string]*command, name []byte) *command {
	var buf [24]byte
	if len(name) > len(buf) {
		return nil
	}
	for i, ch := range name {
		if 'A' <= ch && ch <= 'Z' {
			ch += 'a' - 'A'
		}
		buf[i] = ch
	}
	return table[string(buf[:len(name)])]
}

var (
	// errDebugDisabled refuses DEBUG: enable-debug-command is "no", the
	// default of Redis 7.0, and cannot be changed at run time.
	errDebugDisabled = resp.NewError(`DEBUG command not allowed. If the enable-debug-command option is set to "local", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server.`)
	// errModuleDisabled refuses MODULE LOAD, LOADEX and UNLOAD as
	// enable-module-command's default, "no", does; minilock loads no
	// modules.
	errModuleDisabled  = resp.NewError(`MODULE command not allowed. If the enable-module-command option is set to "local", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server.`)
	errNotInMulti      = resp.NewError("Command not allowed inside a transaction")
	errReplicaKeyspace = resp.NewError("Replica can't interact with the keyspace")
)

// execute runs one command from client c as the current client
// (tracking.go: c's own invalidations follow its reply). Owner goroutine
// only.
func (s *Server) execute(c *client, args [][]byte) {
	s.track.cur = c
	s.executeCmd(c, args)
	if s.track.hooked || c.track.flags != 0 {
		s.trackingAfter(c)
	}
	s.track.cur = nil
}

// executeCmd runs one command from client c, in Redis's order of checks:
// existence, arity, authentication, then transaction queueing, then the
// command itself.
func (s *Server) executeCmd(c *client, args [][]byte) {
	s.stats.commands.Add(1)
	if msg, ok := s.forcedError(); ok {
		// SetError: every command fails, before any other check, as a
		// test of a client's error paths wants.
		c.W.Error(msg)
		return
	}
	cmd, err := lookup(args)
	if cmd == nil && s.doctor != nil && s.doctorCommand(c, args) {
		return
	}
	// CLIENT LIST's cmd= is whatever the lookup found, even for a command
	// that is then refused or queued ("NULL" for an unknown one), as
	// processCommand sets c->lastcmd.
	c.lastCmd = ""
	if cmd != nil {
		c.lastCmd = cmd.name
	}
	switch {
	case err != nil:
	case protected(cmd) != nil:
		// Before authentication, as processCommand checks it.
		err = protected(cmd)
	case cmd.flags&fNoAuth == 0 && s.authRequired(c):
		err = resp.ErrNoAuth
	case c.multi != nil && cmd.flags&fNoMulti != 0:
		err = errNotInMulti
	case !c.user.Unrestricted && s.aclRefused(c, cmd, args, &err):
		// The user's permissions (processCommand's ACL check); the
		// default user with every permission skips it on the flag.
	case s.maxMemory > 0 && s.performEvictions() && (oomRefuses(c, cmd) || s.scriptDenyOOM(c, cmd, args)):
		err = errOOM
	case s.persist.lastFailed && (cmd.flags&fWrite != 0 || cmd.name == "ping") && s.writesRefused():
		// processCommand refuses PING too: a health check should see it.
		err = errMisconf
	case !s.goodReplicas() && s.isWriteCommand(c, cmd, args):
		err = errNoGoodReplicas
	case c.monitor && cmd.flags&(fWrite|fReadOnly|fMayReplicate) != 0:
		// A MONITOR client is a replica to Redis, and a replica may not
		// touch the keyspace (processCommand).
		err = errReplicaKeyspace
	case !c.W.RESP3() && c.inSubscribedMode() && !allowedWhileSubscribed(cmd):
		err = errPubsubContext(cmd.name)
	}
	if err != nil {
		if cmd != nil && cmd.name == "exec" {
			err = s.abortExec(c, err)
		}
		s.rejectCommand(cmd, err)
		if cmd != nil && cmd.name == "exec" {
			c.W.Err(err)
			return
		}
		if c.multi != nil {
			c.multi.aborted = true // EXEC will answer EXECABORT
		}
		c.W.Err(err)
		return
	}
	if s.track.clients > 0 {
		s.trackLimit() // processCommand's trackingLimitUsedSlots
	}
	if c.multi != nil && !controlsMulti(cmd) {
		if !c.multi.aborted {
			// An aborted transaction keeps nothing more: CLIENT LIST's
			// multi= (and an ACL LOG entry's) stop counting, as in
			// multi.c:queueMultiCommand.
			c.multi.queue(cmd, args)
		}
		c.W.Status("QUEUED")
		return
	}
	// The call lives in the client: a local would escape to the heap
	// through cmd.run and cost an allocation per command.
	x := &c.call
	*x = call{s: s, c: c, Ctx: keyspace.Ctx{W: &c.W, DB: c.db, Now: s.ks.Now()}}
	if cmd.flags&fWrite != 0 && x.Now < s.writableAt {
		c.W.Err(s.errRestartDelay(x.Now))
		return
	}
	s.track.inCall = true
	s.run(x, cmd, args)
	c.db = x.DB
	s.serveReady()
}

// run executes cmd and writes its reply, or its error, to x.W. A panic in a
// command becomes an error reply for that command alone: the partial reply
// is dropped and the server keeps serving.
func (s *Server) run(x *call, cmd *command, args [][]byte) {
	start := x.W.Len()
	began := s.commandStart(x)
	if s.aof.on {
		s.aofBefore(cmd)
		defer s.aofAfter(x, cmd, args)
	}
	defer func() {
		if p := recover(); p != nil {
			x.dropReply(start)
			s.log.Error("command panicked", "cmd", cmd.name, "panic", p, "stack", string(debug.Stack()))
			err := fmt.Errorf("internal error in '%s': %v", cmd.name, p)
			x.W.Err(err)
			s.afterCommand(x, cmd, args, began, err, nil)
		}
	}()
	// Tracking is the owner's: a command run beside a busy script
	// (offOwner) touches no key.
	tracking := !x.offOwner && s.track.clients > 0
	if tracking {
		s.trackingRun(x, cmd, args)
	}
	err := cmd.run(x, args)
	if tracking && cmd.flags&fReadOnly != 0 {
		s.trackedRead(x, cmd, args)
	}
	if err != nil {
		x.dropReply(start)
		if err != errNoReply {
			x.W.Err(err)
		} else {
			err = nil
		}
	}
	if x.W == &x.c.W {
		start = x.c.replyStart(start)
	}
	reply := x.W.From(start)
	s.afterCommand(x, cmd, args, began, err, reply)
	if s.doctor != nil && !x.offOwner && !x.loading {
		// offOwner: a command allowed while a script is busy runs on its
		// connection's goroutine; none of them touches a key.
		s.doctorSee(x, cmd, args, reply)
	}
	if cmd.flags&fSkipMonitor == 0 && !x.loading {
		s.feedMonitors(x, args)
	}
}

// dropReply drops the reply x's command wrote from start on. In the
// client's own reply buffer, the pub/sub frames delivered to it meanwhile
// stay: they were sent, as in Redis, whatever becomes of the reply.
func (x *call) dropReply(start int) {
	if x.W == &x.c.W {
		x.c.dropReply(start)
		return
	}
	x.W.Truncate(start)
}

// protected reports whether cmd is one of Redis's CMD_PROTECTED commands
// (DEBUG; MODULE, which minilock lacks), refused while enable-debug-command
// is "no", its only value here. COMMAND INFO does not show the flag.
func protected(cmd *command) error {
	switch cmd.name {
	case "debug":
		return errDebugDisabled
	case "module|load", "module|loadex", "module|unload":
		return errModuleDisabled
	}
	return nil
}

// errRestartDelay is the error for a write refused during RestartDelay.
// Its LOADING code is the one clients already treat as "retry later".
func (s *Server) errRestartDelay(now int64) error {
	return &resp.Error{Code: "LOADING", Msg: fmt.Sprintf(
		"minilock restarted recently and refuses writes for %d ms more (restart-delay), so that no lock held before the restart can be granted twice", s.writableAt-now)}
}
