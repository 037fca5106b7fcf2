package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/minilock/minilock/internal/redistest"
)

// The committed table is what the generator writes today from the
// server's command table and redis-server 7.0.15: nobody edited it by hand,
// and no row was added to the table without go generate.
func TestCommittedTableIsFresh(t *testing.T) {
	srv := redistest.Start(t)
	names, err := tableNames(filepath.Join("..", "..", "server", "commands.go"))
	if err != nil {
		t.Fatal(err)
	}
	src, err := generate(srv.Addr, names)
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile(filepath.Join("..", "..", "server", "commandspec_gen.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(src, committed) {
		t.Errorf("server/commandspec_gen.go is stale: run go generate in server/")
	}
}

func TestTableNames(t *testing.T) {
	path := filepath.Join(t.TempDir(), "commands.go")
	src := `package server
var other = []*command{{name: "nope"}}
var commandTable = []*command{
	{name: "set", run: cmdSet},
	{name: "client", subs: []*command{{name: "id", run: cmdClientID}}},
	{name: "get", run: cmdGet},
}`
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	names, err := tableNames(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"client", "get", "set"}; !slices.Equal(names, want) {
		t.Errorf("names %v, want %v", names, want)
	}
	os.WriteFile(path, []byte("package server\nvar commandTable = []*command{}\n"), 0o644)
	if _, err := tableNames(path); err == nil {
		t.Error("an empty table was accepted")
	}
}

// What cmdspec cannot represent stops the generator instead of being
// dropped from the table.
func TestReadRejectsWhatCmdspecLacks(t *testing.T) {
	info := func(flags string) string {
		return "*10\r\n$3\r\nget\r\n:2\r\n" + flags + ":1\r\n:1\r\n:1\r\n~1\r\n+@read\r\n~0\r\n~0\r\n~0\r\n"
	}
	docs := "%1\r\n$5\r\ngroup\r\n$6\r\nstring\r\n"
	for _, c := range []struct{ info, docs, want string }{
		{info("~1\r\n+readonly\r\n"), docs, ""},
		{info("~1\r\n+teleport\r\n"), docs, `flag "teleport" is new`},
		{info("~1\r\n+readonly\r\n"), "%1\r\n$5\r\nmagic\r\n$1\r\nx\r\n", `field "magic" is new`},
		{info("~1\r\n+readonly\r\n"), "%1\r\n$7\r\nsummary\r\n$0\r\n\r\n", "empty"},
		{info("~1\r\n+readonly\r\n"), "%1\r\n$9\r\narguments\r\n*1\r\n%2\r\n$4\r\nname\r\n$1\r\nk\r\n$4\r\ntype\r\n$3\r\nkey\r\n", "key_spec_index -1"},
		{"*3\r\n$3\r\nget\r\n:2\r\n~0\r\n", docs, "3 elements"},
	} {
		cmd, err := readCommand([]byte(c.info), []byte(c.docs))
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: %v", c.info, err)
		case c.want == "" && (cmd.Name != "get" || cmd.Arity != 2 || cmd.Docs.Group != "string"):
			t.Errorf("read %+v", cmd)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%q %q: error %v, want %q", c.info, c.docs, err, c.want)
		}
	}
}
