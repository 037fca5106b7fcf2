package diff_test

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/minilock/minilock/resp"
)

// ttlDigits masks a positive TTL-like integer to its number of digits:
// the servers run a step a moment apart, so a TTL of 3000 s on one is
// 2999 s on the other, but never a different number of digits, because
// every time the generator uses sits in the middle of its decade (3, 30,
// 3000 ... times a power of ten).
var ttlDigits = &normalizer{"positive integer masked to its digit count", func(b []byte) ([]byte, bool) {
	it, rest, err := resp.Next(b)
	if err != nil || it.Kind != ':' || len(rest) != 0 {
		return nil, false
	}
	if it.Int <= 0 {
		return b, true
	}
	return fmt.Appendf(nil, ":<%d digits>\r\n", len(strconv.FormatInt(it.Int, 10))), true
}}

// stringEncoding masks a string's OBJECT ENCODING: minilock decides int,
// embstr or raw from the contents, Redis from the value's history (APPEND
// and SETRANGE leave it raw, INCRBYFLOAT embstr): a difference
// docs/differences.md lists.
// A collection's encoding is left as it is.
var stringEncoding = &normalizer{"string encodings masked", func(b []byte) ([]byte, bool) {
	switch string(b) {
	case "$3\r\nint\r\n", "$6\r\nembstr\r\n", "$3\r\nraw\r\n":
		return []byte("$<string encoding>\r\n"), true
	}
	return b, true
}}

// randomStringCases are sequences of the lock recipes' own commands on
// two keys: SET with any mix of its options (valid or not), the GET/GETEX
// family, counters, ranges, and every way to set, change, compare and
// read an expiry, with a hash key for WRONGTYPE. Relative times are 30,
// 3000 ... s (a key never expires during a case, however loaded the
// machine), or 0 and below; absolute times are now plus 300 or 30,000 s,
// or already past, so that GT
// and LT always compare different deadlines and the answer cannot depend
// on which millisecond each server ran the step in (ttlDigits reads the
// TTLs). GT and LT are only sent with absolute times for that reason.
func randomStringCases(r *rand.Rand, n int) []diffCase {
	now := time.Now().Unix()
	key := func() string { return []string{"a", "b", "a", "h"}[r.IntN(4)] }
	rel := func() string { // seconds
		return []string{"30", "3000", "300000", "0", "-1", "x", "9223372036854775807", " 3"}[r.IntN(8)]
	}
	relMs := func() string {
		return []string{"30000", "3000000", "0", "-5", "3.5", "9223372036854775807"}[r.IntN(6)]
	}
	abs := func() int64 { return now + []int64{300, 30000, -30, 0}[r.IntN(4)] }
	val := func() string {
		switch r.IntN(5) {
		case 0:
			return randomInteger(r)
		case 1:
			return []string{"1.5", "-0.25", "1e3", "inf", "nan", "0x10", " 7"}[r.IntN(7)]
		case 2:
			return strings.Repeat("y", 40+r.IntN(10)) // past embstr's 44 bytes or not
		}
		return randomString(r, "ab1", 3)
	}
	expireOpt := func() []string {
		switch r.IntN(8) {
		case 0:
			return []string{"EX", rel()}
		case 1:
			return []string{"PX", relMs()}
		case 2:
			return []string{"EXAT", strconv.FormatInt(abs(), 10)}
		case 3:
			return []string{"PXAT", strconv.FormatInt(abs()*1000, 10)}
		case 4:
			return []string{"KEEPTTL"}
		case 5:
			return []string{[]string{"ex", "px", "Ex"}[r.IntN(3)]} // no value
		}
		return nil
	}
	ttlRead := func(k string) step {
		return cmd([]string{"TTL", "PTTL", "EXPIRETIME", "PEXPIRETIME"}[r.IntN(4)], k).with(ttlDigits)
	}
	var cases []diffCase
	for i := range n {
		var steps []step
		for range 25 {
			k := key()
			switch r.IntN(22) {
			case 0, 1:
				args := []string{"SET", k, val()}
				for range r.IntN(4) {
					switch r.IntN(4) {
					case 0:
						args = append(args, []string{"NX", "XX", "nx"}[r.IntN(3)])
					case 1:
						args = append(args, "GET")
					default:
						args = append(args, expireOpt()...)
					}
				}
				steps = append(steps, cmd(args...))
			case 2:
				steps = append(steps, cmd("SETNX", k, val()))
			case 3:
				if r.IntN(2) == 0 {
					steps = append(steps, cmd("SETEX", k, rel(), val()))
				} else {
					steps = append(steps, cmd("PSETEX", k, relMs(), val()))
				}
			case 4:
				steps = append(steps, cmd("GETSET", k, val()))
			case 5:
				steps = append(steps, cmd([]string{"GET", "GETDEL", "STRLEN", "TYPE", "EXISTS"}[r.IntN(5)], k))
			case 6:
				args := append([]string{"GETEX", k}, expireOpt()...)
				if r.IntN(4) == 0 {
					args = append(args, "PERSIST")
				}
				steps = append(steps, cmd(args...))
			case 7:
				steps = append(steps, cmd("APPEND", k, val()))
			case 8:
				steps = append(steps, cmd("SETRANGE", k, []string{"0", "3", "50", "-1", "x"}[r.IntN(5)], randomString(r, "xy", 3)))
			case 9:
				steps = append(steps, cmd("GETRANGE", k, randomInteger(r), randomInteger(r)))
			case 10:
				steps = append(steps, cmd([]string{"INCR", "DECR"}[r.IntN(2)], k))
			case 11:
				steps = append(steps, cmd([]string{"INCRBY", "DECRBY", "INCRBYFLOAT"}[r.IntN(3)], k, val()))
			case 12:
				if r.IntN(2) == 0 {
					steps = append(steps, cmd("EXPIRE", k, rel()))
				} else {
					steps = append(steps, cmd("PEXPIRE", k, relMs()))
				}
			case 13:
				args := []string{"EXPIRE", k, rel()}
				if r.IntN(2) == 0 {
					args = []string{"PEXPIRE", k, relMs()}
				}
				steps = append(steps, cmd(append(args, []string{"NX", "XX", "xx", "nx"}[r.IntN(4)])...))
			case 14:
				at := abs()
				args := []string{"EXPIREAT", k, strconv.FormatInt(at, 10)}
				if r.IntN(2) == 0 {
					args = []string{"PEXPIREAT", k, strconv.FormatInt(at*1000, 10)}
				}
				for range r.IntN(3) {
					args = append(args, []string{"NX", "XX", "GT", "LT", "lt"}[r.IntN(5)])
				}
				steps = append(steps, cmd(args...))
			case 15:
				steps = append(steps, cmd("PERSIST", k))
			case 16, 17:
				steps = append(steps, ttlRead(k))
			case 18:
				steps = append(steps, cmd([]string{"RENAME", "RENAMENX"}[r.IntN(2)], k, key()))
			case 19:
				args := []string{"COPY", k, key()}
				if r.IntN(2) == 0 {
					args = append(args, "REPLACE")
				}
				steps = append(steps, cmd(args...))
			case 20:
				steps = append(steps, cmd("MSETNX", k, val(), key(), val()), cmd("MGET", "a", "b", "h"))
			default:
				steps = append(steps, cmd("HSET", "h", "f", val()), cmd("OBJECT", "ENCODING", k).with(stringEncoding))
			}
		}
		steps = append(steps, ttlRead("a"), ttlRead("b"), cmd("MGET", "a", "b"))
		cases = append(cases, tc(fmt.Sprintf("strings %d", i), steps...))
	}
	return cases
}

// randomFloat is a string a float parser may or may not accept: digits,
// signs, points, exponents, hex and other base prefixes, inf and nan
// spellings, spaces and underscores, in random order.
func randomFloat(r *rand.Rand) string {
	switch r.IntN(4) {
	case 0:
		return randomString(r, "0123456789.eE+-", 8)
	case 1:
		return []string{"", "-", "+"}[r.IntN(3)] + []string{"0x", "0X", "0b", "0o", "0", ".", "inf", "nan", "Infinity"}[r.IntN(9)] + randomString(r, "01.pP+-aFx_", 5)
	case 2:
		return randomString(r, "0123456789.eExXpPbBoO_ +-infINFaA", 7)
	}
	return fmt.Sprintf("%g", r.NormFloat64()*[]float64{1, 1e10, 1e300, 1e-300}[r.IntN(4)])
}

// randomFloatCases pass generated floats to every command that parses
// one (as a long double or a double) and read the result back.
func randomFloatCases(r *rand.Rand, n int) []diffCase {
	var cases []diffCase
	for i := range n {
		a, b, lo, hi := randomFloat(r), randomFloat(r), randomFloat(r), randomFloat(r)
		cases = append(cases, tc(fmt.Sprintf("floats %d", i),
			cmd("SET", "k", a), cmd("INCRBYFLOAT", "k", b), c("GET k"), cmd("INCRBYFLOAT", "n", a),
			cmd("HSET", "h", "f", a), cmd("HINCRBYFLOAT", "h", "f", b), c("HGET h f"),
			cmd("ZADD", "z", a, "m"), cmd("ZADD", "z", b, "n"), cmd("ZINCRBY", "z", b, "m"), c("ZRANGE z 0 -1 WITHSCORES"),
			cmd("ZRANGEBYSCORE", "z", lo, hi), cmd("ZCOUNT", "z", "("+lo, hi), cmd("ZADD", "z", "INCR", a, "m"),
		))
	}
	return cases
}

// boundedCount is randomInteger unless that is a negative count past
// -1000: SRANDMEMBER, ZRANDMEMBER and HRANDFIELD repeat elements to make
// up a negative count, and a generated -123456789 would have both servers
// build a reply of that many.
func boundedCount(r *rand.Rand) string {
	s := randomInteger(r)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil && n < -1000 {
		return "-7"
	}
	return s
}

// randomIndexCases pass generated integers as the indexes, counts,
// ranks, limits, cursors and timeouts of the collection commands, over a
// list, set, sorted set and hash of a few elements each, refilled before
// every case.
func randomIndexCases(r *rand.Rand, n int) []diffCase {
	var cases []diffCase
	for i := range n {
		steps := []step{c("RPUSH l a b c a d"), c("SADD s 1 2 3 4 5"), c("ZADD z 1 a 2 b 3 c 4 d"), c("HSET h a 1 b 2 c 3")}
		for range 12 {
			a, b := randomInteger(r), randomInteger(r)
			switch r.IntN(16) {
			case 0:
				steps = append(steps, cmd("LRANGE", "l", a, b), cmd("LINDEX", "l", a))
			case 1:
				steps = append(steps, cmd("LSET", "l", a, "x"), cmd("LTRIM", "l", a, b), c("LRANGE l 0 -1"))
			case 2:
				steps = append(steps, cmd("LPOS", "l", "a", "RANK", a, "COUNT", b), cmd("LPOS", "l", "a", "MAXLEN", a))
			case 3:
				steps = append(steps, cmd([]string{"LPOP", "RPOP"}[r.IntN(2)], "l", a), cmd("SPOP", "s", a).with(lengthOnly))
			case 4:
				steps = append(steps, cmd("LMPOP", "1", "l", "LEFT", "COUNT", a), cmd("ZMPOP", "1", "z", "MAX", "COUNT", b))
			case 5:
				steps = append(steps, cmd("ZRANGE", "z", a, b, "WITHSCORES"), cmd("ZRANGE", "z", "-inf", "+inf", "BYSCORE", "LIMIT", a, b))
			case 6:
				steps = append(steps, cmd("ZREMRANGEBYRANK", "z", a, b), c("ZRANGE z 0 -1"))
			case 7:
				steps = append(steps, cmd("ZRANGESTORE", "d", "z", a, b), cmd("ZREVRANGE", "z", a, b))
			case 8:
				steps = append(steps, cmd("SRANDMEMBER", "s", boundedCount(r)).with(lengthOnly), cmd("ZRANDMEMBER", "z", boundedCount(r)).with(lengthOnly),
					cmd("HRANDFIELD", "h", boundedCount(r)).with(lengthOnly))
			case 9:
				steps = append(steps, cmd("SINTERCARD", "1", "s", "LIMIT", a), cmd("ZINTERCARD", "1", "z", "LIMIT", b))
			case 10:
				steps = append(steps, cmd([]string{"SSCAN", "HSCAN", "ZSCAN"}[r.IntN(3)], []string{"s", "h", "z"}[r.IntN(3)], "0", "COUNT", a).with(lengthOnly))
			case 11:
				steps = append(steps, cmd("SSCAN", "s", a).with(lengthOnly))
			case 12:
				// two elements, two pops: each answers at once whatever
				// the timeout, or gives the timeout's error
				steps = append(steps, c("RPUSH l e f"), cmd([]string{"BLPOP", "BRPOP"}[r.IntN(2)], "l", a), cmd("BLMPOP", b, "1", "l", "LEFT"))
			case 13:
				steps = append(steps, c("ZADD z 5 e 6 f"), cmd("BZPOPMIN", "z", a), cmd("BZMPOP", a, "1", "z", "MIN", "COUNT", b))
			case 14:
				steps = append(steps, cmd("LINSERT", "l", "BEFORE", "a", a), cmd("LREM", "l", b, "a"), c("LRANGE l 0 -1"))
			default:
				steps = append(steps, cmd("HINCRBY", "h", "a", a), cmd("ZINCRBY", "z", b, "a"), cmd("ZADD", "z", "GT", "CH", a, "b"))
			}
		}
		cases = append(cases, tc(fmt.Sprintf("indexes %d", i), steps...))
	}
	return cases
}

// randomKeyCases move keys of every type between names and databases and
// read them back: RENAME, RENAMENX, COPY (with DB and REPLACE), MOVE,
// SELECT, DEL/UNLINK/EXISTS/TOUCH of several keys, TYPE, SCAN with TYPE,
// expiries carried along, over a string, a hash, a set, a sorted set and
// a list, small or past their packed encodings.
func randomKeyCases(r *rand.Rand, n int) []diffCase {
	names := []string{"s", "h", "t", "z", "l", "x"}
	key := func() string { return names[r.IntN(len(names))] }
	db := func() string { return []string{"0", "1", "1", "15", "16", "-1", "x"}[r.IntN(7)] }
	var cases []diffCase
	for i := range n {
		steps := []step{c("SET s v"), c("HSET h a 1"), c("SADD t 1 2"), c("ZADD z 1 a"), c("RPUSH l a b")}
		if r.IntN(3) == 0 {
			steps = append(steps, bigHash("h", 130), c("SADD t notanint"), cmd("ZADD", "z", "2", strings.Repeat("m", 70)))
		}
		for range 20 {
			a, b := key(), key()
			switch r.IntN(14) {
			case 0:
				steps = append(steps, cmd([]string{"RENAME", "RENAMENX"}[r.IntN(2)], a, b))
			case 1:
				args := []string{"COPY", a, b}
				if r.IntN(2) == 0 {
					args = append(args, "DB", db())
				}
				if r.IntN(2) == 0 {
					args = append(args, "REPLACE")
				}
				steps = append(steps, cmd(args...))
			case 2:
				steps = append(steps, cmd("MOVE", a, db()))
			case 3:
				d := db()
				steps = append(steps, cmd("SELECT", d), cmd("TYPE", a), scanAll().with(sorted), c("DBSIZE"), c("SELECT 0"))
			case 4:
				steps = append(steps, cmd([]string{"DEL", "UNLINK", "EXISTS", "TOUCH"}[r.IntN(4)], a, b, a))
			case 5:
				steps = append(steps, cmd("TYPE", a), cmd("OBJECT", "ENCODING", a).with(stringEncoding))
			case 6:
				steps = append(steps, scanAll("TYPE", []string{"string", "hash", "set", "zset", "list", "stream", "nosuch"}[r.IntN(7)]))
			case 7:
				steps = append(steps, cmd("EXPIRE", a, "3000"), cmd("TTL", b).with(ttlDigits))
			case 8:
				steps = append(steps, cmd("PERSIST", a), cmd("EXPIRETIME", a).with(ttlDigits))
			case 9:
				steps = append(steps, c("KEYS *").with(sorted), c("DBSIZE"))
			case 10:
				steps = append(steps, cmd("HGETALL", a).with(sortedPairs), cmd("SMEMBERS", a).with(sorted))
			case 11:
				steps = append(steps, cmd("ZRANGE", a, "0", "-1", "WITHSCORES"), cmd("LRANGE", a, "0", "-1"), cmd("GET", a))
			case 12:
				steps = append(steps, c("SELECT 1"), cmd("COPY", a, b, "DB", "0"), c("KEYS *").with(sorted), c("SELECT 0"))
			default:
				steps = append(steps, cmd([]string{"HSET", "SADD", "ZADD", "RPUSH", "SET"}[r.IntN(5)], a, "1", "2"))
			}
		}
		steps = append(steps, c("KEYS *").with(sorted), c("SELECT 1"), c("KEYS *").with(sorted), c("SELECT 0"))
		cases = append(cases, tc(fmt.Sprintf("keys %d", i), steps...))
	}
	return cases
}
