package server

import (
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/minilock/minilock/internal/redistest"
)

// bulkSet is SET k <n bytes> as a multibulk.
func bulkSet(n int) []byte {
	return []byte(fmt.Sprintf("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$%d\r\n%s\r\n", n, strings.Repeat("x", n)))
}

// CONFIG SET proto-max-bulk-len and client-query-buffer-limit apply at
// once to every connection, those open before the change included, while
// the connections' goroutines read them (run under -race).
func TestLiveFrameLimits(t *testing.T) {
	s := RunT(t)
	admin := redistest.Dial(t, s.Addr())
	old := redistest.Dial(t, s.Addr())
	do(t, old, "PING")

	// Readers busy on other connections while the limits change.
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 3 {
		c := redistest.Dial(t, s.Addr())
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if got, err := c.Do("SET", "r", strings.Repeat("y", 1000)); err != nil || string(got) != "+OK\r\n" {
					t.Errorf("reader: %q %v", got, err)
					return
				}
			}
		}()
	}
	for i := range 20 {
		v := []string{"1mb", "2mb", "536870912"}[i%3]
		if got := do(t, admin, "CONFIG", "SET", "proto-max-bulk-len", v, "client-query-buffer-limit", v); got != "+OK\r\n" {
			t.Fatalf("CONFIG SET %s: %q", v, got)
		}
	}
	close(stop)
	wg.Wait()

	do(t, admin, "CONFIG", "SET", "proto-max-bulk-len", "1mb")
	if got := do(t, admin, "CONFIG", "GET", "proto-max-bulk-len"); got != "*2\r\n$18\r\nproto-max-bulk-len\r\n$7\r\n1048576\r\n" {
		t.Fatalf("CONFIG GET: %q", got)
	}
	// The string-growing commands read it too (checkStringLength).
	if got := do(t, admin, "SETRANGE", "k", "1048576", "x"); got != "-ERR string exceeds maximum allowed size (proto-max-bulk-len)\r\n" {
		t.Fatalf("SETRANGE past the limit: %q", got)
	}
	if got := do(t, admin, "SETRANGE", "k", "1048575", "x"); got != ":1048576\r\n" {
		t.Fatalf("SETRANGE at the limit: %q", got)
	}
	// A connection opened before the change gets the new limit.
	// The header alone: the guard refuses it before any payload.
	if err := old.Send([]byte(fmt.Sprintf("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$%d\r\n", 1<<20+1))); err != nil {
		t.Fatal(err)
	}
	if got, _ := old.ReadReply(); string(got) != "-ERR Protocol error: invalid bulk length\r\n" {
		t.Fatalf("bulk above the new limit: %q", got)
	}

	// client-query-buffer-limit: a command in progress past it closes the
	// connection without a reply; raising it lets the same command through.
	do(t, admin, "CONFIG", "SET", "proto-max-bulk-len", "512mb", "client-query-buffer-limit", "1mb")
	c := redistest.Dial(t, s.Addr())
	c.Timeout = 5 * time.Second
	_ = c.Send(bulkSet(2 << 20))
	if got, err := c.ReadReply(); err == nil {
		t.Fatalf("past client-query-buffer-limit: answered %q", got)
	}
	do(t, admin, "CONFIG", "SET", "client-query-buffer-limit", "4mb")
	c = redistest.Dial(t, s.Addr())
	if err := c.Send(bulkSet(2 << 20)); err != nil {
		t.Fatal(err)
	}
	if got, err := c.ReadReply(); err != nil || string(got) != "+OK\r\n" {
		t.Fatalf("under the raised limit: %q %v", got, err)
	}
	if got := do(t, admin, "CONFIG", "GET", "client-query-buffer-limit"); !strings.HasSuffix(got, "$7\r\n4194304\r\n") {
		t.Fatalf("CONFIG GET: %q", got)
	}
}

// min-replicas-to-write on a node without replicas refuses every write
// (and scripts and transactions that write) with NOREPLICAS while
// min-replicas-max-lag is not 0.
func TestMinReplicasToWrite(t *testing.T) {
	s := RunT(t)
	a := redistest.Dial(t, s.Addr())
	b := redistest.Dial(t, s.Addr())
	const noRepl = "-NOREPLICAS Not enough good replicas to write.\r\n"
	do(t, a, "SET", "k", "v")
	if got := do(t, a, "INFO", "replication"); strings.Contains(got, "min_slaves_good_slaves") {
		t.Fatalf("INFO without the setting: %q", got)
	}
	do(t, b, "MULTI")
	do(t, b, "SET", "k", "w")
	do(t, a, "CONFIG", "SET", "min-slaves-to-write", "1")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"SET", "k", "x"}, noRepl},
		{[]string{"GET", "k"}, "$1\r\nv\r\n"},
		{[]string{"PUBLISH", "c", "m"}, ":0\r\n"},
		{[]string{"EVAL", "return redis.call('set','k','x')", "0"}, "-NOREPLICAS Not enough good replicas to write. script: "},
		{[]string{"EVAL", "return redis.pcall('set','k','x')", "0"}, noRepl},
		{[]string{"EVAL", "#!lua\nreturn 1", "0"}, noRepl},
		{[]string{"EVAL", "#!lua flags=no-writes\nreturn 1", "0"}, ":1\r\n"},
		{[]string{"FUNCTION", "FLUSH"}, noRepl},
		{[]string{"INFO", "replication"}, "connected_slaves:0\r\nmin_slaves_good_slaves:0\r\n"},
	} {
		if got := do(t, a, tc.args...); !strings.Contains(got, tc.want) {
			t.Errorf("%q = %q, want %q", tc.args, got, tc.want)
		}
	}
	// An EXEC that queued a write before the setting changed is aborted.
	if got := do(t, b, "EXEC"); got != "-EXECABORT Transaction discarded because of: NOREPLICAS Not enough good replicas to write.\r\n" {
		t.Fatalf("EXEC: %q", got)
	}
	// min-replicas-max-lag 0 turns the check off.
	do(t, a, "CONFIG", "SET", "min-replicas-max-lag", "0")
	if got := do(t, a, "SET", "k", "x"); got != "+OK\r\n" {
		t.Fatalf("lag 0: %q", got)
	}
}

// A standalone node's answers to the replication handshake.
func TestReplconfSync(t *testing.T) {
	s := RunT(t)
	a := redistest.Dial(t, s.Addr())
	for _, tc := range [][2]string{
		{"REPLCONF listening-port 6380", "+OK\r\n"},
		{"REPLCONF capa eof capa psync2", "+OK\r\n"},
		{"REPLCONF listening-port", "-ERR syntax error\r\n"},
		{"REPLCONF rdb-only 2", "-ERR value is out of range, value must between 0 and 1\r\n"},
		{"REPLCONF nope 1", "-ERR Unrecognized REPLCONF option: nope\r\n"},
		{"ASKING", "-ERR This instance has cluster support disabled\r\n"},
		{"SYNC", "-ERR SYNC is not supported: minilock does not replicate\r\n"},
		{"PSYNC ? -1", "-ERR PSYNC is not supported: minilock does not replicate\r\n"},
	} {
		if got := do(t, a, strings.Fields(tc[0])...); got != tc[1] {
			t.Errorf("%s = %q, want %q", tc[0], got, tc[1])
		}
	}
	// REPLCONF ACK has no reply: the next command's reply comes next.
	_ = a.Send([]byte("*3\r\n$8\r\nREPLCONF\r\n$3\r\nACK\r\n$1\r\n1\r\n"))
	if got := do(t, a, "PING"); got != "+PONG\r\n" {
		t.Fatalf("after REPLCONF ACK: %q", got)
	}
}

// The hidden parameters answer by name and change, and no pattern lists
// them (HIDDEN_CONFIG).
func TestHiddenConfigs(t *testing.T) {
	s := RunT(t)
	a := redistest.Dial(t, s.Addr())
	if got := do(t, a, "CONFIG", "GET", "key-load-delay"); got != "*2\r\n$14\r\nkey-load-delay\r\n$1\r\n0\r\n" {
		t.Fatalf("by name: %q", got)
	}
	if got := do(t, a, "CONFIG", "GET", "*"); strings.Contains(got, "key-load-delay") || strings.Contains(got, "watchdog-period") {
		t.Fatal("CONFIG GET * lists a hidden parameter")
	}
	if got := do(t, a, "CONFIG", "SET", "loading-process-events-interval-bytes", "1023"); !strings.Contains(got, "must be between 1024 and 2147483647") {
		t.Fatalf("range: %q", got)
	}
	if got := do(t, a, "CONFIG", "SET", "lua-enable-deprecated-api", "yes"); !strings.Contains(got, "can't set immutable config") {
		t.Fatalf("immutable: %q", got)
	}
	do(t, a, "CONFIG", "SET", "watchdog-period", "7")
	if got := do(t, a, "CONFIG", "GET", "watchdog-period"); !strings.HasSuffix(got, "$1\r\n7\r\n") {
		t.Fatalf("after set: %q", got)
	}
}

// clientField reads field name of the CLIENT LIST line of client id from
// the reply list.
func clientField(t *testing.T, list, id, name string) int64 {
	t.Helper()
	for _, line := range strings.Split(list, "\n") {
		if !strings.HasPrefix(line, "id="+id+" ") {
			continue
		}
		for _, f := range strings.Fields(line) {
			if v, ok := strings.CutPrefix(f, name+"="); ok {
				var n int64
				if _, err := fmt.Sscan(v, &n); err != nil {
					t.Fatalf("%s=%q", name, v)
				}
				return n
			}
		}
	}
	t.Fatalf("no %s for client %s in %q", name, id, list)
	return 0
}

// CLIENT LIST's qbuf, qbuf-free, rbp and tot-mem are minilock's own
// buffers: a half-sent command shows in qbuf and in tot-mem until it is
// complete, the asking client's own command is in its qbuf, and a big reply
// sets rbp.
func TestClientListBuffers(t *testing.T) {
	for _, loop := range []bool{false, true} {
		t.Run(fmt.Sprintf("event loop %v", loop), func(t *testing.T) { testClientListBuffers(t, loop) })
	}
}

func testClientListBuffers(t *testing.T, loop bool) {
	s := RunT(t, Config{EventLoop: loop})
	a := redistest.Dial(t, s.Addr())
	b := redistest.Dial(t, s.Addr())
	idOf := func(c *redistest.Conn) string {
		return strings.TrimSuffix(strings.TrimPrefix(do(t, c, "CLIENT", "ID"), ":"), "\r\n")
	}
	aid, bid := idOf(a), idOf(b)
	list := func() string { return do(t, b, "CLIENT", "LIST") }

	l := list()
	if got := clientField(t, l, bid, "qbuf"); got != 26 { // *2 $6 CLIENT $4 LIST
		t.Errorf("own qbuf %d, want 26", got)
	}
	if got := clientField(t, l, aid, "qbuf"); got != 0 {
		t.Errorf("idle qbuf %d", got)
	}
	idleMem := clientField(t, l, aid, "tot-mem")

	head := "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$100000\r\n"
	if err := a.Send([]byte(head + strings.Repeat("x", 50000))); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		l = list()
		if clientField(t, l, aid, "qbuf") >= 50000 || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got := clientField(t, l, aid, "qbuf"); got < 50000 || got > 50000+int64(len(head)) {
		t.Errorf("half-sent qbuf %d", got)
	}
	if got := clientField(t, l, aid, "tot-mem"); got < idleMem+50000 {
		t.Errorf("half-sent tot-mem %d, idle %d", got, idleMem)
	}
	if err := a.Send([]byte(strings.Repeat("x", 50000) + "\r\n")); err != nil {
		t.Fatal(err)
	}
	if got, err := a.ReadReply(); err != nil || string(got) != "+OK\r\n" {
		t.Fatalf("SET: %q %v", got, err)
	}
	l = list()
	if got := clientField(t, l, aid, "qbuf"); got != 0 {
		t.Errorf("qbuf after the command %d", got)
	}
	if got := clientField(t, l, aid, "qbuf-free"); got <= 0 {
		t.Errorf("qbuf-free %d", got)
	}
	do(t, a, "GET", "k")
	if got := clientField(t, list(), aid, "rbp"); got < 100000 {
		t.Errorf("rbp after a 100 kB reply: %d", got)
	}
}

// CONFIG SET client-output-buffer-limit applies to a subscriber already
// connected: one that reads nothing is dropped at the new 2 MiB limit, far
// below the 32 MiB it started with.
func TestPubsubLimitLive(t *testing.T) {
	s := RunT(t)
	pub := redistest.Dial(t, s.Addr())
	slow, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	slow.Write([]byte("SUBSCRIBE news\r\n"))
	waitFor(t, func() bool { return s.pubsubCount("news") == 1 })
	if got := do(t, pub, "CONFIG", "SET", "client-output-buffer-limit", "pubsub 2mb 0 0"); got != "+OK\r\n" {
		t.Fatalf("CONFIG SET: %q", got)
	}
	if got := do(t, pub, "CONFIG", "GET", "client-output-buffer-limit"); !strings.Contains(got, "pubsub 2097152 0 0") {
		t.Fatalf("CONFIG GET: %q", got)
	}
	msg := strings.Repeat("m", 1<<20)
	for range 24 {
		do(t, pub, "PUBLISH", "news", msg)
	}
	if got := do(t, pub, "PUBSUB", "NUMSUB", "news"); got != "*2\r\n$4\r\nnews\r\n:0\r\n" {
		t.Fatalf("PUBSUB NUMSUB after 24 MiB: %q", got)
	}
}

// freePort returns a TCP port nothing listens on right now.
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return port
}

// CONFIG SET port and bind move the listening sockets at run time; the
// connections already established stay, and a failure changes nothing.
func TestConfigSetPortBind(t *testing.T) {
	for _, loop := range []bool{false, true} {
		t.Run(fmt.Sprintf("event loop %v", loop), func(t *testing.T) {
			s := RunT(t, Config{EventLoop: loop})
			a := redistest.Dial(t, s.Addr())
			old := s.Addr()
			busy, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer busy.Close()
			_, busyPort, _ := net.SplitHostPort(busy.Addr().String())
			if got := do(t, a, "CONFIG", "SET", "port", busyPort); got != "-ERR CONFIG SET failed (possibly related to argument 'port') - Unable to listen on this port\r\n" {
				t.Fatalf("port in use: %q", got)
			}
			if s.Addr() != old {
				t.Fatalf("a failed CONFIG SET port moved the server to %s", s.Addr())
			}
			_, oldPort, _ := net.SplitHostPort(old)
			if got := do(t, a, "CONFIG", "SET", "port", oldPort); got != "+OK\r\n" {
				t.Fatalf("same port: %q", got)
			}
			port := freePort(t)
			if got := do(t, a, "CONFIG", "SET", "port", port); got != "+OK\r\n" {
				t.Fatalf("CONFIG SET port: %q", got)
			}
			if got := do(t, a, "CONFIG", "GET", "port"); got != fmt.Sprintf("*2\r\n$4\r\nport\r\n$%d\r\n%s\r\n", len(port), port) {
				t.Fatalf("CONFIG GET port: %q", got)
			}
			b := redistest.Dial(t, "127.0.0.1:"+port)
			if got := do(t, b, "PING"); got != "+PONG\r\n" {
				t.Fatalf("on the new port: %q", got)
			}
			if got := do(t, a, "PING"); got != "+PONG\r\n" {
				t.Fatalf("the connection made before: %q", got)
			}
			waitFor(t, func() bool {
				c, err := net.Dial("tcp", old)
				if err == nil {
					c.Close()
				}
				return err != nil
			})
			if got := do(t, b, "CONFIG", "SET", "bind", "192.0.2.1"); got != "-ERR CONFIG SET failed (possibly related to argument 'bind') - Failed to bind to specified addresses.\r\n" {
				t.Fatalf("bind to an address not ours: %q", got)
			}
			if got := do(t, b, "CONFIG", "SET", "bind", "-192.0.2.1 127.0.0.1"); got != "+OK\r\n" {
				t.Fatalf("optional address: %q", got)
			}
			if got := do(t, b, "CONFIG", "GET", "bind"); got != "*2\r\n$4\r\nbind\r\n$20\r\n-192.0.2.1 127.0.0.1\r\n" {
				t.Fatalf("CONFIG GET bind: %q", got)
			}
			if got := do(t, redistest.Dial(t, s.Addr()), "PING"); got != "+PONG\r\n" {
				t.Fatalf("after bind: %q", got)
			}
		})
	}
}

// CONFIG SET busy-reply-threshold (here by its old name) applies to the
// next script at once: with the 5 s default lowered to 100 ms, other
// clients are answered BUSY long before 5 s.
func TestBusyThresholdLive(t *testing.T) {
	s := RunT(t)
	a := redistest.Dial(t, s.Addr())
	b := redistest.Dial(t, s.Addr())
	if got := do(t, b, "CONFIG", "SET", "lua-time-limit", "100"); got != "+OK\r\n" {
		t.Fatalf("CONFIG SET: %q", got)
	}
	start := time.Now()
	if err := a.Send(redistest.Encode("EVAL", scrLoop, "0")); err != nil {
		t.Fatal(err)
	}
	scrWaitRunning(t, s)
	if got := scrDo(b, "PING"); got != scrBusy {
		t.Fatalf("PING = %q, want BUSY", got)
	}
	if elapsed := time.Since(start); elapsed < 100*time.Millisecond || elapsed > 3*time.Second {
		t.Errorf("BUSY after %v, want 100 ms (or a little more)", elapsed)
	}
	if got := scrDo(b, "SCRIPT", "KILL"); got != "+OK\r\n" {
		t.Fatalf("SCRIPT KILL = %q", got)
	}
	if got := scrRead(a); got != scrKilled(scrLoop) {
		t.Fatalf("EVAL = %q", got)
	}
}

// The string parameters config.c validates or keeps as C strings, and
// repl-backlog-size's floor.
func TestConfigStringChecks(t *testing.T) {
	s := RunT(t)
	a := redistest.Dial(t, s.Addr())
	fail := func(name, msg string) string {
		return "-ERR CONFIG SET failed (possibly related to argument '" + name + "') - " + msg + "\r\n"
	}
	for _, tc := range []struct{ name, value, want string }{
		{"proc-title-template", "{title}", fail("proc-title-template", "template format is invalid or contains unknown variables")},
		{"proc-title-template", "{bogus} x", fail("proc-title-template", "template format is invalid or contains unknown variables")},
		{"proc-title-template", "x{", fail("proc-title-template", "template format is invalid or contains unknown variables")},
		{"proc-title-template", " {server-mode} ", fail("proc-title-template", "template format is invalid or contains unknown variables")},
		{"proc-title-template", "{{title} {port}", "+OK\r\n"},
		{"cluster-announce-hostname", "a_b", fail("cluster-announce-hostname", "Hostnames may only contain alphanumeric characters, hyphens or dots")},
		{"cluster-announce-hostname", strings.Repeat("a", 256), fail("cluster-announce-hostname", "Hostnames must be less than 256 characters")},
		{"cluster-announce-hostname", "host-1.example", "+OK\r\n"},
		{"replica-announce-ip", "ab\x00cd", "+OK\r\n"},
		{"masterauth", "ab\x00cd", "+OK\r\n"},
		{"repl-backlog-size", "100", "+OK\r\n"},
	} {
		if got := do(t, a, "CONFIG", "SET", tc.name, tc.value); got != tc.want {
			t.Errorf("CONFIG SET %s %q = %q, want %q", tc.name, tc.value, got, tc.want)
		}
	}
	for name, want := range map[string]string{"replica-announce-ip": "ab", "masterauth": "ab\x00cd", "repl-backlog-size": "16384", "proc-title-template": "{{title} {port}"} {
		if got := do(t, a, "CONFIG", "GET", name); !strings.HasSuffix(got, "\r\n"+want+"\r\n") {
			t.Errorf("CONFIG GET %s = %q, want %q", name, got, want)
		}
	}
}
