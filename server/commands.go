package server

import (
	"fmt"

	"github.com/minilock/minilock/internal/cmdspec"
	"github.com/minilock/minilock/keyspace"
)

//go:generate go run ../internal/gencommands -table commands.go -out commandspec_gen.go

// The command table: every command minilock serves, one row each, grouped
// as Redis's commands.def groups them. A row names the command and its
// implementation; the data commands are implemented in keyspace, one file
// per group, the rest here, one file per group too. A container (CLIENT,
// CONFIG ...) lists the subcommands minilock has.
//
// Everything else about a command (arity, flags, ACL categories, key
// specs, docs) is Redis 7.0.15's own, in commandspec_gen.go, which go
// generate writes from this table's names and a real redis-server (see
// internal/gencommands). A row without metadata there stops the server at
// start-up.
//
// Every path to a command goes through this table and its one arity check
// (arityOK): a client's request, a script's redis.call, a queued MULTI.
var commandTable = []*command{
	// Strings (keyspace/strings.go).
	{name: "set", run: data(keyspace.CmdSet)},
	{name: "setnx", run: data(keyspace.CmdSetNX)},
	{name: "setex", run: data(keyspace.CmdSetEX)},
	{name: "psetex", run: data(keyspace.CmdPSetEX)},
	{name: "get", run: data(keyspace.CmdGet)},
	{name: "getset", run: data(keyspace.CmdGetSet)},
	{name: "getdel", run: data(keyspace.CmdGetDel)},
	{name: "getex", run: data(keyspace.CmdGetEX)},
	{name: "getrange", run: data(keyspace.CmdGetRange)},
	{name: "strlen", run: data(keyspace.CmdStrLen)},
	{name: "setrange", run: data(keyspace.CmdSetRange)},
	{name: "incrbyfloat", run: data(keyspace.CmdIncrByFloat)},
	{name: "append", run: data(keyspace.CmdAppend)},
	{name: "mget", run: data(keyspace.CmdMGet)},
	{name: "mset", run: data(keyspace.CmdMSet)},
	{name: "msetnx", run: data(keyspace.CmdMSetNX)},
	{name: "incr", run: data(keyspace.CmdIncr)},
	{name: "decr", run: data(keyspace.CmdDecr)},
	{name: "incrby", run: data(keyspace.CmdIncrBy)},
	{name: "decrby", run: data(keyspace.CmdDecrBy)},

	// Keys (keyspace/keys.go).
	{name: "del", run: data(keyspace.CmdDel)},
	{name: "unlink", run: data(keyspace.CmdDel)},
	{name: "exists", run: data(keyspace.CmdExists)},
	{name: "touch", run: data(keyspace.CmdTouch)},
	{name: "type", run: data(keyspace.CmdType)},
	{name: "keys", run: data(keyspace.CmdKeys)},
	{name: "scan", run: data(keyspace.CmdScan)},
	{name: "dbsize", run: data(keyspace.CmdDBSize)},
	{name: "flushdb", run: flushing(keyspace.CmdFlushDB)},
	{name: "flushall", run: cmdFlushAll},
	{name: "rename", run: data(keyspace.CmdRename)},
	{name: "renamenx", run: data(keyspace.CmdRenameNX)},
	{name: "copy", run: data(keyspace.CmdCopy)},
	{name: "dump", run: data(keyspace.CmdDump)},
	{name: "restore", run: data(keyspace.CmdRestore)},
	{name: "restore-asking", run: data(keyspace.CmdRestore)},
	{name: "migrate", run: cmdMigrate},
	{name: "move", run: data(keyspace.CmdMove)},
	{name: "randomkey", run: data(keyspace.CmdRandomKey)},
	{name: "swapdb", run: data(keyspace.CmdSwapDB)},
	{name: "sort", run: cmdSort},
	{name: "sort_ro", run: cmdSortRO},

	// Expiry (keyspace/expire.go).
	{name: "expire", run: data(keyspace.CmdExpire)},
	{name: "pexpire", run: data(keyspace.CmdPExpire)},
	{name: "expireat", run: data(keyspace.CmdExpireAt)},
	{name: "pexpireat", run: data(keyspace.CmdPExpireAt)},
	{name: "ttl", run: data(keyspace.CmdTTL)},
	{name: "pttl", run: data(keyspace.CmdPTTL)},
	{name: "expiretime", run: data(keyspace.CmdExpireTime)},
	{name: "pexpiretime", run: data(keyspace.CmdPExpireTime)},
	{name: "persist", run: data(keyspace.CmdPersist)},

	// Streams (keyspace/stream.go).
	{name: "xadd", run: data(keyspace.CmdXAdd)},
	{name: "xrange", run: data(keyspace.CmdXRange)},
	{name: "xrevrange", run: data(keyspace.CmdXRevRange)},
	{name: "xlen", run: data(keyspace.CmdXLen)},
	{name: "xdel", run: data(keyspace.CmdXDel)},
	{name: "xtrim", run: data(keyspace.CmdXTrim)},
	{name: "xsetid", run: data(keyspace.CmdXSetID)},
	{name: "xack", run: data(keyspace.CmdXAck)},
	{name: "xpending", run: data(keyspace.CmdXPending)},
	{name: "xclaim", run: data(keyspace.CmdXClaim)},
	{name: "xautoclaim", run: data(keyspace.CmdXAutoClaim)},
	{name: "xread", run: cmdXRead},
	{name: "xreadgroup", run: cmdXRead},
	{name: "xgroup", subs: []*command{
		{name: "create", run: data(keyspace.CmdXGroup)},
		{name: "setid", run: data(keyspace.CmdXGroup)},
		{name: "destroy", run: data(keyspace.CmdXGroup)},
		{name: "createconsumer", run: data(keyspace.CmdXGroup)},
		{name: "delconsumer", run: data(keyspace.CmdXGroup)},
		{name: "help", run: data(keyspace.CmdXGroup)},
	}},
	{name: "xinfo", subs: []*command{
		{name: "stream", run: data(keyspace.CmdXInfo)},
		{name: "groups", run: data(keyspace.CmdXInfo)},
		{name: "consumers", run: data(keyspace.CmdXInfo)},
		{name: "help", run: data(keyspace.CmdXInfo)},
	}},

	// Hashes (keyspace/hash.go).
	{name: "hset", run: data(keyspace.CmdHSet)},
	{name: "hmset", run: data(keyspace.CmdHSet)},
	{name: "hsetnx", run: data(keyspace.CmdHSetNX)},
	{name: "hget", run: data(keyspace.CmdHGet)},
	{name: "hmget", run: data(keyspace.CmdHMGet)},
	{name: "hdel", run: data(keyspace.CmdHDel)},
	{name: "hexists", run: data(keyspace.CmdHExists)},
	{name: "hlen", run: data(keyspace.CmdHLen)},
	{name: "hstrlen", run: data(keyspace.CmdHStrLen)},
	{name: "hkeys", run: data(keyspace.CmdHKeys)},
	{name: "hvals", run: data(keyspace.CmdHVals)},
	{name: "hgetall", run: data(keyspace.CmdHGetAll)},
	{name: "hincrby", run: data(keyspace.CmdHIncrBy)},
	{name: "hincrbyfloat", run: data(keyspace.CmdHIncrByFloat)},
	{name: "hscan", run: data(keyspace.CmdHScan)},
	{name: "hrandfield", run: data(keyspace.CmdHRandField)},

	// Lists (keyspace/list.go).
	{name: "lpush", run: data(keyspace.CmdLPush)},
	{name: "rpush", run: data(keyspace.CmdRPush)},
	{name: "lpushx", run: data(keyspace.CmdLPushX)},
	{name: "rpushx", run: data(keyspace.CmdRPushX)},
	{name: "linsert", run: data(keyspace.CmdLInsert)},
	{name: "llen", run: data(keyspace.CmdLLen)},
	{name: "lindex", run: data(keyspace.CmdLIndex)},
	{name: "lset", run: data(keyspace.CmdLSet)},
	{name: "lrange", run: data(keyspace.CmdLRange)},
	{name: "lpop", run: data(keyspace.CmdLPop)},
	{name: "rpop", run: data(keyspace.CmdRPop)},
	{name: "lmpop", run: data(keyspace.CmdLMPop)},
	{name: "ltrim", run: data(keyspace.CmdLTrim)},
	{name: "lpos", run: data(keyspace.CmdLPos)},
	{name: "lrem", run: data(keyspace.CmdLRem)},
	{name: "lmove", run: data(keyspace.CmdLMove)},
	{name: "rpoplpush", run: data(keyspace.CmdRPopLPush)},

	// Sets (keyspace/set.go).
	{name: "sadd", run: data(keyspace.CmdSAdd)},
	{name: "srem", run: data(keyspace.CmdSRem)},
	{name: "smove", run: data(keyspace.CmdSMove)},
	{name: "sismember", run: data(keyspace.CmdSIsMember)},
	{name: "smismember", run: data(keyspace.CmdSMIsMember)},
	{name: "scard", run: data(keyspace.CmdSCard)},
	{name: "smembers", run: data(keyspace.CmdSMembers)},
	{name: "spop", run: data(keyspace.CmdSPop)},
	{name: "srandmember", run: data(keyspace.CmdSRandMember)},
	{name: "sunion", run: data(keyspace.CmdSUnion)},
	{name: "sinter", run: data(keyspace.CmdSInter)},
	{name: "sdiff", run: data(keyspace.CmdSDiff)},
	{name: "sunionstore", run: data(keyspace.CmdSUnionStore)},
	{name: "sinterstore", run: data(keyspace.CmdSInterStore)},
	{name: "sdiffstore", run: data(keyspace.CmdSDiffStore)},
	{name: "sintercard", run: data(keyspace.CmdSInterCard)},
	{name: "sscan", run: data(keyspace.CmdSScan)},

	// Sorted sets (keyspace/zset.go).
	{name: "zadd", run: data(keyspace.CmdZAdd)},
	{name: "zincrby", run: data(keyspace.CmdZIncrBy)},
	{name: "zrem", run: data(keyspace.CmdZRem)},
	{name: "zcard", run: data(keyspace.CmdZCard)},
	{name: "zscore", run: data(keyspace.CmdZScore)},
	{name: "zmscore", run: data(keyspace.CmdZMScore)},
	{name: "zrank", run: data(keyspace.CmdZRank)},
	{name: "zrevrank", run: data(keyspace.CmdZRevRank)},
	{name: "zcount", run: data(keyspace.CmdZCount)},
	{name: "zlexcount", run: data(keyspace.CmdZLexCount)},
	{name: "zrange", run: data(keyspace.CmdZRange)},
	{name: "zrangestore", run: data(keyspace.CmdZRangeStore)},
	{name: "zrevrange", run: data(keyspace.CmdZRevRange)},
	{name: "zrangebyscore", run: data(keyspace.CmdZRangeByScore)},
	{name: "zrevrangebyscore", run: data(keyspace.CmdZRevRangeByScore)},
	{name: "zrangebylex", run: data(keyspace.CmdZRangeByLex)},
	{name: "zrevrangebylex", run: data(keyspace.CmdZRevRangeByLex)},
	{name: "zremrangebyscore", run: data(keyspace.CmdZRemRangeByScore)},
	{name: "zremrangebyrank", run: data(keyspace.CmdZRemRangeByRank)},
	{name: "zremrangebylex", run: data(keyspace.CmdZRemRangeByLex)},
	{name: "zpopmin", run: data(keyspace.CmdZPopMin)},
	{name: "zpopmax", run: data(keyspace.CmdZPopMax)},
	{name: "zmpop", run: data(keyspace.CmdZMPop)},
	{name: "zunionstore", run: data(keyspace.CmdZUnionStore)},
	{name: "zinterstore", run: data(keyspace.CmdZInterStore)},
	{name: "zdiffstore", run: data(keyspace.CmdZDiffStore)},
	{name: "zunion", run: data(keyspace.CmdZUnion)},
	{name: "zinter", run: data(keyspace.CmdZInter)},
	{name: "zdiff", run: data(keyspace.CmdZDiff)},
	{name: "zintercard", run: data(keyspace.CmdZInterCard)},
	{name: "zscan", run: data(keyspace.CmdZScan)},
	{name: "zrandmember", run: data(keyspace.CmdZRandMember)},

	// Scripting (scripting.go). EVAL is skip_monitor: eval() feeds
	// MONITOR itself, before the script runs, so the script's own commands
	// ("[0 lua] ...") follow it, as eval.c:evalCommand does.
	{name: "eval", run: cmdEval},
	{name: "evalsha", run: cmdEvalSHA},
	{name: "eval_ro", run: cmdEvalRO},
	{name: "evalsha_ro", run: cmdEvalSHARO},
	{name: "script", subs: []*command{
		{name: "load", run: cmdScriptLoad},
		{name: "exists", run: cmdScriptExists},
		{name: "flush", run: cmdScriptFlush},
		{name: "kill", run: cmdScriptKill},
		{name: "debug", run: cmdScriptDebug},
		{name: "help", run: cmdScriptHelp},
	}},

	// Functions (function.go). FCALL is skip_monitor: fcall() feeds
	// MONITOR itself, before the function runs, as EVAL does.
	{name: "fcall", run: cmdFCall},
	{name: "fcall_ro", run: cmdFCallRO},
	{name: "function", subs: []*command{
		{name: "load", run: cmdFunctionLoad},
		{name: "delete", run: cmdFunctionDelete},
		{name: "flush", run: cmdFunctionFlush},
		{name: "list", run: cmdFunctionList},
		{name: "stats", run: cmdFunctionStats},
		{name: "kill", run: cmdFunctionKill},
		{name: "dump", run: cmdFunctionDump},
		{name: "restore", run: cmdFunctionRestore},
		{name: "help", run: cmdFunctionHelp},
	}},

	// Transactions (multi.go).
	{name: "multi", run: cmdMulti},
	{name: "exec", run: cmdExec},
	{name: "discard", run: cmdDiscard},
	{name: "watch", run: cmdWatch},
	{name: "unwatch", run: cmdUnwatch},

	// Connection (conncmds.go).
	{name: "ping", run: cmdPing},
	{name: "echo", run: cmdEcho},
	{name: "auth", run: cmdAuth},
	{name: "hello", run: cmdHello},
	{name: "select", run: cmdSelect},
	{name: "quit", run: cmdQuit},
	{name: "reset", run: cmdReset},
	{name: "client", subs: []*command{
		{name: "id", run: cmdClientID},
		{name: "getname", run: cmdClientGetName},
		{name: "setname", run: cmdClientSetName},
		{name: "list", run: cmdClientList},
		{name: "info", run: cmdClientInfo},
		{name: "unblock", run: cmdClientUnblock},
		{name: "no-evict", run: cmdClientNoEvict},
		{name: "kill", run: cmdClientKill},
		{name: "pause", run: cmdClientPause},
		{name: "unpause", run: cmdClientUnpause},
		{name: "reply", run: cmdClientReply},
		{name: "getredir", run: cmdClientGetRedir},
		{name: "tracking", run: cmdClientTracking},
		{name: "caching", run: cmdClientCaching},
		{name: "trackinginfo", run: cmdClientTrackingInfo},
		{name: "help", run: cmdClientHelp},
	}},

	// ACL users (acl.go).
	{name: "acl", subs: []*command{
		{name: "setuser", run: cmdACLSetUser},
		{name: "getuser", run: cmdACLGetUser},
		{name: "deluser", run: cmdACLDelUser},
		{name: "list", run: cmdACLList},
		{name: "users", run: cmdACLList},
		{name: "whoami", run: cmdACLWhoAmI},
		{name: "cat", run: cmdACLCat},
		{name: "genpass", run: cmdACLGenPass},
		{name: "dryrun", run: cmdACLDryRun},
		{name: "log", run: cmdACLLog},
		{name: "save", run: cmdACLSave},
		{name: "load", run: cmdACLLoad},
		{name: "help", run: cmdACLHelp},
	}},

	// Blocking pops (blocking.go).
	{name: "blpop", run: cmdBLPop},
	{name: "brpop", run: cmdBRPop},
	{name: "blmpop", run: cmdBLMPop},
	{name: "blmove", run: cmdBLMove},
	{name: "brpoplpush", run: cmdBRPopLPush},
	{name: "bzpopmin", run: cmdBZPopMin},
	{name: "bzpopmax", run: cmdBZPopMax},
	{name: "bzmpop", run: cmdBZMPop},

	// Pub/sub (pubsub.go).
	{name: "subscribe", run: cmdSubscribe},
	{name: "unsubscribe", run: cmdUnsubscribe},
	{name: "psubscribe", run: cmdPSubscribe},
	{name: "punsubscribe", run: cmdPUnsubscribe},
	{name: "ssubscribe", run: cmdSSubscribe},
	{name: "sunsubscribe", run: cmdSUnsubscribe},
	{name: "publish", run: cmdPublish},
	{name: "spublish", run: cmdSPublish},
	{name: "pubsub", subs: []*command{
		{name: "channels", run: cmdPubsubChannels},
		{name: "shardchannels", run: cmdPubsubChannels},
		{name: "numsub", run: cmdPubsubNumSub},
		{name: "shardnumsub", run: cmdPubsubNumSub},
		{name: "numpat", run: cmdPubsubNumPat},
		{name: "help", run: cmdPubsubHelp},
	}},

	// Server (servercmds.go, monitor.go).
	{name: "info", run: cmdInfo},
	{name: "time", run: cmdTime},
	{name: "shutdown", run: cmdShutdown},
	// DEBUG is always refused (enable-debug-command no): dispatch answers
	// it before it could run (protected).
	{name: "debug", run: func(*call, [][]byte) error { return errDebugDisabled }},
	{name: "lastsave", run: cmdLastSave},
	{name: "save", run: cmdSave},
	{name: "bgsave", run: cmdBgSave},
	{name: "bgrewriteaof", run: cmdBgRewriteAof},
	{name: "monitor", run: cmdMonitor},
	{name: "config", subs: []*command{
		{name: "get", run: cmdConfigGet},
		{name: "set", run: cmdConfigSet},
		{name: "resetstat", run: cmdConfigResetStat},
		{name: "rewrite", run: cmdConfigRewrite},
		{name: "help", run: cmdConfigHelp},
	}},
	{name: "memory", subs: []*command{
		{name: "usage", run: cmdMemoryUsage},
		{name: "purge", run: cmdMemoryPurge},
		{name: "stats", run: cmdMemoryStats},
		{name: "doctor", run: cmdMemoryDoctor},
		{name: "malloc-stats", run: cmdMemoryMallocStats},
		{name: "help", run: cmdMemoryHelp},
	}},
	{name: "object", subs: []*command{
		{name: "encoding", run: cmdObjectEncoding},
		{name: "freq", run: cmdObjectFreq},
		{name: "idletime", run: cmdObjectIdletime},
		{name: "refcount", run: cmdObjectRefcount},
		{name: "help", run: cmdObjectHelp},
	}},
	{name: "latency", subs: []*command{
		{name: "latest", run: cmdLatencyLatest},
		{name: "history", run: cmdLatencyHistory},
		{name: "reset", run: cmdLatencyReset},
		{name: "doctor", run: cmdLatencyDoctor},
		{name: "graph", run: cmdLatencyGraph},
		{name: "histogram", run: cmdLatencyHistogram},
		{name: "help", run: cmdLatencyHelp},
	}},
	{name: "slowlog", subs: []*command{
		{name: "get", run: cmdSlowlogGet},
		{name: "len", run: cmdSlowlogLen},
		{name: "reset", run: cmdSlowlogReset},
		{name: "help", run: cmdSlowlogHelp},
	}},
	// A bare COMMAND lists every command: Redis gives this container
	// arity -1, so it has a run of its own.
	{name: "command", run: cmdCommandAll, subs: []*command{
		{name: "count", run: cmdCommandCount},
		{name: "info", run: cmdCommandInfo},
		{name: "docs", run: cmdCommandDocs},
		{name: "list", run: cmdCommandList},
		{name: "getkeys", run: cmdCommandGetKeys},
		{name: "getkeysandflags", run: cmdCommandGetKeysAndFlags},
		{name: "help", run: cmdCommandHelp},
	}},

	// Bitmaps (keyspace/bitops.go).
	{name: "setbit", run: data(keyspace.CmdSetBit)},
	{name: "getbit", run: data(keyspace.CmdGetBit)},
	{name: "bitcount", run: data(keyspace.CmdBitCount)},
	{name: "bitpos", run: data(keyspace.CmdBitPos)},
	{name: "bitop", run: data(keyspace.CmdBitOp)},
	{name: "bitfield", run: data(keyspace.CmdBitField)},
	{name: "bitfield_ro", run: data(keyspace.CmdBitFieldRO)},

	// LCS and SUBSTR (keyspace/lcs.go, keyspace/strings.go).
	{name: "lcs", run: data(keyspace.CmdLCS)},
	{name: "substr", run: data(keyspace.CmdGetRange)},

	// What a standalone node answers about replication, cluster mode and
	// modules (standalone.go).
	{name: "wait", run: cmdWait},
	{name: "role", run: cmdRole},
	{name: "replicaof", run: cmdReplicaOf},
	{name: "slaveof", run: cmdReplicaOf},
	{name: "failover", run: cmdFailover},
	{name: "cluster", subs: clusterSubs()},
	{name: "readonly", run: cmdClusterDisabled},
	{name: "readwrite", run: cmdClusterDisabled},
	{name: "asking", run: cmdClusterDisabled},
	{name: "replconf", run: cmdReplconf}, // replicas.go
	{name: "sync", run: cmdSync},
	{name: "psync", run: cmdSync},
	{name: "module", subs: []*command{
		{name: "list", run: cmdModuleList},
		{name: "load", run: cmdModuleRefused},
		{name: "loadex", run: cmdModuleRefused},
		{name: "unload", run: cmdModuleRefused},
		{name: "help", run: cmdModuleHelp},
	}},
	{name: "lolwut", run: cmdLolwut},

	// HyperLogLog (keyspace/hyperloglog.go).
	{name: "pfadd", run: data(keyspace.CmdPFAdd)},
	{name: "pfcount", run: data(keyspace.CmdPFCount)},
	{name: "pfmerge", run: data(keyspace.CmdPFMerge)},
	{name: "pfdebug", run: data(keyspace.CmdPFDebug)},
	{name: "pfselftest", run: data(keyspace.CmdPFSelfTest)},

	// Geo (keyspace/geo.go).
	{name: "geoadd", run: data(keyspace.CmdGeoAdd)},
	{name: "geohash", run: data(keyspace.CmdGeoHash)},
	{name: "geopos", run: data(keyspace.CmdGeoPos)},
	{name: "geodist", run: data(keyspace.CmdGeoDist)},
	{name: "georadius", run: data(keyspace.CmdGeoRadius)},
	{name: "georadius_ro", run: data(keyspace.CmdGeoRadiusRO)},
	{name: "georadiusbymember", run: data(keyspace.CmdGeoRadiusByMember)},
	{name: "georadiusbymember_ro", run: data(keyspace.CmdGeoRadiusByMemberRO)},
	{name: "geosearch", run: data(keyspace.CmdGeoSearch)},
	{name: "geosearchstore", run: data(keyspace.CmdGeoSearchStore)},
}

// commands indexes commandTable by lower-case name; each container's
// subs by subcommand name. (Built in init: the table's own commands, such
// as COMMAND, read it.)
var commands map[string]*command

func init() {
	commands = index(commandTable, commandSpecs)
	numberCommands(commandTable)
	buildACLTable()
}

// The flags minilock acts on, by the short names its code reads.
type cmdFlags = cmdspec.Flags

const (
	fWrite        = cmdspec.Write
	fReadOnly     = cmdspec.ReadOnly
	fDenyOOM      = cmdspec.DenyOOM
	fFast         = cmdspec.Fast
	fNoScript     = cmdspec.NoScript
	fNoAuth       = cmdspec.NoAuth
	fAllowBusy    = cmdspec.AllowBusy
	fNoMulti      = cmdspec.NoMulti
	fMayReplicate = cmdspec.MayReplicate
	// fSkipMonitor is two of Redis's flags: call() feeds MONITOR neither
	// a skip_monitor command nor an admin one.
	fSkipMonitor = cmdspec.SkipMonitor | cmdspec.Admin
)

// index builds the lookup map of a table and gives each row its metadata
// from specs. It panics on a name that is there twice (two rows for one
// command would leave one of them dead) and on a row specs do not know.
func index(table []*command, specs []*cmdspec.Command) map[string]*command {
	byName := make(map[string]*cmdspec.Command, len(specs))
	for _, sp := range specs {
		byName[sp.Name] = sp
	}
	m := make(map[string]*command, len(table))
	for _, cmd := range table {
		if _, dup := m[cmd.name]; dup {
			panic(fmt.Sprintf("command table: %q is listed twice", cmd.name))
		}
		m[cmd.name] = cmd
		cmd.setSpec(byName[cmd.name])
		if cmd.subs == nil {
			continue
		}
		cmd.subIndex = make(map[string]*command, len(cmd.subs))
		for _, sub := range cmd.subs {
			if _, dup := cmd.subIndex[sub.name]; dup {
				panic(fmt.Sprintf("command table: %s|%s is listed twice", cmd.name, sub.name))
			}
			cmd.subIndex[sub.name] = sub
			sub.name = cmd.name + "|" + sub.name
			sub.setSpec(findSpec(cmd.spec.Subcommands, sub.name))
		}
	}
	return m
}

// setSpec gives cmd its metadata; dispatch reads arity and flags from
// the command itself, one load away.
func (cmd *command) setSpec(sp *cmdspec.Command) {
	if sp == nil {
		panic(fmt.Sprintf("command table: no Redis 7.0.15 metadata for %q (run go generate in server/)", cmd.name))
	}
	cmd.spec, cmd.arity, cmd.flags = sp, sp.Arity, sp.Flags
}

// findSpec finds name among specs (a container's subcommands).
func findSpec(specs []*cmdspec.Command, name string) *cmdspec.Command {
	for _, sp := range specs {
		if sp.Name == name {
			return sp
		}
	}
	return nil
}

// cmdSort and cmdSortRO run SORT and SORT_RO, which sort a set a script
// asks for in BY-constant order (keyspace/sort.go).
func cmdSort(x *call, args [][]byte) error {
	return keyspace.CmdSort(x.s.ks, &x.Ctx, args, x.script != nil)
}

func cmdSortRO(x *call, args [][]byte) error {
	return keyspace.CmdSortRO(x.s.ks, &x.Ctx, args, x.script != nil)
}

// data adapts a keyspace command to the table.
func data(run func(k *keyspace.Keyspace, c *keyspace.Ctx, args [][]byte) error) func(x *call, args [][]byte) error {
	return func(x *call, args [][]byte) error { return run(x.s.ks, &x.Ctx, args) }
}

// arityOK reports whether n arguments (the name included) suit cmd.
func arityOK(cmd *command, n int) bool {
	if cmd.arity >= 0 {
		return n == cmd.arity
	}
	return n >= -cmd.arity
}
