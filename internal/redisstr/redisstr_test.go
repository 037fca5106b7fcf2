package redisstr

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

func TestParseInt(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true},
		{"1", 1, true},
		{"-1", -1, true},
		{"9223372036854775807", 9223372036854775807, true},
		{"-9223372036854775808", -9223372036854775808, true},
		{"9223372036854775808", 0, false},
		{"-9223372036854775809", 0, false},
		{"18446744073709551616", 0, false},
		{"100000000000000000000", 0, false}, // 21 bytes
		{"", 0, false},
		{"-", 0, false},
		{"+1", 0, false},
		{"01", 0, false},
		{"00", 0, false},
		{"-0", 0, false},
		{" 1", 0, false},
		{"1 ", 0, false},
		{"1.0", 0, false},
		{"1\x00", 0, false},
	}
	for _, tt := range tests {
		got, ok := ParseInt([]byte(tt.in))
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseInt(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestParseIntTable(t *testing.T) {
	good := map[string]int64{
		"0": 0, "1": 1, "-1": -1, "2147483647": 2147483647,
		"9223372036854775807": 9223372036854775807, "-9223372036854775808": -9223372036854775808,
	}
	for s, want := range good {
		if got, ok := ParseInt([]byte(s)); !ok || got != want {
			t.Errorf("ParseInt(%q) = %d, %v; want %d", s, got, ok, want)
		}
	}
	for _, s := range []string{"", "-", "+1", "01", "-0", "-01", " 1", "1 ", "1a", "0x1",
		"9223372036854775808", "-9223372036854775809", "18446744073709551616", "99999999999999999999",
		"000000000000000000001"} {
		if got, ok := ParseInt([]byte(s)); ok {
			t.Errorf("ParseInt(%q) = %d, want not a number", s, got)
		}
	}
}

// ParseInt accepts exactly the canonical decimal forms of int64 (what
// strconv.FormatInt prints), which is string2ll's rule.
func FuzzParseInt(f *testing.F) {
	for _, s := range []string{"0", "-1", "01", "-0", "+1", "9223372036854775807", "-9223372036854775808", "9223372036854775808", " 1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := ParseInt([]byte(s))
		want, err := strconv.ParseInt(s, 10, 64)
		canonical := err == nil && strconv.FormatInt(want, 10) == s
		if ok != canonical || ok && got != want {
			t.Fatalf("ParseInt(%q) = %d, %v; canonical %v (%d)", s, got, ok, canonical, want)
		}
	})
}

// Split and SplitInto agree, and SplitInto never panics on any line.
func FuzzSplit(f *testing.F) {
	for _, s := range []string{`a b`, `"a b" 'c'`, `"\x41\n"`, `"unterminated`, `'x'y`, "a\x00b", "\t\v\f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		words, ok := Split(s)
		buf, ends, ok2 := SplitInto(nil, nil, []byte(s))
		if ok != ok2 || ok && len(words) != len(ends) {
			t.Fatalf("Split(%q) = %q, %v; SplitInto: %d words, %v", s, words, ok, len(ends), ok2)
		}
		start := 0
		for i, end := range ends {
			if ok && words[i] != string(buf[start:end]) {
				t.Fatalf("word %d: %q vs %q", i, words[i], buf[start:end])
			}
			start = end
		}
	})
}

// FuzzScanNumber checks ScanNumber's integer fast path against its general
// path: whatever scanInteger accepts, scanFloat reads the same way, to the
// bit (so "-0" stays negative zero); and the case folding of inf, nan and
// 0x against strings.ToLower, which it replaced.
func FuzzScanNumber(f *testing.F) {
	for _, s := range []string{"5", "-0", "+12", "123456789012345", "1234567890123456", "0x10", "1.5", "1e3", "-", "", "12abc", "inf", "NaN", "0X1P3", "InFiNiTy"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, p := range []string{"infinity", "inf", "nan", "0x"} {
			if got, want := hasPrefixFold(s, p), strings.HasPrefix(strings.ToLower(s), p); got != want {
				t.Fatalf("hasPrefixFold(%q, %q) = %v, strings.ToLower says %v", s, p, got, want)
			}
		}
		n, v := ScanNumber(s)
		gn, gv := scanFloat(s)
		if n != gn || math.Float64bits(v) != math.Float64bits(gv) && !(v != v && gv != gv) {
			t.Fatalf("ScanNumber(%q) = %d, %v; the general path reads %d, %v", s, n, v, gn, gv)
		}
	})
}
