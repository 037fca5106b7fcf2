package server

import (
	"crypto/rand"
	"encoding/hex"

	"github.com/minilock/minilock/internal/redisstr"
	"github.com/minilock/minilock/resp"
)

// Server commands: INFO, TIME, CONFIG GET, SHUTDOWN (server.c, config.c);
// COMMAND is in commandinfo.go and commandkeys.go.

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

var errNoShutdown = resp.NewError("No shutdown in progress.")

// SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE] | ABORT: minilock persists nothing,
// so every form but ABORT stops the server at once. Like Redis, it sends
// no reply: the client sees the connection close. ABORT cancels a shutdown
// that waits for replicas to catch up; minilock has none, so there is
// never one to cancel (answered even while a script is busy, as Redis
// does).
func cmdShutdown(x *call, args [][]byte) error {
	var nosave, save, other, abort bool
	for _, a := range args[1:] {
		switch {
		case redisstr.Option(a, "nosave"):
			nosave = true
		case redisstr.Option(a, "save"):
			save = true
		case redisstr.Option(a, "now"), redisstr.Option(a, "force"):
			other = true
		case redisstr.Option(a, "abort"):
			abort = true
		default:
			return errShutdownArgs
		}
	}
	if abort && (nosave || save || other) || nosave && save {
		return errShutdownArgs // server.c:shutdownCommand's illegal combinations
	}
	if abort {
		return errNoShutdown
	}
	if !nosave && x.s.lua.Running() {
		// A script is busy (this runs from serveWhileBusy): only SHUTDOWN
		// NOSAVE may stop the server then (server.c:shutdownCommand).
		return x.s.busyError()
	}
	if err := x.s.saveForShutdown(x.Now, save, nosave, other && hasForce(args)); err != nil {
		return err
	}
	x.c.CloseNow = true
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

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
