package libraries_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/minilock/minilock/server"
)

// nodeModules is where scripts/test.sh installs the npm packages these
// tests run (MINILOCK_NODE_MODULES). Without it the test is skipped, but
// under CI=true it fails: CI must run it.
func nodeModules(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("MINILOCK_NODE_MODULES")
	if dir == "" {
		if home, err := os.UserHomeDir(); err == nil {
			dir = filepath.Join(home, ".cache", "minilock-npm", "node_modules")
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "redis-semaphore")); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("npm packages missing in %s (scripts/test.sh installs them): %v", dir, err)
		}
		t.Skipf("npm packages missing in %s; run scripts/test.sh once", dir)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatalf("node: %v", err)
	}
	return dir
}

// redis-semaphore (npm), unmodified: its Mutex, Semaphore and
// MultiSemaphore, with more workers than permits, never let more than the
// limit in, and every worker gets its turn.
func TestRedisSemaphoreLibrary(t *testing.T) {
	modules := nodeModules(t)
	s := server.RunT(t, server.Doctor())
	var results []struct {
		Kind                                      string
		Limit, Workers, Rounds, Acquired, MaxHeld int
	}
	runClientScript(t, s.Addr(), []string{"NODE_PATH=" + modules}, &results, "node", filepath.Join("testdata", "semaphore.js"))
	if len(results) != 3 {
		t.Fatalf("results: %+v", results)
	}
	for _, r := range results {
		t.Logf("%+v", r)
		if r.Acquired != r.Workers*r.Rounds {
			t.Errorf("%s: %d acquisitions, want %d", r.Kind, r.Acquired, r.Workers*r.Rounds)
		}
		if r.MaxHeld > r.Limit {
			t.Errorf("%s: %d permits held at once, over the limit of %d", r.Kind, r.MaxHeld, r.Limit)
		}
		if r.MaxHeld < r.Limit-1 {
			t.Errorf("%s: at most %d permits held at once: the workers never contended for the limit of %d", r.Kind, r.MaxHeld, r.Limit)
		}
	}
}
