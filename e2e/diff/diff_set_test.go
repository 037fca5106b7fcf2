package diff_test

import (
	"fmt"
	"math/rand/v2"
	"strconv"
)

// bigSet fills key with n members m0..m(n-1) (a dict), or with the
// integers 0..n-1 (an intset up to 512) when ints.
func bigSet(key string, n int, ints bool) step {
	args := []string{"SADD", key}
	for i := 0; i < n; i++ {
		if ints {
			args = append(args, strconv.Itoa(i))
		} else {
			args = append(args, "m"+strconv.Itoa(i))
		}
	}
	return cmd(args...)
}

// Set commands (t_set.c): both encodings, RESP2 and RESP3, errors.
var setCases = []diffCase{
	tc("sadd srem", c("SADD s a b c a"), c("SADD s d"), c("SCARD s"), c("SREM s a x"), c("SREM s b c d"), c("EXISTS s"), c("SREM s a"), c("SREM nosuch a"), c("TYPE s")),
	// A command that changes nothing is no write to WATCH (saddCommand
	// signals only when it added).
	tc("no-op writes keep a watch", c("SADD s a 1"), c("SADD i 1 2"), c("WATCH s i"), c("SADD s a 1").on(1), c("SADD i 2").on(1), c("SREM s x").on(1), c("MULTI"), c("PING"), c("EXEC"),
		c("WATCH s"), c("SADD s a b").on(1), c("MULTI"), c("PING"), c("EXEC")),
	tc("intset order", c("SADD s 5 -3 100 0 70000 -70000 9223372036854775807 -9223372036854775808"), c("SMEMBERS s"), c("SCARD s"), c("SISMEMBER s 70000"), c("SISMEMBER s 07")),
	tc("intset to dict", c("SADD s 1 2 3"), c("SADD s x"), c("SMEMBERS s").with(sorted), c("SREM s x"), c("SMEMBERS s").with(sorted), c("SADD t 01"), c("SMEMBERS t")),
	tc("intset limit", bigSet("s", 512, true), c("SCARD s"), c("SADD s 512"), c("SCARD s"), c("SISMEMBER s 511"), c("SMEMBERS s").with(sorted)),
	tc("sismember smismember", c("SADD s a 1"), c("SISMEMBER s a"), c("SISMEMBER s b"), c("SISMEMBER nosuch a"), c("SMISMEMBER s a b 1"), c("SMISMEMBER nosuch a")),
	tc("smembers", c("SMEMBERS nosuch"), c("SADD s x"), c("SMEMBERS s")),
	tc("smove", c("SADD a x y"), c("SMOVE a b x"), c("SMEMBERS b"), c("SMEMBERS a"), c("SMOVE a b nosuch"), c("SMOVE a a y"), c("SMOVE a a nosuch"), c("SMOVE nosuch b x"),
		c("SMOVE a b y"), c("EXISTS a"), c("SET s v"), c("SMOVE b s x"), c("SMOVE s b x"), c("SMOVE nosuch s x"), c("SMEMBERS b").with(sorted)),
	tc("smove ints", c("SADD a 1 2"), c("SADD b x"), c("SMOVE a b 1"), c("SMEMBERS b").with(sorted), c("SMOVE b a x"), c("SMEMBERS a").with(sorted)),
	tc("spop", c("SADD s only"), c("SPOP s"), c("EXISTS s"), c("SPOP s"), c("SPOP s 3"), c("SPOP s x"), c("SPOP s -1"), c("SPOP s 1 2"), c("SADD s a"), c("SPOP s 0"), c("SPOP s 5"), c("EXISTS s")),
	tc("spop counts", bigSet("s", 10, false), c("SPOP s 3").with(lengthOnly), c("SCARD s"), c("SPOP s 100").with(lengthOnly), c("EXISTS s"), bigSet("i", 10, true), c("SPOP i 10").with(sorted)),
	tc("srandmember", c("SADD s only"), c("SRANDMEMBER s"), c("SRANDMEMBER s 1"), c("SRANDMEMBER s 5"), c("SRANDMEMBER s -3"), c("SRANDMEMBER s 0"), c("SRANDMEMBER nosuch"),
		c("SRANDMEMBER nosuch 3"), c("SRANDMEMBER s x"), c("SRANDMEMBER s 1 2"), c("SRANDMEMBER s -9223372036854775808"), c("SRANDMEMBER s 9223372036854775807")),
	tc("srandmember counts", bigSet("s", 10, false), c("SRANDMEMBER s 3").with(lengthOnly), c("SRANDMEMBER s 10").with(sorted), c("SRANDMEMBER s 11").with(sorted),
		c("SRANDMEMBER s -20").with(lengthOnly), bigSet("i", 300, true), c("SRANDMEMBER i 299").with(lengthOnly)),
	tc("sunion sinter sdiff", c("SADD a 1 2 3 x"), c("SADD b 2 3 4 y"), c("SADD c 3 y z"), c("SUNION a b c").with(sorted), c("SINTER a b c").with(sorted), c("SINTER a b").with(sorted),
		c("SDIFF a b c").with(sorted), c("SDIFF a").with(sorted), c("SDIFF nosuch a"), c("SINTER a nosuch"), c("SUNION nosuch"), c("SINTER nosuch")),
	tc("set algebra on ints", c("SADD a 1 2 3 4"), c("SADD b 3 4 5"), c("SUNION a b"), c("SINTER a b"), c("SDIFF a b"), c("SDIFF b a")),
	tc("set algebra wrongtype", c("SET s v"), c("SADD a 1"), c("SUNION a s"), c("SINTER nosuch s"), c("SDIFF a s"), c("SINTERSTORE d a s"), c("SINTERCARD 2 a s")),
	tc("set stores", c("SADD a 1 2 3 x"), c("SADD b 2 3 y"), c("SET d old EX 100"), c("SINTERSTORE d a b"), c("TTL d"), c("SMEMBERS d"), c("SUNIONSTORE u a b"), c("SCARD u"),
		c("SDIFFSTORE f a b"), c("SMEMBERS f").with(sorted), c("SINTERSTORE d a nosuch"), c("EXISTS d"), c("SDIFFSTORE a a a"), c("EXISTS a"), c("SUNIONSTORE x nosuch"), c("EXISTS x")),
	tc("sintercard", c("SADD a 1 2 3 4"), c("SADD b 2 3 4 5"), c("SINTERCARD 2 a b"), c("SINTERCARD 2 a b LIMIT 2"), c("SINTERCARD 2 a b LIMIT 0"), c("SINTERCARD 1 a"),
		c("SINTERCARD 0 a"), c("SINTERCARD x a"), c("SINTERCARD 3 a b"), c("SINTERCARD 2 a b LIMIT"), c("SINTERCARD 2 a b LIMIT -1"), c("SINTERCARD 2 a b LIMIT x"),
		c("SINTERCARD 2 a b FOO 1"), c("SINTERCARD 2 a nosuch"), c("SINTERCARD -1 a")),
	tc("sscan", c("SADD s 1 2 3"), c("SSCAN s 0"), c("SSCAN s 0 MATCH 2"), c("SSCAN nosuch 0"), c("SSCAN s x"), c("SADD t a b"), c("SSCAN t 0 COUNT 100").with(scanSorted)),
	tc("set wrongtype", c("SET s v"), c("SADD s a"), c("SREM s a"), c("SCARD s"), c("SMEMBERS s"), c("SISMEMBER s a"), c("SMISMEMBER s a"), c("SPOP s"), c("SPOP s 2"),
		c("SRANDMEMBER s"), c("SRANDMEMBER s 2"), c("SSCAN s 0"), c("HSET h f v"), c("SADD h x"), c("GET h")),
	tc("set resp3", c("HELLO 3").with(helloID), c("SADD s 1 2 3"), c("SMEMBERS s"), c("SMEMBERS nosuch"), c("SUNION s"), c("SINTER s nosuch"), c("SDIFF s"),
		c("SPOP s 0"), c("SPOP nosuch 2"), c("SRANDMEMBER s 5"), c("SRANDMEMBER s -2").with(lengthOnly), c("SMISMEMBER s 1 9"), c("SPOP s 3").with(sorted)),
	tc("set in multi and lua", c("MULTI"), c("SADD s 1 2"), c("SCARD s"), c("SMEMBERS s"), c("EXEC"),
		ev("redis.call('sadd', KEYS[1], 1, 2, 3) return redis.call('smembers', KEYS[1])", 1, "t"), ev("return redis.call('sismember', KEYS[1], 2)", 1, "t"),
		ev("redis.setresp(3) return redis.call('smembers', KEYS[1])", 1, "t").with(sorted), ev("return redis.pcall('sadd', 'x')", 0)),
}

// scanSorted sorts the elements of a scan's second part (one full pass).
var scanSorted = &normalizer{"scan elements sorted", func(b []byte) ([]byte, bool) {
	elems, ok := aggregateElems(b)
	if !ok || len(elems) != 2 {
		return nil, false
	}
	inner, ok := sorted.f(elems[1])
	if !ok {
		return nil, false
	}
	return append(append([]byte("*2\r\n"), elems[0]...), inner...), true
}}

// randomSetCases run generated set commands over three keys, with
// integer and string members, crossing the intset's limits.
func randomSetCases(r *rand.Rand, n int) []diffCase {
	member := func() string {
		if r.IntN(3) == 0 {
			return "m" + strconv.Itoa(r.IntN(8))
		}
		return strconv.Itoa(r.IntN(12) - 3)
	}
	key := func() string { return []string{"a", "b", "c"}[r.IntN(3)] }
	var cases []diffCase
	for i := range n {
		var steps []step
		for range 25 {
			switch r.IntN(12) {
			case 0, 1:
				steps = append(steps, cmd("SADD", key(), member(), member(), member()))
			case 2:
				steps = append(steps, cmd("SREM", key(), member(), member()))
			case 3:
				steps = append(steps, cmd("SMEMBERS", key()).with(sorted))
			case 4:
				steps = append(steps, cmd("SUNION", key(), key()).with(sorted), cmd("SINTER", key(), key()).with(sorted), cmd("SDIFF", key(), key(), key()).with(sorted))
			case 5:
				steps = append(steps, cmd([]string{"SUNIONSTORE", "SINTERSTORE", "SDIFFSTORE"}[r.IntN(3)], key(), key(), key()))
			case 6:
				steps = append(steps, cmd("SMOVE", key(), key(), member()))
			case 7:
				steps = append(steps, cmd("SCARD", key()), cmd("SISMEMBER", key(), member()), cmd("SMISMEMBER", key(), member(), member()))
			case 8:
				steps = append(steps, cmd("SINTERCARD", "2", key(), key(), "LIMIT", strconv.Itoa(r.IntN(4))))
			case 9:
				steps = append(steps, bigSet(key(), 500+r.IntN(30), r.IntN(2) == 0))
			case 10:
				steps = append(steps, cmd("SET", key(), "str"))
			default:
				steps = append(steps, cmd("DEL", key()), cmd("TYPE", key()))
			}
		}
		cases = append(cases, tc(fmt.Sprintf("set %d", i), steps...))
	}
	return cases
}
