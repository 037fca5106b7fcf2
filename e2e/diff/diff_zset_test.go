package diff_test

import (
	"fmt"
	"math/rand/v2"
	"strconv"
)

// bigZSet fills key with n members m0.. scored 0..n-1 (past the packed
// encoding when n > 128).
func bigZSet(key string, n int) step {
	args := []string{"ZADD", key}
	for i := 0; i < n; i++ {
		args = append(args, strconv.Itoa(i), "m"+strconv.Itoa(i))
	}
	return cmd(args...)
}

// tiedZSet fills key with n members m0.. (past the packed encoding when
// n > 128) whose scores tie in tens, with infinities, -0 and fractions
// among them.
func tiedZSet(key string, n int) step {
	args := []string{"ZADD", key}
	for i := 0; i < n; i++ {
		s := strconv.Itoa(i%20 - 10)
		switch i % 17 {
		case 3:
			s = "inf"
		case 5:
			s = "-inf"
		case 7:
			s = "-0"
		case 11:
			s = "2.5"
		}
		args = append(args, s, "m"+strconv.Itoa(i))
	}
	return cmd(args...)
}

// Sorted set commands (t_zset.c): options, errors, both encodings, RESP2
// and RESP3.
var zsetCases = []diffCase{
	// Lex ranges over unequal scores: "undefined" to Redis's docs, decided
	// by its listpack walks (found by keyspace's TestNotifyDiff).
	tc("lex ranges over unequal scores",
		c("ZADD z 1 b 2 c 3 a"), c("ZREVRANGEBYLEX z + [b"), c("ZRANGEBYLEX z [b +"), c("ZLEXCOUNT z [b +"),
		c("ZREVRANGEBYLEX z (c -"), c("ZRANGEBYLEX z - [a"), c("ZRANGE z + [b BYLEX REV"), c("ZRANGE z [a [c BYLEX"),
		c("ZADD y 1 c 2 a 3 b 4 d"), c("ZREVRANGEBYLEX y + -"), c("ZREVRANGEBYLEX y [b -"), c("ZREVRANGEBYLEX y [c [b"),
		c("ZRANGEBYLEX y [b [c"), c("ZREVRANGEBYLEX y + [b LIMIT 1 2"), c("ZREMRANGEBYLEX y [b +"), c("ZRANGE y 0 -1")),
	tc("zadd basics", c("ZADD z 1 a 2 b 3 c"), c("ZADD z 4 a"), c("ZRANGE z 0 -1 WITHSCORES"), c("ZCARD z"), c("ZSCORE z a"), c("ZSCORE z x"), c("ZSCORE nosuch a"), c("TYPE z")),
	tc("zadd options", c("ZADD z NX 1 a"), c("ZADD z NX 2 a 3 b"), c("ZADD z XX 5 a 6 x"), c("ZADD z XX CH 7 a 7 b"), c("ZADD z CH 7 a 8 b 9 c"), c("ZADD z GT 1 a"),
		c("ZADD z GT CH 10 a"), c("ZADD z LT CH 20 a 1 c"), c("ZADD z XX GT 100 a"), c("ZRANGE z 0 -1 WITHSCORES"), c("ZADD nosuch XX 1 a"), c("EXISTS nosuch")),
	tc("zadd errors", c("ZADD z"), c("ZADD z 1"), c("ZADD z 1 a 2"), c("ZADD z NX XX 1 a"), c("ZADD z GT LT 1 a"), c("ZADD z NX GT 1 a"), c("ZADD z INCR 1 a 2 b"),
		c("ZADD z x a"), c("ZADD z nan a"), c("ZADD z 1e400 a"), c("ZADD z ' 1' a"), c("ZADD z 1 a x b"), c("EXISTS z"), c("ZADD z inf a -inf b +inf c"), c("ZRANGE z 0 -1 WITHSCORES")),
	tc("zadd incr", c("ZADD z INCR 1 a"), c("ZADD z INCR 2.5 a"), c("ZADD z INCR NX 1 a"), c("ZADD z INCR XX 1 b"), c("ZADD z INCR GT -1 a"), c("ZADD z INCR LT -1 a"),
		c("ZADD z inf i"), c("ZADD z INCR -inf i"), c("ZSCORE z i"), c("ZINCRBY z 1 new"), c("ZINCRBY z x a"), c("ZINCRBY z xX a"), c("ZINCRBY z nx a"), c("ZINCRBY z INCR a"), c("ZINCRBY z ch new2"), c("ZINCRBY s gt a"), c("ZINCRBY z 0.1 a"), c("ZSCORE z a")),
	tc("zscore formats", c("ZADD z 1.5 a 0.1 b -0 c 1e20 d 3e-10 e 123456789012345678 f"), c("ZRANGE z 0 -1 WITHSCORES"), c("ZMSCORE z a b c x"), c("ZMSCORE nosuch a"), c("ZSCORE z c")),
	tc("zrem", c("ZADD z 1 a 2 b"), c("ZREM z a x"), c("ZREM z b"), c("EXISTS z"), c("ZREM nosuch a")),
	tc("zrank", c("ZADD z 1 a 2 b 3 c"), c("ZRANK z a"), c("ZRANK z c"), c("ZREVRANK z a"), c("ZRANK z x"), c("ZRANK nosuch a"), c("ZADD z 2 aa"), c("ZRANK z aa"), c("ZRANK z b")),
	tc("zcount zlexcount", c("ZADD z 1 a 2 b 3 c 4 d"), c("ZCOUNT z 2 3"), c("ZCOUNT z (2 3"), c("ZCOUNT z -inf +inf"), c("ZCOUNT z 3 2"), c("ZCOUNT z (2 (2"), c("ZCOUNT z x 1"),
		c("ZCOUNT nosuch 0 1"), c("ZADD l 0 a 0 b 0 c 0 d"), c("ZLEXCOUNT l - +"), c("ZLEXCOUNT l [b (d"), c("ZLEXCOUNT l (a [c"), c("ZLEXCOUNT l b c"), c("ZLEXCOUNT l + -"), c("ZLEXCOUNT l [ [z")),
	tc("zrange by rank", c("ZADD z 1 a 2 b 3 c 4 d"), c("ZRANGE z 0 -1"), c("ZRANGE z 1 2 WITHSCORES"), c("ZRANGE z -2 -1"), c("ZRANGE z 5 10"), c("ZRANGE z 2 1"), c("ZRANGE z -100 100"),
		c("ZRANGE z 0 -1 REV"), c("ZRANGE z 0 0 REV WITHSCORES"), c("ZREVRANGE z 0 1 WITHSCORES"), c("ZRANGE z 0 1 LIMIT 0 1"), c("ZRANGE z x 1"), c("ZRANGE nosuch 0 -1"), c("ZRANGE z 0 -1 FOO")),
	tc("zrange by score", c("ZADD z 1 a 2 b 3 c 4 d 5 e"), c("ZRANGE z 2 4 BYSCORE"), c("ZRANGE z (2 (4 BYSCORE WITHSCORES"), c("ZRANGE z 4 2 BYSCORE REV"), c("ZRANGE z -inf +inf BYSCORE LIMIT 1 2"),
		c("ZRANGE z -inf +inf BYSCORE LIMIT -1 2"), c("ZRANGE z -inf +inf BYSCORE LIMIT 1 -1"), c("ZRANGE z -inf +inf BYSCORE LIMIT 5 1"), c("ZRANGE z -inf +inf BYSCORE LIMIT 4 0"),
		c("ZRANGE z +inf -inf BYSCORE REV LIMIT 1 2 WITHSCORES"), c("ZRANGEBYSCORE z 2 4"), c("ZRANGEBYSCORE z 2 4 WITHSCORES LIMIT 1 1"), c("ZREVRANGEBYSCORE z 4 2"),
		c("ZREVRANGEBYSCORE z (4 2 WITHSCORES"), c("ZRANGEBYSCORE z x 1"), c("ZRANGEBYSCORE z 1 2 REV"), c("ZRANGEBYSCORE z ( (5"), c("ZRANGEBYSCORE z '' 5"), c("ZRANGEBYSCORE z 1 2 LIMIT 1"),
		c("ZRANGE z 1 3 BYSCORE BYLEX"), c("ZRANGE z 1 2 BYSCORE BYSCORE")),
	tc("zrange by lex", c("ZADD z 0 a 0 b 0 c 0 d 0 e"), c("ZRANGE z [b [d BYLEX"), c("ZRANGE z - + BYLEX LIMIT 1 2"), c("ZRANGE z + - BYLEX REV"), c("ZRANGE z (a (e BYLEX"),
		c("ZRANGEBYLEX z - +"), c("ZRANGEBYLEX z [c +"), c("ZREVRANGEBYLEX z + [c"), c("ZRANGEBYLEX z a c"), c("ZRANGE z - + BYLEX WITHSCORES"), c("ZRANGEBYLEX z - + WITHSCORES"),
		c("ZRANGEBYLEX z +x -"), c("ZRANGEBYLEX z (b (b")),
	tc("zrangestore", c("ZADD z 1 a 2 b 3 c"), c("ZRANGESTORE d z 0 1"), c("ZRANGE d 0 -1 WITHSCORES"), c("ZRANGESTORE d z 1 2 BYSCORE REV"), c("ZRANGE d 0 -1"),
		c("ZRANGESTORE d z 5 10"), c("EXISTS d"), c("ZRANGESTORE d nosuch 0 -1"), c("ZRANGESTORE d z 0 -1 WITHSCORES"), c("SET s v EX 100"), c("ZRANGESTORE s z 0 0"), c("TYPE s"), c("TTL s"),
		c("ZRANGESTORE d s 0 1")),
	tc("zremrange", c("ZADD z 1 a 2 b 3 c 4 d 5 e"), c("ZREMRANGEBYRANK z 0 0"), c("ZREMRANGEBYSCORE z (2 3"), c("ZRANGE z 0 -1"), c("ZREMRANGEBYRANK z 5 10"), c("ZREMRANGEBYSCORE z x y"),
		c("ZADD l 0 a 0 b 0 c"), c("ZREMRANGEBYLEX l [a (c"), c("ZRANGE l 0 -1"), c("ZREMRANGEBYLEX l a c"), c("ZREMRANGEBYRANK z 0 -1"), c("EXISTS z"), c("ZREMRANGEBYRANK nosuch 0 1")),
	tc("zpop", c("ZADD z 1 a 2 b 3 c"), c("ZPOPMIN z"), c("ZPOPMAX z"), c("ZPOPMIN z 5"), c("EXISTS z"), c("ZPOPMIN z"), c("ZPOPMIN nosuch 2"), c("ZADD z 1 a"), c("ZPOPMIN z 0"),
		c("ZPOPMIN z -1"), c("ZPOPMIN z x"), c("ZPOPMIN z 1 2")),
	tc("zmpop", c("ZADD a 1 x 2 y"), c("ZADD b 3 z"), c("ZMPOP 2 nosuch a MIN"), c("ZMPOP 2 a b MAX COUNT 5"), c("ZMPOP 1 b MIN COUNT 1"), c("ZMPOP 1 b MIN"), c("ZMPOP 0 a MIN"),
		c("ZMPOP x a MIN"), c("ZMPOP 3 a MIN"), c("ZMPOP 1 a FOO"), c("ZMPOP 1 a MIN COUNT 0"), c("ZMPOP 1 a MIN COUNT x"), c("ZMPOP 1 a MIN COUNT 1 COUNT 2"), c("ZMPOP -1 a MIN")),
	tc("zunion zinter zdiff", c("ZADD a 1 x 2 y 3 z"), c("ZADD b 10 y 20 z 30 w"), c("SADD s x w"), c("ZUNION 2 a b WITHSCORES"), c("ZINTER 2 a b WITHSCORES"), c("ZDIFF 2 a b WITHSCORES"),
		c("ZUNION 3 a b s WITHSCORES"), c("ZINTER 2 a s"), c("ZUNION 2 a b WEIGHTS 2 0.5 WITHSCORES"), c("ZUNION 2 a b AGGREGATE MIN WITHSCORES"), c("ZINTER 2 a b AGGREGATE MAX WITHSCORES"),
		c("ZUNION 2 a nosuch"), c("ZINTER 2 a nosuch"), c("ZDIFF 2 nosuch a"), c("ZUNION 0 a"), c("ZUNION 3 a b"), c("ZUNION 2 a b WEIGHTS 1"), c("ZUNION 2 a b WEIGHTS 1 x"),
		c("ZUNION 2 a b AGGREGATE foo"), c("ZDIFF 2 a b WEIGHTS 1 1"), c("ZINTERCARD 2 a b"), c("ZINTERCARD 2 a b LIMIT 1"), c("ZINTERCARD 0 a"), c("ZINTERCARD 2 a b LIMIT -1"),
		c("SET str v"), c("ZUNION 2 a str"), c("ZINTER 1 nosuch")),
	tc("z stores", c("ZADD a 1 x 2 y"), c("ZADD b 3 y 4 w"), c("ZUNIONSTORE d 2 a b"), c("ZRANGE d 0 -1 WITHSCORES"), c("ZINTERSTORE d 2 a b WEIGHTS 1 -1"), c("ZRANGE d 0 -1 WITHSCORES"),
		c("ZDIFFSTORE d 2 a b"), c("ZRANGE d 0 -1 WITHSCORES"), c("ZINTERSTORE d 2 a nosuch"), c("EXISTS d"), c("ZUNIONSTORE d 1 a WITHSCORES"), c("ZUNIONSTORE d 0 a")),
	tc("z infinities", c("ZADD a inf x -inf y"), c("ZADD b -inf x inf y"), c("ZUNION 2 a b WITHSCORES"), c("ZINTER 2 a b WEIGHTS 0 1 WITHSCORES"), c("ZUNION 1 a WEIGHTS 0 WITHSCORES")),
	tc("zscan zrandmember", c("ZADD z 1 a 2 b"), c("ZSCAN z 0"), c("ZSCAN z 0 MATCH a"), c("ZSCAN nosuch 0"), c("ZADD o 1.5 only"), c("ZRANDMEMBER o"), c("ZRANDMEMBER o 1 WITHSCORES"),
		c("ZRANDMEMBER o -2 WITHSCORES"), c("ZRANDMEMBER o 3"), c("ZRANDMEMBER nosuch"), c("ZRANDMEMBER nosuch 1"), c("ZRANDMEMBER o 1 x"), c("ZRANDMEMBER z 5 WITHSCORES"),
		c("ZRANDMEMBER z 1").with(lengthOnly), c("ZRANDMEMBER o 4611686018427387904 WITHSCORES")),
	tc("zset wrongtype", c("SET s v"), c("ZADD s 1 a"), c("ZSCORE s a"), c("ZRANGE s 0 -1"), c("ZCARD s"), c("ZREM s a"), c("ZPOPMIN s"), c("ZINCRBY s 1 a"), c("ZRANK s a"),
		c("ZCOUNT s 0 1"), c("ZRANGESTORE d s 0 1"), c("HSET h f v"), c("ZRANGE h 0 -1"), c("ZMSCORE s a")),
	tc("zset encodings", bigZSet("z", 200), c("ZCARD z"), c("ZRANGE z 100 102 WITHSCORES"), c("ZRANK z m150"), c("ZREVRANK z m150"), c("ZCOUNT z 50 (60"), c("ZRANGE z (190 +inf BYSCORE"),
		c("ZRANGE z +inf (190 BYSCORE REV LIMIT 2 3 WITHSCORES"), c("ZREM z m0 m1"), c("ZPOPMAX z 2"), c("ZREMRANGEBYRANK z 0 99"), c("ZCARD z"), c("ZRANGE z 0 4"),
		cmd("ZADD", "long", "1", "x"), cmd("ZADD", "long", "2", "m_______________________________________________________________long"), c("ZRANGE long 0 -1 WITHSCORES"),
		c("ZRANGESTORE small z 0 9"), c("ZRANGE small 0 -1"), c("ZUNIONSTORE u 2 z small"), c("ZCARD u")),
	tc("zset score ranges on the index", tiedZSet("z", 300), c("ZRANGEBYSCORE z -inf +inf LIMIT 0 5"), c("ZREVRANGEBYSCORE z +inf -inf LIMIT 0 5 WITHSCORES"),
		c("ZRANGEBYSCORE z (-inf (+inf LIMIT 0 3"), c("ZRANGEBYSCORE z +inf +inf"), c("ZRANGEBYSCORE z (+inf +inf"), c("ZRANGEBYSCORE z -inf (-inf"), c("ZRANGEBYSCORE z 0 0 WITHSCORES"),
		c("ZRANGEBYSCORE z (-0 0"), c("ZRANGEBYSCORE z -0 (1"), c("ZRANGEBYSCORE z (2 3 WITHSCORES"), c("ZRANGEBYSCORE z 2.5 2.5"), c("ZREVRANGEBYSCORE z (3 (2"),
		c("ZRANGEBYSCORE z -inf +inf LIMIT 100 4"), c("ZRANGEBYSCORE z 0 +inf LIMIT 63 3"), c("ZRANGEBYSCORE z 0 +inf LIMIT 64 3"), c("ZRANGEBYSCORE z (0 5 LIMIT 70 10 WITHSCORES"),
		c("ZREVRANGEBYSCORE z 5 (0 LIMIT 70 10"), c("ZREVRANGEBYSCORE z +inf -inf LIMIT 250 100"), c("ZRANGEBYSCORE z -inf +inf LIMIT 299 5"), c("ZRANGEBYSCORE z -inf +inf LIMIT 300 5"),
		c("ZRANGE z 3 -3 BYSCORE REV LIMIT 1 4 WITHSCORES"), c("ZCOUNT z (0 +inf"), c("ZCOUNT z -inf -inf"), c("ZRANGESTORE d z (1 4 BYSCORE LIMIT 65 5"), c("ZRANGE d 0 -1 WITHSCORES"),
		c("ZREMRANGEBYSCORE z (8 +inf"), c("ZREMRANGEBYSCORE z -inf -10"), c("ZREMRANGEBYSCORE z -0 0"), c("ZCARD z"), c("ZRANGE z 0 -1 WITHSCORES"),
		tiedZSet("p", 100), c("ZREMRANGEBYSCORE p (1 (5"), c("ZREMRANGEBYSCORE p -inf -9"), c("ZREMRANGEBYRANK p 10 20"), c("ZRANGE p 0 -1 WITHSCORES"), c("ZREMRANGEBYSCORE p -inf +inf"),
		c("EXISTS p")),
	tc("zset resp3", c("HELLO 3").with(helloID), c("ZADD z 1 a 2 b"), c("ZRANGE z 0 -1 WITHSCORES"), c("ZSCORE z a"), c("ZMSCORE z a x"), c("ZINCRBY z 1 a"), c("ZPOPMIN z"),
		c("ZPOPMIN z 1"), c("ZADD z 3 c"), c("ZMPOP 1 z MAX"), c("ZMPOP 1 nosuch MIN"), c("ZADD z 1 x"), c("ZUNION 1 z WITHSCORES"), c("ZRANDMEMBER z 1 WITHSCORES"), c("ZSCAN z 0"), c("ZADD z INCR 1 x")),
	tc("zset in multi and lua", c("MULTI"), c("ZADD z 1 a"), c("ZINCRBY z 2 a"), c("ZRANGE z 0 -1 WITHSCORES"), c("EXEC"),
		ev("redis.call('zadd', KEYS[1], 1.5, 'a', 2, 'b') return redis.call('zrange', KEYS[1], 0, -1, 'withscores')", 1, "y"),
		ev("return redis.call('zscore', KEYS[1], 'a')", 1, "y"), ev("redis.setresp(3) return redis.call('zscore', KEYS[1], 'a')", 1, "y"),
		ev("redis.setresp(3) return redis.call('zrange', KEYS[1], 0, -1, 'withscores')", 1, "y"), ev("return redis.pcall('zadd', KEYS[1], 'x', 'y')", 1, "y")),
	// The semaphore of the lock libraries: drop stale holders, count, join.
	tc("semaphore script", ev("redis.call('zremrangebyscore', KEYS[1], '-inf', ARGV[1]) if redis.call('zcard', KEYS[1]) < tonumber(ARGV[3]) then redis.call('zadd', KEYS[1], ARGV[2], ARGV[4]) return 1 end return 0", 1, "sem", "100", "200", "2", "a"),
		ev("redis.call('zremrangebyscore', KEYS[1], '-inf', ARGV[1]) if redis.call('zcard', KEYS[1]) < tonumber(ARGV[3]) then redis.call('zadd', KEYS[1], ARGV[2], ARGV[4]) return 1 end return 0", 1, "sem", "100", "200", "2", "b"),
		ev("redis.call('zremrangebyscore', KEYS[1], '-inf', ARGV[1]) if redis.call('zcard', KEYS[1]) < tonumber(ARGV[3]) then redis.call('zadd', KEYS[1], ARGV[2], ARGV[4]) return 1 end return 0", 1, "sem", "100", "200", "2", "c"),
		ev("redis.call('zremrangebyscore', KEYS[1], '-inf', ARGV[1]) if redis.call('zcard', KEYS[1]) < tonumber(ARGV[3]) then redis.call('zadd', KEYS[1], ARGV[2], ARGV[4]) return 1 end return 0", 1, "sem", "250", "300", "2", "c"),
		c("ZRANGE sem 0 -1 WITHSCORES")),
}

// randomZSetCases run generated sorted-set commands over two keys, with
// ties, infinities and ranges of every kind, crossing the packed
// encoding's limits.
func randomZSetCases(r *rand.Rand, n int) []diffCase {
	member := func() string { return string(rune('a' + r.IntN(8))) }
	score := func() string {
		return []string{"0", "1", "-1", "2.5", "inf", "-inf", "3", "1e3", "0.1", strconv.Itoa(r.IntN(20))}[r.IntN(10)]
	}
	bound := func() string {
		b := []string{"-inf", "+inf", "0", "1", "2.5", "3", "(1", "(3", "10"}[r.IntN(9)]
		return b
	}
	lex := func() string { return []string{"-", "+", "[a", "(b", "[d", "(f", "[h"}[r.IntN(7)] }
	key := func() string { return []string{"x", "y"}[r.IntN(2)] }
	var cases []diffCase
	for i := range n {
		var steps []step
		for range 25 {
			switch r.IntN(16) {
			case 0, 1:
				steps = append(steps, cmd("ZADD", key(), score(), member(), score(), member()))
			case 2:
				opts := [][]string{{"NX"}, {"XX"}, {"GT"}, {"LT"}, {"CH"}, {"XX", "GT", "CH"}, {"INCR"}}[r.IntN(7)]
				args := append([]string{"ZADD", key()}, opts...)
				steps = append(steps, cmd(append(args, score(), member())...))
			case 3:
				steps = append(steps, cmd("ZINCRBY", key(), score(), member()))
			case 4:
				steps = append(steps, cmd("ZREM", key(), member(), member()))
			case 5:
				steps = append(steps, cmd("ZRANGE", key(), strconv.Itoa(r.IntN(6)-3), strconv.Itoa(r.IntN(6)-3), "WITHSCORES"))
			case 6:
				args := []string{"ZRANGE", key(), bound(), bound(), "BYSCORE"}
				if r.IntN(2) == 0 {
					args = append(args, "REV")
				}
				if r.IntN(2) == 0 {
					args = append(args, "LIMIT", strconv.Itoa(r.IntN(4)), strconv.Itoa(r.IntN(4)-1))
				}
				steps = append(steps, cmd(args...))
			case 7:
				// Lex ranges are specified for equal scores only.
				steps = append(steps, cmd("ZADD", "l", "0", member(), "0", member()), cmd("ZRANGEBYLEX", "l", lex(), lex()), cmd("ZLEXCOUNT", "l", lex(), lex()),
					cmd("ZREMRANGEBYLEX", "l", lex(), lex()))
			case 8:
				steps = append(steps, cmd("ZCOUNT", key(), bound(), bound()), cmd("ZRANK", key(), member()), cmd("ZREVRANK", key(), member()))
			case 9:
				steps = append(steps, cmd([]string{"ZPOPMIN", "ZPOPMAX"}[r.IntN(2)], key(), strconv.Itoa(r.IntN(3))))
			case 10:
				steps = append(steps, cmd([]string{"ZUNIONSTORE", "ZINTERSTORE", "ZDIFFSTORE"}[r.IntN(3)], key(), "2", key(), key()))
			case 11:
				steps = append(steps, cmd("ZUNION", "2", "x", "y", "AGGREGATE", []string{"SUM", "MIN", "MAX"}[r.IntN(3)], "WITHSCORES"))
			case 12:
				steps = append(steps, cmd([]string{"ZREMRANGEBYSCORE", "ZREMRANGEBYRANK"}[r.IntN(2)], key(), strconv.Itoa(r.IntN(4)), strconv.Itoa(r.IntN(4))))
			case 13:
				steps = append(steps, bigZSet(key(), 125+r.IntN(10)))
			case 14:
				steps = append(steps, cmd("ZRANGESTORE", key(), key(), "0", strconv.Itoa(r.IntN(5))))
			default:
				steps = append(steps, cmd("ZMSCORE", key(), member(), member()), cmd("ZCARD", key()))
			}
		}
		cases = append(cases, tc(fmt.Sprintf("zset %d", i), steps...))
	}
	return cases
}
