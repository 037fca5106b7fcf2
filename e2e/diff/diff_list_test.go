package diff_test

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

// bigList pushes n elements e0..e(n-1) of size bytes each onto key.
func bigList(key string, n, size int) step {
	args := []string{"RPUSH", key}
	for i := 0; i < n; i++ {
		e := "e" + strconv.Itoa(i)
		if size > len(e) {
			e += strings.Repeat("x", size-len(e))
		}
		args = append(args, e)
	}
	return cmd(args...)
}

// List commands (t_list.c): every command and error, long lists across
// many chunks, RESP2 and RESP3.
var listCases = []diffCase{
	tc("push pop", c("LPUSH l a b"), c("RPUSH l c d"), c("LRANGE l 0 -1"), c("LLEN l"), c("LPOP l"), c("RPOP l"), c("LRANGE l 0 -1"), c("LPOP l"), c("LPOP l"), c("EXISTS l"), c("LPOP l"), c("RPOP l"), c("TYPE l")),
	tc("pushx", c("LPUSHX l a"), c("RPUSHX l a"), c("EXISTS l"), c("RPUSH l x"), c("LPUSHX l a b"), c("RPUSHX l c"), c("LRANGE l 0 -1")),
	tc("pop count", c("RPUSH l a b c d e"), c("LPOP l 2"), c("RPOP l 2"), c("LPOP l 0"), c("LPOP l 5"), c("EXISTS l"), c("LPOP l 2"), c("RPOP l 2"), c("LPOP l -1"), c("LPOP l x"),
		c("LPOP l 1 2"), c("RPUSH l a"), c("RPOP l 0"), c("RPOP l -5")),
	tc("lrange", c("RPUSH l a b c d e"), c("LRANGE l 1 3"), c("LRANGE l -2 -1"), c("LRANGE l 3 1"), c("LRANGE l -100 100"), c("LRANGE l 5 10"), c("LRANGE l x 1"), c("LRANGE nosuch 0 -1"),
		c("LRANGE l -9223372036854775808 9223372036854775807")),
	tc("lindex lset", c("RPUSH l a b c"), c("LINDEX l 0"), c("LINDEX l -1"), c("LINDEX l 3"), c("LINDEX l -4"), c("LINDEX l x"), c("LINDEX nosuch x"), c("LSET l 1 B"), c("LSET l -1 C"),
		c("LSET l 3 x"), c("LSET l x y"), c("LSET nosuch 0 x"), c("LSET nosuch x y"), c("LRANGE l 0 -1")),
	tc("linsert", c("RPUSH l a b c b"), c("LINSERT l BEFORE b X"), c("LINSERT l AFTER b Y"), c("LINSERT l after c Z"), c("LINSERT l BEFORE nosuch X"), c("LINSERT l MIDDLE b X"),
		c("LINSERT nosuch BEFORE a b"), c("LRANGE l 0 -1")),
	tc("ltrim", c("RPUSH l a b c d e"), c("LTRIM l 1 -2"), c("LRANGE l 0 -1"), c("LTRIM l 5 10"), c("EXISTS l"), c("LTRIM nosuch 0 1"), c("LTRIM l x 1"), c("RPUSH l a b"), c("LTRIM l -1 -1"), c("LRANGE l 0 -1")),
	tc("lpos", c("RPUSH l a b c a b c a"), c("LPOS l a"), c("LPOS l a RANK 2"), c("LPOS l a RANK -1"), c("LPOS l a RANK -2"), c("LPOS l a COUNT 0"), c("LPOS l a COUNT 2"),
		c("LPOS l a RANK 2 COUNT 0"), c("LPOS l a MAXLEN 3"), c("LPOS l c MAXLEN 2"), c("LPOS l a RANK -1 COUNT 2 MAXLEN 3"), c("LPOS l x"), c("LPOS l x COUNT 2"), c("LPOS nosuch a"),
		c("LPOS nosuch a COUNT 1"), c("LPOS l a RANK 0"), c("LPOS l a COUNT -1"), c("LPOS l a MAXLEN -1"), c("LPOS l a RANK x"), c("LPOS l a COUNT x"), c("LPOS l a FOO 1"), c("LPOS l a RANK")),
	tc("lrem", c("RPUSH l a b a c a"), c("LREM l 2 a"), c("LRANGE l 0 -1"), c("RPUSH l a a"), c("LREM l -1 a"), c("LRANGE l 0 -1"), c("LREM l 0 a"), c("LRANGE l 0 -1"), c("LREM l 0 nosuch"),
		c("LREM l x a"), c("LREM nosuch 1 a"), c("LREM l 0 b"), c("LREM l 0 c"), c("EXISTS l")),
	tc("lmove rpoplpush", c("RPUSH a 1 2 3"), c("LMOVE a b LEFT RIGHT"), c("LMOVE a b RIGHT LEFT"), c("LRANGE a 0 -1"), c("LRANGE b 0 -1"), c("RPOPLPUSH a b"), c("EXISTS a"),
		c("RPOPLPUSH a b"), c("LMOVE b b LEFT RIGHT"), c("LRANGE b 0 -1"), c("LMOVE b b RIGHT LEFT"), c("LMOVE a b UP LEFT"), c("LMOVE a b LEFT DOWN"), c("SET s v"), c("LMOVE b s LEFT LEFT"),
		c("LMOVE s b LEFT LEFT"), c("LMOVE nosuch s LEFT LEFT"), c("LRANGE b 0 -1"), c("RPUSH one x"), c("RPOPLPUSH one one"), c("LRANGE one 0 -1")),
	tc("lmpop", c("RPUSH a 1 2 3"), c("RPUSH b 4"), c("LMPOP 2 nosuch a LEFT"), c("LMPOP 2 a b RIGHT COUNT 5"), c("LMPOP 2 a b LEFT"), c("LMPOP 1 b LEFT"), c("LMPOP 0 a LEFT"),
		c("LMPOP x a LEFT"), c("LMPOP 3 a LEFT"), c("LMPOP 1 a UP"), c("LMPOP 1 a LEFT COUNT 0"), c("LMPOP 1 a LEFT COUNT x"), c("LMPOP 1 a LEFT COUNT 1 COUNT 1"), c("SET s v"), c("LMPOP 2 s a LEFT")),
	tc("list wrongtype", c("SET s v"), c("LPUSH s a"), c("RPUSHX s a"), c("LPOP s"), c("LPOP s 2"), c("LLEN s"), c("LRANGE s 0 -1"), c("LINDEX s 0"), c("LSET s 0 x"), c("LINSERT s BEFORE a b"),
		c("LTRIM s 0 1"), c("LPOS s a"), c("LREM s 0 a"), c("RPOPLPUSH s d"), c("RPUSH l x"), c("GET l"), c("SADD l x")),
	tc("long lists", bigList("l", 2000, 20), c("LLEN l"), c("LINDEX l 1000"), c("LINDEX l -1000"), c("LRANGE l 995 1005"), c("LSET l 1500 X"), c("LINDEX l 1500"), c("LINSERT l BEFORE e700 Y"),
		c("LINDEX l 700"), c("LREM l 0 Y"), c("LPOS l e1999"), c("LPOS l e3 RANK -1"), c("LTRIM l 100 -100"), c("LLEN l"), c("LPOP l 3"), c("RPOP l 3"), c("LRANGE l -5 -1"),
		bigList("big", 50, 3000), c("LINDEX big 25"), c("LRANGE big 48 100")),
	// COPY shares a list's chunks until either list writes one: each
	// write to either copy stays out of the other.
	tc("copy of a long list", bigList("l", 2000, 20), c("COPY l d"), c("LSET d 1000 X"), c("RPUSH l Y"), c("LPUSH d Z"), c("LINSERT l BEFORE e500 W"),
		c("LREM d -2 e1999"), c("RPOP l 2"), c("LTRIM d 10 -10"), c("COPY d e"), c("LREM e 0 X"), c("LPOP d 3"), c("LINDEX l 1000"), c("LINDEX d 990"),
		c("LRANGE l 0 -1"), c("LRANGE d 0 -1"), c("LRANGE e 0 -1"), c("LPOS e e1500"), c("DEL l"), c("RPUSH d last"), c("LRANGE d -3 -1"), c("LLEN e")),
	tc("list resp3", c("HELLO 3").with(helloID), c("RPUSH l a b"), c("LPOP l 1"), c("LPOP nosuch 1"), c("LPOP nosuch"), c("LMPOP 1 nosuch LEFT"), c("LPOS l x"), c("LINDEX l 9"), c("RPOPLPUSH nosuch x")),
	tc("list in multi and lua", c("MULTI"), c("RPUSH l a"), c("LPUSH l b"), c("LRANGE l 0 -1"), c("EXEC"),
		ev("redis.call('rpush', KEYS[1], 1, 2, 3) return redis.call('lrange', KEYS[1], 0, -1)", 1, "q"), ev("return redis.call('lpop', KEYS[1])", 1, "q"),
		ev("return redis.call('lpos', KEYS[1], 'x')", 1, "q"), ev("return redis.call('rpop', KEYS[1], 5)", 1, "q"), ev("return redis.call('lpop', KEYS[1])", 1, "q")),
}

// randomListCases run generated list commands over two keys, with
// pushes, pops, inserts, trims and moves reading the lists back.
func randomListCases(r *rand.Rand, n int) []diffCase {
	elem := func() string { return string(rune('a' + r.IntN(5))) }
	key := func() string { return []string{"x", "y"}[r.IntN(2)] }
	idx := func() string { return strconv.Itoa(r.IntN(12) - 6) }
	side := func() string { return []string{"LEFT", "RIGHT"}[r.IntN(2)] }
	var cases []diffCase
	for i := range n {
		var steps []step
		for range 25 {
			switch r.IntN(13) {
			case 0, 1:
				steps = append(steps, cmd([]string{"LPUSH", "RPUSH", "LPUSHX", "RPUSHX"}[r.IntN(4)], key(), elem(), elem()))
			case 2:
				steps = append(steps, cmd([]string{"LPOP", "RPOP"}[r.IntN(2)], key()), cmd([]string{"LPOP", "RPOP"}[r.IntN(2)], key(), strconv.Itoa(r.IntN(3))))
			case 3:
				steps = append(steps, cmd("LRANGE", key(), idx(), idx()))
			case 4:
				steps = append(steps, cmd("LINDEX", key(), idx()), cmd("LSET", key(), idx(), elem()))
			case 5:
				steps = append(steps, cmd("LINSERT", key(), []string{"BEFORE", "AFTER"}[r.IntN(2)], elem(), elem()))
			case 6:
				steps = append(steps, cmd("LREM", key(), idx(), elem()))
			case 7:
				steps = append(steps, cmd("LTRIM", key(), idx(), idx()))
			case 8:
				steps = append(steps, cmd("LPOS", key(), elem(), "RANK", []string{"1", "2", "-1", "-2"}[r.IntN(4)], "COUNT", strconv.Itoa(r.IntN(3))))
			case 9:
				steps = append(steps, cmd("LMOVE", key(), key(), side(), side()))
			case 10:
				steps = append(steps, cmd("LMPOP", "2", key(), key(), side(), "COUNT", strconv.Itoa(1+r.IntN(3))))
			case 11:
				steps = append(steps, bigList(key(), 300, 30))
			default:
				steps = append(steps, cmd("LLEN", key()), cmd("LRANGE", key(), "0", "-1"))
			}
		}
		cases = append(cases, tc(fmt.Sprintf("list %d", i), steps...))
	}
	return cases
}
