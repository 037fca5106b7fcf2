package luaeval

import (
	"strings"
	"testing"

	"github.com/minilock/minilock/resp"
)

// Every recursion in Go that a script's source or data drives, each driven
// as deep as a script can drive it. The package's tests run with the Go
// stack capped (stackcap_test.go), so a recursion whose bound is missing,
// or can be raised by an option, ends the run with a fatal stack overflow
// here rather than the server in production. want is the reply's start;
// "" accepts any reply (the VM's nested calls, whose texts are Lua 5.1's
// C-stack discipline, tested where that is implemented).
func TestEveryRecursionBounded(t *testing.T) {
	const raise = "cjson.encode_max_depth(2^31-1) cjson.decode_max_depth(2^31-1) "
	for _, tc := range []struct{ site, script, want string }{
		// cjson: the Lua stack of the C function (8000 slots).
		{"cjson encode, arrays", raise + "local t = {} t[1] = t return cjson.encode(t)", "-ERR user_script:1: Cannot serialise, excessive nesting (7998) "},
		{"cjson encode, objects", raise + "local t = {} t.a = t return cjson.encode(t)", "-ERR user_script:1: Cannot serialise, excessive nesting (4000) "},
		{"cjson decode, arrays", raise + "return cjson.decode(string.rep('[', 5000000))", "-ERR user_script:1: Found too many nested data structures (7999) at character 7999 "},
		{"cjson decode, objects", raise + "return cjson.decode(string.rep('{\"a\":', 1000000))", "-ERR user_script:1: Found too many nested data structures (4000) at character 19996 "},
		// cmsgpack: LUACMSGPACK_MAX_NESTING when packing, the Lua stack
		// when unpacking.
		{"cmsgpack pack", "local t = {} t[1] = t return #cmsgpack.pack(t)", ":17\r\n"},
		{"cmsgpack unpack, arrays", "return cmsgpack.unpack(string.rep(string.char(0x91), 1000000) .. string.char(1))", "-ERR user_script:1: stack overflow (in function mp_decode_to_lua_array) "},
		{"cmsgpack unpack, maps", "return cmsgpack.unpack(string.rep(string.char(0x81, 1), 1000000) .. string.char(1))", "-ERR user_script:1: stack overflow ("},
		// The reply: luaReplyToRedisReply's lua_checkstack.
		{"reply, arrays", "local t = {} t[1] = t return t", "*1\r\n*1\r\n"},
		{"reply, maps (RESP3)", "redis.setresp(3) local t = {} t.map = {x = t} return t", "%1\r\n$1\r\nx\r\n%1\r\n"},
		{"reply, sets (RESP3)", "redis.setresp(3) local t = {} t.set = {} t.set[t] = true return t", "~1\r\n~1\r\n"},
		// The compiler: 200 syntax levels (LUAI_MAXCCALLS), loops for
		// chains, at every depth of loadstring.
		{"compiler, parentheses", "return " + strings.Repeat("(", 100000) + "1" + strings.Repeat(")", 100000), "-ERR Error compiling script (new function): user_script:1: chunk has too many syntax levels\r\n"},
		{"compiler, functions", "return assert(loadstring(string.rep('return function() ', 100000)))", "-ERR user_script:1: [string \"return function() return function() return function() return fu...\"]:1: chunk has too many syntax levels "},
		{"compiler, blocks", "return assert(loadstring(string.rep('do ', 100000)))", "-ERR user_script:1: [string \"do do do do do do do do do do do do do do do do do do do do do ...\"]:1: chunk has too many syntax levels "},
		{"compiler, constructors", "return assert(loadstring('return ' .. string.rep('{', 100000)))", "-ERR user_script:1: [string \"return {{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{...\"]:1: chunk has too many syntax levels "},
		{"compiler, unary operators", "return assert(loadstring('return ' .. string.rep('not -', 100000) .. '1'))", "-ERR user_script:1: [string \"return not -not -not -not -not -not -not -not -not -not -not -n...\"]:1: chunk has too many syntax levels "},
		{"compiler, right-associative operators", "return assert(loadstring('return 1' .. string.rep(' .. 1', 100000)))", "-ERR user_script:1: [string \"return 1 .. 1 .. 1 .. 1 .. 1 .. 1 .. 1 .. 1 .. 1 .. 1 .. 1 .. 1...\"]:1: chunk has too many syntax levels "},
		{"compiler, suffix chains", "local f = assert(loadstring('return x' .. string.rep('.a', 1000000))) return 1", ":1\r\n"},
		{"compiler, call chains", "local f = assert(loadstring('return f' .. string.rep('()', 1000000))) return 1", ":1\r\n"},
		{"compiler, left-associative operators", "return assert(loadstring('return 1' .. string.rep(' + 1', 1000000)))()", ":1000001\r\n"},
		{"compiler, nested loadstring", "local s = 'return 1' for i = 1, 300 do s = 'return assert(loadstring([==[' .. s .. ']==]))()' end return loadstring(s)()", "-ERR "},
		// The pattern matcher backtracks on a heap stack of its own.
		{"patterns", "return string.find(string.rep('a', 300000), string.rep('a?', 300000) .. 'b')", "-ERR user_script:1: pattern too complex "},
		{"patterns, captures", "return string.find(string.rep('a', 100), string.rep('(', 40))", "-ERR user_script:1: too many captures "},
		// table.sort recurses into the smaller part only.
		{"table.sort", "local t = {} for i = 1, 1000000 do t[i] = (i * 7919) % 1000003 end table.sort(t) return t[1]", ":1\r\n"},
		// The VM: Go functions calling Lua calling Go functions.
		{"metamethod __index", "local t = setmetatable({}, {}) getmetatable(t).__index = function(t, k) return t[k] end return t.x", "-ERR "},
		{"metamethod __newindex", "local t = setmetatable({}, {}) getmetatable(t).__newindex = function(t, k, v) t[k] = v end t.x = 1", "-ERR "},
		{"metamethod __add", "local t = setmetatable({}, {}) getmetatable(t).__add = function(a, b) return a + b end return t + 1", "-ERR "},
		{"metamethod __lt", "local t = setmetatable({}, {}) getmetatable(t).__lt = function(a, b) return a < b end return t < t", "-ERR "},
		{"metamethod __concat", "local t = setmetatable({}, {}) getmetatable(t).__concat = function(a, b) return a .. b end return t .. 'x'", "-ERR "},
		{"metamethod __eq", "local mt = {} mt.__eq = function(a, b) return a == b end return setmetatable({}, mt) == setmetatable({}, mt)", "-ERR "},
		{"metamethod __unm", "local t = setmetatable({}, {}) getmetatable(t).__unm = function(a) return -a end return -t", "-ERR "},
		{"tostring through __tostring", "local t t = setmetatable({}, {__tostring = function() return tostring(t) end}) return tostring(t)", "-ERR "},
		// Lua 5.1's %s takes strings only: no __tostring, no recursion.
		{"string.format of a table", "local t t = setmetatable({}, {__tostring = function() return string.format('%s', t) end}) return string.format('%s', t)", "-ERR user_script:1: bad argument #2 to 'format' (string expected, got table) "},
		{"pcall", "local function f() return pcall(f) end return tostring(f())", ""},
		{"xpcall handlers", "local function f() return select(2, xpcall(f, f)) end return f()", ""},
		{"string.gsub callbacks", "local function f() return (string.gsub('a', 'a', f)) end return f()", "-ERR "},
		{"table.sort comparators", "local function f() table.sort({1, 2, 3}, function(a, b) f() return a < b end) end return f()", "-ERR "},
		{"coroutines in coroutines", "local function f() return coroutine.wrap(f)() end return f()", "-ERR "},
		// The deepest library recursion at the deepest nesting of calls.
		{"cjson at the deepest nested call", "cjson.decode_max_depth(1e6) local s = string.rep('[', 100000) local done = false " +
			"local function f() local ok, e = pcall(function() return setmetatable({}, {__index = function() return f() end}).x end) " +
			"if not ok and not done then done = true return cjson.decode(s) end error(e, 0) end return f()",
			"-ERR user_script:1: Found too many nested data structures (7999) at character 7999 "},
		{"cmsgpack at the deepest nested call", "local done = false " +
			"local function f() local ok, e = pcall(function() return setmetatable({}, {__index = function() return f() end}).x end) " +
			"if not ok and not done then done = true return cmsgpack.unpack(string.rep(string.char(0x91), 100000) .. string.char(1)) end error(e, 0) end return f()",
			"-ERR user_script:1: stack overflow (in function mp_decode_to_lua_array) "},
		{"Lua recursion", "local function f() return f() + 1 end return f()", "-ERR user_script:1: stack overflow "},
	} {
		t.Run(tc.site, func(t *testing.T) {
			e := newTestEngine(t, Config{})
			proto := 2
			if strings.Contains(tc.site, "RESP3") {
				proto = 3
			}
			got := evalReply(e, newFakeHost(), proto, tc.script, "0")
			if !strings.HasPrefix(got, tc.want) {
				t.Errorf("EVAL %.100q\n got %q\nwant %q...", tc.script, trunc(got), tc.want)
			}
		})
	}
}

// deepHost answers ECHO with a reply nested n arrays deep.
type deepHost struct {
	*fakeHost
	n int
}

func (h deepHost) Call(args [][]byte, readOnly bool, w *resp.Writer) bool {
	if !strings.EqualFold(string(args[0]), "echo") {
		return h.fakeHost.Call(args, readOnly, w)
	}
	for range h.n {
		w.Array(1)
	}
	w.Int(1)
	return false
}

// A reply converted for redis.call nests as deep as the host wrote it, which
// no command writes deeper than a few levels; past maxReplyDepth the
// conversion stops rather than recurse on.
func TestDeepReplyFromHost(t *testing.T) {
	e := newTestEngine(t, Config{})
	const script = "local r = redis.call('echo', 'x') local d = 0 while type(r) == 'table' do d, r = d + 1, r[1] end return d"
	if got := evalReply(e, deepHost{newFakeHost(), maxReplyDepth}, 2, script, "0"); got != ":"+itoa(maxReplyDepth)+"\r\n" {
		t.Errorf("%d levels: %q", maxReplyDepth, got)
	}
	if got := evalReply(e, deepHost{newFakeHost(), 10_000_000}, 2, script, "0"); !strings.Contains(got, "Reply from the command could not be parsed") {
		t.Errorf("10,000,000 levels: %q", trunc(got))
	}
}
