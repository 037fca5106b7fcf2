package server

import (
	"strconv"
	"strings"

	"github.com/minilock/minilock/internal/redisstr"
	"github.com/minilock/minilock/luaeval"
	"github.com/minilock/minilock/resp"
)

// min-replicas-to-write on a node without replicas (server.c,
// replication.c). minilock has no replication, so it always has zero good
// replicas: with min-replicas-to-write above zero (and min-replicas-max-lag
// not zero, which turns the check off in Redis) every write is refused
// with NOREPLICAS, as a Redis master whose replicas have all gone away
// refuses them.

// runtimeState holds run-time settings the commands read on the owner.
type runtimeState struct {
	minReplicas int64 // min-replicas-to-write
	maxLag      int64 // min-replicas-max-lag
	// bind is the hosts CONFIG SET bind last gave (listen.go), nil before.
	bind []string
}

// newRuntimeState holds Redis's defaults.
func newRuntimeState() runtimeState {
	lag, _ := strconv.ParseInt(configByName["min-replicas-max-lag"].def, 10, 64)
	return runtimeState{maxLag: lag}
}

// errNoGoodReplicas is shared.noreplicaserr.
var errNoGoodReplicas = &resp.Error{Code: "NOREPLICAS", Msg: "Not enough good replicas to write."}

// goodReplicas is checkGoodReplicasStatus for a master with no replicas
// attached. Owner goroutine.
func (s *Server) goodReplicas() bool {
	return s.rt.maxLag == 0 || s.rt.minReplicas == 0
}

// isWriteCommand is processCommand's is_write_command: cmd is a write
// command, or its script is one by its flags (a function, or an EVAL
// script with a shebang, that does not declare no-writes:
// scriptFlagsToCmdFlags), or it is an EXEC whose queue holds such a
// command (mstate.cmd_flags). Owner goroutine.
func (s *Server) isWriteCommand(c *client, cmd *command, args [][]byte) bool {
	if cmd.flags&fWrite != 0 {
		return true
	}
	switch cmd.name {
	case "exec":
		for _, q := range c.multi.cmdsOrNil() {
			if s.isWriteCommand(c, q.cmd, q.args) {
				return true
			}
		}
	case "fcall", "fcall_ro":
		if len(args) < 2 {
			return false
		}
		f := s.lua.LookupFunction(args[1])
		return f != nil && f.Flags&luaeval.FlagNoWrites == 0
	case "eval", "eval_ro", "evalsha", "evalsha_ro":
		return s.lua.ScriptWrites(args[1:], cmd.name == "evalsha" || cmd.name == "evalsha_ro")
	}
	return false
}

// REPLCONF option value [option value ...]: what replconfCommand answers a
// client that is not a replica. The options are checked and forgotten, as
// nothing replicates from minilock; ACK and GETACK end the command without
// a reply, as they do in Redis.
func cmdReplconf(x *call, args [][]byte) error {
	if len(args)%2 == 0 {
		return resp.ErrSyntax
	}
	for j := 1; j < len(args); j += 2 {
		opt, val := args[j], args[j+1]
		switch {
		case redisstr.Option(opt, "listening-port"):
			if _, ok := redisstr.ParseInt(val); !ok {
				return resp.ErrNotInteger
			}
		case redisstr.Option(opt, "ip-address"):
			if len(val) >= netHostStrLen {
				return resp.NewError("REPLCONF ip-address provided by replica instance is too long: " + strconv.Itoa(len(val)) + " bytes")
			}
		case redisstr.Option(opt, "capa"):
			// Capabilities a master does not know are ignored.
		case redisstr.Option(opt, "ack"), redisstr.Option(opt, "getack"):
			return errNoReply
		case redisstr.Option(opt, "rdb-only"):
			n, ok := redisstr.ParseInt(val)
			if !ok {
				return resp.ErrNotInteger
			}
			if n < 0 || n > 1 {
				return resp.NewError("value is out of range, value must between 0 and 1")
			}
		default:
			return resp.NewError("Unrecognized REPLCONF option: " + errText(opt))
		}
	}
	x.W.OK()
	return nil
}

// netHostStrLen is NET_HOST_STR_LEN: REPLCONF ip-address takes less.
const netHostStrLen = 256

// errText is an argument as addReplyErrorFormat prints it with %s: up to
// its first NUL, with line breaks made spaces so the error stays one line.
func errText(b []byte) string {
	return strings.NewReplacer("\r", " ", "\n", " ").Replace(redisstr.CString(b))
}

// SYNC and PSYNC replicationid offset: Redis starts a full resynchronization
// (+FULLRESYNC and an RDB snapshot, then the stream of writes) and makes
// the connection a replica. minilock does not replicate, so it refuses
// them with an error that says so rather than send a snapshot nothing
// would follow.
func cmdSync(x *call, args [][]byte) error {
	return resp.NewError(strings.ToUpper(string(args[0])) + " is not supported: minilock does not replicate")
}
