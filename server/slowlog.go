package server

import (
	"strconv"
	"strings"
	"time"

	"github.com/minilock/minilock/internal/redisstr"
	"github.com/minilock/minilock/resp"
)

// The slow log (slowlog.c): commands that ran for slowlog-log-slower-than
// microseconds or more, newest first, at most slowlog-max-len of them. A
// script's redis.call commands are logged on their own, from Redis's
// "?:0" script client, before the EVAL that ran them; EXEC is not logged
// (skip_slowlog), the commands it ran are.

// Slow log limits on what an entry keeps of a command, as slowlog.c's.
const (
	slowlogMaxArgs   = 32  // SLOWLOG_ENTRY_MAX_ARGC
	slowlogMaxString = 128 // SLOWLOG_ENTRY_MAX_STRING
)

// slowEntry is one logged command.
type slowEntry struct {
	id       int64
	time     int64 // Unix seconds when logged
	duration int64 // microseconds
	args     []string
	peer     string
	name     string
}

// slowlog holds the entries, oldest first. Owner goroutine.
type slowlog struct {
	entries []slowEntry
	nextID  int64
	// slowerThan is slowlog-log-slower-than in microseconds (negative:
	// log nothing); maxLen is slowlog-max-len.
	slowerThan int64
	maxLen     int64
}

// scriptPeer is the address Redis shows for its script client.
const scriptPeer = "?:0"

// slowlogPush logs a command that took us microseconds, if it was slow
// enough (slowlogPushCurrentCommand, slowlogPushEntryIfNeeded).
func (s *Server) slowlogPush(x *call, cmd *command, args [][]byte, us int64) {
	sl := &s.ops.slowlog
	if sl.slowerThan < 0 || us < sl.slowerThan || cmd.name == "exec" {
		return
	}
	e := slowEntry{id: sl.nextID, time: time.Now().Unix(), duration: us, peer: scriptPeer}
	sl.nextID++
	if x.script == nil && x.c != nil {
		e.peer, e.name = x.c.Addr, x.c.name
	}
	n := min(len(args), slowlogMaxArgs)
	e.args = make([]string, n)
	redact := slowlogRedacted(cmd, args)
	for i := range n {
		a := args[i]
		switch {
		case i == slowlogMaxArgs-1 && len(args) > slowlogMaxArgs:
			e.args[i] = "... (" + strconv.Itoa(len(args)-slowlogMaxArgs+1) + " more arguments)"
		case redact(i):
			e.args[i] = "(redacted)"
		case len(a) > slowlogMaxString:
			e.args[i] = string(a[:slowlogMaxString]) + "... (" + strconv.Itoa(len(a)-slowlogMaxString) + " more bytes)"
		default:
			e.args[i] = string(a)
		}
	}
	sl.entries = append(sl.entries, e)
	if over := int64(len(sl.entries)) - sl.maxLen; over > 0 {
		// Drop the oldest; copy so the backing array does not creep.
		sl.entries = append(sl.entries[:0:0], sl.entries[over:]...)
	}
}

// slowlogRedacted says which arguments the slow log hides: AUTH's and
// HELLO AUTH's credentials, as MONITOR does, and the value of a sensitive
// setting in CONFIG SET, ACL SETUSER's arguments (redactClientCommandArgument).
func slowlogRedacted(cmd *command, args [][]byte) func(int) bool {
	if cmd.name == "acl|setuser" {
		return func(i int) bool { return i >= 2 } // the user's name too, as acl.c
	}
	if cmd.name == "config|set" {
		return func(i int) bool { return i >= 3 && i%2 == 1 && sensitiveConfig(string(args[i-1])) }
	}
	return redacted(args)
}

// SLOWLOG GET [count]: the newest count entries (10 by default, -1 all).
func cmdSlowlogGet(x *call, args [][]byte) error {
	count := int64(10)
	if len(args) == 3 {
		n, ok := redisstr.ParseInt(args[2])
		if !ok || n < -1 {
			return resp.NewError("count should be greater than or equal to -1")
		}
		count = n
	} else if len(args) > 3 {
		return errSubSyntax(args)
	}
	entries := x.s.ops.slowlog.entries
	if count == -1 || count > int64(len(entries)) {
		count = int64(len(entries))
	}
	x.W.Array(int(count))
	for i := len(entries) - 1; i >= len(entries)-int(count); i-- {
		e := &entries[i]
		x.W.Array(6)
		x.W.Int(e.id)
		x.W.Int(e.time)
		x.W.Int(e.duration)
		x.W.Array(len(e.args))
		for _, a := range e.args {
			x.W.BulkString(a)
		}
		x.W.BulkString(e.peer)
		x.W.BulkString(e.name)
	}
	return nil
}

// cmd.name == "exec" above: EXEC is the only command of the table with
// Redis's skip_slowlog flag.

// SLOWLOG LEN
func cmdSlowlogLen(x *call, args [][]byte) error {
	x.W.Int(int64(len(x.s.ops.slowlog.entries)))
	return nil
}

// SLOWLOG RESET: empties the log; ids keep counting.
func cmdSlowlogReset(x *call, args [][]byte) error {
	x.s.ops.slowlog.entries = nil
	x.W.OK()
	return nil
}

// SLOWLOG HELP
func cmdSlowlogHelp(x *call, args [][]byte) error {
	return writeHelp(x, "SLOWLOG",
		"GET [<count>]",
		"    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
		"    Entries are made of:",
		"    id, timestamp, time in microseconds, arguments array, client IP and port,",
		"    client name",
		"LEN",
		"    Return the length of the slowlog.",
		"RESET",
		"    Reset the slowlog.")
}

// errSubSyntax is addReplySubcommandSyntaxError's error: the subcommand
// as typed, and the container's HELP.
func errSubSyntax(args [][]byte) error {
	return resp.NewError("unknown subcommand or wrong number of arguments for '" + redisstr.CString(args[1]) +
		"'. Try " + strings.ToUpper(string(args[0])) + " HELP.")
}

// writeHelp answers a container's HELP as addReplyHelp does: a title, the
// given lines, and HELP's own two lines, as status replies.
func writeHelp(x *call, name string, lines ...string) error {
	x.W.Array(len(lines) + 3)
	x.W.Status(name + " <subcommand> [<arg> [value] [opt] ...]. Subcommands are:")
	for _, l := range lines {
		x.W.Status(l)
	}
	x.W.Status("HELP")
	x.W.Status("    Prints this help.")
	return nil
}

// sensitiveConfig reports whether a setting's value is a secret
// (config.c's SENSITIVE_CONFIG).
func sensitiveConfig(name string) bool {
	switch strings.ToLower(name) {
	case "requirepass", "masterauth":
		return true
	}
	return false
}
