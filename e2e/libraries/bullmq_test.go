package libraries_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/minilock/minilock/internal/redistest"
	"github.com/minilock/minilock/server"
)

// bullmqRun is what testdata/bullmq.js prints.
type bullmqRun struct {
	QueueAdd, AddStandardJob, ExtendLocks struct {
		OK  any    `json:"ok"`
		Err string `json:"err"`
	}
	AfterAdd struct {
		ID  string            `json:"id"`
		Job map[string]string `json:"job"`
	}
	AfterExtend any
	RoundTrip   []struct{ In, Out, JSON string }
}

func runBullMQ(t *testing.T, modules, addr string) bullmqRun {
	t.Helper()
	var r bullmqRun
	runClientScript(t, addr, []string{"NODE_PATH=" + modules}, &r, "node", filepath.Join("testdata", "bullmq.js"))
	return r
}

// sameJSON compares two JSON texts as values (cjson and the servers'
// table order put object keys in different orders).
func sameJSON(a, b string) bool {
	var x, y any
	return json.Unmarshal([]byte(a), &x) == nil && json.Unmarshal([]byte(b), &y) == nil && reflect.DeepEqual(x, y)
}

// BullMQ (npm 6.7.0), unmodified: its Lua scripts unpack their arguments
// with cmsgpack (commands/addStandardJob-9.lua: cmsgpack.unpack(ARGV[1])
// and ARGV[3]; extendLocks-1.lua: ARGV[2] and ARGV[3]). On minilock they
// get past cmsgpack: extendLocks does on minilock what it does on
// redis-server, and Queue.add's addStandardJob writes the job as Redis
// does up to its first XADD (the queue's event stream), which minilock
// lacks and answers as Redis answers an unknown command in a script.
func TestBullMQLibrary(t *testing.T) {
	modules := nodeModules(t)
	if _, err := os.Stat(filepath.Join(modules, "bullmq")); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("bullmq missing in %s (scripts/test.sh installs it): %v", modules, err)
		}
		t.Skipf("bullmq missing in %s; run scripts/test.sh once", modules)
	}
	want := runBullMQ(t, modules, redistest.Start(t).Addr)
	got := runBullMQ(t, modules, server.RunT(t, server.Doctor()).Addr())

	if want.QueueAdd.OK != "1" || want.AddStandardJob.OK != "1" {
		t.Fatalf("redis-server: Queue.add %+v, addStandardJob %+v", want.QueueAdd, want.AddStandardJob)
	}
	for name, r := range map[string]string{"Queue.add": got.QueueAdd.Err, "addStandardJob": got.AddStandardJob.Err} {
		m := regexp.MustCompile(`^ERR Unknown Redis command called from script script: [0-9a-f]{40}, on @user_script:(\d+)\.$`).FindStringSubmatch(r)
		if m == nil || strings.Contains(r, "cmsgpack") {
			t.Errorf("%s on minilock: %q, want the unknown-command error of its XADD", name, r)
			continue
		}
		line, _ := strconv.Atoi(m[1])
		if l := bullmqScriptLine(t, modules, "addStandardJob", line); !strings.Contains(l, `"XADD"`) {
			t.Errorf("%s on minilock failed at line %d, %q, not at an XADD", name, line, l)
		}
	}
	// Everything before the XADD was done as on Redis.
	if got.AfterAdd.ID != want.AfterAdd.ID || len(got.AfterAdd.Job) != len(want.AfterAdd.Job) {
		t.Errorf("after addStandardJob: minilock %+v, redis-server %+v", got.AfterAdd, want.AfterAdd)
	}
	for k, v := range want.AfterAdd.Job {
		if g := got.AfterAdd.Job[k]; g != v && !sameJSON(g, v) {
			t.Errorf("job field %s: minilock %q, redis-server %q", k, g, v)
		}
	}
	if !reflect.DeepEqual(got.ExtendLocks, want.ExtendLocks) || !reflect.DeepEqual(got.AfterExtend, want.AfterExtend) {
		t.Errorf("extendLocks: minilock %+v %+v, redis-server %+v %+v", got.ExtendLocks, got.AfterExtend, want.ExtendLocks, want.AfterExtend)
	}
	if len(got.RoundTrip) != len(want.RoundTrip) || len(want.RoundTrip) == 0 {
		t.Fatalf("round trips: %d on minilock, %d on redis-server", len(got.RoundTrip), len(want.RoundTrip))
	}
	for i, w := range want.RoundTrip {
		g := got.RoundTrip[i]
		// Maps come back in table order (gopher-lua's until the tables
		// work lands): same length and the same value.
		if g.In != w.In || len(g.Out) != len(w.Out) || !sameJSON(g.JSON, w.JSON) {
			t.Errorf("msgpackr %s through cmsgpack:\nminilock     %s %s\nredis-server %s %s", w.In, g.Out, g.JSON, w.Out, w.JSON)
		}
	}
}

// bullmqScriptLine is line n of a BullMQ script as it is sent (its
// includes expanded: dist/cjs/scripts/<name>-<keys>.js).
func bullmqScriptLine(t *testing.T, modules, name string, n int) string {
	t.Helper()
	cmd := exec.Command("node", "-e", "process.stdout.write(require('bullmq/dist/cjs/scripts')."+name+".content)")
	cmd.Env = append(os.Environ(), "NODE_PATH="+modules)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	lines := strings.Split(string(out), "\n")
	if n < 1 || n > len(lines) {
		return ""
	}
	return lines[n-1]
}
