package server

import (
	"bytes"
	"strings"

	"github.com/minilock/minilock/internal/cmdspec"
	"github.com/minilock/minilock/internal/redisstr"
	"github.com/minilock/minilock/keyspace"
	"github.com/minilock/minilock/resp"
)

// COMMAND GETKEYS, GETKEYSANDFLAGS and LIST FILTERBY, read from the key
// specs, flags and ACL categories of the commands' metadata
// (commandspec_gen.go), with cmdspec's port of db.c's getKeysUsingKeySpecs
// walking the specs. Of the commands minilock has, only SET's spec carries
// VARIABLE_FLAGS; Redis answers it with setGetKeys, and so does this.
// SORT's and SORT_RO's specs are incomplete (the keys BY and GET read
// come from the data): Redis answers them with sortGetKeys and
// sortROGetKeys, and so does this.

// setKeys is t_string.c's setGetKeys: SET's key is read only with GET.
func setKeys(argv [][]byte) []cmdspec.KeyRef {
	for _, a := range argv[3:] {
		if redisstr.Option(a, "get") {
			return []cmdspec.KeyRef{{Pos: 1, Flags: cmdspec.KeyRW | cmdspec.KeyAccess | cmdspec.KeyUpdate}}
		}
	}
	return []cmdspec.KeyRef{{Pos: 1, Flags: cmdspec.KeyOW | cmdspec.KeyUpdate}}
}

// sortKeys is db.c's sortGetKeys: the sorted key, and the last STORE's
// destination, found by skipping the options' arguments as Redis does
// (an unknown word is taken to have none).
func sortKeys(argv [][]byte) []cmdspec.KeyRef {
	keys := []cmdspec.KeyRef{{Pos: 1, Flags: cmdspec.KeyRO | cmdspec.KeyAccess}}
	store := 0
	for i := 2; i < len(argv); i++ {
		switch {
		case redisstr.Option(argv[i], "limit"):
			i += 2
		case redisstr.Option(argv[i], "get"), redisstr.Option(argv[i], "by"):
			i++
		case redisstr.Option(argv[i], "store") && i+1 < len(argv):
			store = i + 1
		}
	}
	if store > 0 {
		keys = append(keys, cmdspec.KeyRef{Pos: store, Flags: cmdspec.KeyOW | cmdspec.KeyUpdate})
	}
	return keys
}

var (
	errInvalidCommand = resp.NewError("Invalid command specified")
	errNoKeyArgs      = resp.NewError("The command has no key arguments")
	errInvalidArity   = resp.NewError("Invalid number of arguments specified for command")
	errInvalidArgs    = resp.NewError("Invalid arguments specified for command")
)

// COMMAND GETKEYS command [arg ...]
func cmdCommandGetKeys(x *call, args [][]byte) error { return getKeys(x, args, false) }

// COMMAND GETKEYSANDFLAGS command [arg ...]
func cmdCommandGetKeysAndFlags(x *call, args [][]byte) error { return getKeys(x, args, true) }

// getKeys is object.c's getKeysSubcommandImpl.
func getKeys(x *call, args [][]byte, withFlags bool) error {
	argv := args[2:]
	cmd := commands[strings.ToLower(string(argv[0]))]
	fullname := strings.ToLower(string(argv[0]))
	if cmd != nil && cmd.subs != nil && len(argv) > 1 {
		fullname += "|" + strings.ToLower(string(argv[1]))
		cmd = cmd.subIndex[strings.ToLower(string(argv[1]))]
	}
	if cmd == nil {
		return errInvalidCommand
	}
	switch {
	case !cmd.spec.HasKeys():
		return errNoKeyArgs
	case cmd.arity > 0 && cmd.arity != len(argv) || len(argv) < -cmd.arity:
		return errInvalidArity
	}
	var keys []cmdspec.KeyRef
	ok := true
	switch fullname {
	case "set":
		keys = setKeys(argv)
	case "sort":
		keys = sortKeys(argv)
	case "sort_ro":
		// sortROGetKeys: the BY and GET patterns' keys are unknown.
		keys = []cmdspec.KeyRef{{Pos: 1, Flags: cmdspec.KeyRO | cmdspec.KeyAccess}}
	default:
		keys, ok = cmd.spec.KeysBySpecs(argv)
		if !ok && fullname == "migrate" {
			// Its KEYS spec is INCOMPLETE: Redis then asks migrateGetKeys.
			keys = migrateKeys(argv)
			ok = len(keys) > 0
		}
	}
	if !ok {
		if cmd.flags&cmdspec.NoMandatoryKeys != 0 {
			x.W.Array(0)
			return nil
		}
		return errInvalidArgs
	}
	x.W.Array(len(keys))
	for _, k := range keys {
		if !withFlags {
			x.W.Bulk(argv[k.Pos])
			continue
		}
		x.W.Array(2)
		x.W.Bulk(argv[k.Pos])
		cmdspec.WriteKeyFlags(x.W, k.Flags)
	}
	return nil
}

// allCommandNames is every command's and subcommand's full name, as
// COMMAND LIST lists them.
func allCommandNames() []string {
	var names []string
	for _, name := range commandNames() {
		names = append(names, name)
		for _, sub := range commands[name].subs {
			names = append(names, sub.name)
		}
	}
	return names
}

// COMMAND LIST [FILTERBY MODULE name|ACLCAT category|PATTERN pattern]
// (server.c:commandListCommand): Redis lists subcommands too.
func cmdCommandList(x *call, args [][]byte) error {
	var filter func(name string) bool
	for i := 2; i < len(args); i++ {
		if !redisstr.Option(args[i], "filterby") || len(args)-1-i != 2 {
			return resp.ErrSyntax
		}
		arg := args[i+2]
		switch {
		case redisstr.Option(args[i+1], "module"):
			filter = func(string) bool { return false } // no modules
		case redisstr.Option(args[i+1], "aclcat"):
			// Redis finds the category without case; an unknown one
			// matches nothing.
			cat, _ := cmdspec.Lookup(cmdspec.ACLNames, strings.ToLower(string(arg)))
			filter = func(name string) bool { return specOf(name).ACL&cat != 0 }
		case redisstr.Option(args[i+1], "pattern"):
			// Redis matches without case (nocase): command names are lower case.
			pattern := bytes.ToLower(arg)
			filter = func(name string) bool { return keyspace.Match(pattern, name) }
		default:
			return resp.ErrSyntax
		}
		i += 2
	}
	names := allCommandNames()
	if filter != nil {
		kept := names[:0]
		for _, n := range names {
			if filter(n) {
				kept = append(kept, n)
			}
		}
		names = kept
	}
	x.W.Array(len(names))
	for _, name := range names {
		x.W.BulkString(name)
	}
	return nil
}
