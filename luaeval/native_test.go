package luaeval

import (
	"fmt"
	"strings"
	"testing"
)

// TestNativeMatchesLua runs every natively executed body and the same body
// made unrecognisable (a trailing comment: same Lua, other SHA1), which
// runs in Lua, through the same scenarios: the replies (SHA1 aside), the
// commands the host saw and the data it is left with must be the same.
func TestNativeMatchesLua(t *testing.T) {
	type scenario struct {
		name  string
		data  map[string]string
		proto int
		ro    bool
		args  []string // numkeys keys... args...
	}
	scenarios := []scenario{
		{"held by caller", map[string]string{"lock": "tok"}, 2, false, []string{"1", "lock", "tok"}},
		{"held by another", map[string]string{"lock": "other"}, 2, false, []string{"1", "lock", "tok"}},
		{"free", nil, 2, false, []string{"1", "lock", "tok"}},
		{"resp3 caller", map[string]string{"lock": "tok"}, 3, false, []string{"1", "lock", "tok"}},
		{"resp3 caller free", nil, 3, false, []string{"1", "lock", "tok"}},
		{"read-only run", map[string]string{"lock": "tok"}, 2, true, []string{"1", "lock", "tok"}},
		{"read-only run, not held", map[string]string{"lock": "x"}, 2, true, []string{"1", "lock", "tok"}},
		{"wrong type", map[string]string{"lock": "\x00hash"}, 2, false, []string{"1", "lock", "tok"}},
		{"no ARGV", map[string]string{"lock": "tok"}, 2, false, []string{"1", "lock"}},
		{"no KEYS", map[string]string{"lock": "tok"}, 2, false, []string{"0", "tok"}},
		{"extra keys and args", map[string]string{"a": "1", "b": "2"}, 2, false, []string{"2", "a", "b", "1", "2"}},
		{"empty token", map[string]string{"lock": ""}, 2, false, []string{"1", "lock", ""}},
		{"binary", map[string]string{"l\x00ck": "t\r\nk"}, 2, false, []string{"1", "l\x00ck", "t\r\nk"}},
	}
	for body := range nativeBodies {
		lua := body + " -- in Lua"
		for _, sc := range scenarios {
			t.Run(fmt.Sprintf("%.40s/%s", body, sc.name), func(t *testing.T) {
				run := func(script string) (reply, calls, data string) {
					e := newTestEngine(t, Config{})
					h := newFakeHost()
					for k, v := range sc.data {
						h.m[k] = v
					}
					var seen []string
					h.onCall = func(args [][]byte) { seen = append(seen, fmt.Sprintf("%q", args)) }
					reply = runReply(e, h, sc.proto, false, sc.ro, script, sc.args...)
					reply = strings.ReplaceAll(reply, sha1Of(script), "<sha>")
					return reply, strings.Join(seen, " "), fmt.Sprint(h.m)
				}
				nr, nc, nd := run(body)
				lr, lc, ld := run(lua)
				if nr != lr || nc != lc || nd != ld {
					t.Errorf("native:\n  reply %q\n  calls %s\n  data %s\nLua:\n  reply %q\n  calls %s\n  data %s", nr, nc, nd, lr, lc, ld)
				}
			})
		}
	}
}

// TestNativeIsUsed makes sure the recognised bodies do skip Lua: a script
// that runs natively cannot see a global a Lua run would.
func TestNativeIsUsed(t *testing.T) {
	for body := range nativeBodies {
		s, err := newTestEngine(t, Config{}).compile([]byte(body), sha1Hex([]byte(body)))
		if err != nil || s.native == nil {
			t.Errorf("%q: native %v, %v", body, s != nil && s.native != nil, err)
		}
	}
	e := newTestEngine(t, Config{})
	general := []byte(`if redis.call("get",KEYS[1]) == ARGV[1] then return redis.call("del",KEYS[1]) else return 1 end`)
	if s, _ := e.compile(general, sha1Hex(general)); s.native != nil {
		t.Error("a different script was taken for the compare-and-delete")
	}
}

func sha1Of(script string) string {
	h := sha1Hex([]byte(script))
	return string(h[:])
}

// The compare-and-delete through the Lua VM, for comparison with
// BenchmarkEvalSHACompareAndDelete, which the native path now serves.
func BenchmarkEvalSHACompareAndDeleteInLua(b *testing.B) {
	benchEvalSHA(b, compareAndDelete+" -- in Lua", true)
}
