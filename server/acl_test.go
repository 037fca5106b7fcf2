package server

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/minilock/minilock/internal/cmdspec"
	"github.com/minilock/minilock/internal/redistest"
)

// exampleArgs builds a call of cmd from its documented arguments, every
// key named key: optional arguments included, each multiple one once, the
// first choice of each oneof.
func exampleArgs(cmd *command, key string) []string {
	argv := strings.Split(cmd.name, "|")
	var walk func(args []cmdspec.Arg)
	walk = func(args []cmdspec.Arg) {
		for _, a := range args {
			if a.Token != "" {
				argv = append(argv, a.Token)
			}
			switch a.Type {
			case cmdspec.ArgKey:
				argv = append(argv, key)
			case cmdspec.ArgInteger, cmdspec.ArgUnixTime:
				argv = append(argv, "1")
			case cmdspec.ArgDouble:
				argv = append(argv, "0.01")
			case cmdspec.ArgString, cmdspec.ArgPattern:
				argv = append(argv, "x")
			case cmdspec.ArgOneOf:
				if len(a.Args) > 0 {
					walk(a.Args[:1])
				}
			case cmdspec.ArgBlock:
				walk(a.Args)
			}
		}
	}
	walk(cmd.spec.Docs.Args)
	return argv
}

// snapshot is every key of every database with its type and content, as
// an admin connection reads them.
func snapshot(t *testing.T, admin *redistest.Conn) string {
	t.Helper()
	var b strings.Builder
	for db := range 16 {
		admin.MustDo("SELECT", strconv.Itoa(db))
		keys := admin.MustDo("KEYS", "*")
		b.WriteString(strconv.Itoa(db) + ":" + keys)
	}
	admin.MustDo("SELECT", "0")
	for _, c := range [][]string{{"GET", "secret:s"}, {"LRANGE", "secret:l", "0", "-1"}, {"HGETALL", "secret:h"},
		{"ZRANGE", "secret:z", "0", "-1", "WITHSCORES"}, {"XRANGE", "secret:x", "-", "+"}, {"TTL", "secret:s"}} {
		b.WriteString(admin.MustDo(c...))
	}
	return b.String()
}

// TestACLNoPathReachesRefusedKeys runs every command of the table that
// takes a key on keys the user may not touch, directly, queued in MULTI,
// from a script's redis.pcall and from a function, and checks that each
// is refused and that nothing in any database changed. Then every command
// the user may not run, and every channel command on a refused channel.
func TestACLNoPathReachesRefusedKeys(t *testing.T) {
	s := RunT(t, Config{})
	admin := redistest.Dial(t, s.Addr())
	admin.MustDo("FUNCTION", "LOAD", "#!lua name=leak\nredis.register_function('run', function(keys, args) return redis.pcall(unpack(args)) end)")
	for _, c := range [][]string{{"SET", "secret:s", "v"}, {"RPUSH", "secret:l", "a", "b"}, {"HSET", "secret:h", "f", "v"},
		{"ZADD", "secret:z", "1", "m"}, {"XADD", "secret:x", "1-1", "f", "v"}} {
		admin.MustDo(c...)
	}
	admin.MustDo("ACL", "SETUSER", "u", "on", "nopass", "+@all", "-@dangerous", "~pub*", "&pubch*")
	before := snapshot(t, admin)
	u := redistest.Dial(t, s.Addr())
	if got := u.MustDo("AUTH", "u", "x"); got != "+OK\r\n" {
		t.Fatalf("AUTH: %q", got)
	}
	tested, skipped := 0, []string(nil)
	var all []*command
	for _, cmd := range commandTable {
		all = append(all, cmd)
		all = append(all, cmd.subs...)
	}
	for _, cmd := range all {
		if !cmd.spec.HasKeys() || cmd.subs != nil {
			continue
		}
		argv := exampleArgs(cmd, "secret:s")
		bargv := make([][]byte, len(argv))
		for i, a := range argv {
			bargv[i] = []byte(a)
		}
		if len(commandKeyRefs(cmd, bargv)) == 0 {
			skipped = append(skipped, strings.Join(argv, " "))
			continue
		}
		tested++
		line := strings.Join(argv, " ")
		if got := u.MustDo(argv...); !strings.HasPrefix(got, "-NOPERM ") {
			t.Errorf("%s: %q, want NOPERM", line, got)
		}
		u.MustDo("MULTI")
		if got := u.MustDo(argv...); !strings.HasPrefix(got, "-NOPERM ") {
			t.Errorf("MULTI %s: %q, want NOPERM", line, got)
		}
		if got := u.MustDo("EXEC"); !strings.HasPrefix(got, "-EXECABORT") {
			t.Errorf("EXEC of %s: %q, want EXECABORT", line, got)
		}
		script := append([]string{"EVAL", "return redis.pcall(unpack(ARGV))", "0"}, argv...)
		if got := u.MustDo(script...); !strings.Contains(got, "The user executing the script can't") && !strings.Contains(got, "not allowed from script") {
			t.Errorf("EVAL %s: %q, want refused", line, got)
		}
		fcall := append([]string{"FCALL", "run", "0"}, argv...)
		if got := u.MustDo(fcall...); !strings.Contains(got, "The user executing the script can't") && !strings.Contains(got, "not allowed from script") {
			t.Errorf("FCALL %s: %q, want refused", line, got)
		}
	}
	if tested < 150 {
		t.Errorf("only %d commands with keys tested; skipped: %q", tested, skipped)
	}
	t.Logf("%d commands tested on refused keys by 4 paths; no key found in the example call of: %q", tested, skipped)

	// Commands the user may not run at all.
	denied := 0
	for _, cmd := range all {
		if cmd.spec.ACL&cmdspec.ACLDangerous == 0 || cmd.subs != nil || protected(cmd) != nil {
			// DEBUG and MODULE LOAD are refused before any ACL check.
			continue
		}
		denied++
		argv := exampleArgs(cmd, "pub")
		if got := u.MustDo(argv...); !strings.HasPrefix(got, "-NOPERM this user has no permissions to run the '"+cmd.name+"' command") {
			t.Errorf("%s: %q", strings.Join(argv, " "), got)
		}
	}
	// Channels.
	for _, argv := range [][]string{{"PUBLISH", "secret", "m"}, {"SPUBLISH", "secret", "m"}, {"SUBSCRIBE", "pubch1", "secret"},
		{"PSUBSCRIBE", "pub*"}, {"SSUBSCRIBE", "secret"}} {
		if got := u.MustDo(argv...); !strings.HasPrefix(got, "-NOPERM this user has no permissions to access one of the channels") {
			t.Errorf("%q: %q", argv, got)
		}
		if argv[0] == "PUBLISH" || argv[0] == "SPUBLISH" {
			script := append([]string{"EVAL", "return redis.pcall(unpack(ARGV))", "0"}, argv...)
			if got := u.MustDo(script...); !strings.Contains(got, "can't publish to the channel") {
				t.Errorf("EVAL %q: %q", argv, got)
			}
		}
	}
	if after := snapshot(t, admin); after != before {
		t.Errorf("the data changed:\nbefore %q\nafter  %q", before, after)
	}
	if denied < 20 {
		t.Errorf("only %d dangerous commands", denied)
	}
	if !slices.ContainsFunc(all, func(c *command) bool { return c.name == "blpop" }) {
		t.Error("no blocking command in the table")
	}
}

// TestACLWhileScriptBusy: the commands a client may send while a script is
// busy (SCRIPT KILL, SHUTDOWN) are refused to a user without them.
func TestACLWhileScriptBusy(t *testing.T) {
	s := RunT(t, Config{BusyThreshold: scrBusyThreshold})
	admin := redistest.Dial(t, s.Addr())
	admin.MustDo("ACL", "SETUSER", "u", "on", "nopass", "~*", "+@all", "-@admin", "-@dangerous", "-script|kill")
	u := redistest.Dial(t, s.Addr())
	if got := u.MustDo("AUTH", "u", "x"); got != "+OK\r\n" {
		t.Fatalf("AUTH: %q", got)
	}
	b := redistest.Dial(t, s.Addr())
	a, first := scrStartScript(t, s.Addr(), scrLoop, b)
	if first != scrBusy {
		t.Fatalf("PING while busy: %q", first)
	}
	for _, argv := range [][]string{{"SCRIPT", "KILL"}, {"SHUTDOWN", "NOSAVE"}} {
		want := "-NOPERM this user has no permissions to run the '" + strings.ToLower(strings.Join(argv, "|")) + "' command\r\n"
		if argv[0] == "SHUTDOWN" {
			want = "-NOPERM this user has no permissions to run the 'shutdown' command\r\n"
		}
		if got := u.MustDo(argv...); got != want {
			t.Errorf("%q while busy: %q, want %q", argv, got, want)
		}
	}
	if got := b.MustDo("SCRIPT", "KILL"); got != "+OK\r\n" {
		t.Fatalf("SCRIPT KILL: %q", got)
	}
	if got := a.MustReply(); got != scrKilled(scrLoop) {
		t.Fatalf("the script: %q", got)
	}
}
