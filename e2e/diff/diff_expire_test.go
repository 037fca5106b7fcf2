package diff_test

import "time"

// Expiry commands: EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT with NX|XX|GT|LT,
// TTL, PTTL, EXPIRETIME, PEXPIRETIME, PERSIST. Deadlines are set far in the
// future or in the past (farSec, farMs), or as TTLs of 100 s and more read
// at once, so that replies are exact; a few cases sleep ~100 ms to watch a
// key expire.
var expireCases = []diffCase{
	// EXPIRE and PEXPIRE
	tc("expire", c("SET k v"), c("EXPIRE k 100"), c("TTL k"), c("PTTL k").with(msToSec)),
	tc("expire missing key", c("EXPIRE k 100"), c("PEXPIRE k 100"), c("EXPIREAT k "+farSec), c("PEXPIREAT k "+farMs), c("EXISTS k")),
	tc("expire replaces ttl", c("SET k v EX 100"), c("EXPIRE k 300"), c("TTL k")),
	tc("expire negative deletes", c("SET k v"), c("EXPIRE k -1"), c("EXISTS k"), c("TTL k")),
	tc("expire zero deletes", c("SET k v"), c("EXPIRE k 0"), c("EXISTS k")),
	tc("expire on expired key", c("SET k v PXAT 1000"), c("EXPIRE k 100"), c("TTL k")),
	tc("pexpire", c("SET k v"), c("PEXPIRE k 100000"), c("TTL k"), c("PTTL k").with(msToSec)),
	tc("pexpire negative and zero delete", c("SET k v"), c("PEXPIRE k -1"), c("EXISTS k"), c("SET k v"), c("PEXPIRE k 0"), c("EXISTS k")),
	tc("pexpire min deletes", c("SET k v"), c("PEXPIRE k -9223372036854775808"), c("EXISTS k")),
	tc("expire lower case", c("SET k v"), c("expire k 100 nx"), c("ttl k")),

	// EXPIREAT and PEXPIREAT
	tc("expireat future", c("SET k v"), c("EXPIREAT k "+farSec), c("EXPIRETIME k"), c("PEXPIRETIME k")),
	tc("expireat past deletes", c("SET k v"), c("EXPIREAT k 1"), c("EXISTS k")),
	tc("expireat zero and negative delete", c("SET k v"), c("EXPIREAT k 0"), c("EXISTS k"), c("SET k v"), c("EXPIREAT k -100"), c("EXISTS k")),
	tc("pexpireat future", c("SET k v"), c("PEXPIREAT k 4102444800555"), c("PEXPIRETIME k"), c("EXPIRETIME k")),
	tc("pexpireat past deletes", c("SET k v"), c("PEXPIREAT k 1000"), c("EXISTS k"), c("GET k")),
	tc("expireat large", c("SET k v"), c("EXPIREAT k 9223372036854775"), c("EXPIRETIME k"), c("PEXPIRETIME k")),
	tc("pexpireat max", c("SET k v"), c("PEXPIREAT k 9223372036854775807"), c("PEXPIRETIME k"), c("EXPIRETIME k"), c("TTL k")),

	// NX, XX, GT, LT
	tc("expire nx without ttl", c("SET k v"), c("EXPIRE k 100 NX"), c("TTL k")),
	tc("expire nx with ttl", c("SET k v EX 100"), c("EXPIRE k 200 NX"), c("TTL k")),
	tc("expire xx without ttl", c("SET k v"), c("EXPIRE k 100 XX"), c("TTL k")),
	tc("expire xx with ttl", c("SET k v EX 100"), c("EXPIRE k 200 XX"), c("TTL k")),
	tc("expire gt without ttl", c("SET k v"), c("EXPIRE k 100 GT"), c("TTL k")),
	tc("expire gt greater", c("SET k v EX 100"), c("EXPIRE k 200 GT"), c("TTL k")),
	tc("expire gt smaller", c("SET k v EX 200"), c("EXPIRE k 100 GT"), c("TTL k")),
	tc("pexpireat gt equal", c("SET k v PXAT "+farMs), c("PEXPIREAT k "+farMs+" GT"), c("PEXPIREAT k 4102444800001 GT"), c("PEXPIRETIME k")),
	tc("expire lt without ttl", c("SET k v"), c("EXPIRE k 100 LT"), c("TTL k")),
	tc("expire lt smaller", c("SET k v EX 200"), c("EXPIRE k 100 LT"), c("TTL k")),
	tc("expire lt greater", c("SET k v EX 100"), c("EXPIRE k 200 LT"), c("TTL k")),
	tc("pexpireat lt equal", c("SET k v PXAT "+farMs), c("PEXPIREAT k "+farMs+" LT"), c("PEXPIREAT k 4102444799999 LT"), c("PEXPIRETIME k")),
	tc("expire xx gt", c("SET k v"), c("EXPIRE k 100 XX GT"), c("SET k v EX 100"), c("EXPIRE k 200 GT XX"), c("TTL k")),
	tc("expire xx lt", c("SET k v"), c("EXPIRE k 100 XX LT"), c("TTL k"), c("SET k v EX 200"), c("EXPIRE k 100 LT XX"), c("TTL k")),
	tc("expire options repeated", c("SET k v"), c("EXPIRE k 100 NX NX"), c("EXPIRE k 200 GT GT XX"), c("TTL k")),
	tc("expire gt in the past without ttl", c("SET k v"), c("EXPIRE k -1 GT"), c("EXISTS k")),
	tc("expire lt in the past without ttl deletes", c("SET k v"), c("EXPIRE k -1 LT"), c("EXISTS k")),
	tc("expire lt in the past with ttl deletes", c("SET k v EX 100"), c("PEXPIRE k -5 LT"), c("EXISTS k")),
	tc("expire nx in the past deletes", c("SET k v"), c("EXPIREAT k 1 NX"), c("EXISTS k")),
	tc("expire flags on missing key", c("EXPIRE k 100 XX"), c("EXPIRE k 100 NX"), c("EXPIRE k 100 GT"), c("EXPIRE k 100 LT")),
	tc("expire nx conflicts", c("SET k v"), c("EXPIRE k 100 NX XX"), c("EXPIRE k 100 NX GT"), c("EXPIRE k 100 LT NX"), c("TTL k")),
	tc("expire gt lt conflict", c("SET k v"), c("EXPIRE k 100 GT LT"), c("PEXPIRE k 100 LT GT"), c("TTL k")),
	tc("expire nx reported before gt lt", c("SET k v"), c("EXPIRE k 100 GT LT NX")),
	tc("expire unsupported option", c("SET k v"), c("EXPIRE k 100 FOO"), c("PEXPIRE k 100 nX bar"), c("EXPIREAT k 100 KEEPTTL")),
	tc("expire unsupported option keeps case", c("SET k v"), c("EXPIRE k 100 FoO"), cmd("EXPIRE", "k", "100", "FOO\x00BAR"), cmd("EXPIRE", "k", "100", "NX\x00x")),
	tc("expire unsupported option with crlf", c("SET k v"), cmd("EXPIRE", "k", "100", "a\r\nb")),
	tc("expire options checked before time", c("SET k v"), c("EXPIRE k abc FOO"), c("EXPIRE k abc NX XX"), c("EXPIRE k abc GT LT")),

	// Invalid times
	tc("expire not integer", c("SET k v"), c("EXPIRE k abc"), c("EXPIRE k 1.5"), cmd("EXPIRE", "k", ""), c("PEXPIRE k 1e3"), c("EXPIREAT k +1"), c("PEXPIREAT k 01")),
	tc("expire integer edge values", c("SET k v"), c("EXPIRE k -0"), cmd("EXPIRE", "k", " 1"), c("EXPIRE k 100000000000000000000"), c("EXPIRE k 9223372036854775808"), c("EXPIRE k -9223372036854775809"), c("TTL k")),
	tc("expire overflow", c("SET k v"), c("EXPIRE k 9223372036854775807"), c("EXPIRE k 9223372036854776"), c("EXPIRE k 9223372036854775"), c("EXPIRE k -9223372036854776"), c("TTL k")),
	tc("expire most negative", c("SET k v"), c("EXPIRE k -9223372036854775"), c("EXISTS k")),
	tc("pexpire overflow", c("SET k v"), c("PEXPIRE k 9223372036854775807"), c("PEXPIRE k 9223372036854775000"), c("TTL k")),
	tc("expireat overflow", c("SET k v"), c("EXPIREAT k 9223372036854775807"), c("EXPIREAT k 9223372036854776"), c("EXPIREAT k -9223372036854776"), c("TTL k")),
	tc("pexpireat extremes", c("SET k v"), c("PEXPIREAT k -9223372036854775808"), c("EXISTS k")),
	tc("expire overflow on missing key", c("EXPIRE k 9223372036854775807"), c("PEXPIRE k 9223372036854775807"), c("EXPIREAT k 9223372036854776")),
	tc("expire overflow checked before options", c("SET k v"), c("EXPIRE k 9223372036854775807 NX"), c("EXPIRE k 9223372036854775807 FOO")),
	tc("expire arity", c("EXPIRE k"), c("PEXPIRE"), c("EXPIREAT k"), c("PEXPIREAT k")),

	// TTL, PTTL, EXPIRETIME, PEXPIRETIME
	tc("ttl missing and persistent", c("TTL k"), c("PTTL k"), c("SET k v"), c("TTL k"), c("PTTL k")),
	tc("ttl rounds to nearest second", c("SET a v PX 1400"), c("TTL a"), c("SET b v PX 1700"), c("TTL b"), c("SET c v PX 100"), c("TTL c")),
	tc("ttl of expired key", c("SET k v PXAT 1000"), c("TTL k"), c("PTTL k"), c("EXPIRETIME k"), c("PEXPIRETIME k")),
	tc("expiretime missing and persistent", c("EXPIRETIME k"), c("PEXPIRETIME k"), c("SET k v"), c("EXPIRETIME k"), c("PEXPIRETIME k")),
	tc("expiretime rounds to nearest second", c("SET a v PXAT 4102444800499"), c("EXPIRETIME a"), c("SET b v PXAT 4102444800500"), c("EXPIRETIME b"), c("PEXPIRETIME b")),
	tc("expiretime of set ex", c("SET k v EXAT "+farSec), c("EXPIRETIME k"), c("SET k v PXAT "+farMs), c("PEXPIRETIME k")),
	tc("ttl per database", c("SELECT 1"), c("SET k v EX 100"), c("SELECT 0"), c("TTL k"), c("SELECT 1"), c("TTL k")),
	tc("ttl arity", c("TTL"), c("TTL a b"), c("PTTL"), c("EXPIRETIME"), c("PEXPIRETIME a b")),

	// PERSIST
	tc("persist", c("SET k v EX 100"), c("PERSIST k"), c("TTL k"), c("PERSIST k")),
	tc("persist without ttl", c("SET k v"), c("PERSIST k")),
	tc("persist missing and expired", c("PERSIST k"), c("SET k v PXAT 1000"), c("PERSIST k"), c("EXISTS k")),
	tc("persist then expire again", c("SET k v EX 100"), c("PERSIST k"), c("EXPIRE k 200 NX"), c("TTL k")),
	tc("persist arity", c("PERSIST"), c("PERSIST a b")),

	// TTLs kept or dropped by writes
	tc("ttl kept by incr and append", c("SET k 1 EX 100"), c("INCR k"), c("INCRBY k 5"), c("DECR k"), c("APPEND k 0"), c("TTL k")),
	tc("ttl dropped by set getset mset", c("SET a v EX 100"), c("SET a w"), c("TTL a"), c("SET b v EX 100"), c("GETSET b w"), c("TTL b"), c("SET c v EX 100"), c("MSET c w"), c("TTL c")),
	tc("ttl set by setex on ttl key", c("SET k v EX 100"), c("SETEX k 300 w"), c("TTL k")),

	// Real expiry: the only cases that wait, with ~100 ms margins.
	tc("key expires", c("SET k v PX 100"), c("GET k"), pause(200*time.Millisecond), c("GET k"), c("TTL k"), c("EXISTS k")),
	tc("pexpire expires", c("SET k v"), c("PEXPIRE k 100"), pause(200*time.Millisecond), c("EXISTS k"), c("SET k w NX")),
}
