package main

import (
	"fmt"
	"io"
	"log/slog"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/minilock/minilock/internal/redistest"
	"github.com/minilock/minilock/server"
)

func TestArgsToConfig(t *testing.T) {
	tests := []struct {
		args     []string
		file     string
		wantText string
	}{
		{nil, "", ""},
		{[]string{"--port", "7000"}, "", `port "7000"`},
		{[]string{"/etc/redis.conf", "--bind", "127.0.0.1", "::1", "--requirepass", "a b"}, "/etc/redis.conf",
			"bind \"127.0.0.1\" \"::1\"\nrequirepass \"a b\""},
	}
	for _, tt := range tests {
		file, text := argsToConfig(tt.args)
		if file != tt.file || text != tt.wantText {
			t.Errorf("argsToConfig(%q) = %q, %q; want %q, %q", tt.args, file, text, tt.file, tt.wantText)
		}
	}
}

func TestParseConfig(t *testing.T) {
	text := `# a redis.conf
port 7001
bind 0.0.0.0 -::1
requirepass "s3 cret"
databases 4
maxclients 50
timeout 30
lua-time-limit 200
loglevel warning
event-loop epoll
save ""
appendonly no
`
	o := defaults()
	if err := o.parseConfig(strings.NewReader(text)); err != nil {
		t.Fatal(err)
	}
	if o.port != 7001 || o.server.Password != "s3 cret" || o.server.Databases != 4 ||
		o.server.MaxClients != 50 || o.server.IdleTimeout != 30*time.Second ||
		o.server.BusyThreshold != 200*time.Millisecond || o.logLevel != slog.LevelWarn || !o.server.EventLoop {
		t.Fatalf("parsed %+v", o)
	}
	if want := []string{"0.0.0.0:7001", "-[::1]:7001"}; !slices.Equal(o.addrs(), want) {
		t.Fatalf("addrs %q, want %q", o.addrs(), want)
	}
}

func TestParseConfigErrors(t *testing.T) {
	for _, bad := range []string{
		"port",
		"port 70000",
		"port x",
		"databases 0",
		"maxclients 0",
		"loglevel loud",
		"bind",
		"event-loop kqueue",
		"doctor maybe",
		"doctor yes no",
		"no-such-directive 1",
		`requirepass "unterminated`,
		"hz abc",
		"maxmemory-policy sometimes",
		"hash-max-ziplist-entries -1x",
	} {
		o := defaults()
		if err := o.parseConfig(strings.NewReader(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// --doctor alone, "doctor yes" and "doctor no": the lock doctor.
func TestDoctorDirective(t *testing.T) {
	for text, on := range map[string]bool{"": false, "doctor": true, "doctor yes": true, "doctor YES\ndoctor no": false} {
		o := defaults()
		if err := o.parseConfig(strings.NewReader(text)); err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		if got := o.server.Doctor != nil; got != on {
			t.Errorf("%q: doctor on = %v, want %v", text, got, on)
		}
	}
	if _, text := argsToConfig([]string{"--doctor", "--port", "0"}); text != "doctor\nport \"0\"" {
		t.Errorf("--doctor --port 0 gives %q", text)
	}
}

// Any parameter CONFIG GET knows may be set in a config file, aliases
// included; it is applied when the server starts, a later line winning,
// and CONFIG GET shows it.
func TestConfigFileParams(t *testing.T) {
	text := `port 0
hash-max-ziplist-entries 64
hz 10
hz 20
maxmemory 100mb
client-output-buffer-limit pubsub 1mb 512kb 10
tcp-keepalive 60
proto-max-bulk-len 1mb
`
	o := defaults()
	if err := o.parseConfig(strings.NewReader(text)); err != nil {
		t.Fatal(err)
	}
	cfg := o.server
	cfg.Addrs = []string{"127.0.0.1:0"}
	s := server.RunT(t, cfg)
	c := redistest.Dial(t, s.Addr())
	for param, want := range map[string]string{
		"hash-max-listpack-entries":  "64",
		"hz":                         "20",
		"maxmemory":                  "104857600",
		"client-output-buffer-limit": "normal 0 0 0 slave 268435456 67108864 60 pubsub 1048576 524288 10",
		"tcp-keepalive":              "60",
		"proto-max-bulk-len":         "1048576",
	} {
		got, err := c.Do("CONFIG", "GET", param)
		w := fmt.Sprintf("*2\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n", len(param), param, len(want), want)
		if err != nil || string(got) != w {
			t.Errorf("CONFIG GET %s: %q, want %q", param, got, w)
		}
	}
	// proto-max-bulk-len is the guard's limit, not only a value shown. Only
	// the header is sent: the server answers and closes at once, and 2 MiB
	// still being written would reset the connection before the reply.
	raw, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	raw.Write([]byte("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$2097152\r\n"))
	raw.SetReadDeadline(time.Now().Add(5 * time.Second))
	got, _ := io.ReadAll(raw)
	if want := "-ERR Protocol error: invalid bulk length\r\n"; string(got) != want {
		t.Errorf("a 2 MiB bulk under proto-max-bulk-len 1mb: %q, want %q", got, want)
	}
}

// FuzzParseConfig: any config text either parses or fails with an error;
// what parses holds only directives the server accepts.
func FuzzParseConfig(f *testing.F) {
	for _, seed := range []string{
		"port 7001\nbind 0.0.0.0 -::1\n",
		`requirepass "s3 cret"` + "\nhz 10\nhz 20\n",
		"client-output-buffer-limit pubsub 1mb 512kb 10\n",
		"maxmemory 100mb\nmaxmemory-policy allkeys-lru\n",
		`save ""` + "\n'unbalanced\n",
		"hash-max-ziplist-entries 64\nnotify-keyspace-events KEA\n",
		"loglevel warning\n# comment\n\n  timeout   30  \n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		o := defaults()
		if err := o.parseConfig(strings.NewReader(text)); err != nil {
			return
		}
		for _, p := range o.server.Params {
			if err := server.CheckParam(p[0], p[1]); err != nil {
				t.Fatalf("parsed %q %q, which the server refuses: %v", p[0], p[1], err)
			}
		}
	})
}
