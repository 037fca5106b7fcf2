package edge_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/minilock/minilock/internal/redistest"
	"github.com/minilock/minilock/server"
	"github.com/minilock/minilock/server/internal/edge"
)

// The guard through minilock itself: the tests here serve it with a
// whole server, and compare what it answers with a real redis-server's
// answers to the same frames (guardDiffFrames, in guard_test.go, which
// also seed FuzzGuard).

// guardStartServer serves minilock itself, with the guard limits lim, on
// a loopback port. ended receives the protocol error that ended each
// connection that had one, read off the server's log.
func guardStartServer(t *testing.T, lim edge.Limits, password string) (addr string, ended <-chan string) {
	t.Helper()
	errs := make(chan string, 100)
	s := server.RunT(t, server.Config{MaxBulkLen: lim.MaxBulkLen, QueryBufferLimit: lim.MaxQueryLen,
		Password: password, Logger: slog.New(protocolErrors(errs))})
	return s.Addr(), errs
}

// protocolErrors is a log handler that passes on the err of every
// "protocol error" line the server logs.
type protocolErrors chan<- string

func (h protocolErrors) Enabled(context.Context, slog.Level) bool { return true }
func (h protocolErrors) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h protocolErrors) WithGroup(string) slog.Handler            { return h }

func (h protocolErrors) Handle(_ context.Context, r slog.Record) error {
	if r.Message != "protocol error" {
		return nil
	}
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "err" {
			select {
			case h <- a.Value.String():
			default:
			}
		}
		return true
	})
	return nil
}

// guardExchange sends frame on a new connection, hangs up its sending side and
// returns everything the server sends until it closes the connection.
func guardExchange(t *testing.T, addr, frame string) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	go func() {
		c.Write([]byte(frame)) // the server may close first; what it replied is what counts
		c.(*net.TCPConn).CloseWrite()
	}()
	c.SetReadDeadline(time.Now().Add(2 * time.Second))
	got, err := io.ReadAll(c)
	if err != nil && !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("%q: reading the reply: %v (after %q)", frame, err, got)
	}
	return string(got)
}

func TestGuardEndToEnd(t *testing.T) {
	addr, ended := guardStartServer(t, edge.Limits{}, "")
	for _, tt := range []struct{ frame, reply, err string }{
		{"*1\r\n$9223372036854775807\r\n", "", edge.ErrTextInvalidBulk},
		{"*3000000000\r\n", "", edge.ErrTextInvalidMbulk},
		{"PING\r\n*1\r\n$4\r\nPING\r\n*0\r\n*-1\r\n*1\r\n+PING\r\n", "+PONG\r\n+PONG\r\n", "Protocol error: expected '$', got '+'"},
		{"ECHO \"a b\" c\"\r\n", "", "Protocol error: unbalanced quotes in request"},
	} {
		want := tt.reply + "-ERR " + tt.err + "\r\n"
		if got := guardExchange(t, addr, tt.frame); got != want {
			t.Errorf("%q: got %q, want %q", tt.frame, got, want)
		}
		select {
		case err := <-ended:
			if err != tt.err {
				t.Errorf("%q: the connection ended with %q, want %q", tt.frame, err, tt.err)
			}
		case <-time.After(2 * time.Second):
			t.Fatalf("%q: the server logged no protocol error", tt.frame)
		}
	}

	// *INT_MAX makes a bare redcon loop two billion times per read; behind
	// the guard the connection just waits for its bulks, costing nothing,
	// and other connections are served.
	waiting, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer waiting.Close()
	waiting.Write([]byte("*2147483647\r\n$4\r\nPING\r\n"))
	var before, after syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	time.Sleep(500 * time.Millisecond)
	syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	if cpu := time.Duration(after.Utime.Nano() - before.Utime.Nano()); cpu > 250*time.Millisecond {
		t.Errorf("%v of CPU while a connection waits for its bulks", cpu)
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(2 * time.Second))
	for range 3 {
		c.Write([]byte("*1\r\n$4\r\nPING\r\n"))
		if line, err := bufio.NewReader(c).ReadString('\n'); line != "+PONG\r\n" {
			t.Fatalf("PING: %q, %v", line, err)
		}
	}
}

func TestGuardMatchesRedis(t *testing.T) {
	groups := []struct {
		name       string
		redisArgs  []string
		password   string
		lim        edge.Limits
		frames     []string
		connection int
	}{
		{name: "defaults", frames: edge.GuardDiffFrames},
		{name: "requirepass", redisArgs: []string{"--requirepass", "secret"}, password: "secret", frames: edge.GuardDiffAuthFrames},
		{name: "small limits",
			redisArgs: []string{"--proto-max-bulk-len", "2mb", "--client-query-buffer-limit", "1mb"},
			lim:       edge.Limits{MaxBulkLen: 2 << 20, MaxQueryLen: 1 << 20},
			frames: []string{
				"*1\r\n$2097153\r\n",
				"*2\r\n$4\r\nECHO\r\n$2097152\r\n" + strings.Repeat("x", 1100000),
				"*1\r\n$4\r\nPING\r\n*2\r\n$4\r\nECHO\r\n$1100000\r\n" + strings.Repeat("y", 1100000) + "\r\n",
				"*2\r\n$4\r\nECHO\r\n$1000000\r\n" + strings.Repeat("y", 1000000) + "\r\n",
			},
		},
	}
	for _, gr := range groups {
		t.Run(gr.name, func(t *testing.T) {
			redisAddr := redistest.Start(t, gr.redisArgs...).Addr
			guardAddr, _ := guardStartServer(t, gr.lim, gr.password)
			for _, frame := range gr.frames {
				want := guardExchange(t, redisAddr, frame)
				if got := guardExchange(t, guardAddr, frame); got != want {
					t.Errorf("%.80q:\nguard %.200q\nredis %.200q", frame, got, want)
				}
			}
		})
	}
}
