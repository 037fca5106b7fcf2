package diff_test

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/minilock/minilock/internal/redistest"
)

var diffSeed = flag.Uint64("diff.seed", 0, "seed of the generated differential cases; 0 picks one from the clock")

// seededRand is the generator of a test's random cases: seeded by
// -diff.seed or the clock, the seed logged so a failure can be run again.
func seededRand(t *testing.T) *rand.Rand {
	seed := *diffSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (rerun with -diff.seed=%d)", seed, seed)
	return rand.New(rand.NewPCG(seed, seed))
}

// TestDiffRandom sends generated cases to both servers: glob patterns for
// KEYS and integer arguments, where hand-written tables cannot list every
// corner. The seed is logged; rerun a failure with -diff.seed.
func TestDiffRandom(t *testing.T) {
	redistest.Require(t)
	r := seededRand(t)
	p := newPair(t, "")
	for _, g := range []caseGroup{
		{"glob", randomGlobCases(r, 40)},
		{"integers", randomIntegerCases(r, 40)},
		{"strings", randomVia(r, randomStringCases(r, 60))},
		{"floats", randomVia(r, randomFloatCases(r, 40))},
		{"indexes", randomVia(r, randomIndexCases(r, 40))},
		{"keys", randomVia(r, randomKeyCases(r, 40))},
		{"watch", randomWatchCases(r, 60)},
		{"tracking", randomTrackingCases(r, 40)},
		{"config", randomConfigCases(r, 40)},
		{"hash", randomVia(r, randomHashCases(r, 60))},
		{"set", randomVia(r, randomSetCases(r, 60))},
		{"zset", randomVia(r, randomZSetCases(r, 60))},
		{"list", randomVia(r, randomListCases(r, 60))},
		{"stream", randomVia(r, randomStreamCases(r, 60))},
		{"stream wake", randomStreamWakeCases(r, 30)},
		{"functions", randomFunctionCases(r, 60)},
	} {
		t.Run(g.name, func(t *testing.T) {
			for _, dc := range g.cases {
				t.Run(dc.name, func(t *testing.T) { p.run(t, dc) })
			}
		})
	}
}

// randomVia sends each case plainly or one of the variants' ways, at
// random.
func randomVia(r *rand.Rand, cases []diffCase) []diffCase {
	for i, dc := range cases {
		if n := r.IntN(len(variants) + 1); n < len(variants) {
			if w, ok := dc.via(variants[n]); ok {
				cases[i] = w
			}
		}
	}
	return cases
}

// randomString returns up to max bytes drawn from alphabet.
func randomString(r *rand.Rand, alphabet string, max int) string {
	b := make([]byte, r.IntN(max+1))
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

// randomGlobCases each set a few keys and ask KEYS with patterns made of
// the glob's special characters. Patterns ending in a backslash are left
// out: inside an unterminated class Redis then reads past the pattern's
// end (undefined behaviour, not something to match).
func randomGlobCases(r *rand.Rand, n int) []diffCase {
	const keyChars = "ab-]^[\\*?"
	const patChars = "ab-]^[\\*?*?["
	var cases []diffCase
	for i := range n {
		mset := []string{"MSET"}
		for range 8 {
			mset = append(mset, randomString(r, keyChars, 4), "v")
		}
		steps := []step{cmd(mset...)}
		for len(steps) < 13 {
			p := randomString(r, patChars, 7)
			if strings.HasSuffix(p, `\`) {
				continue
			}
			steps = append(steps, cmd("KEYS", p).with(sorted))
		}
		cases = append(cases, tc(fmt.Sprintf("glob %d", i), steps...))
	}
	return cases
}

// randomInteger returns a string near the edges of what string2ll accepts:
// signs, spaces, leading zeros, 19 to 21 digits, the int64 limits.
func randomInteger(r *rand.Rand) string {
	switch r.IntN(6) {
	case 0:
		return []string{"9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809", "0", "-0", "1", "-1"}[r.IntN(8)]
	case 1:
		return randomString(r, "0123456789", 21)
	case 2:
		return "-" + randomString(r, "0123456789", 20)
	case 3:
		return randomString(r, "0123456789-+ ", 6)
	case 4:
		return []string{"", " ", "+", "0", "00", "-", "1 ", " 1", "1\x00"}[r.IntN(9)] + randomString(r, "0123456789", 5)
	}
	return fmt.Sprint(r.Int64N(2000) - 1000)
}

// randomIntegerCases pass generated integers to the commands that parse
// them, and read the effect back where it is exact.
func randomIntegerCases(r *rand.Rand, n int) []diffCase {
	var cases []diffCase
	for i := range n {
		a, b, d := randomInteger(r), randomInteger(r), randomInteger(r)
		cases = append(cases, tc(fmt.Sprintf("integers %d", i),
			cmd("SET", "k", a), c("INCR k"), cmd("INCRBY", "k", b), cmd("DECRBY", "k", d), c("GET k"),
			cmd("GETRANGE", "k", a, b), cmd("SELECT", a), scanAll("COUNT", b),
			c("SET e v"), cmd("EXPIRE", "e", d), c("TTL e"), cmd("SETEX", "s", a, "v"), c("TTL s"),
			cmd("SET", "x", "v", "PXAT", b), c("PEXPIRETIME x"), cmd("HELLO", d, "SETNAME", "n").with(helloID),
		))
	}
	return cases
}
