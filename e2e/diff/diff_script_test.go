package diff_test

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"

	"github.com/minilock/minilock/internal/lockscripts"
)

// Scripting, through the whole server: EVAL, EVALSHA, their _RO forms and
// SCRIPT, every Lua <-> RESP conversion in both protocols, every error
// format, the sandbox, shebangs, redis.call with each data command, the lock
// libraries' own scripts, and scripts inside transactions. The script of
// each case is sent to both servers as it is, so SHA1s and
// "script: <sha>" suffixes compare equal.
//
//	go test -run 'TestDiff/script' -v ./e2e/diff

// ev is EVAL body numkeys keysAndArgs...
func ev(body string, numkeys int, keysAndArgs ...string) step {
	return cmd(append([]string{"EVAL", body, strconv.Itoa(numkeys)}, keysAndArgs...)...)
}

// evRO is EVAL_RO.
func evRO(body string, numkeys int, keysAndArgs ...string) step {
	return cmd(append([]string{"EVAL_RO", body, strconv.Itoa(numkeys)}, keysAndArgs...)...)
}

// evsha is EVALSHA sha1(body) numkeys keysAndArgs...
func evsha(body string, numkeys int, keysAndArgs ...string) step {
	return cmd(append([]string{"EVALSHA", lockscripts.SHA1(body), strconv.Itoa(numkeys)}, keysAndArgs...)...)
}

// scriptLoad is SCRIPT LOAD body.
func scriptLoad(body string) step { return cmd("SCRIPT", "LOAD", body) }

// hello3 switches the case's connection to RESP3.
var hello3 = c("HELLO 3").with(helloID)

// pttlTick maps a PTTL of PX-1 ms to PX (PX = 5000 or 10000): redis-server
// 7.0.15 reads its clock afresh for each command inside a script, so once
// in a few hundred runs the millisecond turns between SET PX and PTTL.
// minilock freezes the clock for the whole script; server/scripting_test.go
// checks that its PTTL is exact.
var pttlTick = &normalizer{"PTTL within 1 ms of PX", func(b []byte) ([]byte, bool) {
	switch string(b) {
	case ":4999\r\n":
		return []byte(":5000\r\n"), true
	case ":9999\r\n":
		return []byte(":10000\r\n"), true
	}
	return nil, false
}}

// monitorLines masks the timestamp and client address of each MONITOR
// line in a step's replies; the database number, "lua" for a script's
// commands, and the arguments are compared.
var monitorLines = &normalizer{"MONITOR timestamps and addresses", func(b []byte) ([]byte, bool) {
	var out []byte
	for _, line := range bytes.SplitAfter(b, []byte("\r\n")) {
		if len(line) == 0 {
			continue
		}
		m := reMonitorLine.FindSubmatchIndex(line)
		if m == nil {
			return nil, false
		}
		who := "<addr>"
		if string(line[m[4]:m[5]]) == "lua" {
			who = "lua"
		}
		out = append(out, "+<time> ["+string(line[m[2]:m[3]])+" "+who+"]"...)
		out = append(out, line[m[1]:]...)
	}
	return out, true
}}

var reMonitorLine = regexp.MustCompile(`^\+\d+\.\d{6} \[(\d+) ([^\]]+)\]`)

var scriptCases = []diffCase{
	// Lua -> RESP2
	tc("return string", ev("return 'hello'", 0), ev("return ''", 0), ev("return 'a\\0b\\r\\n'", 0)),
	tc("return integer", ev("return 42", 0), ev("return -7", 0), ev("return 0", 0)),
	tc("return number truncated", ev("return 3.99", 0), ev("return -3.99", 0), ev("return 0.5", 0), ev("return -0.5", 0)),
	tc("return large numbers", ev("return 2^53", 0), ev("return -2^53", 0), ev("return 2^62", 0), ev("return 1e15 + 0.7", 0)),
	tc("return true false nil", ev("return true", 0), ev("return false", 0), ev("return nil", 0)),
	tc("no return statement", ev("local x = 1", 0), ev("", 0)),
	tc("return several values", ev("return 1, 2, 3", 0), ev("return nil, 2", 0)),
	tc("return array", ev("return {1, 2, 3}", 0), ev("return {'a', 'b'}", 0), ev("return {}", 0)),
	tc("return array stops at nil", ev("return {1, nil, 3}", 0), ev("return {nil, 2}", 0), ev("return {1, 2, nil}", 0)),
	tc("return array mixed", ev("return {1, 'two', 3.7, true, false, {ok='x'}}", 0)),
	tc("return nested arrays", ev("return {1, {2, {3, {4, {}}}}}", 0), ev("return {{'a'}, {'b', {'c'}}}", 0)),
	tc("return hash part ignored", ev("return {1, 2, x=3}", 0), ev("return {x=1, y=2}", 0)),
	tc("return status table", ev("return {ok='fine'}", 0), ev("return {ok=''}", 0), ev("return {ok='a\\r\\nb'}", 0)),
	tc("return error table", ev("return {err='BAD thing'}", 0), ev("return {err='ERR plain'}", 0), ev("return {err='nocode'}", 0)),
	tc("return error table odd", ev("return {err=''}", 0), ev("return {err='-DASH x'}", 0), ev("return {err='a\\r\\nb'}", 0)),
	tc("return error wins over ok", ev("return {err='E1 x', ok='y'}", 0), ev("return {ok='y', double=1}", 0)),
	tc("return non-string err and ok", ev("return {err=1}", 0), ev("return {ok=2}", 0), ev("return {ok={}}", 0)),
	tc("return nested error", ev("return {1, {err='E inner'}, 3}", 0), ev("return {{1, {err='DEEP x'}}}", 0), ev("return {redis.error_reply('MY err')}", 0)),
	tc("return nested status", ev("return {redis.status_reply('FINE'), {ok='x'}}", 0)),
	tc("error_reply and status_reply", ev("return redis.error_reply('My Error')", 0), ev("return redis.error_reply('-DASHED err')", 0), ev("return redis.status_reply('FINE')", 0)),
	tc("error_reply bad arguments", ev("return redis.error_reply()", 0), ev("return redis.error_reply(1)", 0), ev("return redis.status_reply({})", 0), ev("return redis.status_reply('a', 'b')", 0)),
	tc("return double resp2", ev("return {double=3.14}", 0), ev("return {double=1}", 0), ev("return {double=-0.1}", 0), ev("return {double=1e300}", 0)),
	tc("return double special resp2", ev("return {double=1/0}", 0), ev("return {double=-1/0}", 0)),
	tc("return big_number resp2", ev("return {big_number='123456789012345678901234567890'}", 0), ev("return {big_number='a\\r\\nb'}", 0)),
	tc("return map resp2", ev("return {map={a=1}}", 0), ev("return {map={}}", 0)),
	tc("return set resp2", ev("return {set={a=true}}", 0), ev("return {set={}}", 0)),
	tc("return verbatim resp2", ev("return {verbatim_string={format='txt', string='hi'}}", 0), ev("return {verbatim_string={format='txt'}}", 0)),
	tc("return function and thread", ev("return function() end", 0), ev("return coroutine.create(function() end)", 0)),

	// Lua -> RESP3, script in RESP2 mode
	tc("resp3 caller basics", hello3, ev("return 'hello'", 0), ev("return 3.99", 0), ev("return true", 0), ev("return false", 0), ev("return nil", 0), ev("return {1, nil, 3}", 0)),
	tc("resp3 caller status and error", hello3, ev("return {ok='fine'}", 0), ev("return {err='BAD x'}", 0), ev("return {1, {err='E inner'}}", 0)),
	tc("resp3 caller double", hello3, ev("return {double=3.14}", 0), ev("return {double=1}", 0), ev("return {double=1/0}", 0), ev("return {double=-1/0}", 0), ev("return {double=1e300}", 0)),
	tc("resp3 caller big_number", hello3, ev("return {big_number='123456789012345678901234567890'}", 0)),
	tc("resp3 caller map and set", hello3, ev("return {map={a=1}}", 0), ev("return {set={x=true}}", 0), ev("return {map={a={1, 2}}}", 0), ev("return {map={}}", 0)),
	tc("resp3 caller verbatim", hello3, ev("return {verbatim_string={format='txt', string='hi'}}", 0), ev("return {verbatim_string={format='markdown', string='x'}}", 0)),
	tc("resp3 caller no return", hello3, ev("local x = 1", 0)),

	// redis.setresp(3)
	tc("setresp 3 booleans to resp2 caller", ev("redis.setresp(3) return true", 0), ev("redis.setresp(3) return false", 0), ev("redis.setresp(3) return {true, false}", 0)),
	tc("setresp 3 booleans to resp3 caller", hello3, ev("redis.setresp(3) return true", 0), ev("redis.setresp(3) return false", 0), ev("redis.setresp(3) return {true, false, nil}", 0)),
	tc("setresp 3 null from call", ev("redis.setresp(3) return type(redis.call('get', 'nosuch'))", 0), ev("redis.setresp(3) return redis.call('get', 'nosuch')", 0)),
	tc("setresp 3 null from call resp3 caller", hello3, ev("redis.setresp(3) return redis.call('get', 'nosuch')", 0), ev("return redis.call('get', 'nosuch')", 0)),
	tc("setresp 3 replies", c("SET k v"), ev("redis.setresp(3) return {redis.call('get', 'k'), redis.call('set', 'k', 'w'), redis.call('del', 'k'), redis.call('mget', 'k', 'x')}", 0)),
	tc("setresp back to 2", ev("redis.setresp(3) redis.setresp(2) return {type(redis.call('get', 'nosuch')), false}", 0)),
	tc("setresp errors", ev("redis.setresp(4)", 0), ev("redis.setresp(1)", 0), ev("redis.setresp()", 0), ev("redis.setresp(2, 3)", 0), ev("redis.setresp('3') return true", 0)),
	tc("setresp does not last", ev("redis.setresp(3) return 1", 0), ev("return type(redis.call('get', 'nosuch'))", 0)),

	// Numbers
	tc("numbers as command arguments", ev("redis.call('set', 'k', 7000.0) return redis.call('get', 'k')", 0),
		ev("redis.call('set', 'k', 3.5) return redis.call('get', 'k')", 0),
		ev("redis.call('set', 'k', 0.1) return redis.call('get', 'k')", 0),
		ev("redis.call('set', 'k', 1e20) return redis.call('get', 'k')", 0),
		ev("redis.call('set', 'k', -0.0) return redis.call('get', 'k')", 0),
		ev("redis.call('set', 'k', 2^53) return redis.call('get', 'k')", 0),
		ev("redis.call('set', 'k', 1/3) return redis.call('get', 'k')", 0)),
	tc("number formatting in lua", ev("return tostring(1e15)", 0), ev("return tostring(1e16)", 0), ev("return tostring(0.1)", 0), ev("return tostring(7000.0)", 0), ev("return tostring(-0.0)", 0), ev("return 10 / 4 .. ''", 0), ev("return tostring(1/0)", 0)),
	tc("string to number", ev("return tonumber('10') + 1", 0), ev("return '10' + 5", 0), ev("return tonumber('0x10')", 0), ev("return tonumber('abc') == nil", 0), ev("return tonumber('  12  ')", 0), ev("return ARGV[1] * 2", 0, "21")),
	tc("integer replies become numbers", c("SET n 10"), ev("return redis.call('incr', 'n') + 0.5", 0), ev("return type(redis.call('incr', 'n'))", 0)),

	// RESP -> Lua
	tc("reply types in lua", c("SET k v"), ev("return {type(redis.call('get', 'k')), type(redis.call('get', 'nosuch')), type(redis.call('set', 'x', 'y')), type(redis.call('del', 'x')), type(redis.call('mget', 'k'))}", 0)),
	tc("status reply table", ev("local r = redis.call('set', 'k', 'v') return r.ok", 0), ev("return redis.call('ping')", 0), ev("return redis.call('ping').ok", 0)),
	tc("false for missing", ev("return redis.call('get', 'nosuch') == false", 0), ev("local v = redis.call('get', 'nosuch') if v then return 'set' else return 'unset' end", 0)),
	tc("mget with holes", c("SET a 1"), c("SET c 3"), ev("return redis.call('mget', 'a', 'b', 'c')", 0), ev("local r = redis.call('mget', 'a', 'b', 'c') return {#r, type(r[2]), r[3]}", 0)),
	tc("bulk binary round trip", cmd("SET", "k", "a\x00b\xff\r\n"), ev("return redis.call('get', 'k')", 0), ev("return #redis.call('get', 'k')", 0)),

	// Compile errors
	tc("compile error eof", ev("return +", 0), ev("if then", 0), ev("return 'unfinished", 0)),
	tc("compile error near", ev("x = = 1", 0), ev("local 1 = 2", 0), ev("return 1 error", 0), ev("for i=1 do end", 0)),
	tc("compile error line", ev("local a = 1\nlocal b = 2\nreturn a +", 0), ev("\n\n\nfoo(", 0)),
	tc("compile error long string", ev("return [[abc", 0), ev("return \"a\\q\"", 0)),
	tc("compile error does not cache", ev("return +", 0), cmd("SCRIPT", "EXISTS", lockscripts.SHA1("return +"))),

	// Runtime errors
	tc("error string", ev("error('boom')", 0), ev("error('boom', 0)", 0), ev("error('boom', 2)", 0), ev("error()", 0)),
	tc("error line numbers", ev("local a = 1\nlocal b = 2\nerror('third')", 0), ev("local function f()\n  error('in f')\nend\nf()", 0)),
	tc("error with table", ev("error({err='CUSTOM x'})", 0), ev("error(redis.error_reply('MINE y'))", 0), ev("error({err='ERR z'})", 0)),
	tc("error number", ev("error(42)", 0)),
	tc("arithmetic errors", ev("return 1 + {}", 0), ev("return 'a' + 1", 0), ev("return nil .. 'x'", 0), ev("return #nil", 0), ev("return -{}", 0)),
	tc("length errors", ev("local x\nreturn #x", 0), ev("local t = {}\nreturn #t.a", 0), ev("return #5", 0), ev("return #true", 0), ev("return #ARGV[1]", 0)),
	tc("call and index errors", ev("local x\nx()", 0), ev("local t = {}\nt.a.b = 1", 0), ev("return ('x')()", 0), ev("local t = nil\nreturn t[1]", 0)),
	tc("compare errors", ev("return {} < {}", 0), ev("return 1 < 'a'", 0)),
	tc("undefined global", ev("return a", 0), ev("return foo.bar", 0), ev("local x = undefinedfn()", 0)),
	tc("write global", ev("a = 1", 0), ev("x = {}", 0), ev("function f() end", 0)),
	tc("readonly tables", ev("redis.call = nil", 0), ev("string.foo = 1", 0), ev("KEYS = {}", 0), ev("_G.x = 1", 0), ev("table.insert = print", 0)),
	tc("readonly rawset and setmetatable", ev("rawset(_G, 'x', 1)", 0), ev("setmetatable(_G, nil)", 0), ev("rawset(redis, 'x', 1)", 0)),
	tc("local tables are writable", ev("local t = {} t.x = 1 t[1] = 2 return {t[1], t.x}", 0), ev("local t = setmetatable({}, {__index=function() return 5 end}) return t.y", 0)),
	tc("pcall catches errors", ev("local ok, e = pcall(error, 'x') return {tostring(ok), e}", 0), ev("return {pcall(function() return a end)}", 0)),
	tc("pcall of redis.call", ev("local ok, e = pcall(redis.call, 'nosuch') return {tostring(ok), type(e), e.err}", 0), ev("local ok, e = pcall(redis.call, 'nosuch') return e", 0)),
	tc("xpcall", ev("return xpcall(function() error('x') end, function(m) return 'handled: ' .. m end)", 0), ev("return {xpcall(function() return 1 end, print)}", 0)),
	tc("error from nested function with line", ev("local function a()\n  local function b()\n    return nil + 1\n  end\n  return b()\nend\nreturn a()", 0)),

	// redis.call errors
	tc("call unknown command", ev("return redis.call('nosuch')", 0), ev("return redis.call('nosuch', 'a', 'b')", 0), ev("redis.call('client', 'nosuch')", 0)),
	tc("call wrong arity", ev("return redis.call('get')", 0), ev("return redis.call('set', 'k')", 0), ev("return redis.call('get', 'a', 'b')", 0), ev("return redis.call('script')", 0)),
	tc("call not allowed", ev("return redis.call('eval', 'return 1', 0)", 0), ev("return redis.call('evalsha', 'x', 0)", 0), ev("return redis.call('script', 'flush')", 0), ev("return redis.call('multi')", 0)),
	tc("call not allowed connection commands", ev("return redis.call('auth', 'x')", 0), ev("return redis.call('hello')", 0), ev("return redis.call('quit')", 0), ev("return redis.call('watch', 'k')", 0), ev("return redis.call('client', 'id')", 0)),
	tc("call not allowed server commands", ev("return redis.call('shutdown')", 0), ev("return redis.call('monitor')", 0), ev("return redis.call('exec')", 0), ev("return redis.call('reset')", 0)),
	tc("call bad argument types", ev("return redis.call('get', {})", 0), ev("return redis.call('get', true)", 0), ev("return redis.call('get', nil)", 0), ev("return redis.call()", 0), ev("return redis.call({})", 0)),
	tc("call command errors keep code", c("SET k abc"), ev("return redis.call('incr', 'k')", 0), ev("return redis.call('set', 'k', 'v', 'EX', '0')", 0), ev("return redis.call('set', 'k', 'v', 'FOO')", 0), ev("return redis.call('expire', 'k', '10', 'BAD')", 0)),
	tc("call error on later line", ev("local x = 1\nlocal y = 2\nreturn redis.call('incr', 'k')", 0)),
	tc("pcall returns error table", ev("return redis.pcall('nosuch')", 0), ev("return redis.pcall('get')", 0), ev("return redis.pcall('eval', 'return 1', 0)", 0), ev("return redis.pcall('get', {})", 0), ev("return redis.pcall()", 0)),
	tc("pcall command error", c("SET k abc"), ev("return redis.pcall('incr', 'k')", 0), ev("local r = redis.pcall('incr', 'k') return {type(r), r.err}", 0), ev("return {redis.pcall('incr', 'k')}", 0)),
	tc("pcall success", ev("return redis.pcall('set', 'k', 'v')", 0), ev("return redis.pcall('get', 'k')", 0)),
	tc("call error after writes", ev("redis.call('set', 'a', '1') redis.call('incr', 'k') redis.call('set', 'b', '2')", 0), c("GET a"), c("GET b")).withSetup(c("SET k abc")),
	tc("error after writes keeps writes", ev("redis.call('set', 'a', '1') error('late')", 0), c("GET a")),
	tc("redis call outside script body", ev("local f = redis.call return f('ping')", 0)),

	// The redis library
	tc("redis version", ev("return redis.REDIS_VERSION", 0), ev("return redis.REDIS_VERSION_NUM", 0)),
	tc("redis constants", ev("return {redis.LOG_DEBUG, redis.LOG_VERBOSE, redis.LOG_NOTICE, redis.LOG_WARNING}", 0), ev("return {redis.REPL_NONE, redis.REPL_AOF, redis.REPL_SLAVE, redis.REPL_REPLICA, redis.REPL_ALL}", 0)),
	tc("redis sha1hex", ev("return redis.sha1hex('')", 0), ev("return redis.sha1hex('hello')", 0), ev("return redis.sha1hex(123)", 0), ev("return redis.sha1hex()", 0), ev("return redis.sha1hex('a', 'b')", 0)),
	tc("redis log", ev("return redis.log(redis.LOG_WARNING, 'hello')", 0), ev("return redis.log(redis.LOG_NOTICE, 'a', 'b', 3)", 0), ev("redis.log(redis.LOG_WARNING)", 0), ev("redis.log()", 0), ev("redis.log(99, 'x')", 0), ev("redis.log('x', 'y')", 0)),
	tc("redis replication helpers", ev("return redis.replicate_commands()", 0), ev("return redis.set_repl(redis.REPL_ALL)", 0), ev("redis.set_repl(99)", 0), ev("redis.set_repl()", 0), ev("return redis.breakpoint()", 0), ev("return redis.debug('x')", 0)),
	tc("redis acl_check_cmd", ev("return redis.acl_check_cmd('get', 'k')", 0), ev("return redis.acl_check_cmd('set', 'k', 'v')", 0), ev("return redis.acl_check_cmd('nosuch')", 0), ev("return redis.acl_check_cmd('client', 'nosuch')", 0), ev("return redis.acl_check_cmd('script', 'load', 'x')", 0), ev("return redis.acl_check_cmd()", 0), ev("return redis.acl_check_cmd({})", 0)),

	// Sandbox
	tc("sandbox absent libraries", ev("return {type(os), type(io), type(debug), type(package)}", 0)),
	tc("sandbox absent functions", ev("return type(require)", 0), ev("return type(dofile)", 0), ev("return type(loadfile)", 0), ev("return type(print)", 0), ev("return type(module)", 0)),
	tc("sandbox present functions", ev("return {type(loadstring), type(pcall), type(xpcall), type(setfenv), type(getfenv), type(newproxy), type(gcinfo), type(unpack), type(select), type(rawequal)}", 0)),
	tc("sandbox libraries present", ev("return {type(string), type(table), type(math), type(cjson), type(bit), type(struct), type(coroutine), type(redis)}", 0)),
	tc("sandbox version", ev("return _VERSION", 0), ev("return type(_G)", 0), ev("return _G == getfenv(0)", 0)),
	tc("sandbox loadstring", ev("return loadstring('return 1 + 1')()", 0), ev("local f, e = loadstring('return +') return e", 0), ev("return loadstring('return a')()", 0)),
	tc("sandbox loadstring bytecode", ev("local f, e = loadstring(string.dump(function() return 1 end)) return {type(f), e}", 0)),
	tc("sandbox getmetatable of globals", ev("return type(getmetatable(_G))", 0), ev("return getmetatable('').__index == string", 0)),
	tc("sandbox globals do not leak", ev("local x = 1 return x", 0), ev("return type(x)", 0)),
	tc("sandbox string library", ev("return string.format('%d-%s-%5.2f', 3, 'x', 3.14159)", 0), ev("return string.rep('ab', 3)", 0), ev("return {string.find('hello world', 'o w')}", 0), ev("return string.gsub('hello', 'l', 'L')", 0), ev("return string.upper('abc') .. string.len('abcd')", 0)),
	tc("sandbox string patterns", ev("return {string.match('key:123', '(%a+):(%d+)')}", 0), ev("local t = {} for w in string.gmatch('a b c', '%a') do t[#t+1] = w end return t", 0)),
	tc("sandbox table library", ev("local t = {3, 1, 2} table.sort(t) return t", 0), ev("return table.concat({1, 2, 3}, ',')", 0), ev("local t = {1} table.insert(t, 2) table.remove(t, 1) return t", 0), ev("return table.getn({1, 2, 3})", 0)),
	tc("sandbox math library", ev("return {math.floor(3.7), math.ceil(3.2), math.max(1, 5, 3), math.abs(-4)}", 0), ev("return tostring(math.pi)", 0), ev("return math.fmod(7, 3)", 0), ev("return tostring(math.huge)", 0)),
	tc("sandbox cjson", ev("return cjson.encode({1, 2, 3})", 0), ev("return cjson.decode('[1,2,3]')[2]", 0), ev("return cjson.encode({a='b'})", 0), ev("return cjson.decode('{\"a\":{\"b\":5}}').a.b", 0), ev("return cjson.encode(cjson.decode('\"x\\\\u00e9\"'))", 0)),
	tc("sandbox cjson errors", ev("return cjson.decode('{')", 0), ev("return cjson.encode(function() end)", 0)),
	tc("sandbox bit", ev("return {bit.band(5, 3), bit.bor(5, 3), bit.bxor(5, 3), bit.lshift(1, 4), bit.rshift(256, 4)}", 0), ev("return bit.tohex(255)", 0), ev("return bit.bnot(0)", 0)),
	tc("sandbox struct", ev("return struct.pack('>I2', 258)", 0), ev("return {struct.unpack('>I2', 'AB')}", 0), ev("return struct.size('>i4')", 0)),
	tc("sandbox coroutines", ev("local co = coroutine.create(function(a) local b = coroutine.yield(a + 1) return b * 2 end) local _, x = coroutine.resume(co, 1) local _, y = coroutine.resume(co, 10) return {x, y, coroutine.status(co)}", 0)),
	tc("sandbox coroutine wrap", ev("local f = coroutine.wrap(function() coroutine.yield(1) coroutine.yield(2) end) return {f(), f()}", 0)),
	tc("sandbox select and unpack", ev("return select('#', 1, 2, 3)", 0), ev("return {unpack({1, 2, 3})}", 0), ev("return select(2, 'a', 'b', 'c')", 0)),
	tc("sandbox ipairs", ev("local s = 0 for i, v in ipairs({5, 6, 7}) do s = s + i * v end return s", 0)),
	tc("sandbox tostring tonumber", ev("return tostring(nil) .. tostring(true) .. tostring(12)", 0), ev("return tonumber('ff', 16)", 0), ev("return tonumber('z', 36)", 0)),
	tc("sandbox type of values", ev("return {type(nil), type(1), type('s'), type({}), type(print == nil), type(type)}", 0)),
	tc("sandbox string methods", ev("local s = 'abc' return s:upper() .. s:sub(2) .. s:len()", 0), ev("return ('%d'):format(7)", 0)),

	// KEYS and ARGV
	tc("keys and argv", ev("return KEYS", 2, "k1", "k2", "a1"), ev("return ARGV", 2, "k1", "k2", "a1", "a2"), ev("return {#KEYS, #ARGV}", 1, "k", "a", "b")),
	tc("keys and argv empty", ev("return {#KEYS, #ARGV}", 0), ev("return KEYS", 0), ev("return ARGV[1]", 0)),
	tc("argv only", ev("return ARGV", 0, "a", "b"), ev("return ARGV[3]", 0, "a")),
	tc("keys binary and empty", cmd("EVAL", "return KEYS", "2", "", "a\x00b"), cmd("EVAL", "return ARGV", "0", "", "\r\n")),
	tc("keys reset between scripts", ev("return #KEYS", 3, "a", "b", "c"), ev("return {#KEYS, KEYS[2] == nil}", 1, "a")),
	tc("keys and argv cleaned between runs", ev("KEYS.x = 1; KEYS[5] = 'five'; KEYS[1] = nil; ARGV[0] = 'z'; setmetatable(ARGV, {__index=function() return 'meta' end}); return 1", 2, "a", "b", "c", "d"),
		ev("return {#KEYS, tostring(KEYS.x), tostring(KEYS[5]), tostring(KEYS[1]), tostring(ARGV[0]), tostring(ARGV[9]), #ARGV, cjson.encode(KEYS), cjson.encode(ARGV), tostring(next(KEYS, 1))}", 1, "k", "a"),
		ev("ARGV[100000] = 1 KEYS[70] = 1 return 1", 1, "k", "a"), ev("return {#KEYS, #ARGV, tostring(ARGV[100000]), tostring(KEYS[70]), KEYS[1]}", 1, "k2", "a"),
		ev("local n = 0 for k, v in pairs(KEYS) do n = n + 1 end return {n, #KEYS}", 0), ev("return {#KEYS, KEYS[1], KEYS[2]}", 1, "z")),
	tc("keys and argv in errors", ev("return KEYS()", 0), ev("return ARGV.x.y", 0), ev("local k = KEYS return k[1]", 3, "a", "b", "c"), ev("KEYS = 1", 0)),
	tc("keys in redis call", ev("return redis.call('set', KEYS[1], ARGV[1])", 1, "k", "v"), c("GET k")),

	// numkeys and arity
	tc("eval numkeys errors", c("EVAL return 1 x"), ev("return 1", -1), ev("return 1", 2, "a"), c("EVAL return 1 1.0"), c("EVAL return 1 01")),
	tc("eval numkeys checked before compile", ev("return +", 3), c("EVAL x -1"), c("EVAL x abc")),
	tc("eval arity", c("EVAL"), c("EVAL return"), c("eval"), c("EVAL_RO x")),
	tc("eval numkeys large", cmd("EVAL", "return 1", "9223372036854775807"), cmd("EVAL", "return 1", "9223372036854775808"), cmd("EVAL", "return 1", "-9223372036854775808")),
	tc("eval command name case", cmd("eval", "return 1", "0"), cmd("EvAl", "return 2", "0"), cmd("evalsha", lockscripts.SHA1("return 2"), "0")),

	// EVALSHA
	tc("evalsha noscript", evsha("return 'x'", 0), cmd("EVALSHA", "ffffffffffffffffffffffffffffffffffffffff", "0"), cmd("EVALSHA", "short", "0"), cmd("EVALSHA", "", "0")),
	tc("evalsha after eval", ev("return 'cached'", 0), evsha("return 'cached'", 0)),
	tc("evalsha after load", scriptLoad("return ARGV[1]"), evsha("return ARGV[1]", 0, "arg")),
	tc("evalsha upper case", scriptLoad("return 7"), cmd("EVALSHA", "6A0D9B2FFE5B6D2A4A3D4D6B8A6E2C2B8E4F6A12", "0"), cmd("EVALSHA", strings.ToUpper(lockscripts.SHA1("return 7")), "0")),
	tc("evalsha mixed case exists", scriptLoad("return 8"), cmd("SCRIPT", "EXISTS", strings.ToUpper(lockscripts.SHA1("return 8")), lockscripts.SHA1("return 8"))),
	tc("evalsha numkeys before lookup", cmd("EVALSHA", "nosuch", "x"), cmd("EVALSHA", "nosuch", "-1"), cmd("EVALSHA", "nosuch", "5", "a")),
	tc("evalsha numkeys checked for a sha1-long name", cmd("EVALSHA", "ffffffffffffffffffffffffffffffffffffffff", "x"), cmd("EVALSHA", "ffffffffffffffffffffffffffffffffffffffff", "-1"), cmd("EVALSHA", "ffffffffffffffffffffffffffffffffffffffff", "2", "a")),
	tc("evalsha arity", c("EVALSHA"), c("EVALSHA abc"), c("EVALSHA_RO abc")),
	tc("evalsha 41 chars", scriptLoad("return 9"), cmd("EVALSHA", lockscripts.SHA1("return 9")+"0", "0"), cmd("EVALSHA", lockscripts.SHA1("return 9")[:39], "0")),
	tc("evalsha after flush", scriptLoad("return 10"), c("SCRIPT FLUSH"), evsha("return 10", 0)),
	tc("evalsha runtime error", scriptLoad("error('x')"), evsha("error('x')", 0)),

	// SCRIPT
	tc("script load", scriptLoad("return 1"), scriptLoad("return 1"), cmd("SCRIPT", "EXISTS", lockscripts.SHA1("return 1"))),
	tc("script load compile error", scriptLoad("return +"), scriptLoad("if"), cmd("SCRIPT", "EXISTS", lockscripts.SHA1("return +"))),
	tc("script load binary body", scriptLoad("return '\x00\xff'"), evsha("return '\x00\xff'", 0)),
	tc("script load empty", scriptLoad(""), evsha("", 0)),
	tc("script exists", scriptLoad("return 1"), cmd("SCRIPT", "EXISTS", lockscripts.SHA1("return 1"), lockscripts.SHA1("return 2"), "x", "")),
	tc("script exists arity", c("SCRIPT EXISTS")),
	tc("script flush", scriptLoad("return 1"), c("SCRIPT FLUSH"), cmd("SCRIPT", "EXISTS", lockscripts.SHA1("return 1"))),
	tc("script flush modes", c("SCRIPT FLUSH ASYNC"), c("SCRIPT FLUSH SYNC"), c("SCRIPT FLUSH async"), c("script flush sync")),
	tc("script flush errors", c("SCRIPT FLUSH foo"), c("SCRIPT FLUSH SYNC ASYNC"), c("SCRIPT FLUSH SYNC SYNC")),
	tc("script kill not busy", c("SCRIPT KILL"), c("script kill")),
	tc("script kill arity", c("SCRIPT KILL now")),
	tc("script load arity", c("SCRIPT LOAD"), c("SCRIPT LOAD a b")),
	tc("script unknown subcommand", c("SCRIPT FOO"), c("SCRIPT foo bar"), c("SCRIPT")),
	tc("script help", c("SCRIPT HELP"), c("script help"), c("SCRIPT HELP x")),
	tc("script debug no", c("SCRIPT DEBUG NO"), c("script debug no"), ev("return 1", 0)),
	tc("script debug errors", c("SCRIPT DEBUG"), c("SCRIPT DEBUG foo"), c("SCRIPT DEBUG NO x")),
	tc("script debug in multi", c("MULTI"), c("SCRIPT DEBUG NO"), c("SCRIPT DEBUG foo"), c("EXEC")),
	tc("script debug after pipelined reply", raw("PING\r\nSCRIPT DEBUG NO\r\n").expect(2), c("SCRIPT DEBUG NO")),
	tc("script subcommand case", cmd("script", "load", "return 'lc'"), cmd("Script", "Exists", lockscripts.SHA1("return 'lc'"))),

	// Shebangs
	tc("shebang lua", ev("#!lua\nreturn 1", 0), ev("#!lua\n\nreturn 2", 0)),
	tc("shebang no-writes", ev("#!lua flags=no-writes\nreturn redis.call('get', 'k')", 0), ev("#!lua flags=no-writes\nreturn redis.call('set', 'k', 'v')", 0), c("GET k")),
	tc("shebang no-writes pcall", ev("#!lua flags=no-writes\nreturn redis.pcall('set', 'k', 'v')", 0)),
	tc("shebang errors", ev("#!lua", 0), ev("#!python\nreturn 1", 0), ev("#!lua flags=foo\nreturn 1", 0), ev("#!lua name=x\nreturn 1", 0)),
	tc("shebang more errors", ev("#!\nreturn 1", 0), ev("#!lua flags\nreturn 1", 0), ev("#!lua  flags=no-writes\nreturn 1", 0), ev("#! lua\nreturn 1", 0)),
	tc("shebang flags", ev("#!lua flags=no-writes,allow-oom\nreturn 1", 0), ev("#!lua flags=allow-stale,no-cluster,allow-cross-slot-keys\nreturn 2", 0), ev("#!lua flags=\nreturn 3", 0)),
	tc("shebang error line numbers", ev("#!lua\nerror('second line')", 0), ev("#!lua\nreturn +", 0), ev("#!lua flags=no-writes\n\nreturn a", 0)),
	tc("shebang script load", scriptLoad("#!lua\nreturn 1"), scriptLoad("#!lua flags=bad\nreturn 1"), scriptLoad("#!lua")),
	tc("shebang not first", ev(" #!lua\nreturn 1", 0), ev("\n#!lua\nreturn 1", 0)),
	tc("shebang write flag with eval_ro", evRO("#!lua\nreturn 1", 0), evRO("#!lua flags=no-writes\nreturn 1", 0)),

	// Read-only scripts
	tc("eval_ro read", c("SET k v"), evRO("return redis.call('get', KEYS[1])", 1, "k")),
	tc("eval_ro write refused", evRO("return redis.call('set', 'k', 'v')", 0), evRO("return redis.pcall('del', 'k')", 0), c("GET k")),
	tc("eval_ro write refused after read", c("SET k v"), evRO("local v = redis.call('get', 'k')\nredis.call('del', 'k')", 0), c("GET k")),
	tc("evalsha_ro", scriptLoad("return redis.call('get', 'k')"), c("SET k v"), cmd("EVALSHA_RO", lockscripts.SHA1("return redis.call('get', 'k')"), "0"), cmd("EVALSHA_RO", lockscripts.SHA1("nosuch"), "0")),
	tc("evalsha_ro write refused", scriptLoad("return redis.call('incr', 'n')"), cmd("EVALSHA_RO", lockscripts.SHA1("return redis.call('incr', 'n')"), "0"), c("GET n")),
	tc("eval_ro errors", evRO("return +", 0), evRO("error('x')", 0), evRO("return 1", -1)),

	// SELECT inside a script
	tc("select in script does not leak", ev("redis.call('select', 1) redis.call('set', 'k', 'db1') return redis.call('get', 'k')", 0), c("GET k"), c("SELECT 1"), c("GET k")),
	tc("script starts in caller db", c("SELECT 2"), c("SET k two"), ev("return redis.call('get', 'k')", 0), ev("redis.call('select', 0) return redis.call('get', 'k')", 0), c("GET k")),
	tc("select in script errors", ev("return redis.call('select', 99)", 0), ev("return redis.pcall('select', 'x')", 0), c("SET k v"), c("GET k")),
	tc("select in script then error", ev("redis.call('select', 3) error('x')", 0), c("SET k v"), c("SELECT 3"), c("GET k")),
	tc("select in script resets next script", ev("redis.call('select', 5) return 1", 0), ev("redis.call('set', 'k', 'v') return 2", 0), c("GET k")),

	// MULTI
	tc("eval in multi", c("MULTI"), ev("return redis.call('set', 'k', 'v')", 0), ev("return redis.call('get', 'k')", 0), c("EXEC")),
	tc("eval errors in multi", c("MULTI"), ev("error('x')", 0), ev("return redis.call('nosuch')", 0), ev("return +", 0), c("SET k v"), c("EXEC"), c("GET k")),
	tc("evalsha noscript in multi", c("MULTI"), evsha("return 1", 0), c("EXEC")),
	tc("script load in multi", c("MULTI"), scriptLoad("return 'm'"), evsha("return 'm'", 0), c("EXEC")),
	tc("eval arity in multi aborts", c("MULTI"), c("EVAL x"), c("EXEC")),
	tc("script kill in multi", c("MULTI"), c("SCRIPT KILL"), c("SCRIPT FLUSH"), c("EXEC")),
	tc("eval select in multi", c("MULTI"), ev("redis.call('select', 1) return redis.call('set', 'k', 'v')", 0), c("GET k"), c("EXEC"), c("GET k")),
	tc("eval in multi resp3", hello3, c("MULTI"), ev("return {double=1.5}", 0), ev("return false", 0), c("EXEC")),
	tc("watch and eval", c("WATCH k"), ev("return redis.call('set', 'k', 'v')", 0).on(1), c("MULTI"), c("GET k"), c("EXEC")),

	// redis.call with every data command
	tc("call get set", ev("return redis.call('get', 'k')", 0), ev("return redis.call('set', 'k', 'v')", 0), ev("return redis.call('get', 'k')", 0)),
	tc("call set options", ev("return redis.call('set', 'k', 'v', 'NX')", 0), ev("return redis.call('set', 'k', 'w', 'NX')", 0), ev("return redis.call('set', 'k', 'w', 'XX', 'GET')", 0), ev("return redis.call('set', 'n', 'w', 'XX')", 0)),
	tc("call set nx refused is false", c("SET k v"), ev("return redis.call('set', 'k', 'w', 'NX') == false", 0), ev("if redis.call('set', 'k', 'w', 'NX', 'PX', 100) then return 1 else return 0 end", 0)),
	tc("call set get nil", ev("return redis.call('set', 'k', 'v', 'GET')", 0), ev("return redis.call('set', 'k', 'w', 'GET')", 0)),
	tc("call set with expiry", ev("redis.call('set', 'k', 'v', 'EX', 100) return redis.call('ttl', 'k')", 0), ev("redis.call('set', 'k', 'v', 'PX', '100000') return redis.call('ttl', 'k')", 0), ev("redis.call('set', 'k', 'v', 'KEEPTTL') return redis.call('ttl', 'k')", 0)),
	tc("call set px pttl frozen", ev("redis.call('set', KEYS[1], 'v', 'PX', 5000) return redis.call('pttl', KEYS[1])", 1, "lock").with(pttlTick), ev("redis.call('set', KEYS[1], 'v', 'EX', 10) return redis.call('ttl', KEYS[1])", 1, "lock")),
	tc("call pexpire string argument", c("SET k v"), ev("return redis.call('pexpire', KEYS[1], '10')", 1, "k"), ev("return redis.call('expire', KEYS[1], '10')", 1, "k"), c("TTL k"), ev("return redis.call('pexpire', KEYS[1], ARGV[1] + 5000)", 1, "k", "5000"), c("TTL k")),
	tc("call pexpire pttl frozen", c("SET k v"), ev("redis.call('pexpire', 'k', '10000') return redis.call('pttl', 'k')", 0).with(pttlTick)),
	tc("call setnx", ev("return redis.call('setnx', 'k', 'v')", 0), ev("return redis.call('setnx', 'k', 'w')", 0), c("GET k")),
	tc("call setex psetex", ev("return redis.call('setex', 'k', 100, 'v')", 0), ev("return redis.call('ttl', 'k')", 0), ev("return redis.call('psetex', 'p', 100000, 'v')", 0), ev("return redis.call('ttl', 'p')", 0), ev("return redis.call('setex', 'k', 0, 'v')", 0)),
	tc("call getset", c("SET k old EX 100"), ev("return redis.call('getset', 'k', 'new')", 0), ev("return redis.call('ttl', 'k')", 0), ev("return redis.call('getset', 'nosuch', 'x')", 0)),
	tc("call getdel getex", c("SET k v"), ev("return redis.call('getex', 'k', 'EX', 100)", 0), ev("return redis.call('ttl', 'k')", 0), ev("return redis.call('getdel', 'k')", 0), ev("return redis.call('getdel', 'k')", 0), ev("return redis.call('getex', 'k', 'PERSIST')", 0)),
	tc("call getrange strlen append", c("SET k hello"), ev("return redis.call('getrange', 'k', 0, 2)", 0), ev("return redis.call('getrange', 'k', -3, -1)", 0), ev("return redis.call('strlen', 'k')", 0), ev("return redis.call('append', 'k', ' world')", 0), ev("return redis.call('get', 'k')", 0)),
	tc("call incr family", ev("return redis.call('incr', 'n')", 0), ev("return redis.call('incrby', 'n', 10)", 0), ev("return redis.call('decr', 'n')", 0), ev("return redis.call('decrby', 'n', '5')", 0), ev("return redis.call('incrby', 'n', 'x')", 0)),
	tc("call incr overflow", c("SET n 9223372036854775807"), ev("return redis.call('incr', 'n')", 0), ev("return redis.call('get', 'n')", 0)),
	tc("call mget mset msetnx", ev("return redis.call('mset', 'a', 1, 'b', 2)", 0), ev("return redis.call('mget', 'a', 'b', 'c')", 0), ev("return redis.call('msetnx', 'c', 3, 'a', 9)", 0), ev("return redis.call('msetnx', 'c', 3, 'd', 4)", 0), ev("return redis.call('mset', 'a')", 0)),
	tc("call del unlink exists touch", c("MSET a 1 b 2 c 3"), ev("return redis.call('exists', 'a', 'b', 'x', 'a')", 0), ev("return redis.call('del', 'a', 'a', 'x')", 0), ev("return redis.call('unlink', 'b')", 0), ev("return redis.call('touch', 'c', 'x')", 0)),
	tc("call type keys dbsize", c("SET k v"), ev("return redis.call('type', 'k')", 0), ev("return redis.call('type', 'nosuch')", 0), ev("return redis.call('keys', 'k*')", 0), ev("return redis.call('dbsize')", 0)),
	tc("call flushdb", c("SET k v"), ev("return redis.call('flushdb')", 0), c("DBSIZE")),
	tc("call expire family", c("SET k v"), ev("return redis.call('expire', 'k', '10')", 0), ev("return redis.call('ttl', 'k')", 0), ev("return redis.call('pexpire', 'k', '20000')", 0), ev("return redis.call('ttl', 'k')", 0), ev("return redis.call('persist', 'k')", 0), ev("return redis.call('ttl', 'k')", 0)),
	tc("call expire options", c("SET k v"), ev("return redis.call('expire', 'k', 100, 'NX')", 0), ev("return redis.call('expire', 'k', 50, 'GT')", 0), ev("return redis.call('expire', 'k', 50, 'LT')", 0), ev("return redis.call('expire', 'k', 50, 'XX', 'NX')", 0), ev("return redis.call('expire', 'k', 50, 'FOO')", 0)),
	tc("call expire zero deletes", c("SET k v"), ev("return redis.call('expire', 'k', 0)", 0), c("EXISTS k"), ev("return redis.call('expire', 'nosuch', 10)", 0)),
	tc("call expireat family", c("SET k v"), ev("return redis.call('expireat', 'k', 4102444800)", 0), ev("return redis.call('expiretime', 'k')", 0), ev("return redis.call('pexpireat', 'k', 4102444800000)", 0), ev("return redis.call('pexpiretime', 'k')", 0), ev("return redis.call('expireat', 'k', 1)", 0), c("EXISTS k")),
	tc("call ttl missing and persistent", c("SET k v"), ev("return {redis.call('ttl', 'k'), redis.call('pttl', 'k'), redis.call('ttl', 'nosuch'), redis.call('pttl', 'nosuch')}", 0)),
	tc("call expire invalid", c("SET k v"), ev("return redis.call('expire', 'k', 'x')", 0), ev("return redis.call('expire', 'k', 9223372036854775807)", 0), ev("return redis.pcall('pexpire', 'k', '9223372036854775807')", 0)),
	tc("call ping echo", ev("return redis.call('ping')", 0), ev("return redis.call('ping', 'x')", 0), ev("return redis.call('echo', 'hi')", 0)),
	tc("call time shape", ev("local t = redis.call('time') return {#t, type(t[1]), type(t[2])}", 0)),
	tc("call command name case", ev("return redis.call('SET', 'k', 'v')", 0), ev("return redis.call('GeT', 'k')", 0)),
	tc("call scan single key", c("SET k v"), ev("return redis.call('scan', 0, 'MATCH', 'k')[2]", 0)),
	tc("write then read same script", ev("redis.call('set', 'k', 1) redis.call('incr', 'k') redis.call('expire', 'k', 100) return {redis.call('get', 'k'), redis.call('ttl', 'k')}", 0)),
	tc("expired key inside script", c("SET k v PXAT 1000"), ev("return {redis.call('get', 'k'), redis.call('exists', 'k'), redis.call('ttl', 'k')}", 0)),

	// The lock libraries' scripts
	tc("redsync delete", c("SET lock tok"), ev(lockscripts.RedsyncDelete, 1, "lock", "other"), ev(lockscripts.RedsyncDelete, 1, "lock", "tok"), ev(lockscripts.RedsyncDelete, 1, "lock", "tok"), c("EXISTS lock")),
	tc("redsync delete evalsha first", evsha(lockscripts.RedsyncDelete, 1, "lock", "tok"), ev(lockscripts.RedsyncDelete, 1, "lock", "tok"), evsha(lockscripts.RedsyncDelete, 1, "lock", "tok")),
	tc("redsync touch", c("SET lock tok PX 1000"), ev(lockscripts.RedsyncTouch, 1, "lock", "tok", "8000"), c("TTL lock"), ev(lockscripts.RedsyncTouch, 1, "lock", "other", "8000"), ev(lockscripts.RedsyncTouch, 1, "nosuch", "tok", "8000")),
	tc("redsync touch with setnx", ev(lockscripts.RedsyncTouchWithSetNX, 1, "lock", "tok", "8000"), c("GET lock"), c("TTL lock"), ev(lockscripts.RedsyncTouchWithSetNX, 1, "lock", "tok", "9000"), ev(lockscripts.RedsyncTouchWithSetNX, 1, "lock", "other", "9000")),
	tc("redislock obtain", ev(lockscripts.RedislockObtain, 1, "lock", "tokenA", "0", "5000"), c("GET lock"), ev(lockscripts.RedislockObtain, 1, "lock", "tokenB", "0", "5000"), c("GET lock")),
	tc("redislock obtain with metadata offset", ev(lockscripts.RedislockObtain, 1, "lock", "tokenAmeta1", "6", "5000"), ev(lockscripts.RedislockObtain, 1, "lock", "tokenAmeta2", "6", "7000"), c("GET lock"), c("TTL lock"), ev(lockscripts.RedislockObtain, 1, "lock", "tokenBmeta", "6", "5000")),
	tc("redislock refresh release pttl", c("SET lock tok PX 1000"), ev(lockscripts.RedislockRefresh, 1, "lock", "tok", "9000"), c("TTL lock"), ev(lockscripts.RedislockRefresh, 1, "lock", "bad", "9000"), ev(lockscripts.RedislockPTTL, 1, "lock", "bad"), ev(lockscripts.RedislockRelease, 1, "lock", "bad"), ev(lockscripts.RedislockRelease, 1, "lock", "tok"), ev(lockscripts.RedislockRelease, 1, "lock", "tok")),
	tc("redislock pttl exact", ev("redis.call('set', KEYS[1], ARGV[1], 'PX', 5000) return 1", 1, "lock", "tok"), ev(lockscripts.RedislockPTTL, 1, "lock", "tok").with(msToSec)),
	tc("redis-py release", c("SET lock tok"), ev(lockscripts.RedisPyRelease, 1, "lock", "bad"), c("GET lock"), ev(lockscripts.RedisPyRelease, 1, "lock", "tok"), ev(lockscripts.RedisPyRelease, 1, "lock", "tok")),
	tc("redis-py extend add", c("SET lock tok PX 10000"), ev(lockscripts.RedisPyExtend, 1, "lock", "tok", "5000", "0"), c("TTL lock"), ev(lockscripts.RedisPyExtend, 1, "lock", "bad", "5000", "0"), ev(lockscripts.RedisPyExtend, 1, "nosuch", "tok", "5000", "0")),
	tc("redis-py extend replace", c("SET lock tok PX 10000"), ev(lockscripts.RedisPyExtend, 1, "lock", "tok", "30000", "1"), c("TTL lock")),
	tc("redis-py extend no ttl", c("SET lock tok"), ev(lockscripts.RedisPyExtend, 1, "lock", "tok", "5000", "0"), c("TTL lock")),
	tc("redis-py reacquire", c("SET lock tok PX 1000"), ev(lockscripts.RedisPyReacquire, 1, "lock", "tok", "20000"), c("TTL lock"), ev(lockscripts.RedisPyReacquire, 1, "lock", "bad", "20000")),
	tc("redis-py script load flow", c("SET lock tok PX 10000 NX"), c("SET lock other PX 10000 NX"), evsha(lockscripts.RedisPyRelease, 1, "lock", "tok"), scriptLoad(lockscripts.RedisPyRelease), evsha(lockscripts.RedisPyRelease, 1, "lock", "tok"), evsha(lockscripts.RedisPyRelease, 1, "lock", "tok")),
	tc("node-redlock acquire", ev(lockscripts.RedlockAcquire, 2, "r1", "r2", "val", "5000"), c("TTL r1"), ev(lockscripts.RedlockAcquire, 2, "r2", "r3", "other", "5000"), c("EXISTS r3")),
	tc("node-redlock extend and release", ev(lockscripts.RedlockAcquire, 1, "r", "val", "1000"), ev(lockscripts.RedlockExtend, 1, "r", "val", "9000"), c("TTL r"), ev(lockscripts.RedlockExtend, 1, "r", "bad", "9000"), ev(lockscripts.RedlockRelease, 1, "r", "bad"), ev(lockscripts.RedlockRelease, 1, "r", "val"), c("EXISTS r")),
	tc("article compare and delete", c("SET resource rand1 NX PX 30000"), ev(lockscripts.ArticleRelease, 1, "resource", "rand2"), ev(lockscripts.ArticleRelease, 1, "resource", "rand1"), ev(lockscripts.ArticleRelease, 1, "resource", "rand1")),
	// The compare-and-delete bodies luaeval runs without the Lua VM
	// (luaeval/native.go), in every situation that shows
	tc("compare and delete held", c("SET lock tok PX 30000"), ev(lockscripts.ArticleRelease, 1, "lock", "tok"), c("EXISTS lock"), ev(lockscripts.RedislockRelease, 1, "lock", "tok")),
	tc("compare and delete not held", c("SET lock other"), ev(lockscripts.ArticleRelease, 1, "lock", "tok"), ev(lockscripts.RedislockRelease, 1, "lock", "tok"), c("GET lock")),
	tc("compare and delete odd arguments", c("SET lock tok"), ev(lockscripts.ArticleRelease, 0, "tok"), ev(lockscripts.ArticleRelease, 1, "lock"), ev(lockscripts.ArticleRelease, 2, "lock", "x", "tok"), ev(lockscripts.ArticleRelease, 1, "lock", "tok", "extra"), c("EXISTS lock")),
	tc("compare and delete empty and binary", cmd("SET", "l\x00ck", ""), cmd("EVAL", lockscripts.ArticleRelease, "1", "l\x00ck", ""), cmd("SET", "k", "t\r\nk"), cmd("EVAL", lockscripts.ArticleRelease, "1", "k", "t\r\nk")),
	tc("compare and delete read-only", c("SET lock tok"), evRO(lockscripts.ArticleRelease, 1, "lock", "tok"), evRO(lockscripts.ArticleRelease, 1, "lock", "other"), cmd("EVALSHA_RO", lockscripts.SHA1(lockscripts.ArticleRelease), "1", "lock", "tok"), c("GET lock")),
	tc("compare and delete evalsha", c("SET lock tok"), evsha(lockscripts.RedislockRelease, 1, "lock", "tok"), scriptLoad(lockscripts.RedislockRelease), evsha(lockscripts.RedislockRelease, 1, "lock", "tok"), cmd("EVALSHA", strings.ToUpper(lockscripts.SHA1(lockscripts.RedislockRelease)), "1", "lock", "tok")),
	tc("compare and delete resp3", hello3, c("SET lock tok"), ev(lockscripts.ArticleRelease, 1, "lock", "x"), ev(lockscripts.ArticleRelease, 1, "lock", "tok"), ev(lockscripts.ArticleRelease, 1, "lock", "tok")),
	tc("compare and delete in multi", c("SET lock tok"), c("MULTI"), ev(lockscripts.ArticleRelease, 1, "lock", "tok"), ev(lockscripts.ArticleRelease, 1, "lock", "tok"), c("EXEC")),
	tc("compare and delete selected db", c("SELECT 3"), c("SET lock tok"), ev(lockscripts.ArticleRelease, 1, "lock", "tok"), c("SELECT 0"), c("SET lock tok"), c("SELECT 3"), ev(lockscripts.ArticleRelease, 1, "lock", "tok")),
	tc("compare and delete expired", c("SET lock tok PXAT 1000"), ev(lockscripts.ArticleRelease, 1, "lock", "tok")),
	tc("compare and delete monitor", c("SET lock tok"), c("MONITOR").on(1), ev(lockscripts.ArticleRelease, 1, "lock", "tok"), raw("").on(1).expect(3).with(monitorLines), ev(lockscripts.ArticleRelease, 1, "lock", "tok"), raw("").on(1).expect(2).with(monitorLines)),
	tc("article setnx expire", ev(lockscripts.ArticleAcquire, 1, "lock", "me", "10"), c("TTL lock"), ev(lockscripts.ArticleAcquire, 1, "lock", "you", "10"), c("GET lock")),
	tc("article ttl unlock", ev(lockscripts.ArticleAcquire, 1, "lock", "me", "10"), ev("if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return redis.call('ttl', KEYS[1])", 1, "lock", "you"), ev("if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return redis.call('ttl', KEYS[1])", 1, "lock", "me")),

	// More conversions and errors
	tc("return huge numbers", ev("return 1e20", 0), ev("return -1e20", 0), ev("return 2^63", 0), ev("return 2^64", 0), ev("return 0/0", 0)),
	tc("return nan double", ev("return {double=0/0}", 0), ev("return tostring(0/0)", 0)),
	tc("error text with newlines", ev("error('a\r\nb')", 0), ev("return redis.error_reply('a\r\nb')", 0), ev("error('')", 0)),
	tc("error nil", ev("error(nil)", 0)),
	tc("reply ignores metatables", ev("return setmetatable({}, {__index=function() return 'E x' end})", 0), ev("return setmetatable({}, {__index={err='IDX y'}})", 0), ev("return {err=setmetatable({}, {__tostring=function() return 'x' end})}", 0)),
	tc("pcall of a failing redis.call in a function", ev("local ok, e = pcall(function() return redis.call('nosuch') end) return {tostring(ok), type(e), tostring(e)}", 0)),
	tc("call with number as name", ev("return redis.call(1)", 0), ev("return redis.call('set', 'k', {})", 0)),
	tc("cjson more", ev("return cjson.encode({})", 0), ev("return cjson.encode(0.1)", 0), ev("return cjson.encode({1, nil, 3})", 0), ev("return cjson.encode({[1]=1, [3]=3})", 0), ev("return cjson.encode({a=1/0})", 0)),
	tc("lua number text", ev("return string.format('%q', 'a\\0b')", 0), ev("return tostring(12345678901234567890)", 0), ev("return 2^31 .. ''", 0), ev("return math.floor(-0.5)", 0)),

	// MONITOR shows EVAL, then the script's commands
	tc("monitor eval", c("MONITOR").on(1), ev("redis.call('set', 'k', 'v') return redis.call('get', 'k')", 0),
		raw("").on(1).expect(3).with(monitorLines)),
	tc("monitor evalsha", scriptLoad("return redis.call('del', 'k')"), c("MONITOR").on(1), evsha("return redis.call('del', 'k')", 0), evsha("return 1", 0),
		raw("").on(1).expect(3).with(monitorLines)),
	tc("monitor script select", c("MONITOR").on(1), ev("redis.call('select', 3) return redis.call('get', 'k')", 0),
		raw("").on(1).expect(3).with(monitorLines)),
	// A MONITOR client is a replica to Redis: it may not touch the keyspace.
	// (What it may run also shows in its own feed, so only refusals and
	// unmonitored commands are compared here.)
	tc("monitor client commands", c("MONITOR"), ev("return 1", 0), c("EVAL_RO 'return 1' 0"), evsha("return 1", 0),
		c("GET k"), c("SET k v"), c("DBSIZE"), c("KEYS *"), c("TTL k"), c("TYPE k"), c("SCAN 0"), c("FLUSHALL"), c("EXPIRE k 10"),
		c("CONFIG GET maxmemory"), c("RESET"), c("GET k")),

	// More of the Lua libraries, as Lua 5.1 in Redis has them
	tc("string.format variants", ev("return string.format('%5.1f|%g|%x|%X|%o|%e|%c', 3.14159, 1e20, 255, 255, 8, 12345.678, 65)", 0), ev("return string.format('%d', 2^63)", 0), ev("return string.format('%s %q', 1.5, 'x\ny')", 0), ev("return string.format('%10s|%-5d|', 'x', 42)", 0)),
	tc("reply cycles and depth", ev("local t = {} t[1] = t return t", 0), ev("local t = {} local c = t for i = 1, 10000 do c[1] = {} c = c[1] end return t", 0)),
	tc("unpack limits", ev("return unpack({}, 1, 1e6)", 0), ev("return {unpack({1, 2, 3}, 2)}", 0)),
	tc("tonumber forms", ev("return {tonumber('1e1'), tonumber('.5') * 10, tonumber('5.') , tonumber(' 0x1p4 ') == nil}", 0), ev("return tostring(tonumber('0x'))", 0), ev("return tostring(tonumber('1e'))", 0)),
	tc("bit and string bytes", ev("return bit.tobit(2^32 + 5)", 0), ev("return {string.byte('ABC', 1, -1)}", 0), ev("return string.char(72, 105)", 0), ev("return string.rep('a', 3)", 0)),
	tc("cjson tables", ev("return cjson.encode({[1]='a', [2]='b', x=1})", 0), ev("local t = {} local c = t for i = 1, 1100 do c[1] = {} c = c[1] end return cjson.encode(t)", 0), ev("return cjson.decode('[[[[1]]]]')[1][1][1][1]", 0), ev("return cjson.encode({1, 2, [5]=5})", 0), ev("return cjson.encode({[10]=1})", 0)),
	tc("struct and table.concat", ev("return struct.unpack('>I4', 'ab')", 0), ev("return table.concat({1, 2.5, 'x'}, '-')", 0), ev("return #'abc' .. #{1, 2}", 0)),
	tc("math corner cases", ev("return math.max()", 0), ev("return {math.modf(3.7)}", 0), ev("return tostring(math.huge * 0)", 0), ev("return {7 % -3, -7 % 3}", 0), ev("return tostring(2^0.5)", 0)),
	tc("select and gsub", ev("return select(-1, 'a', 'b')", 0), ev("return select(0, 'a')", 0), ev("return (string.gsub('hello world', '(o)', '[%1]'))", 0)),

	// Builtins' argument errors: "no value" for a missing argument, Lua
	// 5.1's own texts, and '?' for a builtin a builtin calls
	tc("builtin missing arguments", ev("return math.floor()", 0), ev("return string.sub()", 0), ev("return table.concat()", 0), ev("return ipairs()", 0), ev("return next()", 0), ev("return unpack()", 0), ev("return rawget()", 0)),
	tc("builtin missing later arguments", ev("return math.pow(2)", 0), ev("return string.rep('x')", 0), ev("return math.ldexp(1)", 0), ev("return string.byte()", 0), ev("return setmetatable()", 0)),
	tc("builtin explicit nil arguments", ev("return math.floor(nil)", 0), ev("return string.rep('x', nil)", 0), ev("return math.max(1, nil)", 0), ev("return math.min(nil)", 0)),
	tc("math min and max", ev("return math.min()", 0), ev("return math.max()", 0), ev("return {math.max(3, 9, 1), math.min(3, 9, 1), math.max('4', 2)}", 0), ev("return tostring(math.max(0/0, 1))", 0), ev("return math.max(1, 0/0)", 0)),
	tc("select forms", ev("return select('#x', 1)", 0), ev("return select('2', 'a', 'b')", 0), ev("return select(-5, 'a')", 0), ev("return select(1.5, 'a', 'b')", 0), ev("return select()", 0), ev("return select('x')", 0)),
	tc("assert forms", ev("return assert()", 0), ev("return {assert(1, 2, 3)}", 0), ev("return assert(false, 'x')", 0), ev("return assert(nil, 42)", 0), ev("return assert(false)", 0)),
	tc("coroutine argument errors", ev("return coroutine.wrap()", 0), ev("return coroutine.create(type)", 0), ev("return coroutine.resume(1)", 0), ev("return coroutine.status()", 0), ev("return coroutine.status(coroutine.create(function() end))", 0)),
	tc("builtin called by a builtin", ev("return {pcall(string.sub)}", 0), ev("local ok, e = pcall(select) return e", 0), ev("return string.gsub('x', '.', string.rep)", 0), ev("return table.sort({3, 1, 2}, math.floor)", 0), ev("return {pcall(math.floor, 'x')}", 0)),
	tc("pcall error texts", ev("local ok, e = pcall(function() return math.floor() end) return e", 0), ev("local ok, e = pcall(function() local x; return #x end) return e", 0), ev("local ok, e = pcall(function() local t = {} return t.a.b end) return e", 0), ev("local ok, e = pcall(function() return nil .. 1 end) return e", 0)),
	tc("pcall stack overflow", ev("local ok, e = pcall(function() local function f() return f() + 1 end return f() end) return e", 0), ev("return {pcall(pcall, error, 'x')}", 0)),
	tc("xpcall handler", ev("return xpcall(function() return math.floor() end, function(m) return 'H:' .. m end)", 0)),

	// Commands a script may and may not call, beyond the data commands
	tc("call config and client", ev("return redis.call('config', 'get', 'maxmemory')", 0), ev("return redis.pcall('config', 'resetstat')", 0), ev("return redis.pcall('client', 'setname', 'x')", 0), ev("return redis.pcall('config')", 0), ev("return redis.pcall('client')", 0)),
	tc("call transaction commands", ev("return redis.pcall('discard')", 0), ev("return redis.pcall('unwatch')", 0), ev("return redis.pcall('exec')", 0), ev("return redis.pcall('watch', 'a')", 0)),
	tc("call flushall and command", c("SET k v"), ev("return redis.call('flushall')", 0), c("DBSIZE"), ev("return redis.pcall('command', 'count') > 0", 0), ev("return redis.pcall('command', 'info', 'get')[1][1]", 0)),
	tc("call odd names", ev("return redis.pcall('script|load', 'x')", 0), ev("return redis.pcall('hello', '3')", 0), ev("return redis.pcall('select', '1', '2')", 0), ev("return redis.pcall('keys')", 0), ev("return redis.pcall('scan', 'x')", 0)),
	tc("call getex invalid", c("SET k v"), ev("return redis.pcall('getex', 'k', 'ex', '0')", 0), ev("return redis.pcall('time')[3]", 0)),

	// Scripts and the rest of the server
	tc("evalsha queued then flushed", scriptLoad("return 'q'"), c("MULTI"), evsha("return 'q'", 0), c("SCRIPT FLUSH").on(1), c("EXEC")),
	tc("eval inline command", raw("EVAL \"return 'inline'\" 0\r\n"), raw("EVAL 'return {KEYS[1], ARGV[1]}' 1 k a\r\n")),
	tc("eval pipelined", raw(string(cmdBytes("EVAL", "return 1", "0"))+string(cmdBytes("EVAL", "return 2", "0"))+string(cmdBytes("EVALSHA", lockscripts.SHA1("return 1"), "0"))).expect(3)),
	tc("script large value round trip", ev("redis.call('set', 'big', string.rep('x', 1000000)) return #redis.call('get', 'big')", 0), c("STRLEN big")),
	tc("expired key during script stays visible", ev(`local function now() local t = redis.call('time') return t[1] * 1000000 + t[2] end
redis.call('set', 'k', 'v', 'px', 30)
local start = now()
while now() - start < 60000 do end
return {redis.call('exists', 'k'), redis.call('get', 'k'), redis.call('ttl', 'k')}`, 0), c("EXISTS k")),
	tc("client list after eval", ev("return 1", 0), c("CLIENT INFO").with(clientFields)),
	tcAuth("scripts need auth", ev("return 1", 0), evsha("return 1", 0), scriptLoad("return 1"), c("SCRIPT KILL"), c("SCRIPT EXISTS x"), c("EVAL"), c("SCRIPT NOSUCH"), c("AUTH "+diffPassword), ev("return 1", 0), c("SCRIPT KILL")),
	tcAuth("script calls auth", c("AUTH "+diffPassword), ev("return redis.pcall('auth', 'x')", 0)),

	// Misc
	tc("script with comments and whitespace", ev("-- just a comment\n", 0), ev("  \n\t return   1  \n", 0), ev("--[[ block\ncomment ]] return 2", 0)),
	tc("script long string result", ev("return string.rep('x', 100000)", 0)),
	tc("script large array result", ev("local t = {} for i = 1, 1000 do t[i] = i end return t", 0)),
	tc("script deep nesting", ev("local t = {} local c = t for i = 1, 100 do c[1] = {} c = c[1] end return t", 0)),
	tc("script recursion error", ev("local function f() return f() + 1 end return f()", 0)),
	tc("script cached across calls", ev("return 'x'", 0), cmd("SCRIPT", "EXISTS", lockscripts.SHA1("return 'x'")), evsha("return 'x'", 0)),
	tc("script same body different args", ev("return ARGV[1]", 0, "a"), ev("return ARGV[1]", 0, "b"), evsha("return ARGV[1]", 0, "c")),
	tc("script loop with calls", ev("for i = 1, 100 do redis.call('incr', 'n') end return redis.call('get', 'n')", 0)),
	tc("script sees its own writes and others", c("SET k v").on(1), ev("return redis.call('get', 'k')", 0)),
	tc("script math random deterministic type", ev("return type(math.random())", 0), ev("local r = math.random(10) return r >= 1 and r <= 10", 0)),
}

// withSetup prefixes the case with setup steps.
func (dc diffCase) withSetup(setup ...step) diffCase {
	dc.steps = append(append([]step{}, setup...), dc.steps...)
	return dc
}
