package edge

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/tidwall/redcon"
)

// guardCmd encodes args as the canonical multibulk the guard hands over.
func guardCmd(args ...string) string {
	s := "*" + strconv.Itoa(len(args)) + "\r\n"
	for _, a := range args {
		s += "$" + strconv.Itoa(len(a)) + "\r\n" + a + "\r\n"
	}
	return s
}

// guardScriptConn is a client that sends its chunks one per Read (a chunk
// larger than the reader asks for is split, as a socket would) and then
// hangs up. It records what the guard writes to it.
type guardScriptConn struct {
	net.Conn
	chunks  [][]byte
	written bytes.Buffer
}

func (c *guardScriptConn) Read(p []byte) (int, error) {
	if len(c.chunks) == 0 {
		return 0, io.EOF
	}
	n := copy(p, c.chunks[0])
	if c.chunks[0] = c.chunks[0][n:]; len(c.chunks[0]) == 0 {
		c.chunks = c.chunks[1:]
	}
	return n, nil
}

func (c *guardScriptConn) Write(p []byte) (int, error) { return c.written.Write(p) }

// guardRun is what one connection made of the guard.
type guardRun struct {
	out     string   // bytes handed over
	reads   []string // the same, Read by Read
	written string   // what the guard wrote to the client itself
	err     error    // the error that ended the reads
}

// runGuard reads through a guard until it fails, with reads of readSize
// bytes, and checks that a failed guard stays failed and silent.
func runGuard(t testing.TB, chunks []string, pending bool, lim Limits, readSize int) guardRun {
	t.Helper()
	sc := &guardScriptConn{}
	for _, c := range chunks {
		sc.chunks = append(sc.chunks, []byte(c))
	}
	g := NewGuard(sc, lim)
	g.SetAuthPending(pending)
	var r guardRun
	var out strings.Builder
	buf := make([]byte, readSize)
	for {
		n, err := g.Read(buf)
		if n == 0 && err == nil {
			t.Fatal("Read returned (0, nil)")
		}
		if n > 0 && err != nil {
			t.Fatalf("Read returned %d bytes and error %v", n, err)
		}
		if err != nil {
			r.err = err
			break
		}
		out.Write(buf[:n])
		r.reads = append(r.reads, string(buf[:n]))
	}
	r.out = out.String()
	r.written = sc.written.String()
	checkGuardArgs(t, chunks, pending, lim, r)
	if g.ProtocolError() != nil {
		if g.ProtocolError() != r.err {
			t.Fatalf("ProtocolError() = %v, Read failed with %v", g.ProtocolError(), r.err)
		}
		sc.chunks = append(sc.chunks, []byte(guardCmd("PING")))
		if n, err := g.Read(buf); n != 0 || err != r.err {
			t.Fatalf("Read after %v = %d, %v", r.err, n, err)
		}
		if sc.written.String() != r.written {
			t.Fatalf("wrote %q after the error", sc.written.String()[len(r.written):])
		}
	}
	return r
}

// checkGuardArgs reads the same chunks through Commands, as the server
// does, and checks that the arguments it gives are the commands Read gave,
// ending with the same error and writing the same bytes.
func checkGuardArgs(t testing.TB, chunks []string, pending bool, lim Limits, want guardRun) {
	t.Helper()
	sc := &guardScriptConn{}
	for _, c := range chunks {
		sc.chunks = append(sc.chunks, []byte(c))
	}
	g := NewGuard(sc, lim)
	g.SetAuthPending(pending)
	var got strings.Builder
	var batch []redcon.Command
	var args [][]byte
	var err error
	for {
		var r Requests
		if r, err = g.Commands(); err != nil {
			break
		}
		batch, args = r.Args(batch[:0], args[:0])
		n := 0
		for _, cmd := range batch {
			strs := make([]string, len(cmd.Args))
			for i, a := range cmd.Args {
				strs[i] = string(a)
				if cap(a) != len(a) {
					t.Fatalf("argument %q has room to grow into its neighbour", a)
				}
			}
			c := guardCmd(strs...)
			n += len(c)
			got.WriteString(c)
		}
		if n != r.N {
			t.Fatalf("requests.n = %d, the commands take %d bytes", r.N, n)
		}
	}
	if got.String() != want.out || fmt.Sprint(err) != fmt.Sprint(want.err) || sc.written.String() != want.written {
		t.Fatalf("through Commands: %q, err %v, wrote %q; through Read: %q, err %v, wrote %q",
			got.String(), err, sc.written.String(), want.out, want.err, want.written)
	}
}

// checkGuardRun compares a run with the commands and the error text wanted
// ("" for none: the client hung up and nothing is written).
func checkGuardRun(t *testing.T, r guardRun, out, wantErr string) {
	t.Helper()
	if r.out != out {
		t.Errorf("out = %q, want %q", r.out, out)
	}
	var reply string
	switch {
	case wantErr == "":
		if r.err != io.EOF {
			t.Errorf("err = %v, want EOF", r.err)
		}
	case r.err == nil || r.err.Error() != wantErr:
		t.Errorf("err = %v, want %q", r.err, wantErr)
	case strings.HasPrefix(wantErr, "Protocol error: "):
		reply = "-ERR " + strings.NewReplacer("\r", " ", "\n", " ").Replace(wantErr) + "\r\n"
	}
	if r.written != reply {
		t.Errorf("wrote %q, want %q", r.written, reply)
	}
}

func guardSplit(s string, n int) []string {
	var chunks []string
	for len(s) > n {
		chunks = append(chunks, s[:n])
		s = s[n:]
	}
	return append(chunks, s)
}

const (
	errTextInvalidMbulk = "Protocol error: invalid multibulk length"
	errTextInvalidBulk  = "Protocol error: invalid bulk length"
)

var guardTests = []struct {
	name    string
	in      []string // what the client sends, as its reads deliver it
	pending bool     // auth pending for the whole connection
	lim     Limits
	out     string // the commands handed over
	err     string // the error that ends the connection, "" if the client hangs up
}{
	// Multibulk requests.
	{name: "ping", in: []string{"*1\r\n$4\r\nPING\r\n"}, out: guardCmd("PING")},
	{name: "pipeline", in: []string{"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\n"},
		out: guardCmd("SET", "k", "v") + guardCmd("GET", "k")},
	{name: "empty and binary bulks", in: []string{"*3\r\n$4\r\nECHO\r\n$0\r\n\r\n$6\r\n\r\n\x00\xff\r\n\r\n"},
		out: guardCmd("ECHO", "", "\r\n\x00\xff\r\n")},
	{name: "split everywhere", in: guardSplit("*2\r\n$4\r\nECHO\r\n$5\r\nhello\r\n*1\r\n$4\r\nPING\r\n", 1),
		out: guardCmd("ECHO", "hello") + guardCmd("PING")},
	{name: "bytes after CR are not checked", in: []string{"*2\rX$4\rYECHO..$2\r\nhi\n\n"}, out: guardCmd("ECHO", "hi")},
	{name: "incomplete command is not handed over", in: []string{"*2\r\n$4\r\nECHO\r\n$5\r\nhel"}},
	{name: "header needs the byte after CR", in: []string{"*1\r\n$4\r"}},
	{name: "*0 is ignored", in: []string{"*0\r\n*1\r\n$4\r\nPING\r\n"}, out: guardCmd("PING")},
	{name: "*-10 is ignored", in: []string{"*-10\r\n*1\r\n$4\r\nPING\r\n"}, out: guardCmd("PING")},
	{name: "*-9223372036854775808 is ignored", in: []string{"*-9223372036854775808\r\n*1\r\n$4\r\nPING\r\n"}, out: guardCmd("PING")},
	{name: "*INT_MAX waits for its bulks", in: []string{"*2147483647\r\n$4\r\nPING\r\n"}},
	{name: "bulk length 9223372036854775807", in: []string{"*1\r\n$9223372036854775807\r\n"}, err: errTextInvalidBulk},
	{name: "count above INT_MAX", in: []string{"*2147483648\r\n"}, err: errTextInvalidMbulk},
	{name: "count 3000000000", in: []string{"*3000000000\r\n"}, err: errTextInvalidMbulk},
	{name: "count overflows int64", in: []string{"*9223372036854775808\r\n"}, err: errTextInvalidMbulk},
	{name: "count below int64", in: []string{"*-9223372036854775809\r\n"}, err: errTextInvalidMbulk},
	{name: "count overflows uint64", in: []string{"*99999999999999999999\r\n"}, err: errTextInvalidMbulk},
	{name: "count of 21 bytes", in: []string{"*-000000000000000000001\r\n"}, err: errTextInvalidMbulk},
	{name: "count not a number", in: []string{"*abc\r\n"}, err: errTextInvalidMbulk},
	{name: "count empty", in: []string{"*\r\n"}, err: errTextInvalidMbulk},
	{name: "count with plus", in: []string{"*+1\r\n"}, err: errTextInvalidMbulk},
	{name: "count with leading zero", in: []string{"*01\r\n"}, err: errTextInvalidMbulk},
	{name: "count -0", in: []string{"*-0\r\n"}, err: errTextInvalidMbulk},
	{name: "count with space", in: []string{"* 1\r\n"}, err: errTextInvalidMbulk},
	{name: "count ends at LF only", in: []string{"*1\n$4\r\nPING\r\n"}, err: errTextInvalidMbulk},
	{name: "expected $", in: []string{"*1\r\n+PING\r\n"}, err: "Protocol error: expected '$', got '+'"},
	{name: "expected $, got LF", in: []string{"*1\r\n\n\rX"}, err: "Protocol error: expected '$', got '\n'"},
	{name: "expected $, got CR", in: []string{"*1\r\n\r\rX"}, err: "Protocol error: expected '$', got '\r'"},
	{name: "expected $, got a high byte", in: []string{"*1\r\n\xff\r\n"}, err: "Protocol error: expected '$', got '\xff'"},
	{name: "bulk length negative", in: []string{"*1\r\n$-1\r\n"}, err: errTextInvalidBulk},
	{name: "bulk length not a number", in: []string{"*1\r\n$4x\r\nPING\r\n"}, err: errTextInvalidBulk},
	{name: "bulk length with leading zero", in: []string{"*1\r\n$04\r\nPING\r\n"}, err: errTextInvalidBulk},
	{name: "bulk length 512 MiB + 1", in: []string{"*1\r\n$536870913\r\n"}, err: errTextInvalidBulk},
	{name: "bulk length 512 MiB waits", in: []string{"*1\r\n$536870912\r\nabc"}},
	{name: "bulk length above MaxBulkLen", in: []string{"*1\r\n$11\r\n"}, lim: Limits{MaxBulkLen: 10}, err: errTextInvalidBulk},
	{name: "bulk length at MaxBulkLen", in: []string{"*1\r\n$10\r\n0123456789\r\n"}, lim: Limits{MaxBulkLen: 10},
		out: guardCmd("0123456789")},
	{name: "pipeline then bad frame", in: []string{"*1\r\n$4\r\nPING\r\nPING\r\n", "*1\r\n$-1\r\n*1\r\n$4\r\nPING\r\n"},
		out: guardCmd("PING") + guardCmd("PING"), err: errTextInvalidBulk},
	{name: "bad frame after a command in progress", in: []string{"*1\r\n$4\r\nPING\r\n*2\r\n$4\r\nECHO\r\n$x\r\n"},
		out: guardCmd("PING"), err: errTextInvalidBulk},

	// Lines that never end.
	{name: "mbulk count string of 64 KiB waits", in: []string{"*" + strings.Repeat("1", protoInlineMaxSize-1)}},
	{name: "too big mbulk count string", in: []string{"*" + strings.Repeat("1", protoInlineMaxSize)}, err: "Protocol error: too big mbulk count string"},
	{name: "NUL hides the count's CR", in: []string{"*1\x00\r\n$4\r\nPING\r\n"}},
	{name: "NUL hides the count's CR until 64 KiB", in: []string{"*1\x00\r\n", strings.Repeat("x", protoInlineMaxSize)},
		err: "Protocol error: too big mbulk count string"},
	{name: "too big bulk count string", in: []string{"*1\r\n$" + strings.Repeat("1", protoInlineMaxSize)}, err: "Protocol error: too big bulk count string"},
	{name: "bulk count string limit counts from the header", in: []string{"*1\r\n$" + strings.Repeat("1", protoInlineMaxSize-1)}},
	{name: "too big bulk count string before the $ check", in: []string{"*1\r\n" + strings.Repeat("X", 70000)}, err: "Protocol error: too big bulk count string"},
	{name: "inline of 64 KiB waits", in: []string{strings.Repeat("A", protoInlineMaxSize)}},
	{name: "too big inline request", in: []string{strings.Repeat("A", protoInlineMaxSize+1)}, err: "Protocol error: too big inline request"},
	{name: "too big inline request a byte at a time", in: guardSplit(strings.Repeat("A", protoInlineMaxSize+1)+"\r\n", 1),
		err: "Protocol error: too big inline request"},
	{name: "long inline line read at once", in: []string{"ECHO " + strings.Repeat("A", 70000) + "\r\n"},
		out: guardCmd("ECHO", strings.Repeat("A", 70000))}, // its LF came in the read that passed 64 KiB
	{name: "NUL hides the inline LF", in: []string{"PING\x00\r\nPING\r\n"}},

	// Authentication.
	{name: "unauthenticated multibulk length", in: []string{"*11\r\n"}, pending: true, err: "Protocol error: unauthenticated multibulk length"},
	{name: "unauthenticated count of 10", in: []string{"*10\r\n"}, pending: true},
	{name: "unauthenticated negative count", in: []string{"*-100\r\n*1\r\n$4\r\nPING\r\n"}, pending: true, out: guardCmd("PING")},
	{name: "unauthenticated bulk length", in: []string{"*1\r\n$16385\r\n"}, pending: true, err: "Protocol error: unauthenticated bulk length"},
	{name: "unauthenticated bulk of 16384", in: []string{"*1\r\n$16384\r\n"}, pending: true},
	{name: "invalid before unauthenticated bulk length", in: []string{"*1\r\n$536870913\r\n"}, pending: true, err: errTextInvalidBulk},
	{name: "unauthenticated inline", in: []string{"ECHO " + strings.Repeat("A", 20000) + "\n"}, pending: true,
		out: guardCmd("ECHO", strings.Repeat("A", 20000))},

	// Query buffer limit.
	{name: "query buffer limit", in: []string{"*2\r\n$4\r\nECHO\r\n$200\r\n" + strings.Repeat("x", 200) + "\r\n"},
		lim: Limits{MaxQueryLen: 100}, err: errQueryBufferLimit.Error()},
	{name: "query buffer limit counts the command in progress", lim: Limits{MaxQueryLen: 100},
		in:  []string{"*1\r\n$4\r\nPING\r\n", "*2\r\n$4\r\nECHO\r\n$90\r\n", strings.Repeat("x", 90)},
		out: guardCmd("PING"), err: errQueryBufferLimit.Error()},

	// Inline requests.
	{name: "inline", in: []string{"PING\r\n"}, out: guardCmd("PING")},
	{name: "inline LF only", in: []string{"PING\nPING\n"}, out: guardCmd("PING") + guardCmd("PING")},
	{name: "inline blanks", in: []string{" \t PING \t \r\n"}, out: guardCmd("PING")},
	{name: "empty lines are ignored", in: []string{"\r\n\n  \r\nPING\r\n"}, out: guardCmd("PING")},
	{name: "inline then multibulk", in: []string{"PING\r\n*1\r\n$4\r\nPING\r\nPING\r\n"}, out: guardCmd("PING") + guardCmd("PING") + guardCmd("PING")},
	{name: "inline split", in: guardSplit("set a \"hello world\"\r\n", 1), out: guardCmd("set", "a", "hello world")},
	{name: "double quotes", in: []string{"set a \"hello world\"\r\n"}, out: guardCmd("set", "a", "hello world")},
	{name: "hex escape", in: []string{"ECHO \"\\x41\\x4a\\x4A\"\r\n"}, out: guardCmd("ECHO", "AJJ")},
	{name: "hex escape needs two digits", in: []string{"ECHO \"\\x4\" \"\\xZZ\"\r\n"}, out: guardCmd("ECHO", "x4", "xZZ")},
	{name: "escapes", in: []string{"ECHO \"\\n\\r\\t\\b\\a\\q\\\"\\\\\"\r\n"}, out: guardCmd("ECHO", "\n\r\t\b\aq\"\\")},
	{name: "no escapes outside quotes", in: []string{"ECHO \\x41\r\n"}, out: guardCmd("ECHO", "\\x41")},
	{name: "single quotes", in: []string{"ECHO 'it\\'s' 'a\\nb' '\"'\r\n"}, out: guardCmd("ECHO", "it's", "a\\nb", "\"")},
	{name: "quote inside a word", in: []string{"ECHO a\"b c\"\r\n"}, out: guardCmd("ECHO", "ab c")},
	{name: "empty quoted argument", in: []string{"ECHO \"\" ''\r\n"}, out: guardCmd("ECHO", "", "")},
	{name: "VT and FF separate only between arguments", in: []string{"\vECHO a\vb\f\r\n"}, out: guardCmd("ECHO", "a\vb\f")},
	{name: "closing quote then VT", in: []string{"ECHO \"a\"\vb\r\n"}, out: guardCmd("ECHO", "a", "b")},
	{name: "CR inside a line", in: []string{"ECHO a\rb\r\r\n"}, out: guardCmd("ECHO", "a", "b")},
	{name: "text after a closing quote", in: []string{"ECHO \"a\"b\r\n"}, err: "Protocol error: unbalanced quotes in request"},
	{name: "text after a closing single quote", in: []string{"ECHO 'a'b\r\n"}, err: "Protocol error: unbalanced quotes in request"},
	{name: "unterminated quote", in: []string{"PING\r\nECHO \"abc\r\n"}, out: guardCmd("PING"), err: "Protocol error: unbalanced quotes in request"},
	{name: "unterminated single quote", in: []string{"ECHO 'abc\r\n"}, err: "Protocol error: unbalanced quotes in request"},
	{name: "backslash before the end", in: []string{"ECHO \"abc\\\r\n"}, err: "Protocol error: unbalanced quotes in request"},
}

func TestGuardRead(t *testing.T) {
	for _, tt := range guardTests {
		t.Run(tt.name, func(t *testing.T) {
			for _, readSize := range []int{1, 7, 4096} {
				r := runGuard(t, tt.in, tt.pending, tt.lim, readSize)
				checkGuardRun(t, r, tt.out, tt.err)
			}
			// Chunking cannot change the result while no line reaches the
			// 64 KiB limit, whose check runs after every read, and the query
			// buffer limit is out of reach.
			whole := strings.Join(tt.in, "")
			if len(whole) <= protoInlineMaxSize && tt.lim.MaxQueryLen == 0 {
				checkGuardRun(t, runGuard(t, []string{whole}, tt.pending, tt.lim, 4096), tt.out, tt.err)
				checkGuardRun(t, runGuard(t, guardSplit(whole, 1), tt.pending, tt.lim, 4096), tt.out, tt.err)
			}
		})
	}
}

// While auth is pending each Read holds one command, so that the limits of
// the next one are checked after AUTH has run, as Redis does.
func TestGuardAuthPendingOneCommandPerRead(t *testing.T) {
	eleven := "*11\r\n" + strings.Repeat("$1\r\nx\r\n", 11)
	sc := &guardScriptConn{chunks: [][]byte{[]byte("PING\r\n*2\r\n$4\r\nAUTH\r\n$2\r\npw\r\n" + eleven)}}
	g := NewGuard(sc, Limits{})
	g.SetAuthPending(true)
	buf := make([]byte, 4096)
	for _, want := range []string{guardCmd("PING"), guardCmd("AUTH", "pw")} {
		if n, err := g.Read(buf); err != nil || string(buf[:n]) != want {
			t.Fatalf("Read = %q, %v; want %q", buf[:n], err, want)
		}
	}
	g.SetAuthPending(false) // AUTH succeeded
	n, err := g.Read(buf)
	if err != nil || string(buf[:n]) != guardCmd(strings.Split(strings.Repeat("x", 11), "")...) {
		t.Fatalf("Read after AUTH = %q, %v", buf[:n], err)
	}

	sc = &guardScriptConn{chunks: [][]byte{[]byte("AUTH wrong\r\n" + eleven)}}
	g = NewGuard(sc, Limits{})
	g.SetAuthPending(true)
	if n, err := g.Read(buf); err != nil || string(buf[:n]) != guardCmd("AUTH", "wrong") {
		t.Fatalf("Read = %q, %v", buf[:n], err)
	}
	if _, err := g.Read(buf); err != errUnauthMbulkLen {
		t.Fatalf("Read after a failed AUTH: err = %v, want %v", err, errUnauthMbulkLen)
	}
}

// RESET may bring the unauthenticated limits back, so the commands after
// it wait until it has run, as they do in Redis.
func TestGuardResetEndsTheBatch(t *testing.T) {
	sc := &guardScriptConn{chunks: [][]byte{[]byte("PING\r\nreset\r\n*11\r\n")}}
	g := NewGuard(sc, Limits{})
	buf := make([]byte, 4096)
	n, err := g.Read(buf)
	if want := guardCmd("PING") + guardCmd("reset"); err != nil || string(buf[:n]) != want {
		t.Fatalf("Read = %q, %v; want %q", buf[:n], err, want)
	}
	g.SetAuthPending(true)
	if _, err := g.Read(buf); err != errUnauthMbulkLen {
		t.Fatalf("Read after RESET: err = %v, want %v", err, errUnauthMbulkLen)
	}
}

// A client's length headers must not make the guard allocate: memory
// grows with the bytes that actually arrive.
func TestGuardDoesNotTrustLengths(t *testing.T) {
	for _, frame := range []string{"*2147483647\r\n$1\r\nx\r\n", "*1\r\n$536870912\r\nabc"} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		r := runGuard(t, []string{frame}, false, Limits{}, 4096)
		runtime.ReadMemStats(&after)
		if r.out != "" || r.err != io.EOF {
			t.Fatalf("%q: out %q, err %v", frame, r.out, r.err)
		}
		if grown := after.TotalAlloc - before.TotalAlloc; grown > 1<<20 {
			t.Errorf("%q: allocated %d bytes", frame, grown)
		}
	}
}

// A big command leaves no big buffer behind once it has been handed over.
func TestGuardReleasesBigBuffers(t *testing.T) {
	big := guardCmd("SET", "k", strings.Repeat("v", 1<<20))
	sc := &guardScriptConn{chunks: [][]byte{[]byte(big), []byte(guardCmd("PING"))}}
	g := NewGuard(sc, Limits{})
	buf := make([]byte, len(big))
	if n, err := io.ReadFull(g, buf); err != nil || string(buf[:n]) != big {
		t.Fatalf("ReadFull = %d, %v", n, err)
	}
	if n, err := g.Read(buf); err != nil || string(buf[:n]) != guardCmd("PING") {
		t.Fatalf("Read = %q, %v", buf[:n], err)
	}
	if cap(g.in) > keepBufCap || cap(g.out) > keepBufCap {
		t.Errorf("kept buffers of %d and %d bytes", cap(g.in), cap(g.out))
	}
}

// guardDiffFrames are sent to real Redis and to minilock behind the guard;
// the bytes that come back must be the same.
var guardDiffFrames = []string{
	"*1\r\n$9223372036854775807\r\n",
	"*2147483647\r\n",
	"*2147483648\r\n",
	"*1\r\n$536870913\r\n",
	"*1\r\n$536870912\r\nabc",
	"*0\r\n*1\r\n$4\r\nPING\r\n",
	"*-10\r\nPING\r\n",
	"*-9223372036854775808\r\n*1\r\n$4\r\nPING\r\n",
	"*-9223372036854775809\r\n",
	"*abc\r\n", "*+1\r\n", "*01\r\n", "*-0\r\n", "*\r\n", "*1\n",
	"*1\r\n+PING\r\n", "*1\r\n\n\rX", "*1\r\n\r\rX", "*1\r\n\xff\r\n",
	"*1\r\n$-1\r\n", "*1\r\n$04\r\nPING\r\n", "*1\r\n$4x\r\nPING\r\n",
	"*2\rX$4\rYECHO..$2\r\nhi\n\n",
	"*2\r\n$4\r\nECHO\r\n$6\r\n\r\n\x00\xff\r\n\r\n",
	"*1\r\n$4\r\nPING\r\nPING\r\n*1\r\n$-1\r\n*1\r\n$4\r\nPING\r\n",
	"*1\r\n$4\r\nPING\r\n*abc\r\n",
	"PING\r\n*1\r\nX\r\n",
	"*" + strings.Repeat("1", protoInlineMaxSize),
	"*" + strings.Repeat("1", protoInlineMaxSize-1),
	"*1\x00\r\n" + strings.Repeat("x", protoInlineMaxSize),
	"*1\x00\r\n$4\r\nPING\r\n",
	"*1\r\n$" + strings.Repeat("1", protoInlineMaxSize),
	"*1\r\n" + strings.Repeat("X", 70000),
	strings.Repeat("A", protoInlineMaxSize+1),
	"PING\x00\r\nPING\r\n",
	"PING\r\n", "PING\n", " \t PING \t \r\n", "\r\n\n  \r\nPING\r\n",
	"ECHO \"hello world\"\r\n",
	"ECHO \"\\x41\\x4a\\x4A\"\r\n", "ECHO \"\\x4\"\r\n", "ECHO \"\\xZZ\"\r\n",
	"ECHO \"\\n\\r\\t\\b\\a\\q\\\"\\\\\"\r\n", "ECHO \\x41\r\n",
	"ECHO 'it\\'s'\r\n", "ECHO 'a\\nb'\r\n", "ECHO a\"b c\"\r\n", "ECHO \"\"\r\n", "ECHO '' x\r\n",
	"\vECHO a\vb\f\r\n", "ECHO \"a\"\vb\r\n", "ECHO a\rb\r\r\n", "ECHO a\r\r\n",
	"ECHO \"a\"b\r\n", "ECHO 'a'b\r\n", "PING\r\nECHO \"abc\r\n", "ECHO 'abc\r\n", "ECHO \"abc\\\r\n",
	"ECHO " + strings.Repeat("A", 70000) + "\r\n",
}

// guardDiffAuthFrames are sent while a password is set and not given.
var guardDiffAuthFrames = []string{
	"*11\r\n",
	"*10\r\n",
	"*-100\r\n*1\r\n$4\r\nPING\r\n",
	"*1\r\n$16385\r\n",
	"*1\r\n$16384\r\n",
	"*1\r\n$536870913\r\n",
	"ECHO " + strings.Repeat("A", 20000) + "\r\n",
	"AUTH secret\r\n*11\r\n",
	"*2\r\n$4\r\nAUTH\r\n$6\r\nsecret\r\n*2\r\n$4\r\nECHO\r\n$16385\r\n" + strings.Repeat("a", 16385) + "\r\n",
	"AUTH wrong\r\n*11\r\n",
	"AUTH wrong\r\n*2\r\n$4\r\nECHO\r\n$16385\r\n",
	"PING\r\nAUTH secret\r\nPING\r\n",
}

// benchGuard measures the guard alone: conn serves stream over and over,
// and the reader takes readSize bytes at a time.
func benchGuard(b *testing.B, stream []byte, readSize int) {
	conn := &guardLoopConn{stream: stream}
	g := NewGuard(conn, Limits{})
	buf := make([]byte, readSize)
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		for conn.loops == 0 || conn.pos != 0 || g.outR != g.outDone {
			if _, err := g.Read(buf); err != nil {
				b.Fatal(err)
			}
		}
		conn.loops = 0
	}
}

// guardLoopConn is a client that sends stream forever, a socket's worth per Read.
type guardLoopConn struct {
	net.Conn
	stream []byte
	pos    int
	loops  int
}

func (c *guardLoopConn) Read(p []byte) (int, error) {
	n := copy(p, c.stream[c.pos:])
	if c.pos += n; c.pos == len(c.stream) {
		c.pos = 0
		c.loops++
	}
	return n, nil
}

func BenchmarkGuard(b *testing.B) {
	var multibulk, inline []byte
	for i := range 1000 {
		k, v := fmt.Sprintf("key:%d", i), fmt.Sprintf("value-%d", i)
		multibulk = append(multibulk, guardCmd("SET", k, v)+guardCmd("GET", k)...)
		inline = append(inline, "SET "+k+" "+v+"\r\nGET "+k+"\r\n"...)
	}
	big := []byte(guardCmd("SET", "k", strings.Repeat("v", 1<<20)))
	b.Run("multibulk", func(b *testing.B) { benchGuard(b, multibulk, 4096) })
	b.Run("multibulk-64K-reads", func(b *testing.B) { benchGuard(b, multibulk, 64<<10) })
	b.Run("inline", func(b *testing.B) { benchGuard(b, inline, 4096) })
	b.Run("1MiB-value", func(b *testing.B) { benchGuard(b, big, 64<<10) })
}
