package server

import (
	"bytes"
	"net"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"

	"github.com/minilock/minilock/internal/redistest"
)

// A pattern subscriber that never reads is dropped when what waits for it
// passes the pubsub hard limit, counted in bytes as Redis counts them, and
// what the server holds meanwhile is about those bytes: the issue's
// example (1,000,000 small PUBLISHes) held +211 MB of RSS before the drop,
// Redis +70.
func TestSlowPatternSubscriberDroppedAtTheLimit(t *testing.T) {
	s := RunT(t)
	slow, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	slow.(*net.TCPConn).SetReadBuffer(4096)
	if _, err := slow.Write(redistest.Encode("PSUBSCRIBE", "ch*")); err != nil {
		t.Fatal(err)
	}
	pub := redistest.Dial(t, s.Addr())
	waitFor(t, func() bool { return pub.MustDo("PUBSUB", "NUMPAT") == ":1\r\n" })
	// slow reads nothing from here on.

	msg := strings.Repeat("x", 32)
	frame := len("*4\r\n$8\r\npmessage\r\n$3\r\nch*\r\n$4\r\nch:1\r\n$32\r\n" + msg + "\r\n")
	batch := bytes.Repeat(redistest.Encode("PUBLISH", "ch:1", msg), 1000)
	runtime.GC()
	base, peak := heapObjects(), uint64(0)
	published := 0
	for ; published < 1000000; published += 1000 {
		pub.MustSend(batch)
		for range 1000 {
			pub.MustReply()
		}
		peak = max(peak, heapObjects())
		if pub.MustDo("PUBSUB", "NUMPAT") == ":0\r\n" {
			break
		}
	}
	queued := published * frame
	// The kernel takes some of the messages first (its socket buffers,
	// a few MB at most on loopback).
	if queued < pubsubHardLimit || queued > pubsubHardLimit+16<<20 {
		t.Fatalf("dropped after %d messages (%d MB of frames), want at the %d MB limit", published, queued>>20, pubsubHardLimit>>20)
	}
	// Twice the limit leaves room for the publisher's own garbage (the
	// race detector's runs reach +48 MB); one growing buffer reached +99.
	if grew := int64(peak) - int64(base); grew > 2*pubsubHardLimit {
		t.Errorf("the heap grew by %d MB on the way to a %d MB limit", grew>>20, pubsubHardLimit>>20)
	}
	t.Logf("dropped after %d messages; heap +%d MB at most", published, (int64(peak)-int64(base))>>20)
}

// heapObjects is the bytes of heap objects, reachable or not yet swept.
func heapObjects() uint64 {
	m := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(m)
	return m[0].Value.Uint64()
}
