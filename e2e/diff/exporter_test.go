package diff_test

// Prometheus's redis_exporter scrapes minilock and redis-server holding the
// same data; the metric names it exports must be the same, but for the
// ones minilock is known to lack (exporterMissing). scripts/test.sh builds
// the exporter from its Go module into $MINILOCK_REDIS_EXPORTER.

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// exporterMissing are the metrics minilock does not give the exporter:
// none since LATENCY HISTOGRAM (per-command latency buckets) exists.
var exporterMissing = []string{}

func TestRedisExporterMetricNames(t *testing.T) {
	bin := os.Getenv("MINILOCK_REDIS_EXPORTER")
	if bin == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("MINILOCK_REDIS_EXPORTER is not set and CI=true (scripts/test.sh builds it)")
		}
		t.Skip("MINILOCK_REDIS_EXPORTER is not set")
	}
	p := newPair(t, "")
	names := make([][]string, 2)
	for i := range p.ends {
		e := &p.ends[i]
		for _, c := range cliData {
			if _, err := e.admin.Do(c...); err != nil {
				t.Fatalf("%s: %q: %v", e.name, c, err)
			}
		}
		// An error of each server's own, for errorstats.
		e.admin.Do("INCR", "big")
		names[i] = scrapeNames(t, bin, e.addr)
	}
	var missing, extra []string
	for _, n := range names[0] {
		if !slices.Contains(names[1], n) && !slices.Contains(exporterMissing, n) {
			missing = append(missing, n)
		}
	}
	for _, n := range names[1] {
		if !slices.Contains(names[0], n) {
			extra = append(extra, n)
		}
	}
	t.Logf("redis_exporter: %d metric names for redis-server, %d for minilock", len(names[0]), len(names[1]))
	if len(missing) > 0 || len(extra) > 0 {
		t.Errorf("metric names differ: minilock lacks %q; only minilock has %q", missing, extra)
	}
	if !slices.Contains(names[1], "redis_up") || !slices.Contains(names[1], "redis_connected_clients") {
		t.Errorf("the scrape of minilock lacks redis_up or redis_connected_clients: %q", names[1])
	}
}

// scrapeNames runs the exporter against addr and returns the sorted names
// of the redis_* metrics of one scrape.
func scrapeNames(t *testing.T, bin, addr string) []string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	listen := l.Addr().String()
	l.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "-redis.addr", "redis://"+addr, "-web.listen-address", listen)
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	defer func() { cancel(); cmd.Wait() }() // the cancel kills it
	var resp *http.Response
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if resp, err = http.Get("http://" + listen + "/metrics"); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("redis_exporter never served on %s: %v", listen, err)
		}
	}
	defer resp.Body.Close()
	var names []string
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "redis_") {
			continue
		}
		name, _, _ := strings.Cut(line, " ")
		name, _, _ = strings.Cut(name, "{")
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}
