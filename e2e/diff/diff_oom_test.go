package diff_test

import "strings"

// maxmemory under noeviction: with maxmemory 1 both servers are always
// over it, so which commands are refused, in MULTI, in scripts before and
// after their first write, is deterministic. Each case ends by turning
// maxmemory off again (the servers are shared by the cases).
func oomCase(name string, steps ...step) diffCase {
	all := append([]step{c("SET before v"), c("CONFIG SET maxmemory 1")}, steps...)
	return tc(name, append(all, c("CONFIG SET maxmemory 0"))...)
}

var oomCases = []diffCase{
	oomCase("maxmemory refuses what may grow memory",
		c("CONFIG GET maxmemory"), c("SET k v"), c("GET before"), c("DEL nosuch"), c("LPUSH l a"), c("HSET h f v"),
		c("INCR n"), c("EXPIRE before 10"), c("SETNX k v"), c("APPEND before x"), c("DEL before"), c("EXISTS before"),
		c("PUBLISH ch m"), c("PING")),
	oomCase("maxmemory in multi",
		c("MULTI"), c("GET before"), c("SET k v"), c("EXEC"),
		c("MULTI"), c("DISCARD"), c("MULTI"), c("RESET")),
	oomCase("maxmemory in scripts",
		cmd("EVAL", "return redis.call('set','k','v')", "0"),
		cmd("EVAL", "return redis.pcall('set','k','v')", "0"),
		cmd("EVAL", "return redis.call('get','before')", "0"),
		cmd("EVAL", "redis.call('del','x') return redis.call('set','k','v')", "0"),
		cmd("EVAL", "redis.call('get','x') return redis.pcall('set','k','v')", "0"),
		cmd("EVAL_RO", "return redis.call('get','before')", "0"),
		c("GET k")),
	tc("maxmemory values",
		c("CONFIG SET maxmemory 10mb"), c("CONFIG GET maxmemory"), c("CONFIG SET maxmemory -1"), c("CONFIG SET maxmemory 1x"),
		cmd("CONFIG", "SET", "maxmemory", strings.Repeat("9", 30)), c("CONFIG GET maxmemory"),
		cmd("CONFIG", "SET", "maxmemory", "kb"), c("CONFIG GET maxmemory"), cmd("CONFIG", "SET", "maxmemory", ""), c("CONFIG GET maxmemory"),
		cmd("CONFIG", "SET", "maxmemory", "+5"), cmd("CONFIG", "SET", "maxmemory", "5GB"), c("CONFIG GET maxmemory"),
		cmd("CONFIG", "SET", "maxmemory", "18446744073709551615"), c("CONFIG GET maxmemory"),
		cmd("CONFIG", "SET", "maxmemory", "18446744073709551615kb"), c("CONFIG GET maxmemory"),
		cmd("CONFIG", "SET", "maxmemory", "1 mb"), cmd("CONFIG", "SET", "maxmemory", strings.Repeat("1", 128)),
		c("CONFIG SET maxmemory 0"), c("CONFIG GET maxmemory")),
}
