package cmdargs

import (
	"fmt"
	"strings"
	"testing"

	"github.com/minilock/minilock/resp"
)

func TestMPop(t *testing.T) {
	for _, tc := range []struct {
		args string // from numkeys on
		want string // keys|second|count, or the error
	}{
		{"1 k left", "k|false|1"},
		{"2 a b RIGHT COUNT 5", "a b|true|5"},
		{"1 k left count 0", resp.Text(ErrCountPositive)},
		{"1 k left count x", resp.Text(ErrCountPositive)},
		{"1 k left count 2 count 3", resp.Text(resp.ErrSyntax)},
		{"0 k left", resp.Text(ErrNumKeysPositive)},
		{"x k left", resp.Text(ErrNumKeysPositive)},
		{"3 a b left", resp.Text(resp.ErrSyntax)},
		{"1 k middle", resp.Text(resp.ErrSyntax)},
		{"9223372036854775807 k left", resp.Text(resp.ErrSyntax)},
		{"1 k left count", resp.Text(resp.ErrSyntax)},
	} {
		var args [][]byte
		for _, a := range strings.Fields(tc.args) {
			args = append(args, []byte(a))
		}
		keys, second, count, err := MPop(args, 0, "left", "right")
		got := ""
		if err != nil {
			got = resp.Text(err)
		} else {
			got = fmt.Sprintf("%s|%v|%d", strings.Join(strings.Fields(fmt.Sprintf("%s", keys)), " "), second, count)
			got = strings.NewReplacer("[", "", "]", "").Replace(got)
		}
		if got != tc.want {
			t.Errorf("MPop(%q) = %q, want %q", tc.args, got, tc.want)
		}
	}
}

func TestListEnd(t *testing.T) {
	for in, want := range map[string]string{"LEFT": "true", "right": "false", "up": resp.Text(resp.ErrSyntax)} {
		front, err := ListEnd([]byte(in))
		got := fmt.Sprint(front)
		if err != nil {
			got = resp.Text(err)
		}
		if got != want {
			t.Errorf("ListEnd(%q) = %s, want %s", in, got, want)
		}
	}
}
