package server

import (
	"testing"
	"time"

	"github.com/minilock/minilock/internal/redistest"
)

// parkedCount is how many clients are parked now.
func parkedCount(s *Server) int {
	n := 0
	s.owner.Do(func() { n = s.blocking.parked })
	return n
}

// XREAD and XREADGROUP BLOCK time out on the server's clock: a
// FastForward past the timeout answers them at once, and not before.
func TestXReadBlockTimesOutOnTheServersClock(t *testing.T) {
	s := RunT(t, Manual())
	c := redistest.Dial(t, s.Addr())
	c.MustDo("XGROUP", "CREATE", "s", "g", "$", "MKSTREAM")
	c.MustSend(redistest.Encode("XREADGROUP", "GROUP", "g", "alice", "BLOCK", "5000", "STREAMS", "s", ">"))
	waitFor(t, func() bool { return parkedCount(s) == 1 })
	s.FastForward(4999 * time.Millisecond)
	time.Sleep(20 * time.Millisecond)
	if parkedCount(s) != 1 {
		t.Fatal("answered before its timeout")
	}
	s.FastForward(2 * time.Millisecond)
	if got := c.MustReply(); got != "*-1\r\n" {
		t.Fatalf("timed out XREADGROUP: %q", got)
	}
	// No consumer was made by a read that got nothing (Redis 7.0).
	if got := c.MustDo("XINFO", "GROUPS", "s"); got != "*1\r\n*12\r\n$4\r\nname\r\n$1\r\ng\r\n$9\r\nconsumers\r\n:0\r\n$7\r\npending\r\n:0\r\n$17\r\nlast-delivered-id\r\n$3\r\n0-0\r\n$12\r\nentries-read\r\n$-1\r\n$3\r\nlag\r\n:0\r\n" {
		t.Fatalf("XINFO GROUPS: %q", got)
	}
}

// A parked XREADGROUP woken by XADD gets the entry, its consumer is made
// then, and the entry is pending for it; CLIENT UNBLOCK ERROR answers a
// parked XREAD with UNBLOCKED.
func TestXReadGroupWokenAndUnblocked(t *testing.T) {
	s := RunT(t, Manual())
	reader := redistest.Dial(t, s.Addr())
	writer := redistest.Dial(t, s.Addr())
	writer.MustDo("XGROUP", "CREATE", "s", "g", "$", "MKSTREAM")
	reader.MustSend(redistest.Encode("XREADGROUP", "GROUP", "g", "alice", "BLOCK", "0", "STREAMS", "s", ">"))
	waitFor(t, func() bool { return parkedCount(s) == 1 })
	writer.MustDo("XADD", "s", "1-1", "job", "paint")
	if got := reader.MustReply(); got != "*1\r\n*2\r\n$1\r\ns\r\n*1\r\n*2\r\n$3\r\n1-1\r\n*2\r\n$3\r\njob\r\n$5\r\npaint\r\n" {
		t.Fatalf("woken XREADGROUP: %q", got)
	}
	if got := writer.MustDo("XPENDING", "s", "g"); got != "*4\r\n:1\r\n$3\r\n1-1\r\n$3\r\n1-1\r\n*1\r\n*2\r\n$5\r\nalice\r\n$1\r\n1\r\n" {
		t.Fatalf("XPENDING: %q", got)
	}
	id := reader.MustDo("CLIENT", "ID")
	reader.MustSend(redistest.Encode("XREAD", "BLOCK", "0", "STREAMS", "s", "$"))
	waitFor(t, func() bool { return parkedCount(s) == 1 })
	if got := writer.MustDo("CLIENT", "UNBLOCK", id[1:len(id)-2], "ERROR"); got != ":1\r\n" {
		t.Fatalf("CLIENT UNBLOCK: %q", got)
	}
	if got := reader.MustReply(); got != "-UNBLOCKED client unblocked via CLIENT UNBLOCK\r\n" {
		t.Fatalf("unblocked XREAD: %q", got)
	}
	if parkedCount(s) != 0 {
		t.Fatal("a client is still parked")
	}
}
