package main

import (
	"strings"
	"testing"
	"time"

	"github.com/minilock/minilock/internal/redistest"
	"github.com/minilock/minilock/server"
)

// TestBusyThresholdFlags: --busy-reply-threshold and its alias
// --lua-time-limit (milliseconds, as in redis.conf) become the server's
// BusyThreshold, and a looping script makes other clients get -BUSY once it
// has run that long.
func TestBusyThresholdFlags(t *testing.T) {
	for _, flag := range []string{"--busy-reply-threshold", "--lua-time-limit"} {
		t.Run(flag, func(t *testing.T) {
			o := defaults()
			file, text := argsToConfig([]string{flag, "150"})
			if file != "" {
				t.Fatalf("config file %q", file)
			}
			if err := o.parseConfig(strings.NewReader(text)); err != nil {
				t.Fatal(err)
			}
			if o.server.BusyThreshold != 150*time.Millisecond {
				t.Fatalf("BusyThreshold = %v", o.server.BusyThreshold)
			}
			s, err := server.Start(o.server)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			runner := redistest.Dial(t, s.Addr())
			start := time.Now()
			if err := runner.Send(redistest.Encode("EVAL", "while true do end", "0")); err != nil {
				t.Fatal(err)
			}
			// PONG until the script has started; then the PING waits
			// for the threshold and gets BUSY.
			other := redistest.Dial(t, s.Addr())
			got, err := other.Do("PING")
			for err == nil && string(got) == "+PONG\r\n" && time.Since(start) < 2*time.Second {
				got, err = other.Do("PING")
			}
			took := time.Since(start)
			if err != nil || string(got) != "-BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.\r\n" {
				t.Fatalf("PING = %q, %v", got, err)
			}
			if took < 150*time.Millisecond || took > 2*time.Second {
				t.Errorf("BUSY after %v, want 150 ms", took)
			}
			if got, err := other.Do("SCRIPT", "KILL"); err != nil || string(got) != "+OK\r\n" {
				t.Fatalf("SCRIPT KILL = %q, %v", got, err)
			}
			if got, err := runner.ReadReply(); err != nil || !strings.HasPrefix(string(got), "-ERR Script killed by user with SCRIPT KILL...") {
				t.Fatalf("EVAL = %q, %v", got, err)
			}
		})
	}
}
