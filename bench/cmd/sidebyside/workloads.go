package main

import (
	"bytes"
	"context"
	crand "crypto/rand"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/minilock/minilock/bench/luashapes"
)

// releaseScript is the compare-and-delete of the single-instance Redis lock
// recipe: delete the key only if it still holds our token.
const releaseScript = `if redis.call("get",KEYS[1]) == ARGV[1] then return redis.call("del",KEYS[1]) else return 0 end`

// generalReleaseScript releases a lock in the shape of redis-py's Lock
// (a GET into a local, a test, a DEL, a number returned): the same job as
// releaseScript written another way, which minilock's native fast path for
// the recipe's exact text does not take. It measures what an arbitrary
// small script costs.
const generalReleaseScript = `local token = redis.call('get', KEYS[1])
if not token or token ~= ARGV[1] then
    return 0
end
redis.call('del', KEYS[1])
return 1`

// workload is one line of measurement.
type workload struct {
	// rows are the labels of the rows it produces, in redis-benchmark's
	// output order (-t set,get produces two).
	rows []string
	// rb are redis-benchmark's arguments after the common ones; nil for
	// the go-redis lock cycle.
	rb       []string
	pipeline int
	script   bool // needs EVALSHA (the release script loaded as sha)
	cycle    bool // the go-redis lock cycle
	// load is a script the run loads first (SCRIPT LOAD), its SHA put
	// where rb says $LOADED.
	load string
	// fload is a library the run loads first (FUNCTION LOAD REPLACE).
	fload string
	// keep skips the FLUSHALL before the run: it reads what the previous
	// workload wrote.
	keep bool
	// setup is a script EVAL runs before the run (after the FLUSHALL).
	setup string
	// consume is the go-redis stream consumer cycle (streamConsumerCycles).
	consume bool
}

// workloads returns the side-by-side list; sha is filled in per server.
func workloads(release string) []workload {
	var ws []workload
	for _, p := range []int{1, 16} {
		ps := fmt.Sprintf(" -P %d", p)
		ws = append(ws,
			workload{rows: []string{"SET" + ps, "GET" + ps}, pipeline: p,
				rb: []string{"-t", "set,get", "-r", "100000"}},
			workload{rows: []string{"lock acquire: SET NX PX" + ps}, pipeline: p,
				rb: []string{"-r", "1000000", "SET", "lock:__rand_int__", "tok", "NX", "PX", "30000"}},
			workload{rows: []string{"lock release: EVALSHA" + ps}, pipeline: p, script: true,
				rb: []string{"-r", "1000000", "EVALSHA", "$SHA", "1", "lock:__rand_int__", "tok"}},
			workload{rows: []string{"lock release: general script (redis-py's shape), EVALSHA" + ps}, pipeline: p, script: true,
				load: generalReleaseScript,
				rb:   []string{"-r", "1000000", "EVALSHA", "$LOADED", "1", "lock:__rand_int__", "tok"}},
		)
	}
	label := "lock cycle: go-redis SET NX PX + EVALSHA"
	if release == "del" {
		label = "lock cycle: go-redis SET NX PX + DEL (EVALSHA unavailable)"
	}
	ws = append(ws, workload{rows: []string{label}, pipeline: 1, cycle: true, script: release == "evalsha"})
	return ws
}

// semaphoreScript is a counting-semaphore acquire in the shape lock
// libraries use (redis-semaphore's, Redisson's expirable permits): drop
// expired holders, then join if there is room.
const semaphoreScript = `redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[4])
  return 1
end
return 0`

// streamGroupSetup fills the 100 streams redis-benchmark's -r 100 names
// with 20 entries each, and gives each a group whose consumer c holds 10
// of them pending.
const streamGroupSetup = `for k = 0, 99 do
  local key = string.format('stream:%012d', k)
  for i = 1, 20 do redis.call('XADD', key, '*', 'a', '1', 'b', '22', 'c', '333') end
  redis.call('XGROUP', 'CREATE', key, 'g', '0')
  redis.call('XREADGROUP', 'GROUP', 'g', 'c', 'COUNT', 10, 'STREAMS', key, '>')
end
return 0`

// typeWorkloads are the data-type commands coordination recipes use.
func typeWorkloads() []workload {
	var ws []workload
	for _, p := range []int{1, 16} {
		ps := fmt.Sprintf(" -P %d", p)
		ws = append(ws,
			workload{rows: []string{"semaphore acquire: EVALSHA (ZREMRANGEBYSCORE, ZCARD, ZADD)" + ps}, pipeline: p, script: true,
				load: semaphoreScript,
				rb:   []string{"-r", "1000", "EVALSHA", "$LOADED", "1", "sem:__rand_int__", "0", "5", "__rand_int__", "holder:__rand_int__"}},
			workload{rows: []string{"HINCRBY" + ps}, pipeline: p,
				rb: []string{"-r", "10000", "HINCRBY", "h:__rand_int__", "f:__rand_int__", "1"}},
			workload{rows: []string{"ZADD" + ps}, pipeline: p,
				rb: []string{"-r", "1000", "ZADD", "z:__rand_int__", "__rand_int__", "m:__rand_int__"}},
			workload{rows: []string{"ZRANGEBYSCORE LIMIT 0 5 (after ZADD)" + ps}, pipeline: p, keep: true,
				rb: []string{"-r", "1000", "ZRANGEBYSCORE", "z:__rand_int__", "-inf", "+inf", "LIMIT", "0", "5"}},
			workload{rows: []string{"LPUSH" + ps, "RPOP" + ps}, pipeline: p,
				rb: []string{"-t", "lpush,rpop"}},
			workload{rows: []string{"SADD" + ps}, pipeline: p,
				rb: []string{"-r", "100000", "-t", "sadd"}},
			workload{rows: []string{"XADD * (3 fields)" + ps}, pipeline: p,
				rb: []string{"-r", "100", "XADD", "stream:__rand_int__", "*", "a", "1", "b", "22", "c", "333"}},
			workload{rows: []string{"XRANGE - + COUNT 10 (after XADD)" + ps}, pipeline: p, keep: true,
				rb: []string{"-r", "100", "XRANGE", "stream:__rand_int__", "-", "+", "COUNT", "10"}},
			workload{rows: []string{"XREADGROUP COUNT 10, a consumer's 10 pending entries" + ps}, pipeline: p,
				setup: streamGroupSetup,
				rb:    []string{"-r", "100", "XREADGROUP", "GROUP", "g", "c", "COUNT", "10", "STREAMS", "stream:__rand_int__", "0"}},
		)
	}
	ws = append(ws, workload{rows: []string{"stream consumer cycle: go-redis XREADGROUP COUNT 10 > + XACK of the 10"}, pipeline: 1, consume: true})
	return ws
}

// fillQueue adds n entries to the stream queue, 10,000 per EVAL, and
// creates its group.
const fillQueue = `for i = 1, tonumber(ARGV[1]) do redis.call('XADD', KEYS[1], '*', 'job', 'paint', 'n', i) end return 0`

// streamConsumerCycles runs conc go-redis consumers of one group on one
// stream, filled first with 10 entries per cycle: each cycle reads 10 new
// entries with XREADGROUP and acknowledges them with one XACK. A result
// is a cycle.
func streamConsumerCycles(addr string, conc, total int) (result, error) {
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: addr, PoolSize: conc, MinIdleConns: conc,
		ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second})
	defer rdb.Close()
	per := total / conc
	for left := per * conc * 10; left > 0; left -= 10000 {
		if err := rdb.Eval(ctx, fillQueue, []string{"queue"}, min(left, 10000)).Err(); err != nil {
			return result{}, fmt.Errorf("fill: %w", err)
		}
	}
	if err := rdb.XGroupCreate(ctx, "queue", "workers", "0").Err(); err != nil {
		return result{}, fmt.Errorf("XGROUP CREATE: %w", err)
	}
	var wg sync.WaitGroup
	for range conc {
		wg.Go(func() { rdb.Ping(ctx) })
	}
	wg.Wait()
	lat := make([][]time.Duration, conc)
	errs := make([]error, conc)
	begin := time.Now()
	for g := range conc {
		wg.Go(func() {
			name := "c" + strconv.Itoa(g)
			l := make([]time.Duration, 0, per)
			for range per {
				t0 := time.Now()
				res, err := rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "workers", Consumer: name, Streams: []string{"queue", ">"}, Count: 10, Block: -1}).Result()
				if err != nil {
					errs[g] = fmt.Errorf("XREADGROUP: %w", err)
					return
				}
				var ids []string
				for _, st := range res {
					for _, m := range st.Messages {
						ids = append(ids, m.ID)
					}
				}
				if len(ids) != 10 {
					errs[g] = fmt.Errorf("XREADGROUP gave %d entries, want 10", len(ids))
					return
				}
				if err := rdb.XAck(ctx, "queue", "workers", ids...).Err(); err != nil {
					errs[g] = fmt.Errorf("XACK: %w", err)
					return
				}
				l = append(l, time.Since(t0))
			}
			lat[g] = l
		})
	}
	wg.Wait()
	elapsed := time.Since(begin)
	if err := errors.Join(errs...); err != nil {
		return result{}, err
	}
	return latencyResult(lat, elapsed), nil
}

// luaWorkloads is the Lua benchmark set: every shape as EVALSHA and as
// FCALL of the same body, at -P 1 and -P 16.
func luaWorkloads() []workload {
	var ws []workload
	for _, p := range []int{1, 16} {
		ps := fmt.Sprintf(" -P %d", p)
		for _, s := range luashapes.Shapes {
			rest := append([]string{strconv.Itoa(len(s.Keys))}, append(slices.Clone(s.Keys), s.Args...)...)
			ws = append(ws,
				workload{rows: []string{"lua " + s.Name + ": EVALSHA" + ps}, pipeline: p, script: true,
					load: s.Body, rb: append([]string{"EVALSHA", "$LOADED"}, rest...)},
				workload{rows: []string{"lua " + s.Name + ": FCALL" + ps}, pipeline: p, script: true,
					fload: s.Library(), rb: append([]string{"FCALL", s.FuncName()}, rest...)})
		}
	}
	return ws
}

// checkShapes runs every shape once as EVAL and as FCALL on addr and
// compares the reply with redis-server's (Shape.Want): a server that
// answers otherwise is not measured.
func checkShapes(addr string) error {
	for _, s := range luashapes.Shapes {
		if _, err := control(addr, "FLUSHALL"); err != nil {
			return err
		}
		rest := append([]string{strconv.Itoa(len(s.Keys))}, append(slices.Clone(s.Keys), s.Args...)...)
		if _, err := control(addr, "FUNCTION", "LOAD", "REPLACE", s.Library()); err != nil {
			return fmt.Errorf("shape %s: FUNCTION LOAD: %w", s.Name, err)
		}
		for _, cmd := range [][]string{append([]string{"EVAL", s.Body}, rest...), append([]string{"FCALL", s.FuncName()}, rest...)} {
			got, err := control(addr, cmd...)
			if err != nil {
				return fmt.Errorf("shape %s: %s: %w", s.Name, cmd[0], err)
			}
			if got != s.Want {
				return fmt.Errorf("shape %s: %s answered %q, want %q", s.Name, cmd[0], got, s.Want)
			}
		}
	}
	return nil
}

// result is one measurement of one row.
type result struct {
	ops      float64 // operations per second
	p50, p99 float64 // ms
	p999     float64 // ms, go-redis runs only
}

// requests scales -n for w: four times as many at -P 16, so that a run
// lasts about as long as at -P 1; a quarter for the script at any -P, as
// miniredis runs it a few thousand times per second.
func (w workload) requests(n int) int {
	switch {
	case w.script:
		n /= 4
	case w.pipeline > 1:
		n *= 4
	}
	return max(n, w.pipeline)
}

// redisBenchmark runs redis-benchmark once (w.requests(n) requests) and
// returns one result per row.
func redisBenchmark(bin, addr string, clients, n int, w workload, sha string) ([]result, error) {
	n = w.requests(n)
	host, port, _ := strings.Cut(addr, ":")
	args := []string{"-h", host, "-p", port, "-c", strconv.Itoa(clients), "-n", strconv.Itoa(n),
		"-P", strconv.Itoa(w.pipeline), "--csv"}
	if w.setup != "" {
		if _, err := control(addr, "EVAL", w.setup, "0"); err != nil {
			return nil, fmt.Errorf("setup: %w", err)
		}
	}
	loaded := ""
	if w.fload != "" {
		if _, err := control(addr, "FUNCTION", "LOAD", "REPLACE", w.fload); err != nil {
			return nil, fmt.Errorf("FUNCTION LOAD: %w", err)
		}
	}
	if w.load != "" {
		var err error
		if loaded, err = control(addr, "SCRIPT", "LOAD", w.load); err != nil {
			return nil, fmt.Errorf("SCRIPT LOAD: %w", err)
		}
	}
	for _, a := range w.rb {
		switch a {
		case "$SHA":
			a = sha
		case "$LOADED":
			a = loaded
		}
		args = append(args, a)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var out, errOut bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdout = &out
	cmd.Stderr = &errOut
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("redis-benchmark %s: %v: %s %s", strings.Join(args, " "), err, errOut.String(), out.String())
	}
	// redis-benchmark exits 0 after printing "Error from server: ..." on
	// an error reply; its CSV is then missing.
	if strings.Contains(out.String()+errOut.String(), "Error from server") {
		return nil, fmt.Errorf("redis-benchmark: %s", strings.TrimSpace(out.String()+errOut.String()))
	}
	// The test's name is the command, unescaped: a JSON argument's
	// quotes break the first field, so the figures are read from the end.
	cr := csv.NewReader(&out)
	cr.LazyQuotes, cr.FieldsPerRecord = true, -1
	recs, err := cr.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("redis-benchmark csv: %v: %q", err, out.String())
	}
	var res []result
	for _, r := range recs {
		if len(r) < 8 || r[0] == "test" {
			continue
		}
		n := len(r)
		ops, err1 := strconv.ParseFloat(r[n-7], 64)
		p50, err2 := strconv.ParseFloat(r[n-4], 64)
		p99, err3 := strconv.ParseFloat(r[n-2], 64)
		if err := errors.Join(err1, err2, err3); err != nil {
			return nil, fmt.Errorf("redis-benchmark csv row %q: %v", r, err)
		}
		res = append(res, result{ops: ops, p50: p50, p99: p99})
	}
	if len(res) != len(w.rows) {
		return nil, fmt.Errorf("redis-benchmark: %d rows, want %d: %q", len(res), len(w.rows), out.String())
	}
	return res, nil
}

// scriptSHA loads the release script and checks that EVALSHA runs it:
// the SHA, or an error saying why scripts cannot be measured on addr.
func scriptSHA(addr string) (string, error) {
	sha, err := control(addr, "SCRIPT", "LOAD", releaseScript)
	if err != nil {
		return "", fmt.Errorf("SCRIPT LOAD: %w", err)
	}
	got, err := control(addr, "EVALSHA", sha, "1", "lock:probe", "tok")
	if err != nil {
		return "", fmt.Errorf("EVALSHA: %w", err)
	}
	if got != "0" {
		return "", fmt.Errorf("EVALSHA on a missing key answered %q, want 0", got)
	}
	return sha, nil
}

// lockCycles runs total lock cycles (acquire with SET NX PX, release with
// EVALSHA of the compare-and-delete script, or DEL when sha is empty) from
// conc goroutines through go-redis, and returns throughput in cycles/s and
// the latency of one whole cycle. With until set it runs until then instead
// of to a count.
func lockCycles(addr string, conc, total int, until time.Time, sha string) (result, error) {
	rdb := redis.NewClient(&redis.Options{Addr: addr, PoolSize: conc, MinIdleConns: conc,
		ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second})
	defer rdb.Close()
	ctx := context.Background()
	// Fill the pool first: connecting is not what is measured.
	var wg sync.WaitGroup
	for range conc {
		wg.Go(func() { rdb.Ping(ctx) })
	}
	wg.Wait()

	lat := make([][]time.Duration, conc)
	errs := make([]error, conc)
	per := total / conc
	begin := time.Now()
	for g := range conc {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), uint64(begin.UnixNano())))
			token := "tok-" + strconv.Itoa(g)
			l := make([]time.Duration, 0, per+1)
			for i := 0; until.IsZero() && i < per || !until.IsZero() && time.Now().Before(until); i++ {
				key := "lock:" + strconv.Itoa(r.IntN(1000000))
				t0 := time.Now()
				if err := rdb.Do(ctx, "SET", key, token, "NX", "PX", 30000).Err(); err != nil && err != redis.Nil {
					errs[g] = fmt.Errorf("SET NX PX: %w", err)
					return
				}
				var err error
				if sha != "" {
					err = rdb.EvalSha(ctx, sha, []string{key}, token).Err()
				} else {
					err = rdb.Del(ctx, key).Err()
				}
				if err != nil {
					errs[g] = fmt.Errorf("release: %w", err)
					return
				}
				l = append(l, time.Since(t0))
			}
			lat[g] = l
		})
	}
	wg.Wait()
	elapsed := time.Since(begin)
	if err := errors.Join(errs...); err != nil {
		return result{}, err
	}
	return latencyResult(lat, elapsed), nil
}

const hexDigits = "0123456789abcdef"

// loadKeys writes n lock keys (SET lock:i <32-byte token> PX 600000) over
// one pipelined connection, as redis-cli --pipe would, and returns how long
// it took until the last reply arrived.
func loadKeys(addr string, n int) (time.Duration, error) {
	c, err := dial(addr)
	if err != nil {
		return 0, err
	}
	defer c.close()
	tok := make([]byte, 16)
	crand.Read(tok)
	token := []byte(hex.EncodeToString(tok)) // 32 bytes
	begin := time.Now()
	werr := make(chan error, 1)
	go func() {
		var b []byte
		for i := range n {
			// Vary the token per key so no server can share values.
			for j := range 8 {
				token[j] = hexDigits[(i>>(4*j))&15]
			}
			b = appendCommand(b[:0], "SET", "lock:"+strconv.Itoa(i), string(token), "PX", "600000")
			if _, err := c.w.Write(b); err != nil {
				werr <- err
				return
			}
		}
		werr <- c.w.Flush()
	}()
	for i := range n {
		if err := skipLine(c.r); err != nil {
			return 0, fmt.Errorf("reply %d: %w", i, err)
		}
	}
	if err := <-werr; err != nil {
		return 0, err
	}
	return time.Since(begin), nil
}

// latencyResult sums up the per-goroutine latencies of a run that took
// elapsed: one operation per latency, and its percentiles in ms.
func latencyResult(lat [][]time.Duration, elapsed time.Duration) result {
	all := slices.Concat(lat...)
	slices.Sort(all)
	ms := func(q float64) float64 {
		if len(all) == 0 {
			return 0
		}
		return float64(all[min(int(q*float64(len(all))), len(all)-1)]) / 1e6
	}
	return result{ops: float64(len(all)) / elapsed.Seconds(), p50: ms(0.50), p99: ms(0.99), p999: ms(0.999)}
}
