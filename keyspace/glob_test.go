package keyspace

import (
	"strings"
	"testing"
)

func TestMatch(t *testing.T) {
	tests := []struct {
		pattern, s string
		want       bool
	}{
		// The empty string matches only the empty pattern: Redis's loop
		// stops with the string (KEYS and SCAN answer "*" without it).
		{"*", "", false},
		{"**", "", false},
		{"*", "abc", true},
		{"", "", true},
		{"", "a", false},
		{"a", "", false},
		{"abc", "abc", true},
		{"abc", "abd", false},
		{"a?c", "abc", true},
		{"a?c", "ac", false},
		{"?", "", false},
		{"a*", "a", true},
		{"a**b", "axxb", true},
		{"*b*c*", "abc", true},
		{"a*b*c*d", "abc", false},

		// Classes, negation, ranges (reversed ones too).
		{"h[ae]llo", "hello", true},
		{"h[ae]llo", "hillo", false},
		{"h[^ae]llo", "hillo", true},
		{"h[^ae]llo", "hallo", false},
		{"h[a-c]llo", "hbllo", true},
		{"h[c-a]llo", "hbllo", true},
		{"h[c-a]llo", "hdllo", false},
		{"[a-]", "-", false}, // a range from 'a' to ']', unterminated
		{"[a-]", "a", true},
		{"[a-]", "]", true},
		{"[-z]", "-", true},
		{"[]a]", "]", false}, // ']' closes the (empty) class at once
		{"[]a]", "a", false},
		{"[]", "", false},
		{"a[]b", "ab", false},

		// Escapes, in and out of classes.
		{`a\*b`, "a*b", true},
		{`a\*b`, "axb", false},
		{`\a\b`, "ab", true},
		{`[\]]`, "]", true},
		{`[\\]`, `\`, true},
		{`a\`, `a\`, true}, // a final backslash is a plain character
		{`a\`, "a", false},

		// An unterminated class ends the pattern where it is.
		{"h[ab", "ha", true},
		{"h[ab", "h[ab", false},
		{"h[", "h", false},
		{"h[^a", "hb", true},

		// Bytes compare as C's signed chars do in ranges: \xff is -1.
		{"[a-\xff]", "a", true},
		{"[a-\xff]", "\x00", true},
		{"[a-\xff]", "b", false},
		{"[a-\xff]", "\x80", false},
		{"[\x80-\x81]", "\x80", true},

		// Binary strings.
		{"a?b", "a\x00b", true},
		{"a\x00*", "a\x00b", true},
	}
	for _, tt := range tests {
		if got := Match([]byte(tt.pattern), tt.s); got != tt.want {
			t.Errorf("Match(%q, %q) = %v, want %v", tt.pattern, tt.s, got, tt.want)
		}
	}
}

// TestMatchNesting checks Redis's bound on '*' recursion (CVE-2024-31228):
// more than 1000 nested '*' match nothing, even when the pattern would.
func TestMatchNesting(t *testing.T) {
	s := strings.Repeat("a", 1200)
	tests := []struct {
		pattern string
		want    bool
	}{
		{strings.Repeat("a*", 1000) + "a", true},
		{strings.Repeat("a*", 1001) + "a", false},
		{strings.Repeat("*a", 1000), true},
		{strings.Repeat("*a", 1001), false},
		{strings.Repeat("a**", 1001) + "a", false}, // consecutive stars count once
		{strings.Repeat("*", 5000) + "a", true},
		{strings.Repeat("a?", 600), true},
	}
	for _, tt := range tests {
		if got := Match([]byte(tt.pattern), s); got != tt.want {
			t.Errorf("Match(%d-byte pattern %.12q...) = %v, want %v", len(tt.pattern), tt.pattern, got, tt.want)
		}
	}
}

// TestMatchBacktracking checks that a pattern that cannot match fails fast
// (Redis's skipLongerMatches, CVE-2022-36021) instead of trying every split.
func TestMatchBacktracking(t *testing.T) {
	s := strings.Repeat("a", 60) + "b"
	p := strings.Repeat("a*", 30) + "c"
	if Match([]byte(p), s) {
		t.Fatal("matched")
	}
}

func FuzzMatch(f *testing.F) {
	for _, seed := range []string{"*", "h[a-c]llo", `a\*b`, "[^]", "[", `[\`, "**a**", "?*?"} {
		f.Add(seed, "hello")
	}
	f.Fuzz(func(t *testing.T, pattern, s string) {
		Match([]byte(pattern), s) // must neither panic nor hang
		if s != "" && !Match([]byte("*"), s) {
			t.Fatal("* must match every non-empty string")
		}
		if !strings.ContainsAny(s, `*?[]\`) && !Match([]byte(s), s) {
			t.Fatalf("a plain string must match itself: %q", s)
		}
	})
}
