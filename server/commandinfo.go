package server

import (
	"sort"
	"strings"

	"github.com/minilock/minilock/internal/cmdspec"
	"github.com/minilock/minilock/resp"
)

// COMMAND, COMMAND COUNT, INFO and DOCS (server.c), written from the
// commands' metadata (commandspec_gen.go) for the commands minilock has.
// A container's entry lists all of Redis's subcommands, as Redis's does;
// COMMAND INFO and DOCS answer for "container|sub" only when minilock has
// that subcommand.

// specOf is the metadata COMMAND INFO and DOCS answer with for name (lower
// case), "container|sub" for a subcommand (server.c:lookupCommandBySds),
// or nil for a command minilock does not have.
func specOf(name string) *cmdspec.Command {
	if cmd := commands[name]; cmd != nil {
		return cmd.spec
	}
	parent, sub, ok := strings.Cut(name, "|")
	if !ok || commands[parent] == nil {
		return nil
	}
	if cmd := commands[parent].subIndex[sub]; cmd != nil {
		return cmd.spec
	}
	return nil
}

// commandNames returns the names of the top-level commands, sorted.
func commandNames() []string {
	names := make([]string, 0, len(commands))
	for name := range commands {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// COMMAND: every command's COMMAND INFO entry.
func cmdCommandAll(x *call, args [][]byte) error {
	if len(args) > 1 {
		// Reached only for a known subcommand with a bad arity, which
		// lookup has already answered; kept for safety.
		return resp.ErrWrongArgs("command")
	}
	names := commandNames()
	x.W.Array(len(names))
	for _, name := range names {
		commands[name].spec.WriteInfo(x.W)
	}
	return nil
}

// COMMAND COUNT
func cmdCommandCount(x *call, args [][]byte) error {
	x.W.Int(int64(len(commands)))
	return nil
}

// COMMAND INFO [name ...]: null for a command minilock does not have.
func cmdCommandInfo(x *call, args [][]byte) error {
	if len(args) == 2 {
		return cmdCommandAll(x, args[:1])
	}
	x.W.Array(len(args) - 2)
	for _, a := range args[2:] {
		if sp := specOf(strings.ToLower(string(a))); sp != nil {
			sp.WriteInfo(x.W)
		} else {
			x.W.Null()
		}
	}
	return nil
}

// COMMAND DOCS [name ...]: a map of the named (or all) commands' docs.
func cmdCommandDocs(x *call, args [][]byte) error {
	var specs []*cmdspec.Command
	if len(args) > 2 {
		for _, a := range args[2:] {
			// Named twice, a command is answered twice, as in Redis.
			if sp := specOf(strings.ToLower(string(a))); sp != nil {
				specs = append(specs, sp)
			}
		}
	} else {
		for _, name := range commandNames() {
			specs = append(specs, commands[name].spec)
		}
	}
	x.W.Map(len(specs))
	for _, sp := range specs {
		x.W.BulkString(sp.Name)
		sp.WriteDocs(x.W)
	}
	return nil
}
