package main

import (
	"bytes"
	"fmt"
	"sort"

	"github.com/minilock/minilock/internal/cmdspec"
	"github.com/minilock/minilock/internal/redistest"
	"github.com/minilock/minilock/resp"
)

// mayReplicate are the commands whose src/commands/*.json set
// MAY_REPLICATE in Redis 7.0.15. Redis hides that flag from COMMAND INFO
// (server.c:addReplyFlagsForCommand), so it cannot be read off the server;
// minilock acts on it (read-only scripts, CLIENT PAUSE WRITE).
var mayReplicate = map[string]bool{"eval": true, "evalsha": true, "fcall": true, "pfcount": true, "publish": true, "spublish": true}

// replies are one command's raw COMMAND INFO entry and COMMAND DOCS value,
// by protocol.
type replies struct{ info, docs map[int][]byte }

// capture asks for names' COMMAND INFO and COMMAND DOCS in RESP2 and
// RESP3, reads the RESP3 replies into commands and checks that cmdspec
// renders them back to Redis's bytes in both protocols.
func capture(conn *redistest.Conn, names []string) ([]*cmdspec.Command, error) {
	raw := map[string]replies{}
	for _, name := range names {
		raw[name] = replies{map[int][]byte{}, map[int][]byte{}}
	}
	for _, proto := range []int{2, 3} {
		if _, err := conn.Do("HELLO", fmt.Sprint(proto)); err != nil {
			return nil, err
		}
		for _, name := range names {
			// COMMAND INFO answers an array of one entry (null for a
			// command Redis lacks): keep the entry.
			r, err := conn.Do("COMMAND", "INFO", name)
			if err != nil {
				return nil, err
			}
			_, entry, err := resp.Next(r)
			if err != nil || len(entry) == 0 || entry[0] != '*' {
				return nil, fmt.Errorf("COMMAND INFO %s: Redis %s has no such command", name, version)
			}
			raw[name].info[proto] = entry
			// COMMAND DOCS answers a map name -> docs: keep the docs.
			r, err = conn.Do("COMMAND", "DOCS", name)
			if err != nil {
				return nil, err
			}
			_, rest, _ := resp.Next(r)
			if rest, err = resp.Skip(rest); err != nil {
				return nil, fmt.Errorf("COMMAND DOCS %s: %v", name, err)
			}
			raw[name].docs[proto] = rest
		}
	}
	var cmds []*cmdspec.Command
	for _, name := range names {
		r := raw[name]
		cmd, err := readCommand(r.info[3], r.docs[3])
		if err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		if err := checkRenders(cmd, r); err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		sortSubcommands(cmd)
		cmds = append(cmds, cmd)
	}
	return cmds, nil
}

// checkRenders compares cmd's rendering with Redis's replies. It runs
// before the subcommands are sorted, while they are in Redis's order.
func checkRenders(cmd *cmdspec.Command, r replies) error {
	for _, proto := range []int{2, 3} {
		w := resp.Writer{Proto: proto}
		cmd.WriteInfo(&w)
		if err := sameBytes("COMMAND INFO", proto, w.B, r.info[proto]); err != nil {
			return err
		}
		w.B = w.B[:0]
		cmd.WriteDocs(&w)
		if err := sameBytes("COMMAND DOCS", proto, w.B, r.docs[proto]); err != nil {
			return err
		}
	}
	return nil
}

func sameBytes(what string, proto int, got, want []byte) error {
	if bytes.Equal(got, want) {
		return nil
	}
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	from := max(i-80, 0)
	return fmt.Errorf("%s in RESP%d renders differently from Redis at byte %d:\n  rendered %q\n  Redis    %q",
		what, proto, i, got[from:min(i+80, len(got))], want[from:min(i+80, len(want))])
}

func sortSubcommands(cmd *cmdspec.Command) {
	sort.Slice(cmd.Subcommands, func(i, j int) bool { return cmd.Subcommands[i].Name < cmd.Subcommands[j].Name })
	for _, sub := range cmd.Subcommands {
		sortSubcommands(sub)
	}
}

// node is a RESP3 reply read into a tree; a map's elems are its keys and
// values in turn.
type node struct {
	kind  byte
	s     string
	n     int64
	elems []node
}

func readNode(b []byte) (node, []byte, error) {
	it, rest, err := resp.Next(b)
	if err != nil {
		return node{}, b, err
	}
	nd := node{kind: it.Kind, s: string(it.Data), n: it.Int}
	switch it.Kind {
	case '*', '~', '%':
		count := it.Int
		if it.Kind == '%' {
			count *= 2
		}
		nd.elems = []node{}
		for range count {
			var e node
			if e, rest, err = readNode(rest); err != nil {
				return node{}, b, err
			}
			nd.elems = append(nd.elems, e)
		}
	}
	return nd, rest, nil
}

// fields walks a map node's pairs, failing on a key that handle does not
// know.
func (nd node) fields(handle func(key string, v node) (bool, error)) error {
	if nd.kind != '%' {
		return fmt.Errorf("want a map, got %q", nd.kind)
	}
	for i := 0; i+1 < len(nd.elems); i += 2 {
		key := nd.elems[i].s
		known, err := handle(key, nd.elems[i+1])
		if err != nil {
			return fmt.Errorf("%s: %v", key, err)
		}
		if !known {
			return fmt.Errorf("field %q is new to cmdspec", key)
		}
	}
	return nil
}

// str is a present string field; Redis leaves an empty one out, and so
// does cmdspec, so an empty value is an error.
func (nd node) str() (string, error) {
	if nd.kind != '$' && nd.kind != '+' {
		return "", fmt.Errorf("want a string, got %q", nd.kind)
	}
	if nd.s == "" {
		return "", fmt.Errorf("empty")
	}
	return nd.s, nil
}

func (nd node) integer() (int, error) {
	if nd.kind != ':' {
		return 0, fmt.Errorf("want an integer, got %q", nd.kind)
	}
	return int(nd.n), nil
}

// flagSet reads a set of flag names.
func flagSet[T ~uint8 | ~uint32](nd node, names []cmdspec.Named[T], prefix string) (T, error) {
	var v T
	if nd.kind != '~' {
		return 0, fmt.Errorf("want a set, got %q", nd.kind)
	}
	for _, e := range nd.elems {
		name, ok := bytes.CutPrefix([]byte(e.s), []byte(prefix))
		bit, known := cmdspec.Lookup(names, string(name))
		if !ok || !known {
			return 0, fmt.Errorf("flag %q is new to cmdspec", e.s)
		}
		v |= bit
	}
	return v, nil
}

// readCommand reads a command (and its subcommands) from its RESP3 COMMAND
// INFO entry and COMMAND DOCS value.
func readCommand(infoRaw, docsRaw []byte) (*cmdspec.Command, error) {
	info, _, err := readNode(infoRaw)
	if err != nil {
		return nil, err
	}
	docs, _, err := readNode(docsRaw)
	if err != nil {
		return nil, err
	}
	return readEntry(info, docs)
}

func readEntry(info, docs node) (*cmdspec.Command, error) {
	if info.kind != '*' || len(info.elems) != 10 {
		return nil, fmt.Errorf("COMMAND INFO entry of %d elements", len(info.elems))
	}
	e := info.elems
	c := &cmdspec.Command{Name: e[0].s}
	var err error
	ints := []*int{nil, &c.Arity, nil, &c.FirstKey, &c.LastKey, &c.KeyStep}
	for i, p := range ints {
		if p != nil {
			if *p, err = e[i].integer(); err != nil {
				return nil, err
			}
		}
	}
	if c.Flags, err = flagSet(e[2], cmdspec.FlagNames, ""); err != nil {
		return nil, err
	}
	if mayReplicate[c.Name] {
		c.Flags |= cmdspec.MayReplicate
	}
	if c.ACL, err = flagSet(e[6], cmdspec.ACLNames, "@"); err != nil {
		return nil, err
	}
	for _, t := range e[7].elems {
		tip, err := t.str()
		if err != nil {
			return nil, fmt.Errorf("tip: %v", err)
		}
		c.Tips = append(c.Tips, tip)
	}
	for _, s := range e[8].elems {
		ks, err := readKeySpec(s)
		if err != nil {
			return nil, fmt.Errorf("key spec: %v", err)
		}
		c.KeySpecs = append(c.KeySpecs, ks)
	}
	var subDocs map[string]node
	if err := docs.fields(func(key string, v node) (bool, error) {
		d := &c.Docs
		var err error
		switch key {
		case "summary":
			d.Summary, err = v.str()
		case "since":
			d.Since, err = v.str()
		case "group":
			d.Group, err = v.str()
		case "complexity":
			d.Complexity, err = v.str()
		case "deprecated_since":
			d.DeprecatedSince, err = v.str()
		case "replaced_by":
			d.ReplacedBy, err = v.str()
		case "doc_flags":
			d.DocFlags, err = flagSet(v, cmdspec.DocFlagNames, "")
		case "history":
			d.History = []cmdspec.History{}
			for _, h := range v.elems {
				if len(h.elems) != 2 {
					return true, fmt.Errorf("an entry of %d elements", len(h.elems))
				}
				d.History = append(d.History, cmdspec.History{Since: h.elems[0].s, Changes: h.elems[1].s})
			}
		case "arguments":
			d.Args, err = readArgs(v)
		case "subcommands":
			subDocs = map[string]node{}
			for i := 0; i+1 < len(v.elems); i += 2 {
				subDocs[v.elems[i].s] = v.elems[i+1]
			}
		default:
			return false, nil
		}
		return true, err
	}); err != nil {
		return nil, fmt.Errorf("docs: %v", err)
	}
	if e[9].kind == '*' {
		c.Subcommands = []*cmdspec.Command{}
		for _, s := range e[9].elems {
			name := ""
			if len(s.elems) > 0 {
				name = s.elems[0].s
			}
			d, ok := subDocs[name]
			if !ok {
				return nil, fmt.Errorf("subcommand %q has no docs", name)
			}
			sub, err := readEntry(s, d)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", name, err)
			}
			c.Subcommands = append(c.Subcommands, sub)
		}
	}
	if len(subDocs) != len(c.Subcommands) {
		return nil, fmt.Errorf("docs list %d subcommands, COMMAND INFO %d", len(subDocs), len(c.Subcommands))
	}
	return c, nil
}

func readKeySpec(nd node) (cmdspec.KeySpec, error) {
	var ks cmdspec.KeySpec
	err := nd.fields(func(key string, v node) (bool, error) {
		var err error
		switch key {
		case "notes":
			ks.Notes, err = v.str()
		case "flags":
			ks.Flags, err = flagSet(v, cmdspec.KeyFlagNames, "")
		case "begin_search", "find_keys":
			var typ string
			var spec node
			if err := v.fields(func(k string, v node) (bool, error) {
				switch k {
				case "type":
					typ = v.s
				case "spec":
					spec = v
				default:
					return false, nil
				}
				return true, nil
			}); err != nil {
				return true, err
			}
			ints := map[string]*int{}
			switch key + "/" + typ {
			case "begin_search/index":
				ks.BeginSearch = cmdspec.BeginIndex
				ints["index"] = &ks.Index
			case "begin_search/keyword":
				ks.BeginSearch = cmdspec.BeginKeyword
				ints["startfrom"] = &ks.StartFrom
			case "find_keys/range":
				ks.FindKeys = cmdspec.FindRange
				ints["lastkey"], ints["keystep"], ints["limit"] = &ks.LastKey, &ks.KeyStep, &ks.Limit
			case "find_keys/keynum":
				ks.FindKeys = cmdspec.FindKeynum
				ints["keynumidx"], ints["firstkey"], ints["keystep"] = &ks.KeyNumIdx, &ks.FirstKey, &ks.KeyStep
			case "begin_search/unknown", "find_keys/unknown":
			default:
				return true, fmt.Errorf("type %q is new to cmdspec", typ)
			}
			return true, spec.fields(func(k string, v node) (bool, error) {
				if k == "keyword" && ks.BeginSearch == cmdspec.BeginKeyword {
					var err error
					ks.Keyword, err = v.str()
					return true, err
				}
				p, ok := ints[k]
				if !ok {
					return false, nil
				}
				var err error
				*p, err = v.integer()
				return true, err
			})
		default:
			return false, nil
		}
		return true, err
	})
	return ks, err
}

func readArgs(nd node) ([]cmdspec.Arg, error) {
	if nd.kind != '*' {
		return nil, fmt.Errorf("want an array, got %q", nd.kind)
	}
	args := []cmdspec.Arg{}
	for _, an := range nd.elems {
		a := cmdspec.Arg{KeySpec: -1}
		err := an.fields(func(key string, v node) (bool, error) {
			var err error
			switch key {
			case "name":
				a.Name, err = v.str()
			case "type":
				var ok bool
				if a.Type, ok = cmdspec.Lookup(cmdspec.ArgTypeNames, v.s); !ok {
					err = fmt.Errorf("type %q is new to cmdspec", v.s)
				}
			case "key_spec_index":
				a.KeySpec, err = v.integer()
			case "token":
				// MIGRATE's "" is an empty pure token.
				if a.Token, err = v.str(); err != nil && v.kind == '$' {
					a.Token, err = "", nil
				}
			case "summary":
				a.Summary, err = v.str()
			case "since":
				a.Since, err = v.str()
			case "deprecated_since":
				a.DeprecatedSince, err = v.str()
			case "flags":
				a.Flags, err = flagSet(v, cmdspec.ArgFlagNames, "")
			case "arguments":
				a.Args, err = readArgs(v)
			default:
				return false, nil
			}
			return true, err
		})
		if err != nil {
			return nil, fmt.Errorf("argument %q: %v", a.Name, err)
		}
		// cmdspec writes key_spec_index for a key argument, and for
		// another only when it is above 0 (SORT's patterns have 1).
		if a.Type == cmdspec.ArgKey && a.KeySpec < 0 || a.Type != cmdspec.ArgKey && a.KeySpec == 0 {
			return nil, fmt.Errorf("argument %q: type %s with key_spec_index %d", a.Name, cmdspec.ArgTypeNames[a.Type].Name, a.KeySpec)
		}
		if a.Type != cmdspec.ArgKey && a.KeySpec < 0 {
			a.KeySpec = 0
		}
		args = append(args, a)
	}
	return args, nil
}
