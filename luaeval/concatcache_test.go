package luaeval

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/minilock/minilock/luaeval/internal/seam"
)

// genConcatScript makes a script that builds strings with `..` from
// strings around the cache's 32-byte bound and numbers Lua formats with
// "%.14g" (integers, fractions, -0, 1e14 and 1e15 around the integer
// form's bound, huge and tiny, infinities, NaN), each twice so the second
// may come from the cache, uses them as table keys and returns every
// result, the keys in next's order and `#` of the results.
func genConcatScript(r *rand.Rand) string {
	strs := []string{"''", "'k'", "':'", "'abc'", "'q:wait'", "'" + strings.Repeat("x", 16) + "'", "'" + strings.Repeat("y", 30) + "'",
		"'" + strings.Repeat("z", 31) + "'", "'" + strings.Repeat("w", 32) + "'", "'" + strings.Repeat("v", 33) + "'", "'1'", "'1e2'"}
	nums := []string{"0", "-0", "(0 * -1)", "1", "-1", "7", "100", "i", "-i", "i / 3", "i * 0.5", "1e14", "1e14 - 1", "-1e14", "1e15", "123456789012345",
		"2^53", "2^63", "1/3", "-1.5", "1e300", "1e-300", "5e-324", "1/0", "-1/0", "0.1 + 0.2", "3.14159265358979", "1e100", "12345.678901234567"}
	operand := func() string {
		if r.Intn(2) == 0 {
			return strs[r.Intn(len(strs))]
		}
		return "(" + nums[r.Intn(len(nums))] + ")"
	}
	var b strings.Builder
	b.WriteString("local out, keys = {}, {}\nfor pass = 1, 2 do\n  for i = 1, 3 do\n")
	for range 1 + r.Intn(6) {
		parts := make([]string, 2+r.Intn(3))
		for j := range parts {
			parts[j] = operand()
		}
		b.WriteString("    local s = " + strings.Join(parts, " .. ") + "\n")
		b.WriteString("    out[#out + 1] = s\n    keys[s] = (keys[s] or 0) + #s\n")
	}
	b.WriteString("  end\nend\nlocal r = {}\nfor k, v in pairs(keys) do r[#r + 1] = k .. '=' .. v end\n" +
		"return {table.concat(out, '|'), table.concat(r, '|'), #out}")
	return b.String()
}

// The cache of short concatenation results (seam.ConcatSource) and the
// table paths on against off (seam.SetFastTables): the same replies.
func TestConcatCacheAgainstSlow(t *testing.T) {
	if !seam.Enabled() {
		t.Skip("the hooks are off: there are no fast paths")
	}
	tablesFastAgainstSlow(t, 1500, genConcatScript)
}

// The same scripts against redis-server: each result, and the pairs order
// of the keys they make, byte for byte.
func TestConcatAgainstRedis(t *testing.T) {
	r := rand.New(rand.NewSource(seed(t) + 2))
	scripts := []string{
		// table-hash's shape, and keys built again after the loop.
		`local t = {} for i = 1, 100 do t['k' .. i] = i end local s = 0 for i = 1, 100 do s = s + t['k' .. i] end
local r = {} for k, v in pairs(t) do r[#r + 1] = k .. v end return {s, table.concat(r, ',')}`,
		`return {'' .. -0, 'a' .. 0/0, 1e15 .. '', 1e14 .. '', (1e14 - 1) .. '', 2^63 .. 'x', 5e-324 .. '', -1/0 .. 1/0}`,
	}
	for range 300 {
		scripts = append(scripts, genConcatScript(r))
	}
	diffTimed(t, scripts)
}
