package redistest

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"runtime"
	"testing"
	"time"
)

// recorder is a testing.TB that records Fatal and Skip instead of acting on
// the real test, so Require's two outcomes can both be checked.
type recorder struct {
	testing.TB
	fatal, skip string
}

func (r *recorder) Helper() {}
func (r *recorder) Fatal(args ...any) {
	r.fatal = fmt.Sprint(args...)
	runtime.Goexit()
}
func (r *recorder) Skip(args ...any) {
	r.skip = fmt.Sprint(args...)
	runtime.Goexit()
}

// runRequire calls Require on a recorder in its own goroutine, because
// Fatal and Skip end the goroutine that calls them.
func runRequire(t *testing.T) *recorder {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Require(r)
	}()
	<-done
	return r
}

func TestRequireWithoutBinary(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	t.Setenv("CI", "")
	if r := runRequire(t); r.skip == "" || r.fatal != "" {
		t.Errorf("outside CI: skip %q, fatal %q; want a skip", r.skip, r.fatal)
	}
	t.Setenv("CI", "true")
	if r := runRequire(t); r.fatal == "" || r.skip != "" {
		t.Errorf("CI=true: skip %q, fatal %q; want a failure", r.skip, r.fatal)
	}
}

func TestStart(t *testing.T) {
	s := Start(t)
	c := Dial(t, s.Addr)
	got, err := c.Do("PING")
	if err != nil || string(got) != "+PONG\r\n" {
		t.Fatalf("PING = %q, %v", got, err)
	}
}

func TestStartWithPassword(t *testing.T) {
	s := Start(t, "--requirepass", "pw")
	c := Dial(t, s.Addr)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"PING"}, "-NOAUTH Authentication required.\r\n"},
		{[]string{"AUTH", "pw"}, "+OK\r\n"},
		{[]string{"PING"}, "+PONG\r\n"},
	} {
		got, err := c.Do(tc.args...)
		if err != nil || string(got) != tc.want {
			t.Errorf("%q = %q, %v; want %q", tc.args, got, err, tc.want)
		}
	}
}

func TestReadUntilEOFAfterProtocolError(t *testing.T) {
	s := Start(t)
	c := Dial(t, s.Addr)
	if err := c.Send([]byte("*x\r\n")); err != nil {
		t.Fatal(err)
	}
	got, err := c.ReadUntilEOF()
	want := "-ERR Protocol error: invalid multibulk length\r\n"
	if err != nil || string(got) != want {
		t.Fatalf("got %q, %v; want %q and EOF", got, err, want)
	}
	if !c.Closed() {
		t.Error("Closed() = false after EOF")
	}
}

// fakeServer accepts one connection and writes chunks to it with pauses,
// so replies arrive split at awkward places; then it closes.
func fakeServer(t *testing.T, chunks ...string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		for _, ch := range chunks {
			conn.Write([]byte(ch))
			time.Sleep(5 * time.Millisecond)
		}
	}()
	return ln.Addr().String()
}

func TestReadReplySplitsExactly(t *testing.T) {
	replies := []string{
		"+OK\r\n",
		"*3\r\n$1\r\na\r\n*2\r\n:1\r\n_\r\n%1\r\n+k\r\n$-1\r\n",
		"$5\r\nhe\r\nl\r\n",
		"-ERR x\r\n",
		"*-1\r\n",
	}
	all := ""
	for _, r := range replies {
		all += r
	}
	// Split the stream at every third byte.
	var chunks []string
	for i := 0; i < len(all); i += 3 {
		chunks = append(chunks, all[i:min(i+3, len(all))])
	}
	c := Dial(t, fakeServer(t, chunks...))
	for i, want := range replies {
		got, err := c.ReadReply()
		if err != nil || string(got) != want {
			t.Fatalf("reply %d = %q, %v; want %q", i, got, err, want)
		}
	}
	if _, err := c.ReadReply(); !errors.Is(err, ErrClosed) {
		t.Errorf("after the last reply: %v, want ErrClosed", err)
	}
}

func TestReadReplyIncompleteThenClosed(t *testing.T) {
	c := Dial(t, fakeServer(t, "*2\r\n:1\r\n"))
	got, err := c.ReadReply()
	if !errors.Is(err, ErrClosed) || string(got) != "*2\r\n:1\r\n" {
		t.Errorf("got %q, %v; want the partial reply and ErrClosed", got, err)
	}
}

func TestReadReplyTimeout(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		if conn, err := ln.Accept(); err == nil {
			conn.Write([]byte("+PAR"))
			time.Sleep(time.Second)
			conn.Close()
		}
	}()
	c := Dial(t, ln.Addr().String())
	c.Timeout = 50 * time.Millisecond
	got, err := c.ReadReply()
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() || string(got) != "+PAR" {
		t.Errorf("got %q, %v; want the partial reply and a timeout", got, err)
	}
}

func TestEncode(t *testing.T) {
	got := Encode("SET", "k", "", "a\r\nb")
	want := []byte("*4\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\n$4\r\na\r\nb\r\n")
	if !bytes.Equal(got, want) {
		t.Errorf("Encode = %q, want %q", got, want)
	}
}
