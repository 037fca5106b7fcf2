package diff_test

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/minilock/minilock/resp"
)

// bigHash fills key with n fields f0..f(n-1) (values v0..), past the
// packed encoding when n > 128.
func bigHash(key string, n int) step {
	args := []string{"HSET", key}
	for i := 0; i < n; i++ {
		args = append(args, "f"+strconv.Itoa(i), "v"+strconv.Itoa(i))
	}
	return cmd(args...)
}

// lengthOnly keeps an aggregate's header and drops its elements: random
// replies (HRANDFIELD, SRANDMEMBER ...) are compared by their size.
var lengthOnly = &normalizer{"length only", func(b []byte) ([]byte, bool) {
	it, _, err := resp.Next(b)
	if err != nil || it.Kind != '*' && it.Kind != '%' && it.Kind != '~' {
		return nil, false
	}
	return headerOf(it), true
}}

// Hash commands (t_hash.c): every command, option and error, both
// encodings, RESP2 and RESP3, WRONGTYPE both ways.
var hashCases = []diffCase{
	tc("hset hget", c("HSET h f v"), c("HGET h f"), c("HGET h nosuch"), c("HGET nosuch f"), c("TYPE h"), c("HLEN h")),
	tc("hset several", c("HSET h a 1 b 2 c 3"), c("HSET h a 9 d 4"), c("HGETALL h"), c("HKEYS h"), c("HVALS h"), c("HLEN h")),
	tc("hset arity", c("HSET h"), c("HSET h f"), c("HSET h f v g"), c("HMSET h f"), c("EXISTS h")),
	tc("hmset", c("HMSET h a 1 b 2"), c("HMGET h a b c"), c("HMGET nosuch a"), c("HMSET h a"), c("hmset h a 2")),
	tc("hsetnx", c("HSETNX h f 1"), c("HSETNX h f 2"), c("HGET h f"), c("HSETNX h g 3"), c("HGETALL h")),
	tc("hdel", c("HSET h a 1 b 2 c 3"), c("HDEL h a x"), c("HDEL h b c"), c("EXISTS h"), c("HDEL h a"), c("HDEL nosuch a")),
	tc("hdel repeated", c("HSET h a 1"), c("HDEL h a a a"), c("EXISTS h")),
	tc("hexists hstrlen", c("HSET h f hello e ''"), c("HEXISTS h f"), c("HEXISTS h x"), c("HEXISTS nosuch f"), c("HSTRLEN h f"), c("HSTRLEN h x"), c("HSTRLEN h e"), c("HSTRLEN nosuch f")),
	tc("hgetall empty", c("HGETALL nosuch"), c("HKEYS nosuch"), c("HVALS nosuch"), c("HLEN nosuch")),
	tc("hincrby", c("HINCRBY h n 5"), c("HINCRBY h n -7"), c("HGET h n"), c("HINCRBY h n x"), c("HINCRBY h n 1.5"), c("HSET h s abc"), c("HINCRBY h s 1"),
		c("HSET h b 9223372036854775807"), c("HINCRBY h b 1"), c("HSET h m -9223372036854775808"), c("HINCRBY h m -1"), c("HINCRBY h m 0"), c("HSET h z 010"), c("HINCRBY h z 1")),
	tc("hincrby missing key errors", c("HINCRBY h n x"), c("EXISTS h"), c("HINCRBY h n 99999999999999999999"), c("EXISTS h")),
	tc("hincrbyfloat", c("HINCRBYFLOAT h f 10.5"), c("HINCRBYFLOAT h f 0.1"), c("HINCRBYFLOAT h f -5"), c("HINCRBYFLOAT h f 3.0e3"), c("HGET h f"),
		c("HINCRBYFLOAT h f abc"), c("HINCRBYFLOAT h f inf"), c("HINCRBYFLOAT h f -inf"), c("HINCRBYFLOAT h f nan"), c("HINCRBYFLOAT h f ' 1'"),
		c("HSET h s x"), c("HINCRBYFLOAT h s 1"), c("HSET h i 5"), c("HINCRBYFLOAT h i 1e-20"), c("HINCRBYFLOAT h g 1e4932"), c("HINCRBYFLOAT h g 1e4932"), c("HGET h g")),
	tc("hincrbyfloat forms", c("HINCRBYFLOAT h a 0x10"), c("HINCRBYFLOAT h b .5"), c("HINCRBYFLOAT h c 5."), c("HINCRBYFLOAT h d -0"), c("HINCRBYFLOAT h e 1e-4940"), c("HINCRBYFLOAT h f 123456789012345678901234567890"), c("HGETALL h")),
	tc("hash wrongtype", c("SET s v"), c("HSET s f v"), c("HGET s f"), c("HGETALL s"), c("HLEN s"), c("HDEL s f"), c("HINCRBY s f 1"), c("HINCRBYFLOAT s f 1"),
		c("HSETNX s f v"), c("HMGET s f"), c("HEXISTS s f"), c("HSTRLEN s f"), c("HKEYS s"), c("HVALS s"), c("HSCAN s 0"), c("HRANDFIELD s"), c("HRANDFIELD s 2"), c("GET s")),
	tc("strings wrongtype on a hash", c("HSET h f v"), c("GET h"), c("APPEND h x"), c("INCR h"), c("STRLEN h"), c("GETRANGE h 0 -1"), c("GETDEL h"), c("GETEX h"),
		c("GETSET h x"), c("SET h x GET"), c("MGET h nosuch"), c("SETNX h v"), c("TYPE h"), c("SET h plain"), c("TYPE h"), c("GET h")),
	tc("hash keys and ttl", c("HSET h f v"), c("EXPIRE h 100"), c("TTL h"), c("HSET h g w"), c("TTL h"), c("HDEL h f g"), c("TTL h"), c("EXISTS h"), c("DEL h"),
		c("HSET h f v"), c("TYPE h"), c("SCAN 0 TYPE hash"), c("SCAN 0 TYPE string"), c("SCAN 0 TYPE HASH"), c("SCAN 0 TYPE nosuch")),
	tc("hash binary and empty", cmd("HSET", "h", "", ""), cmd("HGET", "h", ""), cmd("HSET", "h", "a\x00b", "c\r\nd"), cmd("HGET", "h", "a\x00b"), c("HLEN h"), c("HGETALL h")),
	tc("hash encoding conversion by length", cmd("HSET", "h", "f", strings.Repeat("x", 64)), cmd("HSET", "h", "g", strings.Repeat("y", 65)), c("HLEN h"), c("HGET h g"), c("HDEL h g"), c("HGET h f")),
	tc("big hash", bigHash("h", 200), c("HLEN h"), c("HGET h f150"), c("HEXISTS h f199"), c("HDEL h f0 f1 f2"), c("HLEN h"), c("HKEYS h").with(sorted), c("HVALS h").with(sorted),
		c("HGETALL h").with(sortedPairs), c("HINCRBY h f5 1"), c("HGET h f5"), c("HSTRLEN h f100")),
	tc("big hash to empty", bigHash("h", 130), c("HLEN h"), cmd(append([]string{"HDEL", "h"}, fieldsN(130)...)...), c("EXISTS h")),
	tc("scans look the key up before the options",
		c("SET str v"), c("HSCAN str 0 COUNT 0"), c("SSCAN str 0 COUNT x"), c("ZSCAN str 0 MATCH"),
		c("HSCAN nosuch 0 COUNT 0"), c("SSCAN nosuch 0 COUNT -1"), c("ZSCAN nosuch 0 FOO"), c("HSCAN nosuch x COUNT 0"), c("SSCAN str x")),
	tc("hscan small", c("HSET h a 1 b 2 c 3"), c("HSCAN h 0"), c("HSCAN h 0 MATCH a*"), c("HSCAN h 0 COUNT 1"), c("HSCAN nosuch 0"), c("HSCAN h x"), c("HSCAN h 0 COUNT 0"),
		c("HSCAN h 0 TYPE string"), c("HSCAN h 0 MATCH"), c("HSCAN h 0 COUNT x")),
	tc("hrandfield", c("HSET h only 1"), c("HRANDFIELD h"), c("HRANDFIELD h 1"), c("HRANDFIELD h 1 WITHVALUES"), c("HRANDFIELD h -3"), c("HRANDFIELD h -2 WITHVALUES"),
		c("HRANDFIELD h 5 WITHVALUES"), c("HRANDFIELD h 0"), c("HRANDFIELD nosuch"), c("HRANDFIELD nosuch 5"), c("HRANDFIELD h x"), c("HRANDFIELD h 1 nope"),
		c("HRANDFIELD h 1 WITHVALUES x"), c("HRANDFIELD h -9223372036854775808"), c("HRANDFIELD h 4611686018427387904 WITHVALUES"),
		c("HRANDFIELD h -4611686018427387904 WITHVALUES"), c("HRANDFIELD h 9223372036854775807")),
	// (A huge negative count makes Redis build a reply of that many
	// elements, which takes the server's memory; minilock refuses it: see
	// keyspace's tests.)
	tc("hrandfield counts", bigHash("h", 10), c("HRANDFIELD h 3").with(lengthOnly), c("HRANDFIELD h 10").with(sorted), c("HRANDFIELD h 20").with(sorted),
		c("HRANDFIELD h -20").with(lengthOnly), c("HRANDFIELD h 3 WITHVALUES").with(lengthOnly), bigHash("b", 300), c("HRANDFIELD b 5").with(lengthOnly), c("HRANDFIELD b 299").with(lengthOnly)),
	tc("hash resp3", c("HELLO 3").with(helloID), c("HSET h a 1 b 2"), c("HGETALL h"), c("HGETALL nosuch"), c("HRANDFIELD h 2 WITHVALUES").with(lengthOnly),
		c("HRANDFIELD h -3 WITHVALUES").with(lengthOnly), c("HRANDFIELD h 1 WITHVALUES").with(lengthOnly), c("HMGET h a x"), c("HGET h x"), c("HSCAN h 0")),
	tc("hash in multi", c("MULTI"), c("HSET h a 1"), c("HINCRBY h a 2"), c("HGETALL h"), c("HSET h"), c("EXEC"), c("MULTI"), c("HSET h a 1"), c("HINCRBY h a x"), c("HGET h a"), c("EXEC")),
	tc("hash watch", c("HSET h a 1"), c("WATCH h"), c("HSET h a 1").on(1), c("MULTI"), c("PING"), c("EXEC"),
		c("WATCH h"), c("HINCRBY h nosuchfield x").on(1), c("MULTI"), c("PING"), c("EXEC"),
		c("WATCH h"), c("HDEL h nosuch").on(1), c("MULTI"), c("PING"), c("EXEC")),
	tc("hash from lua", ev("redis.call('hset', KEYS[1], 'a', 1, 'b', 2.5) return redis.call('hgetall', KEYS[1])", 1, "h"),
		ev("return redis.call('hincrbyfloat', KEYS[1], 'b', 0.1)", 1, "h"), ev("return redis.call('hmget', KEYS[1], 'a', 'x')", 1, "h"),
		ev("return redis.pcall('hget', 'h', 'a', 'b')", 0), ev("return redis.pcall('get', KEYS[1])", 1, "h"), ev("return redis.call('hlen', KEYS[1])", 1, "h"),
		ev("redis.setresp(3) return redis.call('hgetall', KEYS[1])", 1, "h"), ev("return redis.call('hexists', KEYS[1], 'a')", 1, "h")),
}

// fieldsN is f0 .. f(n-1).
func fieldsN(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "f" + strconv.Itoa(i)
	}
	return out
}

// randomHashCases run generated sequences of hash commands over two keys
// with a few fields, sometimes past the packed encoding's limits (long
// values, many fields), reading every effect back.
func randomHashCases(r *rand.Rand, n int) []diffCase {
	field := func() string { return "f" + strconv.Itoa(r.IntN(6)) }
	val := func() string {
		switch r.IntN(6) {
		case 0:
			return randomInteger(r)
		case 1:
			return strings.Repeat("x", 60+r.IntN(10))
		case 2:
			return fmt.Sprintf("%g", r.NormFloat64()*1e6)
		}
		return randomString(r, "ab0.-", 4)
	}
	var cases []diffCase
	for i := range n {
		var steps []step
		for range 25 {
			key := []string{"h", "g"}[r.IntN(2)]
			switch r.IntN(14) {
			case 0:
				steps = append(steps, cmd("HSET", key, field(), val(), field(), val()))
			case 1:
				steps = append(steps, cmd("HSETNX", key, field(), val()))
			case 2:
				steps = append(steps, cmd("HDEL", key, field(), field()))
			case 3:
				steps = append(steps, cmd("HINCRBY", key, field(), randomInteger(r)))
			case 4:
				steps = append(steps, cmd("HINCRBYFLOAT", key, field(), []string{"0.1", "-2.5", "1e3", "3", "x", "1e-3"}[r.IntN(6)]))
			case 5:
				steps = append(steps, cmd("HGET", key, field()))
			case 6:
				steps = append(steps, cmd("HMGET", key, field(), field()))
			case 7:
				steps = append(steps, cmd("HGETALL", key).with(sortedPairs))
			case 8:
				steps = append(steps, cmd("HLEN", key), cmd("HSTRLEN", key, field()), cmd("HEXISTS", key, field()))
			case 9:
				steps = append(steps, cmd("SET", key, val()))
			case 10:
				steps = append(steps, cmd("TYPE", key), cmd("EXISTS", key))
			case 11:
				steps = append(steps, bigHash(key, 120+r.IntN(20)))
			case 12:
				steps = append(steps, cmd("HKEYS", key).with(sorted), cmd("HVALS", key).with(sorted))
			default:
				steps = append(steps, cmd("DEL", key))
			}
		}
		cases = append(cases, tc(fmt.Sprintf("hash %d", i), steps...))
	}
	return cases
}
