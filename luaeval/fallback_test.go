package luaeval

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/minilock/minilock/luaeval/internal/seam"
)

// With the gopher-lua hooks off (another gopher-lua version in the build,
// or MINILOCK_GOPHERLUA_HOOKS=off), scripts still run, the engine says why
// in its log, and a script still cannot take the process's memory: the
// watchdog stops it. The switch is read once per process, so the check runs
// in a child process of this test binary.
func TestHooksOffFallback(t *testing.T) {
	if os.Getenv("MINILOCK_GOPHERLUA_HOOKS") == "off" {
		fallbackChild(t)
		return
	}
	if !seam.Enabled() {
		t.Fatalf("hooks are off in the parent: %s", seam.Why())
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestHooksOffFallback$", "-test.v")
	cmd.Env = append(os.Environ(), "MINILOCK_GOPHERLUA_HOOKS=off")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "fallback checked") {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

func fallbackChild(t *testing.T) {
	if seam.Enabled() || seam.Why() != "MINILOCK_GOPHERLUA_HOOKS=off" {
		t.Fatalf("hooks on in the child (%q)", seam.Why())
	}
	var logged []string
	e := newTestEngine(t, Config{MemoryLimit: 64 << 20, Log: func(level int, msg string) { logged = append(logged, msg) }})
	if len(logged) == 0 || !strings.Contains(logged[0], "MINILOCK_GOPHERLUA_HOOKS=off") {
		t.Fatalf("the engine did not say why the hooks are off: %q", logged)
	}
	for _, tc := range []struct{ script, want string }{
		{"return 1 + 1", ":2\r\n"},
		{"return redis.call('set', KEYS[1], 'v')", "+OK\r\n"},
		// Limits without the hooks: the watchdog stops what grows.
		{"local s = 'x' for i = 1, 40 do s = s .. s end return #s", "-ERR not enough memory"},
		{"local t = {} for i = 1, 1e9 do t[i] = i end", "-ERR not enough memory"},
	} {
		if got := evalReply(e, newFakeHost(), 2, tc.script, "1", "k"); !strings.HasPrefix(got, tc.want) {
			t.Errorf("EVAL %q\n got %q\nwant %q...", tc.script, trunc(got), tc.want)
		}
	}
	t.Log("fallback checked")
}
