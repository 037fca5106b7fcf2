package diff_test

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Streams (t_stream.c): every command, option and error, with explicit
// IDs (or `*` IDs whose replies are masked), node boundaries under
// approximate trimming, consumer groups, RESP2 and RESP3.

// anyStreamID masks a bulk reply holding a generated stream ID.
var anyStreamID = &normalizer{"generated stream ID", func(b []byte) ([]byte, bool) {
	if !streamIDReply.Match(b) {
		return nil, false
	}
	return []byte("$ID\r\n"), true
}}

var streamIDReply = regexp.MustCompile(`^\$\d+\r\n\d+-\d+\r\n$`)

// maskIdle and maskTimes replace idle times and delivery times (which
// follow each server's clock) with 0.
var maskIdle = &normalizer{"idle times masked", func(b []byte) ([]byte, bool) {
	return idleRe.ReplaceAll(b, []byte("${1}:0\r\n")), true
}}

var idleRe = regexp.MustCompile(`((?:\$4\r\nidle\r\n)|(?:\$\d+\r\n\d+-\d+\r\n\$\d+\r\n[^\r]*\r\n))(:\d+\r\n)`)

var maskTimes = &normalizer{"times masked", func(b []byte) ([]byte, bool) {
	return timeRe.ReplaceAll(b, []byte(":T\r\n")), true
}}

var timeRe = regexp.MustCompile(`:\d{6,}\r\n`)

// fillStream adds n entries with IDs 1-1 .. n-1 to key, each with the
// given number of fields.
func fillStream(key string, n, fields int) []step {
	var steps []step
	for i := 1; i <= n; i++ {
		args := []string{"XADD", key, strconv.Itoa(i) + "-1"}
		for f := 0; f < fields; f++ {
			args = append(args, "f"+strconv.Itoa(f), strconv.Itoa(i*10+f))
		}
		steps = append(steps, cmd(args...))
	}
	return steps
}

func tcs(name string, groups ...[]step) diffCase {
	var all []step
	for _, g := range groups {
		all = append(all, g...)
	}
	return tc(name, all...)
}

func s(lines ...string) []step {
	out := make([]step, len(lines))
	for i, l := range lines {
		out[i] = c(l)
	}
	return out
}

var streamCases = []diffCase{
	tc("xadd explicit ids", c("XADD s 1-1 a 1"), c("XADD s 1-2 a 2 b 3"), c("XADD s 1-2 a 1"), c("XADD s 1-1 a 1"), c("XADD s 0-5 a 1"),
		c("XADD s 2 a 1"), c("XADD s 2-* a 1"), c("XADD s 2-* a 1"), c("XADD s 5-* x y"), c("XLEN s"), c("XRANGE s - +"), c("TYPE s"), c("OBJECT ENCODING s")),
	tc("xadd id errors", c("XADD s 0-0 a 1"), c("XADD s 0 a 1"), c("XADD s 0-* a 1"), c("XADD s 0-* a 1"), c("XADD s abc a 1"), c("XADD s 1-x a 1"),
		c("XADD s -1 a 1"), c("XADD s 1--1 a 1"), c("XADD s 1-+1 a 1"), c("XADD s +5-1 a 1"), c("XADD s 007-1 a 1"), c("XADD s ' 8-1' a 1"),
		c("XADD s 18446744073709551615-18446744073709551615 a 1"), c("XADD s 18446744073709551615-* a 1"), c("XADD s * a 1"), c("XLEN s"),
		c("XADD s 18446744073709551616-1 a 1"), c("XADD s - a 1"), c("XADD s + a 1"), c("XADD t 5-18446744073709551615 a 1"), c("XADD t 5-* a 1"),
		c("XADD t 6-* a 1"), c("XRANGE t - +"), c("XADD u 1-*x a 1"), c("XADD u 1-** a 1"), c("XADD u 9-1 a"), c("XADD u 9-1"), c("XADD u"), c("EXISTS u"),
		c("XADD u 10--0 a 1"), c("XRANGE u - +")),
	tc("xadd star", c("XADD s * a 1").with(anyStreamID), c("XADD s * a 1 b 2").with(anyStreamID), c("XLEN s"), c("XADD s 1-1 a 1"),
		c("XADD s NOMKSTREAM * a 1").with(anyStreamID), c("XADD n NOMKSTREAM * a 1"), c("EXISTS n"), c("XADD n NOMKSTREAM 1-1 a 1"), c("XADD n nomkstream maxlen 1 * a 1")),
	tc("xadd options", c("XADD s MAXLEN 2 1-1 a 1"), c("XADD s MAXLEN = 2 2-1 a 1"), c("XADD s maxlen 2 3-1 a 1"), c("XRANGE s - +"),
		c("XADD s MAXLEN -1 4-1 a 1"), c("XADD s MAXLEN x 4-1 a 1"), c("XADD s MAXLEN 1 MINID 1 4-1 a 1"), c("XADD s MINID 3 MAXLEN 1 4-1 a 1"),
		c("XADD s LIMIT 10 4-1 a 1"), c("XADD s MAXLEN 1 LIMIT 10 4-1 a 1"), c("XADD s MAXLEN ~ 1 LIMIT -1 4-1 a 1"), c("XADD s MAXLEN ~ 1 LIMIT x 4-1 a 1"),
		c("XADD s MINID 3-1 4-1 a 1"), c("XRANGE s - +"), c("XADD s MINID = 4 5-1 a 1"), c("XRANGE s - +"), c("XADD s MINID - 6-1 a 1"), c("XADD s MINID x 6-1 a 1"),
		c("XADD s MAXLEN ~ 0 6-1 a 1"), c("XLEN s"), c("XADD s MAXLEN 0 7-1 a 1"), c("XLEN s"), c("EXISTS s"), c("XADD s MAXLEN"), c("XADD s MAXLEN 1"),
		c("XADD s MAXLEN ~ 1 LIMIT 0 8-1 a 1"), c("XADD s MAXLEN = 1 LIMIT 0 9-1 a 1"), c("XADD s MAXLEN ~"), c("XADD s NOMKSTREAM"), c("XLEN s")),
	tcs("approximate trim keeps whole nodes", fillStream("s", 250, 1), s("XADD s MAXLEN ~ 10 251-1 f0 x", "XLEN s", "XRANGE s - + COUNT 2",
		"XTRIM s MAXLEN ~ 10", "XLEN s", "XTRIM s MAXLEN 10", "XLEN s", "XRANGE s - + COUNT 1", "XTRIM s MAXLEN ~ 0", "XLEN s", "XINFO STREAM s")),
	tcs("approximate trim by minid", fillStream("s", 230, 2), s("XTRIM s MINID ~ 150", "XLEN s", "XTRIM s MINID ~ 205", "XLEN s", "XTRIM s MINID 205", "XLEN s",
		"XRANGE s - + COUNT 1", "XTRIM s MINID ~ 1000 LIMIT 50", "XLEN s", "XTRIM s MINID ~ 1000 LIMIT 100", "XLEN s")),
	tcs("approximate trim limits", fillStream("s", 350, 1), s("XTRIM s MAXLEN ~ 0 LIMIT 150", "XLEN s", "XTRIM s MAXLEN ~ 0 LIMIT 99", "XLEN s", "XTRIM s MAXLEN ~ 0 LIMIT 0", "XLEN s")),
	tc("node boundaries follow listpack bytes", cmd("XADD", "s", "1-1", "f", strings.Repeat("x", 1000)), cmd("XADD", "s", "2-1", "f", strings.Repeat("x", 1000)),
		cmd("XADD", "s", "3-1", "f", strings.Repeat("x", 1000)), cmd("XADD", "s", "4-1", "f", strings.Repeat("x", 1000)), cmd("XADD", "s", "5-1", "f", strings.Repeat("x", 1000)),
		cmd("XADD", "s", "6-1", "g", strings.Repeat("y", 3000)), cmd("XADD", "s", "7-1", "g", "1"), c("XTRIM s MAXLEN ~ 1"), c("XLEN s"), c("XTRIM s MAXLEN ~ 1"), c("XLEN s"),
		c("XRANGE s - + COUNT 1").with(lengthOnly)),
	tcs("node boundaries with deleted entries", fillStream("s", 120, 1), s("XDEL s 5-1 6-1 7-1", "XTRIM s MAXLEN ~ 50", "XLEN s", "XDEL s 101-1", "XADD s 200-1 a 1",
		"XTRIM s MAXLEN ~ 10", "XLEN s", "XRANGE s - + COUNT 3")),
	tcs("node boundaries by config", s("CONFIG SET stream-node-max-entries 5"), fillStream("s", 23, 1), s("XTRIM s MAXLEN ~ 10", "XLEN s",
		"CONFIG SET stream-node-max-entries 100", "CONFIG SET stream-node-max-bytes 60", "XADD t 1-1 a 1", "XADD t 2-1 a 2", "XADD t 3-1 a 3", "XADD t 4-1 a 4",
		"XTRIM t MAXLEN ~ 1", "XLEN t", "CONFIG SET stream-node-max-bytes 4096")),
	tcs("exact trim inside a node then approximate", fillStream("s", 150, 1), s("XTRIM s MAXLEN 120", "XLEN s", "XTRIM s MAXLEN ~ 60", "XLEN s", "XADD s MAXLEN ~ 40 151-1 f0 1", "XLEN s")),
	tcs("minid node whose live entries are all gone", fillStream("s", 110, 1), s("XDEL s 100-1", "XTRIM s MINID 100", "XLEN s", "XTRIM s MAXLEN ~ 1", "XLEN s",
		"XRANGE s - + COUNT 2", "XTRIM s MINID ~ 200", "XLEN s")),
	tc("xrange", c("XADD s 1-1 a 1"), c("XADD s 1-2 b 2"), c("XADD s 2-0 c 3"), c("XADD s 3-5 d 4 e 5"), c("XRANGE s - +"), c("XRANGE s 1 1"),
		c("XRANGE s 1-2 +"), c("XRANGE s (1-1 +"), c("XRANGE s - (3-5"), c("XRANGE s (1 (3"), c("XRANGE s 2 2"), c("XRANGE s + -"), c("XRANGE s - + COUNT 2"),
		c("XRANGE s - + COUNT 0"), c("XRANGE s - + COUNT -1"), c("XRANGE s - + COUNT x"), c("XRANGE s - + COUNT"), c("XRANGE s - + FOO 1"), c("XRANGE s - + COUNT 1 COUNT 3"),
		c("XRANGE s (- +"), c("XRANGE s - (+"), c("XRANGE s ( +"), c("XRANGE s (18446744073709551615-18446744073709551615 +"), c("XRANGE s - (0-0"), c("XRANGE s x +"),
		c("XRANGE s - x"), c("XRANGE nosuch - +"), c("XRANGE nosuch - + COUNT 0"), c("XRANGE nosuch x +"), c("XRANGE s 1-1 1-1"), c("XRANGE s 0 18446744073709551615"),
		c("XRANGE s 1-18446744073709551615 +"), c("XRANGE s (1-18446744073709551615 +"), c("XRANGE s"), c("XRANGE s -")),
	tc("xrevrange", c("XADD s 1-1 a 1"), c("XADD s 1-2 b 2"), c("XADD s 2-0 c 3"), c("XADD s 3-5 d 4 e 5"), c("XREVRANGE s + -"), c("XREVRANGE s - +"),
		c("XREVRANGE s + - COUNT 2"), c("XREVRANGE s (3-5 -"), c("XREVRANGE s + (1-1"), c("XREVRANGE s 2 1"), c("XREVRANGE s + - COUNT 0"), c("XREVRANGE nosuch + -"),
		c("XREVRANGE s + - COUNT"), c("XREVRANGE s (+ -")),
	tcs("xrange across nodes", fillStream("s", 260, 3), s("XRANGE s 98 103", "XREVRANGE s 205 195", "XRANGE s (99-1 + COUNT 3", "XREVRANGE s + - COUNT 3",
		"XDEL s 100-1 101-1 200-1", "XRANGE s 98 103", "XREVRANGE s 202 199", "XLEN s")),
	tc("xrange field encodings", c("XADD s 1-1 a 1 b 2"), c("XADD s 2-1 a 3 b 4"), c("XADD s 3-1 b 5 a 6"), c("XADD s 4-1 a 7"), c("XADD s 5-1 a 8 b 9 c 10"),
		cmd("XADD", "s", "6-1", "", ""), cmd("XADD", "s", "7-1", "a\x00b", "c\r\nd"), c("XADD s 8-1 a 1 a 2"), c("XRANGE s - +"), c("XREVRANGE s + -")),
	tc("xlen xdel", c("XLEN nosuch"), c("XADD s 1-1 a 1"), c("XADD s 2-1 a 1"), c("XADD s 3-1 a 1"), c("XDEL s 2-1"), c("XDEL s 2-1"), c("XLEN s"),
		c("XDEL s 1-1 3-1 4-1"), c("XLEN s"), c("EXISTS s"), c("XRANGE s - +"), c("XDEL s x"), c("XDEL s 1-1 x"), c("XDEL nosuch 1-1"), c("XDEL nosuch x"),
		c("XDEL s -"), c("XDEL s +"), c("XDEL s 1"), c("XADD s 2-1 a 1"), c("XADD s 4-1 a 1"), c("XINFO STREAM s"), c("XDEL s"), c("XLEN s x")),
	tc("xtrim", c("XTRIM nosuch MAXLEN 1"), c("XTRIM nosuch"), c("XTRIM nosuch FOO"), c("XTRIM nosuch MAXLEN x"), c("XADD s 1-1 a 1"), c("XADD s 2-1 a 1"),
		c("XADD s 3-1 a 1"), c("XTRIM s MAXLEN 5"), c("XTRIM s MAXLEN 2"), c("XTRIM s MINID 3"), c("XTRIM s MINID 3"), c("XLEN s"), c("XTRIM s"), c("XTRIM s MAXLEN"),
		c("XTRIM s LIMIT 1"), c("XTRIM s MAXLEN 1 LIMIT 1"), c("XTRIM s MAXLEN = 1 LIMIT 1"), c("XTRIM s MINID ~ 1 LIMIT 1"), c("XTRIM s MAXLEN 1 MINID 1"),
		c("XTRIM s NOMKSTREAM MAXLEN 1"), c("XTRIM s MAXLEN 0"), c("EXISTS s"), c("XLEN s"), c("XTRIM s * MAXLEN 0"), c("XTRIM s MAXLEN -5"), c("XTRIM s MINID -")),
	tc("xsetid", c("XSETID nosuch 1-1"), c("XSETID nosuch x"), c("XADD s 5-1 a 1"), c("XSETID s 4-1"), c("XSETID s 5-1"), c("XSETID s 10"), c("XADD s 9-1 a 1"),
		c("XADD s 10-* a 1"), c("XSETID s 20 ENTRIESADDED 1"), c("XSETID s 20 ENTRIESADDED 5 MAXDELETEDID 3-0"), c("XINFO STREAM s"), c("XSETID s 20 MAXDELETEDID 30"),
		c("XSETID s 20 ENTRIESADDED -1"), c("XSETID s 20 ENTRIESADDED x"), c("XSETID s 20 FOO"), c("XSETID s 20 ENTRIESADDED"), c("XSETID s -"), c("XSETID s +"),
		c("XDEL s 5-1 10-1"), c("XSETID s 1-1"), c("XINFO STREAM s"), c("XADD s 2-1 a 1"), c("XSETID s 18446744073709551615-18446744073709551615"), c("XADD s * a 1"),
		c("XADD s 5-* a 1"), c("SET str x"), c("XSETID str 1")),
	tc("stream wrongtype", c("SET str v"), c("XADD str * a 1"), c("XLEN str"), c("XRANGE str - +"), c("XREVRANGE str + -"), c("XDEL str 1"), c("XTRIM str MAXLEN 1"),
		c("XADD s 1-1 a 1"), c("GET s"), c("LPUSH s x"), c("HSET s a 1"), c("TYPE s"), c("XADD str NOMKSTREAM * a 1"), c("XRANGE str x +")),
	tc("stream keys", c("XADD s 1-1 a 1"), c("COPY s t"), c("XADD t 2-1 b 2"), c("XLEN s"), c("XRANGE t - +"), c("RENAME t u"), c("XRANGE u - +"),
		c("MOVE u 1"), c("SELECT 1"), c("XLEN u"), c("SELECT 0"), c("EXPIRE s 100"), c("TTL s"), c("XADD s 3-1 a 1"), c("TTL s"), c("SCAN 0 TYPE stream"),
		c("OBJECT ENCODING s"), c("DEL s"), c("EXISTS s"), c("XTRIM u MAXLEN 0"), c("XADD e MAXLEN 0 1-1 a 1"), c("EXISTS e"), c("TYPE e"), c("XLEN e"), c("XRANGE e - +")),
	tc("stream in multi", c("MULTI"), c("XADD s 1-1 a 1"), c("XADD s 1-1 a 1"), c("XLEN s"), c("XADD s"), c("EXEC"), c("MULTI"), c("XADD s 2-1 a 1"), c("XRANGE s - +"), c("EXEC")),
	tc("stream watch", c("XADD s 1-1 a 1"), c("WATCH s"), c("XADD s 2-1 a 1").on(1), c("MULTI"), c("PING"), c("EXEC"),
		c("WATCH s"), c("XDEL s 9-1").on(1), c("MULTI"), c("PING"), c("EXEC"),
		c("WATCH s"), c("XDEL s 1-1").on(1), c("MULTI"), c("PING"), c("EXEC"),
		c("WATCH s"), c("XSETID s 10-1").on(1), c("MULTI"), c("PING"), c("EXEC"),
		c("WATCH s"), c("XTRIM s MAXLEN 0").on(1), c("MULTI"), c("PING"), c("EXEC")),
	tc("stream resp3", c("HELLO 3").with(helloID), c("XADD s 1-1 a 1"), c("XRANGE s - +"), c("XRANGE s - + COUNT 0"), c("XADD n NOMKSTREAM * a 1"), c("XRANGE nosuch - +")),
	tc("stream via scripts", cmd("EVAL", "return redis.call('XADD', KEYS[1], '1-1', 'a', '1')", "1", "s"), cmd("EVAL", "return redis.call('XRANGE', KEYS[1], '-', '+')", "1", "s"),
		cmd("EVAL", "return redis.pcall('XADD', KEYS[1], '1-1', 'a', '1')", "1", "s"), cmd("EVAL", "redis.setresp(3) return redis.call('XRANGE', KEYS[1], '-', '+')", "1", "s")),

	tc("xgroup", c("XGROUP CREATE s g $"), c("XGROUP CREATE s g $ MKSTREAM"), c("XGROUP CREATE s g $ MKSTREAM"), c("TYPE s"), c("XGROUP CREATE s g2 0 ENTRIESREAD 5"),
		c("XGROUP CREATE s g3 0 ENTRIESREAD -2"), c("XGROUP CREATE s g3 0 ENTRIESREAD x"), c("XGROUP CREATE s g3 0 FOO"), c("XGROUP CREATE s g3 x"), c("XGROUP CREATE s g3 -"),
		c("XGROUP CREATE s g3 0 ENTRIESREAD"), c("XINFO GROUPS s"), c("XGROUP SETID s g 5-5"), c("XGROUP SETID s nog 5"), c("XGROUP SETID s g - ENTRIESREAD 3"),
		c("XGROUP SETID s g $ MKSTREAM"), c("XGROUP SETID nosuch g 0"), c("XINFO GROUPS s"), c("XGROUP CREATECONSUMER s g alice"), c("XGROUP CREATECONSUMER s g alice"),
		c("XGROUP CREATECONSUMER s nog alice"), c("XGROUP DELCONSUMER s g bob"), c("XGROUP DELCONSUMER s g alice"), c("XGROUP DESTROY s g2"), c("XGROUP DESTROY s g2"),
		c("XGROUP DESTROY nosuch g"), c("XGROUP HELP"), c("XGROUP HELP x"), c("XGROUP FOO"), c("XGROUP FOO s g"), c("XGROUP CREATE s"), c("XGROUP CREATE s g 0 MKSTREAM MKSTREAM x y"),
		c("XGROUP DESTROY s g x"), c("XGROUP CREATECONSUMER s g"), c("SET str v"), c("XGROUP CREATE str g $"), c("XGROUP CREATE str g $ MKSTREAM"), c("XINFO GROUPS s")),
	tc("xreadgroup and xack", c("XADD s 1-1 a 1"), c("XADD s 2-1 b 2"), c("XADD s 3-1 c 3"), c("XGROUP CREATE s g 0"), c("XREADGROUP GROUP g alice COUNT 1 STREAMS s >"),
		c("XREADGROUP GROUP g bob STREAMS s >"), c("XREADGROUP GROUP g bob STREAMS s >"), c("XPENDING s g"), c("XREADGROUP GROUP g alice STREAMS s 0"), c("XREADGROUP GROUP g bob STREAMS s 0 COUNT 1"),
		c("XREADGROUP GROUP g bob COUNT 1 STREAMS s 0"), c("XACK s g 1-1 9-9"), c("XACK s g 1-1"), c("XACK s g x"), c("XACK s nog 1-1"), c("XACK nosuch g 1-1"), c("XPENDING s g"),
		c("XPENDING s g - + 10").with(maskIdle), c("XPENDING s g - + 10 bob").with(maskIdle), c("XPENDING s g - + 10 nobody"), c("XPENDING s g (2-1 + 10").with(maskIdle), c("XPENDING s g - + 0"),
		c("XPENDING s g IDLE 100000 - + 10"), c("XPENDING s g IDLE x - + 10"), c("XPENDING s g IDLE 0 - +"), c("XPENDING s g - +"), c("XPENDING s g - + x"), c("XPENDING s g x + 1"),
		c("XPENDING s nog"), c("XPENDING nosuch g"), c("XPENDING s g a b c d e f g"), c("XDEL s 2-1"), c("XREADGROUP GROUP g bob STREAMS s 0"), c("XINFO CONSUMERS s g").with(maskIdle),
		c("XINFO GROUPS s"), c("XREADGROUP GROUP g carol NOACK STREAMS s 0"), c("XADD s 4-1 d 4"), c("XREADGROUP GROUP g carol NOACK STREAMS s >"), c("XPENDING s g")),
	tc("xread", c("XREAD STREAMS s 0"), c("XADD s 1-1 a 1"), c("XADD s 2-1 b 2"), c("XADD t 5-1 c 3"), c("XREAD STREAMS s 0"), c("XREAD COUNT 1 STREAMS s t 0 0"),
		c("XREAD STREAMS s t 1-1 $"), c("XREAD STREAMS s $"), c("XREAD STREAMS s"), c("XREAD STREAMS s t 0"), c("XREAD COUNT x STREAMS s 0"), c("XREAD GROUP g c STREAMS s 0"),
		c("XREAD NOACK STREAMS s 0"), c("XREAD STREAMS s >"), c("XREAD STREAMS s x"), c("XREAD STREAMS s -"), c("XREAD FOO STREAMS s 0"), c("XREAD COUNT 1"), c("XREAD BLOCK x STREAMS s 0"),
		c("XREAD BLOCK -1 STREAMS s 0"), c("XREAD BLOCK 10 STREAMS s $"), c("XREAD COUNT -5 STREAMS s 0"), c("XREADGROUP STREAMS s 0"), c("XREADGROUP GROUP g c STREAMS s >"),
		c("XGROUP CREATE s g 0"), c("XREADGROUP GROUP g c STREAMS s $"), c("XREADGROUP GROUP g c STREAMS s t > >"), c("SET str v"), c("XREAD STREAMS str 0"), c("XREAD STREAMS s str 0 0"),
		c("XDEL s 1-1 2-1"), c("XREAD STREAMS s 0"), c("XSETID s 10-1"), c("XREAD STREAMS s 0"), c("HELLO 3").with(helloID), c("XREAD STREAMS s t 0 0"), c("XREADGROUP GROUP g c STREAMS t >")),
	tc("xclaim", c("XADD s 1-1 a 1"), c("XADD s 2-1 b 2"), c("XADD s 3-1 c 3"), c("XGROUP CREATE s g 0"), c("XREADGROUP GROUP g alice STREAMS s >"),
		c("XCLAIM s g bob 0 1-1"), c("XCLAIM s g bob 0 1-1 JUSTID"), c("XCLAIM s g bob 100000 2-1"), c("XCLAIM s g bob 0 2-1 3-1 RETRYCOUNT 7 JUSTID"),
		c("XPENDING s g - + 10").with(maskIdle), c("XCLAIM s g carol 0 9-1 FORCE"), c("XDEL s 3-1"), c("XCLAIM s g carol 0 3-1"), c("XPENDING s g"),
		c("XCLAIM s g carol 0 1-1 IDLE 5000 JUSTID"), c("XPENDING s g - + 10 carol").with(maskIdle), c("XCLAIM s g carol 0 1-1 TIME 1 JUSTID"), c("XCLAIM s g x 0 1-1 IDLE x"),
		c("XCLAIM s g x 0 1-1 TIME x"), c("XCLAIM s g x 0 1-1 RETRYCOUNT x"), c("XCLAIM s g x 0 1-1 LASTID x"), c("XCLAIM s g x 0 1-1 FOO"), c("XCLAIM s g x y 1-1"), c("XCLAIM s nog x 0 1-1"),
		c("XCLAIM nosuch g x 0 1-1"), c("XCLAIM s g dave 0 1-1 LASTID 50-1 JUSTID"), c("XINFO GROUPS s"), c("XADD s 4-1 d 4"), c("XCLAIM s g dave 0 4-1 FORCE JUSTID"), c("XPENDING s g"),
		c("XINFO CONSUMERS s g").with(maskIdle), c("XCLAIM s g x 0 1-1 x"), c("XCLAIM s g x 0 1-1 IDLE")),
	tc("xautoclaim", c("XADD s 1-1 a 1"), c("XADD s 2-1 b 2"), c("XADD s 3-1 c 3"), c("XADD s 4-1 d 4"), c("XGROUP CREATE s g 0"), c("XREADGROUP GROUP g alice STREAMS s >"),
		c("XAUTOCLAIM s g bob 0 0 COUNT 1"), c("XAUTOCLAIM s g bob 0 (1-1 COUNT 2 JUSTID"), c("XDEL s 3-1"), c("XAUTOCLAIM s g carol 0 0"), c("XAUTOCLAIM s g carol 100000 0"),
		c("XAUTOCLAIM s g carol 0 0 COUNT 0"), c("XAUTOCLAIM s g carol 0 0 COUNT x"), c("XAUTOCLAIM s g carol x 0"), c("XAUTOCLAIM s g carol 0 x"), c("XAUTOCLAIM s g carol 0 0 FOO"),
		c("XAUTOCLAIM s nog carol 0 0"), c("XAUTOCLAIM nosuch g c 0 0"), c("XAUTOCLAIM s g carol 0 0 COUNT 9223372036854775807"), c("XPENDING s g"),
		c("XAUTOCLAIM s g carol 0 (18446744073709551615-18446744073709551615")),
	tc("xinfo", c("XINFO STREAM nosuch"), c("XADD s 1-1 a 1"), c("XADD s 2-1 b 2 c 3"), c("XINFO STREAM s"), c("XINFO STREAM s FULL"), c("XGROUP CREATE s g 0"),
		c("XREADGROUP GROUP g alice COUNT 1 STREAMS s >"), c("XINFO STREAM s FULL").with(maskTimes), c("XINFO STREAM s FULL COUNT 1").with(maskTimes), c("XINFO STREAM s FULL COUNT 0").with(maskTimes),
		c("XINFO STREAM s FULL COUNT -1").with(maskTimes), c("XINFO STREAM s FULL COUNT x"), c("XINFO STREAM s FOO"), c("XINFO STREAM s FULL FOO 1"), c("XINFO STREAM s FULL COUNT"),
		c("XINFO GROUPS s"), c("XINFO GROUPS s x"), c("XINFO CONSUMERS s nog"), c("XINFO CONSUMERS s"), c("XINFO HELP"), c("XINFO HELP x"), c("XINFO FOO s"), c("XINFO FOO"),
		c("SET str v"), c("XINFO STREAM str"), c("XINFO GROUPS nosuch"), c("HELLO 3").with(helloID), c("XINFO STREAM s"), c("XINFO GROUPS s"), c("XINFO CONSUMERS s g").with(maskIdle)),
	tcs("xinfo radix tree", fillStream("s", 450, 1), s("XINFO STREAM s", "XDEL s 150-1", "XTRIM s MAXLEN ~ 300", "XINFO STREAM s", "XTRIM s MAXLEN 5", "XINFO STREAM s")),
	tc("lag and entries read", c("XADD s 1-1 a 1"), c("XADD s 2-1 a 1"), c("XADD s 3-1 a 1"), c("XGROUP CREATE s g 0"), c("XGROUP CREATE s h $"), c("XINFO GROUPS s"),
		c("XREADGROUP GROUP g c COUNT 1 STREAMS s >"), c("XINFO GROUPS s"), c("XDEL s 2-1"), c("XINFO GROUPS s"), c("XREADGROUP GROUP g c STREAMS s >"), c("XINFO GROUPS s"),
		c("XADD s 4-1 a 1"), c("XGROUP SETID s h 1-1"), c("XINFO GROUPS s"), c("XGROUP SETID s h 0 ENTRIESREAD 0"), c("XINFO GROUPS s"), c("XTRIM s MAXLEN 1"), c("XINFO GROUPS s")),
	tc("xreadgroup parked woken", c("XGROUP CREATE s g $ MKSTREAM"), parkOn(1, "XREADGROUP GROUP g c BLOCK 0 STREAMS s >"), c("XADD s 1-1 a 1"), recv(1, 1), c("XPENDING s g")),
	tc("xread parked woken in order", parkOn(1, "XREAD BLOCK 0 STREAMS s $"), parkOn(2, "XREAD BLOCK 0 STREAMS s t 0 0"), c("XADD s 1-1 a 1"), recv(1, 1), recv(2, 1),
		parkOn(1, "XREAD BLOCK 0 COUNT 1 STREAMS t 0"), c("MULTI"), c("XADD t 1-1 a 1"), c("XADD t 2-1 b 2"), c("EXEC"), recv(1, 1)),
	tc("xreadgroup parked then group destroyed", c("XGROUP CREATE s g $ MKSTREAM"), parkOn(1, "XREADGROUP GROUP g c BLOCK 0 STREAMS s >"), c("XGROUP DESTROY s g"), recv(1, 1),
		c("XGROUP CREATE s h $"), parkOn(2, "XREADGROUP GROUP h c BLOCK 0 STREAMS s >"), c("DEL s"), recv(2, 1)),
	tc("xreadgroup parked served by group", c("XGROUP CREATE s g $ MKSTREAM"), parkOn(1, "XREADGROUP GROUP g a BLOCK 0 STREAMS s >"), parkOn(2, "XREADGROUP GROUP g b BLOCK 0 STREAMS s >"),
		c("XADD s 1-1 a 1"), recv(1, 1), c("XADD s 2-1 b 2"), recv(2, 1), c("XPENDING s g"), parkOn(1, "XREADGROUP GROUP g a BLOCK 0 STREAMS s >"), c("SET s x"), recv(1, 1)),
	tc("xread timeouts", c("XREAD BLOCK 10 STREAMS s 0"), c("XREADGROUP GROUP g c BLOCK 10 STREAMS s >"), c("XGROUP CREATE s g $ MKSTREAM"), c("XREADGROUP GROUP g c BLOCK 10 STREAMS s >"),
		c("MULTI"), c("XREAD BLOCK 0 STREAMS s $"), c("EXEC"), cmd("EVAL", "return redis.pcall('XREAD', 'BLOCK', 0, 'STREAMS', 's', '$')", "0"),
		cmd("EVAL", "return redis.pcall('xread', 'STREAMS', 's', '$')", "0")),
	tc("xread parked and unblocked", parkOn(1, "XREAD BLOCK 0 STREAMS s $"), c("CLIENT UNBLOCK 999999"), c("XADD s 1-1 a 1"), recv(1, 1)),
	notifyCase("stream events", "KEA",
		c("XADD s 1-1 a 1"), recv(1, 2), c("XADD s MAXLEN 1 2-1 a 1"), recv(1, 4), c("XDEL s 2-1"), recv(1, 2), c("XDEL s 9-9"), c("XADD s 3-1 a 1"), recv(1, 2),
		c("XTRIM s MAXLEN 0"), recv(1, 2), c("XTRIM s MAXLEN 0"), c("XSETID s 5-1"), recv(1, 2), c("XGROUP CREATE s g $"), recv(1, 2), c("XGROUP CREATE t g $ MKSTREAM"), recv(1, 2),
		c("XGROUP SETID s g 0"), recv(1, 2), c("XGROUP CREATECONSUMER s g c"), recv(1, 2), c("XGROUP CREATECONSUMER s g c"), c("XADD s 6-1 a 1"), recv(1, 2),
		c("XREADGROUP GROUP g d STREAMS s >"), recv(1, 2), c("XCLAIM s g e 0 6-1 JUSTID"), recv(1, 2), c("XAUTOCLAIM s g f 0 0 JUSTID"), recv(1, 2), c("XACK s g 6-1"),
		c("XGROUP DELCONSUMER s g c"), recv(1, 2), c("XGROUP DELCONSUMER s g zz"), c("XGROUP DESTROY s g"), recv(1, 2), c("XGROUP DESTROY s g"), c("XREAD STREAMS nosuch 0")),
	tc("xreadgroup woken after multi and script", c("XGROUP CREATE s g $ MKSTREAM"), parkOn(1, "XREADGROUP GROUP g a BLOCK 0 STREAMS s >"),
		c("MULTI"), c("XADD s 1-1 a 1"), c("XADD s 2-1 b 2"), c("EXEC"), recv(1, 1), parkOn(1, "XREAD BLOCK 0 STREAMS s $"),
		cmd("EVAL", "redis.call('XADD', KEYS[1], '3-1', 'c', '3') return redis.call('XADD', KEYS[1], '4-1', 'd', '4')", "1", "s"), recv(1, 1)),
	tc("xreadgroup consumers queue first come first served", c("XGROUP CREATE s g $ MKSTREAM"), parkOn(1, "XREADGROUP GROUP g a BLOCK 0 STREAMS s >"),
		parkOn(2, "XREADGROUP GROUP g b BLOCK 0 STREAMS s >"), parkOn(3, "XREAD BLOCK 0 STREAMS s 0"), c("XADD s 1-1 a 1"), recv(1, 1), recv(3, 1),
		c("XADD s 2-1 a 1"), recv(2, 1), c("XPENDING s g")),
	tc("xreadgroup parked sees a group moved back", c("XADD s 1-1 a 1"), c("XGROUP CREATE s g $"), parkOn(1, "XREADGROUP GROUP g a BLOCK 0 STREAMS s >"),
		c("XGROUP SETID s g 0"), c("XDEL s 9-9"), c("XSETID s 5-5"), c("XADD s 6-1 b 2"), recv(1, 1), c("XINFO GROUPS s")),
	tc("xread woken by rename", c("XADD tmp 1-1 a 1"), parkOn(1, "XREAD BLOCK 0 STREAMS s 0"), c("RENAME tmp s"), recv(1, 1),
		c("XGROUP CREATE s g $"), parkOn(1, "XREADGROUP GROUP g a BLOCK 0 STREAMS s >"), c("RENAME s other"), recv(1, 1)),
	tc("xreadgroup parked and flushall", c("XGROUP CREATE s g $ MKSTREAM"), parkOn(1, "XREADGROUP GROUP g a BLOCK 0 STREAMS s >"), c("FLUSHALL"), recv(1, 1)),
	tc("xread parked on two keys resp3", c("HELLO 3").on(1).with(helloID), parkOn(1, "XREAD BLOCK 0 COUNT 1 STREAMS a b $ $"), c("XADD b 1-1 x 1"), recv(1, 1),
		c("XGROUP CREATE b g $"), parkOn(1, "XREADGROUP GROUP g c BLOCK 0 NOACK STREAMS b >"), c("XADD b 2-1 y 2"), recv(1, 1), c("XPENDING b g")),
	tc("xreadgroup parked on a stream that expires", c("XGROUP CREATE s g $ MKSTREAM"), c("PEXPIRE s 100"), parkOn(1, "XREADGROUP GROUP g a BLOCK 0 STREAMS s >"),
		pause(300*time.Millisecond), recv(1, 1), c("EXISTS s")),
	notifyCase("stream keymiss and new events", "KEmn",
		c("XREAD STREAMS nosuch 0"), recv(1, 4), c("XLEN nosuch"), recv(1, 2), c("XADD s 1-1 a 1"), recv(1, 2), c("XGROUP CREATE t g $ MKSTREAM"), recv(1, 2),
		c("XINFO STREAM nosuch"), recv(1, 2), c("XPENDING nosuch g"), recv(1, 2), c("XTRIM nosuch MAXLEN 0"), c("XSETID nosuch 1")),
	tc("stream watch and groups", c("XADD s 1-1 a 1"), c("WATCH s"), c("XGROUP CREATE s g 0").on(1), c("MULTI"), c("PING"), c("EXEC"),
		c("WATCH s"), c("XREADGROUP GROUP g c STREAMS s >").on(1), c("MULTI"), c("PING"), c("EXEC"),
		c("WATCH s"), c("XCLAIM s g d 0 1-1").on(1), c("MULTI"), c("PING"), c("EXEC"),
		c("WATCH s"), c("XACK s g 1-1").on(1), c("MULTI"), c("PING"), c("EXEC"),
		c("WATCH s"), c("XGROUP SETID s g 0").on(1), c("XGROUP CREATECONSUMER s g e").on(1), c("XGROUP DELCONSUMER s g e").on(1), c("MULTI"), c("PING"), c("EXEC"),
		c("WATCH s"), c("XGROUP DESTROY s g").on(1), c("MULTI"), c("PING"), c("EXEC"),
		c("WATCH n"), c("XGROUP CREATE n g $ MKSTREAM").on(1), c("MULTI"), c("PING"), c("EXEC")),
}
