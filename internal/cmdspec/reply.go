package cmdspec

import "github.com/minilock/minilock/resp"

// WriteInfo writes c's COMMAND INFO entry (server.c:addReplyCommandInfo).
func (c *Command) WriteInfo(w *resp.Writer) {
	w.Array(10)
	w.BulkString(c.Name)
	w.Int(int64(c.Arity))
	writeFlags(w, c.Flags, FlagNames, "")
	w.Int(int64(c.FirstKey))
	w.Int(int64(c.LastKey))
	w.Int(int64(c.KeyStep))
	writeFlags(w, c.ACL, ACLNames, "@")
	w.Set(len(c.Tips))
	for _, t := range c.Tips {
		w.BulkString(t)
	}
	w.Set(len(c.KeySpecs))
	for i := range c.KeySpecs {
		c.KeySpecs[i].write(w)
	}
	if c.Subcommands == nil {
		w.Set(0)
		return
	}
	w.Array(len(c.Subcommands))
	for _, sub := range c.Subcommands {
		sub.WriteInfo(w)
	}
}

// write writes one key spec (server.c:addReplyCommandKeySpecs).
func (k *KeySpec) write(w *resp.Writer) {
	n := 3
	if k.Notes != "" {
		n++
	}
	w.Map(n)
	if k.Notes != "" {
		w.BulkString("notes")
		w.BulkString(k.Notes)
	}
	w.BulkString("flags")
	WriteKeyFlags(w, k.Flags)
	w.BulkString("begin_search")
	w.Map(2)
	w.BulkString("type")
	switch k.BeginSearch {
	case BeginIndex:
		w.BulkString("index")
		w.BulkString("spec")
		w.Map(1)
		w.BulkString("index")
		w.Int(int64(k.Index))
	case BeginKeyword:
		w.BulkString("keyword")
		w.BulkString("spec")
		w.Map(2)
		w.BulkString("keyword")
		w.BulkString(k.Keyword)
		w.BulkString("startfrom")
		w.Int(int64(k.StartFrom))
	default:
		w.BulkString("unknown")
		w.BulkString("spec")
		w.Map(0)
	}
	w.BulkString("find_keys")
	w.Map(2)
	w.BulkString("type")
	switch k.FindKeys {
	case FindRange:
		w.BulkString("range")
		w.BulkString("spec")
		w.Map(3)
		w.BulkString("lastkey")
		w.Int(int64(k.LastKey))
		w.BulkString("keystep")
		w.Int(int64(k.KeyStep))
		w.BulkString("limit")
		w.Int(int64(k.Limit))
	case FindKeynum:
		w.BulkString("keynum")
		w.BulkString("spec")
		w.Map(3)
		w.BulkString("keynumidx")
		w.Int(int64(k.KeyNumIdx))
		w.BulkString("firstkey")
		w.Int(int64(k.FirstKey))
		w.BulkString("keystep")
		w.Int(int64(k.KeyStep))
	default:
		w.BulkString("unknown")
		w.BulkString("spec")
		w.Map(0)
	}
}

// WriteDocs writes c's COMMAND DOCS entry, without its name
// (server.c:addReplyCommandDocs).
func (c *Command) WriteDocs(w *resp.Writer) {
	d := &c.Docs
	n := 1 // group
	for _, present := range []bool{d.Summary != "", d.Since != "", d.Complexity != "", d.DocFlags != 0,
		d.DeprecatedSince != "", d.ReplacedBy != "", d.History != nil, d.Args != nil, c.Subcommands != nil} {
		if present {
			n++
		}
	}
	w.Map(n)
	str := func(key, v string) {
		if v != "" {
			w.BulkString(key)
			w.BulkString(v)
		}
	}
	str("summary", d.Summary)
	str("since", d.Since)
	w.BulkString("group") // always there: "module" for a module's command
	w.BulkString(d.Group)
	str("complexity", d.Complexity)
	if d.DocFlags != 0 {
		w.BulkString("doc_flags")
		writeFlags(w, d.DocFlags, DocFlagNames, "")
	}
	str("deprecated_since", d.DeprecatedSince)
	str("replaced_by", d.ReplacedBy)
	if d.History != nil {
		w.BulkString("history")
		w.Set(len(d.History))
		for _, h := range d.History {
			w.Array(2)
			w.BulkString(h.Since)
			w.BulkString(h.Changes)
		}
	}
	if d.Args != nil {
		w.BulkString("arguments")
		writeArgs(w, d.Args)
	}
	if c.Subcommands != nil {
		w.BulkString("subcommands")
		w.Map(len(c.Subcommands))
		for _, sub := range c.Subcommands {
			w.BulkString(sub.Name)
			sub.WriteDocs(w)
		}
	}
}

// hasKeySpec reports whether a's docs carry a key_spec_index (see
// Arg.KeySpec).
func (a *Arg) hasKeySpec() bool { return a.Type == ArgKey || a.KeySpec > 0 }

// writeArgs writes an argument list (server.c:addReplyCommandArgList).
func writeArgs(w *resp.Writer, args []Arg) {
	w.Array(len(args))
	for i := range args {
		a := &args[i]
		nested := a.Type == ArgOneOf || a.Type == ArgBlock
		n := 2
		// A pure token always has its token, even MIGRATE's empty one.
		hasToken := a.Token != "" || a.Type == ArgPureToken
		for _, present := range []bool{a.hasKeySpec(), hasToken, a.Summary != "", a.Since != "",
			a.DeprecatedSince != "", a.Flags != 0, nested} {
			if present {
				n++
			}
		}
		w.Map(n)
		w.BulkString("name")
		w.BulkString(a.Name)
		w.BulkString("type")
		w.BulkString(ArgTypeNames[a.Type].Name)
		if a.hasKeySpec() {
			w.BulkString("key_spec_index")
			w.Int(int64(a.KeySpec))
		}
		if hasToken {
			w.BulkString("token")
			w.BulkString(a.Token)
		}
		for _, f := range [...]struct{ key, v string }{{"summary", a.Summary}, {"since", a.Since}, {"deprecated_since", a.DeprecatedSince}} {
			if f.v != "" {
				w.BulkString(f.key)
				w.BulkString(f.v)
			}
		}
		if a.Flags != 0 {
			w.BulkString("flags")
			writeFlags(w, a.Flags, ArgFlagNames, "")
		}
		if nested {
			w.BulkString("arguments")
			writeArgs(w, a.Args)
		}
	}
}
