package diff_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/minilock/minilock/internal/redistest"
	"github.com/minilock/minilock/server"
)

// TestDiffACLFile starts both servers on an aclfile with the same users and
// compares ACL LIST, ACL SAVE's file, ACL LOAD of a malformed file (its
// errors, the file's path masked) and of a good one, which disconnects the
// clients of the users it replaces.
func TestDiffACLFile(t *testing.T) {
	redistest.Require(t)
	const users = "user default on nopass ~* &* +@all\n" +
		"user svc on #" + "5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8" + " ~svc:* %R~cfg:* resetchannels &svc:* -@all +@read +set (+get ~x*)\n" +
		"user ro   off  nopass ~* -@all +@read\n"
	dirs := [2]string{t.TempDir(), t.TempDir()}
	for _, d := range dirs {
		if err := os.WriteFile(filepath.Join(d, "users.acl"), []byte(users), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rs := redistest.Start(t, "--aclfile", filepath.Join(dirs[0], "users.acl"))
	ms := server.RunT(t, server.Config{Params: [][2]string{{"aclfile", filepath.Join(dirs[1], "users.acl")}}})
	p := &pair{ends: [2]endpoint{{name: "redis", addr: rs.Addr}, {name: "minilock", addr: ms.Addr()}}}
	for i := range p.ends {
		p.ends[i].admin = redistest.Dial(t, p.ends[i].addr)
	}
	pathMasked := &normalizer{"aclfile path masked", func(b []byte) ([]byte, bool) {
		s := string(b)
		for _, d := range dirs {
			s = strings.ReplaceAll(s, d, "DIR")
		}
		return []byte(s), true
	}}
	write := func(content string) {
		for _, d := range dirs {
			if err := os.WriteFile(filepath.Join(d, "users.acl"), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	read := func() [2]string {
		var out [2]string
		for i, d := range dirs {
			b, err := os.ReadFile(filepath.Join(d, "users.acl"))
			if err != nil {
				t.Fatal(err)
			}
			out[i] = sortRuleRuns(string(b))
		}
		return out
	}
	p.run(t, tc("startup users", rules("ACL", "LIST"), c("AUTH svc password"), c("SET svc:a 1"), c("GET x1"), c("DEL svc:a"), c("ACL WHOAMI")))
	p.run(t, tc("save", c("ACL SETUSER new on >pw ~n* +@all -@dangerous"), c("ACL SAVE")))
	if f := read(); f[0] != f[1] {
		t.Errorf("ACL SAVE wrote\nredis:    %q\nminilock: %q", f[0], f[1])
	}
	write("user default on nopass ~* &* +@all\nnot a user line\nuser bad on +nosuch ~a\nuser bad2 %X~a\nuser a b c\nuser dup on\nuser dup off\n")
	p.run(t, tc("load errors", c("ACL LOAD").with(pathMasked), rules("ACL", "LIST")))
	write("user default on nopass ~* &* +@all\nuser svc on nopass ~* +@all\n")
	p.run(t, tc("load", c("AUTH svc password").on(1), c("PING").on(1), c("ACL LOAD"), rules("ACL", "LIST"), c("PING").on(1).eof()))
	if err := os.Remove(filepath.Join(dirs[0], "users.acl")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dirs[1], "users.acl")); err != nil {
		t.Fatal(err)
	}
	p.run(t, tc("load missing", c("ACL LOAD").with(pathMasked)))
}
