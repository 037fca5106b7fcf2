package acl

import (
	"strings"
	"testing"

	"github.com/minilock/minilock/internal/cmdspec"
)

func testTable() *Table {
	return NewTable([]*Command{
		{Name: "get", Cats: cmdspec.ACLRead | cmdspec.ACLString | cmdspec.ACLFast},
		{Name: "set", Cats: cmdspec.ACLWrite | cmdspec.ACLString | cmdspec.ACLSlow},
		{Name: "auth", Cats: cmdspec.ACLConnection | cmdspec.ACLFast, NoAuth: true},
		{Name: "client", Cats: cmdspec.ACLSlow, Subs: []*Command{
			{Name: "client|list", Cats: cmdspec.ACLAdmin | cmdspec.ACLSlow | cmdspec.ACLDangerous},
			{Name: "client|id", Cats: cmdspec.ACLSlow | cmdspec.ACLConnection},
		}},
	})
}

func TestRulesRendered(t *testing.T) {
	for _, tc := range []struct{ rules, want string }{
		{"", "off resetchannels -@all"},
		{"on nopass ~* &* +@all", "on nopass ~* &* +@all"},
		// In this small table SET is all of @write, so the category wins.
		{"+@all -set", "off resetchannels +@all -@write"},
		{"+get +set", "off resetchannels -@all +@string"},
		{"+client -client|list %R~a %W~b %RW~c ~c", "off %R~a %W~b ~c resetchannels -@all +client -client|list"},
		{"+select|0 (+get ~x) reset", "off sanitize-payload resetchannels -@all"},
		{">pw (+get ~x)", "off #30c952fab122c3f9759f02a6d95c3758b246b4fee239957b2d4fee46e26170c4 resetchannels -@all (~x resetchannels -@all +@read)"},
	} {
		u := NewUser(testTable(), "u")
		for _, r := range splitRules(tc.rules) {
			if err := u.Set(r); err != nil && r != "+select|0" {
				t.Fatalf("%q: %q: %v", tc.rules, r, err)
			}
		}
		if got := u.Describe(); got != tc.want {
			t.Errorf("%q: %q, want %q", tc.rules, got, tc.want)
		}
	}
}

func splitRules(s string) []string {
	merged, _, _ := MergeSelectors(strings.Fields(s))
	return merged
}

func TestCheck(t *testing.T) {
	tb := testTable()
	u := NewUser(tb, "u")
	for _, r := range []string{"on", "+get", "+set", "%R~r*", "~a*", "(+client|id)"} {
		if err := u.Set(r); err != nil {
			t.Fatal(err)
		}
	}
	keysAt1 := func(f cmdspec.KeyFlags) func([]cmdspec.KeyRef, [][]byte) []cmdspec.KeyRef {
		return func(dst []cmdspec.KeyRef, _ [][]byte) []cmdspec.KeyRef {
			return append(dst, cmdspec.KeyRef{Pos: 1, Flags: f})
		}
	}
	tb.Lookup("get").KeysOf = keysAt1(cmdspec.KeyRO | cmdspec.KeyAccess)
	tb.Lookup("set").KeysOf = keysAt1(cmdspec.KeyRW | cmdspec.KeyUpdate)
	for _, tc := range []struct {
		cmd  string
		argv []string
		want Result
	}{
		{"get", []string{"get", "a1"}, OK}, {"get", []string{"get", "r1"}, OK}, {"get", []string{"get", "b"}, DeniedKey},
		{"set", []string{"set", "a1"}, OK}, {"set", []string{"set", "r1"}, DeniedKey},
		{"client|id", []string{"client", "id"}, OK}, {"client|list", []string{"client", "list"}, DeniedCmd},
		{"auth", []string{"auth", "x"}, OK},
	} {
		argv := make([][]byte, len(tc.argv))
		for i, a := range tc.argv {
			argv[i] = []byte(a)
		}
		if got, _ := u.Check(tb.Lookup(tc.cmd), &Args{Argv: argv}); got != tc.want {
			t.Errorf("%q: %v, want %v", tc.argv, got, tc.want)
		}
	}
}

// FuzzSetUser applies arbitrary rules: an error or a user, never a panic,
// and the user's rules render.
func FuzzSetUser(f *testing.F) {
	for _, s := range []string{"on", "%RW~a*", "(+get ~x", "+client|list|x", "#abc", "<x", "&*", "%~", "%", "+", "-@", "(", "()", "reset"} {
		f.Add(s)
	}
	tb := testTable()
	f.Fuzz(func(t *testing.T, rule string) {
		u := NewUser(tb, "u")
		for _, r := range splitRules(rule) {
			_ = u.Set(r)
		}
		_ = u.Describe()
		_, _ = u.Check(tb.Lookup("get"), &Args{Argv: [][]byte{[]byte("get")}})
	})
}
