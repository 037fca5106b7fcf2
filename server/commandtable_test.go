package server

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/minilock/minilock/internal/redistest"
	"github.com/minilock/minilock/resp"
)

// A name listed twice in the table (or twice among a container's
// subcommands) stops the server at start-up instead of leaving a dead row.
func TestCommandTableRejectsDuplicates(t *testing.T) {
	for _, table := range [][]*command{
		{{name: "get"}, {name: "get"}},
		{{name: "client", subs: []*command{{name: "id"}, {name: "id"}}}},
	} {
		mustPanic(t, "listed twice", func() { index(table, commandSpecs) })
	}
}

// A row without Redis's metadata (a command added to the table without
// go generate, or a subcommand Redis 7.0 does not have) stops the server
// at start-up: dispatch would not know its arity or flags.
func TestCommandTableNeedsMetadata(t *testing.T) {
	mustPanic(t, `no Redis 7.0.15 metadata for "nosuch"`, func() { index([]*command{{name: "nosuch"}}, commandSpecs) })
	mustPanic(t, `no Redis 7.0.15 metadata for "client|nosuch"`, func() {
		index([]*command{{name: "client", subs: []*command{{name: "nosuch"}}}}, commandSpecs)
	})
	mustPanic(t, `no Redis 7.0.15 metadata for "get"`, func() { index([]*command{{name: "get"}}, nil) })
}

// mustPanic checks that f panics with a message containing want.
func mustPanic(t *testing.T, want string, f func()) {
	t.Helper()
	defer func() {
		if msg := fmt.Sprint(recover()); !strings.Contains(msg, want) {
			t.Errorf("index panicked with %q, want %q", msg, want)
		}
	}()
	f()
}

// The generated table holds the table's commands and no others, sorted,
// and every row got its arity and flags from it.
func TestCommandSpecsAreTheTable(t *testing.T) {
	var names []string
	for _, sp := range commandSpecs {
		names = append(names, sp.Name)
		if commands[sp.Name] == nil {
			t.Errorf("commandspec_gen.go has %s, which the table does not (run go generate in server/)", sp.Name)
		}
	}
	if !slices.IsSorted(names) || len(names) != len(commands) {
		t.Errorf("commandspec_gen.go: %d commands, sorted %v; the table has %d", len(names), slices.IsSorted(names), len(commands))
	}
	for _, cmd := range allCommands {
		if cmd.spec == nil || cmd.arity != cmd.spec.Arity || cmd.flags != cmd.spec.Flags || cmd.arity == 0 {
			t.Errorf("%s: arity %d flags %b, not its spec's", cmd.name, cmd.arity, cmd.flags)
		}
	}
}

// The few flag readings that are not Redis's flag verbatim.
func TestCommandFlagsDispatchReads(t *testing.T) {
	for name, want := range map[string]bool{"config|get": true, "eval": true, "get": false, "client|list": true, "client|id": false, "slowlog|get": true} {
		if got := commands[strings.Split(name, "|")[0]].sub(name).flags&fSkipMonitor != 0; got != want {
			t.Errorf("%s: hidden from MONITOR %v, want %v (Redis hides admin and skip_monitor)", name, got, want)
		}
	}
	for name, want := range map[string]bool{"eval": true, "evalsha": true, "fcall": true, "publish": true, "spublish": true, "eval_ro": false, "set": false} {
		if got := commands[name].flags&fMayReplicate != 0; got != want {
			t.Errorf("%s: may_replicate %v, want %v", name, got, want)
		}
	}
	var busy []string
	for _, cmd := range allCommands {
		if runsWhileBusy(cmd) {
			busy = append(busy, cmd.name)
		}
	}
	sort.Strings(busy)
	if want := []string{"auth", "function|kill", "function|stats", "hello", "quit", "script|kill", "shutdown"}; !slices.Equal(busy, want) {
		t.Errorf("answered while a script is busy: %v, want %v", busy, want)
	}
}

// sub finds a container's subcommand by full name, or cmd itself.
func (cmd *command) sub(name string) *command {
	if _, s, ok := strings.Cut(name, "|"); ok {
		return cmd.subIndex[s]
	}
	return cmd
}

// Every COMMAND INFO and COMMAND DOCS entry, of every command and of every
// subcommand minilock has, is written byte for byte as redis-server 7.0.15
// writes it, in RESP2 and RESP3; subcommands are compared in one order,
// as Redis lists them in a hash table's, seeded at random.
func TestCommandMetadataMatchesRedis(t *testing.T) {
	srv := redistest.Start(t)
	conn := redistest.Dial(t, srv.Addr)
	var names []string
	for _, cmd := range allCommands {
		names = append(names, cmd.name)
	}
	for _, proto := range []int{2, 3} {
		conn.MustDo("HELLO", fmt.Sprint(proto))
		for _, name := range names {
			for _, sub := range []string{"INFO", "DOCS"} {
				want, err := conn.Do("COMMAND", sub, name)
				if err != nil {
					t.Fatal(err)
				}
				x := &call{}
				x.W = &resp.Writer{Proto: proto}
				args := [][]byte{[]byte("command"), []byte(strings.ToLower(sub)), []byte(strings.ToUpper(name))}
				if sub == "INFO" {
					cmdCommandInfo(x, args)
				} else {
					cmdCommandDocs(x, args)
				}
				got := x.W.B
				if !bytes.Equal(sortSubcommands(t, got, sub == "DOCS"), sortSubcommands(t, want, sub == "DOCS")) {
					t.Errorf("RESP%d COMMAND %s %s:\n got  %.300q\n want %.300q", proto, sub, name, got, want)
				}
			}
		}
	}
}

// sortSubcommands orders the subcommands in a COMMAND INFO reply (an
// array of entries) or a COMMAND DOCS reply (a map name -> docs).
func sortSubcommands(t *testing.T, b []byte, docs bool) []byte {
	head, elems := split(t, b)
	for i := range elems {
		if docs && i%2 == 1 {
			elems[i] = sortDocsSubcommands(t, elems[i])
		} else if !docs {
			elems[i] = sortInfoSubcommands(t, elems[i])
		}
	}
	return slices.Concat(append([][]byte{head}, elems...)...)
}

func sortInfoSubcommands(t *testing.T, entry []byte) []byte {
	head, fields := split(t, entry)
	if len(fields) != 10 {
		return entry
	}
	subHead, subs := split(t, fields[9])
	sort.Slice(subs, func(i, j int) bool {
		_, a := split(t, subs[i])
		_, b := split(t, subs[j])
		return string(a[0]) < string(b[0])
	})
	fields[9] = slices.Concat(append([][]byte{subHead}, subs...)...)
	return slices.Concat(append([][]byte{head}, fields...)...)
}

func sortDocsSubcommands(t *testing.T, docs []byte) []byte {
	head, fields := split(t, docs)
	for i := 0; i+1 < len(fields); i += 2 {
		if string(fields[i]) != "$11\r\nsubcommands\r\n" {
			continue
		}
		mapHead, kv := split(t, fields[i+1])
		pairs := make([][2][]byte, 0, len(kv)/2)
		for j := 0; j+1 < len(kv); j += 2 {
			pairs = append(pairs, [2][]byte{kv[j], kv[j+1]})
		}
		sort.Slice(pairs, func(a, b int) bool { return string(pairs[a][0]) < string(pairs[b][0]) })
		out := [][]byte{mapHead}
		for _, p := range pairs {
			out = append(out, p[0], p[1])
		}
		fields[i+1] = slices.Concat(out...)
	}
	return slices.Concat(append([][]byte{head}, fields...)...)
}

// split returns an aggregate's header and its elements (a map's keys and
// values in turn); a scalar is all header.
func split(t *testing.T, b []byte) ([]byte, [][]byte) {
	t.Helper()
	it, rest, err := resp.Next(b)
	if err != nil {
		t.Fatalf("%v in %.100q", err, b)
	}
	head := b[:len(b)-len(rest)]
	n := int64(0)
	switch it.Kind {
	case '*', '~':
		n = it.Int
	case '%':
		n = 2 * it.Int
	default:
		return b, nil
	}
	var elems [][]byte
	for range n {
		next, err := resp.Skip(rest)
		if err != nil {
			t.Fatal(err)
		}
		elems = append(elems, rest[:len(rest)-len(next)])
		rest = next
	}
	return head, elems
}
