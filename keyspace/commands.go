package keyspace

// Flags describe a command as Redis's command table does; the server uses
// them for script and transaction rules.
type Flags uint32

const (
	// Write marks commands that may change data: refused in read-only
	// scripts, and what makes a running script unkillable.
	Write Flags = 1 << iota
	// ReadOnly marks commands that only read data.
	ReadOnly
	// DenyOOM marks commands that may grow memory.
	DenyOOM
	// Fast marks O(1) and O(log n) commands.
	Fast
)

// Command is one data command: its lower-case name, Redis's arity (N means
// exactly N arguments counting the name, -N at least N), its flags, and its
// implementation. Run is called on the owner goroutine with args[0] the
// command name; it either writes one reply to c.W and returns nil, or writes
// nothing and returns the error to reply with.
type Command struct {
	Name  string
	Arity int
	Flags Flags
	Run   func(k *Keyspace, c *Ctx, args [][]byte) error
}

// Commands lists the data commands, with arities and flags from Redis 7.0's
// src/commands/*.json.
var Commands = []Command{
	// strings
	{"set", -3, Write | DenyOOM, cmdSet},
	{"setnx", 3, Write | DenyOOM | Fast, cmdSetNX},
	{"setex", 4, Write | DenyOOM, cmdSetEX},
	{"psetex", 4, Write | DenyOOM, cmdPSetEX},
	{"get", 2, ReadOnly | Fast, cmdGet},
	{"getset", 3, Write | DenyOOM | Fast, cmdGetSet},
	{"getdel", 2, Write | Fast, cmdGetDel},
	{"getex", -2, Write | Fast, cmdGetEX},
	{"getrange", 4, ReadOnly, cmdGetRange},
	{"strlen", 2, ReadOnly | Fast, cmdStrLen},
	{"append", 3, Write | DenyOOM | Fast, cmdAppend},
	{"mget", -2, ReadOnly | Fast, cmdMGet},
	{"mset", -3, Write | DenyOOM, cmdMSet},
	{"msetnx", -3, Write | DenyOOM, cmdMSetNX},
	{"incr", 2, Write | DenyOOM | Fast, cmdIncr},
	{"decr", 2, Write | DenyOOM | Fast, cmdDecr},
	{"incrby", 3, Write | DenyOOM | Fast, cmdIncrBy},
	{"decrby", 3, Write | DenyOOM | Fast, cmdDecrBy},
	// keys
	{"del", -2, Write, cmdDel},
	{"unlink", -2, Write | Fast, cmdDel},
	{"exists", -2, ReadOnly | Fast, cmdExists},
	{"touch", -2, ReadOnly | Fast, cmdExists},
	{"type", 2, ReadOnly | Fast, cmdType},
	{"keys", 2, ReadOnly, cmdKeys},
	{"scan", -2, ReadOnly, cmdScan},
	{"dbsize", 1, ReadOnly | Fast, cmdDBSize},
	{"flushdb", -1, Write, cmdFlushDB},
	{"flushall", -1, Write, cmdFlushAll},
	// expiry
	{"expire", -3, Write | Fast, cmdExpire},
	{"pexpire", -3, Write | Fast, cmdPExpire},
	{"expireat", -3, Write | Fast, cmdExpireAt},
	{"pexpireat", -3, Write | Fast, cmdPExpireAt},
	{"ttl", 2, ReadOnly | Fast, cmdTTL},
	{"pttl", 2, ReadOnly | Fast, cmdPTTL},
	{"expiretime", 2, ReadOnly | Fast, cmdExpireTime},
	{"pexpiretime", 2, ReadOnly | Fast, cmdPExpireTime},
	{"persist", 2, Write | Fast, cmdPersist},
}
