package luaeval

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// rssBytes is the process's resident set size (Linux).
func rssBytes(t *testing.T) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip("no /proc/self/status: RSS is measured on Linux only")
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmRSS in /proc/self/status")
	return 0
}

// A script that grows until the watchdog stops it, run 100 times, leaves
// the process's memory where a few runs left it: what each stopped run held
// is given back before the next one runs.
func TestRepeatedBudgetHitsKeepRSSBounded(t *testing.T) {
	const limit = 24 << 20
	e := newTestEngine(t, Config{MemoryLimit: limit})
	script := "local t = {} for i = 1, 1e9 do t[i] = string.rep('x', 1000) .. i end"
	run := func() {
		got := evalReply(e, newFakeHost(), 2, script, "0")
		if !strings.HasPrefix(got, "-ERR not enough memory") {
			t.Fatalf("got %q", trunc(got))
		}
	}
	for i := 0; i < 5; i++ {
		run()
	}
	base := rssBytes(t)
	peak := base
	for i := 0; i < 100; i++ {
		run()
		peak = max(peak, rssBytes(t))
	}
	t.Logf("RSS after 5 runs %d MiB, highest in the next 100 %d MiB", base>>20, peak>>20)
	// Without the release this reaches gigabytes; the race detector's
	// shadow memory needs some slack above the limit.
	if peak > base+max(3*limit, 128<<20) {
		t.Fatalf("RSS grew from %d MiB to %d MiB over 100 runs of a script stopped at %d MiB", base>>20, peak>>20, limit>>20)
	}
}
