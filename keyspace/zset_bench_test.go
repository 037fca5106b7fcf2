package keyspace

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/minilock/minilock/resp"
)

// Benchmarks of the sorted-set, set and list commands bench/run.sh types
// runs, on the owner, without the network:
//
//	go test -run '^$' -bench 'Semaphore|ZSet1000|Set_SADD|List_' -benchmem ./keyspace

// benchRun runs one command on the owner as the server would and returns
// its reply, which stays valid until the next command.
func benchRun(b *testing.B, k *Keyspace, c *Ctx, args [][]byte) []byte {
	c.W.B = c.W.B[:0]
	benchExec(k, c, benchRuns[string(args[0])], args)
	return c.W.B
}

// benchReplyInt reads an integer reply.
func benchReplyInt(b *testing.B, reply []byte) int {
	if len(reply) < 4 || reply[0] != ':' {
		b.Fatalf("reply %q: not an integer", reply)
	}
	n, err := strconv.Atoi(string(reply[1 : len(reply)-2]))
	if err != nil {
		b.Fatal(err)
	}
	return n
}

// BenchmarkSemaphore_small is bench/run.sh types' semaphore script on the
// keyspace side, its three commands as the script runs them: 1,000 keys,
// at most 5 holders each (packed sets), scores 0..999, so that the
// ZREMRANGEBYSCORE -inf 0 mostly removes nothing and the set stays full.
func BenchmarkSemaphore_small(b *testing.B) {
	k := New(Config{})
	var w resp.Writer
	c := &Ctx{W: &w}
	rng := rand.New(rand.NewPCG(1, 2))
	type semOp struct{ rem, card, add [][]byte }
	ops := make([]semOp, 1<<14)
	for i := range ops {
		key := "sem:" + strconv.Itoa(rng.IntN(1000))
		ops[i] = semOp{
			benchArgv("zremrangebyscore", key, "-inf", "0"),
			benchArgv("zcard", key),
			benchArgv("zadd", key, strconv.Itoa(rng.IntN(1000)), "holder:"+strconv.Itoa(rng.IntN(1000))),
		}
	}
	run := func(op semOp) {
		benchRun(b, k, c, op.rem)
		if benchReplyInt(b, benchRun(b, k, c, op.card)) < 5 {
			benchRun(b, k, c, op.add)
		}
	}
	for i := range ops {
		run(ops[i])
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		run(ops[i%len(ops)])
	}
}

// BenchmarkSemaphore_window is the same script on one large set, a sliding
// window of 1,000 holders: each acquire expires the oldest holder and
// joins with a fresh score (an indexed set, past the listpack threshold).
func BenchmarkSemaphore_window(b *testing.B) { benchSemaphoreWindow(b, 1000) }

// BenchmarkSemaphore_window100 is a window of 100 holders: a packed set.
func BenchmarkSemaphore_window100(b *testing.B) { benchSemaphoreWindow(b, 100) }

func benchSemaphoreWindow(b *testing.B, window int) {
	k := New(Config{})
	var w resp.Writer
	c := &Ctx{W: &w}
	rem := benchArgv("zremrangebyscore", "sem", "-inf", "")
	card := benchArgv("zcard", "sem")
	add := benchArgv("zadd", "sem", "", "")
	var now, score, member [24]byte
	acquire := func(i int) {
		rem[3] = strconv.AppendInt(now[:0], int64(i), 10)
		benchRun(b, k, c, rem)
		if benchReplyInt(b, benchRun(b, k, c, card)) < 2*window {
			add[2] = strconv.AppendInt(score[:0], int64(i+window), 10)
			add[3] = strconv.AppendInt(append(member[:0], "holder:"...), int64(i+window), 10)
			benchRun(b, k, c, add)
		}
	}
	for i := 0; i < window; i++ {
		add[2] = strconv.AppendInt(score[:0], int64(i), 10)
		add[3] = strconv.AppendInt(append(member[:0], "holder:"...), int64(i), 10)
		benchRun(b, k, c, add)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		acquire(i)
	}
	b.StopTimer()
	if n := benchReplyInt(b, benchRun(b, k, c, card)); n != window {
		b.Fatalf("ZCARD %d, want %d", n, window)
	}
}

// benchZSet1000 loads bench/run.sh types' sorted sets as its ZADD leaves
// them (1,000 keys of about 1,000 members, indexed) and measures
// cmd(key) on them in turn.
func benchZSet1000(b *testing.B, cmd func(key string) []string) {
	k := New(Config{})
	var w resp.Writer
	c := &Ctx{W: &w}
	for key := 0; key < 1000; key++ {
		args := memberArgs("ZADD", "z:"+strconv.Itoa(key), 1000, func(j int) []string {
			return []string{strconv.Itoa(j * 7919 % 1000), "m:" + strconv.Itoa(j)}
		})
		if err := ksCommands["zadd"](k, c, args); err != nil {
			b.Fatal(err)
		}
		w.B = w.B[:0]
	}
	prepared := make([]benchPrepared, 1<<14)
	for i := range prepared {
		words := cmd("z:" + strconv.Itoa(i%1000))
		prepared[i] = benchPrepared{benchRuns[words[0]], benchArgv(words...)}
	}
	b.ReportAllocs()
	runPrepared(b, k, c, prepared)
}

func BenchmarkZSet1000_ZREVRANGEBYSCORE_LIMIT5(b *testing.B) {
	benchZSet1000(b, func(key string) []string {
		return []string{"zrevrangebyscore", key, "+inf", "-inf", "LIMIT", "0", "5"}
	})
}

func BenchmarkZSet1000_ZRANGEBYSCORE_WITHSCORES_LIMIT5(b *testing.B) {
	benchZSet1000(b, func(key string) []string {
		return []string{"zrangebyscore", key, "(100", "+inf", "WITHSCORES", "LIMIT", "0", "5"}
	})
}

func BenchmarkZSet1000_ZRANGEBYSCORE_LIMIT500_5(b *testing.B) {
	benchZSet1000(b, func(key string) []string {
		return []string{"zrangebyscore", key, "-inf", "+inf", "LIMIT", "500", "5"}
	})
}

func BenchmarkZSet1000_ZRANGEBYSCORE_10(b *testing.B) {
	benchZSet1000(b, func(key string) []string { return []string{"zrangebyscore", key, "500", "500"} })
}

func BenchmarkZSet1000_ZCOUNT(b *testing.B) {
	benchZSet1000(b, func(key string) []string { return []string{"zcount", key, "100", "(900"} })
}

// BenchmarkSet_SADD is redis-benchmark -t sadd -r 100000: one set, members
// element:<12 digits> of 100,000.
func BenchmarkSet_SADD(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	prepared := make([][][]byte, 1<<16)
	for i := range prepared {
		prepared[i] = benchArgv("sadd", "myset", "element:"+padRand(rng.IntN(100000)))
	}
	benchOwner(b, func(i int) [][]byte { return prepared[i%len(prepared)] })
}

// BenchmarkHash_HINCRBY is bench/run.sh types' HINCRBY -r 10000 on hashes
// it has half filled: 10,000 of them, 40 fields each of 10,000 (packed).
func BenchmarkHash_HINCRBY(b *testing.B) {
	k := New(Config{})
	var w resp.Writer
	c := &Ctx{W: &w}
	rng := rand.New(rand.NewPCG(1, 2))
	for key := 0; key < 10000; key++ {
		args := memberArgs("HSET", "h:"+padRand(key), 40, func(int) []string { return []string{"f:" + padRand(rng.IntN(10000)), "1"} })
		if err := ksCommands["hset"](k, c, args); err != nil {
			b.Fatal(err)
		}
		w.B = w.B[:0]
	}
	prepared := make([]benchPrepared, 1<<16)
	for i := range prepared {
		prepared[i] = benchPrepared{benchRuns["hincrby"], benchArgv("hincrby", "h:"+padRand(rng.IntN(10000)), "f:"+padRand(rng.IntN(10000)), "1")}
	}
	b.ReportAllocs()
	runPrepared(b, k, c, prepared)
}

// padRand is redis-benchmark's __rand_int__: 12 digits.
func padRand(n int) string {
	s := strconv.Itoa(n)
	for len(s) < 12 {
		s = "0" + s
	}
	return s
}

// BenchmarkZSet1000_ZADD is bench/run.sh types' ZADD (-r 1000) on sets
// it has filled: a new score for a member, or a new member, on an index.
func BenchmarkZSet1000_ZADD(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	benchZSet1000(b, func(key string) []string {
		return []string{"zadd", key, strconv.Itoa(rng.IntN(1000)), "m:" + strconv.Itoa(rng.IntN(1100))}
	})
}
