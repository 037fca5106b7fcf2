package server

import (
	"net"
	"strings"
	"testing"
	"time"

	"github.com/minilock/minilock/internal/redistest"
)

// fakeTarget accepts one connection, waits delay, then answers each of
// replies as a line (nothing at all when replies is nil).
func fakeTarget(t *testing.T, delay time.Duration, replies []string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		go func() { // drain what MIGRATE sends
			buf := make([]byte, 4096)
			for {
				if _, err := c.Read(buf); err != nil {
					return
				}
			}
		}()
		time.Sleep(delay)
		if replies == nil {
			time.Sleep(time.Minute)
			return
		}
		c.Write([]byte(strings.Join(replies, "\r\n") + "\r\n"))
		time.Sleep(time.Second)
	}()
	return ln.Addr().String()
}

// MIGRATE waits on the network off the owner: other clients are served
// meanwhile, and a target that never answers costs the caller its
// timeout and Redis's IOERR.
func TestMigrateDoesNotBlockOthers(t *testing.T) {
	s := RunT(t)
	a, b := redistest.Dial(t, s.Addr()), redistest.Dial(t, s.Addr())
	a.MustDo("SET", "k", "v")
	host, port, _ := strings.Cut(fakeTarget(t, 0, nil), ":")
	start := time.Now()
	a.MustSend(redistest.Encode("MIGRATE", host, port, "k", "0", "1500"))
	time.Sleep(100 * time.Millisecond)
	if got := b.MustDo("PING"); got != "+PONG\r\n" || time.Since(start) > time.Second {
		t.Fatalf("PING during MIGRATE = %q after %v", got, time.Since(start))
	}
	if got := b.MustDo("INFO", "clients"); !strings.Contains(got, "blocked_clients:0\r\n") {
		t.Errorf("INFO clients during MIGRATE counts it blocked: %q", got)
	}
	if got := a.MustReply(); got != "-IOERR error or timeout reading to target instance\r\n" {
		t.Fatalf("MIGRATE = %q", got)
	}
	if d := time.Since(start); d < 1400*time.Millisecond {
		t.Errorf("MIGRATE gave up after %v, before its timeout", d)
	}
	if got := a.MustDo("GET", "k"); got != "$1\r\nv\r\n" {
		t.Errorf("the key after a failed MIGRATE: %q", got)
	}
}

// A key written while its transfer ran is newer than the copy sent: it
// stays. One that did not change leaves.
func TestMigrateKeepsKeysChangedMeanwhile(t *testing.T) {
	s := RunT(t)
	a, b := redistest.Dial(t, s.Addr()), redistest.Dial(t, s.Addr())
	a.MustDo("SET", "changed", "old")
	a.MustDo("SET", "same", "v")
	host, port, _ := strings.Cut(fakeTarget(t, 300*time.Millisecond, []string{"+OK", "+OK", "+OK"}), ":")
	a.MustSend(redistest.Encode("MIGRATE", host, port, "", "0", "5000", "KEYS", "changed", "same"))
	time.Sleep(50 * time.Millisecond)
	b.MustDo("SET", "changed", "new")
	if got := a.MustReply(); got != "+OK\r\n" {
		t.Fatalf("MIGRATE = %q", got)
	}
	if got := a.MustDo("GET", "changed"); got != "$3\r\nnew\r\n" {
		t.Errorf("the key written during the transfer: %q", got)
	}
	if got := a.MustDo("EXISTS", "same"); got != ":0\r\n" {
		t.Errorf("the key sent unchanged is still here: %q", got)
	}
}

// Between two minilocks: AUTH, COPY, REPLACE, the target's errors.
func TestMigrateBetweenMinilocks(t *testing.T) {
	src := RunT(t)
	dst := RunT(t, Config{Password: "pw"})
	a := redistest.Dial(t, src.Addr())
	d := redistest.Dial(t, dst.Addr())
	d.MustDo("AUTH", "pw")
	host, port, _ := strings.Cut(dst.Addr(), ":")
	for _, c := range [][]string{{"SET", "s", "v", "PX", "100000"}, {"RPUSH", "l", "a", "b"}, {"HSET", "h", "f", "v"}, {"SET", "dup", "1"}} {
		a.MustDo(c...)
	}
	d.MustDo("SET", "dup", "2")
	for _, tt := range []struct{ args, want string }{
		{"MIGRATE " + host + " " + port + " s 0 1000", "-ERR Target instance replied with error: NOAUTH Authentication required.\r\n"},
		{"MIGRATE " + host + " " + port + " s 0 1000 AUTH bad", "-ERR Target instance replied with error: WRONGPASS invalid username-password pair or user is disabled.\r\n"},
		{"MIGRATE " + host + " " + port + " s 0 1000 AUTH pw", "+OK\r\n"},
		{"MIGRATE " + host + " " + port + "  0 1000 AUTH2 default pw COPY KEYS l h", "+OK\r\n"},
		{"MIGRATE " + host + " " + port + " dup 0 1000 AUTH pw", "-ERR Target instance replied with error: BUSYKEY Target key name already exists.\r\n"},
		{"MIGRATE " + host + " " + port + " dup 0 1000 AUTH pw REPLACE", "+OK\r\n"},
	} {
		args := strings.Split(tt.args, " ")
		if got := a.MustDo(args...); got != tt.want {
			t.Errorf("%s = %q, want %q", tt.args, got, tt.want)
		}
	}
	for key, want := range map[string]string{"s": ":0\r\n", "l": ":1\r\n", "h": ":1\r\n", "dup": ":0\r\n"} {
		if got := a.MustDo("EXISTS", key); got != want {
			t.Errorf("EXISTS %s at the source = %q, want %q", key, got, want)
		}
	}
	if got := d.MustDo("LRANGE", "l", "0", "-1"); got != "*2\r\n$1\r\na\r\n$1\r\nb\r\n" {
		t.Errorf("LRANGE l at the target = %q", got)
	}
	if got := d.MustDo("GET", "dup"); got != "$1\r\n1\r\n" {
		t.Errorf("GET dup at the target = %q", got)
	}
	if got := d.MustDo("PTTL", "s"); !strings.HasPrefix(got, ":9") {
		t.Errorf("PTTL s at the target = %q, want its TTL carried", got)
	}
}
