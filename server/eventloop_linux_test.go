package server

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
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

// TestEventLoopAcceptBackoff: with no descriptor left for a new connection
// (EMFILE), the level-triggered listener does not spin the loop: it backs
// off; once descriptors are free again the waiting client is served. The
// descriptor limit is the whole process's, so the server runs in a child
// process (this test binary again, in emfileChild).
func TestEventLoopAcceptBackoff(t *testing.T) {
	if os.Getenv("MINILOCK_TEST_EMFILE_CHILD") == "1" {
		emfileChild()
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestEventLoopAcceptBackoff$")
	cmd.Env = append(os.Environ(), "MINILOCK_TEST_EMFILE_CHILD=1", "MINILOCK_EDGE=epoll")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	out := bufio.NewReader(stdout)
	line := func() string {
		s, err := out.ReadString('\n')
		if err != nil {
			t.Fatalf("child: %v (so far %q)", err, s)
		}
		return strings.TrimSpace(s)
	}
	addr, ok := strings.CutPrefix(line(), "addr ")
	if !ok {
		t.Fatalf("child did not start: %q", addr)
	}
	// The kernel completes the handshake; the connection waits in the
	// backlog, which keeps the listener readable.
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cpu0 := childCPU(t, cmd.Process.Pid)
	const watch = 1500 * time.Millisecond
	time.Sleep(watch)
	// Spinning, the child's owner takes a whole CPU (a third of one on a
	// machine loaded three times over); backing off, a few wake-ups.
	if used := childCPU(t, cmd.Process.Pid) - cpu0; used > watch/5 {
		t.Fatalf("out of descriptors, the server used %v of CPU in %v: the loop spins on the listener", used, watch)
	}
	fmt.Fprintln(stdin, "free")
	if got := line(); got != "freed" {
		t.Fatalf("child: %q", got)
	}
	c.SetDeadline(time.Now().Add(5 * time.Second))
	fmt.Fprintf(c, "PING\r\n")
	got := make([]byte, len("+PONG\r\n"))
	if _, err := io.ReadFull(c, got); err != nil || string(got) != "+PONG\r\n" {
		t.Fatalf("the client that waited: %q, %v", got, err)
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("child: %v", err)
	}
}

// emfileChild is TestEventLoopAcceptBackoff's server: it starts on the
// epoll edge, lowers RLIMIT_NOFILE to the lowest free descriptor (so
// accept fails with EMFILE), prints its address, restores the limit when
// told "free" on stdin, and closes at EOF.
func emfileChild() {
	s, err := Start(Config{EventLoop: true})
	if err != nil {
		fmt.Println("start:", err)
		os.Exit(1)
	}
	f, err := os.Open(os.DevNull)
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(1)
	}
	lowest := uint64(f.Fd())
	f.Close()
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		fmt.Println("getrlimit:", err)
		os.Exit(1)
	}
	low := lim
	low.Cur = lowest
	if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &low); err != nil {
		fmt.Println("setrlimit:", err)
		os.Exit(1)
	}
	fmt.Println("addr", s.Addr())
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		if in.Text() == "free" {
			if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
				fmt.Println("setrlimit:", err)
				os.Exit(1)
			}
			fmt.Println("freed")
		}
	}
	s.Close()
	os.Exit(0)
}

// childCPU is the user and system CPU time pid has used.
func childCPU(t *testing.T, pid int) time.Duration {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	// Fields count from after the command name, which may hold spaces.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 13 {
		t.Fatalf("/proc/%d/stat: %q", pid, b)
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		t.Fatalf("/proc/%d/stat: %q", pid, b)
	}
	const clkTck = 100 // sysconf(_SC_CLK_TCK) on Linux
	return time.Duration(utime+stime) * time.Second / clkTck
}
