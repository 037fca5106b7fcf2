package locks_test

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/minilock/minilock/internal/lockscripts"
	"github.com/minilock/minilock/internal/redistest"
	"github.com/minilock/minilock/server"
)

// A lock that waits instead of polling, checked with porcupine against the
// same model as TestLockLinearizable: acquire is SET NX PX, and when the
// lock is taken the client parks in BLPOP on the lock's signal list (a
// short timeout, then it tries again); release is a compare-and-delete
// script that also pushes one element onto the signal list, as
// python-redis-lock's unlock does. Some clients drop their connection while
// parked in BLPOP (the acquire has then failed: its last SET NX did), while
// sending SET NX or the release (the outcome is unknown).
//
//	go test -run TestBLPOPLockLinearizable -v ./e2e/locks                  # 3 fixed seeds
//	go test -run TestBLPOPLockLinearizable -v ./e2e/locks -blp.seed 42     # one seed

var blpSeed = flag.Uint64("blp.seed", 0, "seed of TestBLPOPLockLinearizable; 0 runs the fixed seeds")

const (
	blpKeys       = 3                // locks (keys 0..2 of linModel's partitions)
	blpClients    = 12               // clients, a quarter of them dropping
	blpOps        = 400              // operations per client at most
	blpBudget     = 3 * time.Second  // and no more than this much recording
	blpWait       = "0.02"           // BLPOP timeout, seconds
	blpWaits      = 5                // BLPOPs before an acquire gives up
	blpSignal     = "1000"           // the signal list's PEXPIRE, ms
	blpDrop       = 0.03             // chance that a dropping client abandons a command
	blpDropParked = 0.25             // and a BLPOP
	blpTTL        = 30 * time.Second // far longer than a run: locks expire only by the clock jumps
	blpJump       = blpTTL + time.Millisecond
	// blpJumpEvery is how many operations pass between two clock jumps,
	// which also free the locks of clients that dropped after a SET NX
	// that took effect.
	blpJumpEvery = 150
)

// The release scripts: the real one, and one that deletes without checking
// the token (porcupine must reject it).
const (
	blpRelease = `if redis.call("get", KEYS[1]) == ARGV[1] then
	redis.call("del", KEYS[1])
	redis.call("del", KEYS[2])
	redis.call("lpush", KEYS[2], 1)
	redis.call("pexpire", KEYS[2], ARGV[2])
	return 1
end
return 0`
	blpReleaseUnchecked = `local n = redis.call("del", KEYS[1])
redis.call("del", KEYS[2])
redis.call("lpush", KEYS[2], 1)
redis.call("pexpire", KEYS[2], ARGV[2])
return n`
)

type blpStats struct {
	ops, unknown, acquired, woken, parkedDrops, gaveUp, expiries int
	elapsed                                                      time.Duration
}

func (st *blpStats) add(o blpStats) {
	st.ops += o.ops
	st.unknown += o.unknown
	st.acquired += o.acquired
	st.woken += o.woken
	st.parkedDrops += o.parkedDrops
	st.gaveUp += o.gaveUp
}

type blpRun struct {
	seed      uint64
	unchecked bool // release with blpReleaseUnchecked
}

func (r blpRun) record(t *testing.T) ([]porcupine.Operation, blpStats) {
	t.Helper()
	s := server.RunT(t) // a real clock, moved forward by the expiry jumps
	script := blpRelease
	if r.unchecked {
		script = blpReleaseUnchecked
	}
	sha := lockscripts.SHA1(script)
	admin := redistest.Dial(t, s.Addr())
	if got := admin.MustDo("SCRIPT", "LOAD", script); !strings.Contains(got, sha) {
		t.Fatalf("SCRIPT LOAD: %q", got)
	}

	h := newLinHistory(s, blpClients, blpKeys, blpJump, blpJumpEvery)
	var stats blpStats
	h.runClients(t, blpClients, func(id int) error {
		rng := rand.New(rand.NewPCG(r.seed, uint64(id)))
		cl := &blpClient{addr: s.Addr(), sha: sha, rng: rng, dropper: id < blpClients/4}
		defer cl.close()
		held := map[int]string{}
		var ops []porcupine.Operation
		var st blpStats
		for j := 0; j < blpOps && time.Since(h.start) < blpBudget; j++ {
			// A holder works on its lock until it lets go: it never
			// waits for a second lock while holding one.
			k := rng.IntN(blpKeys)
			for hk := range held {
				k = hk
			}
			in := linInput{key: k}
			tok, holding := held[k]
			p := rng.Float64()
			switch {
			case holding && p < 0.5:
				in.op, in.token = linRelease, tok
			case holding && p < 0.8:
				in.op = linFence
			case holding:
				in.op = linRead
			case p < 0.65:
				in.op, in.token = linAcquire, fmt.Sprintf("c%d-%d", id, j)
			case p < 0.8:
				in.op = linRead
			default:
				// A stale token: a client whose lock expired releases it.
				in.op, in.token = linRelease, fmt.Sprintf("c%d-%d", id, rng.IntN(j+1))
			}
			out, err := h.op(&ops, id, in, func() (linOutput, error) { return cl.do(in, &st) })
			if err != nil {
				return fmt.Errorf("op %d %s: %w", j, linOpNames[in.op], err)
			}
			switch {
			case out.unknown:
				st.unknown++
				delete(held, k)
			case in.op == linAcquire && out.ok:
				held[k] = in.token
				st.acquired++
			case in.op == linRelease && out.ok:
				delete(held, k)
			}
			if h.tick() {
				clear(held)
			}
		}
		st.ops = len(ops)
		h.add(ops, func() { stats.add(st) })
		return nil
	})
	stats.expiries = h.expiries
	stats.elapsed = time.Since(h.start)
	// Every client is gone, those dropped while parked included: nobody
	// may still be counted as blocked.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		info := admin.MustDo("INFO", "clients")
		if strings.Contains(info, "blocked_clients:0\r\n") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("clients still blocked after every client left:\n%s", info)
		}
	}
	return h.ops, stats
}

// blpClient is one client's connection, redialled after each drop.
type blpClient struct {
	addr    string
	sha     string
	rng     *rand.Rand
	dropper bool
	c       *redistest.Conn
}

func (cl *blpClient) close() {
	if cl.c != nil {
		cl.c.Close()
		cl.c = nil
	}
}

func (cl *blpClient) conn() (*redistest.Conn, error) {
	if cl.c == nil {
		c, err := redistest.DialAddr(cl.addr)
		if err != nil {
			return nil, err
		}
		cl.c = c
	}
	return cl.c, nil
}

func (cl *blpClient) drops(rate float64) bool { return cl.dropper && cl.rng.Float64() < rate }

// do runs one operation; an acquire may park in BLPOP between tries.
func (cl *blpClient) do(in linInput, st *blpStats) (linOutput, error) {
	c, err := cl.conn()
	if err != nil {
		return linOutput{}, err
	}
	lock, signal := "lock:"+strconv.Itoa(in.key), "signal:"+strconv.Itoa(in.key)
	var args []string
	switch in.op {
	case linAcquire:
		return cl.acquire(lock, signal, in.token, st)
	case linRelease:
		args = []string{"EVALSHA", cl.sha, "2", lock, signal, in.token, blpSignal}
	case linRead:
		args = []string{"GET", lock}
	case linFence:
		args = []string{"INCR", "fence:" + strconv.Itoa(in.key)}
	}
	if in.op == linRelease && cl.drops(blpDrop) {
		err := c.Send(redistest.Encode(args...))
		cl.close()
		return linOutput{unknown: true}, err
	}
	return linDo(c, in, args)
}

// acquire tries SET NX, and while the lock is taken parks in BLPOP on its
// signal, up to blpWaits times.
func (cl *blpClient) acquire(lock, signal, token string, st *blpStats) (linOutput, error) {
	ttl := strconv.FormatInt(blpTTL.Milliseconds(), 10)
	woken := false
	for wait := 0; ; wait++ {
		set := []string{"SET", lock, token, "NX", "PX", ttl}
		if cl.drops(blpDrop) {
			err := cl.c.Send(redistest.Encode(set...))
			cl.close()
			return linOutput{unknown: true}, err
		}
		reply, err := cl.c.Do(set...)
		if err != nil {
			return linOutput{}, err
		}
		switch string(reply) {
		case "+OK\r\n":
			if woken {
				st.woken++
			}
			return linOutput{ok: true}, nil
		case "$-1\r\n":
		default:
			return linOutput{}, fmt.Errorf("SET NX: %q", reply)
		}
		if wait == blpWaits {
			st.gaveUp++
			return linOutput{}, nil
		}
		if err := cl.c.Send(redistest.Encode("BLPOP", signal, blpWait)); err != nil {
			return linOutput{}, err
		}
		if cl.drops(blpDropParked) {
			// Gone while parked (or about to be): the acquire has failed,
			// since its last SET NX did; the server must forget the waiter.
			time.Sleep(time.Duration(cl.rng.IntN(1000)) * time.Microsecond)
			cl.close()
			st.parkedDrops++
			return linOutput{}, nil
		}
		reply, err = cl.c.ReadReply()
		if err != nil {
			return linOutput{}, err
		}
		switch r := string(reply); {
		case strings.HasPrefix(r, "*2\r\n"):
			woken = true
		case r == "*-1\r\n":
			woken = false
		default:
			return linOutput{}, fmt.Errorf("BLPOP: %q", r)
		}
	}
}

// TestBLPOPLockLinearizable: 12 clients x up to 400 operations over 3
// locks, 3 fixed seeds, each run bounded to 3 s of recording; porcupine must
// find every history linearizable, and the run must have exercised the wait
// (acquisitions after a wake-up, drops while parked, unknown outcomes), and
// no client may be left counted as blocked.
func TestBLPOPLockLinearizable(t *testing.T) {
	seeds := []uint64{11, 12, 13}
	if *blpSeed != 0 {
		seeds = []uint64{*blpSeed}
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			history, st := blpRun{seed: seed}.record(t)
			res, checked := linCheck(t, fmt.Sprint("blpop-seed-", seed), history, porcupine.Ok)
			t.Logf("seed %d (rerun with -blp.seed %d): %d ops + %d expiry jumps in %v: %d acquired (%d after a wake-up), %d gave up, %d dropped while parked, %d unknown; porcupine: %s in %v",
				seed, seed, st.ops, st.expiries, st.elapsed.Round(time.Millisecond), st.acquired, st.woken, st.gaveUp,
				st.parkedDrops, st.unknown, res, checked.Round(time.Millisecond))
			if res != porcupine.Ok {
				t.Fatalf("history not linearizable (%s)", res)
			}
			if st.woken == 0 || st.parkedDrops == 0 || st.unknown == 0 {
				t.Fatalf("the run did not exercise the wait: %+v", st)
			}
		})
	}
}

// TestBLPOPLockCatchesUncheckedRelease proves the check can fail here too:
// a release that deletes whoever holds the lock must be rejected.
func TestBLPOPLockCatchesUncheckedRelease(t *testing.T) {
	history, st := blpRun{seed: 7, unchecked: true}.record(t)
	res, checked := linCheck(t, "blpop-unchecked-release", history, porcupine.Illegal)
	t.Logf("%d ops: porcupine says %s in %v", st.ops, res, checked.Round(time.Millisecond))
	if res != porcupine.Illegal {
		t.Fatalf("porcupine says %s for a release that does not check the token, want Illegal", res)
	}
}
