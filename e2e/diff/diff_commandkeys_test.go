package diff_test

// COMMAND GETKEYS, GETKEYSANDFLAGS and LIST FILTERBY, read from the key
// specs and ACL categories of Redis's own COMMAND INFO. Only filters whose
// matches minilock has all of are compared (COMMAND LIST unfiltered names
// commands minilock lacks); the lists are compared sorted, as Redis lists
// its dict's order.

func getkeysBoth(args ...string) []step {
	return []step{cmd(append([]string{"COMMAND", "GETKEYS"}, args...)...), cmd(append([]string{"COMMAND", "GETKEYSANDFLAGS"}, args...)...)}
}

func getkeysCase(name string, lines ...[]string) diffCase {
	var steps []step
	for _, l := range lines {
		steps = append(steps, getkeysBoth(l...)...)
	}
	return tc(name, steps...)
}

var commandKeysCases = []diffCase{
	getkeysCase("getkeys fixed positions", []string{"GET", "k"}, []string{"SET", "k", "v"}, []string{"SET", "k", "v", "GET"}, []string{"set", "k", "v", "EX", "1", "get"},
		[]string{"MSET", "a", "1", "b", "2"}, []string{"MGET", "a", "b", "c"}, []string{"DEL", "a", "b"}, []string{"RENAME", "a", "b"}, []string{"LMOVE", "a", "b", "LEFT", "RIGHT"},
		[]string{"BLPOP", "a", "b", "0"}, []string{"HSET", "h", "f", "v"}, []string{"COPY", "a", "b", "REPLACE"}, []string{"SMOVE", "a", "b", "m"}, []string{"OBJECT", "ENCODING", "k"},
		[]string{"MEMORY", "USAGE", "k"}, []string{"WATCH", "a", "b"}, []string{"EXPIRE", "k", "10"}, []string{"GETEX", "k", "PERSIST"}, []string{"MSETNX", "a", "1", "b"}),
	getkeysCase("getkeys numkeys", []string{"EVAL", "s", "2", "a", "b", "c"}, []string{"EVAL", "s", "0"}, []string{"EVAL", "s", "x"}, []string{"EVAL", "s", "-1"}, []string{"EVAL", "s", "5", "a"},
		[]string{"EVALSHA", "abc", "1", "k"}, []string{"EVAL_RO", "s", "1", "k"}, []string{"ZUNIONSTORE", "d", "2", "a", "b", "WEIGHTS", "1", "2"}, []string{"ZUNION", "2", "a", "b"},
		[]string{"ZUNION", "-1", "a"}, []string{"ZUNION", "3", "a", "b"}, []string{"ZINTER", "0", "a"}, []string{"ZINTERSTORE", "d", "1", "a"}, []string{"ZDIFFSTORE", "d", "2", "a"},
		[]string{"LMPOP", "2", "a", "b", "LEFT"}, []string{"BLMPOP", "0", "2", "a", "b", "LEFT"}, []string{"ZMPOP", "1", "z", "MIN"}, []string{"BZMPOP", "0", "1", "z", "MAX"},
		[]string{"SINTERCARD", "2", "a", "b"}, []string{"ZINTERCARD", "1", "a", "LIMIT", "1"}, []string{"SINTERSTORE", "d", "a", "b"}, []string{"ZRANGESTORE", "d", "s", "0", "-1"}),
	getkeysCase("getkeys errors", []string{"NOSUCH", "x"}, []string{"SET", "k"}, []string{"GET", "a", "b"}, []string{"PING", "x"}, []string{"SPUBLISH", "ch", "m"},
		[]string{"PUBLISH", "ch", "m"}, []string{"CONFIG", "GET", "x"}, []string{"CONFIG", "FOO"}, []string{"CLIENT", "LIST"}, []string{"COMMAND", "INFO"}, []string{"INFO", "x"}),
	tc("getkeys arity", c("COMMAND GETKEYS"), c("COMMAND GETKEYS GET"), c("COMMAND GETKEYSANDFLAGS GET"), c("command getkeys get k"), c("COMMAND GETKEYSANDFLAGS ZADD z 1 m")),
	tc("getkeys resp3", c("HELLO 3").with(helloID), c("COMMAND GETKEYSANDFLAGS SET k v GET"), c("COMMAND GETKEYSANDFLAGS EVAL s 1 k"), c("COMMAND GETKEYS MGET a b")),
	tc("getkeys from scripts", cmd("EVAL", "return redis.call('COMMAND', 'GETKEYS', 'MSET', 'a', '1', 'b', '2')", "0"), cmd("EVAL", "return redis.pcall('COMMAND', 'GETKEYS', 'NOSUCH', 'x')", "0"),
		c("MULTI"), c("COMMAND GETKEYS GET k"), c("EXEC")),
	tc("command list filterby", c("COMMAND LIST FILTERBY PATTERN h*").with(sorted), c("COMMAND LIST FILTERBY PATTERN Z*").with(sorted), c("COMMAND LIST FILTERBY PATTERN slowlog*").with(sorted),
		c("COMMAND LIST FILTERBY PATTERN object*").with(sorted), c("COMMAND LIST FILTERBY PATTERN pubsub*").with(sorted), c("COMMAND LIST FILTERBY PATTERN [gs]et[^b]*").with(sorted),
		c("COMMAND LIST FILTERBY PATTERN nosuch"), c("COMMAND LIST FILTERBY ACLCAT hash").with(sorted), c("COMMAND LIST FILTERBY aclcat PUBSUB").with(sorted),
		c("COMMAND LIST FILTERBY ACLCAT transaction").with(sorted), c("COMMAND LIST FILTERBY ACLCAT nosuch"), c("COMMAND LIST FILTERBY ACLCAT @hash"), c("COMMAND LIST FILTERBY MODULE x"),
		c("COMMAND LIST FILTERBY MODULE")),
	tc("command list errors", c("COMMAND LIST x"), c("COMMAND LIST FILTERBY foo x"), c("COMMAND LIST FILTERBY PATTERN a FILTERBY PATTERN b"), c("COMMAND LIST FILTERBY PATTERN a b"),
		c("COMMAND LIST FILTERBY")),
}
