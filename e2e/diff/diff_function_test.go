package diff_test

import (
	"strconv"

	"github.com/minilock/minilock/internal/rdbfmt"
)

// Functions (Redis 7.0): FUNCTION LOAD/LIST/DELETE/FLUSH/STATS/KILL/DUMP/
// RESTORE/HELP, FCALL and FCALL_RO: the library shebang, the load-time
// API, registration in both forms, flags, errors at load and at run time,
// both protocols, MULTI, WATCH and MONITOR. Each case starts with FUNCTION
// FLUSH. Redis lists and dumps libraries in its dictionary's order (random
// per process), so a case that lists or dumps has one library in sight.
//
//	go test -run 'TestDiff/function' -v ./e2e/diff

// fc is a case that starts with no libraries on either server.
func fc(name string, steps ...step) diffCase {
	return tc(name, append([]step{c("FUNCTION FLUSH")}, steps...)...)
}

// fload is FUNCTION LOAD [opts...] code.
func fload(code string, opts ...string) step {
	return cmd(append(append([]string{"FUNCTION", "LOAD"}, opts...), code)...)
}

// fcall is FCALL name numkeys keysAndArgs...
func fcall(name string, numkeys int, keysAndArgs ...string) step {
	return cmd(append([]string{"FCALL", name, strconv.Itoa(numkeys)}, keysAndArgs...)...)
}

// lib is a library named name whose body is body.
func lib(name, body string) string { return "#!lua name=" + name + "\n" + body }

// payload is a FUNCTION DUMP payload of the given records, with a valid
// footer.
func payload(records ...[]byte) string {
	var b []byte
	for _, r := range records {
		b = append(b, r...)
	}
	return string(rdbfmt.AppendFooter(b))
}

// fn2 is an RDB_OPCODE_FUNCTION2 record of code.
func fn2(code string) []byte {
	return rdbfmt.AppendString([]byte{rdbfmt.OpFunction2}, []byte(code))
}

const (
	libEcho = "#!lua name=echo\nredis.register_function('echo', function(keys, args) return {keys, args} end)"
	libRW   = "#!lua name=rw\n" +
		"redis.register_function('setk', function(keys, args) return redis.call('set', keys[1], args[1]) end)\n" +
		"redis.register_function{function_name='getk', callback=function(keys) return redis.call('get', keys[1]) end, flags={'no-writes'}, description='reads a key'}"
	// libRO has one function: Redis lists a library's functions in its
	// dictionary's order, random per process.
	libRO = "#!lua name=ro\nredis.register_function{function_name='getk', callback=function(keys) return redis.call('get', keys[1]) end, flags={'no-writes', 'allow-stale'}, description='reads a key'}"
)

var functionCases = []diffCase{
	// Metadata and load errors.
	fc("load missing metadata", fload("return 1")),
	fc("load invalid metadata", fload("#!lua name=x")),
	fc("load no name", fload("#!lua\nreturn 1")),
	fc("load bad option", fload("#!lua name=x foo=bar\nreturn 1")),
	fc("load name twice", fload("#!lua name=x name=y\nreturn 1")),
	fc("load bad library name", fload("#!lua name=a-b\nreturn 1")),
	fc("load empty library name", fload("#!lua name=\nreturn 1")),
	fc("load unknown engine", fload("#!js name=x\nreturn 1")),
	fc("load engine case", fload("#!LUA name=x\nredis.register_function('f', function() return 1 end)"), fcall("f", 0)),
	fc("load quoted shebang", fload("#!lua \"name=x\"\nredis.register_function('f', function() return 1 end)"), fcall("f", 0)),
	fc("load unbalanced quotes", fload("#!lua \"name=x\nreturn 1")),
	fc("load name case", fload("#!lua NAME=x\nredis.register_function('f', function() return 1 end)")),
	fc("load no functions", fload(lib("x", "local a = 1"))),
	fc("load compile error", fload(lib("x", "return +"))),
	fc("load runtime error", fload(lib("x", "error('boom')"))),
	fc("load error table", fload(lib("x", "redis.register_function('f', 1, 2, 3)"))),
	fc("load redis.call", fload(lib("x", "redis.call('set', 'k', 'v')"))),
	fc("load string lib", fload(lib("x", "local n = string.len('a')"))),
	fc("load global write", fload(lib("x", "x = 1"))),
	fc("load redis.log and version", fload(lib("x", "redis.log(redis.LOG_WARNING, 'loading') local v = redis.REDIS_VERSION .. redis.REDIS_VERSION_NUM redis.register_function('f', function() return v end)")), fcall("f", 0)),
	fc("load setresp absent", fload(lib("x", "redis.setresp(3)"))),
	fc("load infinite loop times out", fload(lib("x", "while true do end")), fload(lib("x", "redis.register_function('f', function() return 'ok' end)")), fcall("f", 0)),
	fc("load code missing", c("FUNCTION LOAD REPLACE")),
	fc("load unknown option", cmd("FUNCTION", "LOAD", "FORCE", libEcho)),
	fc("load replace twice", cmd("FUNCTION", "LOAD", "REPLACE", "replace", libEcho), fcall("echo", 1, "k", "a")),
	fc("load exists", fload(libEcho), fload(libEcho), fload(libEcho, "REPLACE")),

	// register_function's arguments.
	fc("register no args", fload(lib("x", "redis.register_function()"))),
	fc("register three args", fload(lib("x", "redis.register_function('f', function() end, 1)"))),
	fc("register name not string", fload(lib("x", "redis.register_function({}, function() end)"))),
	fc("register number name", fload(lib("x", "redis.register_function(12, function() return 12 end)")), fcall("12", 0)),
	fc("register callback not function", fload(lib("x", "redis.register_function('f', 'g')"))),
	fc("register single not table", fload(lib("x", "redis.register_function('f')"))),
	fc("register bad function name", fload(lib("x", "redis.register_function('a b', function() end)"))),
	fc("register empty function name", fload(lib("x", "redis.register_function('', function() end)"))),
	fc("register duplicate", fload(lib("x", "redis.register_function('f', function() end) redis.register_function('f', function() end)"))),
	fc("named no name", fload(lib("x", "redis.register_function{callback=function() end}"))),
	fc("named no callback", fload(lib("x", "redis.register_function{function_name='f'}"))),
	fc("named unknown key", fload(lib("x", "redis.register_function{function_name='f', callback=function() end, foo=1}"))),
	fc("named bad name", fload(lib("x", "redis.register_function{function_name={}, callback=function() end}"))),
	fc("named bad callback", fload(lib("x", "redis.register_function{function_name='f', callback=1}"))),
	fc("named bad description", fload(lib("x", "redis.register_function{function_name='f', callback=function() end, description={}}"))),
	fc("named bad flags type", fload(lib("x", "redis.register_function{function_name='f', callback=function() end, flags='no-writes'}"))),
	fc("named unknown flag", fload(lib("x", "redis.register_function{function_name='f', callback=function() end, flags={'no-writes', 'fast'}}"))),
	fc("named flag case", fload(lib("x", "redis.register_function{function_name='f', callback=function() return 1 end, flags={'NO-WRITES', 'Allow-OOM'}}")), c("FUNCTION LIST"), cmd("FCALL_RO", "f", "0")),
	fc("named all flags", fload(lib("x", "redis.register_function{function_name='f', callback=function() return 1 end, flags={'allow-cross-slot-keys', 'no-cluster', 'allow-stale', 'allow-oom', 'no-writes'}, description='all'}")), c("FUNCTION LIST WITHCODE"), hello3, c("FUNCTION LIST")),
	fc("named key case", fload(lib("x", "redis.register_function{FUNCTION_NAME='f', Callback=function() return 1 end}")), fcall("f", 0)),

	// FCALL and FCALL_RO.
	fc("fcall unknown", fcall("nope", 0)),
	fc("fcall bad numkeys", fload(libEcho), c("FCALL echo x"), c("FCALL echo 1.5"), c("FCALL echo 2 a"), c("FCALL echo -1 a"), c("FCALL nope x")),
	fc("fcall arity", c("FCALL"), c("FCALL f"), c("FCALL_RO f")),
	fc("fcall keys and args", fload(libEcho), fcall("echo", 2, "k1", "k2", "a1", "a2"), fcall("ECHO", 0), fcall("Echo", 0, "a")),
	fc("fcall resp3", hello3, fload(libEcho), fcall("echo", 1, "k", "a")),
	fc("fcall writes", fload(libRW), fcall("setk", 1, "k", "v"), fcall("getk", 1, "k"), c("GET k")),
	fc("fcall_ro", fload(libRW), cmd("FCALL_RO", "getk", "1", "k"), cmd("FCALL_RO", "setk", "1", "k", "v")),
	fc("no-writes function writes", fload(lib("x", "redis.register_function{function_name='f', callback=function(k) return redis.call('set', k[1], 'v') end, flags={'no-writes'}}")), fcall("f", 1, "k"), cmd("FCALL_RO", "f", "1", "k")),
	fc("fcall runtime error", fload(lib("x", "redis.register_function('f', function() local t = nil return t.x end)")), fcall("f", 0)),
	fc("fcall error", fload(lib("x", "redis.register_function('f', function() error('boom') end)\nredis.register_function('g', function() error({err='MY code'}) end)\nredis.register_function('h', function() return redis.error_reply('bad') end)")), fcall("f", 0), fcall("g", 0), fcall("h", 0)),
	fc("fcall redis.call error", fload(lib("x", "redis.register_function('f', function() return redis.call('incr', 'k') end)")), c("SET k x"), fcall("f", 0)),
	fc("fcall no KEYS global", fload(lib("x", "redis.register_function('f', function() return KEYS end)")), fcall("f", 0)),
	fc("fcall no register at run", fload(lib("x", "redis.register_function('f', function() return redis.register_function('g', function() end) end)")), fcall("f", 0)),
	fc("fcall upvalue state", fload(lib("x", "local n = 0\nredis.register_function('f', function() n = n + 1 return n end)")), fcall("f", 0), fcall("f", 0), fload(lib("x", "local n = 10\nredis.register_function('f', function() n = n + 1 return n end)"), "REPLACE"), fcall("f", 0)),
	fc("fcall globals read-only", fload(lib("x", "redis.register_function('f', function() x = 1 end)")), fcall("f", 0)),
	fc("fcall sees libraries", fload(lib("x", "redis.register_function('f', function(k, a) return cjson.encode({a[1]}) .. string.rep('x', 3) .. tostring(#KEYS) end)")), fcall("f", 0, "v")),
	fc("fcall setresp", hello3, fload(lib("x", "redis.register_function('f', function() redis.setresp(3) return redis.call('hgetall', 'h') end)")), c("HSET h a 1"), fcall("f", 0)),
	fc("fcall select", fload(lib("x", "redis.register_function('f', function() redis.call('select', 2) return redis.call('set', 'k', 'v') end)")), fcall("f", 0), c("GET k"), c("SELECT 2"), c("GET k")),
	fc("fcall returns types", fload(lib("x", "redis.register_function('f', function() return {1, 'two', 3.5, true, false, {ok='fine'}, {err='bad'}, nil, 9} end)")), fcall("f", 0), hello3, fcall("f", 0)),

	// Names across libraries.
	fc("function exists in other library", fload(libEcho), fload(lib("y", "redis.register_function('ECHO', function() end)"))),
	fc("replace keeps old on error", fload(libEcho), fload(lib("echo", "error('x')"), "REPLACE"), fcall("echo", 0)),
	fc("replace renames functions", fload(libEcho), fload(lib("echo", "redis.register_function('echo2', function() return 2 end)"), "REPLACE"), fcall("echo", 0), fcall("echo2", 0)),
	fc("replace collides", fload(libEcho), fload(lib("y", "redis.register_function('f', function() end)")), fload(lib("echo", "redis.register_function('f', function() end)"), "REPLACE"), fcall("echo", 0)),

	// LIST, DELETE, FLUSH, STATS, HELP.
	fc("list empty", c("FUNCTION LIST"), hello3, c("FUNCTION LIST")),
	fc("list", fload(libRO), c("FUNCTION LIST"), c("FUNCTION LIST WITHCODE"), c("FUNCTION LIST LIBRARYNAME r*"), c("FUNCTION LIST LIBRARYNAME R?"), c("FUNCTION LIST libraryname x* withcode"), hello3, c("FUNCTION LIST WITHCODE")),
	fc("list errors", c("FUNCTION LIST foo"), c("FUNCTION LIST LIBRARYNAME"), c("FUNCTION LIST WITHCODE WITHCODE"), c("FUNCTION LIST LIBRARYNAME a LIBRARYNAME b")),
	fc("list filter", fload(libEcho), fload(libRO), c("FUNCTION LIST LIBRARYNAME e*"), c("FUNCTION LIST LIBRARYNAME [r]o WITHCODE"), c("FUNCTION LIST LIBRARYNAME zz")),
	fc("delete", fload(libEcho), c("FUNCTION DELETE nope"), c("FUNCTION DELETE ECHO"), c("FUNCTION DELETE echo"), fcall("echo", 0), c("FUNCTION DELETE"), c("FUNCTION DELETE a b")),
	fc("flush", fload(libEcho), c("FUNCTION FLUSH SYNC"), fcall("echo", 0), fload(libEcho), c("FUNCTION FLUSH async"), fcall("echo", 0), c("FUNCTION FLUSH foo"), c("FUNCTION FLUSH a b")),
	fc("script flush keeps functions", fload(libEcho), c("SCRIPT FLUSH"), fcall("echo", 0, "a")),
	fc("stats", c("FUNCTION STATS"), fload(libEcho), fload(libRW), c("FUNCTION STATS"), hello3, c("FUNCTION STATS"), c("FUNCTION STATS x")),
	fc("kill not busy", c("FUNCTION KILL"), c("SCRIPT KILL"), c("FUNCTION KILL x")),
	fc("help", c("FUNCTION HELP"), c("FUNCTION help x"), c("FUNCTION foo"), c("FUNCTION")),

	// DUMP and RESTORE.
	fc("dump empty", c("FUNCTION DUMP")),
	fc("dump one", fload(libRW), c("FUNCTION DUMP")),
	fc("dump short", fload(libEcho), c("FUNCTION DUMP")),
	fc("dump restore", fload(libRW), c("FUNCTION DUMP"), c("FUNCTION FLUSH"),
		cmd("FUNCTION", "RESTORE", payload(fn2(libRW))), fcall("setk", 1, "k", "v"), c("FUNCTION LIST WITHCODE LIBRARYNAME x"),
		cmd("FUNCTION", "RESTORE", payload(fn2(libRO))), c("FUNCTION LIST WITHCODE LIBRARYNAME ro")),
	fc("restore policies", fload(libRW),
		cmd("FUNCTION", "RESTORE", payload(fn2(libRW))),
		cmd("FUNCTION", "RESTORE", payload(fn2(libRW)), "APPEND"),
		cmd("FUNCTION", "RESTORE", payload(fn2(libRW)), "replace"),
		cmd("FUNCTION", "RESTORE", payload(fn2(libEcho)), "FLUSH"), fcall("getk", 1, "k"), fcall("echo", 0),
		cmd("FUNCTION", "RESTORE", payload(fn2(libEcho)), "BAD"),
		cmd("FUNCTION", "RESTORE", payload(fn2(libEcho)), "FLUSH", "x")),
	fc("restore function collision", fload(lib("other", "redis.register_function('echo', function() end)")),
		cmd("FUNCTION", "RESTORE", payload(fn2(libEcho))), cmd("FUNCTION", "RESTORE", payload(fn2(libEcho)), "REPLACE")),
	fc("restore duplicate in payload", cmd("FUNCTION", "RESTORE", payload(fn2(libEcho), fn2(libEcho))), c("FUNCTION STATS")),
	fc("restore bad library", cmd("FUNCTION", "RESTORE", payload(fn2(lib("x", "error('no')")))),
		cmd("FUNCTION", "RESTORE", payload(fn2("no shebang"))), c("FUNCTION STATS")),
	fc("restore bad payloads",
		cmd("FUNCTION", "RESTORE", ""),
		cmd("FUNCTION", "RESTORE", "123456789"),
		cmd("FUNCTION", "RESTORE", "0123456789"),
		cmd("FUNCTION", "RESTORE", payload()),
		cmd("FUNCTION", "RESTORE", payload()[:9]+"\x00"),
		cmd("FUNCTION", "RESTORE", payload([]byte{0})),
		cmd("FUNCTION", "RESTORE", payload([]byte{rdbfmt.OpFunction2})),
		cmd("FUNCTION", "RESTORE", payload([]byte{rdbfmt.OpFunction2, 0x3f, 'x'})),
		cmd("FUNCTION", "RESTORE", payload([]byte{rdbfmt.OpFunction2, 0x81, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})),
		cmd("FUNCTION", "RESTORE", payload([]byte{rdbfmt.OpFunction2, 0x80, 0x7f, 0xff, 0xff, 0xff})),
		cmd("FUNCTION", "RESTORE", payload([]byte{rdbfmt.OpFunction2, 0xc3, 0x02, 0x80, 0x7f, 0xff, 0xff, 0xff, 0x01, 'a'})),
		cmd("FUNCTION", "RESTORE", payload([]byte{rdbfmt.OpFunction2, 0xc3, 0x02, 0x05, 0x01, 'a', 'b'})),
		cmd("FUNCTION", "RESTORE", payload([]byte{rdbfmt.OpFunction2, 0xc3, 0x00, 0x00})),
		cmd("FUNCTION", "RESTORE", payload([]byte{rdbfmt.OpFunction2, 0xc0, 0x05})),
		cmd("FUNCTION", "RESTORE", payload([]byte{rdbfmt.OpFunction2, 0xc1, 0x05, 0x00})),
		cmd("FUNCTION", "RESTORE", payload([]byte{rdbfmt.OpFunction2, 0xc2, 0x05, 0x00, 0, 0})),
		cmd("FUNCTION", "RESTORE", payload([]byte{rdbfmt.OpFunction2, 0xc4})),
		cmd("FUNCTION", "RESTORE", payload([]byte{rdbfmt.OpFunction2, 0x90})),
		cmd("FUNCTION", "RESTORE", payload([]byte{rdbfmt.OpFunction})),
		cmd("FUNCTION", "RESTORE", payload([]byte{rdbfmt.OpFunction, 1, 'x'})),
		cmd("FUNCTION", "RESTORE", payload([]byte{rdbfmt.OpFunction, 1, 'x', 3, 'l', 'u', 'a'})),
		cmd("FUNCTION", "RESTORE", payload([]byte{rdbfmt.OpFunction, 1, 'x', 3, 'l', 'u', 'a', 1})),
		cmd("FUNCTION", "RESTORE", payload([]byte{rdbfmt.OpFunction, 1, 'x', 3, 'l', 'u', 'a', 0})),
		c("FUNCTION STATS")),
	fc("restore old format", cmd("FUNCTION", "RESTORE", payload(append([]byte{rdbfmt.OpFunction, 1, 'x', 3, 'l', 'u', 'a', 1, 2, 'h', 'i'},
		rdbfmt.AppendString(nil, []byte("redis.register_function('f', function() return 'old' end)"))...))), fcall("f", 0), c("FUNCTION LIST WITHCODE")),
	fc("restore bad checksum", cmd("FUNCTION", "RESTORE", payload(fn2(libEcho))[:5]+"X"+payload(fn2(libEcho))[6:])),
	fc("restore newer version", cmd("FUNCTION", "RESTORE", "\xf5\x00\x0b\x00"+"\x00\x00\x00\x00\x00\x00\x00\x00")),

	// Transactions, WATCH, MONITOR, busy.
	fc("fcall in multi", fload(libRW), c("MULTI"), fcall("setk", 1, "k", "v"), fcall("getk", 1, "k"), fcall("nope", 0), c("EXEC")),
	fc("function load in multi", c("MULTI"), fload(libEcho), fcall("echo", 0), c("FUNCTION LIST"), c("EXEC")),
	fc("maxmemory and function flags",
		fload(lib("x", "redis.register_function('w', function() return redis.call('set', 'k', 'v') end)\n"+
			"redis.register_function('r', function() return redis.call('get', 'before') end)\n"+
			"redis.register_function{function_name='oom', callback=function() return redis.call('set', 'k', 'v') end, flags={'allow-oom'}}\n"+
			"redis.register_function{function_name='ro', callback=function() return redis.call('get', 'before') end, flags={'no-writes'}}")),
		c("SET before v"), c("CONFIG SET maxmemory 1"),
		fcall("w", 0), fcall("r", 0), fcall("oom", 0), fcall("ro", 0), cmd("FCALL_RO", "ro", "0"), fcall("nope", 0), c("GET k"),
		c("MULTI"), fcall("ro", 0), c("EXEC"), c("MULTI"), c("GET before"), c("EXEC"), c("CONFIG SET maxmemory 0")),
	fc("watch and fcall", fload(libRW), c("WATCH k"), fcall("setk", 1, "k", "v").on(1), c("MULTI"), c("GET k"), c("EXEC")),
	fc("monitor fcall", fload(libRW), c("MONITOR").on(1), fcall("setk", 1, "k", "v"), fcall("getk", 1, "k"), fcall("nope", 0),
		raw("").on(1).expect(5).with(monitorLines)),
}
