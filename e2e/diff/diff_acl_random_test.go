package diff_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/minilock/minilock/internal/redistest"
)

// TestDiffACLRandom sends generated ACL cases to both servers: a user made
// of random rules (every kind ACL SETUSER takes, some malformed), its
// GETUSER and LIST, then random commands on random keys and channels as
// that user (at the top level, in MULTI, from scripts), each also asked of
// ACL DRYRUN, and the ACL LOG they leave. The seed is logged; rerun a
// failure with -diff.seed.
func TestDiffACLRandom(t *testing.T) {
	redistest.Require(t)
	r := seededRand(t)
	p := newPair(t, "")
	cases := randomACLCases(r, 150)
	steps := 0
	for _, dc := range cases {
		steps += len(dc.steps)
	}
	runACLCases(t, p, cases)
	t.Logf("differential: %d random ACL cases, %d replies compared", len(cases), steps)
}

var (
	aclKeys     = []string{"a1", "a2", "b1", "r1", "w1", "k1", "k2", "x"}
	aclChannels = []string{"ch1", "ch2", "news", "n1", "x"}
	aclPatterns = []string{"*", "a*", "b?", "k[12]", "r*", "w*", "x", "nomatch", "a1"}
	aclChanPats = []string{"*", "ch*", "ch1", "n?", "news", "x"}
	aclCmds     = []string{"get", "set", "mget", "mset", "del", "copy", "lpush", "lmove", "sunionstore", "publish", "spublish",
		"eval", "client", "client|getname", "client|id", "config|get", "select", "hset", "incr", "exists", "ping", "echo",
		"acl", "acl|whoami", "acl|getuser", "multi", "exec", "rename", "object|encoding", "sort", "keys", "flushall"}
	aclCats = []string{"all", "read", "write", "string", "list", "set", "hash", "keyspace", "admin", "dangerous", "fast",
		"slow", "pubsub", "scripting", "transaction", "connection", "blocking", "sortedset"}
)

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// randomRule is one ACL SETUSER argument.
func randomRule(r *rand.Rand, inSelector bool) string {
	for {
		switch r.IntN(24) {
		case 0:
			return pick(r, []string{"on", "off", "ON"})
		case 1:
			return pick(r, []string{">p1", ">p2", "<p1", "nopass", "resetpass", "#" + strings.Repeat("ab", 32), "!" + strings.Repeat("ab", 32), "#bad"})
		case 2, 3, 4:
			return pick(r, []string{"~", "%R~", "%W~", "%RW~", "%r~"}) + pick(r, aclPatterns)
		case 5:
			return pick(r, []string{"allkeys", "resetkeys"})
		case 6, 7:
			return "&" + pick(r, aclChanPats)
		case 8:
			return pick(r, []string{"allchannels", "resetchannels"})
		case 9, 10, 11, 12:
			return pick(r, []string{"+", "-"}) + pick(r, aclCmds)
		case 13, 14, 15:
			return pick(r, []string{"+@", "-@"}) + pick(r, aclCats)
		case 16:
			return pick(r, []string{"allcommands", "nocommands", "+select|0", "+config|get", "-client|kill", "+client|nosuch", "+nosuch"})
		case 17:
			if !inSelector && r.IntN(3) == 0 {
				return pick(r, []string{"reset", "clearselectors"})
			}
		case 18, 19:
			if !inSelector {
				n := 1 + r.IntN(3)
				parts := make([]string, n)
				for i := range parts {
					parts[i] = randomSelectorRule(r)
				}
				return "(" + strings.Join(parts, " ") + ")"
			}
		default:
			return pick(r, []string{"+@all", "~*", "&*", "+get", "~a*", "%R~r*", "%W~w*"})
		}
	}
}

func randomSelectorRule(r *rand.Rand) string {
	for {
		rule := randomRule(r, true)
		switch rule {
		case "on", "off", "ON", ">p1", ">p2", "<p1", "nopass", "resetpass", "#bad":
			continue
		}
		if rule[0] == '#' || rule[0] == '!' {
			continue
		}
		return rule
	}
}

// randomACLCommand is a command whose reply both servers give alike.
func randomACLCommand(r *rand.Rand) []string {
	k := func() string { return pick(r, aclKeys) }
	ch := func() string { return pick(r, aclChannels) }
	switch r.IntN(22) {
	case 0:
		return []string{"GET", k()}
	case 1:
		return []string{"SET", k(), "v"}
	case 2:
		return []string{"MGET", k(), k(), k()}
	case 3:
		return []string{"MSET", k(), "1", k(), "2"}
	case 4:
		return []string{"DEL", k(), k()}
	case 5:
		return []string{"COPY", k(), k(), "REPLACE"}
	case 6:
		return []string{"LPUSH", k(), "e"}
	case 7:
		return []string{"LMOVE", k(), k(), "LEFT", "RIGHT"}
	case 8:
		return []string{"SUNIONSTORE", k(), k(), k()}
	case 9:
		return []string{"PUBLISH", ch(), "m"}
	case 10:
		return []string{"SPUBLISH", ch(), "m"}
	case 11:
		return []string{"EVAL", fmt.Sprintf("return redis.pcall('%s', KEYS[1], '%s')", pick(r, []string{"get", "set", "incr", "publish"}), k()), "1", k()}
	case 12:
		return []string{"EVAL", fmt.Sprintf("return redis.call('get', '%s')", k()), "0"}
	case 13:
		return []string{"CLIENT", "GETNAME"}
	case 14:
		return []string{"CONFIG", "GET", "maxclients"}
	case 15:
		return []string{"SELECT", pick(r, []string{"0", "1"})}
	case 16:
		return []string{"HSET", k(), "f", "v"}
	case 17:
		return []string{"INCR", k()}
	case 18:
		return []string{"EXISTS", k(), k()}
	case 19:
		return []string{"ACL", "WHOAMI"}
	case 20:
		return []string{"OBJECT", "ENCODING", k()}
	default:
		return []string{"RENAME", k(), k()}
	}
}

func randomACLCases(r *rand.Rand, n int) []diffCase {
	var cases []diffCase
	for i := range n {
		setuser := []string{"ACL", "SETUSER", "u"}
		for range 2 + r.IntN(8) {
			setuser = append(setuser, randomRule(r, false))
		}
		if r.IntN(4) != 0 {
			setuser = append(setuser, "on", ">p1") // mostly a user one can log in as
		}
		steps := []step{
			cmd(setuser...),
			cmd("ACL", "SETUSER", "u", randomRule(r, false), randomRule(r, false)),
			rules("ACL", "GETUSER", "u"),
			rules("ACL", "LIST"),
			cmd("AUTH", "u", pick(r, []string{"p1", "p1", "p1", "p2"})).on(1),
			c("SET a1 1").on(2), // an unrestricted third connection seeds data
			c("SET k1 1").on(2),
		}
		for range 4 + r.IntN(8) {
			args := randomACLCommand(r)
			steps = append(steps, cmd(append([]string{"ACL", "DRYRUN", "u"}, args...)...))
			switch r.IntN(6) {
			case 0:
				steps = append(steps, c("MULTI").on(1), cmd(args...).on(1), cmd(randomACLCommand(r)...).on(1), c("EXEC").on(1))
			case 1:
				steps = append(steps, c("MULTI").on(1), cmd(args...).on(1),
					cmd("ACL", "SETUSER", "u", randomRule(r, false)), c("EXEC").on(1))
			default:
				steps = append(steps, cmd(args...).on(1))
			}
		}
		steps = append(steps, c("ACL LOG").with(aclLog), rules("ACL", "LIST"))
		cases = append(cases, tc(fmt.Sprintf("user %d", i), steps...))
	}
	return cases
}
