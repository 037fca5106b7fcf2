package keyspace

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/minilock/minilock/expiry"
	"github.com/minilock/minilock/resp"
)

// The unit tests drive commands as a client sends them, through the command
// table, on a real Keyspace whose clock moves only when the test moves it:
// TTLs read back exactly, and a key expires at the millisecond the test
// chooses.

// testStart is where the manual clock starts (2023-11-14T22:13:20Z).
var testStart = time.UnixMilli(1_700_000_000_000)

// testNow is testStart in Unix milliseconds, for building deadlines.
const testNow = 1_700_000_000_000

// Frequent replies.
const (
	ok      = "+OK\r\n"
	nilBulk = "$-1\r\n"
)

// num is an integer reply.
func num(n int64) string { return ":" + strconv.FormatInt(n, 10) + "\r\n" }

// bulk is a bulk string reply.
func bulk(s string) string { return "$" + strconv.Itoa(len(s)) + "\r\n" + s + "\r\n" }

// errReply is an error reply with the ERR code.
func errReply(msg string) string { return "-ERR " + msg + "\r\n" }

// ksTest is a Keyspace on a manual clock.
type ksTest struct {
	t     *testing.T
	k     *Keyspace
	clock *expiry.Manual
	db    int
}

func newKSTest(t *testing.T) *ksTest {
	clock := expiry.NewManual(testStart)
	k := New(Config{Clock: clock})
	return &ksTest{t: t, k: k, clock: clock}
}

// run executes one command, checking its arity as the server does, and
// returns the reply.
func (h *ksTest) run(args ...string) string {
	h.t.Helper()
	run, ok := ksCommands[strings.ToLower(args[0])]
	if !ok {
		h.t.Fatalf("no command %q in the table", args[0])
	}
	var w resp.Writer
	argv := make([][]byte, len(args))
	for i, a := range args {
		argv[i] = []byte(a)
	}
	c := &Ctx{W: &w, DB: h.db, Now: h.k.Now()}
	if err := run(h.k, c, argv); err != nil {
		w.Err(err)
	}
	h.tick()
	return string(w.B)
}

// tick does what the server's owner does after every command: Tick until
// nothing more is due.
func (h *ksTest) tick() {
	for h.k.Tick(h.k.Now()) {
	}
}

// advance moves the clock forward and lets active expiry catch up.
func (h *ksTest) advance(d time.Duration) {
	h.clock.FastForward(d)
	h.k.Sweep()
}

// ksStep is a command and the reply it must get, or a move of the clock.
type ksStep struct {
	args []string
	want string
	wait time.Duration
}

// do is a step written as space-separated words.
func do(line, want string) ksStep { return ksStep{args: strings.Fields(line), want: want} }

// doArgs is a step with exact arguments (empty ones, spaces, binary).
func doArgs(want string, args ...string) ksStep { return ksStep{args: args, want: want} }

// wait moves the clock by d.
func wait(d time.Duration) ksStep { return ksStep{wait: d} }

// ksCase is a scenario on a fresh keyspace.
type ksCase struct {
	name  string
	steps []ksStep
}

func runKSCases(t *testing.T, cases []ksCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newKSTest(t)
			for i, st := range tc.steps {
				if st.wait != 0 {
					h.advance(st.wait)
					continue
				}
				if got := h.run(st.args...); got != st.want {
					t.Fatalf("step %d %q: got %q, want %q", i+1, st.args, got, st.want)
				}
			}
		})
	}
}

// ksCommands are the data commands by name, for these tests. The server's
// table is the real one, with arities and flags; these tests call the
// implementations directly, with arguments the table would accept.
var ksCommands = map[string]func(*Keyspace, *Ctx, [][]byte) error{
	"xadd":             CmdXAdd,
	"xrange":           CmdXRange,
	"xrevrange":        CmdXRevRange,
	"xlen":             CmdXLen,
	"xdel":             CmdXDel,
	"xtrim":            CmdXTrim,
	"xsetid":           CmdXSetID,
	"xgroup":           CmdXGroup,
	"xack":             CmdXAck,
	"xpending":         CmdXPending,
	"xclaim":           CmdXClaim,
	"xautoclaim":       CmdXAutoClaim,
	"xinfo":            CmdXInfo,
	"xread":            xreadNoBlock,
	"xreadgroup":       xreadNoBlock,
	"set":              CmdSet,
	"setnx":            CmdSetNX,
	"setex":            CmdSetEX,
	"psetex":           CmdPSetEX,
	"get":              CmdGet,
	"getset":           CmdGetSet,
	"getdel":           CmdGetDel,
	"getex":            CmdGetEX,
	"getrange":         CmdGetRange,
	"strlen":           CmdStrLen,
	"append":           CmdAppend,
	"mget":             CmdMGet,
	"mset":             CmdMSet,
	"msetnx":           CmdMSetNX,
	"incr":             CmdIncr,
	"decr":             CmdDecr,
	"incrby":           CmdIncrBy,
	"decrby":           CmdDecrBy,
	"del":              CmdDel,
	"unlink":           CmdDel,
	"exists":           CmdExists,
	"touch":            CmdTouch,
	"type":             CmdType,
	"keys":             CmdKeys,
	"scan":             CmdScan,
	"dbsize":           CmdDBSize,
	"flushdb":          CmdFlushDB,
	"flushall":         CmdFlushAll,
	"expire":           CmdExpire,
	"pexpire":          CmdPExpire,
	"expireat":         CmdExpireAt,
	"pexpireat":        CmdPExpireAt,
	"ttl":              CmdTTL,
	"pttl":             CmdPTTL,
	"expiretime":       CmdExpireTime,
	"pexpiretime":      CmdPExpireTime,
	"persist":          CmdPersist,
	"setrange":         CmdSetRange,
	"incrbyfloat":      CmdIncrByFloat,
	"hset":             CmdHSet,
	"hmset":            CmdHSet,
	"hsetnx":           CmdHSetNX,
	"hget":             CmdHGet,
	"hmget":            CmdHMGet,
	"hdel":             CmdHDel,
	"hexists":          CmdHExists,
	"hlen":             CmdHLen,
	"hstrlen":          CmdHStrLen,
	"hkeys":            CmdHKeys,
	"hvals":            CmdHVals,
	"hgetall":          CmdHGetAll,
	"hincrby":          CmdHIncrBy,
	"hincrbyfloat":     CmdHIncrByFloat,
	"hscan":            CmdHScan,
	"hrandfield":       CmdHRandField,
	"sadd":             CmdSAdd,
	"srem":             CmdSRem,
	"smove":            CmdSMove,
	"sismember":        CmdSIsMember,
	"smismember":       CmdSMIsMember,
	"scard":            CmdSCard,
	"smembers":         CmdSMembers,
	"spop":             CmdSPop,
	"srandmember":      CmdSRandMember,
	"sunion":           CmdSUnion,
	"sinter":           CmdSInter,
	"sdiff":            CmdSDiff,
	"sunionstore":      CmdSUnionStore,
	"sinterstore":      CmdSInterStore,
	"sdiffstore":       CmdSDiffStore,
	"sintercard":       CmdSInterCard,
	"sscan":            CmdSScan,
	"zadd":             CmdZAdd,
	"zincrby":          CmdZIncrBy,
	"zrem":             CmdZRem,
	"zcard":            CmdZCard,
	"zscore":           CmdZScore,
	"zmscore":          CmdZMScore,
	"zrank":            CmdZRank,
	"zrevrank":         CmdZRevRank,
	"zcount":           CmdZCount,
	"zlexcount":        CmdZLexCount,
	"zrange":           CmdZRange,
	"zrangestore":      CmdZRangeStore,
	"zrevrange":        CmdZRevRange,
	"zrangebyscore":    CmdZRangeByScore,
	"zrevrangebyscore": CmdZRevRangeByScore,
	"zrangebylex":      CmdZRangeByLex,
	"zrevrangebylex":   CmdZRevRangeByLex,
	"zremrangebyscore": CmdZRemRangeByScore,
	"zremrangebyrank":  CmdZRemRangeByRank,
	"zremrangebylex":   CmdZRemRangeByLex,
	"zpopmin":          CmdZPopMin,
	"zpopmax":          CmdZPopMax,
	"zmpop":            CmdZMPop,
	"zunionstore":      CmdZUnionStore,
	"zinterstore":      CmdZInterStore,
	"zdiffstore":       CmdZDiffStore,
	"zunion":           CmdZUnion,
	"zinter":           CmdZInter,
	"zdiff":            CmdZDiff,
	"zintercard":       CmdZInterCard,
	"zscan":            CmdZScan,
	"zrandmember":      CmdZRandMember,
	"lpush":            CmdLPush,
	"rpush":            CmdRPush,
	"lpushx":           CmdLPushX,
	"rpushx":           CmdRPushX,
	"linsert":          CmdLInsert,
	"llen":             CmdLLen,
	"lindex":           CmdLIndex,
	"lset":             CmdLSet,
	"lrange":           CmdLRange,
	"lpop":             CmdLPop,
	"rpop":             CmdRPop,
	"lmpop":            CmdLMPop,
	"ltrim":            CmdLTrim,
	"lpos":             CmdLPos,
	"lrem":             CmdLRem,
	"lmove":            CmdLMove,
	"rpoplpush":        CmdRPopLPush,
	"rename":           CmdRename,
	"renamenx":         CmdRenameNX,
	"copy":             CmdCopy,
	"swapdb":           CmdSwapDB,
	"sort":             func(k *Keyspace, c *Ctx, args [][]byte) error { return CmdSort(k, c, args, false) },
	"sort_ro":          func(k *Keyspace, c *Ctx, args [][]byte) error { return CmdSortRO(k, c, args, false) },
	"move":             CmdMove,
	"randomkey":        CmdRandomKey,
}

// xreadNoBlock is XREAD and XREADGROUP as MULTI runs them: never parked.
func xreadNoBlock(k *Keyspace, c *Ctx, args [][]byte) error {
	_, err := k.XRead(c, args, false, true)
	return err
}
