package libraries_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
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
// and ARGV[3]; extendLocks-1.lua: ARGV[2] and ARGV[3]) and write the
// queue's event stream with XADD. Queue.add, addStandardJob and
// extendLocks do on minilock what they do on redis-server.
func TestBullMQLibrary(t *testing.T) {
	modules := bullmqModules(t)
	want := runBullMQ(t, modules, redistest.Start(t).Addr)
	got := runBullMQ(t, modules, server.RunT(t, server.Doctor()).Addr())

	if want.QueueAdd.OK != "1" || want.AddStandardJob.OK != "1" {
		t.Fatalf("redis-server: Queue.add %+v, addStandardJob %+v", want.QueueAdd, want.AddStandardJob)
	}
	if !reflect.DeepEqual(got.QueueAdd, want.QueueAdd) || !reflect.DeepEqual(got.AddStandardJob, want.AddStandardJob) {
		t.Errorf("minilock: Queue.add %+v, addStandardJob %+v; redis-server %+v, %+v", got.QueueAdd, got.AddStandardJob, want.QueueAdd, want.AddStandardJob)
	}
	// The job was written as on Redis.
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

// bullmqModules is where the npm packages are, with bullmq among them.
func bullmqModules(t *testing.T) string {
	t.Helper()
	modules := nodeModules(t)
	if _, err := os.Stat(filepath.Join(modules, "bullmq")); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("bullmq missing in %s (scripts/test.sh installs it): %v", modules, err)
		}
		t.Skipf("bullmq missing in %s; run scripts/test.sh once", modules)
	}
	return modules
}

// BullMQ as an application runs it (testdata/bullmq_queue.js): a Worker
// with concurrency 3 over a burst of jobs, a job retried after a failure,
// one that fails for good, a delayed job, and QueueEvents reading the
// event stream with XREAD BLOCK. minilock must end where redis-server
// ends, and both where BullMQ's documentation says.
func TestBullMQQueue(t *testing.T) {
	modules := bullmqModules(t)
	var want, got map[string]any
	runClientScript(t, redistest.Start(t).Addr, []string{"NODE_PATH=" + modules}, &want, "node", filepath.Join("testdata", "bullmq_queue.js"))
	runClientScript(t, server.RunT(t).Addr(), []string{"NODE_PATH=" + modules}, &got, "node", filepath.Join("testdata", "bullmq_queue.js"))
	if !reflect.DeepEqual(got, want) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		t.Fatalf("minilock:\n%s\nredis-server:\n%s", g, w)
	}
	counts, _ := json.Marshal(got["counts"])
	if string(counts) != `{"active":0,"completed":12,"delayed":0,"failed":1,"wait":0}` || got["concurrencyUsed"] != true || got["eventsInStream"] != true {
		t.Errorf("unexpected run: counts %s, concurrency %v, events %v", counts, got["concurrencyUsed"], got["eventsInStream"])
	}
	if ev, _ := got["completedEvents"].([]any); len(ev) != 12 {
		t.Errorf("QueueEvents saw %d completions, want 12: %v", len(ev), ev)
	}
}
