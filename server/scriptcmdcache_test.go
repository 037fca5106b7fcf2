package server

import (
	"math/rand"
	"slices"
	"testing"
)

// TestScriptCmdCacheMatchesFind: the scripts' command cache answers what
// the command table does for every spelling, whatever it held before:
// every command name in random case, interleaved with unknown and too
// long names, in a seeded random order long enough to fill and overwrite
// every slot many times.
func TestScriptCmdCacheMatchesFind(t *testing.T) {
	var names []string
	for n := range commands {
		names = append(names, n)
	}
	slices.Sort(names)
	names = append(names, "nosuchcommand", "get ", "", "x", "a-name-longer-than-the-24-bytes-find-reads", "GETT", "ge")
	rng := rand.New(rand.NewSource(26))
	var cc cmdCache
	for i := 0; i < 200000; i++ {
		b := []byte(names[rng.Intn(len(names))])
		for j := range b {
			if rng.Intn(2) == 0 && 'a' <= b[j] && b[j] <= 'z' {
				b[j] -= 'a' - 'A'
			}
		}
		got, want := cc.find(b), find(commands, b)
		if got != want {
			t.Fatalf("step %d: find(%q) through the cache = %v, want %v", i, b, got, want)
		}
		// The cache keeps its own copy of the spelling: the caller's
		// buffer is reused for the next call's arguments.
		for j := range b {
			b[j] = '#'
		}
	}
}
