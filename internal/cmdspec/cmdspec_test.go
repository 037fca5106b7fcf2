package cmdspec

import (
	"slices"
	"strings"
	"testing"

	"github.com/minilock/minilock/resp"
)

var (
	rangeSpec   = KeySpec{Flags: KeyRW, BeginSearch: BeginIndex, Index: 1, FindKeys: FindRange, LastKey: -1, KeyStep: 2}  // MSET
	keynumSpec  = KeySpec{Flags: KeyRO, BeginSearch: BeginIndex, Index: 2, FindKeys: FindKeynum, FirstKey: 1, KeyStep: 1} // EVAL
	keywordSpec = KeySpec{Flags: KeyRO, BeginSearch: BeginKeyword, Keyword: "STREAMS", StartFrom: 1, FindKeys: FindRange, LastKey: -1, KeyStep: 1, Limit: 2}
)

// KeysBySpecs reads positions the way db.c's getKeysUsingKeySpecs does.
func TestKeysBySpecs(t *testing.T) {
	for _, c := range []struct {
		specs []KeySpec
		argv  string
		want  []int // nil: the specs cannot read argv
	}{
		{[]KeySpec{rangeSpec}, "MSET a 1 b 2", []int{1, 3}},
		{[]KeySpec{rangeSpec}, "MSET", nil},
		{[]KeySpec{keynumSpec}, "EVAL s 2 a b c", []int{3, 4}},
		{[]KeySpec{keynumSpec}, "EVAL s 0", nil}, // no keys is out of bounds: EVAL is no_mandatory_keys
		{[]KeySpec{keynumSpec}, "EVAL s x a", nil},
		{[]KeySpec{keynumSpec}, "EVAL s -1", nil},
		{[]KeySpec{keynumSpec}, "EVAL s 3 a", nil},
		{[]KeySpec{keywordSpec}, "XREAD COUNT 1 streams a b 0 0", []int{4, 5}},
		{[]KeySpec{keywordSpec}, "XREAD COUNT 1", []int{}}, // no keyword: this spec names nothing
		{[]KeySpec{{Flags: KeyNotKey, BeginSearch: BeginIndex, Index: 1, FindKeys: FindRange}}, "PUBLISH ch m", []int{}},
		{[]KeySpec{{BeginSearch: BeginUnknown}}, "X a", nil},
		{[]KeySpec{{Flags: KeyIncomplete, BeginSearch: BeginIndex, Index: 1, FindKeys: FindRange}}, "X a", nil},
		{[]KeySpec{{BeginSearch: BeginIndex, Index: 1, FindKeys: FindRange, LastKey: -1}}, "X a b", []int{1, 2}}, // keystep 0 loops no more than once per key
	} {
		cmd := &Command{KeySpecs: c.specs}
		var argv [][]byte
		for _, a := range strings.Fields(c.argv) {
			argv = append(argv, []byte(a))
		}
		keys, ok := cmd.KeysBySpecs(argv)
		if c.want == nil {
			if ok {
				t.Errorf("%s: read %v, want no reading", c.argv, keys)
			}
			continue
		}
		got := []int{}
		for _, k := range keys {
			got = append(got, k.Pos)
		}
		if !ok || !slices.Equal(got, c.want) {
			t.Errorf("%s: keys %v (%v), want %v", c.argv, got, ok, c.want)
		}
	}
}

func TestHasKeys(t *testing.T) {
	if (&Command{}).HasKeys() || (&Command{KeySpecs: []KeySpec{{Flags: KeyNotKey}}}).HasKeys() {
		t.Error("a command without key specs, or with only not_key ones, has keys")
	}
	if !(&Command{KeySpecs: []KeySpec{{Flags: KeyNotKey}, rangeSpec}}).HasKeys() {
		t.Error("MSET has no keys")
	}
}

// Flags are written in Redis's order whatever the order of the bits, as a
// set in RESP3 and an array in RESP2.
func TestWriteKeyFlags(t *testing.T) {
	for proto, want := range map[int]string{2: "*3\r\n+RW\r\n+access\r\n+update\r\n", 3: "~3\r\n+RW\r\n+access\r\n+update\r\n"} {
		w := resp.Writer{Proto: proto}
		WriteKeyFlags(&w, KeyUpdate|KeyAccess|KeyRW)
		if string(w.B) != want {
			t.Errorf("RESP%d: %q, want %q", proto, w.B, want)
		}
	}
	if f, ok := Lookup(FlagNames, "may_replicate"); ok {
		t.Errorf("may_replicate is shown as %b: Redis hides it", f)
	}
	if f, ok := Lookup(ACLNames, "sortedset"); !ok || f != ACLSortedSet {
		t.Error("no @sortedset")
	}
}
