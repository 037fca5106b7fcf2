package keyspace

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/minilock/minilock/resp"
)

func TestKeyCommands(t *testing.T) {
	runKSCases(t, []ksCase{
		{"del counts a key once", []ksStep{do("MSET a 1 b 2", ok), do("DEL a a b c", num(2)), do("DEL a", num(0))}},
		{"exists counts every mention", []ksStep{do("SET a 1", ok), do("EXISTS a a b", num(2)), do("TOUCH a a b", num(2))}},
		{"type", []ksStep{do("SET a 1", ok), do("TYPE a", "+string\r\n"), do("TYPE b", "+none\r\n")}},
		{"expired keys are gone", []ksStep{do("SET a 1 PX 10", ok), do("SET b 1", ok), wait(11 * time.Millisecond),
			do("EXISTS a", num(0)), do("DEL a", num(0)), do("TYPE a", "+none\r\n"), do("KEYS *", "*1\r\n"+bulk("b"))}},
		{"keys", []ksStep{do("MSET ab 1 ac 2 b 3", ok), do("KEYS b", "*1\r\n"+bulk("b")), do("KEYS a[^c]", "*1\r\n"+bulk("ab")),
			do("KEYS x*", "*0\r\n")}},
		{"keys star includes the empty key", []ksStep{doArgs(ok, "SET", "", "v"), do("KEYS *", "*1\r\n"+bulk("")),
			do("KEYS **", "*0\r\n"), doArgs("*1\r\n"+bulk(""), "KEYS", "")}},
		{"databases are separate", []ksStep{do("SET a 1", ok), do("DBSIZE", num(1)), do("FLUSHDB", ok), do("DBSIZE", num(0))}},
		{"flush options", []ksStep{do("FLUSHDB ASYNC", ok), do("FLUSHALL sync", ok), do("FLUSHALL NOW", errReply("syntax error")),
			do("FLUSHDB SYNC ASYNC", errReply("syntax error"))}},
		{"scan errors", []ksStep{do("SCAN x", errReply("invalid cursor")), do("SCAN 0 COUNT 0", errReply("syntax error")),
			do("SCAN 0 COUNT x", errReply("value is not an integer or out of range")), do("SCAN 0 MATCH", errReply("syntax error")),
			do("SCAN 0 FOO x", errReply("syntax error"))}},
	})
}

func TestParseCursor(t *testing.T) {
	tests := []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"0", 0, true},
		{"", 0, true}, // strtoul of nothing
		{"00", 0, true},
		{"+5", 5, true},
		{"-1", 1<<64 - 1, true}, // strtoul wraps negative numbers
		{"18446744073709551615", 1<<64 - 1, true},
		{"18446744073709551616", 0, false},
		{" 1", 0, false},
		{"1 ", 0, false},
		{"0x1", 0, false},
		{"-", 0, false},
		{"1\x00junk", 1, true}, // C reads up to the NUL
	}
	for _, tt := range tests {
		got, ok := parseCursor([]byte(tt.in))
		if got != tt.want || ok != tt.ok {
			t.Errorf("parseCursor(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// TestScanIteration checks SCAN's guarantee: a full iteration returns every
// key present throughout, whatever the COUNT, with keys deleted and added
// meanwhile.
func TestScanIteration(t *testing.T) {
	h := newKSTest(t)
	for i := range 100 {
		h.run("SET", fmt.Sprintf("key:%d", i), "v")
	}
	for _, count := range []string{"1", "7", "1000"} {
		seen := map[string]bool{}
		cursor := "0"
		for calls := 0; ; calls++ {
			if calls > 1000 {
				t.Fatal("SCAN does not finish")
			}
			reply := h.run("SCAN", cursor, "COUNT", count, "MATCH", "key:*")
			next, keys := parseScan(t, reply)
			for _, k := range keys {
				seen[k] = true
			}
			if calls == 0 {
				// Churn during the iteration must not hide stable keys.
				h.run("DEL", "key:99")
				h.run("SET", "key:new", "v")
			}
			if cursor = next; cursor == "0" {
				break
			}
		}
		for i := range 99 {
			if k := fmt.Sprintf("key:%d", i); !seen[k] {
				t.Errorf("COUNT %s: %s not returned", count, k)
			}
		}
		h.run("SET", "key:99", "v")
	}
}

// parseScan reads a SCAN reply: the next cursor and the keys.
func parseScan(t *testing.T, reply string) (string, []string) {
	t.Helper()
	b := []byte(reply)
	next := func() resp.Item {
		it, rest, err := resp.Next(b)
		if err != nil {
			t.Fatalf("SCAN reply %q: %v", reply, err)
		}
		b = rest
		return it
	}
	if it := next(); it.Kind != '*' || it.Int != 2 {
		t.Fatalf("SCAN reply %q", reply)
	}
	cursor := string(next().Data)
	var keys []string
	for n := next().Int; n > 0; n-- {
		keys = append(keys, string(next().Data))
	}
	if slices.Contains(keys, "") {
		t.Fatalf("SCAN returned an empty key: %q", reply)
	}
	return cursor, keys
}
