package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// kind is one server under test: how to start it on a port.
type kind struct {
	name string
	bin  string
	args func(port, maxClients int) []string
	env  []string // added to the harness's environment
}

func minilockKind(bin string) kind {
	return kind{"minilock", bin, func(port, maxClients int) []string {
		// No save points, as redis-server's arguments below: a save on
		// SIGTERM would leave a dump.rdb the next server loads.
		a := []string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "",
			"--appendonly", "no", "--loglevel", "warning"}
		if maxClients > 0 {
			a = append(a, "--maxclients", strconv.Itoa(maxClients))
		}
		return a
	}, nil}
}

func redisKind(bin string) kind {
	return kind{"redis", bin, func(port, maxClients int) []string {
		a := []string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "",
			"--appendonly", "no", "--daemonize", "no", "--loglevel", "warning", "--logfile", ""}
		if maxClients > 0 {
			a = append(a, "--maxclients", strconv.Itoa(maxClients))
		}
		return a
	}, nil}
}

func miniredisKind(bin string) kind {
	return kind{"miniredis", bin, func(port, _ int) []string {
		return []string{"--port", strconv.Itoa(port)}
	}, nil}
}

// ceilingKind is bench/cmd/ceiling in one of its modes: the network edge
// alone, with no command work.
func ceilingKind(bin, mode string) kind {
	return kind{"ceiling-" + mode, bin, func(port, _ int) []string {
		return []string{"--mode", mode, "--port", strconv.Itoa(port)}
	}, nil}
}

// proc is a running server process.
type proc struct {
	name   string
	addr   string
	cmd    *exec.Cmd
	stderr *tailBuffer
	exited chan struct{}
}

// freePort asks the kernel for a free loopback port. Another process could
// take it before the server binds it; start then fails and says so.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// start runs k on a free loopback port and waits until it answers PING.
func start(k kind, maxClients int) (*proc, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(k.bin, k.args(port, maxClients)...)
	p := &proc{name: k.name, addr: fmt.Sprintf("127.0.0.1:%d", port), cmd: cmd,
		stderr: &tailBuffer{max: 4096}, exited: make(chan struct{})}
	cmd.Env = append(os.Environ(), k.env...)
	cmd.Stdout = p.stderr
	cmd.Stderr = p.stderr
	// The servers die with the harness, even if it is killed.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %w", k.name, err)
	}
	go func() { cmd.Wait(); close(p.exited) }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := dial(p.addr)
		if err == nil {
			_, err = c.do("PING")
			c.close()
			if err == nil {
				return p, nil
			}
		}
		select {
		case <-p.exited:
			return nil, fmt.Errorf("%s exited: %s", k.name, p.stderr)
		default:
		}
		if time.Now().After(deadline) {
			p.stop()
			return nil, fmt.Errorf("%s did not answer PING on %s: %v", k.name, p.addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stop terminates the server: SIGTERM, then SIGKILL after 5 s.
func (p *proc) stop() {
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(5 * time.Second):
		p.cmd.Process.Kill()
		<-p.exited
	}
}

// rssKB reads VmRSS (and VmHWM, the peak) from /proc/<pid>/status.
func (p *proc) rssKB() (rss, hwm int64, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		return 0, 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		switch f[0] {
		case "VmRSS:":
			rss, _ = strconv.ParseInt(f[1], 10, 64)
		case "VmHWM:":
			hwm, _ = strconv.ParseInt(f[1], 10, 64)
		}
	}
	if rss == 0 {
		return 0, 0, errors.New("no VmRSS")
	}
	return rss, hwm, nil
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.b))
}

// respConn is a minimal RESP2 client for control commands and bulk loading.
type respConn struct {
	c net.Conn
	r *bufio.Reader
	w *bufio.Writer
}

func dial(addr string) (*respConn, error) {
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		return nil, err
	}
	return &respConn{c: c, r: bufio.NewReaderSize(c, 64<<10), w: bufio.NewWriterSize(c, 64<<10)}, nil
}

func (c *respConn) close() { c.c.Close() }

// appendCommand encodes args as a RESP array of bulk strings.
func appendCommand(b []byte, args ...string) []byte {
	b = append(b, '*')
	b = strconv.AppendInt(b, int64(len(args)), 10)
	b = append(b, '\r', '\n')
	for _, a := range args {
		b = append(b, '$')
		b = strconv.AppendInt(b, int64(len(a)), 10)
		b = append(b, '\r', '\n')
		b = append(b, a...)
		b = append(b, '\r', '\n')
	}
	return b
}

// do sends one command and reads its reply. An error reply is returned as
// an error; other replies in a readable text form (an array as its
// elements joined by spaces, nil as "(nil)").
func (c *respConn) do(args ...string) (string, error) {
	c.c.SetDeadline(time.Now().Add(30 * time.Second))
	defer c.c.SetDeadline(time.Time{})
	if _, err := c.w.Write(appendCommand(nil, args...)); err != nil {
		return "", err
	}
	if err := c.w.Flush(); err != nil {
		return "", err
	}
	return c.readReply()
}

// replyError is an error reply from the server.
type replyError string

func (e replyError) Error() string { return string(e) }

func (c *respConn) readReply() (string, error) {
	line, err := c.r.ReadSlice('\n')
	if err != nil {
		return "", err
	}
	if len(line) < 3 {
		return "", fmt.Errorf("short reply %q", line)
	}
	body := string(line[1 : len(line)-2])
	switch line[0] {
	case '+', ':':
		return body, nil
	case '-':
		return "", replyError(body)
	case '_':
		return "(nil)", nil
	case '$':
		n, err := strconv.Atoi(body)
		if err != nil {
			return "", err
		}
		if n < 0 {
			return "(nil)", nil
		}
		buf := make([]byte, n+2)
		if _, err := readFull(c.r, buf); err != nil {
			return "", err
		}
		return string(buf[:n]), nil
	case '*':
		n, err := strconv.Atoi(body)
		if err != nil {
			return "", err
		}
		var parts []string
		for range max(n, 0) {
			s, err := c.readReply()
			if err != nil {
				return "", err
			}
			parts = append(parts, s)
		}
		return strings.Join(parts, " "), nil
	}
	return "", fmt.Errorf("unexpected reply %q", line)
}

func readFull(r *bufio.Reader, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := r.Read(buf[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// control runs one command on a fresh connection.
func control(addr string, args ...string) (string, error) {
	c, err := dial(addr)
	if err != nil {
		return "", err
	}
	defer c.close()
	return c.do(args...)
}

// infoField returns one field of INFO's output, or "".
func infoField(info, name string) string {
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), name+":"); ok {
			return v
		}
	}
	return ""
}

// skipLine consumes one simple reply line (+OK, :1 ...) and checks it is
// not an error.
func skipLine(r *bufio.Reader) error {
	line, err := r.ReadSlice('\n')
	if err != nil {
		return err
	}
	if len(line) > 0 && line[0] == '-' {
		return replyError(bytes.TrimSpace(line[1:]))
	}
	return nil
}
