package server

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"
)

// The whole suite runs on the epoll edge with MINILOCK_EDGE=epoll
// (scripts/test.sh); these tests ask for it explicitly and check what only
// that edge promises.

// TestEventLoopNoGoroutinePerConnection: connections cost no goroutine, and
// every one of them is served.
func TestEventLoopNoGoroutinePerConnection(t *testing.T) {
	s := RunT(t, Config{EventLoop: true})
	if s.loop == nil {
		t.Fatal("Config.EventLoop on Linux: no event loop")
	}
	before := runtime.NumGoroutine()
	const n = 200
	conns := make([]net.Conn, n)
	for i := range conns {
		c, err := net.Dial("tcp", s.Addr())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		conns[i] = c
	}
	for i, c := range conns {
		c.SetDeadline(time.Now().Add(5 * time.Second))
		fmt.Fprintf(c, "SET k%d v%d\r\nGET k%d\r\n", i, i, i)
	}
	for i, c := range conns {
		want := fmt.Sprintf("+OK\r\n$%d\r\nv%d\r\n", len(fmt.Sprint("v", i)), i)
		got := make([]byte, len(want))
		if _, err := io.ReadFull(c, got); err != nil || string(got) != want {
			t.Fatalf("connection %d: %q, %v; want %q", i, got, err, want)
		}
	}
	// The test's own goroutines (the clients' netpoller waits) do not
	// count: they are the dialer's; allow a handful for the runtime.
	if after := runtime.NumGoroutine(); after > before+10 {
		t.Fatalf("%d goroutines with %d connections, %d before", after, n, before)
	}
}

// TestEventLoopPartialWrites: a reply far bigger than the socket buffers,
// read slowly, arrives whole and in order with the replies around it, and
// the loop serves another client meanwhile.
func TestEventLoopPartialWrites(t *testing.T) {
	s := RunT(t, Config{EventLoop: true})
	big := strings.Repeat("x", 8<<20)
	s.Set("big", big)
	slow, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	slow.SetDeadline(time.Now().Add(20 * time.Second))
	fmt.Fprintf(slow, "PING\r\nGET big\r\nGET big\r\nPING\r\n")
	_, other := dial(t, s)
	time.Sleep(50 * time.Millisecond) // the slow client's backlog is stuck now
	if got := other("PING"); got != "+PONG" {
		t.Fatalf("another client while one is stalled: %q", got)
	}
	rd := bufio.NewReaderSize(slow, 4096)
	want := "+PONG\r\n" + fmt.Sprintf("$%d\r\n%s\r\n", len(big), big) + fmt.Sprintf("$%d\r\n%s\r\n", len(big), big) + "+PONG\r\n"
	got := make([]byte, len(want))
	for off := 0; off < len(got); {
		n, err := rd.Read(got[off:min(off+64<<10, len(got))])
		if err != nil {
			t.Fatalf("after %d bytes: %v", off, err)
		}
		off += n
		if off%(1<<20) < n {
			time.Sleep(time.Millisecond) // a slow reader
		}
	}
	if string(got) != want {
		t.Fatal("the replies came back altered or out of order")
	}
}
