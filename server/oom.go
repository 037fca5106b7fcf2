package server

import (
	"strconv"

	"github.com/minilock/minilock/resp"
)

// maxmemory, as Redis 7.0 applies it under its default policy, noeviction:
// once the server uses more than maxmemory (INFO's used_memory: the Go
// heap's live and not yet collected objects), commands that may grow
// memory (denyoom) are refused, and so is anything queued in a MULTI; reads,
// deletes and EXEC/DISCARD still run. A script is judged once, when it
// starts (server.c saves script_oom), and only until its first write
// (script.c:scriptVerifyOOM): a script that has written is never cut in the
// middle for the data it writes. minilock evicts nothing, so every
// maxmemory-policy acts as noeviction. Off (the default, 0), none of this
// costs anything.

var errOOM = &resp.Error{Code: "OOM", Msg: "command not allowed when used memory > 'maxmemory'."}

// outOfMemory reports whether maxmemory is set and exceeded (Redis:
// performEvictions() == EVICT_FAIL). Owner goroutine only.
func (s *Server) outOfMemory() bool {
	if s.maxMemory == 0 {
		return false
	}
	return readMem().heapObjects > s.maxMemory
}

// oomRefuses says whether, out of memory, Redis refuses cmd from c
// (processCommand's reject_cmd_on_oom).
func oomRefuses(c *client, cmd *command) bool {
	switch cmd.name {
	case "exec":
		for _, q := range c.multi.cmdsOrNil() {
			if q.cmd.flags&fDenyOOM != 0 {
				return true
			}
		}
		return false
	case "discard", "quit", "reset":
		return false
	}
	return cmd.flags&fDenyOOM != 0 || c.multi != nil
}

func (m *multiState) cmdsOrNil() []queued {
	if m == nil {
		return nil
	}
	return m.cmds
}

// maxMemoryParam is CONFIG GET/SET maxmemory, in bytes.
var maxMemoryParam = liveParam{
	get: func(s *Server) string { return strconv.FormatUint(s.maxMemory, 10) },
	set: func(s *Server, v string) error {
		n, err := strconv.ParseUint(v, 10, 64)
		if err == nil {
			s.maxMemory = n
		}
		return err
	},
}
