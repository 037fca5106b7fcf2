package diff_test

import (
	"strings"

	"github.com/minilock/minilock/resp"
)

// Connection and server commands: PING, ECHO, AUTH, SELECT, HELLO, CLIENT,
// QUIT, RESET, COMMAND, TIME, CONFIG GET, INFO; unknown commands and
// subcommands; arity; NOAUTH and its place in the order of checks; RESP3.
var connCases = []diffCase{
	// PING, ECHO
	tc("ping", c("PING"), c("ping"), c("PING hello"), cmd("PING", ""), cmd("PING", "a\r\nb\x00")),
	tc("ping arity", c("PING a b"), c("PING a b c")),
	tc("echo", c("ECHO hello"), cmd("ECHO", ""), cmd("ECHO", "\x00\xff\r\n"), cmd("ECHO", strings.Repeat("x", 100000))),
	tc("echo arity", c("ECHO"), c("ECHO a b")),

	// AUTH without a password configured
	tc("auth without password", c("AUTH foo"), c("AUTH default anything"), c("PING")),
	tc("auth unknown user without password", c("AUTH bob foo"), c("PING")),
	tc("auth syntax", c("AUTH a b c"), c("AUTH a b c d")),
	tc("auth forms without password", c("AUTH default"), cmd("AUTH", ""), cmd("AUTH", "default", ""), cmd("AUTH", "", "x"), c("HELLO 3 AUTH default").with(helloID)),
	tc("auth arity", c("AUTH")),

	// AUTH with requirepass
	tcAuth("noauth", c("PING"), c("GET k"), c("SET k v"), c("SELECT 1"), c("CLIENT ID")),
	tcAuth("auth password", c("AUTH "+diffPassword), c("PING"), c("SET k v"), c("GET k")),
	tcAuth("auth default user", c("AUTH default "+diffPassword), c("PING")),
	tcAuth("auth wrong password", c("AUTH nope"), c("PING"), c("AUTH default nope"), c("PING")),
	tcAuth("auth unknown user", c("AUTH bob "+diffPassword), c("PING")),
	tcAuth("auth user case sensitive", c("AUTH DEFAULT "+diffPassword), c("AUTH "+strings.ToUpper(diffPassword)), c("PING")),
	tcAuth("auth failure keeps earlier success", c("AUTH "+diffPassword), c("AUTH nope"), c("PING")),
	tcAuth("auth syntax before password", c("AUTH a b c"), c("PING")),
	tcAuth("auth binary password", cmd("AUTH", diffPassword+"\x00"), cmd("AUTH", ""), c("PING")),
	tcAuth("noauth after unknown command and arity", c("NOSUCH a"), c("GET"), c("GET a b"), c("GET k"), c("CLIENT FOO"), c("CLIENT"), c("CLIENT GETNAME x")),
	tcAuth("noauth-free commands", c("QUIT x y").eof()),
	tcAuth("noauth for transactions", c("MULTI"), c("EXEC"), c("WATCH k"), c("DISCARD")),
	tcAuth("auth per connection", c("AUTH "+diffPassword), c("PING").on(1), c("PING")),

	// SELECT
	tc("select", c("SET k 0"), c("SELECT 1"), c("GET k"), c("SET k 1"), c("SELECT 15"), c("GET k"), c("SELECT 1"), c("GET k"), c("SELECT 0"), c("GET k")),
	tc("select out of range", c("SELECT 16"), c("SELECT -1"), c("SELECT 2147483647"), c("SELECT -2147483648")),
	tc("select int range", c("SELECT 2147483648"), c("SELECT -2147483649"), c("SELECT 9223372036854775807")),
	tc("select not integer", c("SELECT abc"), c("SELECT 1.0"), c("SELECT 01"), c("SELECT +1"), c("SELECT -0"), cmd("SELECT", ""), c("SELECT 9223372036854775808")),
	tc("select arity", c("SELECT"), c("SELECT 1 2")),
	tc("select is per connection", c("SELECT 3"), c("SET k v"), c("GET k").on(1), c("SELECT 3").on(1), c("GET k").on(1)),

	// HELLO
	tc("hello", c("HELLO").with(helloID), c("GET nosuch")),
	tc("hello 2", c("HELLO 2").with(helloID), c("GET nosuch")),
	tc("hello 3", c("HELLO 3").with(helloID), c("GET nosuch"), c("HELLO").with(helloID), c("HELLO 2").with(helloID), c("GET nosuch")),
	tc("hello bad protocol", c("HELLO 1"), c("HELLO 4"), c("HELLO 0"), c("HELLO -3"), c("GET nosuch")),
	tc("hello not integer", c("HELLO abc"), c("HELLO 3.0"), c("HELLO 03"), c("HELLO +3"), cmd("HELLO", ""), c("HELLO 9223372036854775808")),
	tc("hello syntax", c("HELLO 3 FOO"), c("HELLO 3 AUTH default"), c("HELLO 3 SETNAME"), c("HELLO 3 AUTH"), c("HELLO FOO"), c("GET nosuch")),
	tc("hello setname", c("HELLO 3 SETNAME myconn").with(helloID), c("CLIENT GETNAME")),
	tc("hello setname invalid", c("HELLO 3 SETNAME a\x01b"), cmd("HELLO", "3", "SETNAME", "a b"), c("CLIENT GETNAME"), c("GET nosuch")),
	tc("hello setname empty", c("CLIENT SETNAME x"), cmd("HELLO", "2", "SETNAME", "").with(helloID), c("CLIENT GETNAME")),
	tc("hello options repeated", c("HELLO 2 SETNAME a SETNAME b").with(helloID), c("CLIENT GETNAME")),
	tc("hello options lower case", c("hello 3 setname x auth default pw").with(helloID), c("CLIENT GETNAME")),
	tc("hello auth without password", c("HELLO 3 AUTH default whatever").with(helloID), c("HELLO 2 AUTH bob whatever"), c("GET nosuch")),
	tcAuth("hello auth", c("HELLO 3 AUTH default "+diffPassword).with(helloID), c("PING"), c("GET nosuch")),
	tcAuth("hello auth wrong", c("HELLO 3 AUTH default nope"), c("GET nosuch"), c("HELLO 3 AUTH bob "+diffPassword)),
	tcAuth("hello unauthenticated", c("HELLO"), c("HELLO 3"), c("HELLO 2 SETNAME x"), c("CLIENT GETNAME")),
	tcAuth("hello auth and setname", c("HELLO 2 AUTH default "+diffPassword+" SETNAME app").with(helloID), c("CLIENT GETNAME")),
	tcAuth("hello auth after setname", c("HELLO 3 SETNAME app AUTH default "+diffPassword).with(helloID), c("CLIENT GETNAME")),
	tcAuth("hello bad setname before auth", cmd("HELLO", "3", "SETNAME", "a b", "AUTH", "default", "nope"), cmd("HELLO", "3", "SETNAME", "a b"), c("PING")),
	tcAuth("hello bad protocol before auth", c("HELLO 4 AUTH default "+diffPassword), c("HELLO x"), c("PING")),
	tcAuth("hello auth wrong keeps protocol", c("HELLO 3 AUTH default nope"), c("AUTH "+diffPassword), c("GET nosuch")),

	// RESP3 replies
	tc("resp3 strings", c("HELLO 3").with(helloID), c("SET k v"), c("GET k"), c("SET k v NX"), c("SET k w XX GET"), c("MGET k nosuch"), c("GETDEL nosuch"), c("GETEX nosuch")),
	tc("resp3 keys", c("HELLO 3").with(helloID), c("MSET a 1 b 2"), c("EXISTS a b"), c("TYPE a"), c("KEYS a"), c("SCAN 0 MATCH nothing"), c("DBSIZE"), c("TTL a")),
	tc("resp3 errors", c("HELLO 3").with(helloID), c("NOSUCH"), c("GET"), c("SET k abc"), c("INCR k"), c("SELECT 99")),
	tc("resp3 connection", c("HELLO 3").with(helloID), c("PING"), c("PING x"), c("ECHO y"), c("CLIENT GETNAME"), c("CLIENT SETNAME n"), c("CLIENT GETNAME"), c("CLIENT ID").with(clientID)),
	tc("resp3 config and command", c("HELLO 3").with(helloID), c("CONFIG GET databases"), c("CONFIG GET nosuch"), c("COMMAND INFO get nosuch"), c("COMMAND DOCS get"), c("TIME").with(timeShape)),
	tc("resp3 client info", c("HELLO 3").with(helloID), c("CLIENT INFO").with(clientFields)),
	tc("resp3 string commands", c("HELLO 3").with(helloID), c("SETNX k 1"), c("INCR k"), c("INCRBY k 5"), c("DECRBY k 2"), c("APPEND k x"), c("STRLEN k"),
		c("GETRANGE k 0 0"), c("GETSET k v"), c("SETEX a 100 v"), c("PSETEX b 100000 v"), c("MSETNX a 1 c 2"), c("GETEX a PERSIST"), c("MGET a nosuch")),
	tc("resp3 expiry commands", c("HELLO 3").with(helloID), c("SET k v"), c("EXPIRE k 100"), c("EXPIRE nosuch 100"), c("PEXPIREAT k "+farMs),
		c("EXPIRETIME k"), c("PEXPIRETIME k"), c("TTL nosuch"), c("PERSIST k"), c("PERSIST k")),
	tc("resp3 key commands", c("HELLO 3").with(helloID), c("MSET a 1 b 2"), c("DEL a"), c("UNLINK b nosuch"), c("TOUCH a"), c("TYPE a"),
		c("KEYS *"), c("SCAN 0"), scanAll("MATCH", "*"), c("SELECT 1"), c("FLUSHDB"), c("FLUSHALL")),
	tc("resp3 transactions", c("HELLO 3").with(helloID), c("WATCH k"), c("UNWATCH"), c("MULTI"), c("SET k v"), c("GET k"), c("EXEC"),
		c("MULTI"), c("DISCARD"), c("EXEC")),
	tc("resp3 server commands", c("HELLO 3").with(helloID), c("CONFIG GET databases timeout").with(sortedPairs), c("CLIENT LIST TYPE master"),
		c("INFO keyspace"), c("SET k v"), c("INFO keyspace"), c("COMMAND INFO ping"), c("QUIT").eof()),
	tc("resp3 reset", c("HELLO 3").with(helloID), c("RESET"), c("GET nosuch")),

	// CLIENT
	tc("client id", c("CLIENT ID").with(clientID), c("client id").with(clientID)),
	tc("client id arity", c("CLIENT ID x")),
	tc("client getname setname", c("CLIENT GETNAME"), c("CLIENT SETNAME foo"), c("CLIENT GETNAME"), cmd("CLIENT", "SETNAME", ""), c("CLIENT GETNAME")),
	tc("client setname per connection", c("CLIENT SETNAME a"), c("CLIENT GETNAME").on(1), c("CLIENT GETNAME")),
	tc("client setname invalid", cmd("CLIENT", "SETNAME", "a b"), cmd("CLIENT", "SETNAME", "a\nb"), cmd("CLIENT", "SETNAME", "a\x7f"), cmd("CLIENT", "SETNAME", "\xc3\xa9"), cmd("CLIENT", "SETNAME", "a\x00"), c("CLIENT GETNAME")),
	tc("client setname edge characters", c("CLIENT SETNAME !~"), c("CLIENT GETNAME"), cmd("CLIENT", "SETNAME", strings.Repeat("n", 1000)), c("CLIENT GETNAME")),
	tc("client name arity", c("CLIENT SETNAME"), c("CLIENT SETNAME a b"), c("CLIENT GETNAME x")),
	tc("client setinfo is unknown in 7.0", c("CLIENT SETINFO LIB-NAME go-redis"), c("CLIENT SETINFO lib-ver 9.0"), c("client setinfo")),
	tc("client unknown subcommand", c("CLIENT FOO"), c("CLIENT foo bar"), cmd("CLIENT", strings.Repeat("s", 200)), cmd("CLIENT", "a\r\nb")),
	tc("client arity", c("CLIENT")),
	tc("client info", c("CLIENT INFO").with(clientFields)),
	tc("client info state", c("CLIENT SETNAME me"), c("SELECT 4"), c("CLIENT INFO").with(clientFields)),
	tc("client info arity", c("CLIENT INFO x")),
	tc("client list", c("CLIENT SETNAME me"), c("CLIENT LIST").with(clientFields)),
	tc("client list types", c("CLIENT LIST TYPE normal").with(clientFields), c("CLIENT LIST TYPE master"), c("CLIENT LIST TYPE replica"), c("CLIENT LIST TYPE pubsub"), c("CLIENT LIST TYPE slave")),
	tc("client list bad type", c("CLIENT LIST TYPE foo"), c("CLIENT LIST TYPE"), c("CLIENT LIST foo")),
	tc("client info inside exec", c("MULTI"), c("CLIENT INFO"), c("SET k v"), c("EXEC").with(execClientFields)),
	tc("client list shows other connections", c("CLIENT SETNAME other").on(1), c("MULTI").on(1), c("CLIENT LIST").with(clientFields), c("SET k v").on(1), c("CLIENT LIST").with(clientFields), c("EXEC").on(1), c("CLIENT LIST").with(clientFields)),
	tc("client list last command", c("PING").on(1), c("CLIENT LIST").with(clientFields), c("NOSUCH").on(1), c("CLIENT LIST").with(clientFields), c("GET").on(1), c("CLIENT LIST").with(clientFields)),
	tc("client list resp3 connection", c("HELLO 3").on(1).with(helloID), c("SELECT 7").on(1), c("CLIENT LIST TYPE normal").with(clientFields)),
	tc("client list id", c("CLIENT LIST ID 999999"), c("CLIENT LIST ID abc"), c("CLIENT LIST ID")),
	tc("client no-evict", c("CLIENT NO-EVICT on"), c("CLIENT NO-EVICT OFF"), c("CLIENT NO-EVICT maybe"), c("CLIENT NO-EVICT")),

	// QUIT, RESET
	tc("quit", c("QUIT").eof()),
	tc("quit with arguments", c("QUIT now please").eof()),
	tc("quit stops the pipeline", raw("PING\r\nQUIT\r\nPING\r\n").eof()),
	tc("quit leaves data", c("SET k v"), c("QUIT").eof(), c("GET k").on(1)),
	tc("reset", c("SELECT 2"), c("CLIENT SETNAME x"), c("SET k v"), c("RESET"), c("CLIENT GETNAME"), c("GET k"), c("CLIENT INFO").with(clientFields)),
	tc("reset protocol", c("HELLO 3").with(helloID), c("RESET"), c("HELLO").with(helloID)),
	tc("reset arity", c("RESET x")),
	tcAuth("reset deauthenticates", c("AUTH "+diffPassword), c("PING"), c("RESET"), c("PING")),
	tcAuth("reset allowed before auth", c("RESET"), c("PING")),

	// COMMAND: COUNT and the full list differ deliberately; INFO and DOCS
	// of minilock's commands are Redis's own.
	tc("command info", c("COMMAND INFO get"), c("COMMAND INFO set del expire")),
	tc("command info case and unknown", c("COMMAND INFO GET nosuch Set"), c("COMMAND INFO nosuch"), c("COMMAND INFO get get")),
	tc("command info containers", c("COMMAND INFO client").with(subcommandsSorted), c("COMMAND INFO config script").with(subcommandsSorted)),
	tc("command info connection", c("COMMAND INFO ping hello auth quit reset select multi exec watch")),
	tc("command info keys", c("COMMAND INFO keys scan dbsize flushdb flushall exists touch type unlink")),
	tc("command info strings", c("COMMAND INFO setnx setex psetex getset getdel getex getrange mget mset msetnx")),
	tc("command info numbers and ttl", c("COMMAND INFO incr incrby decr decrby strlen append ttl pttl expiretime pexpiretime persist pexpire expireat pexpireat")),
	tc("command docs", c("COMMAND DOCS get"), c("COMMAND DOCS set"), c("COMMAND DOCS nosuch"), c("COMMAND DOCS get nosuch expire")),
	tc("command docs containers", c("COMMAND DOCS client").with(docsSubcommandsSorted), c("COMMAND DOCS config script get").with(docsSubcommandsSorted), c("COMMAND DOCS hello")),
	tc("command docs resp3", c("HELLO 3").with(helloID), c("COMMAND DOCS set getex"), c("COMMAND INFO set nosuch")),
	tc("command info of subcommands", c("COMMAND INFO client|setname"), c("COMMAND INFO get CLIENT|SETNAME nosuch client|nosuch get|x script|load config|get"),
		c("COMMAND DOCS client|setname"), c("COMMAND DOCS client|id get client|id script|flush")),
	tc("command info of subcommands resp3", c("HELLO 3").with(helloID), c("COMMAND INFO client|info script|kill"), c("COMMAND DOCS client|getname")),
	tc("command unknown subcommand", c("COMMAND FOO"), c("command bar")),
	tc("command subcommand arity", c("COMMAND COUNT x"), c("COMMAND LIST FILTERBY")),

	// TIME, CONFIG GET, INFO
	tc("time", c("TIME").with(timeShape)),
	tc("time arity", c("TIME x")),
	tc("config get", c("CONFIG GET databases"), c("CONFIG GET maxclients"), c("CONFIG GET timeout"), c("CONFIG GET requirepass")),
	tc("config get limits", c("CONFIG GET proto-max-bulk-len"), c("CONFIG GET client-query-buffer-limit"), c("CONFIG GET busy-reply-threshold"), c("CONFIG GET lua-time-limit")),
	tc("config get persistence", c("CONFIG GET save"), c("CONFIG GET appendonly"), c("CONFIG GET maxmemory"), c("CONFIG GET maxmemory-policy")),
	tc("config get network", c("CONFIG GET bind"), c("CONFIG GET protected-mode")),
	tcAuth("config get requirepass", c("AUTH "+diffPassword), c("CONFIG GET requirepass")),
	tc("config get case", c("CONFIG GET DATABASES"), c("config get Databases")),
	tc("config get several", c("CONFIG GET databases maxclients").with(sortedPairs), c("CONFIG GET timeout databases timeout").with(sortedPairs)),
	tc("config get unknown", c("CONFIG GET nosuch"), c("CONFIG GET nosuch databases")),
	tc("config get glob", c("CONFIG GET databas?"), c("CONFIG GET lua-time-*"), c("CONFIG GET nosuch*")),
	tc("config arity", c("CONFIG GET"), c("CONFIG")),
	tc("config unknown subcommand", c("CONFIG FOO"), c("config nope x")),
	tc("info keyspace", c("INFO keyspace"), c("SET k v"), c("SELECT 3"), c("MSET a 1 b 2"), c("INFO keyspace")),

	// Scripting, as far as the dispatch and the locking recipes see it (the
	// Lua engine has its own tests).
	tc("eval", cmd("EVAL", "return 1", "0"), cmd("EVAL", "return {1, 'a', false}", "0"), cmd("EVAL", "return redis.status_reply('FINE')", "0")),
	tc("eval keys and args", cmd("EVAL", "return {KEYS[1], ARGV[1], #KEYS, #ARGV}", "1", "k", "a", "b")),
	tc("eval numkeys errors", cmd("EVAL", "return 1", "x"), cmd("EVAL", "return 1", "2", "k"), cmd("EVAL", "return 1", "-1"), cmd("EVAL", "return 1", "01")),
	tc("eval arity", c("EVAL"), cmd("EVAL", "return 1"), c("EVALSHA abc"), c("EVAL_RO x"), c("EVALSHA_RO")),
	tc("eval redis.call", cmd("EVAL", "redis.call('SET', KEYS[1], ARGV[1], 'PX', 100000); return redis.call('GET', KEYS[1])", "1", "k", "v"), c("TTL k")),
	tc("eval lock release", c("SET lock tok"), cmd("EVAL", "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end", "1", "lock", "other"),
		cmd("EVAL", "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end", "1", "lock", "tok"), c("EXISTS lock")),
	tc("eval errors", cmd("EVAL", "return redis.call('NOSUCH')", "0"), cmd("EVAL", "return redis.pcall('INCR', 'k', 'x')", "0"), cmd("EVAL", "error('boom')", "0"), cmd("EVAL", "return +", "0")),
	tc("eval in resp3", c("HELLO 3").with(helloID), cmd("EVAL", "return {1, false, 'x'}", "0"), cmd("EVAL", "redis.setresp(3); return redis.call('GET', 'nosuch')", "0")),
	tc("evalsha noscript", c("EVALSHA ffffffffffffffffffffffffffffffffffffffff 0"), c("EVALSHA abc 0"), c("EVALSHA_RO ffffffffffffffffffffffffffffffffffffffff 0")),
	tc("script load and evalsha", cmd("SCRIPT", "LOAD", "return 'hi'"), c("EVALSHA 59bd3bbfdcc5a8d1b6b9d1ca4d2d2d3c6fa6bd48 0"), c("SCRIPT EXISTS 59bd3bbfdcc5a8d1b6b9d1ca4d2d2d3c6fa6bd48 59BD3BBFDCC5A8D1B6B9D1CA4D2D2D3C6FA6BD48 nosuch")),
	tc("script flush", cmd("EVAL", "return 1", "0"), c("SCRIPT EXISTS e0e1f9fabfc9d4800c877a703b823ac0578ff8db"), c("SCRIPT FLUSH"), c("SCRIPT EXISTS e0e1f9fabfc9d4800c877a703b823ac0578ff8db"), c("SCRIPT FLUSH ASYNC"), c("SCRIPT FLUSH sync"), c("SCRIPT FLUSH NOW"), c("SCRIPT FLUSH SYNC ASYNC")),
	tc("script kill not busy", c("SCRIPT KILL"), c("SCRIPT KILL x")),
	tc("script errors", c("SCRIPT"), c("SCRIPT FOO"), c("SCRIPT LOAD"), c("SCRIPT EXISTS"), cmd("SCRIPT", "LOAD", "return +")),
	tc("eval inside multi", c("MULTI"), cmd("EVAL", "return redis.call('INCR', KEYS[1])", "1", "n"), cmd("SCRIPT", "LOAD", "return +"), c("EXEC")),
	tcAuth("eval before auth", cmd("EVAL", "return 1", "0"), c("SCRIPT FLUSH"), c("EVAL")),

	// Unknown commands and arity
	tc("unknown command", c("FOO"), c("FOO a b"), c("foo A")),
	tc("unknown command long args", cmd("FOO", strings.Repeat("a", 200)), cmd("FOO", strings.Repeat("a", 100), strings.Repeat("b", 100), "c"), cmd("FOO", strings.Repeat("a", 126), "b", "c")),
	tc("unknown command many args", cmd(strings.Split("FOO"+strings.Repeat(" x", 100), " ")...)),
	tc("unknown command binary args", cmd("FOO", "a\r\nb", "c\nd\re"), cmd("FOO", "a\x00b", "c"), cmd("FOO", "\xff\xfe")),
	tc("unknown command long name", cmd(strings.Repeat("F", 200), "a"), cmd("F\r\nO", "x"), cmd("F\x00O", "x")),
	// Not "GET\x00": Redis finds a command by a seeded hash of all its
	// bytes and then compares with strcasecmp, which stops at the NUL, so
	// "GET\x00" is GET in the few processes whose seed puts both in one
	// bucket. "GE\x00T" is unknown whatever the seed.
	tc("unknown command near names", cmd("GE\x00T", "k"), cmd("GETT", "k"), cmd("", "k"), cmd("CLIENT|ID")),
	tc("unknown command empty arg", cmd("FOO", ""), cmd("FOO", "", "")),
	tc("unknown command keeps connection", c("FOO"), c("PING")),
	tc("wrong arity", c("GET"), c("get a b"), c("SET k"), c("MGET"), c("DEL"), c("TTL"), c("EXPIRE k")),
	tc("wrong arity of connection commands", c("PING a b"), c("SELECT"), c("HELLO 3 AUTH"), c("ECHO")),
}

// execClientFields is clientFields for the elements of an EXEC reply.
var execClientFields = &normalizer{"EXEC of CLIENT fields", func(b []byte) ([]byte, bool) {
	it, _, _ := resp.Next(b)
	elems, ok := arrayElems(b)
	if !ok {
		return nil, false
	}
	for i := range elems {
		elems[i] = clientFields.apply(elems[i])
	}
	return joinElems(it, elems), true
}}
