package keyspace

import (
	"testing"
	"time"

	"github.com/minilock/minilock/expiry"
)

// Peek reads a key without changing anything: a key past its deadline is
// reported gone but not removed (no lazy expiry, no expired count), and the
// value is clipped to the limit.
func TestPeek(t *testing.T) {
	clock := expiry.NewManual(time.Unix(1_700_000_000, 0))
	k := New(Config{Clock: clock})
	k.SetValue(0, "lock", "token-abcdef", 10*time.Second)
	now := k.Now()
	val, str, ok, deadline := k.Peek(0, "lock", now, 5)
	if val != "token" || !str || !ok || deadline != now+10_000 {
		t.Fatalf("Peek = %q %v %v %d", val, str, ok, deadline)
	}
	if _, _, ok, _ := k.Peek(0, "lock", now+10_001, 100); ok {
		t.Error("Peek past the deadline found the key")
	}
	if k.stats.Expired != 0 || k.dbs[0].size() != 1 {
		t.Errorf("Peek expired the key: expired %d, size %d", k.stats.Expired, k.dbs[0].size())
	}
	if _, _, ok, _ := k.Peek(0, "nope", now, 100); ok {
		t.Error("Peek found a missing key")
	}
}
