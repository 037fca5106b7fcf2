package server

import (
	"io"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/minilock/minilock/internal/redistest"
)

// TestSlowMonitorIsDropped: a MONITOR client that stops reading is
// disconnected once monitorLimit of feed is waiting for it, and the client
// whose commands feed it never waits on it: every command is answered, and
// the heap holds at most about one limit's worth of feed.
func TestSlowMonitorIsDropped(t *testing.T) {
	s := RunT(t)
	mon, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer mon.Close()
	// Default socket buffers: a few MiB of feed fill them. (A tiny receive
	// buffer, below loopback's 32 KiB MSS, would make the kernel crawl on
	// zero-window probes while delivering what was queued before the close.)
	if _, err := mon.Write([]byte("MONITOR\r\n")); err != nil {
		t.Fatal(err)
	}
	ok := make([]byte, len("+OK\r\n"))
	mon.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadFull(mon, ok); err != nil || string(ok) != "+OK\r\n" {
		t.Fatalf("MONITOR: %q, %v", ok, err)
	}
	// The monitor reads nothing more from here on.

	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	writer := redistest.Dial(t, s.Addr())
	value := strings.Repeat("v", 1<<20)
	const sets = 3 * monitorLimit >> 20 // three limits' worth of feed
	for i := range sets {
		if got, err := writer.Do("SET", "big", value); err != nil || string(got) != "+OK\r\n" {
			t.Fatalf("SET %d of %d while the monitor does not read: %q, %v", i+1, sets, got, err)
		}
	}
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 2*monitorLimit {
		t.Errorf("heap grew by %d MiB with a stalled monitor, want at most %d MiB", grew>>20, 2*monitorLimit>>20)
	}

	// Whatever the kernel buffered still arrives; then the connection ends.
	mon.SetReadDeadline(time.Now().Add(10 * time.Second))
	n, err := io.Copy(io.Discard, mon)
	if err != nil {
		t.Fatalf("the stalled monitor was not disconnected (read %d bytes, then %v)", n, err)
	}
	if n >= int64(sets)<<20 {
		t.Fatalf("the monitor received the whole feed (%d bytes): it was never dropped", n)
	}
	t.Logf("the monitor got %d MiB of feed before it was dropped", n>>20)
	if got, err := writer.Do("PING"); err != nil || string(got) != "+PONG\r\n" {
		t.Fatalf("PING after: %q, %v", got, err)
	}
}
