package server

import (
	"strings"
	"testing"
	"time"

	"github.com/minilock/minilock/internal/redistest"
	"github.com/minilock/minilock/keyspace"
)

// The notifications' wiring; e2e/diff compares the frames with
// redis-server's and keyspace/notify_diff_test.go every command's events.

func TestNotifyConfigField(t *testing.T) {
	if _, err := Start(Config{NotifyKeyspaceEvents: "KEAX"}); err == nil || !strings.Contains(err.Error(), "Invalid event class character") {
		t.Fatalf("Start with a bad notify-keyspace-events: %v", err)
	}
	s := RunT(t, Config{NotifyKeyspaceEvents: "Kx$E"})
	c := redistest.Dial(t, s.Addr())
	if got, want := c.MustDo("CONFIG", "GET", "notify-keyspace-events"), "*2\r\n$22\r\nnotify-keyspace-events\r\n$4\r\n$xKE\r\n"; got != want {
		t.Fatalf("CONFIG GET: %q, want %q", got, want)
	}
}

// TestNotifyExpiredOnTime: on a manual clock, the subscriber has the
// expired message as soon as FastForward returns, the moment the owner
// removes the key.
func TestNotifyExpiredOnTime(t *testing.T) {
	cfg := Manual()
	cfg.NotifyKeyspaceEvents = "Ex"
	s := RunT(t, cfg)
	sub := redistest.Dial(t, s.Addr())
	sub.MustDo("SUBSCRIBE", "__keyevent@0__:expired")
	c := redistest.Dial(t, s.Addr())
	c.MustDo("SET", "lock", "token", "PX", "30000")
	s.FastForward(29999 * time.Millisecond)
	sub.Timeout = 50 * time.Millisecond
	if b, err := sub.ReadReply(); err == nil {
		t.Fatalf("a message before the deadline: %q", b)
	}
	s.FastForward(2 * time.Millisecond)
	sub.Timeout = time.Second
	want := "*3\r\n$7\r\nmessage\r\n$22\r\n__keyevent@0__:expired\r\n$4\r\nlock\r\n"
	if got := sub.MustReply(); got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// TestNotifyNoSubscriberNoAlloc: notifications on but nobody subscribed,
// an event costs no allocation.
func TestNotifyNoSubscriberNoAlloc(t *testing.T) {
	s := RunT(t, Config{NotifyKeyspaceEvents: "KEA"})
	key := []byte("lock")
	var allocs float64
	s.owner.Do(func() {
		s.notifyEvent(0, "set", key, keyspace.NotifyString) // grows the buffers once
		allocs = testing.AllocsPerRun(100, func() { s.notifyEvent(0, "set", key, keyspace.NotifyString) })
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per event", allocs)
	}
}

// TestNotifyTap: a test reads a lock's notifications through Tap, with
// no subscriber connection; the embedding API's writes notify as the
// commands they stand for.
func TestNotifyTap(t *testing.T) {
	cfg := Manual()
	cfg.NotifyKeyspaceEvents = "KEA"
	s := RunT(t, cfg)
	tap := s.Tap("__key*@0__:*")
	s.SetTTL("lock", "me", time.Second)
	s.FastForward(2 * time.Second)
	var got []string
	for _, m := range tap.Messages() {
		got = append(got, m.Channel+" "+m.Payload)
	}
	want := []string{
		"__keyspace@0__:lock set", "__keyevent@0__:set lock",
		"__keyspace@0__:lock expire", "__keyevent@0__:expire lock",
		"__keyspace@0__:lock expired", "__keyevent@0__:expired lock",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("tapped\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
