package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/minilock/minilock/internal/redistest"
)

// The binary, built and run as a user runs it: signals, graceful shutdown,
// --restart-delay.

// binPath is the minilock binary TestMain builds for these tests.
var binPath string

func TestMain(m *testing.M) {
	code := func() int {
		dir, err := os.MkdirTemp("", "minilock-bin-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		binPath = filepath.Join(dir, "minilock")
		args := []string{"build", "-o", binPath}
		if raceEnabled() {
			args = append(args, "-race") // the binary is checked as closely as the tests
		}
		build := exec.Command("go", append(args, ".")...)
		build.Stderr = os.Stderr
		if err := build.Run(); err != nil {
			fmt.Fprintf(os.Stderr, "building minilock: %v\n", err)
			return 1
		}
		return m.Run()
	}()
	os.Exit(code)
}

func raceEnabled() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "-race" {
			return s.Value == "true"
		}
	}
	return false
}

// proc is a running minilock binary.
type proc struct {
	t       *testing.T
	cmd     *exec.Cmd
	addr    string
	started time.Time // just before the process was started
	exited  chan struct{}
	err     error // from Wait, once exited is closed

	mu    sync.Mutex
	log   bytes.Buffer
	lines chan string
}

var readyAddr = regexp.MustCompile(`msg="minilock ready to accept connections".* addrs=(\S+)`)

// startMinilock runs the binary on a free loopback port with extra
// arguments and waits until it accepts connections.
func startMinilock(t *testing.T, extra ...string) *proc {
	t.Helper()
	args := append([]string{"--port", "0", "--bind", "127.0.0.1", "--loglevel", "verbose"}, extra...)
	p := &proc{t: t, cmd: exec.Command(binPath, args...), exited: make(chan struct{}), lines: make(chan string, 100)}
	p.cmd.Dir = t.TempDir() // the save points write dump.rdb there on SIGTERM
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.started = time.Now()
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			p.mu.Lock()
			p.log.WriteString(sc.Text() + "\n")
			p.mu.Unlock()
			select {
			case p.lines <- sc.Text():
			default:
			}
		}
		p.err = p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-p.exited:
		default:
			p.cmd.Process.Kill()
			<-p.exited
		}
		if t.Failed() {
			t.Logf("minilock's log:\n%s", p.stderr())
		}
	})
	m := p.waitLine(readyAddr)
	p.addr = m[1]
	return p
}

func (p *proc) stderr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.log.String()
}

// waitLine waits for a log line matching re and returns its submatches.
func (p *proc) waitLine(re *regexp.Regexp) []string {
	p.t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case line := <-p.lines:
			if m := re.FindStringSubmatch(line); m != nil {
				return m
			}
		case <-p.exited:
			p.t.Fatalf("minilock exited (%v) before logging %q:\n%s", p.err, re, p.stderr())
		case <-timeout:
			p.t.Fatalf("minilock did not log %q in 20 s:\n%s", re, p.stderr())
		}
	}
}

func (p *proc) signal(sig os.Signal) {
	p.t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		p.t.Fatal(err)
	}
}

// wait waits for the process to exit and returns its exit code and how long
// after `since` it exited.
func (p *proc) wait(since time.Time, bound time.Duration) (int, time.Duration) {
	p.t.Helper()
	select {
	case <-p.exited:
	case <-time.After(bound):
		p.t.Fatalf("minilock still running %v after the signal", bound)
	}
	elapsed := time.Since(since)
	var ee *exec.ExitError
	switch {
	case p.err == nil:
		return 0, elapsed
	case errors.As(p.err, &ee):
		return ee.ExitCode(), elapsed
	}
	p.t.Fatalf("wait: %v", p.err)
	return -1, elapsed
}

var signalLine = regexp.MustCompile(`msg="received signal, shutting down"`)

// closingLine is logged once the server serves no new command.
var closingLine = regexp.MustCompile(`msg="closing: no new connections`)

// TestSignalShutsDownGracefully interrupts a long pipeline with SIGTERM (or
// SIGINT): the client gets whole replies for a prefix of its commands, in
// order, then the close; idle clients see the close; the process exits 0
// promptly.
func TestSignalShutsDownGracefully(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			p := startMinilock(t)
			idle := redistest.Dial(t, p.addr)
			if got, err := idle.Do("PING"); err != nil || string(got) != "+PONG\r\n" {
				t.Fatalf("PING: %q, %v", got, err)
			}
			c := redistest.Dial(t, p.addr)
			const n = 50000
			var pipeline bytes.Buffer
			for range n {
				pipeline.Write(redistest.Encode("INCR", "counter"))
			}
			go c.Send(pipeline.Bytes()) // fails once the server has closed
			if got, err := c.ReadReply(); err != nil || string(got) != ":1\r\n" {
				t.Fatalf("first reply: %q, %v", got, err)
			}
			sent := time.Now()
			p.signal(sig)
			// Every reply that arrives is whole and in sequence.
			got := 1
			for {
				r, err := c.ReadReply()
				if err != nil {
					if !errors.Is(err, redistest.ErrClosed) || len(r) != 0 {
						t.Fatalf("after %d replies: %v (partial %q)", got, err, r)
					}
					break
				}
				if got++; string(r) != ":"+strconv.Itoa(got)+"\r\n" {
					t.Fatalf("reply %d = %q", got, r)
				}
			}
			if rest, err := idle.ReadUntilEOF(); err != nil || len(rest) != 0 {
				t.Fatalf("idle client: %q, %v; want a plain close", rest, err)
			}
			code, took := p.wait(sent, 10*time.Second)
			t.Logf("%v: %d of %d pipelined replies arrived whole, exit %d after %v", sig, got, n, code, took.Round(time.Millisecond))
			if code != 0 {
				t.Fatalf("exit code %d, want 0", code)
			}
			for _, want := range []string{"received signal, shutting down", "minilock is now ready to exit"} {
				if !strings.Contains(p.stderr(), want) {
					t.Fatalf("the log lacks %q", want)
				}
			}
		})
	}
}

// TestShutdownIsBounded holds a shutdown open with a client that never
// reads its replies: new connections are refused at once, the process
// still exits 0 once the drain timeout (5 s) has passed, and a second
// signal ends it at once with status 1.
func TestShutdownIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the 5 s drain timeout")
	}
	tests := []struct {
		name     string
		signals  int
		wantCode int
		min, max time.Duration
	}{
		{"one signal waits out the drain", 1, 0, 4 * time.Second, 15 * time.Second},
		{"a second signal exits at once", 2, 1, 0, 3 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := startMinilock(t)
			setter := redistest.Dial(t, p.addr)
			if got, err := setter.Do("SET", "big", strings.Repeat("v", 1<<20)); err != nil || string(got) != "+OK\r\n" {
				t.Fatalf("SET: %q, %v", got, err)
			}
			hog, err := net.Dial("tcp", p.addr)
			if err != nil {
				t.Fatal(err)
			}
			defer hog.Close()
			hog.(*net.TCPConn).SetReadBuffer(4096)
			var pipeline bytes.Buffer
			for range 1000 {
				pipeline.Write(redistest.Encode("GET", "big"))
			}
			go hog.Write(pipeline.Bytes())
			// The first reply's header shows the server is writing the
			// hog 1000 MiB it will not read: its goroutine is stuck with
			// replies in flight. (A second client still is answered, as
			// PING shows.)
			hog.SetReadDeadline(time.Now().Add(10 * time.Second))
			header := make([]byte, len("$1048576\r\n"))
			if _, err := io.ReadFull(hog, header); err != nil || string(header) != "$1048576\r\n" {
				t.Fatalf("the hog's first reply: %q, %v", header, err)
			}
			if got, err := setter.Do("PING"); err != nil || string(got) != "+PONG\r\n" {
				t.Fatalf("PING: %q, %v", got, err)
			}
			sent := time.Now()
			p.signal(syscall.SIGTERM)
			p.waitLine(signalLine)
			p.waitLine(closingLine)
			if c, err := net.DialTimeout("tcp", p.addr, time.Second); err == nil {
				// Accepted by the kernel before the listener closed, at
				// most: the server must not serve it.
				c.SetReadDeadline(time.Now().Add(15 * time.Second))
				c.Write([]byte("PING\r\n"))
				reply, _ := io.ReadAll(c)
				c.Close()
				if len(reply) != 0 {
					t.Fatalf("a connection made during the shutdown was served: %q", reply)
				}
			}
			if tt.signals == 2 {
				p.signal(syscall.SIGTERM)
			}
			code, took := p.wait(sent, tt.max)
			t.Logf("exit %d after %v", code, took.Round(time.Millisecond))
			if code != tt.wantCode || took < tt.min {
				t.Fatalf("exit %d after %v; want %d after at least %v", code, took, tt.wantCode, tt.min)
			}
		})
	}
}

// TestShutdownStopsRunningScript sends SIGTERM while a script runs: the
// script is stopped and the process exits 0 promptly. The script's client
// sees its connection close without a reply, as redis-server's does when it
// shuts down under a script (it never answers it); a partial reply would be
// a bug.
func TestShutdownStopsRunningScript(t *testing.T) {
	p := startMinilock(t, "--busy-reply-threshold", "50")
	runner := redistest.Dial(t, p.addr)
	runner.Timeout = 30 * time.Second
	if err := runner.Send(redistest.Encode("EVAL", "local n = 0 while true do n = n + 1 end", "0")); err != nil {
		t.Fatal(err)
	}
	other := redistest.Dial(t, p.addr)
	for deadline := time.Now().Add(10 * time.Second); ; {
		if time.Now().After(deadline) {
			t.Fatal("no BUSY in 10 s")
		}
		got, err := other.Do("PING")
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(string(got), "-BUSY ") {
			break
		}
		time.Sleep(5 * time.Millisecond) // until the script is past the busy threshold
	}
	sent := time.Now()
	p.signal(syscall.SIGTERM)
	reply, err := runner.ReadReply()
	switch {
	case errors.Is(err, redistest.ErrClosed) && len(reply) == 0:
	case err == nil && strings.HasPrefix(string(reply), "-"):
		// An error reply would do as well, if whole.
	default:
		t.Fatalf("the script's client got %q, %v; want the connection closed", reply, err)
	}
	code, took := p.wait(sent, 10*time.Second)
	t.Logf("script reply %q; exit %d after %v", reply, code, took.Round(time.Millisecond))
	if code != 0 {
		t.Fatalf("exit code %d", code)
	}
}

// TestRestartDelayFlag runs the binary with --restart-delay: writes get
// LOADING (and INFO says loading:1, which ioredis waits on) until the delay
// has passed, reads work all along.
func TestRestartDelayFlag(t *testing.T) {
	const delay = 500 * time.Millisecond
	p := startMinilock(t, "--restart-delay", strconv.Itoa(int(delay.Milliseconds())))
	c := redistest.Dial(t, p.addr)
	do := func(args ...string) string {
		t.Helper()
		got, err := c.Do(args...)
		if err != nil {
			t.Fatal(err)
		}
		return string(got)
	}
	if got := do("SET", "lock", "me", "NX", "PX", "30000"); !strings.HasPrefix(got, "-LOADING minilock restarted recently and refuses writes for ") {
		t.Fatalf("SET during the delay: %q", got)
	}
	if got := do("EVAL", "return redis.call('SET', 'k', 'v')", "0"); !strings.Contains(got, "LOADING") {
		t.Fatalf("a script's write during the delay: %q", got)
	}
	if got := do("GET", "lock"); got != "$-1\r\n" {
		t.Fatalf("GET during the delay: %q", got)
	}
	if got := do("INFO", "persistence"); !strings.Contains(got, "loading:1\r\n") {
		t.Fatalf("INFO during the delay: %q", got)
	}
	for {
		got := do("SET", "lock", "me", "NX", "PX", "30000")
		if got == "+OK\r\n" {
			break
		}
		if !strings.HasPrefix(got, "-LOADING ") {
			t.Fatalf("SET: %q", got)
		}
		if time.Since(p.started) > 20*time.Second {
			t.Fatal("writes still refused after 20 s")
		}
		time.Sleep(20 * time.Millisecond) // real time must pass: this is the binary
	}
	if elapsed := time.Since(p.started); elapsed < delay {
		t.Fatalf("a write was accepted %v after the start, before the %v delay", elapsed, delay)
	}
	if got := do("INFO", "persistence"); !strings.Contains(got, "loading:0\r\n") {
		t.Fatalf("INFO after the delay: %q", got)
	}
}

// TestBadFramesLeaveTheBinaryServing sends each hostile frame of the
// frame guard's brief to the built binary, on a connection of its own, and
// the same bytes to redis-server 7.0.15: both must send the same bytes back
// before closing (or both keep the connection open, waiting for the rest).
// After every frame another client is still served and the key it set
// first is still there. A frame redcon alone would trust kills the process
// (the first two) or spins a core.
func TestBadFramesLeaveTheBinaryServing(t *testing.T) {
	const pw = "s3cret"
	long := strings.Repeat("9", 70<<10) // past the 64 KiB line limits
	frames := []struct {
		name  string
		frame string
		auth  bool // sent to servers that require a password, before AUTH
	}{
		{"bulk length past int64", "*1\r\n$9223372036854775807\r\n", false},
		{"multibulk count INT_MAX", "*2147483647\r\n", false},
		{"multibulk count past INT_MAX", "*2147483648\r\n", false},
		{"multibulk count not a number", "*abc\r\n", false},
		{"bulk length not a number", "*1\r\n$abc\r\n", false},
		{"negative bulk length", "*1\r\n$-5\r\n", false},
		{"bulk length past proto-max-bulk-len", "*1\r\n$536870913\r\n", false},
		{"expected '$'", "*1\r\n+PING\r\n", false},
		{"too big inline request", strings.Repeat("x", 70<<10), false},
		{"too big mbulk count string", "*" + long, false},
		{"too big bulk count string", "*1\r\n$" + long, false},
		{"unbalanced quotes inline", "SET a \"hello\r\n", false},
		{"commands before the bad frame run", "*2\r\n$4\r\nECHO\r\n$2\r\nhi\r\nPING\r\n*x\r\n", false},
		{"zero and negative counts are ignored", "*0\r\n*-1\r\nPING\r\n", false},
		{"unauthenticated multibulk length", "*11\r\n", true},
		{"unauthenticated bulk length", "*1\r\n$16385\r\n", true},
	}
	mini := startMinilock(t)
	miniAuth := startMinilock(t, "--requirepass", pw)
	redis := redistest.Start(t)
	redisAuth := redistest.Start(t, "--requirepass", pw)
	// each runs one command on both binaries, authenticated.
	each := func(t *testing.T, want string, args ...string) {
		t.Helper()
		for _, c := range []*redistest.Conn{redistest.Dial(t, mini.addr), redistest.Dial(t, miniAuth.addr)} {
			c.Do("AUTH", pw) // the first binary answers an error: no password is set
			if got, err := c.Do(args...); err != nil || string(got) != want {
				t.Fatalf("%q: %q, %v", args, got, err)
			}
		}
	}
	each(t, "+OK\r\n", "SET", "kept", "yes")
	// send returns what addr answered to frame before closing, or before
	// a short wait if it keeps the connection open.
	send := func(t *testing.T, addr, frame string) (string, bool) {
		c := redistest.Dial(t, addr)
		c.Timeout = 500 * time.Millisecond
		if err := c.Send([]byte(frame)); err != nil {
			t.Fatalf("send to %s: %v", addr, err)
		}
		got, err := c.ReadUntilEOF()
		return string(got), err == nil
	}
	for _, tt := range frames {
		t.Run(tt.name, func(t *testing.T) {
			m, r := mini.addr, redis.Addr
			if tt.auth {
				m, r = miniAuth.addr, redisAuth.Addr
			}
			got, gotClosed := send(t, m, tt.frame)
			t.Logf("minilock answered %.120q (closed %v)", got, gotClosed)
			want, wantClosed := send(t, r, tt.frame)
			if got != want || gotClosed != wantClosed {
				t.Fatalf("minilock: %.200q (closed %v)\nredis:    %.200q (closed %v)", got, gotClosed, want, wantClosed)
			}
			each(t, "$3\r\nyes\r\n", "GET", "kept")
		})
	}
}
