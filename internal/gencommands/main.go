// Command gencommands writes minilock's command metadata table: for every
// command in server/commands.go's table, what redis-server 7.0.15 answers
// to COMMAND INFO and COMMAND DOCS (arity, flags, ACL categories, key
// specs, tips, docs, and all of a container's subcommands), read into
// cmdspec's typed structs and written as Go source. server/commands.go
// names it for go generate:
//
//	cd server && go generate   # starts redis-server 7.0.15 on a free port
//	go run ./internal/gencommands -table server/commands.go -out server/commandspec_gen.go [-addr host:port]
//
// Before it writes, it renders every entry back with cmdspec in RESP2 and
// RESP3 and checks the bytes against Redis's replies, so the table cannot
// drop or reorder anything a client sees. Subcommands are sorted by name:
// Redis lists them in the order of a hash table it seeds at random.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"

	"github.com/minilock/minilock/internal/redistest"
)

// version is the Redis whose metadata minilock answers with.
const version = "7.0.15"

func main() {
	addr := flag.String("addr", "", "redis-server "+version+" to ask (default: start one on a free port)")
	table := flag.String("table", "commands.go", "the Go file holding minilock's command table")
	out := flag.String("out", "commandspec_gen.go", "file to write")
	flag.Parse()
	if err := run(*addr, *table, *out); err != nil {
		log.Fatal(err)
	}
}

// run is main with its cleanups (the redis-server it started) done before
// the exit.
func run(addr, table, out string) error {
	names, err := tableNames(table)
	if err != nil {
		return err
	}
	if addr == "" {
		bin, err := exec.LookPath(redistest.Binary)
		if err != nil {
			return fmt.Errorf("%v: install redis-server %s or pass -addr", err, version)
		}
		dir, err := os.MkdirTemp("", "gencommands")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		srv, err := redistest.Launch(bin, dir)
		if err != nil {
			return err
		}
		defer srv.Stop()
		addr = srv.Addr
	}
	src, err := generate(addr, names)
	if err != nil {
		return err
	}
	if old, err := os.ReadFile(out); err == nil && bytes.Equal(old, src) {
		fmt.Println(out, "is up to date")
		return nil
	}
	if err := os.WriteFile(out, src, 0o644); err != nil {
		return err
	}
	fmt.Printf("wrote %s: %d commands (%s ... %s)\n", out, len(names), names[0], names[len(names)-1])
	return nil
}

// generate asks the redis-server at addr for names' metadata and returns
// the Go source of the table.
func generate(addr string, names []string) ([]byte, error) {
	conn, err := redistest.DialAddr(addr)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	info, err := conn.Do("INFO", "server")
	if err != nil {
		return nil, err
	}
	if !bytes.Contains(info, []byte("redis_version:"+version+"\r\n")) {
		return nil, fmt.Errorf("the server at %s is not redis-server %s", addr, version)
	}
	cmds, err := capture(conn, names)
	if err != nil {
		return nil, err
	}
	return emit(cmds)
}
