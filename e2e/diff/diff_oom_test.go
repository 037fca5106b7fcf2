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
	tc("maxmemory and script shebang flags",
		// Loaded while memory is no concern, then judged by their flags:
		// a shebang without allow-oom or no-writes is denyoom up front.
		cmd("SCRIPT", "LOAD", "#!lua\nreturn redis.call('get','before')"),
		cmd("SCRIPT", "LOAD", "#!lua flags=no-writes\nreturn redis.call('get','before')"),
		cmd("SCRIPT", "LOAD", "#!lua flags=allow-oom\nreturn redis.call('set','k','v')"),
		c("SET before v"), c("CONFIG SET maxmemory 1"),
		cmd("EVAL", "#!lua\nreturn redis.call('get','before')", "0"),
		cmd("EVAL", "#!lua flags=no-writes\nreturn redis.call('get','before')", "0"),
		cmd("EVAL", "#!lua flags=allow-oom\nreturn redis.call('set','k','w')", "0"),
		cmd("EVAL", "#!lua flags=allow-oom\nreturn redis.call('get','k')", "0"),
		cmd("EVAL_RO", "#!lua\nreturn redis.call('get','before')", "0"),
		cmd("EVAL", "#!lua flags=bogus\nreturn 1", "0"),
		cmd("EVAL", "#!lua flags=allow-oom,no-writes\nreturn redis.call('set','k','x')", "0"),
		cmd("EVALSHA", "b943dcabaf23c83f1f5b2e729b580cccb0bcc6a5", "0"), // the first script loaded: denyoom
		cmd("EVALSHA", "e9619c5f422463fe9259d41995f718262c50beb7", "0"), // allow-oom: its SET runs
		c("MULTI"), cmd("EVAL", "#!lua\nreturn 1", "0"), c("EXEC"),
		c("MULTI"), cmd("EVAL", "#!lua flags=no-writes\nreturn 1", "0"), c("EXEC"),
		c("CONFIG SET maxmemory 0"), c("GET k")),
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
