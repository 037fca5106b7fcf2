package server

import (
	"bytes"
	"strings"

	"github.com/minilock/minilock/internal/redisstr"
	"github.com/minilock/minilock/keyspace"
	"github.com/minilock/minilock/resp"
)

// COMMAND GETKEYS, GETKEYSANDFLAGS and LIST FILTERBY, read from the key
// specs, flags and ACL categories of Redis 7.0.15's own COMMAND INFO
// entries (commandinfo_gen.go), with db.c's getKeysUsingKeySpecs walking
// the specs. Of the commands minilock has, only SET's spec carries
// VARIABLE_FLAGS; Redis answers it with setGetKeys, and so does this.

// keySpec is one key spec of a COMMAND INFO entry.
type keySpec struct {
	flags []string
	// begin_search: "index" (pos) or "keyword" (keyword, startFrom).
	bs        string
	pos       int
	keyword   string
	startFrom int
	// find_keys: "range" (lastKey, keyStep, limit) or "keynum"
	// (keyNumIdx, firstKey, keyStep).
	fk                           string
	lastKey, keyStep, limit      int
	keyNumIdx, firstKey          int
	notKey, incomplete, variable bool
}

// commandMeta is what COMMAND GETKEYS and LIST FILTERBY read of a
// command's COMMAND INFO entry.
type commandMeta struct {
	flags   []string
	aclCats []string
	specs   []keySpec
}

// tree is a RESP reply parsed into strings, integers and slices (maps as
// flat slices). Only the generated entries are parsed this way.
func tree(b []byte) (any, []byte, bool) {
	it, rest, err := resp.Next(b)
	if err != nil {
		return nil, b, false
	}
	switch it.Kind {
	case '*', '~', '%', '>':
		n := it.Int
		if it.Kind == '%' {
			n *= 2
		}
		if n > int64(len(rest)) {
			return nil, b, false
		}
		elems := make([]any, 0, n)
		for range n {
			var e any
			var ok bool
			if e, rest, ok = tree(rest); !ok {
				return nil, b, false
			}
			elems = append(elems, e)
		}
		return elems, rest, true
	case ':':
		return int(it.Int), rest, true
	}
	return string(it.Data), rest, true
}

// field returns the value after name in a flat list of pairs.
func field(pairs any, name string) any {
	l, _ := pairs.([]any)
	for i := 0; i+1 < len(l); i += 2 {
		if s, _ := l[i].(string); s == name {
			return l[i+1]
		}
	}
	return nil
}

func fieldInt(pairs any, name string) int    { n, _ := field(pairs, name).(int); return n }
func fieldStr(pairs any, name string) string { s, _ := field(pairs, name).(string); return s }

func strings_(v any) []string {
	l, _ := v.([]any)
	out := make([]string, 0, len(l))
	for _, e := range l {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// metaOf parses fullname's COMMAND INFO entry ("config|get" for a
// subcommand).
func metaOf(fullname string) (commandMeta, bool) {
	raw, ok := commandInfoEntry(2, fullname)
	if !ok {
		return commandMeta{}, false
	}
	t, _, ok := tree([]byte(raw))
	l, _ := t.([]any)
	if !ok || len(l) < 9 {
		return commandMeta{}, false
	}
	m := commandMeta{flags: strings_(l[2]), aclCats: strings_(l[6])}
	specs, _ := l[8].([]any)
	for _, s := range specs {
		ks := keySpec{flags: strings_(field(s, "flags"))}
		for _, f := range ks.flags {
			switch f {
			case "not_key":
				ks.notKey = true
			case "incomplete":
				ks.incomplete = true
			case "variable_flags":
				ks.variable = true
			}
		}
		bs := field(s, "begin_search")
		ks.bs = fieldStr(bs, "type")
		ks.pos = fieldInt(field(bs, "spec"), "index")
		ks.keyword = fieldStr(field(bs, "spec"), "keyword")
		ks.startFrom = fieldInt(field(bs, "spec"), "startfrom")
		fk := field(s, "find_keys")
		ks.fk = fieldStr(fk, "type")
		spec := field(fk, "spec")
		ks.lastKey, ks.keyStep, ks.limit = fieldInt(spec, "lastkey"), fieldInt(spec, "keystep"), fieldInt(spec, "limit")
		ks.keyNumIdx, ks.firstKey = fieldInt(spec, "keynumidx"), fieldInt(spec, "firstkey")
		if ks.keyStep <= 0 {
			ks.keyStep = 1 // never loop in place
		}
		m.specs = append(m.specs, ks)
	}
	return m, true
}

// keyRef is a key found in a command's arguments: its position and flags.
type keyRef struct {
	pos   int
	flags []string
}

// keysBySpecs is getKeysUsingKeySpecs: the keys argv (the command's name
// first) names, and false for arguments the specs cannot read.
func keysBySpecs(m commandMeta, argv [][]byte) ([]keyRef, bool) {
	argc := len(argv)
	var keys []keyRef
	for _, s := range m.specs {
		if s.notKey {
			continue
		}
		first := 0
		switch s.bs {
		case "index":
			first = s.pos
		case "keyword":
			start, end := s.startFrom, argc-1
			if s.startFrom <= 0 {
				start, end = argc+s.startFrom, 1
			}
			step := 1
			if start > end {
				step = -1
			}
			for i := start; i != end; i += step {
				if i >= argc || i < 1 {
					break
				}
				if strings.EqualFold(string(argv[i]), s.keyword) {
					first = i + 1
					break
				}
			}
			if first == 0 {
				continue
			}
		default:
			return nil, false
		}
		var last int
		switch s.fk {
		case "range":
			switch {
			case s.lastKey >= 0:
				last = first + s.lastKey
			case s.limit == 0:
				last = argc + s.lastKey
			default:
				last = first + ((argc-first)/s.limit + s.lastKey)
			}
		case "keynum":
			if first+s.keyNumIdx >= argc {
				return nil, false
			}
			n, ok := redisstr.ParseInt(argv[first+s.keyNumIdx])
			if !ok || n < 0 || n > int64(argc) {
				return nil, false
			}
			first += s.firstKey
			last = first + int(n) - 1
		default:
			return nil, false
		}
		if last >= argc || last < first || first >= argc {
			return nil, false
		}
		for i := first; i <= last; i += s.keyStep {
			keys = append(keys, keyRef{pos: i, flags: s.flags})
		}
		if s.incomplete {
			return nil, false
		}
	}
	return keys, true
}

// setKeys is t_string.c's setGetKeys: SET's key is read only with GET.
func setKeys(argv [][]byte) []keyRef {
	for _, a := range argv[3:] {
		if redisstr.Option(a, "get") {
			return []keyRef{{pos: 1, flags: []string{"RW", "access", "update"}}}
		}
	}
	return []keyRef{{pos: 1, flags: []string{"OW", "update"}}}
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
	m, _ := metaOf(fullname)
	hasKeys := false
	for _, s := range m.specs {
		hasKeys = hasKeys || !s.notKey
	}
	switch {
	case !hasKeys:
		return errNoKeyArgs
	case cmd.arity > 0 && cmd.arity != len(argv) || len(argv) < -cmd.arity:
		return errInvalidArity
	}
	var keys []keyRef
	ok := true
	if fullname == "set" {
		keys = setKeys(argv)
	} else {
		keys, ok = keysBySpecs(m, argv)
	}
	if !ok {
		for _, f := range m.flags {
			if f == "no_mandatory_keys" {
				x.W.Array(0)
				return nil
			}
		}
		return errInvalidArgs
	}
	x.W.Array(len(keys))
	for _, k := range keys {
		if !withFlags {
			x.W.Bulk(argv[k.pos])
			continue
		}
		x.W.Array(2)
		x.W.Bulk(argv[k.pos])
		x.W.Set(len(k.flags))
		for _, f := range k.flags {
			x.W.Status(f)
		}
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
			cat := "@" + strings.ToLower(string(arg))
			filter = func(name string) bool {
				m, _ := metaOf(name)
				for _, c := range m.aclCats {
					if c == cat {
						return true
					}
				}
				return false
			}
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
