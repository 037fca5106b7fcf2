package lcjson

import (
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"github.com/minilock/minilock/internal/stackcap"
	"github.com/minilock/minilock/luaeval/internal/lauxlib/lauxlibtest"
)

// The encoder and decoder recurse once per level of nesting: these tests
// run with the Go stack capped (package stackcap), so a depth that is not
// bounded whatever the options say fails here as a fatal stack overflow.
func TestMain(m *testing.M) { stackcap.Main(m) }

func TestStackIsCapped(t *testing.T) { stackcap.Check(t) }

// Raised depth options do not raise the bound: Redis stops where the C
// function's Lua stack (LUAI_MAXCSTACK, 8000 slots) is full, one slot per
// array level and two per object level. Every error is redis-server
// 7.0.15's.
func TestNestingBoundedByLuaStack(t *testing.T) {
	var lib *Lib
	L := lauxlibtest.State(t, "cjson", func(L *lua.LState, t *lua.LTable) { lib = Open(L, t, host{L}) })
	L.SetGlobal("arrays", lua.LString(strings.Repeat("[", 5_000_000)))
	L.SetGlobal("objects", lua.LString(strings.Repeat(`{"a":`, 100_000)))
	L.SetGlobal("mixed", lua.LString(strings.Repeat(`[{"a":`, 100_000)))
	L.SetGlobal("deep7998", lua.LString(strings.Repeat("[", 7998)+strings.Repeat("]", 7998)))
	const raise = "cjson.encode_max_depth(2^31-1) cjson.decode_max_depth(2^31-1) "
	// chain(n) builds n nested one-element arrays.
	const chain = "local function chain(n) local t = {} local c = t for i = 2, n do c[1] = {} c = c[1] end return t end "
	for _, tc := range []struct{ src, want string }{
		// The scripts: the process used to die here.
		{raise + "local t = {} t[1] = t return cjson.encode(t)", "user_script:1: Cannot serialise, excessive nesting (7998)"},
		{raise + "local t = {} t.a = t return cjson.encode(t)", "user_script:1: Cannot serialise, excessive nesting (4000)"},
		{raise + "local t = {} t[1] = {a = t} return cjson.encode(t)", "user_script:1: Cannot serialise, excessive nesting (5333)"},
		{raise + "return cjson.decode(arrays)", "user_script:1: Found too many nested data structures (7999) at character 7999"},
		{raise + "return cjson.decode(objects)", "user_script:1: Found too many nested data structures (4000) at character 19996"},
		{raise + "return cjson.decode(mixed)", "user_script:1: Found too many nested data structures (5333) at character 15997"},
		{raise + chain + "return cjson.encode(chain(7998))", "user_script:1: Cannot serialise, excessive nesting (7998)"},
		{"cjson.decode_max_depth(7998) return cjson.decode(deep7998 .. ']')", "user_script:1: Expected the end but found T_ARR_END at character 15997"},
		// The defaults stop first.
		{"local t = {} t[1] = t return cjson.encode(t)", "user_script:1: Cannot serialise, excessive nesting (1001)"},
		{"return cjson.decode(arrays)", "user_script:1: Found too many nested data structures (1001) at character 1001"},
	} {
		lib.Reset()
		if got := lauxlibtest.Error(t, L, tc.src); got != tc.want {
			t.Errorf("%.90s\n got %q\nwant %q", tc.src, got, tc.want)
		}
	}
	// Just inside the bound.
	lib.Reset()
	got := lauxlibtest.Run(t, L, raise+chain+"local n, v = 0, cjson.decode(deep7998) while v do n, v = n + 1, v[1] end return #cjson.encode(chain(7997)), n")
	if len(got) != 2 || got[0] != lua.LNumber(2*7997) || got[1] != lua.LNumber(7998) {
		t.Errorf("7997 levels encoded, 7998 decoded: %v", got)
	}
}

// The configuration functions as lua_cjson.c checks their arguments; the
// replies are redis-server 7.0.15's, each on a fresh configuration.
func TestOptions(t *testing.T) {
	var lib *Lib
	L := lauxlibtest.State(t, "cjson", func(L *lua.LState, t *lua.LTable) { lib = Open(L, t, host{L}) })
	for _, tc := range []struct{ src, want string }{
		{"return cjson.encode_invalid_numbers('on')", "true"},
		{"return cjson.encode_invalid_numbers('off')", "false"},
		{"return cjson.encode_invalid_numbers('null')", "null"},
		{"return cjson.encode_invalid_numbers('on\\0x')", "true"},
		{"return cjson.encode_invalid_numbers()", "false"},
		{"return cjson.encode_keep_buffer('on')", "true"},
		{"return cjson.decode_invalid_numbers(false), cjson.decode_invalid_numbers()", "false false"},
		{"return cjson.encode_max_depth(2^32 + 5)", "5"},
		{"return cjson.encode_max_depth('7')", "7"},
		{"return cjson.encode_max_depth(3.7)", "3"},
		{"return cjson.encode_sparse_array(nil, 3)", "false 3 10"},
		{"return cjson.encode_sparse_array('on')", "true 2 10"},
		{"return cjson.encode_sparse_array('off', nil, 7)", "false 2 7"},
		{"cjson.encode_invalid_numbers(true) return cjson.encode({0/0, 1/0, -1/0, -(0/0)})", "[nan,inf,-inf,nan]"},
		{"cjson.encode_invalid_numbers('null') return cjson.encode({0/0, 1/0, -1/0})", "[null,null,null]"},
		{"cjson.encode_number_precision(3) cjson.encode_invalid_numbers(true) return cjson.encode({1/0, -1/0, 0/0})", "[inf,-inf,nan]"},
		{"cjson.encode_invalid_numbers(true) return cjson.encode({[1/0] = 1})", `{"inf":1}`},
		{"cjson.encode_invalid_numbers('null') return cjson.encode({[1/0] = 1})", `{"null":1}`},
		// lua_array_length keeps the largest key in a C int.
		{"local t = {} t[1] = 1 t[2^31] = 2 return cjson.encode(t)", `{"1":1,"2147483648":2}`},
		{"return cjson.decode('[1] \\0 x')[1]", "1"},
	} {
		lib.Reset()
		var parts []string
		for _, v := range lauxlibtest.Run(t, L, tc.src) {
			parts = append(parts, v.String())
		}
		if got := strings.Join(parts, " "); got != tc.want {
			t.Errorf("%s = %q, want %q", tc.src, got, tc.want)
		}
	}
	for _, tc := range []struct{ src, want string }{
		{"return cjson.encode_invalid_numbers(1)", "user_script:1: bad argument #1 to 'encode_invalid_numbers' (invalid option '1')"},
		{"return cjson.encode_invalid_numbers({})", "user_script:1: bad argument #1 to 'encode_invalid_numbers' (string expected, got table)"},
		{"return cjson.encode_invalid_numbers(true, 2)", "user_script:1: bad argument #2 to 'encode_invalid_numbers' (found too many arguments)"},
		{"return cjson.decode_invalid_numbers('null')", "user_script:1: bad argument #1 to 'decode_invalid_numbers' (invalid option 'null')"},
		{"return cjson.encode_keep_buffer(1)", "user_script:1: bad argument #1 to 'encode_keep_buffer' (invalid option '1')"},
		{"return cjson.encode_max_depth(0)", "user_script:1: bad argument #1 to 'encode_max_depth' (expected integer between 1 and 2147483647)"},
		{"return cjson.encode_max_depth(2^31)", "user_script:1: bad argument #1 to 'encode_max_depth' (expected integer between 1 and 2147483647)"},
		{"return cjson.encode_max_depth(1, 2)", "user_script:1: bad argument #2 to 'encode_max_depth' (found too many arguments)"},
		{"return cjson.encode_number_precision(15)", "user_script:1: bad argument #1 to 'encode_number_precision' (expected integer between 1 and 14)"},
		// Always #1, whichever argument is out of range.
		{"return cjson.encode_sparse_array(true, 1, -1)", "user_script:1: bad argument #1 to 'encode_sparse_array' (expected integer between 0 and 2147483647)"},
		{"return cjson.encode_sparse_array(true, 'x')", "user_script:1: bad argument #2 to 'encode_sparse_array' (number expected, got string)"},
		{"return cjson.encode_sparse_array(true, 1, 2, 3)", "user_script:1: bad argument #4 to 'encode_sparse_array' (found too many arguments)"},
		// items * ratio wraps as C's int does: 2 * 2^30 is negative.
		{"cjson.encode_sparse_array(false, 1073741824, 0) return cjson.encode({1, 2})", "user_script:1: Cannot serialise table: excessively sparse array"},
		{"return cjson.encode({[1/0] = 1})", "user_script:1: Cannot serialise number: must not be NaN or Inf"},
		{"return cjson.decode('1\\0')", "user_script:1: JSON parser does not support UTF-16 or UTF-32"},
		{"return cjson.decode(' \\0')", "user_script:1: JSON parser does not support UTF-16 or UTF-32"},
		{"return cjson.decode('\\0')", "user_script:1: Expected value but found T_END at character 1"},
	} {
		lib.Reset()
		if got := lauxlibtest.Error(t, L, tc.src); got != tc.want {
			t.Errorf("%s: error %q, want %q", tc.src, got, tc.want)
		}
	}
	// A refused option leaves the ones before it set, as in C.
	lib.Reset()
	lauxlibtest.Error(t, L, "cjson.encode_sparse_array(true, -1)")
	var got []string
	for _, v := range lauxlibtest.Run(t, L, "return cjson.encode_sparse_array()") {
		got = append(got, v.String())
	}
	if strings.Join(got, " ") != "true 2 10" {
		t.Errorf("after encode_sparse_array(true, -1): %v, want true 2 10", got)
	}
}
