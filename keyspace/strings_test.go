package keyspace

import (
	"testing"

	"github.com/minilock/minilock/expiry"
)

func TestSetOptions(t *testing.T) {
	syntax := errReply("syntax error")
	runKSCases(t, []ksCase{
		{"nx xx", []ksStep{do("SET k a XX", nilBulk), do("SET k a NX", ok), do("SET k b NX", nilBulk), do("SET k b XX", ok),
			do("GET k", bulk("b")), do("SET k c NX XX", syntax), do("SET k c XX NX", syntax)}},
		{"get", []ksStep{do("SET k a GET", nilBulk), do("SET k b GET", bulk("a")), do("SET k c NX GET", bulk("b")),
			do("GET k", bulk("b")), do("SET j x XX GET", nilBulk), do("EXISTS j", num(0))}},
		{"repeats", []ksStep{do("SET k v NX NX", ok), do("SET k v GET GET", bulk("v")), do("SET k v EX 1 EX 100", ok), do("TTL k", num(100))}},
		{"expiry conflicts", []ksStep{do("SET k v EX 1 PX 1", syntax), do("SET k v KEEPTTL EX 1", syntax),
			do("SET k v EX 1 KEEPTTL", syntax), do("SET k v PXAT 1 EXAT 1", syntax), do("SET k v EX", syntax),
			do("SET k v PERSIST", syntax), do("EXISTS k", num(0))}},
		{"option values", []ksStep{do("SET k v EX NX", errReply("value is not an integer or out of range")),
			doArgs(ok, "SET", "k", "v", "NX\x00junk"), doArgs(nilBulk, "SET", "k", "w", "nx")}},
		{"expire checked before nx", []ksStep{do("SET k a", ok), do("SET k b NX EX 0", errReply("invalid expire time in 'set' command"))}},
		{"past exat stores an expired key", []ksStep{do("SET k v EXAT 1", ok), do("GET k", nilBulk), do("TTL k", num(-2))}},
		{"keepttl", []ksStep{do("SET k v EX 100", ok), do("SET k w KEEPTTL", ok), do("TTL k", num(100)), do("SET k x", ok), do("TTL k", num(-1))}},
		{"setnx setex psetex", []ksStep{do("SETNX k a", num(1)), do("SETNX k b", num(0)), do("SETEX k 10 c", ok),
			do("PTTL k", num(10000)), do("PSETEX k 1500 d", ok), do("PTTL k", num(1500)), do("GET k", bulk("d"))}},
		{"getex options", []ksStep{do("SET k v", ok), do("GETEX k KEEPTTL", syntax), do("GETEX k PERSIST EX 1", syntax),
			do("GETEX k EX 1 PERSIST", syntax), do("GETEX k PERSIST PERSIST", bulk("v")), do("GETEX nosuch EX 0", nilBulk)}},
	})
}

func TestStringCommands(t *testing.T) {
	notInt := errReply("value is not an integer or out of range")
	runKSCases(t, []ksCase{
		{"getset clears ttl", []ksStep{do("SET k a EX 10", ok), do("GETSET k b", bulk("a")), do("TTL k", num(-1)), do("GETSET j x", nilBulk)}},
		{"getdel", []ksStep{do("SET k a", ok), do("GETDEL k", bulk("a")), do("GETDEL k", nilBulk)}},
		{"getrange", []ksStep{do("SET k Hello", ok), do("GETRANGE k 1 3", bulk("ell")), do("GETRANGE k -3 -1", bulk("llo")),
			do("GETRANGE k -1 -3", bulk("")), do("GETRANGE k 3 1", bulk("")), do("GETRANGE k -100 100", bulk("Hello")),
			do("GETRANGE k -9223372036854775808 9223372036854775807", bulk("Hello")), do("GETRANGE nosuch 0 -1", bulk("")),
			doArgs(ok, "SET", "e", ""), do("GETRANGE e 0 -1", bulk("")), do("GETRANGE k a 1", notInt)}},
		{"mset msetnx", []ksStep{do("MSET a 1 b 2", ok), do("MSET a", errReply("wrong number of arguments for 'mset' command")),
			do("MSET a 1 b", errReply("wrong number of arguments for 'mset' command")), do("MSETNX b 3 c 4", num(0)),
			do("EXISTS c", num(0)), do("MSETNX c 3 c 4", num(1)), do("GET c", bulk("4"))}},
		{"incr", []ksStep{do("INCR k", num(1)), do("INCRBY k 41", num(42)), do("DECR k", num(41)), do("DECRBY k 50", num(-9)),
			do("GET k", bulk("-9"))}},
		{"incr keeps ttl", []ksStep{do("SET k 1 EX 10", ok), do("INCR k", num(2)), do("PTTL k", num(10000))}},
		{"incr parsing", []ksStep{do("SET k 01", ok), do("INCR k", notInt), do("SET k -0", ok), do("INCR k", notInt),
			doArgs(ok, "SET", "k", " 1"), do("INCR k", notInt), do("INCRBY j +1", notInt), do("EXISTS j", num(0))}},
		{"incr overflow", []ksStep{do("SET k 9223372036854775807", ok), do("INCR k", errReply("increment or decrement would overflow")),
			do("SET k -9223372036854775808", ok), do("DECR k", errReply("increment or decrement would overflow")),
			do("SET k 1", ok), do("DECRBY k -9223372036854775808", errReply("decrement would overflow")), do("GET k", bulk("1"))}},
		{"strlen append", []ksStep{do("STRLEN k", num(0)), do("APPEND k ab", num(2)), do("APPEND k cd", num(4)),
			do("STRLEN k", num(4)), do("SET n 12 EX 10", ok), do("APPEND n 3", num(3)), do("INCR n", num(124)), do("TTL n", num(10))}},
		{"mget", []ksStep{do("SET a 1", ok), do("MGET a b a", "*3\r\n"+bulk("1")+nilBulk+bulk("1"))}},
	})
}

// APPEND refuses to grow a value past proto-max-bulk-len, with Redis's
// error, and leaves the value as it was (a value once grew to 838 MB).
func TestAppendLimit(t *testing.T) {
	clock := expiry.NewManual(testStart)
	k := New(Config{Clock: clock, MaxStringLen: 10})
	h := &ksTest{t: t, k: k, clock: clock}
	for _, st := range []ksStep{
		do("APPEND k 12345", num(5)),
		do("APPEND k 12345", num(10)),
		do("APPEND k 1", errReply("string exceeds maximum allowed size (proto-max-bulk-len)")),
		do("GET k", bulk("1234512345")),
		do("APPEND j 0123456789", num(10)),
	} {
		if got := h.run(st.args...); got != st.want {
			t.Fatalf("%q: got %q, want %q", st.args, got, st.want)
		}
	}
}
