package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// The cost audit: every command that walks a collection or the keyspace,
// timed on minilock and on redis-server in one run, each on the same data
// (1,000,000 elements by default, and 2 left of them after mass deletes
// for the sampling commands). A row passes when minilock's time per call
// is within 2x of redis-server's; one such pair of servers holds the data
// of one group at a time.

// auditGroup is a data set and the commands measured on it.
type auditGroup struct {
	name string
	load func(c *respConn, n int) error // after FLUSHALL
	rows []auditRow
}

// auditRow is one command timed: calls of it one after another, each a
// round trip whose reply is read and discarded.
type auditRow struct {
	cmd        string // as the table shows it; also what is sent unless args is set
	complexity string // Redis's documented time complexity
	calls      int
	// args builds the command from n, the group's element count; nil:
	// the words of cmd before any comma or parenthesis.
	args func(n int) []string
	// fresh reloads the group's data first (the command before changed it).
	fresh bool
	// prepare runs before the timing, after fresh.
	prepare func(c *respConn, n int) error
	// measure replaces the timing of a call by a measurement of its own
	// (a whole SCAN iteration), calls times; it returns the time taken.
	measure func(c *respConn, n int) (time.Duration, error)
}

func (r auditRow) command(n int) []string {
	if r.args != nil {
		return r.args(n)
	}
	// What follows a comma or a parenthesis describes the row.
	cmd, _, _ := strings.Cut(r.cmd, ",")
	cmd, _, _ = strings.Cut(cmd, " (")
	return strings.Fields(cmd)
}

// bulk loads n elements with commands of up to 1,000 elements each, built by
// f from an element range, pipelined 64 commands at a time.
func bulk(c *respConn, n int, f func(lo, hi int) []string) error {
	const per, window = 1000, 64
	sent := 0
	for lo := 0; lo < n; lo += per {
		c.w.Write(appendCommand(nil, f(lo, min(lo+per, n))...))
		sent++
		if sent == window || lo+per >= n {
			if err := c.w.Flush(); err != nil {
				return err
			}
			for ; sent > 0; sent-- {
				if err := skipReply(c.r); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// elems is the command's fixed words followed by f(i) for i in [lo, hi).
func elems(lo, hi int, f func(i int) []string, words ...string) []string {
	a := append([]string(nil), words...)
	for i := lo; i < hi; i++ {
		a = append(a, f(i)...)
	}
	return a
}

func member(i int) []string { return []string{"m:" + strconv.Itoa(i)} }

// pipelined sends cmds in one write and discards their replies.
func pipelined(c *respConn, cmds [][]string) error {
	for _, a := range cmds {
		c.w.Write(appendCommand(nil, a...))
	}
	if err := c.w.Flush(); err != nil {
		return err
	}
	for range cmds {
		if err := skipReply(c.r); err != nil {
			return err
		}
	}
	return nil
}

// keepTwo deletes every element but the first two, with commands of 1,000
// built by f.
func keepTwo(c *respConn, n int, f func(lo, hi int) []string) error {
	return bulk(c, n-2, func(lo, hi int) []string { return f(lo+2, hi+2) })
}

// fullScan runs SCAN-like cursor iteration (cmd cursor ... COUNT count)
// to the end and returns its time.
func fullScan(words ...string) func(c *respConn, n int) (time.Duration, error) {
	return func(c *respConn, n int) (time.Duration, error) {
		start := time.Now()
		cursor := "0"
		for i := 0; ; i++ {
			// SCAN cursor ..., or HSCAN key cursor ...
			a := append([]string{"SCAN", cursor}, words[1:]...)
			if words[0] != "SCAN" {
				a = append([]string{words[0], words[1], cursor}, words[2:]...)
			}
			c.w.Write(appendCommand(nil, a...))
			if err := c.w.Flush(); err != nil {
				return 0, err
			}
			next, err := scanCursor(c.r)
			if err != nil {
				return 0, err
			}
			if next == "0" {
				return time.Since(start), nil
			}
			if i > 10*n+1000 {
				return 0, errors.New("scan did not end")
			}
			cursor = next
		}
	}
}

// restoreDump times FUNCTION RESTORE of the server's own FUNCTION DUMP.
func restoreDump(c *respConn, n int) (time.Duration, error) {
	dump, err := c.do("FUNCTION", "DUMP")
	if err != nil {
		return 0, err
	}
	start := time.Now()
	_, err = c.do("FUNCTION", "RESTORE", dump, "REPLACE")
	return time.Since(start), err
}

// scanCursor reads a SCAN reply and returns its cursor.
func scanCursor(r *bufio.Reader) (string, error) {
	line, err := r.ReadSlice('\n')
	if err != nil {
		return "", err
	}
	if len(line) < 2 || line[0] != '*' {
		return "", fmt.Errorf("unexpected scan reply %q", line)
	}
	if line, err = r.ReadSlice('\n'); err != nil {
		return "", err
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(line[1:])))
	buf := make([]byte, n+2)
	if _, err := readFull(r, buf); err != nil {
		return "", err
	}
	return string(buf[:n]), skipReply(r)
}

// skipReply reads one reply of any RESP2 or RESP3 type without keeping it;
// an error reply is returned as an error.
func skipReply(r *bufio.Reader) error {
	line, err := r.ReadSlice('\n')
	if err != nil {
		return err
	}
	if len(line) < 3 {
		return fmt.Errorf("short reply %q", line)
	}
	kind := line[0]
	n, _ := strconv.ParseInt(string(line[1:len(line)-2]), 10, 64)
	switch kind {
	case '-':
		return replyError(strings.TrimSpace(string(line[1:])))
	case '!':
		buf := make([]byte, n+2)
		if _, err := readFull(r, buf); err != nil {
			return err
		}
		return replyError(buf[:n])
	case '$', '=':
		if n < 0 {
			return nil
		}
		_, err := r.Discard(int(n) + 2)
		return err
	case '*', '~', '>':
		for ; n > 0; n-- {
			if err := skipReply(r); err != nil {
				return err
			}
		}
	case '%', '|':
		for n *= 2; n > 0; n-- {
			if err := skipReply(r); err != nil {
				return err
			}
		}
	}
	return nil
}

func auditGroups() []auditGroup {
	strKeys := func(c *respConn, n int) error {
		return bulk(c, n, func(lo, hi int) []string {
			return elems(lo, hi, func(i int) []string { return []string{"k:" + strconv.Itoa(i), "v"} }, "MSET")
		})
	}
	list := func(c *respConn, n int) error {
		return bulk(c, n, func(lo, hi int) []string { return elems(lo, hi, member, "RPUSH", "l") })
	}
	listOfA := func(c *respConn, n int) error {
		return bulk(c, n, func(lo, hi int) []string {
			return elems(lo, hi, func(int) []string { return []string{"a"} }, "RPUSH", "l")
		})
	}
	hash := func(c *respConn, n int) error {
		return bulk(c, n, func(lo, hi int) []string {
			return elems(lo, hi, func(i int) []string { return []string{"f:" + strconv.Itoa(i), "v"} }, "HSET", "h")
		})
	}
	set := func(c *respConn, n int) error {
		if err := bulk(c, n, func(lo, hi int) []string { return elems(lo, hi, member, "SADD", "s") }); err != nil {
			return err
		}
		return bulk(c, 100, func(lo, hi int) []string { return elems(lo, hi, member, "SADD", "small") })
	}
	zset := func(c *respConn, n int) error {
		if err := bulk(c, n, func(lo, hi int) []string {
			return elems(lo, hi, func(i int) []string { return []string{strconv.Itoa(i), "m:" + strconv.Itoa(i)} }, "ZADD", "z")
		}); err != nil {
			return err
		}
		return bulk(c, 100, func(lo, hi int) []string {
			return elems(lo, hi, func(i int) []string { return []string{strconv.Itoa(i), "m:" + strconv.Itoa(i)} }, "ZADD", "small")
		})
	}
	mid := func(prefix string) func(n int) string {
		return func(n int) string { return prefix + strconv.Itoa(n/2) }
	}
	midM := mid("m:")
	functions := func(c *respConn, n int) error {
		for lo := 0; lo < n; lo += 100 {
			var cmds [][]string
			for i := lo; i < min(lo+100, n); i++ {
				cmds = append(cmds, []string{"FUNCTION", "LOAD",
					fmt.Sprintf("#!lua name=lib%d\nredis.register_function('f%d', function() return 1 end)", i, i)})
			}
			if err := pipelined(c, cmds); err != nil {
				return err
			}
		}
		return nil
	}
	return []auditGroup{
		{name: "keyspace: N string keys", load: strKeys, rows: []auditRow{
			{cmd: "KEYS nomatch:*", complexity: "O(N)", calls: 3},
			{cmd: "KEYS *", complexity: "O(N)", calls: 3},
			{cmd: "SCAN cursor COUNT 1000 (whole iteration)", complexity: "O(N) over the iteration", calls: 1, measure: fullScan("SCAN", "COUNT", "1000")},
			{cmd: "SCAN cursor MATCH k:1* COUNT 1000 (whole iteration)", complexity: "O(N) over the iteration", calls: 1, measure: fullScan("SCAN", "MATCH", "k:1*", "COUNT", "1000")},
			{cmd: "RANDOMKEY", complexity: "O(1)", calls: 2000},
			{cmd: "DBSIZE", complexity: "O(1)", calls: 2000},
			{cmd: "FLUSHDB SYNC", complexity: "O(N)", calls: 1},
			{cmd: "RANDOMKEY, 2 keys left after deleting the others", complexity: "O(1)", calls: 2000, fresh: true,
				args: func(int) []string { return []string{"RANDOMKEY"} },
				prepare: func(c *respConn, n int) error {
					return keepTwo(c, n, func(lo, hi int) []string {
						return elems(lo, hi, func(i int) []string { return []string{"k:" + strconv.Itoa(i)} }, "UNLINK")
					})
				}},
			{cmd: "SCAN cursor COUNT 10 (whole iteration), 2 keys left", complexity: "O(N) over the iteration", calls: 200, measure: fullScan("SCAN", "COUNT", "10")},
			{cmd: "KEYS *, 2 keys left", complexity: "O(N)", calls: 200},
		}},
		{name: "list: N elements m:0 .. m:N-1", load: list, rows: []auditRow{
			{cmd: "LRANGE l 0 -1", complexity: "O(S+N)", calls: 3},
			{cmd: "LRANGE l N/2 N/2+9", complexity: "O(S+N)", calls: 200, args: func(n int) []string {
				return []string{"LRANGE", "l", strconv.Itoa(n / 2), strconv.Itoa(n/2 + 9)}
			}},
			{cmd: "LINDEX l N/2", complexity: "O(N)", calls: 200, args: func(n int) []string { return []string{"LINDEX", "l", strconv.Itoa(n / 2)} }},
			{cmd: "LSET l N/2 x", complexity: "O(N)", calls: 200, args: func(n int) []string { return []string{"LSET", "l", strconv.Itoa(n / 2), "x"} }},
			{cmd: "LPOS l m:N-1", complexity: "O(N)", calls: 10, args: func(n int) []string { return []string{"LPOS", "l", "m:" + strconv.Itoa(n-1)} }},
			{cmd: "LPOS l m:N/2 RANK -1", complexity: "O(N)", calls: 10, args: func(n int) []string { return []string{"LPOS", "l", midM(n), "RANK", "-1"} }},
			{cmd: "LPOS l nosuch COUNT 0 MAXLEN 0", complexity: "O(N)", calls: 10},
			{cmd: "LREM l 0 nosuch", complexity: "O(N+M)", calls: 10},
			{cmd: "LREM l -1 m:N/2", complexity: "O(N+M)", calls: 1, args: func(n int) []string { return []string{"LREM", "l", "-1", midM(n)} }},
			{cmd: "LINSERT l BEFORE m:N/2+1 x", complexity: "O(N)", calls: 1, args: func(n int) []string {
				return []string{"LINSERT", "l", "BEFORE", "m:" + strconv.Itoa(n/2+1), "x"}
			}},
			{cmd: "LINSERT l AFTER m:N-1 x", complexity: "O(N)", calls: 1, args: func(n int) []string {
				return []string{"LINSERT", "l", "AFTER", "m:" + strconv.Itoa(n-1), "x"}
			}},
			{cmd: "RPOPLPUSH l l", complexity: "O(1)", calls: 2000},
			{cmd: "COPY l dst REPLACE", complexity: "O(N)", calls: 3},
			{cmd: "LPOP l 100", complexity: "O(N) in N popped", calls: 200},
			{cmd: "LMPOP 1 l RIGHT COUNT 100", complexity: "O(N+M)", calls: 200},
			{cmd: "LLEN l", complexity: "O(1)", calls: 2000},
			{cmd: "LTRIM l 1 -2 (twice per call)", complexity: "O(N) removed", calls: 200, args: func(int) []string { return []string{"LTRIM", "l", "1", "-2"} }},
			{cmd: "LTRIM l N/4 -N/4", complexity: "O(N) removed", calls: 1, args: func(n int) []string {
				return []string{"LTRIM", "l", strconv.Itoa(n / 4), strconv.Itoa(-n / 4)}
			}},
			{cmd: "DEL l", complexity: "O(N)", calls: 1, fresh: true},
		}},
		{name: "list: N elements, every one \"a\"", load: listOfA, rows: []auditRow{
			{cmd: "LREM l 0 a", complexity: "O(N+M)", calls: 1},
			{cmd: "LREM l 2 a", complexity: "O(N+M)", calls: 200, fresh: true},
			{cmd: "LREM l -2 a", complexity: "O(N+M)", calls: 200},
			{cmd: "LPOS l a COUNT 0", complexity: "O(N)", calls: 3},
		}},
		{name: "hash: N fields f:0 .. f:N-1", load: hash, rows: []auditRow{
			{cmd: "HGETALL h", complexity: "O(N)", calls: 3},
			{cmd: "HKEYS h", complexity: "O(N)", calls: 3},
			{cmd: "HVALS h", complexity: "O(N)", calls: 3},
			{cmd: "HSCAN h cursor COUNT 1000 (whole iteration)", complexity: "O(N) over the iteration", calls: 1, measure: fullScan("HSCAN", "h", "COUNT", "1000")},
			{cmd: "HRANDFIELD h", complexity: "O(N) in N returned", calls: 2000},
			{cmd: "COPY h dst REPLACE", complexity: "O(N)", calls: 3},
			{cmd: "HRANDFIELD h 100 WITHVALUES", complexity: "O(N) in N returned", calls: 200},
			{cmd: "HRANDFIELD h -1000000 WITHVALUES", complexity: "O(N) in N returned", calls: 1},
			{cmd: "HRANDFIELD h 900000", complexity: "O(N) in N returned", calls: 1},
			{cmd: "HRANDFIELD h, 2 fields left after deleting the others", complexity: "O(N) in N returned", calls: 2000, fresh: true,
				args: func(int) []string { return []string{"HRANDFIELD", "h"} },
				prepare: func(c *respConn, n int) error {
					return keepTwo(c, n, func(lo, hi int) []string {
						return elems(lo, hi, func(i int) []string { return []string{"f:" + strconv.Itoa(i)} }, "HDEL", "h")
					})
				}},
			{cmd: "HRANDFIELD h -5, 2 fields left", complexity: "O(N) in N returned", calls: 2000},
			{cmd: "HSCAN h cursor (whole iteration), 2 fields left", complexity: "O(N) over the iteration", calls: 200, measure: fullScan("HSCAN", "h")},
			{cmd: "DEL h", complexity: "O(N)", calls: 1, fresh: true},
		}},
		{name: "set: N members m:0 .. m:N-1 (and small, 100 members)", load: set, rows: []auditRow{
			{cmd: "SMEMBERS s", complexity: "O(N)", calls: 3},
			{cmd: "SSCAN s cursor COUNT 1000 (whole iteration)", complexity: "O(N) over the iteration", calls: 1, measure: fullScan("SSCAN", "s", "COUNT", "1000")},
			{cmd: "SRANDMEMBER s", complexity: "O(1)", calls: 2000},
			{cmd: "SRANDMEMBER s 100", complexity: "O(N) in N returned", calls: 200},
			{cmd: "SRANDMEMBER s -1000000", complexity: "O(N) in N returned", calls: 1},
			{cmd: "SRANDMEMBER s 900000", complexity: "O(N) in N returned", calls: 1},
			{cmd: "SINTER s small", complexity: "O(N*M) worst", calls: 200},
			{cmd: "SINTER s s", complexity: "O(N*M) worst", calls: 3},
			{cmd: "SUNION s small", complexity: "O(N)", calls: 3},
			{cmd: "COPY s dst REPLACE", complexity: "O(N)", calls: 3},
			{cmd: "SMOVE s small m:7 (moved once, then a miss)", complexity: "O(1)", calls: 200},
			{cmd: "SINTERCARD 2 s small", complexity: "O(N*M) worst", calls: 200},
			{cmd: "SINTERSTORE dst s s", complexity: "O(N*M) worst", calls: 1},
			{cmd: "SUNIONSTORE dst s small", complexity: "O(N)", calls: 1},
			{cmd: "SDIFF small s", complexity: "O(N)", calls: 200},
			{cmd: "SDIFFSTORE dst s small", complexity: "O(N)", calls: 1},
			{cmd: "SMISMEMBER s m:1 m:2 m:3", complexity: "O(N) in N asked", calls: 2000},
			{cmd: "SPOP s 100", complexity: "O(N) in N popped", calls: 200},
			{cmd: "SPOP s 500000", complexity: "O(N) in N popped", calls: 1, fresh: true},
			{cmd: "SRANDMEMBER s, 2 members left after deleting the others", complexity: "O(1)", calls: 2000, fresh: true,
				args: func(int) []string { return []string{"SRANDMEMBER", "s"} },
				prepare: func(c *respConn, n int) error {
					return keepTwo(c, n, func(lo, hi int) []string { return elems(lo, hi, member, "SREM", "s") })
				}},
			{cmd: "SRANDMEMBER s -5, 2 members left", complexity: "O(N) in N returned", calls: 2000},
			{cmd: "SPOP s, 2 members left (SADD them back)", complexity: "O(1)", calls: 1000,
				args: func(int) []string {
					return []string{"EVAL", "redis.call('SADD', KEYS[1], redis.call('SPOP', KEYS[1])) return 1", "1", "s"}
				}},
			{cmd: "DEL s", complexity: "O(N)", calls: 1, fresh: true},
		}},
		{name: "sorted set: N members m:i with score i (and small, 100)", load: zset, rows: []auditRow{
			{cmd: "ZRANGE z 0 -1 WITHSCORES", complexity: "O(log(N)+M)", calls: 3},
			{cmd: "ZRANGE z N/2 N/2+9", complexity: "O(log(N)+M)", calls: 2000, args: func(n int) []string {
				return []string{"ZRANGE", "z", strconv.Itoa(n / 2), strconv.Itoa(n/2 + 9)}
			}},
			{cmd: "ZRANGEBYSCORE z N/2 N/2+9", complexity: "O(log(N)+M)", calls: 2000, args: func(n int) []string {
				return []string{"ZRANGEBYSCORE", "z", strconv.Itoa(n / 2), strconv.Itoa(n/2 + 9)}
			}},
			{cmd: "ZREVRANGE z N/2 N/2+9", complexity: "O(log(N)+M)", calls: 2000, args: func(n int) []string {
				return []string{"ZREVRANGE", "z", strconv.Itoa(n / 2), strconv.Itoa(n/2 + 9)}
			}},
			{cmd: "ZRANK z m:N/2", complexity: "O(log(N))", calls: 2000, args: func(n int) []string { return []string{"ZRANK", "z", midM(n)} }},
			{cmd: "ZCOUNT z 1 N-2", complexity: "O(log(N))", calls: 2000, args: func(n int) []string { return []string{"ZCOUNT", "z", "1", strconv.Itoa(n - 2)} }},
			{cmd: "ZLEXCOUNT z - +", complexity: "O(log(N))", calls: 2000},
			{cmd: "ZREVRANGEBYSCORE z N/2+9 N/2", complexity: "O(log(N)+M)", calls: 2000, args: func(n int) []string {
				return []string{"ZREVRANGEBYSCORE", "z", strconv.Itoa(n/2 + 9), strconv.Itoa(n / 2)}
			}},
			{cmd: "ZRANGEBYSCORE z -inf +inf LIMIT N/2 10", complexity: "O(log(N)+M)", calls: 200, args: func(n int) []string {
				return []string{"ZRANGEBYSCORE", "z", "-inf", "+inf", "LIMIT", strconv.Itoa(n / 2), "10"}
			}},
			{cmd: "ZRANGE z - + BYLEX LIMIT 0 10", complexity: "O(log(N)+M)", calls: 2000},
			{cmd: "ZMSCORE z m:1 m:2 m:3", complexity: "O(N) in N asked", calls: 2000},
			{cmd: "ZUNION 2 z small", complexity: "O(N)+O(M*log(M))", calls: 1},
			{cmd: "ZINTER 2 z small", complexity: "O(N*K)+O(M*log(M))", calls: 20},
			{cmd: "ZINTERCARD 2 z small", complexity: "O(N*K)", calls: 200},
			{cmd: "COPY z dst REPLACE", complexity: "O(N)", calls: 3},
			{cmd: "ZSCAN z cursor COUNT 1000 (whole iteration)", complexity: "O(N) over the iteration", calls: 1, measure: fullScan("ZSCAN", "z", "COUNT", "1000")},
			{cmd: "ZRANDMEMBER z", complexity: "O(N) in N returned", calls: 2000},
			{cmd: "ZRANDMEMBER z -1000000 WITHSCORES", complexity: "O(N) in N returned", calls: 1},
			{cmd: "ZINTERSTORE dst 2 z small", complexity: "O(N*K)+O(M*log(M))", calls: 20},
			{cmd: "ZUNIONSTORE dst 2 z small", complexity: "O(N)+O(M*log(M))", calls: 1},
			{cmd: "ZDIFF 2 small z", complexity: "O(L + (N-K)log(N))", calls: 200},
			{cmd: "ZRANGESTORE dst z 0 -1", complexity: "O(log(N)+M)", calls: 1},
			{cmd: "ZREMRANGEBYRANK z N/2 N/2+9", complexity: "O(log(N)+M)", calls: 200, args: func(n int) []string {
				return []string{"ZREMRANGEBYRANK", "z", strconv.Itoa(n / 2), strconv.Itoa(n/2 + 9)}
			}},
			{cmd: "ZPOPMIN z 100", complexity: "O(log(N)*M)", calls: 200},
			{cmd: "ZMPOP 1 z MAX COUNT 100", complexity: "O(K)+O(M*log(N))", calls: 200},
			{cmd: "ZREMRANGEBYSCORE z 0 N/2", complexity: "O(log(N)+M)", calls: 1, args: func(n int) []string {
				return []string{"ZREMRANGEBYSCORE", "z", "0", strconv.Itoa(n / 2)}
			}},
			{cmd: "ZRANDMEMBER z, 2 members left after deleting the others", complexity: "O(N) in N returned", calls: 2000, fresh: true,
				args: func(int) []string { return []string{"ZRANDMEMBER", "z"} },
				prepare: func(c *respConn, n int) error {
					return keepTwo(c, n, func(lo, hi int) []string { return elems(lo, hi, member, "ZREM", "z") })
				}},
			{cmd: "ZRANDMEMBER z -5, 2 members left", complexity: "O(N) in N returned", calls: 2000},
			{cmd: "DEL z", complexity: "O(N)", calls: 1, fresh: true},
		}},
		{name: "functions: N/100 libraries", load: func(c *respConn, n int) error { return functions(c, n/100) }, rows: []auditRow{
			{cmd: "FUNCTION DUMP", complexity: "O(N)", calls: 5},
			{cmd: "FUNCTION LIST", complexity: "O(N)", calls: 5},
			{cmd: "FUNCTION LIST LIBRARYNAME lib9", complexity: "O(N)", calls: 5},
			{cmd: "FUNCTION STATS", complexity: "O(1)", calls: 200},
			{cmd: "FUNCTION RESTORE <dump> REPLACE", complexity: "O(N)", calls: 3, measure: restoreDump},
			{cmd: "FUNCTION FLUSH SYNC", complexity: "O(N)", calls: 1},
		}},
	}
}

// audit runs every group on each server and writes the table.
func audit(o *options) error {
	dir, err := os.MkdirTemp("", "minilock-audit-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	ks, err := kinds(o, dir)
	if err != nil {
		return err
	}
	if len(ks) != 2 {
		return fmt.Errorf("audit compares two servers (-servers minilock,redis), got %d", len(ks))
	}
	began, loadStart := time.Now(), loadAvg()
	procs := make([]*proc, len(ks))
	conns := make([]*respConn, len(ks))
	for i, k := range ks {
		if procs[i], err = start(k, 0); err != nil {
			return err
		}
		defer procs[i].stop()
		if conns[i], err = dial(procs[i].addr); err != nil {
			return err
		}
		defer conns[i].close()
		// Deadlines are per read in do; the loads and timed calls here
		// may take longer than do's 30 s on a slow server.
		conns[i].c.SetDeadline(time.Time{})
	}
	n := o.elements
	rep := &report{}
	rep.line("# Cost audit")
	rep.line("")
	rep.line("%s; %s; load average %s at the start.", machine(), time.Now().UTC().Format("2006-01-02 15:04 UTC"), loadStart)
	rep.line("N = %s elements per collection; each row is the time per call (the median of %d rounds), one call after another on one connection, the reply read and discarded; %v of rest before each row.", thousands(float64(n)), o.rounds, o.settle)
	rep.line("")
	rep.line("| group | command | Redis's complexity | calls | %s | %s | ratio |", ks[0].name, ks[1].name)
	rep.line("|---|---|---|---:|---:|---:|---:|")
	worst, failed := 0.0, 0
	load := func(g auditGroup) error {
		for i, c := range conns {
			if _, err := c.do("FLUSHALL", "SYNC"); err != nil {
				return fmt.Errorf("%s: FLUSHALL: %w", ks[i].name, err)
			}
			if _, err := c.do("FUNCTION", "FLUSH", "SYNC"); err != nil {
				return fmt.Errorf("%s: FUNCTION FLUSH: %w", ks[i].name, err)
			}
			t := time.Now()
			if err := g.load(c, n); err != nil {
				return fmt.Errorf("%s: loading %s: %w", ks[i].name, g.name, err)
			}
			logf("%-9s %s loaded in %v", ks[i].name, g.name, time.Since(t).Round(time.Millisecond))
		}
		return nil
	}
	for _, g := range auditGroups() {
		if o.only != "" && !strings.Contains(g.name, o.only) || o.only == "memory" {
			continue
		}
		if err := load(g); err != nil {
			return err
		}
		for _, r := range g.rows {
			per := make([][]float64, len(ks))
			for round := 0; round < o.rounds; round++ {
				if r.fresh || round > 0 && mutates(r) {
					if err := load(g); err != nil {
						return err
					}
				}
				// Each row starts on a settled server: the garbage of the
				// row before (a 1,000,000-member COPY) is minilock's
				// collector's to finish first, redis-server's lazy free's.
				time.Sleep(o.settle)
				for i, c := range conns {
					if r.prepare != nil {
						if err := r.prepare(c, n); err != nil {
							return fmt.Errorf("%s: %s: preparing: %w", ks[i].name, r.cmd, err)
						}
					}
					d, err := timeRow(c, r, n)
					if err != nil {
						return fmt.Errorf("%s: %s: %w", ks[i].name, r.cmd, err)
					}
					per[i] = append(per[i], d.Seconds()/float64(r.calls))
				}
			}
			a, b := median(per[0]), median(per[1])
			ratio := a / max(b, 1e-9)
			mark := ""
			if ratio > 2 {
				mark, failed = " **over 2x**", failed+1
			}
			worst = max(worst, ratio)
			logf("%-60s %12s %12s %6.2f%s", r.cmd, duration(a), duration(b), ratio, mark)
			rep.line("| %s | `%s` | %s | %d | %s | %s | %.2f%s |", g.name, r.cmd, r.complexity, r.calls, duration(a), duration(b), ratio, mark)
		}
	}
	rep.line("")
	rep.line("Worst ratio %.2f; %d row(s) over 2x. Took %v.", worst, failed, time.Since(began).Round(time.Second))
	rep.line("")
	if o.memory {
		for _, p := range procs {
			p.stop()
		}
		if err := replyMemory(o, ks, rep); err != nil {
			return err
		}
	}
	return rep.finish(o)
}

// mutates reports whether a row changes the data it is measured on, so
// that a later round must start from the group's data again.
func mutates(r auditRow) bool {
	w := strings.Fields(r.cmd)[0]
	switch w {
	case "LSET", "LREM", "LINSERT", "LTRIM", "DEL", "SPOP", "ZREMRANGEBYRANK", "ZREMRANGEBYSCORE",
		"ZPOPMIN", "ZMPOP", "LPOP", "LMPOP", "SMOVE", "FLUSHDB", "FUNCTION":
		return w != "FUNCTION" || strings.Contains(r.cmd, "FLUSH")
	}
	return r.prepare != nil
}

// timeRow runs r's calls one after another and returns the time they took.
func timeRow(c *respConn, r auditRow, n int) (time.Duration, error) {
	if r.measure != nil {
		var total time.Duration
		for range r.calls {
			d, err := r.measure(c, n)
			if err != nil {
				return 0, err
			}
			total += d
		}
		return total, nil
	}
	cmd := appendCommand(nil, r.command(n)...)
	start := time.Now()
	for range r.calls {
		c.w.Write(cmd)
		if err := c.w.Flush(); err != nil {
			return 0, err
		}
		if err := skipReply(c.r); err != nil {
			return 0, err
		}
	}
	return time.Since(start), nil
}

// duration formats seconds per call.
func duration(s float64) string {
	switch {
	case s >= 1:
		return fmt.Sprintf("%.2f s", s)
	case s >= 1e-3:
		return fmt.Sprintf("%.2f ms", s*1e3)
	default:
		return fmt.Sprintf("%.0f µs", s*1e6)
	}
}
