package diff_test

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/minilock/minilock/internal/redistest"
)

// LCS and SUBSTR.
var lcsCases = []diffCase{
	tc("lcs documented", c("MSET key1 ohmytext key2 mynewtext"), c("LCS key1 key2"), c("LCS key1 key2 LEN"), c("LCS key1 key2 IDX"),
		c("LCS key1 key2 IDX MINMATCHLEN 4"), c("LCS key1 key2 IDX MINMATCHLEN 4 WITHMATCHLEN"), c("LCS key1 key2 IDX WITHMATCHLEN"),
		c("lcs key1 key2 idx withmatchlen minmatchlen 2 minmatchlen 3")),
	tc("lcs errors", c("SET a x"), c("RPUSH l x"), c("LCS a l"), c("LCS l a FOO"), c("LCS nosuch l LEN IDX"), c("LCS a b FOO"),
		c("LCS a b MINMATCHLEN"), c("LCS a b MINMATCHLEN x"), c("LCS a b LEN IDX"), c("LCS a b IDX LEN"), c("LCS a b LEN LEN"),
		c("LCS a b MINMATCHLEN -3 LEN"), cmd("LCS", "a", "b", "LEN\x00x"), c("LCS a")),
	tc("lcs missing and empty", c("LCS nosuch nosuch"), c("LCS nosuch nosuch IDX"), cmd("SET", "e", ""), c("SET a abc"), c("LCS e a"),
		c("LCS a e IDX WITHMATCHLEN"), c("LCS a nosuch LEN")),
	tc("lcs same string", c("SET a abcdef"), c("LCS a a"), c("LCS a a IDX WITHMATCHLEN")),
	tc("lcs dna", c("SET x ACCGGTCGAGTGCGCGGAAGCCGGCCGAA"), c("SET y GTCGTTCGGAATGCCGTTGCTCTGTAAA"), c("LCS x y"),
		c("LCS x y IDX WITHMATCHLEN"), c("LCS y x IDX MINMATCHLEN 3"), c("LCS x y LEN")),
	tc("lcs binary", cmd("SET", "a", "\x00\xff\r\n\x00"), cmd("SET", "b", "\xff\x00\n"), c("LCS a b"), c("LCS a b IDX")),
	tc("lcs integers", c("SET a 12345"), c("SET b 2457"), c("LCS a b"), c("LCS a b IDX WITHMATCHLEN")),
	tc("lcs long", cmd("SET", "a", strings.Repeat("abcde", 300)), cmd("SET", "b", strings.Repeat("aebdc", 250)), c("LCS a b LEN"),
		c("LCS a b IDX MINMATCHLEN 3 WITHMATCHLEN")),
	tc("substr", c("SET k Hello"), c("SUBSTR k 1 3"), c("SUBSTR k -3 -1"), c("SUBSTR k -1 -3"), c("SUBSTR k 0 100"), c("SUBSTR k x 1"),
		c("SUBSTR nosuch 0 -1"), c("SUBSTR k 1"), c("RPUSH l a"), c("SUBSTR l 0 1"),
		c("SUBSTR k -9223372036854775808 9223372036854775807")),
	tc("lcs in scripts", c("MSET a hello b yellow"), cmd("EVAL_RO", "return redis.call('lcs',KEYS[1],KEYS[2],'idx')", "2", "a", "b"),
		cmd("EVAL", "redis.setresp(3) return redis.call('lcs',KEYS[1],KEYS[2],'idx','withmatchlen')", "2", "a", "b"),
		cmd("EVAL_RO", "return redis.call('substr',KEYS[1],1,2)", "1", "a")),
}

// randomLCSCases compare LCS with every option mix on short strings over
// small alphabets (long common runs and many ties), and SUBSTR with any
// integers.
func randomLCSCases(r *rand.Rand, n int) []diffCase {
	str := func() string {
		return randomString(r, []string{"ab", "abc", "abcdefgh", "a\x00\xff"}[r.IntN(4)], []int{3, 12, 40}[r.IntN(3)])
	}
	opts := func() []string {
		var out []string
		for range r.IntN(4) {
			switch r.IntN(5) {
			case 0:
				out = append(out, "IDX")
			case 1:
				out = append(out, "LEN")
			case 2:
				out = append(out, "WITHMATCHLEN")
			case 3:
				out = append(out, "MINMATCHLEN", []string{"0", "1", "2", "3", "-1", "x", strconv.Itoa(r.IntN(6))}[r.IntN(7)])
			default:
				out = append(out, []string{"idx", "minmatchlen", "foo"}[r.IntN(3)])
			}
		}
		return out
	}
	key := func() string { return []string{"a", "b", "nosuch", "h"}[r.IntN(4)] }
	var cases []diffCase
	for i := range n {
		steps := []step{cmd("SET", "a", str()), cmd("SET", "b", str()), cmd("HSET", "h", "f", "v")}
		for range 8 {
			if r.IntN(5) == 0 {
				steps = append(steps, cmd("SUBSTR", key(), randomInteger(r), randomInteger(r)))
				continue
			}
			steps = append(steps, cmd(append([]string{"LCS", key(), key()}, opts()...)...))
		}
		cases = append(cases, tc(fmt.Sprintf("lcs %d", i), steps...))
	}
	return cases
}

// TestDiffLCS runs the LCS and SUBSTR cases, plain and every variant's
// way (RESP3's map, Lua's tables), and generated ones, against
// redis-server. Rerun a failure of the generated ones with -diff.seed.
func TestDiffLCS(t *testing.T) {
	redistest.Require(t)
	r := seededRand(t)
	groups := []caseGroup{
		{"lcs", lcsCases},
		{"lcs via", allVia(lcsCases)},
		{"lcs random", randomVia(r, randomLCSCases(r, 150))},
	}
	checkCaseNames(t, groups)
	p := newPair(t, "")
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			for _, dc := range g.cases {
				t.Run(dc.name, func(t *testing.T) { p.run(t, dc) })
			}
		})
	}
}
