package server

import (
	"strings"

	"github.com/minilock/minilock/resp"
)

// Redis's COMMAND INFO and COMMAND DOCS also answer for a subcommand named
// "container|sub" (lookupCommandBySds). The captured entries hold each
// subcommand inside its container's; these find it there, for the
// subcommands minilock has.

// lookupSub finds the table's subcommand for a "container|sub" name.
func lookupSub(name string) *command {
	parent, sub, ok := strings.Cut(name, "|")
	if !ok || commands[parent] == nil {
		return nil
	}
	return commands[parent].subIndex[sub]
}

// commandInfoEntry is the COMMAND INFO entry for name (lower case) in
// protocol proto.
func commandInfoEntry(proto int, name string) (string, bool) {
	if e, ok := commandInfo[proto][name]; ok {
		return e, true
	}
	if lookupSub(name) == nil {
		return "", false
	}
	e, ok := subInfo(commandInfo[proto][strings.SplitN(name, "|", 2)[0]])[name]
	return e, ok
}

// commandDocsEntry is COMMAND DOCS's entry for name, like commandInfoEntry.
func commandDocsEntry(proto int, name string) (string, bool) {
	if e, ok := commandDocs[proto][name]; ok {
		return e, true
	}
	if lookupSub(name) == nil {
		return "", false
	}
	e, ok := subDocs(commandDocs[proto][strings.SplitN(name, "|", 2)[0]])[name]
	return e, ok
}

// subInfo returns the subcommand entries of a COMMAND INFO entry: its tenth
// element is an array of entries like the container's, each starting with
// the subcommand's full name.
func subInfo(raw string) map[string]string {
	b := []byte(raw)
	head, b, err := resp.Next(b)
	if err != nil || head.Kind != '*' || head.Int != 10 {
		return nil
	}
	for i := 0; i < 9; i++ {
		if b, err = resp.Skip(b); err != nil {
			return nil
		}
	}
	return entries(b, func(entry []byte) string {
		_, rest, _ := resp.Next(entry) // the entry's array header
		name, _, _ := resp.Next(rest)
		return string(name.Data)
	})
}

// subDocs returns the subcommand docs of a COMMAND DOCS entry: the value of
// its "subcommands" field, a map from full name to docs.
func subDocs(raw string) map[string]string {
	b := []byte(raw)
	head, b, err := resp.Next(b)
	if err != nil || head.Kind != '*' && head.Kind != '%' {
		return nil
	}
	fields := head.Int
	if head.Kind == '*' {
		fields /= 2
	}
	for ; fields > 0; fields-- {
		key, rest, err := resp.Next(b)
		if err != nil {
			return nil
		}
		if string(key.Data) != "subcommands" {
			if b, err = resp.Skip(rest); err != nil {
				return nil
			}
			continue
		}
		m, rest, err := resp.Next(rest)
		if err != nil {
			return nil
		}
		out := map[string]string{}
		pairs := m.Int
		if m.Kind == '*' {
			pairs /= 2
		}
		for ; pairs > 0; pairs-- {
			name, after, err := resp.Next(rest)
			if err != nil {
				return nil
			}
			next, err := resp.Skip(after)
			if err != nil {
				return nil
			}
			out[strings.ToLower(string(name.Data))] = string(after[:len(after)-len(next)])
			rest = next
		}
		return out
	}
	return nil
}

// entries reads an array of RESP elements from b, keyed by name(element).
func entries(b []byte, name func([]byte) string) map[string]string {
	arr, b, err := resp.Next(b)
	if err != nil || arr.Kind != '*' {
		return nil
	}
	out := map[string]string{}
	for ; arr.Int > 0; arr.Int-- {
		next, err := resp.Skip(b)
		if err != nil {
			return nil
		}
		entry := b[:len(b)-len(next)]
		out[name(entry)] = string(entry)
		b = next
	}
	return out
}
