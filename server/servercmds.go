package server

import (
	"crypto/rand"
	"encoding/hex"
	"sort"
	"strings"

	"github.com/minilock/minilock/internal/redisstr"
	"github.com/minilock/minilock/resp"
)

// Server commands: INFO, TIME, CONFIG GET, COMMAND, SHUTDOWN (server.c,
// config.c).

func newRunID() string {
	var b [20]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// TIME: seconds and microseconds, as two bulk strings.
// It reads the server's clock (the one keys expire by), so that a manual
// clock moves TIME too and a script that takes its timestamps from TIME
// agrees with the TTLs.
func cmdTime(x *call, args [][]byte) error {
	now := x.s.cfg.Clock.Now()
	x.W.Array(2)
	x.W.BulkString(itoa(now.Unix()))
	x.W.BulkString(itoa(int64(now.Nanosecond() / 1000)))
	return nil
}

// CONFIG RESETSTAT: clears what resetServerStats and resetCommandTableStats
// clear: the counters of INFO stats, commandstats, errorstats and
// latencystats, and the memory peak. The slow log stays.
func cmdConfigResetStat(x *call, args [][]byte) error {
	s := x.s
	s.stats.connections.Store(0)
	s.stats.rejected.Store(0)
	s.ops.resetStats(s)
	x.W.OK()
	return nil
}

var errShutdownArgs = resp.ErrSyntax

// SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE]: minilock persists nothing, so every
// form stops the server at once. Like Redis, it sends no reply: the client
// sees the connection close.
func cmdShutdown(x *call, args [][]byte) error {
	nosave := false
	for _, a := range args[1:] {
		switch {
		case redisstr.Option(a, "nosave"):
			nosave = true
		case redisstr.Option(a, "save"),
			redisstr.Option(a, "now"), redisstr.Option(a, "force"):
		default:
			return errShutdownArgs
		}
	}
	if !nosave && x.s.lua.Running() {
		// A script is busy (this runs from serveWhileBusy): only SHUTDOWN
		// NOSAVE may stop the server then (server.c:shutdownCommand).
		return x.s.busyError()
	}
	x.c.closeNow = true
	x.s.shutdownAsync()
	return nil
}

// shutdownAsync closes the server from outside the owner goroutine, which
// Close waits on.
func (s *Server) shutdownAsync() {
	s.log.Warn("shutting down on SHUTDOWN")
	if s.cfg.OnShutdown != nil {
		go s.cfg.OnShutdown()
	}
	go s.Close()
}

// commandNames returns the names of the top-level commands, sorted.
func commandNames() []string {
	names := make([]string, 0, len(commands))
	for name := range commands {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// COMMAND: every command's COMMAND INFO entry.
func cmdCommandAll(x *call, args [][]byte) error {
	if len(args) > 1 {
		// Reached only for a known subcommand with a bad arity, which
		// lookup has already answered; kept for safety.
		return resp.ErrWrongArgs("command")
	}
	names := commandNames()
	x.W.Array(len(names))
	for _, name := range names {
		x.W.B = append(x.W.B, commandInfo[x.W.Proto][name]...)
	}
	return nil
}

// COMMAND COUNT
func cmdCommandCount(x *call, args [][]byte) error {
	x.W.Int(int64(len(commands)))
	return nil
}

// COMMAND INFO [name ...]: Redis 7.0.15's own entries, captured by
// internal/gencommands; null for a command minilock does not have.
func cmdCommandInfo(x *call, args [][]byte) error {
	if len(args) == 2 {
		return cmdCommandAll(x, args[:1])
	}
	x.W.Array(len(args) - 2)
	for _, a := range args[2:] {
		info, ok := commandInfoEntry(x.W.Proto, strings.ToLower(string(a)))
		if !ok {
			x.W.Null()
			continue
		}
		x.W.B = append(x.W.B, info...)
	}
	return nil
}

// COMMAND DOCS [name ...]: a map of the named (or all) commands' docs.
func cmdCommandDocs(x *call, args [][]byte) error {
	names := commandNames()
	if len(args) > 2 {
		names = names[:0]
		for _, a := range args[2:] {
			// Named twice, a command is answered twice, as in Redis.
			name := strings.ToLower(string(a))
			if _, ok := commandDocsEntry(x.W.Proto, name); ok {
				names = append(names, name)
			}
		}
	}
	x.W.Map(len(names))
	for _, name := range names {
		x.W.BulkString(name)
		docs, _ := commandDocsEntry(x.W.Proto, name)
		x.W.B = append(x.W.B, docs...)
	}
	return nil
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
