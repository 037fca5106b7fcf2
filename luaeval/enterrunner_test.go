package luaeval

import (
	"fmt"
	"testing"

	"github.com/minilock/minilock/luaeval/internal/seam"
	"github.com/minilock/minilock/resp"
)

// enteredRunnerCases are the runs whose outcome depends on what surrounds
// the script: the call stack below it (overflows, the limit widened after
// the first), the C-call count (nested pcall, callbacks), error levels and
// positions, error objects, coroutines, Go functions raising.
var enteredRunnerCases = []string{
	"return 1",
	"return KEYS[1] .. ARGV[1]",
	"local function f(n) return 1 + f(n + 1) end return f(1)",
	"local function f(n) return 1 + f(n + 1) end return {pcall(f, 1)}",
	"local function f(n) return 1 + f(n + 1) end return f(1)",
	"local d = 0 local function f() d = d + 1 return 1 + f() end pcall(f) return d",
	"local n = 0 local function f() n = n + 1 return pcall(f) end f() return n",
	"local n = 0 local function f() n = n + 1 local ok, e = pcall(f) if not ok then return e end return 'x' end return f()",
	"error('boom')", "error('boom', 0)", "error('boom', 1)", "error('boom', 2)", "error('boom', 3)",
	"error({})", "error({err = 'my err'})", "error()", "error(nil)", "error(12)",
	"return redis.call('nosuch')", "return redis.pcall('nosuch')",
	"return string.gsub('aaa', 'a', function() error('in gsub') end)",
	"return string.gsub('aaa', 'a', function() error('in gsub', 2) end)",
	"local t = setmetatable({}, {__index = function(t, k) error('meta ' .. k) end}) return t.x",
	"return coroutine.wrap(function() error('co') end)()",
	"local co = coroutine.create(function() local function f() return 1 + f() end return f() end) return {coroutine.resume(co)}",
	"return tonumber()", "return string.sub()", "return {pcall(string.sub)}",
	"x = 1", "return undefined_global", "local t = nil return t.x", "return #nil",
	"return {1, 2, {3, 'x'}, {err = 'e'}, {ok = 'fine'}}",
	"return table.concat({}, ',', 1, 2)",
	"local s = '' for i = 1, 100 do s = s .. i end return s",
}

// TestEnteredRunnerMatchesPCall runs every case, and seeded generated
// runtime errors and replies, in one engine that calls its scripts above
// an entered runner frame (sandbox.call) and in one that calls the runner
// under PCall, as EVAL and as FCALL: every reply, error text and position
// must be the same.
func TestEnteredRunnerMatchesPCall(t *testing.T) {
	if !seam.Enabled() {
		t.Skip("the hooks are off: every run calls the runner under PCall")
	}
	scripts := append([]string(nil), enteredRunnerCases...)
	scripts = append(scripts, genErrScripts(seed(t)+9100, 300)...)
	scripts = append(scripts, genReplyScripts(seed(t)+9200, 200)...)
	scripts = append(scripts, enteredRunnerCases...) // again, after the overflows widened the limit

	outcomes := func(entered bool) []string {
		old := enterRunner
		enterRunner = entered
		defer func() { enterRunner = old }()
		e := newTestEngine(t, Config{})
		h := newFakeHost()
		var out []string
		for i, s := range scripts {
			out = append(out, evalReply(e, h, 2, s, "1", "k1", "a1"))
			lib := fmt.Sprintf("#!lua name=l%d\nredis.register_function('f%d', function(KEYS, ARGV)\n%s\nend)", i, i, s)
			w := &resp.Writer{}
			if _, err := e.FunctionLoad([]byte(lib), false); err != nil {
				w.Err(err)
			} else if err := e.FCall(w, [][]byte{[]byte("FCALL"), fmt.Appendf(nil, "f%d", i), []byte("1"), []byte("k1"), []byte("a1")}, false, h); err != nil {
				w.Err(err)
			}
			out = append(out, string(w.B))
		}
		return out
	}
	got, want := outcomes(true), outcomes(false)
	for i := range want {
		if maskAddresses(got[i]) != maskAddresses(want[i]) {
			s := scripts[i/2]
			t.Errorf("script %q (fcall %v):\nentered %q\npcall   %q", s, i%2 == 1, got[i], want[i])
		}
	}
}
