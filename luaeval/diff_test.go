package luaeval

import (
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"testing"
)

// diffAgainstRedis runs each script with EVAL <script> 0 on a fresh engine
// and on a live redis-server, and fails on the first replies that differ.
// Generated cases come here rather than into testdata: the generator and
// its seed are the record.
func diffAgainstRedis(t *testing.T, scripts []string) {
	t.Helper()
	diffAgainstRedisBy(t, scripts, func(s string) string { return s })
}

// diffAgainstRedisBy is diffAgainstRedis comparing the replies as norm
// rewrites them.
func diffAgainstRedisBy(t *testing.T, scripts []string, norm func(string) string) {
	t.Helper()
	diffAgainstRedisProto(t, scripts, 2, norm)
}

// diffAgainstRedisProto is diffAgainstRedisBy for a client speaking
// RESP proto (2, or 3 after HELLO 3).
func diffAgainstRedisProto(t *testing.T, scripts []string, proto int, norm func(string) string) {
	t.Helper()
	rc := dialRedis(t)
	if proto == 3 {
		rc.do(t, "HELLO", "3")
	}
	e := newTestEngine(t, Config{})
	bad := 0
	for _, s := range scripts {
		want := rc.do(t, "EVAL", s, "0")
		got := evalReply(e, newFakeHost(), proto, s, "0")
		if norm(got) != norm(want) {
			t.Errorf("EVAL %q\nredis    %q\nminilock %q", s, trunc(want), trunc(got))
			if bad++; bad == 10 {
				t.Fatal("stopping after 10 differences")
			}
		}
	}
}

// seed returns the seed a generated test uses: $LUAEVAL_SEED, or a fixed
// one. It is logged so that a failure can be reproduced.
func seed(t *testing.T) int64 {
	s := int64(1)
	if v := os.Getenv("LUAEVAL_SEED"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		s = n
	}
	t.Logf("seed %d (LUAEVAL_SEED=%d reproduces)", s, s)
	return s
}

// TestTonumberAgainstRedis: tonumber with and without a base on generated
// strings (signs, prefixes, white space, digits of every base, overflow,
// NULs).
func TestTonumberAgainstRedis(t *testing.T) {
	r := rand.New(rand.NewSource(seed(t)))
	parts := []string{"", " ", "\t", "-", "+", "0", "1", "7", "9", "a", "f", "F", "z", "Z", "x", "0x", "0X", ".", "e", "e5", "p1", "inf", "nan", "\\0", "ffffffffffffffff", "18446744073709551615", "99999999999999999999", "1e308", "1e400"}
	var scripts []string
	for i := 0; i < 1500; i++ {
		var b strings.Builder
		for n := r.Intn(5); n >= 0; n-- {
			b.WriteString(parts[r.Intn(len(parts))])
		}
		arg := `"` + b.String() + `"`
		switch r.Intn(4) {
		case 0:
			scripts = append(scripts, "return tostring(tonumber("+arg+"))")
		default:
			base := []int{2, 8, 10, 16, 36, r.Intn(40)}[r.Intn(6)]
			scripts = append(scripts, fmt.Sprintf("return {pcall(function() return tostring(tonumber(%s, %d)) end)}", arg, base))
		}
	}
	diffAgainstRedis(t, scripts)
}

// TestProtectedCallsAgainstRedis: nesting of pcall, xpcall, coroutines and
// error() at generated depths, around Lua 5.1's limit of 200 C calls.
func TestProtectedCallsAgainstRedis(t *testing.T) {
	r := rand.New(rand.NewSource(seed(t)))
	var scripts []string
	for i := 0; i < 300; i++ {
		depth := []int{1, 2, 100, 190, 197, 198, 199, 200, 201, 250, r.Intn(400)}[r.Intn(11)]
		switch r.Intn(5) {
		case 0:
			scripts = append(scripts, fmt.Sprintf("local function f(n) if n == 0 then return 'bottom' end return select(2, pcall(f, n-1)) end return f(%d)", depth))
		case 1:
			scripts = append(scripts, fmt.Sprintf("local function f(n) if n == 0 then error('bottom') end return select(2, xpcall(function() return f(n-1) end, function(m) return m end)) end return {f(%d)}", depth))
		case 2:
			scripts = append(scripts, fmt.Sprintf("local n = 0 local function f() n = n + 1 if n < %d then return pcall(f) end return 'ok' end local r = {f()} return {#r, r[#r]}", depth))
		case 3:
			scripts = append(scripts, fmt.Sprintf("local function f(n) if n == 0 then return coroutine.yield('y') end local co = coroutine.create(f) return coroutine.resume(co, n-1) end return {f(%d)}", depth%20))
		case 4:
			scripts = append(scripts, fmt.Sprintf("local function f(n) if n == 0 then error({code=%d}) end return pcall(f, n-1) end local r = {f(%d)} return {#r, type(r[#r])}", depth, depth))
		}
	}
	diffAgainstRedis(t, scripts)
}
