package diff_test

import "time"

// Transactions: MULTI, EXEC, DISCARD, WATCH, UNWATCH. Connection 1 plays the
// other client that changes watched keys.
var multiCases = []diffCase{
	tc("multi exec", c("MULTI"), c("SET k v"), c("GET k"), c("INCR n"), c("EXEC"), c("GET k")),
	tc("multi empty exec", c("MULTI"), c("EXEC")),
	tc("multi lower case", c("multi"), c("set k v"), c("exec")),
	tc("multi discard", c("MULTI"), c("SET k v"), c("DISCARD"), c("GET k"), c("EXEC")),
	tc("multi nested", c("MULTI"), c("SET k v"), c("MULTI"), c("GET k"), c("EXEC")),
	tc("exec without multi", c("EXEC"), c("DISCARD")),
	tc("multi arity", c("MULTI x"), c("EXEC")),
	tc("multi arity inside multi", c("MULTI"), c("MULTI x"), c("SET k v"), c("EXEC"), c("GET k")),
	tc("multi queues errors at exec", c("SET k abc"), c("MULTI"), c("INCR k"), c("SET k v FOO"), c("GET k"), c("EXEC")),
	tc("multi unknown command aborts", c("MULTI"), c("SET k v"), c("NOSUCH x"), c("EXEC"), c("GET k")),
	tc("multi wrong arity aborts", c("MULTI"), c("SET k v"), c("GET"), c("EXEC"), c("GET k")),
	tc("multi unknown subcommand aborts", c("MULTI"), c("CLIENT NOSUCH"), c("EXEC")),
	tc("multi abort then discard", c("MULTI"), c("NOSUCH"), c("DISCARD"), c("EXEC")),
	tc("exec arity inside multi", c("MULTI"), c("SET k v"), c("EXEC x"), c("EXEC"), c("GET k")),
	tc("exec arity outside multi", c("EXEC x"), c("DISCARD x")),
	tc("exec arity drops watches", c("WATCH k"), c("EXEC x"), c("SET k v").on(1), c("MULTI"), c("GET k"), c("EXEC")),
	tc("discard arity inside multi", c("MULTI"), c("DISCARD x"), c("EXEC")),
	tc("watch inside multi", c("MULTI"), c("SET k v"), c("WATCH k"), c("EXEC"), c("GET k")),
	tc("unwatch inside multi", c("WATCH k"), c("MULTI"), c("UNWATCH"), c("SET k v"), c("EXEC")),
	tc("multi queued commands", c("MULTI"), c("PING"), c("ECHO x"), c("SELECT 2"), c("SET k v"), c("CLIENT SETNAME t"), c("EXEC"), c("GET k"), c("CLIENT GETNAME")),
	tc("multi select applies after exec", c("MULTI"), c("SELECT 1"), c("SET k v"), c("EXEC"), c("GET k"), c("SELECT 0"), c("GET k")),
	tc("multi quit", c("MULTI"), c("SET k v"), c("QUIT").eof(), c("GET k").on(1)),
	tc("multi reset", c("MULTI"), c("SET k v"), c("RESET"), c("EXEC"), c("GET k")),
	tc("multi hello switches protocol mid-exec", c("MULTI"), c("HELLO 3").with(helloID), c("GET nosuch"), c("EXEC").with(execHelloID), c("GET nosuch")),
	tc("multi resp3", c("HELLO 3").with(helloID), c("MULTI"), c("GET nosuch"), c("SET k v"), c("EXEC"), c("MULTI"), c("NOSUCH"), c("EXEC")),
	tc("multi expired key at exec", c("SET k v PXAT 1000"), c("MULTI"), c("GET k"), c("TTL k"), c("EXEC")),
	tc("multi flushall", c("SET k v"), c("MULTI"), c("FLUSHALL"), c("GET k"), c("EXEC")),
	tc("multi dbsize and keys", c("MSET a 1 b 2"), c("MULTI"), c("DBSIZE"), c("KEYS a"), c("DEL a b"), c("DBSIZE"), c("EXEC")),

	// WATCH
	tc("watch unchanged", c("SET k v"), c("WATCH k"), c("MULTI"), c("SET k w"), c("EXEC"), c("GET k")),
	tc("watch changed by other", c("SET k v"), c("WATCH k"), c("SET k x").on(1), c("MULTI"), c("SET k y"), c("EXEC"), c("GET k")),
	tc("watch changed by self", c("WATCH k"), c("SET k x"), c("MULTI"), c("PING"), c("EXEC")),
	tc("watch missing key created", c("WATCH k"), c("SET k x").on(1), c("MULTI"), c("PING"), c("EXEC")),
	tc("watch key deleted", c("SET k v"), c("WATCH k"), c("DEL k").on(1), c("MULTI"), c("PING"), c("EXEC")),
	tc("watch missing key deleted", c("WATCH k"), c("DEL k").on(1), c("MULTI"), c("PING"), c("EXEC")),
	tc("watch expire set", c("SET k v"), c("WATCH k"), c("EXPIRE k 100").on(1), c("MULTI"), c("PING"), c("EXEC")),
	tc("watch persist without ttl", c("SET k v"), c("WATCH k"), c("PERSIST k").on(1), c("MULTI"), c("PING"), c("EXEC")),
	tc("watch persist with ttl", c("SET k v EX 100"), c("WATCH k"), c("PERSIST k").on(1), c("MULTI"), c("PING"), c("EXEC")),
	tc("watch refused set nx", c("SET k v"), c("WATCH k"), c("SET k w NX").on(1), c("SETNX k w").on(1), c("MULTI"), c("PING"), c("EXEC")),
	tc("watch refused set xx", c("WATCH k"), c("SET k w XX").on(1), c("MULTI"), c("PING"), c("EXEC")),
	tc("watch read only access", c("SET k v"), c("WATCH k"), c("GET k").on(1), c("GETEX k").on(1), c("TTL k").on(1), c("EXISTS k").on(1), c("MULTI"), c("PING"), c("EXEC")),
	tc("watch getex with ttl", c("SET k v"), c("WATCH k"), c("GETEX k EX 100").on(1), c("MULTI"), c("PING"), c("EXEC")),
	tc("watch incr", c("SET k 1"), c("WATCH k"), c("INCR k").on(1), c("MULTI"), c("GET k"), c("EXEC")),
	tc("watch append", c("SET k 1"), c("WATCH k"), c("APPEND k x").on(1), c("MULTI"), c("GET k"), c("EXEC")),
	tc("watch getdel", c("SET k 1"), c("WATCH k"), c("GETDEL k").on(1), c("MULTI"), c("PING"), c("EXEC")),
	tc("watch mset", c("WATCH a b"), c("MSET c 1 b 2").on(1), c("MULTI"), c("PING"), c("EXEC")),
	tc("watch msetnx refused", c("SET b x"), c("WATCH a"), c("MSETNX a 1 b 2").on(1), c("MULTI"), c("PING"), c("EXEC")),
	tc("watch flushall with key", c("SET k v"), c("WATCH k"), c("FLUSHALL").on(1), c("MULTI"), c("PING"), c("EXEC")),
	tc("watch flushall without key", c("WATCH k"), c("FLUSHALL").on(1), c("MULTI"), c("PING"), c("EXEC")),
	tc("watch flushdb other database", c("SET k v"), c("WATCH k"), c("SELECT 1").on(1), c("FLUSHDB").on(1), c("MULTI"), c("PING"), c("EXEC")),
	tc("watch other database", c("WATCH k"), c("SELECT 1").on(1), c("SET k v").on(1), c("MULTI"), c("PING"), c("EXEC")),
	tc("watch in selected database", c("SELECT 2"), c("WATCH k"), c("SELECT 2").on(1), c("SET k v").on(1), c("MULTI"), c("PING"), c("EXEC")),
	tc("watch several keys one changed", c("WATCH a b c"), c("SET b 1").on(1), c("MULTI"), c("PING"), c("EXEC")),
	tc("watch same key twice", c("WATCH k k"), c("WATCH k"), c("SET k 1").on(1), c("MULTI"), c("PING"), c("EXEC")),
	tc("unwatch", c("WATCH k"), c("UNWATCH"), c("SET k v").on(1), c("MULTI"), c("PING"), c("EXEC")),
	tc("unwatch arity", c("UNWATCH x"), c("WATCH")),
	tc("exec clears watches", c("WATCH k"), c("MULTI"), c("EXEC"), c("SET k v").on(1), c("MULTI"), c("PING"), c("EXEC")),
	tc("failed exec clears watches", c("WATCH k"), c("SET k v").on(1), c("MULTI"), c("EXEC"), c("SET k w").on(1), c("MULTI"), c("PING"), c("EXEC")),
	tc("discard clears watches", c("WATCH k"), c("MULTI"), c("DISCARD"), c("SET k v").on(1), c("MULTI"), c("PING"), c("EXEC")),
	tc("watch expired at watch time", c("SET k v PXAT 1000"), c("WATCH k"), c("MULTI"), c("PING"), c("EXEC")),
	tc("watch expired key deleted", c("SET k v PXAT 1000"), c("WATCH k"), c("DEL k").on(1), c("MULTI"), c("PING"), c("EXEC")),
	tc("watch expired key recreated", c("SET k v PXAT 1000"), c("WATCH k"), c("SET k w").on(1), c("MULTI"), c("PING"), c("EXEC")),
	tc("watch key expires", c("SET k v PX 100"), c("WATCH k"), pause(200*time.Millisecond), c("MULTI"), c("PING"), c("EXEC")),
	tc("watch in resp3 aborted", c("HELLO 3").with(helloID), c("WATCH k"), c("SET k v").on(1), c("MULTI"), c("PING"), c("EXEC")),
	tcAuth("multi before auth", c("MULTI"), c("SET k v"), c("EXEC"), c("AUTH "+diffPassword), c("MULTI"), c("SET k v"), c("EXEC")),
	tcAuth("auth inside multi", c("AUTH "+diffPassword), c("MULTI"), c("AUTH "+diffPassword), c("AUTH nope"), c("EXEC")),
}

// execHelloID is helloID for an EXEC reply whose only element is HELLO's.
var execHelloID = &normalizer{"EXEC of HELLO id", func(b []byte) ([]byte, bool) {
	elems, ok := arrayElems(b)
	if !ok || len(elems) != 2 {
		return nil, false
	}
	return append([]byte("*2\r\n"), append(helloID.apply(elems[0]), elems[1]...)...), true
}}
