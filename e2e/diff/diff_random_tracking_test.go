package diff_test

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/minilock/minilock/internal/redistest"
)

// randomTrackingCases are random client-side caching setups under random
// reads and writes: four connections, each RESP2 or RESP3, tracking or not
// (default, OPTIN, OPTOUT or BCAST with prefixes, NOLOOP at random,
// redirected to a RESP2 subscriber of __redis__:invalidate at random),
// then commands from the tracking connections and others, alone, in
// pipelines, in MULTI and in scripts. After each step every connection is
// drained, so each message is compared where it arrived, in its order.
func randomTrackingCases(r *rand.Rand, n int) []diffCase {
	var cases []diffCase
	for i := range n {
		cases = append(cases, tc(fmt.Sprintf("tracking %d", i), randomTrackingSteps(r)...))
	}
	return cases
}

// trackKeys are the keys the commands use: prefixes a, b and c, so that
// BCAST prefixes (single letters, which cannot overlap) pick some.
var trackKeys = []string{"a1", "a2", "b1", "b2", "c1"}

func randomTrackingSteps(r *rand.Rand) []step {
	const conns = 4
	var steps []step
	key := func() string { return trackKeys[r.IntN(len(trackKeys))] }
	// Connection 3 is, at random, a RESP2 subscriber others redirect to.
	sub := r.IntN(2) == 0
	active := []int{0, 1, 2}
	if !sub {
		active = append(active, 3)
	}
	if sub {
		steps = append(steps, c("SUBSCRIBE __redis__:invalidate").on(3))
	}
	for _, i := range active {
		resp3 := r.IntN(3) > 0
		if resp3 {
			steps = append(steps, h3(i))
		}
		if r.IntN(4) == 0 {
			continue // not tracking
		}
		args := []string{"CLIENT", "TRACKING", "on"}
		switch r.IntN(4) {
		case 1:
			args = append(args, "OPTIN")
		case 2:
			args = append(args, "OPTOUT")
		case 3:
			args = append(args, "BCAST")
			for _, p := range []string{"a", "b", "c"} {
				if r.IntN(3) == 0 {
					args = append(args, "PREFIX", p)
				}
			}
		}
		if r.IntN(3) == 0 {
			args = append(args, "NOLOOP")
		}
		if sub && (!resp3 || r.IntN(3) == 0) {
			args = append(args, "REDIRECT", "@3")
		}
		steps = append(steps, withIDs(args...).on(i))
	}
	drainAll := func() {
		for i := range conns {
			steps = append(steps, drain(i))
		}
	}
	drainAll()
	ops := 15 + r.IntN(20)
	for range ops {
		i := active[r.IntN(len(active))]
		switch n := r.IntN(20); {
		case n < 13:
			steps = append(steps, cmd(randomTrackingOp(r, key)...).on(i).amidPushes())
		case n < 15:
			yes := "yes"
			if r.IntN(2) == 0 {
				yes = "no"
			}
			steps = append(steps, cmd("CLIENT", "CACHING", yes).on(i).amidPushes())
		case n < 17:
			// A pipeline: Redis sends a client's own invalidations after
			// each reply, a BCAST batch once it is done.
			k := 2 + r.IntN(3)
			var b strings.Builder
			for range k {
				b.WriteString(string(redistest.Encode(randomTrackingOp(r, key)...)))
			}
			steps = append(steps, raw(b.String()).on(i).expect(k).amidPushes())
		case n < 19:
			k := 1 + r.IntN(3)
			var b strings.Builder
			b.WriteString("MULTI\r\n")
			for range k {
				b.WriteString(string(redistest.Encode(randomTrackingOp(r, key)...)))
			}
			b.WriteString("EXEC\r\n")
			steps = append(steps, raw(b.String()).on(i).expect(k+2).amidPushes())
		default:
			if r.IntN(3) == 0 {
				steps = append(steps, c("FLUSHALL").on(i).amidPushes())
			} else {
				steps = append(steps, c("FLUSHDB").on(i).amidPushes())
			}
		}
		drainAll()
	}
	steps = append(steps, c("INFO stats").with(trackingInfo), c("INFO clients").with(trackingInfo))
	for _, i := range active {
		steps = append(steps, c("CLIENT TRACKINGINFO").on(i).with(trackIDs).amidPushes())
	}
	return steps
}

// randomTrackingOp is one read or write of the keys.
func randomTrackingOp(r *rand.Rand, key func() string) []string {
	v := strconv.Itoa(r.IntN(100))
	switch r.IntN(22) {
	case 0, 1, 2:
		return []string{"GET", key()}
	case 3:
		return []string{"MGET", key(), key()}
	case 4:
		return []string{"EXISTS", key(), key()}
	case 5:
		return []string{"STRLEN", key()}
	case 6:
		return []string{"EVAL", "return redis.call('get', KEYS[1])", "1", key()}
	case 7:
		return []string{"EVAL_RO", "return redis.call('exists', KEYS[1], 'c1')", "1", key()}
	case 8:
		return []string{"TYPE", key()}
	case 9, 10, 11:
		return []string{"SET", key(), v}
	case 12:
		return []string{"DEL", key(), key()}
	case 13:
		return []string{"INCR", key()}
	case 14:
		return []string{"APPEND", key(), v}
	case 15:
		return []string{"MSET", key(), v, key(), v}
	case 16:
		return []string{"RENAME", key(), key()}
	case 17:
		return []string{"EXPIRE", key(), "1000"}
	case 18:
		return []string{"PEXPIRE", key(), "0"}
	case 19:
		return []string{"EVAL", "redis.call('get', KEYS[1]) return redis.call('set', KEYS[2], ARGV[1])", "2", key(), key(), v}
	case 20:
		return []string{"GETDEL", key()}
	default:
		return []string{"HSET", key(), "f", v}
	}
}
