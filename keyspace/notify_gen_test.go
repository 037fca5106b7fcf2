package keyspace

import (
	"math/rand/v2"
	"strconv"
)

// genNotifySteps generates n commands over a few keys of every type, with
// every data command the keyspace has. Keys mostly hold the type a command
// expects, sometimes another (WRONGTYPE paths), sometimes nothing (misses,
// creations). Deadlines are far away, in the past (deletions), or a
// millisecond ahead with a tick after (expiry).
func genNotifySteps(r *rand.Rand, n int) []nstep {
	g := &notifyGen{r: r}
	var out []nstep
	for len(out) < n {
		out = append(out, g.step())
	}
	return out
}

type notifyGen struct{ r *rand.Rand }

var notifyKeys = map[byte][]string{
	's': {"s1", "s2"},
	'h': {"h1", "h2"},
	'l': {"l1", "l2"},
	't': {"t1", "t2"},
	'z': {"z1", "z2"},
}

// key picks a key of the type t (a letter of notifyKeys), or now and then
// one of any type or one never used.
func (g *notifyGen) key(t byte) string {
	switch g.r.IntN(12) {
	case 0:
		return "none"
	case 1:
		types := "shltz"
		return g.key(types[g.r.IntN(len(types))])
	}
	ks := notifyKeys[t]
	return ks[g.r.IntN(len(ks))]
}

func (g *notifyGen) pick(opts ...string) string { return opts[g.r.IntN(len(opts))] }

func (g *notifyGen) val() string {
	switch g.r.IntN(5) {
	case 0:
		return strconv.Itoa(g.r.IntN(200) - 100)
	case 1:
		return ""
	case 2:
		return "1.5"
	}
	return g.pick("a", "b", "c", "d", "e")
}

func (g *notifyGen) idx() string { return strconv.Itoa(g.r.IntN(10) - 5) }
func (g *notifyGen) cnt() string { return strconv.Itoa(g.r.IntN(4)) }

func (g *notifyGen) member() string { return g.pick("a", "b", "c", "d", "1", "2") }

func (g *notifyGen) score() string {
	return g.pick("1", "2", "-1", "0", "1.5", "+inf", "-inf", "3")
}

func (g *notifyGen) keys(t byte, max int) []string {
	n := 1 + g.r.IntN(max)
	ks := make([]string, n)
	for i := range ks {
		ks[i] = g.key(t)
	}
	return ks
}

func cmdOf(args ...string) nstep { return nstep{args: args, db: -1} }

func (s nstep) random() nstep { s.noReply = true; return s }
func (s nstep) expiring() nstep {
	s.soon = true
	return s
}

func joinArgs(head []string, tail ...string) []string {
	return append(append([]string(nil), head...), tail...)
}

// far is a relative TTL that never passes during a run; past is an
// absolute time long gone; future one far ahead.
const (
	farS    = "100000"
	farMS   = "100000000"
	pastS   = "1000"
	futureS = "4102444800"
)

func (g *notifyGen) step() nstep {
	r := g.r
	switch r.IntN(6) {
	case 0:
		return g.stringStep()
	case 1:
		return g.genericStep()
	case 2:
		return g.hashStep()
	case 3:
		return g.listStep()
	case 4:
		return g.setStep()
	default:
		return g.zsetStep()
	}
}

func (g *notifyGen) stringStep() nstep {
	r := g.r
	k := func() string { return g.key('s') }
	switch r.IntN(22) {
	case 0, 1:
		args := []string{"SET", k(), g.val()}
		if r.IntN(3) == 0 {
			args = append(args, g.pick("NX", "XX"))
		}
		if r.IntN(3) == 0 {
			args = append(args, "GET")
		}
		switch r.IntN(6) {
		case 0:
			args = append(args, "EX", farS)
		case 1:
			args = append(args, "PX", farMS)
		case 2:
			args = append(args, "KEEPTTL")
		case 3:
			if r.IntN(4) == 0 {
				return cmdOf(append(args, "PXAT", "1")...).expiring()
			}
		}
		return cmdOf(args...)
	case 2:
		return cmdOf("SETNX", k(), g.val())
	case 3:
		return cmdOf("SETEX", k(), g.pick(farS, "0", "x"), g.val())
	case 4:
		return cmdOf("PSETEX", k(), farMS, g.val())
	case 5:
		return cmdOf("GET", k())
	case 6:
		return cmdOf("GETSET", k(), g.val())
	case 7:
		return cmdOf("GETDEL", k())
	case 8:
		switch r.IntN(4) {
		case 0:
			return cmdOf("GETEX", k(), "EX", farS)
		case 1:
			return cmdOf("GETEX", k(), "PERSIST")
		case 2:
			return cmdOf("GETEX", k(), "EXAT", pastS)
		}
		return cmdOf("GETEX", k())
	case 9:
		return cmdOf("GETRANGE", k(), g.idx(), g.idx())
	case 10:
		return cmdOf("STRLEN", k())
	case 11:
		return cmdOf("APPEND", k(), g.val())
	case 12:
		return cmdOf(joinArgs([]string{"MGET"}, g.keys('s', 3)...)...)
	case 13:
		return cmdOf("MSET", k(), g.val(), k(), g.val())
	case 14:
		return cmdOf("MSETNX", k(), g.val(), k(), g.val())
	case 15:
		return cmdOf(g.pick("INCR", "DECR"), k())
	case 16:
		return cmdOf(g.pick("INCRBY", "DECRBY"), k(), g.pick("5", "-3", "x"))
	case 17:
		return cmdOf("INCRBYFLOAT", k(), g.pick("1.5", "-2", "x"))
	case 18:
		return cmdOf("SETRANGE", k(), g.pick("0", "2", "-1"), g.pick("", "xy", "z"))
	default:
		return cmdOf("SET", k(), g.val())
	}
}

func (g *notifyGen) anyKey() string { return g.key("shltz"[g.r.IntN(5)]) }

func (g *notifyGen) genericStep() nstep {
	r := g.r
	switch r.IntN(26) {
	case 0, 1:
		return cmdOf(joinArgs([]string{g.pick("DEL", "UNLINK")}, g.keys("shltz"[r.IntN(5)], 3)...)...)
	case 2:
		return cmdOf(joinArgs([]string{g.pick("EXISTS", "TOUCH")}, g.keys("shltz"[r.IntN(5)], 3)...)...)
	case 3:
		return cmdOf("TYPE", g.anyKey())
	case 4:
		return cmdOf(g.pick("RENAME", "RENAMENX"), g.anyKey(), g.anyKey())
	case 5:
		args := []string{"COPY", g.anyKey(), g.anyKey()}
		if r.IntN(2) == 0 {
			args = append(args, "DB", g.pick("0", "1"))
		}
		if r.IntN(2) == 0 {
			args = append(args, "REPLACE")
		}
		return cmdOf(args...)
	case 6:
		return cmdOf("MOVE", g.anyKey(), g.pick("0", "1"))
	case 7, 8:
		if r.IntN(2) == 0 {
			return cmdOf(g.pick("EXPIRE", "PEXPIRE"), g.anyKey(), g.pick(farS, farMS, "-5", "0"))
		}
		// NX, XX, GT and LT compare deadlines: absolute ones, so that the
		// two servers' clocks do not matter.
		return cmdOf("EXPIREAT", g.anyKey(), g.pick(futureS, "4102444900", "4102445000", pastS), g.pick("NX", "XX", "GT", "LT"))
	case 9:
		if r.IntN(5) == 0 {
			// Not 1 ms: Redis could find that deadline passed already (its
			// clock is read again after the command started) and delete.
			return cmdOf("PEXPIRE", g.anyKey(), "20").expiring()
		}
		return cmdOf(g.pick("EXPIREAT", "PEXPIREAT"), g.anyKey(), g.pick(pastS, futureS, "0"))
	case 10:
		return cmdOf(g.pick("TTL", "PTTL", "EXPIRETIME", "PEXPIRETIME"), g.anyKey()).random()
	case 11:
		return cmdOf("PERSIST", g.anyKey())
	case 12:
		return cmdOf("KEYS", "*").random()
	case 13:
		return cmdOf("SCAN", "0", "COUNT", "1000").random()
	case 14:
		return cmdOf("DBSIZE")
	case 15:
		return cmdOf("RANDOMKEY").random()
	case 16:
		if r.IntN(10) == 0 {
			return cmdOf("FLUSHDB")
		}
		return cmdOf("EXISTS", g.anyKey())
	case 17:
		db := r.IntN(2)
		return nstep{args: []string{"SELECT", strconv.Itoa(db)}, db: db}
	case 18:
		return cmdOf("SCAN", "0", "TYPE", g.pick("string", "hash"), "COUNT", "1000").random()
	case 19:
		// ALPHA: numeric scores would read Redis's stale errno (see
		// e2e/diff/diff_sort_test.go).
		args := []string{g.pick("SORT", "SORT_RO"), g.key("ltz"[r.IntN(3)]), "ALPHA"}
		if r.IntN(3) == 0 {
			args = append(args, "GET", g.pick("#", "s*", "h*->f1"), "LIMIT", g.pick("0", "1"), g.cnt())
		}
		if args[0] == "SORT" && r.IntN(2) == 0 {
			args = append(args, "STORE", g.anyKey())
		}
		return cmdOf(args...)
	case 20:
		return cmdOf("SWAPDB", "0", "1")
	default:
		return cmdOf("DEL", g.anyKey())
	}
}

func (g *notifyGen) hashStep() nstep {
	r := g.r
	k := func() string { return g.key('h') }
	f := func() string { return g.pick("f1", "f2", "f3") }
	switch r.IntN(16) {
	case 0, 1:
		return cmdOf("HSET", k(), f(), g.val(), f(), g.val())
	case 2:
		return cmdOf("HMSET", k(), f(), g.val())
	case 3:
		return cmdOf("HSETNX", k(), f(), g.val())
	case 4:
		return cmdOf("HGET", k(), f())
	case 5:
		return cmdOf("HMGET", k(), f(), f())
	case 6, 7:
		return cmdOf("HDEL", k(), f(), f())
	case 8:
		return cmdOf(g.pick("HEXISTS", "HSTRLEN"), k(), f())
	case 9:
		return cmdOf("HLEN", k())
	case 10:
		return cmdOf(g.pick("HKEYS", "HVALS", "HGETALL"), k()).random()
	case 11:
		return cmdOf("HINCRBY", k(), f(), g.pick("2", "-1", "x"))
	case 12:
		return cmdOf("HINCRBYFLOAT", k(), f(), g.pick("2.5", "-1", "x"))
	case 13:
		return cmdOf("HSCAN", k(), "0").random()
	case 14:
		return cmdOf("HRANDFIELD", k(), g.pick("1", "-2", "5")).random()
	default:
		return cmdOf("HSET", k(), f(), g.val())
	}
}

func (g *notifyGen) listStep() nstep {
	r := g.r
	k := func() string { return g.key('l') }
	side := func() string { return g.pick("LEFT", "RIGHT") }
	switch r.IntN(18) {
	case 0, 1, 2:
		return cmdOf(g.pick("LPUSH", "RPUSH", "LPUSHX", "RPUSHX"), k(), g.member(), g.member())
	case 3:
		return cmdOf("LINSERT", k(), g.pick("BEFORE", "AFTER"), g.member(), g.member())
	case 4:
		return cmdOf("LLEN", k())
	case 5:
		return cmdOf("LINDEX", k(), g.idx())
	case 6:
		return cmdOf("LSET", k(), g.idx(), g.member())
	case 7:
		return cmdOf("LRANGE", k(), g.idx(), g.idx())
	case 8, 9:
		if r.IntN(2) == 0 {
			return cmdOf(g.pick("LPOP", "RPOP"), k())
		}
		return cmdOf(g.pick("LPOP", "RPOP"), k(), g.cnt())
	case 10:
		return cmdOf("LMPOP", "2", k(), k(), side(), "COUNT", "2")
	case 11:
		return cmdOf("LTRIM", k(), g.idx(), g.idx())
	case 12:
		return cmdOf("LPOS", k(), g.member())
	case 13:
		return cmdOf("LREM", k(), g.pick("0", "1", "-1"), g.member())
	case 14, 15:
		return cmdOf("LMOVE", k(), k(), side(), side())
	case 16:
		return cmdOf("RPOPLPUSH", k(), k())
	default:
		return cmdOf("RPUSH", k(), g.member())
	}
}

func (g *notifyGen) setStep() nstep {
	r := g.r
	k := func() string { return g.key('t') }
	switch r.IntN(16) {
	case 0, 1, 2:
		return cmdOf("SADD", k(), g.member(), g.member())
	case 3, 4:
		return cmdOf("SREM", k(), g.member(), g.member())
	case 5:
		return cmdOf("SMOVE", k(), k(), g.member())
	case 6:
		return cmdOf(g.pick("SISMEMBER", "SMISMEMBER"), k(), g.member())
	case 7:
		return cmdOf("SCARD", k())
	case 8:
		return cmdOf("SMEMBERS", k()).random()
	case 9:
		// A count past the size pops everything, whatever the order.
		return cmdOf("SPOP", k(), g.pick("100", "0")).random()
	case 10:
		return cmdOf("SRANDMEMBER", k(), g.pick("1", "-3")).random()
	case 11:
		return cmdOf(joinArgs([]string{g.pick("SUNION", "SINTER", "SDIFF")}, g.keys('t', 3)...)...).random()
	case 12, 13:
		return cmdOf(joinArgs([]string{g.pick("SUNIONSTORE", "SINTERSTORE", "SDIFFSTORE"), g.anyKey()}, g.keys('t', 3)...)...)
	case 14:
		return cmdOf("SINTERCARD", "2", k(), k())
	default:
		return cmdOf("SSCAN", k(), "0").random()
	}
}

func (g *notifyGen) zsetStep() nstep {
	r := g.r
	k := func() string { return g.key('z') }
	switch r.IntN(22) {
	case 0, 1, 2:
		args := []string{"ZADD", k()}
		if r.IntN(3) == 0 {
			args = append(args, g.pick("NX", "XX", "GT", "LT", "CH"))
		}
		if r.IntN(5) == 0 {
			return cmdOf(append(args, "INCR", g.score(), g.member())...)
		}
		return cmdOf(append(args, g.score(), g.member(), g.score(), g.member())...)
	case 3:
		return cmdOf("ZINCRBY", k(), g.score(), g.member())
	case 4, 5:
		return cmdOf("ZREM", k(), g.member(), g.member())
	case 6:
		return cmdOf(g.pick("ZCARD"), k())
	case 7:
		return cmdOf(g.pick("ZSCORE", "ZMSCORE", "ZRANK", "ZREVRANK"), k(), g.member())
	case 8:
		return cmdOf("ZCOUNT", k(), "-inf", g.score())
	case 9:
		// Lex ranges are defined only when all scores are equal: they
		// work on zl, whose members all score 0.
		switch r.IntN(5) {
		case 0, 1:
			return cmdOf("ZADD", "zl", "0", g.member(), "0", g.member())
		case 2:
			return cmdOf("ZRANGEBYLEX", g.pick("zl", "none"), "-", "+")
		case 3:
			return cmdOf("ZREVRANGEBYLEX", g.pick("zl", "none"), "+", "[b")
		}
		return cmdOf("ZLEXCOUNT", g.pick("zl", "none"), "-", "+")
	case 10:
		if r.IntN(2) == 0 {
			return cmdOf("ZREVRANGE", k(), "0", g.idx())
		}
		return cmdOf("ZRANGE", k(), "0", "-1", "WITHSCORES")
	case 11:
		return cmdOf("ZRANGESTORE", g.anyKey(), k(), g.idx(), g.idx())
	case 12:
		return cmdOf(g.pick("ZRANGEBYSCORE", "ZREVRANGEBYSCORE"), k(), g.pick("-inf", "+inf"), g.pick("-inf", "+inf", "1"))
	case 13:
		return cmdOf("ZREMRANGEBYRANK", k(), g.idx(), g.idx())
	case 14:
		return cmdOf("ZREMRANGEBYSCORE", k(), g.score(), g.score())
	case 15:
		return cmdOf("ZREMRANGEBYLEX", "zl", g.pick("-", "[a", "(b"), g.pick("+", "[c"))
	case 16:
		if r.IntN(2) == 0 {
			return cmdOf(g.pick("ZPOPMIN", "ZPOPMAX"), k())
		}
		return cmdOf(g.pick("ZPOPMIN", "ZPOPMAX"), k(), g.cnt())
	case 17:
		return cmdOf("ZMPOP", "2", k(), k(), g.pick("MIN", "MAX"), "COUNT", "2")
	case 18, 19:
		return cmdOf(g.pick("ZUNIONSTORE", "ZINTERSTORE", "ZDIFFSTORE"), g.anyKey(), "2", k(), k())
	case 20:
		return cmdOf(g.pick("ZUNION", "ZINTER", "ZDIFF"), "2", k(), k())
	default:
		switch r.IntN(3) {
		case 0:
			return cmdOf("ZSCAN", k(), "0").random()
		case 1:
			return cmdOf("ZRANDMEMBER", k(), g.pick("1", "-2")).random()
		}
		return cmdOf("ZINTERCARD", "2", k(), k())
	}
}
