package locks_test

import (
	"flag"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/minilock/minilock/expiry"
	"github.com/minilock/minilock/internal/lockscripts"
	"github.com/minilock/minilock/internal/redistest"
	"github.com/minilock/minilock/server"
)

// Lock safety, checked rather than assumed: many clients run the lock
// recipe (SET NX PX, compare-and-delete, compare-and-PEXPIRE, GET, INCR as
// a fencing counter) against minilock at once, some of them dropping their
// connection in the middle of a command, and porcupine checks that the
// recorded history is linearizable against a model of a lock.
//
//	go test -run TestLockLinearizable -v ./e2e/locks                       # 16 clients x 2000 ops x 5 seeds
//	go test -run TestLockLinearizable -v ./e2e/locks -lin.seed 42          # one seed
//	go test -run TestLockLinearizable -v ./e2e/locks -lin.ops 20000        # longer histories

var (
	linSeed    = flag.Uint64("lin.seed", 0, "seed of TestLockLinearizable; 0 runs the five fixed seeds")
	linClients = flag.Int("lin.clients", 16, "clients in TestLockLinearizable")
	linOps     = flag.Int("lin.ops", 2000, "operations per client in TestLockLinearizable (300 with -short)")
)

const (
	linKeys = 8
	// linTTL is the lock TTL. The server's clock is manual: it moves only
	// when a client expires every lock at once (linExpire), so no lock ever
	// expires at a moment the model does not know about.
	linTTL = 30 * time.Second
	// linExpireEvery is how many operations pass between two clock jumps.
	linExpireEvery = 1500
	// linDropRate is the chance that a dropping client abandons an
	// operation: it sends the command and closes its connection without
	// reading the reply, so the command may or may not have run.
	linDropRate = 0.02
)

// The lock recipe's scripts, as redsync and the Redis documentation give them.
const (
	linReleaseScript = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end`
	linExtendScript  = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("pexpire", KEYS[1], ARGV[2]) else return 0 end`
)

type linOpKind uint8

const (
	linAcquire linOpKind = iota // SET lock:k tok NX PX ttl
	linRelease                  // compare-and-delete script
	linExtend                   // compare-and-PEXPIRE script
	linRead                     // GET lock:k
	linFence                    // INCR fence:k
	linExpire                   // the clock jumps past every deadline
)

var linOpNames = [...]string{"acquire", "release", "extend", "read", "fence", "expire"}

type linInput struct {
	op    linOpKind
	key   int
	token string
}

type linOutput struct {
	unknown bool   // the connection was dropped: the command may or may not have run
	ok      bool   // acquire: +OK; release, extend: :1
	value   string // read: the holder ("" for nil)
	n       int64  // fence: the new counter
}

// linState is one lock: who holds it, and its fencing counter.
type linState struct {
	holder string
	fence  int64
}

// linModel is the sequential specification of one lock. It is
// nondeterministic only for operations whose outcome is unknown: they may
// have happened or not.
var linModel = porcupine.NondeterministicModel{
	Partition: func(history []porcupine.Operation) [][]porcupine.Operation {
		parts := make([][]porcupine.Operation, linKeys)
		for _, op := range history {
			k := op.Input.(linInput).key
			parts[k] = append(parts[k], op)
		}
		return parts
	},
	Init: func() []any { return []any{linState{}} },
	Step: func(state, input, output any) []any {
		st, in, out := state.(linState), input.(linInput), output.(linOutput)
		free := linState{fence: st.fence}
		switch in.op {
		case linAcquire:
			taken := linState{holder: in.token, fence: st.fence}
			switch {
			case out.unknown && st.holder == "":
				return []any{st, taken}
			case out.unknown:
				return []any{st}
			case out.ok && st.holder == "":
				return []any{taken}
			case !out.ok && st.holder != "":
				return []any{st}
			}
		case linRelease:
			switch {
			case out.unknown && st.holder == in.token:
				return []any{st, free}
			case out.unknown:
				return []any{st}
			case out.ok && st.holder == in.token:
				return []any{free}
			case !out.ok && st.holder != in.token:
				return []any{st}
			}
		case linExtend:
			if out.unknown || out.ok == (st.holder == in.token) {
				return []any{st}
			}
		case linRead:
			if out.unknown || out.value == st.holder {
				return []any{st}
			}
		case linFence:
			next := linState{holder: st.holder, fence: st.fence + 1}
			switch {
			case out.unknown:
				return []any{st, next}
			case out.n == st.fence+1:
				return []any{next}
			}
		case linExpire:
			return []any{free}
		}
		return nil
	},
	Hash: func(state any) uint64 {
		st := state.(linState)
		h := fnv.New64a()
		h.Write([]byte(st.holder))
		return h.Sum64() ^ uint64(st.fence)*0x9e3779b97f4a7c15
	},
	DescribeOperation: func(input, output any) string {
		in, out := input.(linInput), output.(linOutput)
		res := ""
		switch {
		case out.unknown:
			res = "?"
		case in.op == linRead:
			res = strconv.Quote(out.value)
		case in.op == linFence:
			res = strconv.FormatInt(out.n, 10)
		case in.op == linExpire:
		default:
			res = strconv.FormatBool(out.ok)
		}
		return fmt.Sprintf("%s(%d,%s) -> %s", linOpNames[in.op], in.key, in.token, res)
	},
	DescribeState: func(state any) string {
		st := state.(linState)
		return fmt.Sprintf("holder=%q fence=%d", st.holder, st.fence)
	},
}

// linVariant is how clients carry out the recipe: the real one, or a
// deliberately broken one that the checker must reject.
type linVariant int

const (
	linCorrect linVariant = iota
	// linCheckThenSet acquires with GET, then SET without NX if the GET
	// found nothing: two clients can both see the lock free.
	linCheckThenSet
	// linPlainDel releases with DEL, without checking the token: a client
	// whose lock expired deletes the next holder's.
	linPlainDel
)

// linRun records one history: clients clients run ops operations each over
// linKeys locks; the first `droppers` of them abandon some operations.
type linRun struct {
	seed     uint64
	clients  int
	ops      int
	droppers int
	variant  linVariant
}

type linStats struct {
	ops, unknown, acquired, expiries int
	elapsed                          time.Duration
}

func (r linRun) record(t *testing.T) ([]porcupine.Operation, linStats) {
	t.Helper()
	clock := expiry.NewManual(time.Unix(1_700_000_000, 0))
	s := server.RunT(t, server.Config{Clock: clock})
	releaseSHA, extendSHA := lockscripts.SHA1(linReleaseScript), lockscripts.SHA1(linExtendScript)
	loader := redistest.Dial(t, s.Addr())
	for _, src := range []string{linReleaseScript, linExtendScript} {
		if got := loader.MustDo("SCRIPT", "LOAD", src); !strings.Contains(got, lockscripts.SHA1(src)) {
			t.Fatalf("SCRIPT LOAD: %q", got)
		}
	}

	// Every deadline is at most linTTL after the clock (it only moves in
	// the jumps), so a jump expires every lock, actively, at once.
	h := newLinHistory(s, r.clients, linKeys, linTTL+time.Millisecond, linExpireEvery)
	var stats linStats
	h.runClients(t, r.clients, func(id int) error {
		rng := rand.New(rand.NewPCG(r.seed, uint64(id)))
		cl := &linClient{id: id, addr: s.Addr(), releaseSHA: releaseSHA, extendSHA: extendSHA, variant: r.variant}
		defer cl.close()
		held := map[int]string{} // lock -> token this client believes it holds
		var ops []porcupine.Operation
		unknown, acquired := 0, 0
		for j := range r.ops {
			k := rng.IntN(linKeys)
			in := linInput{key: k}
			tok, holding := held[k]
			p := rng.Float64()
			switch {
			case holding && p < 0.35:
				in.op, in.token = linRelease, tok
			case holding && p < 0.7:
				in.op, in.token = linExtend, tok
			case holding && p < 0.85:
				in.op = linFence
			case holding:
				in.op = linRead
			case p < 0.5:
				in.op, in.token = linAcquire, fmt.Sprintf("c%d-%d", id, j)
			case p < 0.65:
				in.op = linRead
			case p < 0.75:
				in.op = linFence
			case p < 0.9:
				// A stale token: a client whose lock expired releases it.
				in.op, in.token = linRelease, fmt.Sprintf("c%d-%d", id, rng.IntN(j+1))
			default:
				in.op, in.token = linExtend, fmt.Sprintf("c%d-%d", id, rng.IntN(j+1))
			}
			drop := id < r.droppers && rng.Float64() < linDropRate
			out, err := h.op(&ops, id, in, func() (linOutput, error) { return cl.do(in, drop) })
			if err != nil {
				return fmt.Errorf("op %d %s: %w", j, linOpNames[in.op], err)
			}
			switch {
			case out.unknown:
				unknown++
				delete(held, k)
			case in.op == linAcquire && out.ok:
				held[k] = in.token
				acquired++
			case in.op == linRelease && out.ok, in.op == linExtend && !out.ok:
				delete(held, k)
			}
			if h.tick() {
				clear(held)
			}
		}
		h.add(ops, func() {
			stats.ops += len(ops)
			stats.unknown += unknown
			stats.acquired += acquired
		})
		return nil
	})
	stats.expiries, stats.elapsed = h.expiries, time.Since(h.start)
	return h.ops, stats
}

// linHistory is a history being recorded by concurrent clients: their
// operations with call and return times, and the clock jumps that expire
// every lock at once, one after every expireEvery operations.
type linHistory struct {
	s           *server.Server
	expiryID    int // the ClientId jumps are recorded under
	keys        int
	jump        time.Duration // past every deadline
	expireEvery int64
	start       time.Time
	done        atomic.Int64
	expiryMu    sync.Mutex // one jump at a time

	mu       sync.Mutex // guards ops and expiries
	ops      []porcupine.Operation
	expiries int
}

func newLinHistory(s *server.Server, expiryID, keys int, jump time.Duration, expireEvery int64) *linHistory {
	return &linHistory{s: s, expiryID: expiryID, keys: keys, jump: jump, expireEvery: expireEvery, start: time.Now()}
}

func (h *linHistory) now() int64 { return int64(time.Since(h.start)) }

// op runs do, client id's operation in, and appends it to ops with its
// call and return times; an unknown outcome may take effect at any later
// time.
func (h *linHistory) op(ops *[]porcupine.Operation, id int, in linInput, do func() (linOutput, error)) (linOutput, error) {
	call := h.now()
	out, err := do()
	if err != nil {
		return out, err
	}
	ret := h.now()
	if out.unknown {
		ret = math.MaxInt64
	}
	*ops = append(*ops, porcupine.Operation{ClientId: id, Input: in, Call: call, Output: out, Return: ret})
	return out, nil
}

// tick counts an operation done; every expireEvery-th jumps the clock past
// every deadline and returns true (the caller's locks are all gone).
func (h *linHistory) tick() bool {
	if h.done.Add(1)%h.expireEvery != 0 {
		return false
	}
	h.expiryMu.Lock()
	defer h.expiryMu.Unlock()
	call := h.now()
	h.s.FastForward(h.jump)
	ret := h.now()
	h.mu.Lock()
	for k := range h.keys {
		h.ops = append(h.ops, porcupine.Operation{ClientId: h.expiryID, Input: linInput{op: linExpire, key: k},
			Call: call, Output: linOutput{}, Return: ret})
	}
	h.expiries++
	h.mu.Unlock()
	return true
}

// add appends a client's operations, and runs count (its statistics)
// under the same lock.
func (h *linHistory) add(ops []porcupine.Operation, count func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.ops = append(h.ops, ops...)
	count()
}

// runClients runs n clients at once and fails the test with their errors.
func (h *linHistory) runClients(t *testing.T, n int, client func(id int) error) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for id := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := client(id); err != nil {
				errs <- fmt.Errorf("client %d, %w", id, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// linClient is one client's connection, redialled after each drop.
type linClient struct {
	id                    int
	addr                  string
	releaseSHA, extendSHA string
	variant               linVariant
	c                     *redistest.Conn
}

func (cl *linClient) close() {
	if cl.c != nil {
		cl.c.Close()
	}
}

// do runs one operation. With drop, it sends the command and closes the
// connection at once: the outcome is unknown.
func (cl *linClient) do(in linInput, drop bool) (linOutput, error) {
	if cl.c == nil {
		c, err := redistest.DialAddr(cl.addr)
		if err != nil {
			return linOutput{}, err
		}
		cl.c = c
	}
	lock, fence := "lock:"+strconv.Itoa(in.key), "fence:"+strconv.Itoa(in.key)
	ttl := strconv.FormatInt(linTTL.Milliseconds(), 10)
	var args []string
	switch in.op {
	case linAcquire:
		args = []string{"SET", lock, in.token, "NX", "PX", ttl}
	case linRelease:
		args = []string{"EVALSHA", cl.releaseSHA, "1", lock, in.token}
	case linExtend:
		args = []string{"EVALSHA", cl.extendSHA, "1", lock, in.token, ttl}
	case linRead:
		args = []string{"GET", lock}
	case linFence:
		args = []string{"INCR", fence}
	}
	if drop {
		err := cl.c.Send(redistest.Encode(args...))
		cl.c.Close()
		cl.c = nil
		return linOutput{unknown: true}, err
	}
	switch {
	case cl.variant == linCheckThenSet && in.op == linAcquire:
		got, err := cl.c.Do("GET", lock)
		if err != nil || string(got) != "$-1\r\n" {
			return linOutput{}, err
		}
		args = []string{"SET", lock, in.token, "PX", ttl}
	case cl.variant == linPlainDel && in.op == linRelease:
		args = []string{"DEL", lock}
	}
	return linDo(cl.c, in, args)
}

// linDo sends in's command, args, and reads its reply as the recipe's.
func linDo(c *redistest.Conn, in linInput, args []string) (linOutput, error) {
	reply, err := c.Do(args...)
	if err != nil {
		return linOutput{}, err
	}
	r := string(reply)
	switch {
	case in.op == linAcquire && r == "+OK\r\n":
		return linOutput{ok: true}, nil
	case in.op == linAcquire && r == "$-1\r\n":
		return linOutput{}, nil
	case (in.op == linRelease || in.op == linExtend) && (r == ":1\r\n" || r == ":0\r\n"):
		return linOutput{ok: r == ":1\r\n"}, nil
	case in.op == linRead && r == "$-1\r\n":
		return linOutput{}, nil
	case in.op == linRead && strings.HasPrefix(r, "$"):
		_, v, _ := strings.Cut(strings.TrimSuffix(r, "\r\n"), "\r\n")
		return linOutput{value: v}, nil
	case in.op == linFence && strings.HasPrefix(r, ":"):
		n, err := strconv.ParseInt(strings.TrimSpace(r[1:]), 10, 64)
		return linOutput{n: n}, err
	}
	return linOutput{}, fmt.Errorf("unexpected reply %q to %q", r, args)
}

// linCheck runs porcupine on a history and returns its verdict. A verdict
// other than want leaves a visualization of the history in the system's
// temporary directory, for the one looking into the failure.
func linCheck(t *testing.T, name string, history []porcupine.Operation, want porcupine.CheckResult) (porcupine.CheckResult, time.Duration) {
	t.Helper()
	model := linModel.ToModel()
	start := time.Now()
	res, info := porcupine.CheckOperationsVerbose(model, history, 5*time.Minute)
	elapsed := time.Since(start)
	if res != want {
		path := filepath.Join(os.TempDir(), "minilock-"+name+".html")
		if err := porcupine.VisualizePath(model, info, path); err == nil {
			t.Logf("%s: porcupine says %s; visualization in %s", name, res, path)
		}
	}
	return res, elapsed
}

// TestLockLinearizable is the lock recipe under concurrency: 16 clients x
// 2000 operations over 8 locks, 5 fixed seeds, 4 clients dropping 2% of
// their connections mid-operation. porcupine must find every history
// linearizable.
func TestLockLinearizable(t *testing.T) {
	seeds := []uint64{1, 2, 3, 4, 5}
	if *linSeed != 0 {
		seeds = []uint64{*linSeed}
	}
	ops := *linOps
	if testing.Short() && ops == 2000 {
		ops = 300
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			run := linRun{seed: seed, clients: *linClients, ops: ops, droppers: *linClients / 4}
			history, st := run.record(t)
			res, checked := linCheck(t, fmt.Sprint("seed-", seed), history, porcupine.Ok)
			t.Logf("seed %d (rerun with -lin.seed %d): %d ops + %d expiry jumps (%d unknown outcomes, %d locks acquired) recorded in %v; porcupine: %s in %v",
				seed, seed, st.ops, st.expiries, st.unknown, st.acquired, st.elapsed.Round(time.Millisecond), res, checked.Round(time.Millisecond))
			if res != porcupine.Ok {
				t.Fatalf("history not linearizable (%s)", res)
			}
			if st.acquired == 0 || st.unknown == 0 && run.droppers > 0 && ops >= 1000 {
				t.Fatalf("the run did not exercise the recipe: %+v", st)
			}
		})
	}
}

// TestLockLinearizableCatchesBrokenRecipes proves the check can fail: the
// same workload with a racy acquire (GET, then SET without NX) and with a
// release that does not check the token must be rejected.
func TestLockLinearizableCatchesBrokenRecipes(t *testing.T) {
	tests := []struct {
		name    string
		variant linVariant
	}{
		{"acquire by GET then SET", linCheckThenSet},
		{"release by plain DEL", linPlainDel},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := linRun{seed: 7, clients: 8, ops: 300, variant: tt.variant}
			history, st := run.record(t)
			res, checked := linCheck(t, strings.ReplaceAll(tt.name, " ", "-"), history, porcupine.Illegal)
			t.Logf("%d ops: porcupine says %s in %v", st.ops, res, checked.Round(time.Millisecond))
			if res != porcupine.Illegal {
				t.Fatalf("porcupine says %s for a broken recipe, want Illegal", res)
			}
		})
	}
}

// TestVanishedHolderBlocksUntilTTL: a client that disappears while holding
// a lock blocks the others until exactly the TTL and no longer. On the
// manual clock, at TTL-1 ms and at the TTL itself (Redis expires a key once
// the clock is past its deadline) the lock is still held; 1 ms later it is
// free, and already deleted by active expiry without anyone touching it.
func TestVanishedHolderBlocksUntilTTL(t *testing.T) {
	tests := []struct {
		name    string
		acquire [][]string
		ttl     time.Duration
	}{
		{"SET NX PX", [][]string{{"SET", "lock", "gone", "NX", "PX", "30000"}}, 30 * time.Second},
		{"SET NX EX", [][]string{{"SET", "lock", "gone", "NX", "EX", "10"}}, 10 * time.Second},
		{"SET PX 1", [][]string{{"SET", "lock", "gone", "NX", "PX", "1"}}, time.Millisecond},
		{"SETNX then PEXPIRE", [][]string{{"SETNX", "lock", "gone"}, {"PEXPIRE", "lock", "1500"}}, 1500 * time.Millisecond},
		{"extended once", [][]string{{"SET", "lock", "gone", "NX", "PX", "5000"},
			{"EVAL", linExtendScript, "1", "lock", "gone", "7000"}}, 7000 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := server.RunT(t, server.Manual())
			holder := redistest.Dial(t, s.Addr())
			for _, args := range tt.acquire {
				if got := holder.MustDo(args...); got != "+OK\r\n" && got != ":1\r\n" {
					t.Fatalf("%q: %q", args, got)
				}
			}
			holder.NetConn().(*net.TCPConn).SetLinger(0)
			holder.NetConn().Close() // vanishes without releasing
			other := redistest.Dial(t, s.Addr())
			try := func() string { return other.MustDo("SET", "lock", "other", "NX", "PX", "30000") }
			steps := []struct {
				advance time.Duration
				want    string
				pttl    string
			}{
				{0, "$-1\r\n", ":" + strconv.FormatInt(tt.ttl.Milliseconds(), 10) + "\r\n"},
				{tt.ttl - time.Millisecond, "$-1\r\n", ":1\r\n"},
				{time.Millisecond, "$-1\r\n", ":0\r\n"}, // at the deadline: not past it yet
			}
			for _, st := range steps {
				if st.advance > 0 {
					s.FastForward(st.advance)
				}
				if got := other.MustDo("PTTL", "lock"); got != st.pttl {
					t.Fatalf("after +%v: PTTL %q, want %q", st.advance, got, st.pttl)
				}
				if got := try(); got != st.want {
					t.Fatalf("after +%v: SET NX %q, want %q", st.advance, got, st.want)
				}
			}
			s.FastForward(time.Millisecond)
			if keys := s.Keys(); len(keys) != 0 {
				t.Fatalf("1 ms past the TTL the key is still there: %q", keys)
			}
			if got := try(); got != "+OK\r\n" {
				t.Fatalf("1 ms past the TTL: SET NX %q, want +OK", got)
			}
		})
	}
}
