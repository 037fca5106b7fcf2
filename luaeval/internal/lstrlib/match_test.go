package lstrlib

import (
	"errors"
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// budget is an Env that stops after a number of polls and refuses any
// allocation past maxAlloc bytes (as the engine refuses one that would take
// the script past its limit).
type budget struct {
	polls, maxPolls int
	alloc, maxAlloc int
	asked           int // Alloc calls
}

var errStopped = errors.New("stopped")

func (b *budget) Stopped() error {
	if b.polls++; b.maxPolls > 0 && b.polls > b.maxPolls {
		return errStopped
	}
	return nil
}

func (b *budget) Alloc(n int) bool {
	b.asked++
	b.alloc = max(b.alloc, n)
	return b.maxAlloc <= 0 || n <= b.maxAlloc
}

func find(t *testing.T, env Env, src, pat string) (int, int, error) {
	t.Helper()
	p, anchor := Anchored(pat)
	return NewMatcher(env, src, p).Find(0, anchor)
}

func TestFindBasics(t *testing.T) {
	for _, tc := range []struct {
		src, pat   string
		start, end int // 0-based start, end exclusive; -1: no match
		err        string
	}{
		{"THE (quick) fox", "%f[%a]%a+", 0, 3, ""},
		{"THE (quick) fox", "%f[%l]%a+", 5, 10, ""},
		{"hello", "l+", 2, 4, ""},
		{"hello", "^l", -1, -1, ""},
		{"a$b", "$", 3, 3, ""},
		{"f(a(b)c)d", "%b()", 1, 8, ""},
		{"abc", "[a", 0, 0, "malformed pattern (missing ']')"},
		{"abc", "a%", 0, 0, "malformed pattern (ends with '%')"},
		{"abc", "%fa", 0, 0, "missing '[' after '%f' in pattern"},
		{"abc", "a)", 0, 0, "invalid pattern capture"},
		{"abc", "(a)%2", 0, 0, "invalid capture index"},
		{"abc", "%b", 0, 0, "unbalanced pattern"},
		{"abc", strings.Repeat("(", 33) + "a", 0, 0, "too many captures"},
		{"a\x00b", "%z", 1, 2, ""},
		{"xab", "a\x00c", 1, 2, ""}, // the pattern ends at its NUL
		{"aaa", "(a)%1", 0, 2, ""},
		{"a()", "()%1", -1, -1, ""}, // a position capture never matches text
	} {
		s, e, err := find(t, &budget{}, tc.src, tc.pat)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("find(%q, %q): err %v, want %q", tc.src, tc.pat, err, tc.err)
			}
			continue
		}
		if err != nil || s != tc.start || (s >= 0 && e != tc.end) {
			t.Errorf("find(%q, %q) = %d, %d, %v; want %d, %d", tc.src, tc.pat, s, e, err, tc.start, tc.end)
		}
	}
}

// Lua 5.1 recurses once per backtracking item; here the frames are counted
// and the depth is bounded (Redis's C stack gives out at about 175,000).
func TestDepthBound(t *testing.T) {
	for _, tc := range []struct {
		item string
		n    int
		err  error
	}{
		{"a?", 175_000, nil},
		{"a-", 175_000, nil},
		{"a*", 190_000, nil},
		{"a?", MaxDepth, nil}, // MaxDepth frames, the last of which matches ""
		{"a?", MaxDepth + 1, ErrTooComplex},
		{"a-", 1_000_000, ErrTooComplex},
	} {
		env := &budget{}
		src := strings.Repeat("a", tc.n)
		start, end, err := find(t, env, src, strings.Repeat(tc.item, tc.n)+"$")
		if !errors.Is(err, tc.err) || (err == nil && (start != 0 || end != tc.n)) {
			t.Errorf("%q x %d: %d, %d, %v; want 0, %d, %v", tc.item, tc.n, start, end, err, tc.n, tc.err)
		}
		if env.alloc > MaxDepth*frameBytes {
			t.Errorf("%q x %d: charged %d bytes", tc.item, tc.n, env.alloc)
		}
	}
	// The frames are charged before they exist.
	_, _, err := find(t, &budget{maxAlloc: 1 << 20}, strings.Repeat("a", 100_000), strings.Repeat("a?", 100_000))
	if !errors.Is(err, ErrNoMemory) {
		t.Errorf("100,000 frames in 1 MiB: %v", err)
	}
}

// An exponential pattern stops at the first poll after the stop.
func TestStopExponential(t *testing.T) {
	env := &budget{maxPolls: 1000}
	src := strings.Repeat("a", 40)
	start := time.Now()
	_, _, err := find(t, env, src, strings.Repeat("a?", 40)+strings.Repeat("a", 40))
	if !errors.Is(err, errStopped) {
		t.Fatalf("err %v", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("1000 polls took %v", d)
	}
	// Long single loops poll too: a class repeated over 64 MiB, an
	// unbalanced %b.
	big := strings.Repeat("(", 64<<20)
	for _, pat := range []string{"%(*x", "%b()", ".-x"} {
		env := &budget{maxPolls: 10}
		if _, _, err := find(t, env, big, pat); !errors.Is(err, errStopped) {
			t.Errorf("%q on 64 MiB: %v", pat, err)
		}
	}
}

func TestGsub(t *testing.T) {
	addS := func(repl string) func(m *Matcher, b *Buffer, s, e int) error {
		return func(m *Matcher, b *Buffer, s, e int) error { return m.AddString(b, repl, s, e) }
	}
	for _, tc := range []struct {
		src, pat, repl string
		max            int
		want           string
		n              int
		err            string
	}{
		{"hello world", "%w+", "%0 %0", 100, "hello hello world world", 2, ""},
		{"hello world", "%w+", "%0 %0", -1, "hello world", 0, ""},
		{"abc", "", "-", 100, "-a-b-c-", 4, ""},
		{"abc", "a", "%", 100, "\x00bc", 1, ""},
		{"abc", "a", "%x", 100, "xbc", 1, ""},
		{"abc", "(a)", "%2", 100, "", 0, "invalid capture index"},
		{"abc", "()b", "%1", 100, "a2c", 1, ""},
		{"abc", "^a*", "x", 100, "xbc", 1, ""},
		{"abc", "^", "x", 100, "xabc", 1, ""},
	} {
		got, n, err := Gsub(&budget{}, tc.src, tc.pat, tc.max, addS(tc.repl))
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("gsub(%q, %q, %q): err %v, want %q", tc.src, tc.pat, tc.repl, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want || n != tc.n {
			t.Errorf("gsub(%q, %q, %q) = %q, %d, %v; want %q, %d", tc.src, tc.pat, tc.repl, got, n, err, tc.want, tc.n)
		}
	}
	// The output is charged before it grows.
	_, _, err := Gsub(&budget{maxAlloc: 1 << 20}, strings.Repeat("a", 100_000), "a", 1<<30, addS(strings.Repeat("x", 100)))
	if !errors.Is(err, ErrNoMemory) {
		t.Errorf("10 MB of output in 1 MiB: %v", err)
	}
}

// A buffer filled up to the limit grows a few times, not once per write
// (each growth near the limit would copy the whole buffer).
func TestBufferNearLimit(t *testing.T) {
	env := &budget{maxAlloc: 8<<20 + 12345}
	b := NewBuffer(env)
	piece := strings.Repeat("x", 100)
	var err error
	for err == nil {
		err = b.WriteString(piece)
	}
	if !errors.Is(err, ErrNoMemory) || b.Len() < 8<<20+12345-100 {
		t.Fatalf("stopped at %d bytes: %v", b.Len(), err)
	}
	if env.asked > 100 {
		t.Fatalf("%d allocations asked for", env.asked)
	}
}

// FuzzPattern runs any pattern against any subject through find, gsub and
// format's scanner: no panic, no run past a step budget, and the answers
// keep the invariants every match has (bounds, a find agrees with a match
// at its start, gsub with "%0" gives back its subject, a pattern with no
// magic character finds what strings.Index finds). What the answers are is
// checked against Redis by the recorded cases of luaeval (testdata/strlib*).
func FuzzPattern(f *testing.F) {
	for _, s := range [][2]string{
		{"THE (quick) fox", "%f[%a]%a+"}, {"hello world", "(%w+)%s*(%w+)"}, {"f(a(b)c)d", "%b()"},
		{"a=1, b=2", "(%w+)=(%w+)"}, {"aaa", "a-a?a*a+$"}, {"abc", "[^%a-]"}, {"[]", "[]]"}, {"x", "%"},
		{"x", "[a"}, {"x", "%f"}, {"x", "(()"}, {"x", "%1"}, {"a\x00b", "%z+"}, {"aaaa", "^(a)%1(a)%2$"},
		{"  x  ", "^%s*(.-)%s*$"}, {"abc", strings.Repeat("(", 32) + "." + strings.Repeat(")", 32)},
		{strings.Repeat("a", 30), strings.Repeat("a?", 30) + strings.Repeat("a", 30)},
	} {
		f.Add(s[0], s[1], "%0", 1)
	}
	f.Fuzz(func(t *testing.T, src, pat, fs string, init int) {
		if len(src) > 1<<12 || len(pat) > 1<<10 {
			return
		}
		env := &budget{maxPolls: 200, maxAlloc: 64 << 20}
		// A hang is a crash: the step budget must have stopped it long before.
		tm := time.AfterFunc(10*time.Second, func() { panic(fmt.Sprintf("hang: %q %q %q %d", src, pat, fs, init)) })
		defer tm.Stop()
		if init < 0 {
			init = -init
		}
		init %= len(src) + 1
		p, anchor := Anchored(pat)
		m := NewMatcher(env, src, p)
		start, end, err := m.Find(init, anchor)
		if err == nil && start >= 0 {
			if start < init || end < start || end > len(src) || (anchor && start != init) {
				t.Fatalf("find(%q, %q, %d) = %d, %d", src, pat, init, start, end)
			}
			for i := 0; i < m.NumCaptures(true); i++ {
				text, pos, isPos, err := m.Capture(i, start, end)
				if err == nil && (len(text) > len(src) || isPos && (pos < 1 || pos > len(src)+1)) {
					t.Fatalf("capture %d of find(%q, %q): %q %d", i, src, pat, text, pos)
				}
			}
			if e, err := m.Match(start, 0); err == nil && e != end {
				t.Fatalf("find(%q, %q) ends at %d, a match at %d at %d", src, pat, end, start, e)
			}
		}
		if !strings.ContainsAny(pat, "^$*+?.([%-)\x00") { // what str_find_aux would search for plainly, less the ) the matcher rejects
			want := strings.Index(src[init:], pat)
			if want >= 0 {
				want += init
			}
			if err != nil || start != want {
				t.Fatalf("plain %q in %q from %d: %d, %v; strings.Index says %d", pat, src, init, start, err, want)
			}
		}
		env.polls = 0
		got, _, err := Gsub(env, src, pat, len(src)+1, func(m *Matcher, b *Buffer, s, e int) error {
			return m.AddString(b, "%0", s, e)
		})
		if err == nil && got != src {
			t.Fatalf("gsub(%q, %q, '%%0') = %q", src, pat, got)
		}
		for i := 0; i < len(fs); {
			if fs[i] != '%' {
				i++
				continue
			}
			sp, next, err := ScanFormat(fs, i+1)
			if err != nil {
				break
			}
			if next <= i || sp.Width > 99 || sp.Prec > 99 {
				t.Fatalf("ScanFormat(%q, %d) = %+v, %d", fs, i+1, sp, next)
			}
			b := sp.AppendFloat(nil, float64(init)-1e300)
			b = sp.AppendInt(b, float64(init))
			b = sp.AppendUint(b, -float64(init))
			b = sp.AppendChar(b, float64(init))
			if b = sp.AppendString(b, src); len(b) > 4*512+len(src) {
				t.Fatalf("%q: %d bytes", fs, len(b))
			}
			i = next
		}
	})
}

// matchClassC is lstrlib.c's match_class as written there (a switch on
// the lowered class letter over <ctype.h>), the reference for the tables
// matchClass reads.
func matchClassC(c, cl byte) bool {
	var res bool
	switch ToLower(cl) {
	case 'a':
		res = isAlpha(c)
	case 'c':
		res = isCntrl(c)
	case 'd':
		res = isDigit(c)
	case 'l':
		res = isLower(c)
	case 'p':
		res = isPunct(c)
	case 's':
		res = isSpace(c)
	case 'u':
		res = isUpper(c)
	case 'w':
		res = isAlnum(c)
	case 'x':
		res = isXDigit(c)
	case 'z':
		res = c == 0
	default:
		return cl == c
	}
	if isLower(cl) {
		return res
	}
	return !res
}

func TestMatchClassTables(t *testing.T) {
	for cl := range 256 {
		for c := range 256 {
			if got, want := matchClass(byte(c), byte(cl)), matchClassC(byte(c), byte(cl)); got != want {
				t.Fatalf("matchClass(%q, %%%c) = %v, match_class says %v", byte(c), byte(cl), got, want)
			}
		}
	}
}

// TestNextStartAgainstEveryPosition runs generated patterns through Find
// and Gsub with NextStart skipping positions and with every position
// tried (lstrlib.c's way): the same matches, captures, results and errors.
func TestNextStartAgainstEveryPosition(t *testing.T) {
	seed := int64(1)
	if v := os.Getenv("LSTRLIB_SEED"); v != "" {
		seed, _ = strconv.ParseInt(v, 10, 64)
	}
	t.Logf("seed %d (LSTRLIB_SEED=%d reproduces)", seed, seed)
	r := rand.New(rand.NewSource(seed))
	pick := func(xs ...string) string { return xs[r.Intn(len(xs))] }
	subject := func() string {
		var b strings.Builder
		filler := pick("x", " ", "ab", "\x00", "-")
		for n := r.Intn(80); n > 0; n-- {
			if r.Intn(6) == 0 {
				b.WriteString(pick("a", "A", "1", "b2", "(", ")", "%", "$", "^", "]", "\x00", "\xe9", "aa:11", "k=v"))
			} else {
				b.WriteString(filler)
			}
		}
		return b.String()
	}
	pattern := func() string {
		var b strings.Builder
		for n := r.Intn(4); n > 0; n-- {
			b.WriteString(pick("(", "(", "()"))
		}
		b.WriteString(pick("a", "b", "1", ":", "=", "^", "$", "]", ")", "\x00", "\xe9", "%a", "%d", "%w", "%s", "%S", "%A", "%z", "%Z",
			"%.", "%%", "%]", "%", "%b()", "%f[%a]", "%1", ".", "[ab]", "[^a]", "[a", "(", ")"))
		b.WriteString(pick("", "", "+", "+", "*", "?", "-"))
		b.WriteString(pick("", "", ")", "(%d+)", "b-", "%w*", "$", ":(%d+)", "=(%w+)", "%1", "[", ")"))
		return b.String()
	}
	type result struct {
		s, e, n int
		caps    string
		err     string
	}
	run := func(src, pat string, init int, anchor bool) (find, gsub result) {
		env := &budget{maxPolls: 1000, maxAlloc: 1 << 20}
		m := NewMatcher(env, src, pat)
		s, e, err := m.Find(init, anchor)
		find = result{s: s, e: e}
		if err != nil {
			find.err = err.Error()
		} else if s >= 0 {
			for i := 0; i < m.NumCaptures(true); i++ {
				text, pos, isPos, err := m.Capture(i, s, e)
				find.caps += fmt.Sprintf("|%q %d %v %v", text, pos, isPos, err)
			}
		}
		p := pat
		if anchor {
			p = "^" + pat
		}
		res, n, err := Gsub(env, src, p, len(src)+1, func(m *Matcher, b *Buffer, s, e int) error {
			return m.AddString(b, "<%0|%1>", s, e)
		})
		gsub = result{n: n, caps: res}
		if err != nil {
			gsub.err = err.Error()
		}
		return find, gsub
	}
	defer func() { skipStarts = true }()
	for i := 0; i < 20000; i++ {
		src, pat := subject(), pattern()
		init, anchor := r.Intn(len(src)+1), r.Intn(8) == 0
		skipStarts = true
		f1, g1 := run(src, pat, init, anchor)
		skipStarts = false
		f2, g2 := run(src, pat, init, anchor)
		if f1 != f2 || g1 != g2 {
			t.Fatalf("%q in %q from %d (anchor %v):\nskipping  find %+v gsub %+v\nevery pos find %+v gsub %+v", pat, src, init, anchor, f1, g1, f2, g2)
		}
	}
}

// TestScanFormatBareConversion: what strlib's strFormat assumes when it
// does not call ScanFormat for an item that is a bare letter.
func TestScanFormatBareConversion(t *testing.T) {
	for c := range 256 {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			continue
		}
		sp, next, err := ScanFormat("%"+string(rune(c))+"x", 1)
		if want := (Spec{Width: -1, Prec: -1, Conv: byte(c)}); err != nil || next != 2 || sp != want {
			t.Fatalf("ScanFormat(%%%c) = %+v, %d, %v; want %+v, 2", c, sp, next, err, want)
		}
	}
}

// TestNextStartStops: a search that skips through a long subject polls as
// it goes, so a stopped script leaves it (a literal and a class first).
func TestNextStartStops(t *testing.T) {
	src := strings.Repeat("x", 1<<20)
	for _, pat := range []string{"y", "(%d+)", "%.a"} {
		env := &budget{maxPolls: 3}
		_, _, err := NewMatcher(env, src, pat).Find(0, false)
		if err != errStopped || env.polls > 4 {
			t.Errorf("find %q: %v after %d polls, want it stopped at the fourth", pat, err, env.polls)
		}
		env = &budget{maxPolls: 3}
		if _, _, err := Gsub(env, src, pat, len(src)+1, func(m *Matcher, b *Buffer, s, e int) error { return nil }); err != errStopped {
			t.Errorf("gsub %q: %v, want it stopped", pat, err)
		}
	}
}
