package keyspace

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/minilock/minilock/expiry"
	"github.com/minilock/minilock/resp"
)

// Benchmarks of the keyspace alone, no network and no server dispatch.
//
// Command benchmarks measure what a command costs on the owner goroutine
// (reading the clock, the command, and the sweep check the owner makes
// after every job), not the hand-off to the owner; server/internal/edge's
// Handoff benchmarks measure that separately.
//
//	go test -run '^$' -bench . -benchmem ./keyspace

// benchKeys is the key space, as redis-benchmark -r 65536 would use; a power
// of two so that blocks of benchBlock keys tile it.
const (
	benchKeys  = 1 << 16
	benchBlock = 1 << 12
)

// cmdCase is one command benchmark.
type cmdCase struct {
	// setup runs once per key before timing.
	setup func(key string) []string
	// reset, when benchSET, runs untimed for each key of a block of benchBlock
	// keys before that block is measured: it puts the key back into the
	// state the measured command expects (absent for an insert, present
	// for a delete).
	reset func(key string) []string
	// cmds are the commands one iteration runs on its key, in order.
	cmds []func(key string) []string
	// want is the reply of the last command of an iteration, checked on
	// the first and the last iteration.
	want string
	// notify, when set, turns these classes of keyspace events on, reported
	// to a function that does nothing (notify_bench_test.go).
	notify NotifyClass
}

func benchKey(i int) string { return "lock:" + strconv.Itoa(i) }

func benchArgv(words ...string) [][]byte {
	out := make([][]byte, len(words))
	for i, w := range words {
		out[i] = []byte(w)
	}
	return out
}

var benchRuns = ksCommands

// benchExec runs one command (args[0] lower case) as the server would, with the
// error, if any, written as the reply.
func benchExec(k *Keyspace, c *Ctx, run func(*Keyspace, *Ctx, [][]byte) error, args [][]byte) {
	if err := run(k, c, args); err != nil {
		c.W.Err(err)
	}
}

type benchPrepared struct {
	run  func(*Keyspace, *Ctx, [][]byte) error
	args [][]byte
}

// benchPrepare builds the argument vectors of f for every key up front, so the
// timed loop allocates nothing of its own.
func benchPrepare(f func(key string) []string) []benchPrepared {
	if f == nil {
		return nil
	}
	out := make([]benchPrepared, benchKeys)
	for i := range out {
		words := f(benchKey(i))
		out[i] = benchPrepared{benchRuns[words[0]], benchArgv(words...)}
	}
	return out
}

// benchCommand measures bc on a fresh keyspace; one op is one iteration of
// bc.cmds on one key.
func benchCommand(b *testing.B, bc cmdCase) {
	k := New(Config{})
	if bc.notify != 0 {
		k.SetNotify(bc.notify, func(int, string, []byte, NotifyClass) {})
	}
	setup, reset := benchPrepare(bc.setup), benchPrepare(bc.reset)
	cmds := make([][]benchPrepared, len(bc.cmds))
	for i, f := range bc.cmds {
		cmds[i] = benchPrepare(f)
	}
	var w resp.Writer
	c := &Ctx{W: &w}
	var first, last string
	c.Now = k.Now()
	// A key that stays, so a database emptied by the measured
	// commands is not remade (db.delete) and map growth is not
	// measured over and over.
	benchExec(k, c, benchRuns["set"], benchArgv("set", "anchor", "x"))
	for _, p := range setup {
		benchExec(k, c, p.run, p.args)
	}
	w.B = w.B[:0]
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		j := i % benchKeys
		if reset != nil && j%benchBlock == 0 {
			b.StopTimer()
			c.Now = k.Now()
			for _, p := range reset[j : j+benchBlock] {
				benchExec(k, c, p.run, p.args)
			}
			w.B = w.B[:0]
			b.StartTimer()
		}
		w.B = w.B[:0]
		for _, cmd := range cmds {
			c.Now = k.Now()
			benchExec(k, c, cmd[j].run, cmd[j].args)
			k.sweep(c.Now)
		}
		if i == 0 {
			first = string(w.B[benchLastReply(w.B, len(cmds)):])
		}
	}
	if len(w.B) > 0 {
		last = string(w.B[benchLastReply(w.B, len(cmds)):])
	}
	b.StopTimer()
	if first != bc.want || last != bc.want {
		b.Fatalf("reply %q (first) %q (last), want %q", first, last, bc.want)
	}
}

// benchLastReply returns where the last of n simple replies in b starts. The
// replies benchmarked are one line each, or one bulk string (two lines).
func benchLastReply(b []byte, n int) int {
	if n == 1 {
		return 0
	}
	// Skip the first n-1 single-line replies.
	i := 0
	for range n - 1 {
		for i < len(b) && b[i] != '\n' {
			i++
		}
		i++
	}
	return min(i, len(b))
}

func benchSET(key string) []string     { return []string{"set", key, "xxx"} }
func benchGET(key string) []string     { return []string{"get", key} }
func benchDEL(key string) []string     { return []string{"del", key} }
func benchAcquire(key string) []string { return []string{"set", key, "tok", "NX", "PX", "30000"} }

func BenchmarkCommand_GET_hit(b *testing.B) {
	benchCommand(b, cmdCase{setup: benchSET, cmds: benchCmds(benchGET), want: "$3\r\nxxx\r\n"})
}

func BenchmarkCommand_GET_miss(b *testing.B) {
	benchCommand(b, cmdCase{cmds: benchCmds(benchGET), want: "$-1\r\n"})
}

func BenchmarkCommand_SET_overwrite(b *testing.B) {
	benchCommand(b, cmdCase{setup: benchSET, cmds: benchCmds(benchSET), want: "+OK\r\n"})
}

func BenchmarkCommand_SET_new(b *testing.B) {
	benchCommand(b, cmdCase{reset: benchDEL, cmds: benchCmds(benchSET), want: "+OK\r\n"})
}

func BenchmarkCommand_SET_NX_PX_acquire(b *testing.B) {
	benchCommand(b, cmdCase{reset: benchDEL, cmds: benchCmds(benchAcquire), want: "+OK\r\n"})
}

func BenchmarkCommand_SET_NX_PX_held(b *testing.B) {
	benchCommand(b, cmdCase{setup: benchAcquire, cmds: benchCmds(benchAcquire), want: "$-1\r\n"})
}

func BenchmarkCommand_DEL_hit(b *testing.B) {
	benchCommand(b, cmdCase{reset: benchAcquire, cmds: benchCmds(benchDEL), want: ":1\r\n"})
}

func BenchmarkCommand_DEL_miss(b *testing.B) {
	benchCommand(b, cmdCase{cmds: benchCmds(benchDEL), want: ":0\r\n"})
}

// A lock taken and released: SET NX PX then DEL, one op per pair.
func BenchmarkCommand_LockCycle(b *testing.B) {
	benchCommand(b, cmdCase{cmds: benchCmds(benchAcquire, benchDEL), want: ":1\r\n"})
}

func benchCmds(fs ...func(string) []string) []func(string) []string { return fs }

// benchActiveExpiry loads n keys with a TTL on a manual clock, moves the
// clock past their deadlines and measures the owner deleting them all.
func benchActiveExpiry(b *testing.B, n int) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		clock := expiry.NewManual(time.UnixMilli(1_700_000_000_000))
		k := New(Config{Clock: clock})
		for j := range n {
			k.SetValue(0, benchKey(j), "0123456789abcdef0123456789abcdef", time.Duration(1+j%1000)*time.Millisecond)
		}
		b.StartTimer()
		// The move wakes the owner, which sweeps in batches between jobs;
		// Sweep finishes whatever is left.
		clock.FastForward(2 * time.Second)
		var left int
		k.Sweep()
		left = k.dbs[0].size()
		b.StopTimer()
		if left != 0 {
			b.Fatalf("%d keys left after the sweep", left)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/key")
}

func BenchmarkActiveExpiry_1M(b *testing.B) { benchActiveExpiry(b, 1_000_000) }

// benchMemory loads n lock keys (SET lock:i <32-byte token> PX 600000) and
// reports the live heap they hold per key, after a GC: what RSS would be
// without garbage and GOGC's headroom.
func benchMemory(b *testing.B, n int) {
	b.ReportAllocs()
	var ms runtime.MemStats
	var perKey float64
	for i := 0; i < b.N; i++ {
		runtime.GC()
		runtime.ReadMemStats(&ms)
		base := ms.HeapAlloc
		k := New(Config{})
		for j := range n {
			k.SetValue(0, benchKey(j), "0123456789abcdef0123456789abcdef", 600*time.Second)
		}
		runtime.GC()
		runtime.ReadMemStats(&ms)
		perKey = float64(ms.HeapAlloc-base) / float64(n)
		runtime.KeepAlive(k)
	}
	b.ReportMetric(perKey, "live-B/key")
}

func BenchmarkMemory_1MLockKeys(b *testing.B) { benchMemory(b, 1_000_000) }

// benchCollectionMemory builds keys collections with members each through
// the commands themselves and reports the live heap per member after a GC:
// the data structures' own cost, without garbage or GOGC's headroom (the
// RSS figures of bench/run.sh types include those).
func benchCollectionMemory(b *testing.B, keys, members int, build func(i int) [][]byte) {
	var ms runtime.MemStats
	var perMember float64
	for i := 0; i < b.N; i++ {
		runtime.GC()
		runtime.ReadMemStats(&ms)
		base := ms.HeapAlloc
		k := New(Config{})
		var w resp.Writer
		c := &Ctx{W: &w}
		for j := range keys {
			args := build(j)
			run := ksCommands[strings.ToLower(string(args[0]))]
			if err := run(k, c, args); err != nil {
				b.Fatal(err)
			}
			w.B = w.B[:0]
		}
		runtime.GC()
		runtime.ReadMemStats(&ms)
		perMember = float64(ms.HeapAlloc-base) / float64(keys*members)
		runtime.KeepAlive(k)
	}
	b.ReportMetric(perMember, "live-B/member")
}

func memberArgs(cmd, key string, n int, member func(j int) []string) [][]byte {
	args := [][]byte{[]byte(cmd), []byte(key)}
	for j := range n {
		for _, a := range member(j) {
			args = append(args, []byte(a))
		}
	}
	return args
}

// 1M members in 10k collections of 100, as bench/run.sh types loads them.
func BenchmarkMemory_10kHashes(b *testing.B) {
	benchCollectionMemory(b, 10000, 100, func(i int) [][]byte {
		return memberArgs("HSET", "h:"+strconv.Itoa(i), 100, func(j int) []string {
			return []string{"field:" + strconv.Itoa(j), "value:" + strconv.Itoa(i*j)}
		})
	})
}

func BenchmarkMemory_10kZSets(b *testing.B) {
	benchCollectionMemory(b, 10000, 100, func(i int) [][]byte {
		return memberArgs("ZADD", "z:"+strconv.Itoa(i), 100, func(j int) []string {
			return []string{strconv.Itoa(i*7 + j), "member:" + strconv.Itoa(j)}
		})
	})
}

func BenchmarkMemory_10kSets(b *testing.B) {
	benchCollectionMemory(b, 10000, 100, func(i int) [][]byte {
		return memberArgs("SADD", "s:"+strconv.Itoa(i), 100, func(j int) []string { return []string{"member:" + strconv.Itoa(j)} })
	})
}

func BenchmarkMemory_1MZSet(b *testing.B) {
	benchCollectionMemory(b, 1000, 1000, func(i int) [][]byte {
		return memberArgs("ZADD", "bigz", 1000, func(j int) []string {
			return []string{strconv.Itoa((i*1000 + j) * 3), "member:" + strconv.Itoa(i*1000+j)}
		})
	})
}

// benchBig loads one collection of 1M members (ZADD bigz i*3 member:i,
// SADD bigs member:i or HSET bigh member:i i) and measures cmd(i) on it, i
// the iteration: the cost of a command on a large collection.
func benchBig(b *testing.B, kind string, cmd func(i int) []string) {
	k := New(Config{})
	var w resp.Writer
	c := &Ctx{W: &w}
	const n, batch = 1_000_000, 1000
	for i := 0; i < n; i += batch {
		var args [][]byte
		switch kind {
		case "zset":
			args = memberArgs("ZADD", "bigz", batch, func(j int) []string {
				return []string{strconv.Itoa((i + j) * 3), "member:" + strconv.Itoa(i+j)}
			})
		case "set":
			args = memberArgs("SADD", "bigs", batch, func(j int) []string { return []string{"member:" + strconv.Itoa(i+j)} })
		default:
			args = memberArgs("HSET", "bigh", batch, func(j int) []string {
				return []string{"member:" + strconv.Itoa(i+j), strconv.Itoa(i + j)}
			})
		}
		if err := ksCommands[strings.ToLower(string(args[0]))](k, c, args); err != nil {
			b.Fatal(err)
		}
		w.B = w.B[:0]
	}
	prepared := make([]benchPrepared, 1<<16)
	for i := range prepared {
		words := cmd(i * 7919 % n)
		prepared[i] = benchPrepared{benchRuns[strings.ToLower(words[0])], benchArgv(words...)}
	}
	runPrepared(b, k, c, prepared)
}

// runPrepared runs the prepared commands in turn, b.N in all, on the
// owner, timing only them.
func runPrepared(b *testing.B, k *Keyspace, c *Ctx, prepared []benchPrepared) {
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p := prepared[i%len(prepared)]
		c.W.B = c.W.B[:0]
		benchExec(k, c, p.run, p.args)
	}
}

func BenchmarkBig_SADD_new(b *testing.B) {
	benchBig(b, "set", func(i int) []string { return []string{"SADD", "bigs", "new:" + strconv.Itoa(i)} })
}

func BenchmarkBig_SISMEMBER(b *testing.B) {
	benchBig(b, "set", func(i int) []string { return []string{"SISMEMBER", "bigs", "member:" + strconv.Itoa(i)} })
}

func BenchmarkBig_ZADD_move(b *testing.B) {
	benchBig(b, "zset", func(i int) []string {
		return []string{"ZADD", "bigz", strconv.Itoa(i*3 + 1), "member:" + strconv.Itoa(i)}
	})
}

func BenchmarkBig_ZSCORE(b *testing.B) {
	benchBig(b, "zset", func(i int) []string { return []string{"ZSCORE", "bigz", "member:" + strconv.Itoa(i)} })
}

func BenchmarkBig_ZRANK(b *testing.B) {
	benchBig(b, "zset", func(i int) []string { return []string{"ZRANK", "bigz", "member:" + strconv.Itoa(i)} })
}

func BenchmarkBig_ZRANGE_10(b *testing.B) {
	benchBig(b, "zset", func(i int) []string { return []string{"ZRANGE", "bigz", strconv.Itoa(i), strconv.Itoa(i + 9)} })
}

func BenchmarkBig_ZRANGEBYSCORE_10(b *testing.B) {
	benchBig(b, "zset", func(i int) []string {
		return []string{"ZRANGEBYSCORE", "bigz", strconv.Itoa(i * 3), strconv.Itoa(i*3 + 29)}
	})
}

func BenchmarkBig_HSET(b *testing.B) {
	benchBig(b, "hash", func(i int) []string {
		return []string{"HSET", "bigh", "member:" + strconv.Itoa(i), "v" + strconv.Itoa(i)}
	})
}

func BenchmarkBig_HGET(b *testing.B) {
	benchBig(b, "hash", func(i int) []string { return []string{"HGET", "bigh", "member:" + strconv.Itoa(i)} })
}

// BenchmarkZAdd_1000Keys is redis-benchmark's `ZADD z:__rand_int__
// __rand_int__ m:__rand_int__ -r 1000` on the owner: small packed sorted
// sets of a few hundred members at most.
func BenchmarkZAdd_1000Keys(b *testing.B) {
	k := New(Config{})
	rng := rand.New(rand.NewPCG(1, 2))
	var w resp.Writer
	c := &Ctx{W: &w}
	args := make([][]byte, 4)
	args[0] = []byte("ZADD")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		args[1] = []byte(fmt.Sprintf("z:%012d", rng.IntN(1000)))
		args[2] = []byte(strconv.Itoa(rng.IntN(1000)))
		args[3] = []byte(fmt.Sprintf("m:%012d", rng.IntN(1000)))
		if err := CmdZAdd(k, c, args); err != nil {
			b.Fatal(err)
		}
		w.B = w.B[:0]
	}
}

// benchSmallZSets loads 1000 packed sorted sets of about 55 members (of
// 100 possible, scores under 1000), about the size bench/run.sh types' ZADD
// leaves them, and measures cmd on random keys: the cost of a command on a
// small set's pack (ZADD keeps them under 128 members, packed).
func benchSmallZSets(b *testing.B, cmd func(rng *rand.Rand) [][]byte) {
	k := New(Config{})
	rng := rand.New(rand.NewPCG(1, 2))
	var w resp.Writer
	c := &Ctx{W: &w}
	zadd := func(rng *rand.Rand) [][]byte {
		return [][]byte{[]byte("ZADD"), []byte("z:" + strconv.Itoa(rng.IntN(1000))), []byte(strconv.Itoa(rng.IntN(1000))), []byte("m:" + strconv.Itoa(rng.IntN(100)))}
	}
	for range 80_000 {
		if err := CmdZAdd(k, c, zadd(rng)); err != nil {
			b.Fatal(err)
		}
		w.B = w.B[:0]
	}
	if cmd == nil {
		cmd = zadd
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		args := cmd(rng)
		if err := ksCommands[strings.ToLower(string(args[0]))](k, c, args); err != nil {
			b.Fatal(err)
		}
		w.B = w.B[:0]
	}
}

func BenchmarkSmallZSets_ZADD(b *testing.B) { benchSmallZSets(b, nil) }

func BenchmarkSmallZSets_ZRANGEBYSCORE_LIMIT5(b *testing.B) {
	benchSmallZSets(b, func(rng *rand.Rand) [][]byte {
		return [][]byte{[]byte("ZRANGEBYSCORE"), []byte("z:" + strconv.Itoa(rng.IntN(1000))), []byte("-inf"), []byte("+inf"), []byte("LIMIT"), []byte("0"), []byte("5")}
	})
}

func BenchmarkSmallZSets_ZSCORE(b *testing.B) {
	benchSmallZSets(b, func(rng *rand.Rand) [][]byte {
		return [][]byte{[]byte("ZSCORE"), []byte("z:" + strconv.Itoa(rng.IntN(1000))), []byte("m:" + strconv.Itoa(rng.IntN(100)))}
	})
}

// benchOwner runs one command, as args builds it for iteration i, b.N
// times on the owner: the keyspace's cost of it, without the network.
func benchOwner(b *testing.B, args func(i int) [][]byte) {
	k := New(Config{})
	var w resp.Writer
	c := &Ctx{W: &w}
	b.ReportAllocs()
	b.ResetTimer()
	// The command is looked up when its name changes, not per call: a
	// lower-cased copy per op would be the benchmark's own allocation.
	var (
		name string
		run  func(*Keyspace, *Ctx, [][]byte) error
	)
	for i := 0; i < b.N; i++ {
		a := args(i)
		if string(a[0]) != name {
			name = string(a[0])
			run = ksCommands[strings.ToLower(name)]
		}
		if err := run(k, c, a); err != nil {
			b.Fatal(err)
		}
		w.B = w.B[:0]
	}
}

// LPUSH then RPOP on one list, as redis-benchmark -t lpush,rpop runs them.
func BenchmarkList_LPUSH(b *testing.B) {
	args := [][]byte{[]byte("LPUSH"), []byte("mylist"), []byte("xxx")}
	benchOwner(b, func(int) [][]byte { return args })
}

func BenchmarkList_LPUSH_RPOP(b *testing.B) {
	push := [][]byte{[]byte("LPUSH"), []byte("mylist"), []byte("xxx")}
	pop := [][]byte{[]byte("RPOP"), []byte("mylist")}
	benchOwner(b, func(i int) [][]byte {
		if i%2 == 0 {
			return push
		}
		return pop
	})
}

// BenchmarkZSet1000_ZRANGEBYSCORE_LIMIT5 is bench/run.sh types' ZRANGEBYSCORE
// row on the keyspace side: 1,000 sorted sets of about 1,000 members each
// (past the listpack threshold, so indexed), the first five of each.
func BenchmarkZSet1000_ZRANGEBYSCORE_LIMIT5(b *testing.B) {
	k := New(Config{})
	var w resp.Writer
	c := &Ctx{W: &w}
	for key := 0; key < 1000; key++ {
		args := memberArgs("ZADD", "z:"+strconv.Itoa(key), 1000, func(j int) []string {
			return []string{strconv.Itoa(j * 7919 % 100003), "m:" + strconv.Itoa(j)}
		})
		if err := ksCommands["zadd"](k, c, args); err != nil {
			b.Fatal(err)
		}
		w.B = w.B[:0]
	}
	prepared := make([]benchPrepared, 1000)
	for i := range prepared {
		prepared[i] = benchPrepared{benchRuns["zrangebyscore"], benchArgv("ZRANGEBYSCORE", "z:"+strconv.Itoa(i), "-inf", "+inf", "LIMIT", "0", "5")}
	}
	runPrepared(b, k, c, prepared)
}
