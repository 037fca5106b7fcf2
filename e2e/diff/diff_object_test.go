package diff_test

import (
	"strconv"
	"strings"
)

// OBJECT: the encodings Redis 7.0 picks for the same data at each
// threshold (default and lowered by CONFIG SET), the shared integers'
// refcount, and FREQ/IDLETIME's answers under each policy.

func members(cmdName, key string, n int, pairs bool) []string {
	args := []string{cmdName, key}
	for i := range n {
		if pairs {
			args = append(args, strconv.Itoa(i))
		}
		args = append(args, "m"+strconv.Itoa(i))
	}
	return args
}

var objectCases = []diffCase{
	tc("object encoding strings", c("SET a 123"), c("OBJECT ENCODING a"), c("SET a -9223372036854775808"), c("OBJECT ENCODING a"), c("SET a 9223372036854775808"), c("OBJECT ENCODING a"),
		c("SET a 0123"), c("OBJECT ENCODING a"), c("SET a -0"), c("OBJECT ENCODING a"), c("SET a +1"), c("OBJECT ENCODING a"), c("SET a 1.5"), c("OBJECT ENCODING a"),
		cmd("SET", "a", strings.Repeat("x", 44)), c("OBJECT ENCODING a"), cmd("SET", "a", strings.Repeat("x", 45)), c("OBJECT ENCODING a"), c("SET e ''"), c("OBJECT ENCODING e"),
		c("INCR n"), c("OBJECT ENCODING n"), c("INCRBYFLOAT f 1.5"), c("OBJECT ENCODING f"), c("MSET m1 7 m2 hello"), c("OBJECT ENCODING m1"), c("OBJECT ENCODING m2"),
		c("APPEND new 42"), c("OBJECT ENCODING new"), c("SETEX s 100 99"), c("OBJECT ENCODING s"), c("OBJECT ENCODING nosuch"), c("COPY a b"), c("OBJECT ENCODING b")),
	tc("object encoding collections", c("RPUSH l a"), c("OBJECT ENCODING l"), cmd(members("RPUSH", "l", 600, false)...), c("OBJECT ENCODING l"),
		c("HSET h f v"), c("OBJECT ENCODING h"), cmd("HSET", "h", "g", strings.Repeat("v", 64)), c("OBJECT ENCODING h"), cmd("HSET", "h", "g", strings.Repeat("v", 65)), c("OBJECT ENCODING h"),
		c("HDEL h g"), c("OBJECT ENCODING h"), cmd(members("HSET", "h2", 512, true)...), c("OBJECT ENCODING h2"), c("HSET h2 x y"), c("OBJECT ENCODING h2"),
		c("SADD s 1 2 3"), c("OBJECT ENCODING s"), c("SADD s x"), c("OBJECT ENCODING s"), c("SREM s x"), c("OBJECT ENCODING s"), c("SADD t 1 -5 01"), c("OBJECT ENCODING t"),
		c("ZADD z 1 a"), c("OBJECT ENCODING z"), cmd(members("ZADD", "z", 128, true)...), c("OBJECT ENCODING z"), c("ZADD z 1 x"), c("OBJECT ENCODING z"), c("ZREM z x m0"), c("OBJECT ENCODING z"),
		cmd("ZADD", "z2", "1", strings.Repeat("m", 65)), c("OBJECT ENCODING z2"), c("ZUNIONSTORE z3 1 z"), c("OBJECT ENCODING z3")),
	tc("object encoding thresholds", c("CONFIG SET hash-max-listpack-entries 2 hash-max-listpack-value 4 set-max-intset-entries 2 zset-max-listpack-entries 2 zset-max-listpack-value 4"),
		c("HSET h a 1 b 2"), c("OBJECT ENCODING h"), c("HSET h c 3"), c("OBJECT ENCODING h"), c("HSET i a 12345"), c("OBJECT ENCODING i"),
		c("SADD s 1 2"), c("OBJECT ENCODING s"), c("SADD s 3"), c("OBJECT ENCODING s"), c("ZADD z 1 a 2 b"), c("OBJECT ENCODING z"), c("ZADD z 3 c"), c("OBJECT ENCODING z"),
		c("ZADD y 1 abcde"), c("OBJECT ENCODING y"), c("CONFIG SET hash-max-listpack-entries 512 hash-max-listpack-value 64 set-max-intset-entries 512 zset-max-listpack-entries 128 zset-max-listpack-value 64"),
		c("OBJECT ENCODING h"), c("OBJECT ENCODING s")),
	tc("object refcount", c("SET a 0"), c("OBJECT REFCOUNT a"), c("SET a 9999"), c("OBJECT REFCOUNT a"), c("SET a 10000"), c("OBJECT REFCOUNT a"), c("SET a -1"), c("OBJECT REFCOUNT a"),
		c("SET a hello"), c("OBJECT REFCOUNT a"), c("INCR n"), c("OBJECT REFCOUNT n"), c("RPUSH l x"), c("OBJECT REFCOUNT l"), c("OBJECT REFCOUNT nosuch"),
		c("CONFIG SET maxmemory 1gb maxmemory-policy allkeys-lru"), c("SET b 5"), c("OBJECT REFCOUNT b"), c("CONFIG SET maxmemory 0 maxmemory-policy noeviction")),
	tc("object freq idletime", c("SET a 1"), c("OBJECT FREQ a"), c("OBJECT FREQ nosuch"), c("OBJECT IDLETIME a").with(idleNow), c("OBJECT IDLETIME nosuch"),
		c("CONFIG SET maxmemory-policy allkeys-lfu"), c("OBJECT IDLETIME a"), c("OBJECT IDLETIME nosuch"), c("CONFIG SET maxmemory-policy noeviction")),
	tc("object errors", c("OBJECT"), c("OBJECT foo"), c("OBJECT ENCODING"), c("OBJECT ENCODING a b"), c("OBJECT HELP"), c("object help"), c("OBJECT HELP x"),
		c("SET k v"), cmd("EVAL", "return redis.call('OBJECT', 'ENCODING', KEYS[1])", "1", "k"), cmd("EVAL", "return redis.pcall('OBJECT', 'FREQ', KEYS[1])", "1", "k"),
		c("MULTI"), c("OBJECT ENCODING k"), c("EXEC")),
	tc("object stats", c("CONFIG RESETSTAT"), c("SET k v"), c("OBJECT ENCODING k"), c("OBJECT ENCODING nosuch"), c("INFO stats").with(infoValues("keyspace_hits", "keyspace_misses"))),
}

// idleNow reads an OBJECT IDLETIME taken right after the write as "just
// now": both servers count in whole seconds of the LRU clock, which a
// write made just before the clock ticks reads as 1.
var idleNow = &normalizer{"idle time 0 or 1", func(b []byte) ([]byte, bool) {
	switch string(b) {
	case ":0\r\n", ":1\r\n":
		return []byte(":<0 or 1>\r\n"), true
	}
	return nil, false
}}
