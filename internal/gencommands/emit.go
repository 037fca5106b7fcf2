package main

import (
	"bytes"
	"fmt"
	"go/format"
	"strings"

	"github.com/minilock/minilock/internal/cmdspec"
)

// The Go names of cmdspec's constants, for the source emit writes.
var (
	flagIdents = map[cmdspec.Flags]string{
		cmdspec.Write: "Write", cmdspec.ReadOnly: "ReadOnly", cmdspec.DenyOOM: "DenyOOM", cmdspec.Module: "Module",
		cmdspec.Admin: "Admin", cmdspec.PubSub: "PubSub", cmdspec.NoScript: "NoScript", cmdspec.Blocking: "Blocking",
		cmdspec.Loading: "Loading", cmdspec.Stale: "Stale", cmdspec.SkipMonitor: "SkipMonitor",
		cmdspec.SkipSlowlog: "SkipSlowlog", cmdspec.Asking: "Asking", cmdspec.Fast: "Fast", cmdspec.NoAuth: "NoAuth",
		cmdspec.NoMandatoryKeys: "NoMandatoryKeys", cmdspec.NoAsyncLoading: "NoAsyncLoading",
		cmdspec.NoMulti: "NoMulti", cmdspec.MovableKeys: "MovableKeys", cmdspec.AllowBusy: "AllowBusy",
		cmdspec.MayReplicate: "MayReplicate",
	}
	aclIdents = map[cmdspec.ACL]string{
		cmdspec.ACLKeyspace: "ACLKeyspace", cmdspec.ACLRead: "ACLRead", cmdspec.ACLWrite: "ACLWrite",
		cmdspec.ACLSet: "ACLSet", cmdspec.ACLSortedSet: "ACLSortedSet", cmdspec.ACLList: "ACLList",
		cmdspec.ACLHash: "ACLHash", cmdspec.ACLString: "ACLString", cmdspec.ACLBitmap: "ACLBitmap",
		cmdspec.ACLHyperLogLog: "ACLHyperLogLog", cmdspec.ACLGeo: "ACLGeo", cmdspec.ACLStream: "ACLStream",
		cmdspec.ACLPubSub: "ACLPubSub", cmdspec.ACLAdmin: "ACLAdmin", cmdspec.ACLFast: "ACLFast",
		cmdspec.ACLSlow: "ACLSlow", cmdspec.ACLBlocking: "ACLBlocking", cmdspec.ACLDangerous: "ACLDangerous",
		cmdspec.ACLConnection: "ACLConnection", cmdspec.ACLTransaction: "ACLTransaction",
		cmdspec.ACLScripting: "ACLScripting",
	}
	keyFlagIdents = map[cmdspec.KeyFlags]string{
		cmdspec.KeyRO: "KeyRO", cmdspec.KeyRW: "KeyRW", cmdspec.KeyOW: "KeyOW", cmdspec.KeyRM: "KeyRM",
		cmdspec.KeyAccess: "KeyAccess", cmdspec.KeyUpdate: "KeyUpdate", cmdspec.KeyInsert: "KeyInsert",
		cmdspec.KeyDelete: "KeyDelete", cmdspec.KeyNotKey: "KeyNotKey", cmdspec.KeyIncomplete: "KeyIncomplete",
		cmdspec.KeyVariableFlags: "KeyVariableFlags",
	}
	docFlagIdents = map[cmdspec.DocFlags]string{cmdspec.DocDeprecated: "DocDeprecated", cmdspec.DocSyscmd: "DocSyscmd"}
	argFlagIdents = map[cmdspec.ArgFlags]string{cmdspec.ArgOptional: "ArgOptional", cmdspec.ArgMultiple: "ArgMultiple", cmdspec.ArgMultipleToken: "ArgMultipleToken"}
	argTypeIdents = []string{"ArgString", "ArgInteger", "ArgDouble", "ArgKey", "ArgPattern", "ArgUnixTime", "ArgPureToken", "ArgOneOf", "ArgBlock"}
	beginIdents   = []string{"BeginUnknown", "BeginIndex", "BeginKeyword"}
	findIdents    = []string{"FindUnknown", "FindRange", "FindKeynum"}
)

// bits writes v as its constants or'ed together, lowest bit first.
func bits[T ~uint8 | ~uint32](v T, idents map[T]string) string {
	var parts []string
	for bit := T(1); bit != 0 && bit <= v; bit <<= 1 {
		if v&bit != 0 {
			parts = append(parts, "cmdspec."+idents[bit])
		}
	}
	return strings.Join(parts, " | ")
}

// emitter writes Go source; fields at their zero value are left out.
type emitter struct{ b bytes.Buffer }

func (e *emitter) printf(format string, args ...any) { fmt.Fprintf(&e.b, format, args...) }

func (e *emitter) str(name, v string) {
	if v != "" {
		e.printf("%s: %q, ", name, v)
	}
}

func (e *emitter) int(name string, v int) {
	if v != 0 {
		e.printf("%s: %d, ", name, v)
	}
}

func (e *emitter) command(c *cmdspec.Command) {
	e.printf("{\nName: %q, Arity: %d, ", c.Name, c.Arity)
	if c.Flags != 0 {
		e.printf("Flags: %s, ", bits(c.Flags, flagIdents))
	}
	e.int("FirstKey", c.FirstKey)
	e.int("LastKey", c.LastKey)
	e.int("KeyStep", c.KeyStep)
	if c.ACL != 0 {
		e.printf("\nACL: %s, ", bits(c.ACL, aclIdents))
	}
	if c.Tips != nil {
		e.printf("\nTips: %#v, ", c.Tips)
	}
	if c.KeySpecs != nil {
		e.printf("\nKeySpecs: []cmdspec.KeySpec{\n")
		for _, k := range c.KeySpecs {
			e.printf("{")
			e.str("Notes", k.Notes)
			if k.Flags != 0 {
				e.printf("Flags: %s, ", bits(k.Flags, keyFlagIdents))
			}
			e.printf("BeginSearch: cmdspec.%s, ", beginIdents[k.BeginSearch])
			e.int("Index", k.Index)
			e.str("Keyword", k.Keyword)
			e.int("StartFrom", k.StartFrom)
			e.printf("FindKeys: cmdspec.%s, ", findIdents[k.FindKeys])
			e.int("LastKey", k.LastKey)
			e.int("KeyStep", k.KeyStep)
			e.int("Limit", k.Limit)
			e.int("KeyNumIdx", k.KeyNumIdx)
			e.int("FirstKey", k.FirstKey)
			e.printf("},\n")
		}
		e.printf("},")
	}
	d := &c.Docs
	e.printf("\nDocs: cmdspec.Docs{")
	e.str("Summary", d.Summary)
	e.str("Since", d.Since)
	e.str("Group", d.Group)
	e.str("Complexity", d.Complexity)
	if d.DocFlags != 0 {
		e.printf("DocFlags: %s, ", bits(d.DocFlags, docFlagIdents))
	}
	e.str("DeprecatedSince", d.DeprecatedSince)
	e.str("ReplacedBy", d.ReplacedBy)
	if d.History != nil {
		e.printf("\nHistory: []cmdspec.History{\n")
		for _, h := range d.History {
			e.printf("{Since: %q, Changes: %q},\n", h.Since, h.Changes)
		}
		e.printf("},")
	}
	if d.Args != nil {
		e.printf("\nArgs: ")
		e.args(d.Args)
		e.printf(",")
	}
	e.printf("},\n")
	if c.Subcommands != nil {
		e.printf("Subcommands: []*cmdspec.Command{\n")
		for _, sub := range c.Subcommands {
			e.command(sub)
		}
		e.printf("},\n")
	}
	e.printf("},\n")
}

func (e *emitter) args(args []cmdspec.Arg) {
	e.printf("[]cmdspec.Arg{\n")
	for _, a := range args {
		e.printf("{Name: %q, Type: cmdspec.%s, ", a.Name, argTypeIdents[a.Type])
		e.int("KeySpec", a.KeySpec)
		e.str("Token", a.Token)
		e.str("Summary", a.Summary)
		e.str("Since", a.Since)
		e.str("DeprecatedSince", a.DeprecatedSince)
		if a.Flags != 0 {
			e.printf("Flags: %s, ", bits(a.Flags, argFlagIdents))
		}
		if a.Type == cmdspec.ArgOneOf || a.Type == cmdspec.ArgBlock {
			e.printf("Args: ")
			e.args(a.Args)
			e.printf(", ")
		}
		e.printf("},\n")
	}
	e.printf("}")
}

// emit returns the Go source of the table.
func emit(cmds []*cmdspec.Command) ([]byte, error) {
	var e emitter
	e.printf("// Code generated by internal/gencommands from redis-server %s; DO NOT EDIT.\n\n", version)
	e.printf("package server\n\nimport \"github.com/minilock/minilock/internal/cmdspec\"\n\n")
	e.printf("// commandSpecs is what Redis %s's COMMAND INFO and COMMAND DOCS say of\n", version)
	e.printf("// the commands in commandTable, sorted by name.\nvar commandSpecs = []*cmdspec.Command{\n")
	for _, c := range cmds {
		e.command(c)
	}
	e.printf("}\n")
	src, err := format.Source(e.b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("the generated source does not parse: %v", err)
	}
	return src, nil
}
