package server

import (
	"github.com/minilock/minilock/luaeval"
	"github.com/minilock/minilock/resp"
)

// serveWhileBusy answers c's batch from the connection's goroutine while a
// script holds the owner past busy-reply-threshold (server.c:processCommand's
// BUSY check). Commands that only touch this connection's own state, and
// SCRIPT KILL and SHUTDOWN, still run; everything else gets -BUSY. The owner
// is inside a script and touches no client state meanwhile (no command a
// script may call reads it), so nothing races here.
func (s *Server) serveWhileBusy(c *client) {
	for ; c.Next < len(c.Batch); c.Next++ {
		args := c.Batch[c.Next].Args
		cmd, err := lookup(args)
		switch {
		case err != nil:
		case protected(cmd) != nil:
			err = protected(cmd)
		case cmd.flags&fNoAuth == 0 && s.authRequired(c):
			err = resp.ErrNoAuth
		case !c.user.Unrestricted && aclRefusedWhileBusy(c, cmd, args, &err):
		case !runsWhileBusy(cmd):
			err = s.busyError()
		}
		start := len(c.W.B)
		if err != nil {
			if c.multi != nil {
				c.multi.aborted = true
			}
			c.W.Err(err)
			s.ops.deferStat(pendingStat{cmd: cmd, err: resp.Text(err), rejected: true})
		} else {
			x := call{s: s, c: c, offOwner: true}
			x.W = &c.W
			x.DB = c.db
			s.run(&x, cmd, args)
		}
		if c.replyOff {
			// CLIENT REPLY OFF drops the BUSY errors too (no command that
			// could switch replies on runs while busy).
			c.W.B = c.W.B[:start]
		}
		if c.CloseNow {
			c.Next = len(c.Batch)
			break
		}
	}
	c.FlushToFeed() // the feed's lock orders this with the script's PUBLISHes
}

// runsWhileBusy says whether cmd is answered without the owner: an
// ALLOW_BUSY command that touches only its own connection's state, or
// stops the script or the server. MULTI, DISCARD, WATCH, UNWATCH and RESET
// are ALLOW_BUSY in Redis too, but they change owner-side state (the
// transaction, watched keys), so here they get BUSY.
func runsWhileBusy(cmd *command) bool {
	switch cmd.name {
	case "auth", "hello", "quit", "script|kill", "function|kill", "function|stats", "shutdown":
		return cmd.flags&fAllowBusy != 0
	}
	return false
}

// busyError is the BUSY reply for the kind of run that holds the owner: an
// EVAL script's names SCRIPT KILL, a function's FUNCTION KILL.
func (s *Server) busyError() error {
	if s.lua.RunningIsFunction() {
		return luaeval.ErrBusyFunction
	}
	return resp.ErrBusy
}
