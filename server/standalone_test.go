package server

import (
	"bufio"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/minilock/minilock/expiry"
)

// WAIT with replicas asked for blocks as Redis's does, with no replica to
// acknowledge: until its timeout on the server's clock, forever for 0, or
// until CLIENT UNBLOCK, and then answers 0 (or the UNBLOCKED error).
func TestWaitBlocksUntilTimeoutOrUnblock(t *testing.T) {
	clock := expiry.NewManual(time.Unix(1_700_000_000, 0))
	s := RunT(t, Config{Clock: clock})
	waiter, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer waiter.Close()
	rd := bufio.NewReader(waiter)
	wait := func(cmd string) string {
		t.Helper()
		waiter.Write([]byte(cmd + "\r\n"))
		return readLine(t, rd)
	}
	_, admin := dial(t, s)
	id := wait("CLIENT ID")[1:]
	if got := wait("WAIT 0 0"); got != ":0" {
		t.Fatalf("WAIT 0 0: %q", got)
	}

	waiter.Write([]byte("WAIT 1 5000\r\n"))
	waitParked(t, s, 1)
	s.FastForward(6 * time.Second)
	if got := readLine(t, rd); got != ":0" {
		t.Fatalf("WAIT 1 5000 after its timeout: %q", got)
	}

	waiter.Write([]byte("WAIT 2 0\r\n"))
	waitParked(t, s, 1)
	s.FastForward(time.Hour)
	if got := admin("CLIENT UNBLOCK " + id); got != ":1" {
		t.Fatalf("CLIENT UNBLOCK: %q", got)
	}
	if got := readLine(t, rd); got != ":0" {
		t.Fatalf("WAIT 2 0 unblocked: %q", got)
	}

	waiter.Write([]byte("WAIT 1 0\r\n"))
	waitParked(t, s, 1)
	admin("CLIENT UNBLOCK " + id + " ERROR")
	if got := readLine(t, rd); got != "-UNBLOCKED client unblocked via CLIENT UNBLOCK" {
		t.Fatalf("WAIT 1 0 unblocked with an error: %q", got)
	}
	if got := wait("PING"); got != "+PONG" {
		t.Fatalf("after: %q", got)
	}
}

// waitParked waits until INFO reports n blocked clients (asked on a
// connection of its own).
func waitParked(t *testing.T, s *Server, n int) {
	t.Helper()
	conn, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	rd := bufio.NewReader(conn)
	want := "blocked_clients:" + strconv.Itoa(n) + "\r\n"
	for range 500 {
		conn.Write([]byte("INFO clients\r\n"))
		size, err := strconv.Atoi(strings.TrimPrefix(readLine(t, rd), "$"))
		if err != nil {
			t.Fatal(err)
		}
		body := make([]byte, size+2)
		if _, err := io.ReadFull(rd, body); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(body), want) {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
	t.Fatalf("never %d blocked clients", n)
}

func readLine(t *testing.T, rd *bufio.Reader) string {
	t.Helper()
	line, err := rd.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(line, "\r\n")
}

// A master to follow is refused (minilock does not replicate) once its
// port is valid; the allocator's statistics
// are those of a Redis without jemalloc.
func TestReplicaofHostRefused(t *testing.T) {
	s := RunT(t, Config{})
	_, send := dial(t, s)
	for _, tc := range []struct{ cmd, want string }{
		{"REPLICAOF 127.0.0.1 6379", "-ERR REPLICAOF host port is not supported: minilock does not replicate (REPLICAOF NO ONE is)"},
		{"SLAVEOF localhost 0", "-ERR REPLICAOF host port is not supported: minilock does not replicate (REPLICAOF NO ONE is)"},
		{"REPLICAOF 127.0.0.1 65536", "-ERR Invalid master port"},
		{"MEMORY MALLOC-STATS", "$45"}, // the last: its bulk is not read
	} {
		if got := send(tc.cmd); got != tc.want {
			t.Fatalf("%s: %q, want %q", tc.cmd, got, tc.want)
		}
	}
}
