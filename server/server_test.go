package server

import (
	"bufio"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/minilock/minilock/expiry"
)

// dial opens a raw connection to s and returns a function that sends one
// inline command and reads one line of reply.
func dial(t *testing.T, s *Server) (net.Conn, func(cmd string) string) {
	t.Helper()
	conn, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	rd := bufio.NewReader(conn)
	return conn, func(cmd string) string {
		t.Helper()
		conn.SetDeadline(time.Now().Add(5 * time.Second))
		if _, err := conn.Write([]byte(cmd + "\r\n")); err != nil {
			t.Fatal(err)
		}
		line, err := rd.ReadString('\n')
		if err != nil {
			t.Fatalf("%s: %v", cmd, err)
		}
		return strings.TrimSuffix(line, "\r\n")
	}
}

func TestRestartDelayRefusesWritesUntilItEnds(t *testing.T) {
	clock := expiry.NewManual(time.Unix(1_700_000_000, 0))
	s := RunT(t, Config{Clock: clock, RestartDelay: 10 * time.Second})
	_, send := dial(t, s)
	if got := send("SET lock me NX PX 30000"); !strings.HasPrefix(got, "-LOADING minilock restarted recently and refuses writes for 10000 ms more") {
		t.Fatalf("SET during the restart delay: %q", got)
	}
	if got := send("GET lock"); got != "$-1" {
		t.Fatalf("GET during the restart delay: %q", got)
	}
	s.FastForward(10 * time.Second)
	if got := send("SET lock me NX PX 30000"); got != "+OK" {
		t.Fatalf("SET at the end of the restart delay: %q", got)
	}
}

func TestMaxClients(t *testing.T) {
	s := RunT(t, Config{MaxClients: 2})
	_, a := dial(t, s)
	_, b := dial(t, s)
	a("PING")
	b("PING")
	_, c := dial(t, s)
	if got := c("PING"); got != "-ERR max number of clients reached" {
		t.Fatalf("third client: %q", got)
	}
	if got := a("PING"); got != "+PONG" {
		t.Fatalf("first client after the refusal: %q", got)
	}
}

func TestQuitClosesAfterReplyAndSkipsTheRest(t *testing.T) {
	s := RunT(t)
	conn, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := conn.Write([]byte("SET k 1\r\nQUIT\r\nSET k 2\r\n")); err != nil {
		t.Fatal(err)
	}
	all, err := io.ReadAll(conn) // returns at EOF: QUIT closed the connection
	if err != nil {
		t.Fatal(err)
	}
	if string(all) != "+OK\r\n+OK\r\n" {
		t.Fatalf("replies %q, want +OK for SET and QUIT, then EOF", all)
	}
	if v, _ := s.Get("k"); v != "1" {
		t.Fatalf("the command pipelined after QUIT ran: k=%q", v)
	}
}
