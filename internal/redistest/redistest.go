// Package redistest runs a real redis-server for tests and talks raw RESP to
// it (or to minilock): the two halves of a differential test.
//
//	redistest.Require(t)
//	srv := redistest.Start(t, "--requirepass", "pw")
//	c := redistest.Dial(t, srv.Addr)
//	reply, err := c.Do("PING")
package redistest

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Binary is the program Require looks for on PATH.
const Binary = "redis-server"

// Require returns the path of redis-server. When it is not on PATH the test
// is skipped, or fails when the CI environment variable is "true": a CI run
// must not pass by silently testing nothing.
func Require(t testing.TB) string {
	t.Helper()
	path, err := exec.LookPath(Binary)
	if err == nil {
		return path
	}
	msg := Binary + " is not on PATH (Debian: apt-get install -y redis-server); the differential tests need a real Redis 7"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg + " and CI=true, so this is a failure")
	}
	t.Skip(msg)
	return ""
}

// Server is a redis-server that a test started.
type Server struct {
	// Addr is the host:port it listens on.
	Addr string
	// Dir is its working directory, a t.TempDir(); its log is Dir/redis.log.
	Dir string

	cmd  *exec.Cmd
	exit chan error
}

// startTimeout bounds how long Start waits for redis-server to answer.
const startTimeout = 10 * time.Second

// Start runs redis-server on a free loopback port, persisting nothing:
//
//	redis-server --port <free> --bind 127.0.0.1 --save '' --appendonly no [extra ...]
//
// It returns once the server answers PING (+PONG, or -NOAUTH when extra sets
// a password), and stops it when the test ends. Start calls Require.
func Start(t testing.TB, extra ...string) *Server {
	t.Helper()
	bin := Require(t)
	s, err := Launch(bin, t.TempDir(), extra...)
	if err != nil {
		t.Fatalf("redistest: %v", err)
	}
	t.Cleanup(s.Stop)
	return s
}

// Launch is Start for a program that is not a test (the generators): it
// runs the redis-server at bin on a free loopback port with its files in
// dir, and the caller stops it with Stop.
func Launch(bin, dir string, extra ...string) (*Server, error) {
	var lastErr error
	// A free port can be taken by someone else before redis-server binds
	// it; try a few.
	for attempt := 0; attempt < 5; attempt++ {
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		s, err := start(bin, dir, port, extra)
		if err == nil {
			return s, nil
		}
		lastErr = err
	}
	return nil, fmt.Errorf("redis-server did not start: %v", lastErr)
}

func start(bin, dir string, port int, extra []string) (*Server, error) {
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	args := append([]string{
		"--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no",
		"--dir", dir, "--logfile", filepath.Join(dir, "redis.log"),
		"--daemonize", "no",
	}, extra...)
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &Server{Addr: addr, Dir: dir, cmd: cmd, exit: make(chan error, 1)}
	go func() { s.exit <- cmd.Wait() }()
	deadline := time.Now().Add(startTimeout)
	for {
		err := ping(addr)
		if err == nil {
			return s, nil
		}
		select {
		case werr := <-s.exit:
			return nil, fmt.Errorf("exited (%v): %s", werr, s.logTail())
		default:
		}
		if time.Now().After(deadline) {
			s.Stop()
			return nil, fmt.Errorf("no answer on %s after %v (%v): %s", addr, startTimeout, err, s.logTail())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// ping reports whether a server answers PING at addr. NOAUTH counts as an
// answer: the server is up, it wants a password.
func ping(addr string) error {
	conn, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(time.Second))
	if _, err := conn.Write([]byte("*1\r\n$4\r\nPING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		return err
	}
	if line != "+PONG\r\n" && !strings.HasPrefix(line, "-NOAUTH") {
		return fmt.Errorf("PING answered %q", line)
	}
	return nil
}

// Stop terminates the server: SIGTERM, then SIGKILL if it lingers.
func (s *Server) Stop() {
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exit:
	case <-time.After(5 * time.Second):
		s.cmd.Process.Kill()
		<-s.exit
	}
}

// logTail returns the end of the server's log, for error messages.
func (s *Server) logTail() string {
	b, _ := os.ReadFile(filepath.Join(s.Dir, "redis.log"))
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(b)
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
