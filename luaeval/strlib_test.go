package luaeval

import (
	"strings"
	"testing"
	"time"
)

// Scripts that spend their time inside one string function: SCRIPT KILL
// ends each within 100 ms of being sent. (In Redis the matcher is C code
// its Lua hook cannot interrupt; none of these can be killed there.)
func TestKillInsideStringFunctions(t *testing.T) {
	for _, script := range []string{
		// exponential backtracking
		"return string.find(string.rep('a', 40), string.rep('a?', 40) .. string.rep('a', 40))",
		"for w in string.gmatch(string.rep('a', 40), string.rep('a*', 40) .. 'b') do end",
		// quadratic: a lazy item retried from every start
		"return string.gsub(string.rep('a', 1e6), '.-b', 'x')",
		"return string.find(string.rep('(', 1e6), '%b()x')",
		// a replacement function that loops
		"return string.gsub('abc', '%w', function() while true do end end)",
	} {
		t.Run(script, func(t *testing.T) {
			e := newTestEngine(t, Config{BusyThreshold: 20 * time.Millisecond})
			ch := runAsync(e, newFakeHost(), script, "0")
			if !waitFor(10*time.Second, func() bool { return isClosed(e.BusyChan()) }) {
				t.Fatal("not busy")
			}
			sent := time.Now()
			if err := e.Kill(); err != nil {
				t.Fatalf("Kill = %v", err)
			}
			got := waitReply(t, ch, 10*time.Second)
			d := time.Since(sent)
			// The loops never end on their own; the bound is loose so a
			// loaded machine does not fail it (the figure is logged).
			if d > 2*time.Second {
				t.Errorf("the kill took %v", d)
			}
			t.Logf("killed %v after SCRIPT KILL", d)
			if want := errAt(script, "Script killed by user with SCRIPT KILL...", 1); got != want {
				t.Fatalf("reply %q, want %q", trunc(got), want)
			}
		})
	}
}

// Inputs that are large but that Lua 5.1 handles in linear time stay fast
// here, and what would outgrow the limits fails before it allocates.
func TestStringLibLarge(t *testing.T) {
	e := newTestEngine(t, Config{MaxStringBytes: 8 << 20})
	for _, tc := range []struct {
		script, want string
	}{
		{"return {string.gsub(string.rep('hello world ', 1e5), '%w+', '%0 %0')}", "*2\r\n$2400000\r\n"},
		{"return #(string.gsub(string.rep('ab', 5e5), 'a', 'xyz'))", ":2000000\r\n"},
		{"return {string.find(string.rep('a', 1e6), 'a*$')}", "*2\r\n:1\r\n:1000000\r\n"},
		{"return #string.match(string.rep('a', 1e6), 'a*')", ":1000000\r\n"},
		{"return {string.gsub(string.rep('a', 1e6), 'a*', '-')}", "*2\r\n$2\r\n--\r\n:2\r\n"},
		{"local n = 0 for w in string.gmatch(string.rep('ab ', 3e5), '%a+') do n = n + 1 end return n", ":300000\r\n"},
		{"return #string.upper(string.rep('abc', 2e6))", ":6000000\r\n"},
		{"return select('#', string.byte(string.rep('a', 1e6), 1, 7997))", ":7997\r\n"},
		// 150,000 nested items: Redis answers (its C stack lasts to about
		// 175,000); past MaxDepth Redis crashes and minilock refuses.
		{"local n = 150000 return {string.find(string.rep('a', n), string.rep('a?', n))}", "*2\r\n:1\r\n:150000\r\n"},
		{"local n = 300000 return {string.find(string.rep('a', n), string.rep('a?', n))}", "user_script:1: pattern too complex@1"},
		{"local n = 300000 return {pcall(string.find, string.rep('a', n), string.rep('(a?)', 16) .. string.rep('a-', n) .. '$')}", "*2\r\n$-1\r\n$19\r\npattern too complex\r\n"},
		// output past MaxStringBytes is refused before it is built
		{"return #(string.gsub(string.rep('a', 1e5), 'a', string.rep('x', 100)))", "not enough memory@1"},
		{"return #(string.gsub(string.rep('a', 1e5), 'a', function() return string.rep('x', 100) end))", "not enough memory@1"},
		{"return #string.format('%s', string.rep('x', 7e6))", ":7000000\r\n"}, // one argument kept whole, as Lua does
		{"return #string.rep('x', 2^23 + 1)", "not enough memory@1"},
	} {
		want := tc.want
		if msg, line, ok := strings.Cut(want, "@"); ok {
			want = errAt(tc.script, msg, int(line[0]-'0'))
		}
		start := time.Now()
		got := evalReply(e, newFakeHost(), 2, tc.script, "0")
		if !strings.HasPrefix(got, want) {
			t.Errorf("EVAL %q\n got %q\nwant %q", tc.script, trunc(got), want)
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("EVAL %q took %v", tc.script, d)
		}
	}
}

// BenchmarkGsub100KB: the quadratic case, string.gsub over 100 KB.
func BenchmarkGsub100KB(b *testing.B) {
	benchScript(b, "return #(string.gsub(string.rep('hello world ', 8534), '%w+', '<%0>'))")
}

func BenchmarkFind1MB(b *testing.B) {
	benchScript(b, "return string.find(string.rep('a', 1e6) .. 'b', '%a*b')")
}

func BenchmarkGmatch100KB(b *testing.B) {
	benchScript(b, "local n = 0 for k, v in string.gmatch(string.rep('key=val&', 12500), '(%w+)=(%w+)') do n = n + 1 end return n")
}

func BenchmarkFormat(b *testing.B) {
	benchScript(b, "local t = {} for i = 1, 1000 do t[i] = string.format('%5.2f|%-8d|%x|%q', i / 3, i, i, 'k' .. i) end return #t")
}

func benchScript(b *testing.B, script string) {
	e := newTestEngine(b, Config{})
	h := newFakeHost()
	if r := evalReply(e, h, 2, script, "0"); strings.HasPrefix(r, "-") {
		b.Fatal(r)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		evalReply(e, h, 2, script, "0")
	}
}
