package server

import (
	"fmt"

	"github.com/minilock/minilock/keyspace"
)

// The command table: every command minilock serves, one row each, grouped
// as Redis's commands.def groups them. A row names the command, its arity
// (N: exactly N arguments counting the name; -N: at least N), its flags and
// its implementation; the data commands are implemented in keyspace, one
// file per group, the rest here, one file per group too. A container
// (CLIENT, CONFIG ...) lists its subcommands, each named "parent|sub".
//
// Every path to a command goes through this table and its one arity check
// (arityOK): a client's request, a script's redis.call, a queued MULTI.
var commandTable = []*command{
	// Strings (keyspace/strings.go).
	{name: "set", arity: -3, flags: fWrite | fDenyOOM, run: data(keyspace.CmdSet)},
	{name: "setnx", arity: 3, flags: fWrite | fDenyOOM | fFast, run: data(keyspace.CmdSetNX)},
	{name: "setex", arity: 4, flags: fWrite | fDenyOOM, run: data(keyspace.CmdSetEX)},
	{name: "psetex", arity: 4, flags: fWrite | fDenyOOM, run: data(keyspace.CmdPSetEX)},
	{name: "get", arity: 2, flags: fReadOnly | fFast, run: data(keyspace.CmdGet)},
	{name: "getset", arity: 3, flags: fWrite | fDenyOOM | fFast, run: data(keyspace.CmdGetSet)},
	{name: "getdel", arity: 2, flags: fWrite | fFast, run: data(keyspace.CmdGetDel)},
	{name: "getex", arity: -2, flags: fWrite | fFast, run: data(keyspace.CmdGetEX)},
	{name: "getrange", arity: 4, flags: fReadOnly, run: data(keyspace.CmdGetRange)},
	{name: "strlen", arity: 2, flags: fReadOnly | fFast, run: data(keyspace.CmdStrLen)},
	{name: "setrange", arity: 4, flags: fWrite | fDenyOOM, run: data(keyspace.CmdSetRange)},
	{name: "incrbyfloat", arity: 3, flags: fWrite | fDenyOOM | fFast, run: data(keyspace.CmdIncrByFloat)},
	{name: "append", arity: 3, flags: fWrite | fDenyOOM | fFast, run: data(keyspace.CmdAppend)},
	{name: "mget", arity: -2, flags: fReadOnly | fFast, run: data(keyspace.CmdMGet)},
	{name: "mset", arity: -3, flags: fWrite | fDenyOOM, run: data(keyspace.CmdMSet)},
	{name: "msetnx", arity: -3, flags: fWrite | fDenyOOM, run: data(keyspace.CmdMSetNX)},
	{name: "incr", arity: 2, flags: fWrite | fDenyOOM | fFast, run: data(keyspace.CmdIncr)},
	{name: "decr", arity: 2, flags: fWrite | fDenyOOM | fFast, run: data(keyspace.CmdDecr)},
	{name: "incrby", arity: 3, flags: fWrite | fDenyOOM | fFast, run: data(keyspace.CmdIncrBy)},
	{name: "decrby", arity: 3, flags: fWrite | fDenyOOM | fFast, run: data(keyspace.CmdDecrBy)},

	// Keys (keyspace/keys.go).
	{name: "del", arity: -2, flags: fWrite, run: data(keyspace.CmdDel)},
	{name: "unlink", arity: -2, flags: fWrite | fFast, run: data(keyspace.CmdDel)},
	{name: "exists", arity: -2, flags: fReadOnly | fFast, run: data(keyspace.CmdExists)},
	{name: "touch", arity: -2, flags: fReadOnly | fFast, run: data(keyspace.CmdExists)},
	{name: "type", arity: 2, flags: fReadOnly | fFast, run: data(keyspace.CmdType)},
	{name: "keys", arity: 2, flags: fReadOnly, run: data(keyspace.CmdKeys)},
	{name: "scan", arity: -2, flags: fReadOnly, run: data(keyspace.CmdScan)},
	{name: "dbsize", arity: 1, flags: fReadOnly | fFast, run: data(keyspace.CmdDBSize)},
	{name: "flushdb", arity: -1, flags: fWrite, run: data(keyspace.CmdFlushDB)},
	{name: "flushall", arity: -1, flags: fWrite, run: data(keyspace.CmdFlushAll)},
	{name: "rename", arity: 3, flags: fWrite, run: data(keyspace.CmdRename)},
	{name: "renamenx", arity: 3, flags: fWrite | fFast, run: data(keyspace.CmdRenameNX)},
	{name: "copy", arity: -3, flags: fWrite | fDenyOOM, run: data(keyspace.CmdCopy)},
	{name: "move", arity: 3, flags: fWrite | fFast, run: data(keyspace.CmdMove)},
	{name: "randomkey", arity: 1, flags: fReadOnly, run: data(keyspace.CmdRandomKey)},

	// Expiry (keyspace/expire.go).
	{name: "expire", arity: -3, flags: fWrite | fFast, run: data(keyspace.CmdExpire)},
	{name: "pexpire", arity: -3, flags: fWrite | fFast, run: data(keyspace.CmdPExpire)},
	{name: "expireat", arity: -3, flags: fWrite | fFast, run: data(keyspace.CmdExpireAt)},
	{name: "pexpireat", arity: -3, flags: fWrite | fFast, run: data(keyspace.CmdPExpireAt)},
	{name: "ttl", arity: 2, flags: fReadOnly | fFast, run: data(keyspace.CmdTTL)},
	{name: "pttl", arity: 2, flags: fReadOnly | fFast, run: data(keyspace.CmdPTTL)},
	{name: "expiretime", arity: 2, flags: fReadOnly | fFast, run: data(keyspace.CmdExpireTime)},
	{name: "pexpiretime", arity: 2, flags: fReadOnly | fFast, run: data(keyspace.CmdPExpireTime)},
	{name: "persist", arity: 2, flags: fWrite | fFast, run: data(keyspace.CmdPersist)},

	// Hashes (keyspace/hash.go).
	{name: "hset", arity: -4, flags: fWrite | fDenyOOM | fFast, run: data(keyspace.CmdHSet)},
	{name: "hmset", arity: -4, flags: fWrite | fDenyOOM | fFast, run: data(keyspace.CmdHSet)},
	{name: "hsetnx", arity: 4, flags: fWrite | fDenyOOM | fFast, run: data(keyspace.CmdHSetNX)},
	{name: "hget", arity: 3, flags: fReadOnly | fFast, run: data(keyspace.CmdHGet)},
	{name: "hmget", arity: -3, flags: fReadOnly | fFast, run: data(keyspace.CmdHMGet)},
	{name: "hdel", arity: -3, flags: fWrite | fFast, run: data(keyspace.CmdHDel)},
	{name: "hexists", arity: 3, flags: fReadOnly | fFast, run: data(keyspace.CmdHExists)},
	{name: "hlen", arity: 2, flags: fReadOnly | fFast, run: data(keyspace.CmdHLen)},
	{name: "hstrlen", arity: 3, flags: fReadOnly | fFast, run: data(keyspace.CmdHStrLen)},
	{name: "hkeys", arity: 2, flags: fReadOnly, run: data(keyspace.CmdHKeys)},
	{name: "hvals", arity: 2, flags: fReadOnly, run: data(keyspace.CmdHVals)},
	{name: "hgetall", arity: 2, flags: fReadOnly, run: data(keyspace.CmdHGetAll)},
	{name: "hincrby", arity: 4, flags: fWrite | fDenyOOM | fFast, run: data(keyspace.CmdHIncrBy)},
	{name: "hincrbyfloat", arity: 4, flags: fWrite | fDenyOOM | fFast, run: data(keyspace.CmdHIncrByFloat)},
	{name: "hscan", arity: -3, flags: fReadOnly, run: data(keyspace.CmdHScan)},
	{name: "hrandfield", arity: -2, flags: fReadOnly, run: data(keyspace.CmdHRandField)},

	// Lists (keyspace/list.go).
	{name: "lpush", arity: -3, flags: fWrite | fDenyOOM | fFast, run: data(keyspace.CmdLPush)},
	{name: "rpush", arity: -3, flags: fWrite | fDenyOOM | fFast, run: data(keyspace.CmdRPush)},
	{name: "lpushx", arity: -3, flags: fWrite | fDenyOOM | fFast, run: data(keyspace.CmdLPushX)},
	{name: "rpushx", arity: -3, flags: fWrite | fDenyOOM | fFast, run: data(keyspace.CmdRPushX)},
	{name: "linsert", arity: 5, flags: fWrite | fDenyOOM, run: data(keyspace.CmdLInsert)},
	{name: "llen", arity: 2, flags: fReadOnly | fFast, run: data(keyspace.CmdLLen)},
	{name: "lindex", arity: 3, flags: fReadOnly, run: data(keyspace.CmdLIndex)},
	{name: "lset", arity: 4, flags: fWrite | fDenyOOM, run: data(keyspace.CmdLSet)},
	{name: "lrange", arity: 4, flags: fReadOnly, run: data(keyspace.CmdLRange)},
	{name: "lpop", arity: -2, flags: fWrite | fFast, run: data(keyspace.CmdLPop)},
	{name: "rpop", arity: -2, flags: fWrite | fFast, run: data(keyspace.CmdRPop)},
	{name: "lmpop", arity: -4, flags: fWrite, run: data(keyspace.CmdLMPop)},
	{name: "ltrim", arity: 4, flags: fWrite, run: data(keyspace.CmdLTrim)},
	{name: "lpos", arity: -3, flags: fReadOnly, run: data(keyspace.CmdLPos)},
	{name: "lrem", arity: 4, flags: fWrite, run: data(keyspace.CmdLRem)},
	{name: "lmove", arity: 5, flags: fWrite | fDenyOOM, run: data(keyspace.CmdLMove)},
	{name: "rpoplpush", arity: 3, flags: fWrite | fDenyOOM, run: data(keyspace.CmdRPopLPush)},

	// Sets (keyspace/set.go).
	{name: "sadd", arity: -3, flags: fWrite | fDenyOOM | fFast, run: data(keyspace.CmdSAdd)},
	{name: "srem", arity: -3, flags: fWrite | fFast, run: data(keyspace.CmdSRem)},
	{name: "smove", arity: 4, flags: fWrite | fFast, run: data(keyspace.CmdSMove)},
	{name: "sismember", arity: 3, flags: fReadOnly | fFast, run: data(keyspace.CmdSIsMember)},
	{name: "smismember", arity: -3, flags: fReadOnly | fFast, run: data(keyspace.CmdSMIsMember)},
	{name: "scard", arity: 2, flags: fReadOnly | fFast, run: data(keyspace.CmdSCard)},
	{name: "smembers", arity: 2, flags: fReadOnly, run: data(keyspace.CmdSMembers)},
	{name: "spop", arity: -2, flags: fWrite | fFast, run: data(keyspace.CmdSPop)},
	{name: "srandmember", arity: -2, flags: fReadOnly, run: data(keyspace.CmdSRandMember)},
	{name: "sunion", arity: -2, flags: fReadOnly, run: data(keyspace.CmdSUnion)},
	{name: "sinter", arity: -2, flags: fReadOnly, run: data(keyspace.CmdSInter)},
	{name: "sdiff", arity: -2, flags: fReadOnly, run: data(keyspace.CmdSDiff)},
	{name: "sunionstore", arity: -3, flags: fWrite | fDenyOOM, run: data(keyspace.CmdSUnionStore)},
	{name: "sinterstore", arity: -3, flags: fWrite | fDenyOOM, run: data(keyspace.CmdSInterStore)},
	{name: "sdiffstore", arity: -3, flags: fWrite | fDenyOOM, run: data(keyspace.CmdSDiffStore)},
	{name: "sintercard", arity: -3, flags: fReadOnly, run: data(keyspace.CmdSInterCard)},
	{name: "sscan", arity: -3, flags: fReadOnly, run: data(keyspace.CmdSScan)},

	// Sorted sets (keyspace/zset.go).
	{name: "zadd", arity: -4, flags: fWrite | fDenyOOM | fFast, run: data(keyspace.CmdZAdd)},
	{name: "zincrby", arity: 4, flags: fWrite | fDenyOOM | fFast, run: data(keyspace.CmdZIncrBy)},
	{name: "zrem", arity: -3, flags: fWrite | fFast, run: data(keyspace.CmdZRem)},
	{name: "zcard", arity: 2, flags: fReadOnly | fFast, run: data(keyspace.CmdZCard)},
	{name: "zscore", arity: 3, flags: fReadOnly | fFast, run: data(keyspace.CmdZScore)},
	{name: "zmscore", arity: -3, flags: fReadOnly | fFast, run: data(keyspace.CmdZMScore)},
	{name: "zrank", arity: 3, flags: fReadOnly | fFast, run: data(keyspace.CmdZRank)},
	{name: "zrevrank", arity: 3, flags: fReadOnly | fFast, run: data(keyspace.CmdZRevRank)},
	{name: "zcount", arity: 4, flags: fReadOnly | fFast, run: data(keyspace.CmdZCount)},
	{name: "zlexcount", arity: 4, flags: fReadOnly | fFast, run: data(keyspace.CmdZLexCount)},
	{name: "zrange", arity: -4, flags: fReadOnly, run: data(keyspace.CmdZRange)},
	{name: "zrangestore", arity: -5, flags: fWrite | fDenyOOM, run: data(keyspace.CmdZRangeStore)},
	{name: "zrevrange", arity: -4, flags: fReadOnly, run: data(keyspace.CmdZRevRange)},
	{name: "zrangebyscore", arity: -4, flags: fReadOnly, run: data(keyspace.CmdZRangeByScore)},
	{name: "zrevrangebyscore", arity: -4, flags: fReadOnly, run: data(keyspace.CmdZRevRangeByScore)},
	{name: "zrangebylex", arity: -4, flags: fReadOnly, run: data(keyspace.CmdZRangeByLex)},
	{name: "zrevrangebylex", arity: -4, flags: fReadOnly, run: data(keyspace.CmdZRevRangeByLex)},
	{name: "zremrangebyscore", arity: 4, flags: fWrite, run: data(keyspace.CmdZRemRangeByScore)},
	{name: "zremrangebyrank", arity: 4, flags: fWrite, run: data(keyspace.CmdZRemRangeByRank)},
	{name: "zremrangebylex", arity: 4, flags: fWrite, run: data(keyspace.CmdZRemRangeByLex)},
	{name: "zpopmin", arity: -2, flags: fWrite | fFast, run: data(keyspace.CmdZPopMin)},
	{name: "zpopmax", arity: -2, flags: fWrite | fFast, run: data(keyspace.CmdZPopMax)},
	{name: "zmpop", arity: -4, flags: fWrite, run: data(keyspace.CmdZMPop)},
	{name: "zunionstore", arity: -4, flags: fWrite | fDenyOOM, run: data(keyspace.CmdZUnionStore)},
	{name: "zinterstore", arity: -4, flags: fWrite | fDenyOOM, run: data(keyspace.CmdZInterStore)},
	{name: "zdiffstore", arity: -4, flags: fWrite | fDenyOOM, run: data(keyspace.CmdZDiffStore)},
	{name: "zunion", arity: -3, flags: fReadOnly, run: data(keyspace.CmdZUnion)},
	{name: "zinter", arity: -3, flags: fReadOnly, run: data(keyspace.CmdZInter)},
	{name: "zdiff", arity: -3, flags: fReadOnly, run: data(keyspace.CmdZDiff)},
	{name: "zintercard", arity: -3, flags: fReadOnly, run: data(keyspace.CmdZInterCard)},
	{name: "zscan", arity: -3, flags: fReadOnly, run: data(keyspace.CmdZScan)},
	{name: "zrandmember", arity: -2, flags: fReadOnly, run: data(keyspace.CmdZRandMember)},

	// Scripting (scripting.go). skip_monitor: eval() feeds MONITOR
	// itself, before the script runs, so the script's own commands
	// ("[0 lua] ...") follow it, as eval.c:evalCommand does.
	{name: "eval", arity: -3, flags: fNoScript | fSkipMonitor | fMayReplicate, run: cmdEval},
	{name: "evalsha", arity: -3, flags: fNoScript | fSkipMonitor | fMayReplicate, run: cmdEvalSHA},
	{name: "eval_ro", arity: -3, flags: fNoScript | fReadOnly | fSkipMonitor, run: cmdEvalRO},
	{name: "evalsha_ro", arity: -3, flags: fNoScript | fReadOnly | fSkipMonitor, run: cmdEvalSHARO},
	{name: "script", flags: fNoScript, subs: []*command{
		{name: "load", arity: 3, flags: fNoScript, run: cmdScriptLoad},
		{name: "exists", arity: -3, flags: fNoScript, run: cmdScriptExists},
		{name: "flush", arity: -2, flags: fNoScript, run: cmdScriptFlush},
		{name: "kill", arity: 2, flags: fNoScript | fAllowBusy, run: cmdScriptKill},
		{name: "debug", arity: 3, flags: fNoScript, run: cmdScriptDebug},
		{name: "help", arity: 2, run: cmdScriptHelp},
	}},

	// Functions (function.go). skip_monitor: fcall() feeds MONITOR
	// itself, before the function runs, as EVAL does.
	{name: "fcall", arity: -3, flags: fNoScript | fSkipMonitor | fMayReplicate, run: cmdFCall},
	{name: "fcall_ro", arity: -3, flags: fNoScript | fReadOnly | fSkipMonitor, run: cmdFCallRO},
	{name: "function", flags: fNoScript, subs: []*command{
		{name: "load", arity: -3, flags: fNoScript | fWrite | fDenyOOM, run: cmdFunctionLoad},
		{name: "delete", arity: 3, flags: fNoScript | fWrite, run: cmdFunctionDelete},
		{name: "flush", arity: -2, flags: fNoScript | fWrite, run: cmdFunctionFlush},
		{name: "list", arity: -2, flags: fNoScript, run: cmdFunctionList},
		{name: "stats", arity: 2, flags: fNoScript | fAllowBusy, run: cmdFunctionStats},
		{name: "kill", arity: 2, flags: fNoScript | fAllowBusy, run: cmdFunctionKill},
		{name: "dump", arity: 2, flags: fNoScript, run: cmdFunctionDump},
		{name: "restore", arity: -3, flags: fNoScript | fWrite | fDenyOOM, run: cmdFunctionRestore},
		{name: "help", arity: 2, run: cmdFunctionHelp},
	}},

	// Transactions (multi.go).
	{name: "multi", arity: 1, flags: fNoScript | fFast | fAllowBusy, run: cmdMulti},
	{name: "exec", arity: 1, flags: fNoScript, run: cmdExec},
	{name: "discard", arity: 1, flags: fNoScript | fFast | fAllowBusy, run: cmdDiscard},
	{name: "watch", arity: -2, flags: fNoScript | fFast | fAllowBusy, run: cmdWatch},
	{name: "unwatch", arity: 1, flags: fNoScript | fFast | fAllowBusy, run: cmdUnwatch},

	// Connection (conncmds.go).
	{name: "ping", arity: -1, flags: fFast, run: cmdPing},
	{name: "echo", arity: 2, flags: fFast, run: cmdEcho},
	{name: "auth", arity: -2, flags: fNoScript | fNoAuth | fFast | fAllowBusy, run: cmdAuth},
	{name: "hello", arity: -1, flags: fNoScript | fNoAuth | fFast | fAllowBusy, run: cmdHello},
	{name: "select", arity: 2, flags: fFast, run: cmdSelect},
	{name: "quit", arity: -1, flags: fNoScript | fNoAuth | fFast | fAllowBusy, run: cmdQuit},
	{name: "reset", arity: 1, flags: fNoScript | fNoAuth | fFast | fAllowBusy, run: cmdReset},
	{name: "client", flags: fNoScript, subs: []*command{
		{name: "id", arity: 2, flags: fNoScript, run: cmdClientID},
		{name: "getname", arity: 2, flags: fNoScript, run: cmdClientGetName},
		{name: "setname", arity: 3, flags: fNoScript, run: cmdClientSetName},
		{name: "list", arity: -2, flags: fNoScript | fSkipMonitor, run: cmdClientList},
		{name: "info", arity: 2, flags: fNoScript, run: cmdClientInfo},
		{name: "unblock", arity: -3, flags: fNoScript | fSkipMonitor, run: cmdClientUnblock},
		{name: "no-evict", arity: 3, flags: fNoScript | fSkipMonitor, run: cmdClientNoEvict},
		{name: "kill", arity: -3, flags: fNoScript | fSkipMonitor, run: cmdClientKill},
		{name: "pause", arity: -3, flags: fNoScript | fSkipMonitor, run: cmdClientPause},
		{name: "unpause", arity: 2, flags: fNoScript | fSkipMonitor, run: cmdClientUnpause},
		{name: "reply", arity: 3, flags: fNoScript, run: cmdClientReply},
		{name: "getredir", arity: 2, flags: fNoScript, run: cmdClientGetRedir},
		{name: "trackinginfo", arity: 2, flags: fNoScript, run: cmdClientTrackingInfo},
		{name: "help", arity: 2, run: cmdClientHelp},
	}},

	// Blocking pops (blocking.go).
	{name: "blpop", arity: -3, flags: fNoScript | fWrite, run: cmdBLPop},
	{name: "brpop", arity: -3, flags: fNoScript | fWrite, run: cmdBRPop},
	{name: "blmpop", arity: -5, flags: fWrite, run: cmdBLMPop},
	{name: "blmove", arity: 6, flags: fNoScript | fWrite | fDenyOOM, run: cmdBLMove},
	{name: "brpoplpush", arity: 4, flags: fNoScript | fWrite | fDenyOOM, run: cmdBRPopLPush},
	{name: "bzpopmin", arity: -3, flags: fNoScript | fWrite | fFast, run: cmdBZPopMin},
	{name: "bzpopmax", arity: -3, flags: fNoScript | fWrite | fFast, run: cmdBZPopMax},
	{name: "bzmpop", arity: -5, flags: fWrite, run: cmdBZMPop},

	// Pub/sub (pubsub.go).
	{name: "subscribe", arity: -2, flags: fPubSub | fNoScript, run: cmdSubscribe},
	{name: "unsubscribe", arity: -1, flags: fPubSub | fNoScript, run: cmdUnsubscribe},
	{name: "psubscribe", arity: -2, flags: fPubSub | fNoScript, run: cmdPSubscribe},
	{name: "punsubscribe", arity: -1, flags: fPubSub | fNoScript, run: cmdPUnsubscribe},
	{name: "ssubscribe", arity: -2, flags: fPubSub | fNoScript, run: cmdSSubscribe},
	{name: "sunsubscribe", arity: -1, flags: fPubSub | fNoScript, run: cmdSUnsubscribe},
	{name: "publish", arity: 3, flags: fPubSub | fFast | fMayReplicate, run: cmdPublish},
	{name: "spublish", arity: 3, flags: fPubSub | fFast | fMayReplicate, run: cmdSPublish},
	{name: "pubsub", subs: []*command{
		{name: "channels", arity: -2, flags: fPubSub, run: cmdPubsubChannels},
		{name: "shardchannels", arity: -2, flags: fPubSub, run: cmdPubsubChannels},
		{name: "numsub", arity: -2, flags: fPubSub, run: cmdPubsubNumSub},
		{name: "shardnumsub", arity: -2, flags: fPubSub, run: cmdPubsubNumSub},
		{name: "numpat", arity: 2, flags: fPubSub, run: cmdPubsubNumPat},
		{name: "help", arity: 2, run: cmdPubsubHelp},
	}},

	// Server (servercmds.go, monitor.go).
	{name: "info", arity: -1, run: cmdInfo},
	{name: "time", arity: 1, flags: fFast, run: cmdTime},
	{name: "shutdown", arity: -1, flags: fNoScript | fAllowBusy | fNoMulti | fSkipMonitor, run: cmdShutdown},
	{name: "lastsave", arity: 1, flags: fFast, run: cmdLastSave},
	{name: "save", arity: 1, flags: fNoScript | fNoMulti | fSkipMonitor, run: cmdSave},
	{name: "bgsave", arity: -1, flags: fNoScript | fSkipMonitor, run: cmdBgSave},
	{name: "monitor", arity: 1, flags: fNoScript | fSkipMonitor, run: cmdMonitor},
	{name: "config", subs: []*command{
		{name: "get", arity: -3, flags: fNoScript | fSkipMonitor, run: cmdConfigGet},
		{name: "set", arity: -4, flags: fNoScript | fSkipMonitor, run: cmdConfigSet},
		{name: "resetstat", arity: 2, flags: fNoScript | fSkipMonitor, run: cmdConfigResetStat},
		{name: "rewrite", arity: 2, flags: fNoScript | fSkipMonitor, run: cmdConfigRewrite},
	}},
	{name: "memory", subs: []*command{
		{name: "usage", arity: -3, flags: fReadOnly, run: cmdMemoryUsage},
		{name: "purge", arity: 2, run: cmdMemoryPurge},
		{name: "stats", arity: 2, run: cmdMemoryStats},
		{name: "doctor", arity: 2, run: cmdMemoryDoctor},
		{name: "help", arity: 2, run: cmdMemoryHelp},
	}},
	{name: "object", subs: []*command{
		{name: "encoding", arity: 3, flags: fReadOnly, run: cmdObjectEncoding},
		{name: "freq", arity: 3, flags: fReadOnly, run: cmdObjectFreq},
		{name: "idletime", arity: 3, flags: fReadOnly, run: cmdObjectIdletime},
		{name: "refcount", arity: 3, flags: fReadOnly, run: cmdObjectRefcount},
		{name: "help", arity: 2, run: cmdObjectHelp},
	}},
	{name: "latency", subs: []*command{
		{name: "latest", arity: 2, flags: fNoScript | fSkipMonitor, run: cmdLatencyLatest},
		{name: "history", arity: 3, flags: fNoScript | fSkipMonitor, run: cmdLatencyHistory},
		{name: "reset", arity: -2, flags: fNoScript | fSkipMonitor, run: cmdLatencyReset},
		{name: "doctor", arity: 2, flags: fNoScript | fSkipMonitor, run: cmdLatencyDoctor},
		{name: "graph", arity: 3, flags: fNoScript | fSkipMonitor, run: cmdLatencyGraph},
		{name: "histogram", arity: -2, flags: fNoScript | fSkipMonitor, run: cmdLatencyHistogram},
		{name: "help", arity: 2, run: cmdLatencyHelp},
	}},
	{name: "slowlog", subs: []*command{
		{name: "get", arity: -2, flags: fSkipMonitor, run: cmdSlowlogGet},
		{name: "len", arity: 2, flags: fSkipMonitor, run: cmdSlowlogLen},
		{name: "reset", arity: 2, flags: fSkipMonitor, run: cmdSlowlogReset},
		{name: "help", arity: 2, run: cmdSlowlogHelp},
	}},
	// A bare COMMAND lists every command: Redis gives this container
	// arity -1 and a run of its own.
	{name: "command", arity: -1, run: cmdCommandAll, subs: []*command{
		{name: "count", arity: 2, run: cmdCommandCount},
		{name: "info", arity: -2, run: cmdCommandInfo},
		{name: "docs", arity: -2, run: cmdCommandDocs},
		{name: "list", arity: -2, run: cmdCommandList},
		{name: "getkeys", arity: -4, run: cmdCommandGetKeys},
		{name: "getkeysandflags", arity: -4, run: cmdCommandGetKeysAndFlags},
	}},
}

// commands indexes commandTable by lower-case name; each container's
// subs by subcommand name. (Built in init: the table's own commands, such
// as COMMAND, read it.)
var commands map[string]*command

func init() { commands = index(commandTable); numberCommands(commandTable) }

// index builds the lookup map of a table, panicking on a name that is
// there twice: two rows for one command would leave one of them dead.
func index(table []*command) map[string]*command {
	m := make(map[string]*command, len(table))
	for _, cmd := range table {
		if _, dup := m[cmd.name]; dup {
			panic(fmt.Sprintf("command table: %q is listed twice", cmd.name))
		}
		m[cmd.name] = cmd
		if cmd.subs == nil {
			continue
		}
		// A container needs at least its subcommand (arity -2) unless
		// it has a run of its own for the bare name (COMMAND).
		if cmd.arity == 0 {
			cmd.arity = -2
		}
		cmd.subIndex = make(map[string]*command, len(cmd.subs))
		for _, sub := range cmd.subs {
			if _, dup := cmd.subIndex[sub.name]; dup {
				panic(fmt.Sprintf("command table: %s|%s is listed twice", cmd.name, sub.name))
			}
			cmd.subIndex[sub.name] = sub
			sub.name = cmd.name + "|" + sub.name
		}
	}
	return m
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
