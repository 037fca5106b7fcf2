package luaeval

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// TestStringByteOneIndex: string.byte(s, i), which strlib answers on a
// path of its own when s is a string and i a number, gives what the
// general path gives for string.byte(s, i, nil) (the same call to Lua
// 5.1: a nil end is i), over seeded strings and positions (negative,
// zero, past the end, fractional, huge, NaN, numeric strings) and
// arguments of other types, errors included.
func TestStringByteOneIndex(t *testing.T) {
	r := rand.New(rand.NewSource(seed(t)))
	pick := func(xs ...string) string { return xs[r.Intn(len(xs))] }
	e := newTestEngine(t, Config{})
	h := newFakeHost()
	var b strings.Builder
	// cmp holds no upvalue: a pcall that catches an error detaches the
	// caller's upvalues (see the report of this branch), which a counter
	// in the main chunk would suffer.
	b.WriteString(`local bad, n = {}, 0
local function cmp(s, i)
  local function join(t)
    for k = 1, #t do t[k] = tostring(t[k]) end
    return table.concat(t, ',')
  end
  local x = join({pcall(string.byte, s, i)})
  local y = join({pcall(string.byte, s, i, nil)})
  if x ~= y then return tostring(s) .. '@' .. tostring(i) .. ': ' .. x .. ' / ' .. y end
end
`)
	for range 2000 {
		s := pick("''", "'a'", "'abcdefgh'", "'\\0\\255x'", "12.5", "-3", "'héllo'", "{}", "nil", "true")
		i := pick("0", "1", "2", "3", "8", "9", "-1", "-2", "-8", "-9", "1.5", "-0.5", "2^31", "-2^31", "2^53", "1e300", "-1e300",
			"0/0", "1/0", "-1/0", "'2'", "' 3 '", "'x'", "{}", "true", fmt.Sprint(r.Intn(40)-20), fmt.Sprintf("%d.%d", r.Intn(10), r.Intn(10)))
		fmt.Fprintf(&b, "n = n + 1 bad[#bad + 1] = cmp(%s, %s)\n", s, i)
	}
	b.WriteString("return {n, unpack(bad, 1, math.min(#bad, 5))}")
	got := evalReply(e, h, 2, b.String(), "0")
	if !strings.HasPrefix(got, "*1\r\n:2000\r\n") {
		t.Fatalf("string.byte(s, i) differs from string.byte(s, i, nil): %q", got)
	}
}
