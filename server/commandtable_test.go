package server

import (
	"slices"
	"testing"

	"github.com/minilock/minilock/resp"
)

// redisCommand is what COMMAND INFO says of a command: the parts minilock's
// table models.
type redisCommand struct {
	name  string
	arity int64
	flags []string
	subs  []redisCommand
}

// parseCommandInfo reads one COMMAND INFO entry (RESP2): name, arity, flags,
// first key, last key, step, ACL categories, tips, key specs, subcommands.
func parseCommandInfo(t *testing.T, b []byte) (redisCommand, []byte) {
	t.Helper()
	var rc redisCommand
	next := func() resp.Item {
		it, rest, err := resp.Next(b)
		if err != nil {
			t.Fatalf("COMMAND INFO entry: %v", err)
		}
		b = rest
		return it
	}
	n := next().Int
	rc.name = string(next().Data)
	rc.arity = next().Int
	for nflags := next().Int; nflags > 0; nflags-- {
		rc.flags = append(rc.flags, string(next().Data))
	}
	for i := int64(3); i < n-1; i++ {
		var err error
		if b, err = resp.Skip(b); err != nil {
			t.Fatal(err)
		}
	}
	for nsubs := next().Int; nsubs > 0; nsubs-- {
		var sub redisCommand
		sub, b = parseCommandInfo(t, b)
		rc.subs = append(rc.subs, sub)
	}
	return rc, b
}

// TestCommandTableMatchesRedis checks every command's arity and the flags
// dispatch acts on against Redis 7.0.15's own COMMAND INFO (captured in
// commandinfo_gen.go), so a typo in the table cannot go unnoticed.
func TestCommandTableMatchesRedis(t *testing.T) {
	flagNames := map[cmdFlags]string{
		fWrite: "write", fReadOnly: "readonly", fDenyOOM: "denyoom", fFast: "fast",
		fNoScript: "noscript", fNoAuth: "no_auth", fAllowBusy: "allow_busy",
		fNoMulti: "no_multi", fPubSub: "pubsub",
	}
	check := func(cmd *command, rc redisCommand) {
		t.Helper()
		if int64(cmd.arity) != rc.arity {
			t.Errorf("%s: arity %d, Redis says %d", cmd.name, cmd.arity, rc.arity)
		}
		for f, name := range flagNames {
			if got, want := cmd.flags&f != 0, slices.Contains(rc.flags, name); got != want {
				t.Errorf("%s: flag %s is %v, Redis says %v", cmd.name, name, got, want)
			}
		}
		hidden := slices.Contains(rc.flags, "admin") || slices.Contains(rc.flags, "skip_monitor")
		if got := cmd.flags&fSkipMonitor != 0; got != hidden {
			t.Errorf("%s: hidden from MONITOR is %v, Redis says %v", cmd.name, got, hidden)
		}
	}
	for _, name := range commandNames() {
		raw, ok := commandInfo[2][name]
		if !ok {
			t.Errorf("%s: no COMMAND INFO captured; rerun internal/gencommands", name)
			continue
		}
		rc, _ := parseCommandInfo(t, []byte(raw))
		cmd := commands[name]
		if cmd.subs == nil {
			check(cmd, rc)
			continue
		}
		for subName, sub := range cmd.subIndex {
			i := slices.IndexFunc(rc.subs, func(s redisCommand) bool { return s.name == sub.name })
			if i < 0 {
				t.Errorf("%s: Redis 7.0 has no such subcommand (%s)", sub.name, subName)
				continue
			}
			check(sub, rc.subs[i])
		}
	}
	for name := range commandInfo[2] {
		if commands[name] == nil {
			t.Errorf("COMMAND INFO captured for %s, which minilock does not have", name)
		}
	}
}

// A name listed twice in the table (or twice among a container's
// subcommands) stops the server at start-up instead of leaving a dead row.
func TestCommandTableRejectsDuplicates(t *testing.T) {
	for _, table := range [][]*command{
		{{name: "get", arity: 2}, {name: "get", arity: 2}},
		{{name: "client", subs: []*command{{name: "id", arity: 2}, {name: "id", arity: 2}}}},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("index accepted %s twice", table[len(table)-1].name)
				}
			}()
			index(table)
		}()
	}
}
