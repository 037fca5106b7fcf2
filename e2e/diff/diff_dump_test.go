package diff_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/minilock/minilock/internal/rdbfmt"
	"github.com/minilock/minilock/internal/redistest"
	"github.com/minilock/minilock/resp"
	"github.com/minilock/minilock/server"
)

// DUMP, RESTORE, MIGRATE and the RDB file between the two servers: the
// same seeded values are built in both; every DUMP payload must be
// byte-identical where Redis's encoding is deterministic (all but sets and
// hashes past their listpack/intset size, which Redis writes in its dict's
// order), restore in the other server to the same value, and re-dump
// there to the same bytes.

// dumpGen builds values of every type at sizes on both sides of Redis
// 7.0's encoding thresholds.
type dumpGen struct {
	r    *rand.Rand
	cmds [][]string
	keys []string
}

func (g *dumpGen) elem(maxLen int) string {
	switch g.r.IntN(6) {
	case 0:
		return strconv.FormatInt(g.r.Int64N(256)-128, 10)
	case 1:
		return strconv.FormatInt([]int64{-5000, 4095, 40000, -9000000, 1 << 31, -(1 << 40), 1<<63 - 1}[g.r.IntN(7)]-g.r.Int64N(3), 10)
	case 2:
		return strings.Repeat("ab", 1+g.r.IntN(max(maxLen/2, 1)))
	case 3:
		b := make([]byte, g.r.IntN(maxLen+1))
		for i := range b {
			b[i] = byte(g.r.IntN(256))
		}
		return string(b)
	}
	return "e" + strconv.Itoa(g.r.IntN(1_000_000))
}

func (g *dumpGen) add(key string, cmd ...string) {
	g.cmds = append(g.cmds, cmd)
	if key != "" {
		g.keys = append(g.keys, key)
	}
}

func genDumpValues(r *rand.Rand) *dumpGen {
	g := &dumpGen{r: r}
	for i, n := range []int{1, 3, 127, 128, 129, 511, 512, 513, 2000} {
		k := fmt.Sprintf("list%d", i)
		args := []string{"RPUSH", k}
		for j := 0; j < n; j++ {
			args = append(args, g.elem([]int{8, 70, 5000}[g.r.IntN(3)]))
		}
		g.add(k, args...)
		k = fmt.Sprintf("set%d", i)
		args = []string{"SADD", k}
		strs := g.r.IntN(3) == 0
		for j := 0; j < n; j++ {
			if strs {
				args = append(args, g.elem(20))
			} else {
				args = append(args, strconv.FormatInt(g.r.Int64N(1<<uint(8+g.r.IntN(50)))-(1<<7), 10))
			}
		}
		g.add(k, args...)
		k = fmt.Sprintf("zset%d", i)
		args = []string{"ZADD", k}
		for j := 0; j < n; j++ {
			score := []string{strconv.Itoa(g.r.IntN(100)), strconv.FormatFloat(g.r.Float64()*1e6, 'g', -1, 64), "inf", "-inf", "1e300", "-0.5", "4503599627370497"}[g.r.IntN(7)]
			args = append(args, score, g.elem([]int{10, 64, 65}[g.r.IntN(3)]))
		}
		g.add(k, args...)
		k = fmt.Sprintf("hash%d", i)
		args = []string{"HSET", k}
		for j := 0; j < n; j++ {
			args = append(args, "f"+strconv.Itoa(j), g.elem([]int{10, 64, 65}[g.r.IntN(3)]))
		}
		g.add(k, args...)
	}
	// A set that shrinks keeps its intset width; a zset that shrinks past
	// its threshold stays a skiplist.
	g.add("wide", "SADD", "wide", "1", "2", "5000000000")
	g.add("", "SREM", "wide", "5000000000")
	for i, v := range []string{"", "0", "-1", "12345678901", "123456789012345678901", strings.Repeat("x", 100), g.elem(3000)} {
		k := fmt.Sprintf("str%d", i)
		g.add(k, "SET", k, v)
	}
	g.add("ttl", "SET", "ttl", "v", "PX", "100000000")
	g.add("hll", "PFADD", "hll", "a", "b", "c")
	args := []string{"PFADD", "hlldense"}
	for j := 0; j < 3000; j++ {
		args = append(args, strconv.Itoa(j))
	}
	g.add("hlldense", args...)
	g.add("", "CONFIG", "SET", "stream-node-max-entries", "5")
	for j := 1; j <= 40; j++ {
		fields := []string{"a", g.elem(10), "b", strconv.Itoa(j)}
		if j%7 == 0 {
			fields = []string{"other", "x"}
		}
		g.add("", append([]string{"XADD", "stream", fmt.Sprintf("%d-%d", 1000+j/3, j%3)}, fields...)...)
	}
	g.keys = append(g.keys, "stream")
	g.add("", "XDEL", "stream", "1001-1", "1005-0")
	g.add("", "XGROUP", "CREATE", "stream", "g1", "0")
	g.add("", "XGROUP", "CREATE", "stream", "g0", "$")
	g.add("", "CONFIG", "SET", "stream-node-max-entries", "100")
	g.add("", "XADD", "grouped", "1-1", "a", "1")
	g.add("", "XADD", "grouped", "2-1", "a", "2")
	g.add("", "XGROUP", "CREATE", "grouped", "g", "0")
	g.add("", "XREADGROUP", "GROUP", "g", "alice", "COUNT", "1", "STREAMS", "grouped", ">")
	g.keys = append(g.keys, "grouped") // delivery times differ: compared after a restore
	g.add("", "XADD", "emptied", "1-1", "a", "b")
	g.add("", "XDEL", "emptied", "1-1")
	g.keys = append(g.keys, "emptied")
	return g
}

// dictOrdered: a payload of a type Redis writes in its dict's order.
func dictOrdered(p []byte) bool { return len(p) > 0 && (p[0] == 2 || p[0] == 4) }

// timeStamped: a payload whose bytes hold each server's own clock.
func timeStamped(key string) bool { return key == "grouped" }

func do(t *testing.T, c *redistest.Conn, args ...string) []byte {
	t.Helper()
	b, err := c.Do(args...)
	if err != nil {
		t.Fatalf("%q: %v", args, err)
	}
	return b
}

func bulk(t *testing.T, reply []byte) []byte {
	t.Helper()
	it, _, err := resp.Next(reply)
	if err != nil || it.Kind != '$' || it.Int < 0 {
		t.Fatalf("want a bulk string, got %.200q", reply)
	}
	return it.Data
}

// valueOf is key's value in a form both servers share whatever their
// encoding: TYPE, then the elements (a set's and a hash's sorted).
func valueOf(t *testing.T, c *redistest.Conn, key string) string {
	t.Helper()
	typ := string(do(t, c, "TYPE", key))
	var reply []byte
	sorted := false
	switch typ {
	case "+string\r\n":
		reply = do(t, c, "GET", key)
	case "+list\r\n":
		reply = do(t, c, "LRANGE", key, "0", "-1")
	case "+set\r\n":
		reply, sorted = do(t, c, "SMEMBERS", key), true
	case "+zset\r\n":
		reply = do(t, c, "ZRANGE", key, "0", "-1", "WITHSCORES")
	case "+hash\r\n":
		reply, sorted = do(t, c, "HGETALL", key), true
	case "+stream\r\n":
		reply = do(t, c, "XINFO", "STREAM", key, "FULL")
	}
	if !sorted {
		return typ + string(reply)
	}
	it, rest, _ := resp.Next(reply)
	var elems []string
	for i := int64(0); i < it.Int; i++ {
		var e resp.Item
		e, rest, _ = resp.Next(rest)
		elems = append(elems, string(e.Data))
	}
	if typ == "+hash\r\n" {
		var pairs []string
		for i := 0; i+1 < len(elems); i += 2 {
			pairs = append(pairs, elems[i]+"\x00"+elems[i+1])
		}
		elems = pairs
	}
	slices.Sort(elems)
	return typ + strings.Join(elems, "\x01")
}

func TestDiffDumpRestore(t *testing.T) {
	redistest.Require(t)
	g := genDumpValues(seededRand(t))
	p := newPair(t, "")
	rs, ml := p.ends[0].admin, p.ends[1].admin
	for _, c := range []*redistest.Conn{rs, ml} {
		do(t, c, "FLUSHALL")
		for _, cmd := range g.cmds {
			if reply := do(t, c, cmd...); bytes.HasPrefix(reply, []byte("-")) {
				t.Fatalf("%.80q: %s", cmd, reply)
			}
		}
	}
	for _, key := range g.keys {
		pr, pm := bulk(t, do(t, rs, "DUMP", key)), bulk(t, do(t, ml, "DUMP", key))
		if !bytes.Equal(pr, pm) && !dictOrdered(pr) && !timeStamped(key) {
			t.Errorf("DUMP %s differs:\n redis    %.200q\n minilock %.200q", key, pr, pm)
		}
		if vr, vm := valueOf(t, rs, key), valueOf(t, ml, key); vr != vm && !timeStamped(key) {
			t.Errorf("%s differs:\n redis    %.200q\n minilock %.200q", key, vr, vm)
		}
		// Each payload restores in the other server to the same value,
		// and dumps there to the same bytes.
		for _, dir := range []struct {
			name     string
			from, to *redistest.Conn
			payload  []byte
		}{{"redis->minilock", rs, ml, pr}, {"minilock->redis", ml, rs, pm}} {
			copyKey := key + ":restored"
			if got := do(t, dir.to, "RESTORE", copyKey, "0", string(dir.payload), "REPLACE"); string(got) != "+OK\r\n" {
				t.Errorf("%s: RESTORE %s = %q", dir.name, key, got)
				continue
			}
			again := bulk(t, do(t, dir.to, "DUMP", copyKey))
			if !bytes.Equal(again, dir.payload) && !dictOrdered(again) {
				t.Errorf("%s: %s dumps after its restore as\n %.200q\nwant %.200q", dir.name, key, again, dir.payload)
			}
			if a, b := valueOf(t, dir.from, key), valueOf(t, dir.to, copyKey); a != b {
				t.Errorf("%s: %s restored as\n %.200q\nwant %.200q", dir.name, key, b, a)
			}
		}
	}
	if got, want := do(t, ml, "PTTL", "ttl"), do(t, rs, "PTTL", "ttl"); string(got[:4]) != string(want[:4]) {
		t.Errorf("PTTL ttl: minilock %q, redis %q", got, want)
	}

	// MIGRATE each way, of every key: the target holds what the source
	// held, and the source no longer does.
	for _, dir := range []struct {
		name     string
		from, to *redistest.Conn
		toAddr   string
	}{{"minilock->redis", ml, rs, p.ends[0].addr}, {"redis->minilock", rs, ml, p.ends[1].addr}} {
		do(t, dir.to, "SELECT", "9")
		want := map[string]string{}
		for _, key := range g.keys {
			want[key] = valueOf(t, dir.from, key)
		}
		host, port, _ := strings.Cut(dir.toAddr, ":")
		args := append([]string{"MIGRATE", host, port, "", "9", "5000", "KEYS"}, g.keys...)
		if got := do(t, dir.from, args...); string(got) != "+OK\r\n" {
			t.Fatalf("%s: MIGRATE = %q", dir.name, got)
		}
		for _, key := range g.keys {
			if got := valueOf(t, dir.to, key); got != want[key] && !timeStamped(key) {
				t.Errorf("%s: %s migrated as %.200q, want %.200q", dir.name, key, got, want[key])
			}
			if got := do(t, dir.from, "EXISTS", key); string(got) != ":0\r\n" {
				t.Errorf("%s: %s still at the source", dir.name, key)
			}
		}
		if got := do(t, dir.from, "MIGRATE", host, port, "", "9", "5000", "KEYS", g.keys[0]); string(got) != "+NOKEY\r\n" {
			t.Errorf("%s: MIGRATE of a moved key = %q", dir.name, got)
		}
		do(t, dir.to, "SELECT", "0")
		// Back where it came from, for the other direction.
		do(t, dir.to, "SELECT", "9")
		back := append([]string{"MIGRATE", "127.0.0.1", addrPort(p, dir.from, rs), "", "0", "5000", "KEYS"}, g.keys...)
		if got := do(t, dir.to, back...); string(got) != "+OK\r\n" {
			t.Fatalf("%s: MIGRATE back = %q", dir.name, got)
		}
		do(t, dir.to, "SELECT", "0")
	}
}

// addrPort is the port of the server c talks to.
func addrPort(p *pair, c, rs *redistest.Conn) string {
	addr := p.ends[1].addr
	if c == rs {
		addr = p.ends[0].addr
	}
	_, port, _ := strings.Cut(addr, ":")
	return port
}

// The RDB file both ways: minilock's dump.rdb passes redis-check-rdb and
// loads in redis-server; redis-server's loads in minilock. Keys, values,
// TTLs, databases and function libraries all arrive.
func TestDiffRDBFile(t *testing.T) {
	bin := redistest.Require(t)
	check, err := exec.LookPath(filepath.Join(filepath.Dir(bin), "redis-check-rdb"))
	if err != nil {
		if check, err = exec.LookPath("redis-check-rdb"); err != nil {
			t.Fatal("redis-check-rdb not found beside redis-server")
		}
	}
	g := genDumpValues(seededRand(t))
	g.add("", "SELECT", "3")
	g.add("", "SET", "in3", "three")
	g.add("", "SELECT", "0")
	g.add("", "FUNCTION", "LOAD", "#!lua name=lib\nredis.register_function('f', function() return 1 end)")
	keys := append(g.keys[:len(g.keys):len(g.keys)], "db3")

	fill := func(c *redistest.Conn) {
		for _, cmd := range g.cmds {
			if reply := do(t, c, cmd...); bytes.HasPrefix(reply, []byte("-")) {
				t.Fatalf("%.80q: %s", cmd, reply)
			}
		}
	}
	snapshot := func(c *redistest.Conn) map[string]string {
		out := map[string]string{}
		for _, k := range keys {
			if k == "db3" {
				do(t, c, "SELECT", "3")
				out[k] = string(do(t, c, "GET", "in3"))
				do(t, c, "SELECT", "0")
				continue
			}
			out[k] = valueOf(t, c, k)
		}
		out["functions"] = string(do(t, c, "FUNCTION", "LIST"))
		ttl, _ := strconv.Atoi(strings.Trim(string(do(t, c, "PTTL", "ttl")), ":\r\n"))
		out["ttl"] += fmt.Sprintf(" (ttl within a minute: %v)", ttl > 100000000-60000)
		return out
	}
	compare := func(what string, got, want map[string]string) {
		for k, v := range want {
			if got[k] != v && !timeStamped(k) {
				t.Errorf("%s: %s = %.200q, want %.200q", what, k, got[k], v)
			}
		}
	}

	// minilock -> redis-server.
	mdir := t.TempDir()
	ms := server.RunT(t, server.Config{Dir: mdir})
	mc := redistest.Dial(t, ms.Addr())
	fill(mc)
	want := snapshot(mc)
	if got := do(t, mc, "SAVE"); string(got) != "+OK\r\n" {
		t.Fatalf("SAVE = %q", got)
	}
	out, err := exec.Command(check, filepath.Join(mdir, "dump.rdb")).CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("RDB looks OK")) {
		t.Fatalf("redis-check-rdb on minilock's file: %v\n%s", err, out)
	}
	rs, err := redistest.Launch(bin, mdir)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Stop()
	rc := redistest.Dial(t, rs.Addr)
	compare("minilock's file in redis-server", snapshot(rc), want)

	// redis-server -> minilock.
	rs2 := redistest.Start(t)
	rc2 := redistest.Dial(t, rs2.Addr)
	fill(rc2)
	want2 := snapshot(rc2)
	if got := do(t, rc2, "SAVE"); string(got) != "+OK\r\n" {
		t.Fatalf("redis SAVE = %q", got)
	}
	ldir := t.TempDir()
	b, err := os.ReadFile(filepath.Join(rs2.Dir, "dump.rdb"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ldir, "dump.rdb"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	ms2 := server.RunT(t, server.Config{Dir: ldir})
	mc2 := redistest.Dial(t, ms2.Addr())
	compare("redis-server's file in minilock", snapshot(mc2), want2)
	// And the DUMP of what it loaded is redis-server's DUMP.
	for _, k := range g.keys {
		a, b := do(t, mc2, "DUMP", k), do(t, rc2, "DUMP", k)
		if !bytes.Equal(a, b) && !dictOrdered(bulk(t, b)) {
			t.Errorf("%s: DUMP after loading redis-server's file = %.200q, want %.200q", k, a, b)
		}
	}
}

// dumpCases: DUMP, RESTORE and MIGRATE's replies and errors, byte for
// byte (also through scripts and MULTI: "dump via").
var dumpCases = func() []diffCase {
	hello := string(rdbfmt.AppendFooter(rdbfmt.AppendString([]byte{0}, []byte("hello"))))
	badBody := string(rdbfmt.AppendFooter([]byte{0, 5, 'a'}))
	newer := string(rdbfmt.AppendFooter(rdbfmt.AppendString([]byte{0}, []byte("x"))))
	newer = newer[:len(newer)-10] + "\x0b\x00" + newer[len(newer)-8:]
	return []diffCase{
		tc("dump each type", c("SET s hello"), c("SET n 42"), c("RPUSH l a 1 b"), c("SADD si 1 2 3"), c("SADD ss a"),
			c("ZADD z 1 a 2.5 b"), c("HSET h f v"), c("XADD x 1-1 f v"), c("PFADD p a b"),
			c("DUMP s"), c("DUMP n"), c("DUMP l"), c("DUMP si"), c("DUMP ss"), c("DUMP z"), c("DUMP h"), c("DUMP x"), c("DUMP p"),
			c("DUMP nosuch"), c("DUMP"), c("DUMP a b")),
		tc("restore", cmd("RESTORE", "k", "0", hello), c("GET k"), c("TTL k"), cmd("RESTORE", "k", "0", hello),
			cmd("RESTORE", "k", "10000", hello, "REPLACE"), c("TTL k"), cmd("RESTORE", "k", "1", hello, "REPLACE", "ABSTTL"), c("EXISTS k"),
			cmd("RESTORE", "k", "-1", hello), cmd("RESTORE", "k", "x", hello), cmd("RESTORE", "k", "0", "junk"),
			cmd("RESTORE", "k", "0", badBody), cmd("RESTORE", "k", "0", newer), cmd("RESTORE", "k", "0", hello, "IDLETIME", "-1"),
			cmd("RESTORE", "k", "0", hello, "IDLETIME", "10", "FREQ", "1"), cmd("RESTORE", "k", "0", hello, "FREQ", "256"),
			cmd("RESTORE", "k", "0", hello, "FREQ", "5"), c("GET k"), cmd("RESTORE", "k2", "0", hello, "IDLETIME", "5", "IDLETIME", "6"),
			cmd("RESTORE", "k3", "0", hello, "BOGUS"), cmd("RESTORE", "k3", "0", hello, "FREQ"), cmd("RESTORE-ASKING", "k4", "0", hello),
			c("GET k4"), c("RESTORE k"), c("SET s v"), cmd("RESTORE", "s", "0", hello, "REPLACE"), c("GET s")),
		tc("dump uncompressed", c("CONFIG SET rdbcompression no"), cmd("SET", "s", strings.Repeat("abc", 30)), c("DUMP s"),
			cmd("HSET", "h", "f", strings.Repeat("x", 40)), c("DUMP h"), c("CONFIG GET rdbcompression"), c("CONFIG SET rdbcompression yes"),
			c("DUMP s"), c("DUMP h")),
		tc("migrate errors", c("SET k v"), c("MIGRATE 127.0.0.1 1 nosuch 0 100"), c("MIGRATE 127.0.0.1 1 k 0 100 KEYS k"),
			cmd("MIGRATE", "127.0.0.1", "1", "", "0", "100", "KEYS", "nosuch1", "nosuch2"), c("MIGRATE 127.0.0.1 1 k 0 x"),
			c("MIGRATE 127.0.0.1 1 k x 100"), c("MIGRATE 127.0.0.1 1 k 0 100 AUTH"), c("MIGRATE 127.0.0.1 1 k 0 100 AUTH2 u"),
			c("MIGRATE 127.0.0.1 1 k 0 100 BOGUS"), c("MIGRATE 127.0.0.1 1 k 0 100 COPY REPLACE"), c("GET k"), c("MIGRATE 127.0.0.1 1")),
		tc("getkeys", c("COMMAND GETKEYS MIGRATE h 1 k 0 10"), cmd("COMMAND", "GETKEYS", "MIGRATE", "h", "1", "", "0", "10", "KEYS", "a", "b"),
			cmd("COMMAND", "GETKEYS", "MIGRATE", "h", "1", "", "0", "10", "AUTH", "keys", "COPY", "AUTH2", "u", "keys", "KEYS", "a"),
			c("COMMAND GETKEYS MIGRATE h 1 k 0 10 KEYS a"), cmd("COMMAND", "GETKEYS", "MIGRATE", "h", "1", "", "0", "10", "KEYS"),
			c("COMMAND GETKEYSANDFLAGS RESTORE k 0 x"), c("COMMAND GETKEYSANDFLAGS DUMP k"), c("COMMAND GETKEYS RESTORE-ASKING k 0 x")),
	}
}()

// dumpDirectCases are not run through scripts: a script turns a RESP3
// set (key flags) into a Lua table, whose order is the Lua
// implementation's.
var dumpDirectCases = []diffCase{
	tc("getkeysandflags", cmd("COMMAND", "GETKEYSANDFLAGS", "MIGRATE", "h", "1", "", "0", "10", "AUTH", "keys", "COPY", "AUTH2", "u", "keys", "KEYS", "a")),
}
