package diff_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/minilock/minilock/internal/redistest"
)

// SORT, SORT_RO and SWAPDB.
//
// Redis's SORT tests strtod's errno without clearing it first, so once a
// score was out of a double's range (ERANGE), every later SORT whose
// scores are not integer-encoded fails in that redis-server until some
// command clears errno; minilock judges each score alone
// (docs/differences.md). errnoReset clears it in Redis (ZADD's score
// parsing sets errno to 0) and changes nothing: each case starts with it,
// and the generated cases send it after every SORT.
var errnoReset = c("ZADD errno-reset XX 1 m")

func sortCase(name string, steps ...step) diffCase {
	return tc(name, append([]step{errnoReset}, steps...)...)
}

var sortCases = []diffCase{
	sortCase("sort numbers and words", c("RPUSH l 3 1 2 10 -5 1.5 -inf +inf 0x10 1e3"), c("SORT l"), c("SORT l DESC"), c("SORT l ALPHA"),
		c("SORT l ALPHA DESC"), c("SORT l LIMIT 2 3"), c("SORT l DESC LIMIT 0 1"), c("SORT_RO l"), c("SORT_RO l ALPHA LIMIT 1 -1"),
		c("RPUSH l b"), c("SORT l"), c("SORT l ALPHA")),
	sortCase("sort equal scores by bytes", cmd("RPUSH", "l", "1.0", "1", "01", " 1", "1e0", "+1", "-0", "0", "0.0", ""), c("SORT l"), c("SORT l DESC"),
		c("SORT l LIMIT 1 4")),
	sortCase("sort score parsing", cmd("RPUSH", "l", " 5", "\t6", "0X1p3", "4\x00zz", "-Infinity", "infinity", "0x1p-1074", "1e-300", "0.0e-999999"),
		c("SORT l"), cmd("RPUSH", "bad", "3  "), c("SORT bad"), cmd("RPUSH", "nan", "nan"), c("SORT nan"), cmd("RPUSH", "e", "."), c("SORT e"),
		cmd("RPUSH", "x", "1e"), c("SORT x"), cmd("RPUSH", "h", "0x"), c("SORT h"),
		cmd("RPUSH", "big", "1.7976931348623159e308"), c("SORT big"), errnoReset,
		cmd("RPUSH", "sub", "4.9e-324"), c("SORT sub"), errnoReset, cmd("RPUSH", "sub2", "2.2250738585072011e-308"), c("SORT sub2"), errnoReset,
		cmd("RPUSH", "min", "2.2250738585072014e-308", "0x1.8p-1023", "1e-400"), c("SORT min"), errnoReset, c("SORT min ALPHA")),
	sortCase("sort alpha bytes", cmd("RPUSH", "l", "\xc3\xa9", "z", "\xff", "a\x00b", "a\x00a", "B", "a", "\xc3\xa8", "\x80", ""),
		c("SORT l ALPHA"), c("SORT l ALPHA DESC"), c("SORT l ALPHA STORE d"), c("LRANGE d 0 -1"), c("SORT l ALPHA DESC STORE d"), c("LRANGE d 0 -1")),
	sortCase("sort by weights", c("RPUSH l 3 1 2 4"), c("MSET w_3 1 w_1 3 w_2 2 o_1 one o_2 two o_3 three"),
		c("SORT l BY w_*"), c("SORT l BY w_* DESC"), c("SORT l BY w_* GET # GET o_*"), c("SORT l BY w_* GET o_* GET w_* GET nosuch_*"),
		c("SORT l BY w_* LIMIT 1 2"), c("SORT l BY w_* LIMIT 1 2 GET o_*"), c("SORT l BY w_* ALPHA"), c("SORT l BY w_* ALPHA DESC"),
		c("SORT l BY nosuch_* ALPHA"), c("SORT l BY nosuch_*"), c("SORT l BY w_* GET #"), c("SORT l GET o_* GET #"), c("SORT l GET k")),
	// ALPHA BY values that tie: the whole sort keeps the list's order
	// (glibc's qsort is a stable merge sort), a LIMIT's partial one
	// leaves them as pqsort.c does.
	sortCase("sort ties", tieList("t", 45), tieWeights(45), c("SORT t BY w_* ALPHA"), c("SORT t BY w_* ALPHA DESC"), c("SORT t BY w_* ALPHA LIMIT 5 10"),
		c("SORT t BY w_* ALPHA DESC LIMIT 0 7"), c("SORT t BY nosuch_* ALPHA LIMIT 3 4"), c("SORT t BY w_* ALPHA LIMIT 20 30"),
		c("SORT t BY w_* ALPHA LIMIT 40 3 GET w_*"), c("SORT t BY w_* ALPHA LIMIT 1 1 STORE d"), c("LRANGE d 0 -1")),
	sortCase("sort by hash fields", c("RPUSH l 3 1 2"), c("HSET h_1 f 30 g b"), c("HSET h_2 f 20 g a"), c("HSET h_3 f 10"),
		c("SORT l BY h_*->f"), c("SORT l BY h_*->g ALPHA"), c("SORT l BY h_*->f GET h_*->g GET # GET h_*->f"), c("SORT l BY h_*->nosuch"),
		c("SORT l GET h_*->"), c("SET h_1-> x"), c("SORT l GET h_*->"), c("SORT l GET h_*->f->g"), c("SET w_1 v"), c("SORT l GET w_*->f"),
		cmd("SORT", "l", "GET", "h_*->f\x00g"), cmd("SORT", "l", "GET", "h_*->\x00f"), c("SORT l GET **->f"), c("SORT l GET h*_->f")),
	sortCase("sort patterns with NUL", c("RPUSH l 1 2"), c("MSET w_1 b w_2 a"), cmd("SORT", "l", "BY", "w_\x00*"), cmd("SORT", "l", "BY", "w_*\x00", "ALPHA"),
		cmd("SORT", "l", "GET", "#\x00x"), cmd("SORT", "l", "GET", "\x00*"), cmd("SORT", "l", "asc\x00x", "DESC\x00"), cmd("SORT", "l", "LIMIT\x00", "0", "1")),
	sortCase("sort by nosort", c("RPUSH l c a b d"), c("SORT l BY nosort"), c("SORT l BY nosort DESC"), c("SORT l BY nosort LIMIT 1 2"),
		c("SORT l BY nosort DESC LIMIT 1 2"), c("SORT l BY nosort LIMIT 3 10"), c("SORT l BY nosort LIMIT 10 1"), c("SORT l BY nosort LIMIT 0 0"),
		c("SORT l BY nosort LIMIT -5 -3"), c("SORT l BY constant GET #"), c("SORT l BY nosort BY w_*"), c("SORT l BY w_* BY nosort ALPHA"),
		c("ZADD z 3 a 1 b 2 c 2 bb"), c("SORT z BY nosort"), c("SORT z BY nosort DESC"), c("SORT z BY nosort LIMIT 1 2"),
		c("SORT z BY nosort DESC LIMIT 1 2"), c("SORT z BY nosort LIMIT 4 1"), c("SORT z BY nosort STORE d"), c("LRANGE d 0 -1"),
		c("SADD i 5 3 9 1"), c("SORT i BY nosort"), c("SORT i BY nosort LIMIT 1 2"), c("SORT i BY nosort DESC"), c("SORT i BY nosort STORE d"),
		c("LRANGE d 0 -1"), c("SADD s b a c"), c("SORT s BY nosort").with(sorted), c("SORT s BY nosort STORE d"), c("LRANGE d 0 -1")),
	sortCase("sort limits", c("RPUSH l 5 4 3 2 1"), c("SORT l LIMIT 0 -1"), c("SORT l LIMIT -1 2"), c("SORT l LIMIT 2 -7"), c("SORT l LIMIT 5 1"),
		c("SORT l LIMIT 4 9223372036854775807"), c("SORT l LIMIT 9223372036854775807 9223372036854775807"),
		c("SORT l LIMIT -9223372036854775808 -9223372036854775808"), c("SORT l LIMIT 1 1 LIMIT 0 2"), c("SORT l LIMIT 0"), c("SORT l LIMIT x 1"),
		c("SORT l LIMIT 1 x"), c("SORT l LIMIT 9223372036854775808 1"), c("SORT l BY w_* LIMIT 9223372036854775807 1"),
		c("SORT nosuch LIMIT 1 2"), c("SORT nosuch BY nosort LIMIT 0 1"), c("SORT nosuch BY w_* LIMIT 0 9223372036854775807")),
	sortCase("sort sets and sorted sets", c("SADD s 5 3 9 1 -2"), c("SORT s"), c("SORT s DESC LIMIT 1 2"), c("SADD t b a c 10"), c("SORT t ALPHA"),
		c("SORT t"), c("ZADD z 1 c 2 b 3 a"), c("SORT z ALPHA"), c("SORT z ALPHA DESC"), c("OBJECT ENCODING z"), c("SORT_RO z BY nosort DESC"),
		c("ZADD y 1 10 2 5 3 7"), c("SORT y"), c("SORT y BY nosort"), c("SORT y BY nosort STORE d"), c("LRANGE d 0 -1"), c("TYPE d"),
		c("OBJECT ENCODING y")),
	sortCase("sort store", c("RPUSH l 3 1 2"), c("SET d old EX 100"), c("SORT l STORE d"), c("TTL d"), c("TYPE d"), c("LRANGE d 0 -1"),
		c("SORT l STORE d GET nosuch_* GET #"), c("LRANGE d 0 -1"), c("SORT nosuch STORE d"), c("EXISTS d"), c("SORT l STORE l"), c("LRANGE l 0 -1"),
		c("SORT l LIMIT 0 0 STORE d2"), c("EXISTS d2"), c("SORT l STORE a STORE b"), c("EXISTS a b"), c("SORT l STORE"), c("SADD s x"),
		c("SORT l BY nosort STORE s"), c("TYPE s"), c("OBJECT ENCODING s")),
	sortCase("sort errors", c("SET str x"), c("SORT str"), c("SORT str FOO"), c("SORT str LIMIT 1"), c("RPUSH l a"), c("SORT l"), c("SORT l BY"),
		c("SORT l GET"), c("SORT l FOO"), c("SORT_RO l STORE d"), c("SORT_RO str"), c("HSET h f v"), c("SORT h"), c("XADD st 1-1 f v"), c("SORT st"),
		c("SORT"), c("SORT_RO"), c("SORT l LIMIT x y FOO"), c("SORT str ALPHA STORE d"), c("EXISTS d")),
	sortCase("sort reads count hits", c("RPUSH l 1 2"), c("SET w_1 1"), c("SORT l BY w_* GET o_*"), c("SORT nosuch"),
		c("INFO stats").with(infoValues("keyspace_hits", "keyspace_misses"))),
	sortCase("sort in multi", c("RPUSH l 2 1"), c("MULTI"), c("SORT l"), c("SORT l STORE d"), c("SORT_RO d DESC"), c("SORT l FOO"), c("EXEC"),
		c("MULTI"), c("SORT l LIMIT x"), c("SORT l"), c("EXEC")),
	sortCase("sort watched store", c("RPUSH l 2 1"), c("WATCH d"), c("SORT l STORE d").on(1), c("MULTI"), c("PING"), c("EXEC"),
		c("WATCH l"), c("SORT l").on(1), c("SORT l STORE x").on(1), c("MULTI"), c("PING"), c("EXEC"),
		c("WATCH d"), c("SORT nosuch STORE d").on(1), c("MULTI"), c("PING"), c("EXEC")),
	sortCase("sort store wakes a blocked pop", parkOn(1, "BLPOP d 0"), c("RPUSH l b a"), c("SORT l ALPHA STORE d"), recv(1, 1), c("LRANGE d 0 -1")),
	// A script sorts a set it asks for BY a constant (ALPHA), so its
	// result is the same on every replica; a client gets the set's order.
	sortCase("sort in scripts", c("SADD s b c a"), c("SADD i 3 1 2"), c("RPUSH l 2 3 1"),
		ev("return redis.call('sort', KEYS[1], 'by', 'nosort')", 1, "s"), ev("return redis.call('sort', KEYS[1], 'by', 'nosort', 'desc')", 1, "s"),
		ev("return redis.call('sort', KEYS[1], 'by', 'nosort', 'get', '#', 'limit', 1, 1)", 1, "s"),
		ev("return redis.call('sort', KEYS[1], 'by', 'nosort')", 1, "l"), ev("return redis.call('sort', KEYS[1])", 1, "l"),
		ev("return redis.call('sort_ro', KEYS[1], 'alpha', 'desc')", 1, "i"), evRO("return redis.call('sort_ro', KEYS[1], 'by', 'nosort')", 1, "s"),
		evRO("return redis.pcall('sort', KEYS[1])", 1, "l"), ev("return redis.pcall('sort', KEYS[1], 'foo')", 1, "l"),
		ev("return redis.call('sort', KEYS[1], 'store', KEYS[2])", 2, "l", "d"), c("LRANGE d 0 -1"),
		ev("redis.setresp(3) return redis.call('sort', KEYS[1], 'get', 'nosuch_*')", 1, "l"),
		ev("return redis.call('sort', KEYS[1], 'get', 'nosuch_*')", 1, "l")),
	sortCase("sort resp3", c("HELLO 3").with(helloID), c("RPUSH l 2 1"), c("SORT l GET # GET nosuch_*"), c("SORT l STORE d"), c("SORT nosuch")),
	sortCase("sort big list", numberList("l", 1000), c("SORT l LIMIT 990 20"), c("SORT l DESC LIMIT 0 3"), c("SORT l ALPHA LIMIT 500 3"),
		c("SORT l BY nosort LIMIT 700 2"), c("SORT l BY nosort DESC LIMIT 700 2"), c("SORT l STORE d"), c("LINDEX d 999"), c("LLEN d")),
	notifyCase("sort notifications", "KEA", c("RPUSH l 2 1"), recv(1, 2), c("SORT l STORE d"), recv(1, 2), c("SORT l STORE d"), recv(1, 2),
		c("SORT nosuch STORE d"), recv(1, 2), c("SORT nosuch STORE d"), c("SORT l"), c("SORT_RO l")),
	notifyCase("sort keymiss", "KEm", c("SORT nosuch"), recv(1, 2), c("RPUSH l 1"), c("SORT l BY w_* GET o_* GET #"), recv(1, 4)),
	notifyCase("swapdb sends no event", "KEA", c("SET a 1"), recv(1, 2), c("SWAPDB 0 1"), c("SWAPDB 1 0"), c("GET a")),
}

// tieList fills key with n elements e0.. in a shuffled order; tieWeights
// gives them the BY values w_* "a", "b" or none in turn.
func tieList(key string, n int) step {
	args := []string{"RPUSH", key}
	for i := range n {
		args = append(args, "e"+strconv.Itoa((i*37)%n))
	}
	return cmd(args...)
}

func tieWeights(n int) step {
	args := []string{"MSET"}
	for i := range n {
		if i%3 < 2 {
			args = append(args, "w_e"+strconv.Itoa(i), string(rune('a'+i%3)))
		}
	}
	return cmd(args...)
}

// numberList fills key with n numbers, a few of them equal.
func numberList(key string, n int) step {
	args := []string{"RPUSH", key}
	for i := range n {
		args = append(args, strconv.Itoa((i*7919)%(n/2)))
	}
	return cmd(args...)
}

// sortMetaCases are not sent the variants' ways: Lua's tables reorder
// COMMAND's flag sets.
var sortMetaCases = []diffCase{
	sortCase("sort keys", c("COMMAND GETKEYS SORT a STORE b"), c("COMMAND GETKEYS SORT a LIMIT 0 1 STORE b GET store STORE c"),
		c("COMMAND GETKEYSANDFLAGS SORT a STORE b"), c("COMMAND GETKEYS SORT_RO a BY x GET y"), c("COMMAND GETKEYS SORT a STORE"),
		c("COMMAND GETKEYS SORT a LIMIT store x store y"), c("COMMAND GETKEYSANDFLAGS SORT_RO a"),
		c("COMMAND INFO sort sort_ro swapdb"), c("COMMAND DOCS sort"), c("COMMAND DOCS sort_ro"), c("COMMAND DOCS swapdb")),
}

var swapdbCases = []diffCase{
	tc("swapdb errors", c("SWAPDB 0 x"), c("SWAPDB x 0"), c("SWAPDB x y"), c("SWAPDB 0 16"), c("SWAPDB -1 0"), c("SWAPDB 0 2147483648"),
		c("SWAPDB -2147483649 0"), c("SWAPDB 0 -2147483648"), c("SWAPDB 1.5 0"), c("SWAPDB 0"), c("SWAPDB 0 1 2"), c("SWAPDB 3 3")),
	tc("swapdb data and deadlines", c("SET a 0"), c("SET t v EX 100"), c("RPUSH l x"), c("SELECT 1"), c("SET b 1"), c("HSET h f v"),
		c("SWAPDB 0 1"), c("GET a"), c("TTL t"), c("LRANGE l 0 -1"), c("GET b"), c("DBSIZE"), c("SELECT 0"), c("GET b"), c("HGET h f"),
		c("DBSIZE"), c("INFO keyspace").with(avgTTL), c("SWAPDB 1 0"), c("TTL t"), c("GET b"), c("SWAPDB 0 5"), c("DBSIZE"), c("SELECT 5"), c("KEYS *").with(sorted)),
	tc("swapdb expiry follows the data", c("SET a v PX 30"), c("SWAPDB 0 1"), pause(60*time.Millisecond), c("DBSIZE"), c("SELECT 1"),
		c("GET a"), c("DBSIZE"), c("INFO keyspace")),
	tc("swapdb in multi and scripts", c("SET a 1"), c("MULTI"), c("SWAPDB 0 1"), c("GET a"), c("SWAPDB 0 1"), c("GET a"), c("EXEC"),
		ev("redis.call('swapdb', 0, 1) return redis.call('get', 'a')", 0), c("GET a"), ev("return redis.call('swapdb', 0, 1)", 0),
		evRO("return redis.pcall('swapdb', 0, 1)", 0), ev("return redis.pcall('swapdb', 0, 99)", 0)),
	tc("swapdb fails a watch on a key the swap brings", c("SELECT 1"), c("SET k v"), c("WATCH k").on(1), c("SWAPDB 0 1"), c("MULTI").on(1),
		c("PING").on(1), c("EXEC").on(1)),
	tc("swapdb fails a watch on a key the swap takes", c("SET k v"), c("WATCH k").on(1), c("SWAPDB 0 1"), c("MULTI").on(1), c("EXEC").on(1)),
	tc("swapdb keeps a watch on a key in neither", c("SELECT 1"), c("SET other v"), c("WATCH k").on(1), c("SWAPDB 0 1"), c("MULTI").on(1),
		c("EXEC").on(1)),
	tc("swapdb keeps a watch in another db", c("SELECT 1"), c("SET k v"), c("SELECT 2").on(1), c("WATCH k").on(1), c("SWAPDB 0 1"),
		c("MULTI").on(1), c("EXEC").on(1)),
	tc("swapdb and a watched expired key", c("SET k v PX 1"), pause(5*time.Millisecond), c("WATCH k").on(1), c("SWAPDB 0 1"),
		c("MULTI").on(1), c("EXEC").on(1), c("SELECT 2"), c("SET k v PX 1"), pause(5*time.Millisecond), c("SELECT 0").on(1), c("WATCH k").on(1),
		c("SWAPDB 0 2"), c("MULTI").on(1), c("EXEC").on(1)),
	tc("swapdb brings an expired key to a watch", c("SELECT 1"), c("SET k v PX 1"), pause(5*time.Millisecond), c("WATCH k").on(1),
		c("SWAPDB 0 1"), c("MULTI").on(1), c("EXEC").on(1)),
	tc("swapdb wakes a blpop in the other db", c("SELECT 1").on(1), parkOn(1, "BLPOP l 0"), c("RPUSH l a b"), c("SWAPDB 0 1"), recv(1, 1),
		c("LRANGE l 0 -1"), c("SELECT 1"), c("LRANGE l 0 -1")),
	tc("swapdb wakes blocked clients in both dbs", c("SELECT 1").on(1), parkOn(1, "BLPOP l 0"), parkOn(2, "BZPOPMIN z 0"), c("RPUSH l x"),
		c("SELECT 1"), c("ZADD z 1 m"), c("SWAPDB 0 1"), recv(1, 1), recv(2, 1), c("DBSIZE")),
	tc("swapdb leaves a pop blocked on another type", parkOn(1, "BLPOP l 0.3"), c("SELECT 1"), c("SET l v"), c("SWAPDB 0 1"),
		recv(1, 1), c("SELECT 0"), c("GET l")),
	tc("swapdb wakes a stream reader", parkOn(1, "XREAD BLOCK 0 STREAMS s $"), c("SELECT 1"), c("XADD s 5-1 f v"), c("SWAPDB 0 1"),
		recv(1, 1)),
	tc("swapdb takes a group reader's stream", c("XADD s 1-1 f v"), c("XGROUP CREATE s g $"), parkOn(1, "XREADGROUP GROUP g c BLOCK 0 STREAMS s >"),
		c("SWAPDB 0 1"), recv(1, 1)),
	tc("swapdb in monitor", c("MONITOR").on(1), c("SWAPDB 0 1"), recv(1, 1).with(monitorLines), c("SWAPDB 0 x"), c("PING"),
		recv(1, 2).with(monitorLines)),
}

// randomSortCases fill a list, set or sorted set with numbers and words
// (and the weight, hash and GET keys its patterns name), then send SORT
// and SORT_RO with every option mix, in any order, with bad options and
// limits at the edges among them. Where Redis's own order is its hash
// table's (a set with words, read BY a constant, or equal ALPHA BY
// values in a set or sorted set, which qsort leaves in that order), the
// case avoids it or compares the elements sorted.
func randomSortCases(r *rand.Rand, n int) []diffCase {
	numbers := []string{"0", "1", "2", "3", "10", "-1", "-7", "42", "100", "1.5", "-2.25", "1e3", "0.1", " 7", "0x10", "inf", "-inf", "007", "-0"}
	words := []string{"a", "b", "B", "ab", "ba", "zz", "\xc3\xa9", "\xff", "x y", ""}
	rare := []string{"nan", "1e400", "4.9e-324", "a\x00b", "a\x00c", "3\x00x"}
	elem := func(list bool) string {
		switch k := r.IntN(20); {
		case k < 11:
			return numbers[r.IntN(len(numbers))]
		case k < 18:
			return words[r.IntN(len(words))]
		case list:
			return rare[r.IntN(len(rare))]
		}
		return strconv.Itoa(r.IntN(1000))
	}
	defaultWeight := func() string {
		if r.IntN(6) == 0 {
			return words[r.IntN(len(words))]
		}
		return numbers[r.IntN(len(numbers))]
	}
	limit := func() string {
		switch r.IntN(5) {
		case 0:
			return []string{"9223372036854775807", "-9223372036854775808", "-1", "0", "x", "9223372036854775808"}[r.IntN(6)]
		case 1:
			return strconv.Itoa(r.IntN(30) - 10)
		}
		return strconv.Itoa(r.IntN(8))
	}
	var cases []diffCase
	for i := range n {
		weight := defaultWeight
		kind := []string{"list", "list", "set", "zset", "intset", "missing", "string"}[r.IntN(7)]
		var elems []string
		seen := map[string]bool{}
		size := r.IntN(12)
		if r.IntN(4) == 0 {
			// Past 12 elements Go's and glibc's sorts stop being
			// insertion sorts: the order of equal elements shows.
			size = 13 + r.IntN(50)
		}
		for range size {
			e := elem(kind == "list")
			if kind == "intset" {
				e = strconv.Itoa(r.IntN(200) - 100)
			}
			if kind != "list" && seen[e] {
				continue
			}
			seen[e] = true
			elems = append(elems, e)
		}
		steps := []step{errnoReset}
		if kind == "list" && r.IntN(2) == 0 {
			// Few distinct BY values: many ties.
			weight = func() string { return []string{"1", "2", "a", "b"}[r.IntN(4)] }
		}
		ints := true // an intset, which Redis walks in order
		for _, e := range elems {
			if n, err := strconv.ParseInt(e, 10, 64); err != nil || strconv.FormatInt(n, 10) != e {
				ints = false
			}
		}
		switch {
		case len(elems) == 0 || kind == "missing":
			elems = nil
		case kind == "list":
			steps = append(steps, cmd(append([]string{"RPUSH", "src"}, elems...)...))
		case kind == "set" || kind == "intset":
			steps = append(steps, cmd(append([]string{"SADD", "src"}, elems...)...))
		case kind == "zset":
			args := []string{"ZADD", "src"}
			for _, e := range elems {
				args = append(args, strconv.Itoa(r.IntN(5)), e)
			}
			steps = append(steps, cmd(args...))
		}
		if kind == "string" {
			steps = append(steps, c("SET src v"))
		}
		// A set's or sorted set's BY values are all there and all
		// different: equal ones would come out in its hash table's order.
		unique := kind != "list"
		used := map[string]bool{}
		for j, e := range elems {
			if !unique && r.IntN(4) == 0 {
				continue
			}
			w := weight()
			if unique {
				for used[w] {
					w += strconv.Itoa(j)
				}
				used[w] = true
			}
			steps = append(steps, cmd("SET", "w_"+e, w), cmd("HSET", "h_"+e, "f", w, "g", "g"+e))
			if r.IntN(2) == 0 {
				steps = append(steps, cmd("SET", "o_"+e, "o"+e))
			}
		}
		for range 6 {
			name := "SORT"
			if r.IntN(4) == 0 {
				name = "SORT_RO"
			}
			args := []string{name, "src"}
			for range r.IntN(6) {
				switch r.IntN(9) {
				case 0:
					by := []string{"w_*", "h_*->f", "nosort", "k", "#"}[r.IntN(5)]
					if kind == "list" && r.IntN(3) == 0 {
						by = []string{"o_*", "nosuch_*", "h_*->g", "h_*->"}[r.IntN(4)]
					}
					args = append(args, "BY", by)
				case 1:
					args = append(args, "LIMIT", limit(), limit())
				case 2:
					args = append(args, "GET", []string{"#", "o_*", "w_*", "h_*->f", "h_*->g", "nosuch_*", "k"}[r.IntN(7)])
				case 3:
					args = append(args, []string{"ASC", "DESC", "desc"}[r.IntN(3)])
				case 4:
					args = append(args, "ALPHA")
				case 5:
					if name == "SORT" || r.IntN(4) == 0 {
						args = append(args, "STORE", "dst")
					}
				case 6:
					if r.IntN(4) == 0 {
						args = append(args, []string{"FOO", "LIMIT", "BY", "STORE"}[r.IntN(4)])
					}
				default:
				}
			}
			// Read the options back as SORT does: a bare BY, STORE or
			// LIMIT takes the words after it.
			dontsort, store, hasLimit, alpha, by := sortOptions(args)
			st := cmd(args...)
			switch {
			case kind == "set" && !ints && dontsort && !store && hasLimit:
				// Which members a LIMIT keeps is the hash table's choice.
				continue
			case kind == "set" && !ints && dontsort && !store:
				st = st.with(sorted)
			case unique && alpha && !dontsort && by != "" && !strings.HasPrefix(by, "w_") && by != "h_*->f":
				continue
			}
			steps = append(steps, st, errnoReset)
			if store {
				steps = append(steps, c("LRANGE dst 0 -1"), c("TYPE dst"))
			}
		}
		cases = append(cases, tc(fmt.Sprintf("sort %d", i), steps...))
	}
	return cases
}

// sortOptions parses SORT's options as sort.c does, for what decides
// whether Redis's own order shows.
func sortOptions(args []string) (dontsort, store, limit, alpha bool, by string) {
	for j := 2; j < len(args); j++ {
		left := len(args) - j - 1
		switch w := strings.ToLower(args[j]); {
		case w == "alpha":
			alpha = true
		case w == "limit" && left >= 2:
			limit = true
			j += 2
		case (w == "get" || w == "store" || w == "by") && left >= 1:
			if w == "by" {
				by = args[j+1]
				dontsort = dontsort || !strings.Contains(by, "*")
			}
			store = store || w == "store" && args[0] == "SORT"
			j++
		}
	}
	return
}

// TestDiffSort runs the SORT and SWAPDB cases, plain and every variant's
// way, and generated SORTs, against redis-server. Rerun a failure of the
// generated ones with -diff.seed.
func TestDiffSort(t *testing.T) {
	redistest.Require(t)
	r := seededRand(t)
	random := randomSortCases(r, 400)
	groups := []caseGroup{
		{"sort", sortCases},
		{"sort via", allVia(sortCases)},
		{"sort meta", sortMetaCases},
		{"swapdb", swapdbCases},
		{"sort random", randomVia(r, random)},
	}
	checkCaseNames(t, groups)
	p := newPair(t, "")
	sorts := 0
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			for _, dc := range g.cases {
				t.Run(dc.name, func(t *testing.T) { p.run(t, dc) })
			}
		})
		if g.name == "sort random" {
			for _, dc := range g.cases {
				sorts += len(slices.DeleteFunc(slices.Clone(dc.steps), func(s step) bool { return !strings.Contains(s.label, "SORT") }))
			}
		}
	}
	t.Logf("generated: %d cases, %d SORT commands", len(random), sorts)
}
