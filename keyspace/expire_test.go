package keyspace

import (
	"strconv"
	"testing"
	"time"
)

// ms formats a deadline testNow+d.
func ms(d int64) string { return strconv.FormatInt(testNow+d, 10) }

func TestTTLRounding(t *testing.T) {
	runKSCases(t, []ksCase{
		// TTL is (ms+500)/1000: the nearest second, halves up.
		{"below half", []ksStep{do("SET k v PX 1499", ok), do("TTL k", num(1)), do("PTTL k", num(1499))}},
		{"half", []ksStep{do("SET k v PX 1500", ok), do("TTL k", num(2))}},
		{"under a second", []ksStep{do("SET k v PX 499", ok), do("TTL k", num(0)), do("SET k v PX 500", ok), do("TTL k", num(1))}},
		{"as time passes", []ksStep{do("SET k v EX 10", ok), wait(4400 * time.Millisecond), do("TTL k", num(6)), do("PTTL k", num(5600)), wait(100 * time.Millisecond), do("TTL k", num(6))}},
		{"expiretime", []ksStep{do("SET k v PXAT 4102444800499", ok), do("EXPIRETIME k", num(4102444800)), do("PEXPIRETIME k", num(4102444800499)),
			do("SET k v PXAT 4102444800500", ok), do("EXPIRETIME k", num(4102444801))}},
		// Near LLONG_MAX the rounding must not overflow: Redis answers
		// the rounded value.
		{"expiretime at the int64 limit", []ksStep{do("SET k v PXAT 9223372036854775807", ok),
			do("EXPIRETIME k", num(9223372036854776)), do("PEXPIRETIME k", num(9223372036854775807))}},
		{"ttl near the int64 limit", []ksStep{do("PSETEX k 9223372036854775000 v", errReply("invalid expire time in 'psetex' command")),
			do("SET k v PXAT 9223372036854775807", ok), do("TTL k", num((9223372036854775807-testNow+500)/1000))}},
	})
}

func TestExpiryAtDeadline(t *testing.T) {
	runKSCases(t, []ksCase{
		// A key expires once the clock is past its deadline, not at it
		// (db.c:keyIsExpired: now > when).
		{"px", []ksStep{do("SET k v PX 1000", ok), wait(time.Second), do("GET k", bulk("v")), do("PTTL k", num(0)), do("TTL k", num(0)),
			wait(time.Millisecond), do("GET k", nilBulk), do("TTL k", num(-2))}},
		{"pexpireat", []ksStep{do("SET k v", ok), do("PEXPIREAT k "+ms(5), num(1)), wait(5 * time.Millisecond), do("EXISTS k", num(1)),
			wait(time.Millisecond), do("EXISTS k", num(0))}},
		{"persist stops it", []ksStep{do("SET k v EX 1", ok), do("PERSIST k", num(1)), wait(time.Hour), do("GET k", bulk("v"))}},
		{"set clears it", []ksStep{do("SET k v EX 1", ok), do("SET k w", ok), wait(time.Hour), do("GET k", bulk("w"))}},
		{"keepttl keeps it", []ksStep{do("SET k v EX 1", ok), do("SET k w KEEPTTL", ok), wait(1001 * time.Millisecond), do("GET k", nilBulk)}},
		{"expired key is missing for every command", []ksStep{do("SET k 5 PX 10", ok), wait(11 * time.Millisecond),
			do("INCR k", num(1)), do("TTL k", num(-1))}},
	})
}

func TestExpireCommands(t *testing.T) {
	invalid := func(cmd string) string { return errReply("invalid expire time in '" + cmd + "' command") }
	runKSCases(t, []ksCase{
		{"relative", []ksStep{do("SET k v", ok), do("EXPIRE k 10", num(1)), do("PTTL k", num(10000)),
			do("PEXPIRE k 2500", num(1)), do("PTTL k", num(2500))}},
		{"absolute", []ksStep{do("SET k v", ok), do("EXPIREAT k 1700000010", num(1)), do("PTTL k", num(10000)),
			do("PEXPIREAT k "+ms(123), num(1)), do("PTTL k", num(123))}},
		{"missing key", []ksStep{do("EXPIRE k 10", num(0)), do("EXISTS k", num(0))}},
		{"now or earlier deletes", []ksStep{do("SET a v", ok), do("PEXPIREAT a "+ms(0), num(1)), do("EXISTS a", num(0)),
			do("SET b v", ok), do("EXPIRE b 0", num(1)), do("EXISTS b", num(0)),
			do("SET c v", ok), do("PEXPIRE c -1", num(1)), do("EXISTS c", num(0))}},
		{"nx xx", []ksStep{do("SET k v", ok), do("EXPIRE k 10 XX", num(0)), do("EXPIRE k 10 NX", num(1)),
			do("EXPIRE k 20 NX", num(0)), do("EXPIRE k 20 XX", num(1)), do("TTL k", num(20))}},
		{"gt lt", []ksStep{do("SET k v", ok), do("EXPIRE k 10 GT", num(0)), do("EXPIRE k 10 LT", num(1)),
			do("EXPIRE k 10 GT", num(0)), do("EXPIRE k 10 LT", num(0)), do("EXPIRE k 11 GT", num(1)),
			do("EXPIRE k 5 LT", num(1)), do("EXPIRE k 6 LT", num(0)), do("TTL k", num(5))}},
		{"flag errors come first", []ksStep{do("EXPIRE k abc FOO", errReply("Unsupported option FOO")),
			do("EXPIRE k abc NX GT", errReply("NX and XX, GT or LT options at the same time are not compatible")),
			do("EXPIRE k abc GT LT", errReply("GT and LT options at the same time are not compatible")),
			do("EXPIRE k abc", errReply("value is not an integer or out of range"))}},
		{"overflow", []ksStep{do("SET k v", ok),
			do("EXPIRE k 9223372036854776", invalid("expire")), do("EXPIRE k -9223372036854776", invalid("expire")),
			do("EXPIRE k 9223372036854775", invalid("expire")), do("PEXPIRE k 9223372036854775807", invalid("pexpire")),
			do("EXPIREAT k 9223372036854776", invalid("expireat")), do("PEXPIREAT k 9223372036854775807", num(1)),
			do("EXPIRE k -9223372036854775", num(1)), do("EXISTS k", num(0))}},
		{"set family", []ksStep{do("SET k v EX 0", invalid("set")), do("SETEX k -1 v", invalid("setex")),
			do("PSETEX k 0 v", invalid("psetex")), do("SET k v EX 9223372036854776", invalid("set")),
			do("SET k v EXAT 9223372036854776", invalid("set")), do("SET k v PX 9223372036854775807", invalid("set")),
			do("SET k v", ok), do("GETEX k PX 0", invalid("getex")), do("GETEX k EX 9223372036854775", invalid("getex"))}},
		{"ttl family", []ksStep{do("TTL k", num(-2)), do("PEXPIRETIME k", num(-2)), do("SET k v", ok),
			do("TTL k", num(-1)), do("EXPIRETIME k", num(-1)), do("SET k v EXAT 1700000100", ok),
			do("EXPIRETIME k", num(1700000100)), do("PEXPIRETIME k", num(1700000100000))}},
		{"persist", []ksStep{do("PERSIST k", num(0)), do("SET k v", ok), do("PERSIST k", num(0)),
			do("EXPIRE k 10", num(1)), do("PERSIST k", num(1)), do("TTL k", num(-1))}},
		{"getex", []ksStep{do("SET k v", ok), do("GETEX k PX 1500", bulk("v")), do("PTTL k", num(1500)),
			do("GETEX k PERSIST", bulk("v")), do("TTL k", num(-1)), do("GETEX k EXAT 1700000000", bulk("v")), do("EXISTS k", num(0))}},
	})
}
