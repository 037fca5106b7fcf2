package server

import (
	"errors"

	"github.com/minilock/minilock/resp"
)

// Transactions: MULTI, EXEC, DISCARD, WATCH, UNWATCH (multi.c). A
// transaction runs on the owner goroutine as one uninterrupted batch, so no
// other client's command lands between its commands.

// multiState is a transaction being queued.
type multiState struct {
	cmds []queued
	// aborted is set when a command was refused while queueing (unknown,
	// wrong arity ...): EXEC then answers EXECABORT.
	aborted bool
}

type queued struct {
	cmd  *command
	args [][]byte
}

// queue keeps a copy of args: they point into the connection's read
// buffer, which the next read reuses, and EXEC may come batches later.
func (m *multiState) queue(cmd *command, args [][]byte) {
	n := 0
	for _, a := range args {
		n += len(a)
	}
	buf := make([]byte, 0, n)
	kept := make([][]byte, len(args))
	for i, a := range args {
		buf = append(buf, a...)
		kept[i] = buf[len(buf)-len(a) : len(buf) : len(buf)]
	}
	m.cmds = append(m.cmds, queued{cmd, kept})
}

// controlsMulti reports whether cmd runs at once inside MULTI instead of
// being queued.
func controlsMulti(cmd *command) bool {
	switch cmd.name {
	case "exec", "discard", "multi", "watch", "quit", "reset":
		return true
	}
	return false
}

var (
	errNestedMulti  = resp.NewError("MULTI calls can not be nested")
	errExecNoMulti  = resp.NewError("EXEC without MULTI")
	errDiscardMulti = resp.NewError("DISCARD without MULTI")
	errWatchInMulti = resp.NewError("WATCH inside MULTI is not allowed")
	errExecAbort    = &resp.Error{Code: "EXECABORT", Msg: "Transaction discarded because of previous errors."}
)

// MULTI
func cmdMulti(x *call, args [][]byte) error {
	if x.c.multi != nil {
		return errNestedMulti
	}
	x.c.multi = &multiState{}
	x.W.OK()
	return nil
}

// discard ends c's transaction and its WATCHes.
func (x *call) discard() {
	x.c.multi = nil
	x.s.ks.Unwatch(&x.c.watch)
}

// DISCARD
func cmdDiscard(x *call, args [][]byte) error {
	if x.c.multi == nil {
		return errDiscardMulti
	}
	x.discard()
	x.W.OK()
	return nil
}

// EXEC runs the queued commands at one instant, or answers EXECABORT (a
// command was refused while queueing) or a null array (a watched key
// changed or expired).
func cmdExec(x *call, args [][]byte) error {
	m := x.c.multi
	if m == nil {
		return errExecNoMulti
	}
	failed := x.s.ks.WatchFailed(&x.Ctx, &x.c.watch)
	if m.aborted || failed {
		x.discard()
		if m.aborted {
			return errExecAbort
		}
		x.W.NullArray()
		return nil
	}
	// As in multi.c:execCommand, the watches go first and the client stays
	// in MULTI state while its commands run (CLIENT INFO shows flags=x).
	x.s.ks.Unwatch(&x.c.watch)
	x.W.Array(len(m.cmds))
	x.inExec = true
	defer func() { x.inExec = false }()
	for _, q := range m.cmds {
		if !x.c.user.Unrestricted {
			// The permissions may have changed since it was queued.
			if err := x.s.aclRefuseInExec(x, q.cmd, q.args); err != nil {
				x.W.Err(err)
				continue
			}
		}
		x.s.run(x, q.cmd, q.args)
	}
	x.discard()
	return nil
}

// abortExec answers an EXEC that dispatch refused (wrong arity, NOAUTH) as
// Redis's rejectCommand does: the transaction, if any, and the watches are
// dropped, and the error is wrapped in EXECABORT (multi.c:execCommandAbort).
// Errors Redis formats on the spot carry no code in the wrapped text.
func (s *Server) abortExec(c *client, err error) error {
	c.multi = nil
	s.ks.Unwatch(&c.watch)
	why := resp.Text(err)
	var re *resp.Error
	if errors.As(err, &re) && re.Code == "ERR" {
		why = re.Msg
	}
	return &resp.Error{Code: "EXECABORT", Msg: "Transaction discarded because of: " + why}
}

// WATCH key [key ...]
func cmdWatch(x *call, args [][]byte) error {
	if x.c.multi != nil {
		return errWatchInMulti
	}
	for _, key := range args[1:] {
		x.s.ks.WatchKey(&x.Ctx, &x.c.watch, key)
	}
	x.W.OK()
	return nil
}

// UNWATCH
func cmdUnwatch(x *call, args [][]byte) error {
	x.s.ks.Unwatch(&x.c.watch)
	x.W.OK()
	return nil
}
