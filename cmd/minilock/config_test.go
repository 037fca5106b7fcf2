package main

import (
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"
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
save ""
appendonly no
`
	o := defaults()
	if err := o.parseConfig(strings.NewReader(text)); err != nil {
		t.Fatal(err)
	}
	if o.port != 7001 || o.server.Password != "s3 cret" || o.server.Databases != 4 ||
		o.server.MaxClients != 50 || o.server.IdleTimeout != 30*time.Second ||
		o.server.BusyThreshold != 200*time.Millisecond || o.logLevel != slog.LevelWarn {
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
		"no-such-directive 1",
		`requirepass "unterminated`,
	} {
		o := defaults()
		if err := o.parseConfig(strings.NewReader(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
