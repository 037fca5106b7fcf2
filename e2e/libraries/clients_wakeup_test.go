package libraries_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/minilock/minilock/internal/redistest"
	"github.com/minilock/minilock/server"
)

// Two more clients' wake-up paths, unmodified: ioredis (npm) and redis-py
// (Debian's python3-redis) run pub/sub and blocking pops against minilock
// and against a real redis-server; the JSON each script prints must be the
// same for both, and must show a signal list waking its waiters one per
// release, in order.
//
//	go test -run 'TestIORedisWakeups|TestRedisPyWakeups' -v ./e2e/libraries

// runClientScript runs a client library's script with MINILOCK_PORT set to
// addr's port (and env), for at most 3 minutes, and decodes the last line
// it printed, which must be JSON, into res.
func runClientScript(t *testing.T, addr string, env []string, res any, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(append(os.Environ(), "MINILOCK_PORT="+addr[strings.LastIndexByte(addr, ':')+1:]), env...)
	done := make(chan struct{})
	var out []byte
	var err error
	go func() {
		out, err = cmd.CombinedOutput()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(3 * time.Minute):
		cmd.Process.Kill()
		<-done
		t.Fatalf("%s did not finish in 3 minutes:\n%s", name, out)
	}
	if err != nil {
		t.Fatalf("%s against %s: %v\n%s", name, addr, err, out)
	}
	trimmed := strings.TrimSpace(string(out))
	last := trimmed[strings.LastIndexByte(trimmed, '\n')+1:]
	if err := json.Unmarshal([]byte(last), res); err != nil {
		t.Fatalf("%s printed %q: %v", name, out, err)
	}
}

// clientScriptMap is runClientScript for a script that prints an object.
func clientScriptMap(t *testing.T, addr string, env []string, name string, args ...string) map[string]any {
	t.Helper()
	var res map[string]any
	runClientScript(t, addr, env, &res, name, args...)
	return res
}

// compareClientRuns requires equal results from both servers and checks
// the signal list's wake-ups on minilock: waiters waiters, woken in order.
func compareClientRuns(t *testing.T, run func(addr string) map[string]any, waiters int) {
	t.Helper()
	s := server.RunT(t, server.Doctor())
	rs := redistest.Start(t)
	mini, real := run(s.Addr()), run(rs.Addr)
	mj, _ := json.Marshal(mini)
	rj, _ := json.Marshal(real)
	t.Logf("minilock: %s", mj)
	if string(mj) != string(rj) {
		t.Errorf("minilock and redis-server differ:\nminilock:     %s\nredis-server: %s", mj, rj)
	}
	var order []int
	for _, v := range mini["order"].([]any) {
		order = append(order, int(v.(float64)))
	}
	want := make([]int, waiters)
	for i := range want {
		want[i] = i
	}
	if !slices.Equal(order, want) {
		t.Errorf("the waiters were woken in the order %v, want %v", order, want)
	}
}

func TestIORedisWakeups(t *testing.T) {
	modules := nodeModules(t)
	compareClientRuns(t, func(addr string) map[string]any {
		return clientScriptMap(t, addr, []string{"NODE_PATH=" + modules}, "node", filepath.Join("testdata", "wakeups.js"))
	}, 10)
}

// pythonWithRedis returns a Python 3 that can import redis (Debian's
// python3-redis installs it for /usr/bin/python3, which may not be the
// python3 first on PATH). Without one the test is skipped, but under
// CI=true it fails: scripts/test.sh installs python3-redis.
func pythonWithRedis(t *testing.T) string {
	t.Helper()
	for _, py := range []string{"/usr/bin/python3", "python3"} {
		if exec.Command(py, "-c", "import redis").Run() == nil {
			return py
		}
	}
	msg := "no python3 can import redis (Debian: apt-get install -y python3-redis; scripts/test.sh does)"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

func TestRedisPyWakeups(t *testing.T) {
	py := pythonWithRedis(t)
	compareClientRuns(t, func(addr string) map[string]any {
		return clientScriptMap(t, addr, nil, py, filepath.Join("testdata", "wakeups.py"))
	}, 5)
}
