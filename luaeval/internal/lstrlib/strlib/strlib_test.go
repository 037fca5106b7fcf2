package strlib

import (
	"slices"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"github.com/minilock/minilock/luaeval/internal/lauxlib/lauxlibtest"
)

// The library alone on a bare state; the results are redis-server 7.0.15's.
// (luaeval's recorded cases and TestStringLibAgainstRedis cover it through
// the engine.)
func TestStringTable(t *testing.T) {
	L := lauxlibtest.State(t, "string", Open)
	for _, tc := range []struct {
		src  string
		want []lua.LValue
	}{
		{`return string.format('%5.2f|%q|%x', 3.14159, 'a\n\0', 255)`, []lua.LValue{lua.LString(" 3.14|\"a\\\n\\000\"|ff")}},
		{"return string.gsub('hello world', '(o)', '[%1]')", []lua.LValue{lua.LString("hell[o] w[o]rld"), lua.LNumber(2)}},
		{"return string.rep('ab', 3), string.sub('abcdef', -3, -2), string.upper('aZ1')", []lua.LValue{lua.LString("ababab"), lua.LString("de"), lua.LString("AZ1")}},
		{"return string.match('key:42', '(%a+):(%d+)')", []lua.LValue{lua.LString("key"), lua.LString("42")}},
		{"return string.find('a.b', '.', 1, true)", []lua.LValue{lua.LNumber(2), lua.LNumber(2)}},
		{"return string.len('abc'), string.byte('A'), string.char(72, 105)", []lua.LValue{lua.LNumber(3), lua.LNumber(65), lua.LString("Hi")}},
		{"local f = string.gmatch('one two', '%a+') return f(), f(), f()", []lua.LValue{lua.LString("one"), lua.LString("two")}},
		{"return string.gfind == string.gmatch", []lua.LValue{lua.LTrue}},
	} {
		if got := lauxlibtest.Run(t, L, tc.src); !slices.Equal(got, tc.want) {
			t.Errorf("%s = %q, want %q", tc.src, got, tc.want)
		}
	}
	for src, want := range map[string]string{
		"return string.rep()":          "user_script:1: bad argument #1 to 'rep' (string expected, got no value)",
		"return string.find('a', '%')": "user_script:1: malformed pattern (ends with '%')",
	} {
		if got := lauxlibtest.Error(t, L, src); got != want {
			t.Errorf("%s: error %q, want %q", src, got, want)
		}
	}
}
