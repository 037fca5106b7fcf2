package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/minilock/minilock/internal/redistest"
)

// TestSigtermSavesAndRestartLoads: the binary has redis-server's save
// points, so SIGTERM writes dir/dump.rdb, and the next start on that dir
// has the lock back with its deadline; with --save "" nothing is written.
func TestSigtermSavesAndRestartLoads(t *testing.T) {
	dir := t.TempDir()
	p := startMinilock(t, "--dir", dir)
	c := redistest.Dial(t, p.addr)
	if got := c.MustDo("SET", "lock:order:1", "token-a", "NX", "PX", "600000"); got != "+OK\r\n" {
		t.Fatalf("SET = %q", got)
	}
	sent := time.Now()
	p.signal(syscall.SIGTERM)
	if code, _ := p.wait(sent, 10*time.Second); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	p2 := startMinilock(t, "--dir", dir)
	c2 := redistest.Dial(t, p2.addr)
	if got := c2.MustDo("GET", "lock:order:1"); got != "$7\r\ntoken-a\r\n" {
		t.Errorf("after the restart GET = %q: the lock is lost", got)
	}
	if got := c2.MustDo("SET", "lock:order:1", "token-b", "NX", "PX", "600000"); got != "$-1\r\n" {
		t.Errorf("a second holder got the lock: SET NX = %q", got)
	}

	none := t.TempDir()
	p3 := startMinilock(t, "--dir", none, "--save", "")
	redistest.Dial(t, p3.addr).MustDo("SET", "k", "v")
	sent = time.Now()
	p3.signal(syscall.SIGTERM)
	p3.wait(sent, 10*time.Second)
	if _, err := os.Stat(filepath.Join(none, "dump.rdb")); !os.IsNotExist(err) {
		t.Errorf("--save \"\" wrote dump.rdb (%v)", err)
	}
}
