package main

import (
	"os/exec"
	"regexp"
	"syscall"
	"testing"
	"time"

	"github.com/minilock/minilock/internal/redistest"
)

// TestSIGHUPAndSIGPIPEAreIgnored sends the binary SIGHUP and SIGPIPE, as a
// closed terminal or a supervisor's reload would, on both edges: as
// redis-server, it keeps serving and keeps its keys (Go's default for
// SIGHUP is to exit: every lock was lost).
func TestSIGHUPAndSIGPIPEAreIgnored(t *testing.T) {
	for _, edge := range []string{"epoll", "goroutine"} {
		t.Run(edge, func(t *testing.T) {
			t.Setenv("MINILOCK_EDGE", edge)
			p := startMinilock(t)
			c := redistest.Dial(t, p.addr)
			if got := c.MustDo("SET", "lock", "token", "PX", "60000"); got != "+OK\r\n" {
				t.Fatalf("SET: %q", got)
			}
			for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGPIPE, syscall.SIGHUP} {
				p.signal(sig)
				// A process killed by the signal is gone well within this;
				// one still running answers the round trip after it.
				select {
				case <-p.exited:
					t.Fatalf("%v ended the process: %v", sig, p.err)
				case <-time.After(200 * time.Millisecond):
				}
				if got := c.MustDo("GET", "lock"); got != "$5\r\ntoken\r\n" {
					t.Fatalf("GET after %v: %q", sig, got)
				}
			}
			if got := redistest.Dial(t, p.addr).MustDo("PING"); got != "+PONG\r\n" {
				t.Fatalf("a new connection's PING: %q", got)
			}
			if signalLine.MatchString(p.stderr()) {
				t.Fatalf("the log reports a shutdown:\n%s", p.stderr())
			}
		})
	}
}

// TestBrokenStderrDoesNotKill closes the reader of the binary's stderr
// (a log pipe whose reader died) and makes it log: the write fails with
// EPIPE instead of killing the process with SIGPIPE, as Go does by default
// for standard error.
func TestBrokenStderrDoesNotKill(t *testing.T) {
	cmd := exec.Command(binPath, "--port", "0", "--bind", "127.0.0.1", "--loglevel", "debug")
	cmd.Dir = t.TempDir() // the save points write dump.rdb there on SIGTERM
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	waiting := false
	t.Cleanup(func() {
		cmd.Process.Kill()
		if waiting {
			<-exited
		} else {
			cmd.Wait()
		}
	})
	buf := make([]byte, 0, 4096)
	var addr string
	ready := regexp.MustCompile(`msg="minilock ready to accept connections".* addrs=(\S+)`)
	for addr == "" {
		chunk := make([]byte, 1024)
		n, err := stderr.Read(chunk)
		if err != nil {
			t.Fatalf("reading the log: %v (%q)", err, buf)
		}
		buf = append(buf, chunk[:n]...)
		if m := ready.FindSubmatch(buf); m != nil {
			addr = string(m[1])
		}
	}
	stderr.Close() // the log's reader is gone
	waiting = true
	go func() { exited <- cmd.Wait() }()
	time.Sleep(50 * time.Millisecond)
	c := redistest.Dial(t, addr)
	c.MustDo("SET", "k", "v")
	for range 3 {
		// A protocol error is logged at debug level: a write to stderr.
		bad := redistest.Dial(t, addr)
		bad.MustSend([]byte("*1\r\n$x\r\n"))
		bad.ReadUntilEOF()
	}
	select {
	case err := <-exited:
		t.Fatalf("the process ended once its stderr broke: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	if got := c.MustDo("GET", "k"); got != "$1\r\nv\r\n" {
		t.Fatalf("GET: %q", got)
	}
}
