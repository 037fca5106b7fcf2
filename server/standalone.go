package server

import (
	"github.com/minilock/minilock/internal/cmdargs"
	"github.com/minilock/minilock/internal/redisstr"
	"github.com/minilock/minilock/resp"
)

// What a standalone Redis 7.0 master without replicas, cluster mode or
// modules answers about those features (replication.c, cluster.c,
// module.c): clients and tools probe them (ioredis and Lettuce send ROLE,
// Redisson WAIT), and a missing command would read as a broken server.
// minilock is always such a node.

var (
	errClusterDisabled  = resp.NewError("This instance has cluster support disabled")
	errNoReplicas       = resp.NewError("FAILOVER requires connected replicas.")
	errNoFailover       = resp.NewError("No failover in progress.")
	errFailoverTimeout  = resp.NewError("FAILOVER timeout must be greater than 0")
	errWaitTimeoutInt   = resp.NewError("timeout is not an integer or out of range")
	errInvalidPort      = resp.NewError("Invalid master port")
	errReplicaofRefused = resp.NewError("REPLICAOF host port is not supported: minilock does not replicate (REPLICAOF NO ONE is)")
)

// cmdClusterDisabled is every CLUSTER subcommand, READONLY and READWRITE
// (clusterCommand, readonlyCommand: cluster_enabled is 0).
func cmdClusterDisabled(*call, [][]byte) error { return errClusterDisabled }

// clusterSubs are CLUSTER's subcommands, each known (so arity errors are
// Redis's) and each refused.
func clusterSubs() []*command {
	var subs []*command
	for _, name := range []string{"addslots", "addslotsrange", "bumpepoch", "count-failure-reports", "countkeysinslot",
		"delslots", "delslotsrange", "failover", "flushslots", "forget", "getkeysinslot", "help", "info", "keyslot",
		"links", "meet", "myid", "nodes", "replicas", "replicate", "reset", "saveconfig", "set-config-epoch",
		"setslot", "shards", "slaves", "slots"} {
		subs = append(subs, &command{name: name, run: cmdClusterDisabled})
	}
	return subs
}

// WAIT numreplicas timeout: with no replica to acknowledge anything, 0 at
// once when no replica is asked for (or inside MULTI); otherwise the
// client blocks until the timeout (forever for 0) and then gets 0, as
// Redis's waitCommand blocks it (CLIENT UNBLOCK ends it early).
func cmdWait(x *call, args [][]byte) error {
	n, err := intArg(args[1])
	if err != nil {
		return err
	}
	timeout, ok := redisstr.ParseInt(args[2])
	if !ok {
		return errWaitTimeoutInt
	}
	if timeout < 0 {
		return errTimeoutNegative
	}
	if n <= 0 || deniesBlocking(x) {
		x.W.Int(0)
		return nil
	}
	return x.s.blockFor(x, &parked{name: "wait"}, timeout)
}

// ROLE: a master at replication offset 0 with no replicas.
func cmdRole(x *call, args [][]byte) error {
	x.W.Array(3)
	x.W.BulkString("master")
	x.W.Int(0)
	x.W.Array(0)
	return nil
}

// REPLICAOF host port, SLAVEOF host port. NO ONE (the node is a master
// already) is +OK. A master to follow is checked as Redis checks it, then
// refused: minilock cannot be a replica, and an OK would promise a
// replication that never happens.
func cmdReplicaOf(x *call, args [][]byte) error {
	if redisstr.Option(args[1], "no") && redisstr.Option(args[2], "one") {
		x.W.OK()
		return nil
	}
	if port, ok := redisstr.ParseInt(args[2]); !ok || port < 0 || port > 65535 {
		return errInvalidPort
	}
	return errReplicaofRefused
}

// FAILOVER [TO host port [FORCE]] [ABORT] [TIMEOUT ms]: the arguments are
// read as failoverCommand reads them, and then there is no replica to
// fail over to.
func cmdFailover(x *call, args [][]byte) error {
	if len(args) == 2 && redisstr.Option(args[1], "abort") {
		return errNoFailover
	}
	var timeout int64
	var to, force bool
	for j := 1; j < len(args); j++ {
		switch a := args[j]; {
		case redisstr.Option(a, "timeout") && j+1 < len(args) && timeout == 0:
			t, err := intArg(args[j+1])
			if err != nil {
				return err
			}
			if t <= 0 {
				return errFailoverTimeout
			}
			timeout = t
			j++
		case redisstr.Option(a, "to") && j+2 < len(args) && !to:
			if _, err := intArg(args[j+2]); err != nil {
				return err
			}
			to = true
			j += 2
		case redisstr.Option(a, "force") && !force:
			force = true
		default:
			return resp.ErrSyntax
		}
	}
	return errNoReplicas
}

// MODULE LIST: no modules.
func cmdModuleList(x *call, args [][]byte) error {
	x.W.Array(0)
	return nil
}

// MODULE LOAD, LOADEX and UNLOAD never run: dispatch refuses them first,
// as enable-module-command no does (protected).
func cmdModuleRefused(*call, [][]byte) error { return errModuleDisabled }

func cmdModuleHelp(x *call, args [][]byte) error {
	return writeHelp(x, "MODULE",
		"LIST",
		"    Return a list of loaded modules.",
		"LOAD <path> [<arg> ...]",
		"    Load a module library from <path>, passing to it any optional arguments.",
		"LOADEX <path> [[CONFIG NAME VALUE] [CONFIG NAME VALUE]] [ARGS ...]",
		"    Load a module library from <path>, while passing it module configurations and optional arguments.",
		"UNLOAD <name>",
		"    Unload a module.")
}

func cmdCommandHelp(x *call, args [][]byte) error {
	return writeHelp(x, "COMMAND",
		"(no subcommand)",
		"    Return details about all Redis commands.",
		"COUNT",
		"    Return the total number of commands in this Redis server.",
		"LIST",
		"    Return a list of all commands in this Redis server.",
		"INFO [<command-name> ...]",
		"    Return details about multiple Redis commands.",
		"    If no command names are given, documentation details for all",
		"    commands are returned.",
		"DOCS [<command-name> ...]",
		"    Return documentation details about multiple Redis commands.",
		"    If no command names are given, documentation details for all",
		"    commands are returned.",
		"GETKEYS <full-command>",
		"    Return the keys from a full Redis command.",
		"GETKEYSANDFLAGS <full-command>",
		"    Return the keys and the access flags from a full Redis command.")
}

func cmdConfigHelp(x *call, args [][]byte) error {
	return writeHelp(x, "CONFIG",
		"GET <pattern>",
		"    Return parameters matching the glob-like <pattern> and their values.",
		"SET <directive> <value>",
		"    Set the configuration <directive> to <value>.",
		"RESETSTAT",
		"    Reset statistics reported by the INFO command.",
		"REWRITE",
		"    Rewrite the configuration file.")
}

// MEMORY MALLOC-STATS: what a Redis built without jemalloc answers; Go's
// allocator is not jemalloc, and MEMORY STATS and INFO memory report it.
func cmdMemoryMallocStats(x *call, args [][]byte) error {
	x.W.BulkString("Stats not supported for the current allocator")
	return nil
}

// intArg parses an integer argument with Redis's error.
func intArg(b []byte) (int64, error) { return cmdargs.Int(b) }
