package libraries_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/minilock/minilock/internal/redistest"
	"github.com/minilock/minilock/server"
)

// RQ (Debian's python3-rq 1.13), unmodified (testdata/rq/rq_jobs.py): burst
// workers run jobs that succeed, fail, fail once and are retried, depend
// on another, and one scheduled a second ahead that the worker's
// scheduler enqueues; each job's result is written with XADD
// rq:results:<id> MAXLEN ~ 10 inside a MULTI. minilock must end where
// redis-server ends.
func TestRQJobs(t *testing.T) {
	py := pythonWithRQ(t)
	script := filepath.Join("testdata", "rq", "rq_jobs.py")
	var want, got map[string]any
	runClientScript(t, redistest.Start(t).Addr, nil, &want, py, script)
	runClientScript(t, server.RunT(t).Addr(), nil, &got, py, script)
	if !reflect.DeepEqual(got, want) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		t.Fatalf("minilock:\n%s\nredis-server:\n%s", g, w)
	}
	if got["finished"] != float64(17) || got["failed"] != float64(1) || got["queued"] != float64(0) {
		t.Errorf("unexpected run: %v finished, %v failed, %v queued", got["finished"], got["failed"], got["queued"])
	}
}

// pythonWithRQ returns a Python 3 that can import rq (Debian's python3-rq
// installs it for /usr/bin/python3). Without one the test is skipped, but
// under CI=true it fails: scripts/test.sh installs python3-rq.
func pythonWithRQ(t *testing.T) string {
	t.Helper()
	for _, py := range []string{"/usr/bin/python3", "python3"} {
		if exec.Command(py, "-c", "import rq").Run() == nil {
			return py
		}
	}
	msg := "no python3 can import rq (Debian: apt-get install -y python3-rq; scripts/test.sh does)"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}
