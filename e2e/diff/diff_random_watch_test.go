package diff_test

import (
	"fmt"
	"math/rand/v2"
)

// watchTouches are commands another client may send between WATCH and
// EXEC. Whether each aborts the EXEC is Redis's signalModifiedKey rule,
// command by command: a write that changes nothing (SADD of a member
// already there, SETRANGE of nothing, ZADD of the same score, HDEL of a
// missing field) leaves the watch alone; INCRBY 0 and APPEND "" do not.
var watchTouches = [][]string{
	{"SET", "a", "1"}, {"SET", "a", "1", "NX"}, {"SET", "a", "2", "XX"}, {"SET", "a", "1", "KEEPTTL"},
	{"INCRBY", "a", "0"}, {"APPEND", "a", ""}, {"SETRANGE", "a", "0", ""}, {"SETRANGE", "a", "0", "1"},
	{"GETEX", "a"}, {"GETEX", "a", "PERSIST"}, {"GETEX", "a", "EX", "3000"}, {"GETDEL", "nosuch"},
	{"EXPIRE", "a", "3000"}, {"EXPIRE", "nosuch", "3000"}, {"PERSIST", "a"}, {"EXPIRE", "a", "0"},
	{"DEL", "nosuch"}, {"DEL", "a"}, {"UNLINK", "b"}, {"TOUCH", "a"}, {"EXISTS", "a"},
	{"HSET", "h", "f", "v"}, {"HSETNX", "h", "f", "w"}, {"HDEL", "h", "nosuch"}, {"HINCRBY", "h", "n", "0"},
	{"SADD", "s", "m"}, {"SADD", "s", "new"}, {"SREM", "s", "nosuch"}, {"SMOVE", "s", "s", "m"}, {"SPOP", "nosuch"},
	{"ZADD", "z", "1", "m"}, {"ZADD", "z", "2", "m"}, {"ZADD", "z", "XX", "CH", "1", "m"}, {"ZINCRBY", "z", "0", "m"}, {"ZREM", "z", "nosuch"},
	{"ZREMRANGEBYSCORE", "z", "5", "6"}, {"ZPOPMIN", "nosuch"},
	{"LPUSH", "l", "x"}, {"LREM", "l", "0", "nosuch"}, {"LTRIM", "l", "0", "-1"}, {"LSET", "l", "0", "x"}, {"LPOP", "nosuch"},
	{"RENAME", "a", "b"}, {"RENAME", "b", "a"}, {"RENAMENX", "b", "a"}, {"COPY", "a", "b"}, {"COPY", "b", "a", "REPLACE"},
	{"MOVE", "a", "1"}, {"FLUSHDB"}, {"SELECT", "1"}, {"MSETNX", "a", "x", "c", "y"},
	{"SINTERSTORE", "s", "nosuch"}, {"ZUNIONSTORE", "z", "1", "z"}, {"LMOVE", "l", "l", "LEFT", "RIGHT"},
	{"EVAL", "return redis.call('SET', KEYS[1], '1')", "1", "a"},
	{"EVAL", "return redis.call('GET', KEYS[1])", "1", "a"},
}

// randomWatchCases are the check-and-set recipe under interference: the
// first client WATCHes some of the keys, the second sends one to three
// commands from watchTouches (or its own MULTI of them), and the first
// runs its transaction: EXEC is aborted (a null reply) exactly when Redis
// would abort it.
func randomWatchCases(r *rand.Rand, n int) []diffCase {
	keys := []string{"a", "b", "h", "s", "z", "l", "nosuch"}
	var cases []diffCase
	for i := range n {
		steps := []step{c("SET a 1"), c("HSET h f v"), c("SADD s m"), c("ZADD z 1 m"), c("RPUSH l x y")}
		watch := []string{"WATCH"}
		for range 1 + r.IntN(3) {
			watch = append(watch, keys[r.IntN(len(keys))])
		}
		steps = append(steps, cmd(watch...))
		other := 1
		if r.IntN(6) == 0 {
			other = 0 // the watching client itself: its own writes abort too
		}
		touches := 1 + r.IntN(3)
		inMulti := r.IntN(5) == 0
		if inMulti {
			steps = append(steps, c("MULTI").on(other))
		}
		for range touches {
			steps = append(steps, cmd(watchTouches[r.IntN(len(watchTouches))]...).on(other))
		}
		if inMulti {
			steps = append(steps, c("EXEC").on(other))
		}
		if other == 1 {
			steps = append(steps, c("SELECT 0").on(1))
		}
		if r.IntN(4) == 0 {
			steps = append(steps, c("UNWATCH"))
		}
		steps = append(steps, c("MULTI"), c("GET a"), c("INCR a"), c("HGETALL h"), c("EXEC"),
			c("GET a"), c("GET b"), c("ZRANGE z 0 -1 WITHSCORES"), c("LRANGE l 0 -1"), c("SMEMBERS s").with(sorted))
		cases = append(cases, tc(fmt.Sprintf("watch %d", i), steps...))
	}
	return cases
}
