package diff_test

import (
	"bytes"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/minilock/minilock/internal/redistest"
	"github.com/minilock/minilock/server"
)

// diffBusy is the busy-reply-threshold of TestDiffWhileBusy's servers.
const diffBusy = 100 * time.Millisecond

// TestDiffWhileBusy runs a script that never ends and, while it holds the
// server past busy-reply-threshold, sends another connection's pipeline of
// the commands whose answer then has rules of its own (processCommand's
// BUSY check and the ALLOW_BUSY commands): SHUTDOWN ABORT answers that no
// shutdown is in progress, SHUTDOWN without NOSAVE gets BUSY, DEBUG is
// refused as disabled before BUSY is considered; a client with CLIENT
// REPLY OFF is sent none of its BUSY errors. Then SCRIPT KILL ends the
// script. Both edges, byte for byte with redis-server.
func TestDiffWhileBusy(t *testing.T) {
	redistest.Require(t)
	rs := redistest.Start(t, "--busy-reply-threshold", fmt.Sprint(diffBusy.Milliseconds()))
	addrs := []string{rs.Addr}
	for _, loop := range []bool{true, false} {
		ms, err := server.Start(server.Config{BusyThreshold: diffBusy, EventLoop: loop})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ms.Close() })
		addrs = append(addrs, ms.Addr())
	}
	var batch []byte
	for _, c := range [][]string{
		{"SHUTDOWN", "ABORT"}, {"SHUTDOWN", "ABORT", "NOSAVE"}, {"SHUTDOWN"}, {"SHUTDOWN", "SAVE"},
		{"SHUTDOWN", "SAVE", "NOSAVE"}, {"DEBUG", "SLEEP", "0"}, {"DEBUG"}, {"PING"}, {"GET", "k"},
	} {
		batch = append(batch, redistest.Encode(c...)...)
	}
	const replies = 9
	var want []byte
	for i, addr := range addrs {
		// quiet has replies off: the BUSY errors it gets are dropped too.
		// Its (UN)SUBSCRIBE frames, sent anyway, tell when OFF is in force.
		quiet := redistest.Dial(t, addr)
		quiet.MustSend(slices.Concat(redistest.Encode("CLIENT", "REPLY", "OFF"), redistest.Encode("SUBSCRIBE", "x"), redistest.Encode("UNSUBSCRIBE", "x")))
		quiet.MustReply()
		quiet.MustReply()
		script := redistest.Dial(t, addr)
		script.MustSend(redistest.Encode("EVAL", "while true do end", "0"))
		other := redistest.Dial(t, addr)
		busy := false
		for deadline := time.Now().Add(10 * time.Second); !busy && time.Now().Before(deadline); {
			r := other.MustDo("PING")
			busy = bytes.HasPrefix([]byte(r), []byte("-BUSY"))
			if !busy {
				time.Sleep(10 * time.Millisecond)
			}
		}
		if !busy {
			t.Fatalf("%s: the script is not reported busy", addr)
		}
		quiet.MustSend(slices.Concat(redistest.Encode("PING"), redistest.Encode("GET", "k")))
		other.MustSend(batch)
		var got []byte
		for range replies {
			got = append(got, other.MustReply()...)
		}
		if r := other.MustDo("SCRIPT", "KILL"); r != "+OK\r\n" {
			t.Fatalf("%s: SCRIPT KILL: %q", addr, r)
		}
		got = append(got, script.MustReply()...)
		quiet.MustSend(slices.Concat(redistest.Encode("CLIENT", "REPLY", "ON"), redistest.Encode("PING")))
		got = append(got, quiet.MustReply()...)
		got = append(got, quiet.MustReply()...)
		if i == 0 {
			want = got
			continue
		}
		if !slices.Equal(got, want) {
			t.Errorf("server %d differs\n   redis:    %q\n   minilock: %q", i, want, got)
		}
	}
}
