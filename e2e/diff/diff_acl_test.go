package diff_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/minilock/minilock/internal/redistest"
)

// ACL users (acl.c): every rule of ACL SETUSER, the replies of GETUSER,
// LIST, USERS, WHOAMI, CAT, DRYRUN, LOG, the NOPERM errors at the top
// level, in MULTI and EXEC, in scripts and functions, for keys by read and
// write access and for channels, AUTH and HELLO AUTH by user, and the
// disconnections DELUSER, CLIENT KILL USER and a channel rule taken away
// cause. The users are per server, so these cases run on a pair of their
// own, reset between cases (TestDiffACL).

// bulkString matches a RESP bulk string whose content has no CR or LF.
var bulkString = regexp.MustCompile(`\$(\d+)\r\n([^\r\n]*)\r\n`)

// aclRules orders the single-command rules of each rule string
// ("-@all +@read +get +set"): Redis renders them in its command dict's
// seeded order, minilock in name order. The categories before them, whose
// choice and order are deterministic, stay as they are.
var aclRules = &normalizer{"single-command rules sorted", func(b []byte) ([]byte, bool) {
	return bulkString.ReplaceAllFunc(b, func(m []byte) []byte {
		sub := bulkString.FindSubmatch(m)
		s := string(sub[2])
		if !strings.Contains(s, "@all") {
			return m
		}
		return []byte("$" + string(sub[1]) + "\r\n" + sortRuleRuns(s) + "\r\n")
	}), true
}}

// sortRuleRuns sorts each run of consecutive +cmd/-cmd tokens of s.
func sortRuleRuns(s string) string {
	toks := strings.Split(s, " ")
	single := func(t string) bool {
		return len(t) > 1 && (t[0] == '+' || t[0] == '-') && t[1] != '@'
	}
	for i := 0; i < len(toks); {
		if !single(toks[i]) {
			i++
			continue
		}
		j := i
		closing := false
		for j < len(toks) && single(toks[j]) && !closing {
			closing = strings.HasSuffix(toks[j], ")")
			j++
		}
		run := toks[i:j]
		if closing {
			run[len(run)-1] = strings.TrimSuffix(run[len(run)-1], ")")
		}
		slices.Sort(run)
		if closing {
			run[len(run)-1] += ")"
		}
		i = j
	}
	return strings.Join(toks, " ")
}

// clientInfoKept are the CLIENT INFO fields an ACL LOG entry is compared
// by: the rest are sizes and ids of each server's own.
var clientInfoKept = []string{"name", "flags", "db", "sub", "psub", "multi", "cmd", "user", "resp"}

var (
	logAge        = regexp.MustCompile(`(\$11\r\nage-seconds\r\n)(\$\d+\r\n[^\r\n]*|,[^\r\n]*)\r\n`)
	logClientInfo = regexp.MustCompile(`\$11\r\nclient-info\r\n\$\d+\r\n([^\r\n]*)\r\n`)
)

// aclLog masks what differs between two servers in ACL LOG entries: the
// age (milliseconds apart) and the client's ids, addresses and sizes.
var aclLog = &normalizer{"ACL LOG age and client sizes", func(b []byte) ([]byte, bool) {
	b = logAge.ReplaceAll(b, []byte("${1}AGE\r\n"))
	b = logClientInfo.ReplaceAllFunc(b, func(m []byte) []byte {
		line := string(logClientInfo.FindSubmatch(m)[1])
		var kept []string
		for _, f := range strings.Fields(line) {
			name, _, _ := strings.Cut(f, "=")
			if slices.Contains(clientInfoKept, name) {
				kept = append(kept, f)
			}
		}
		return []byte("$11\r\nclient-info\r\n" + strings.Join(kept, " ") + "\r\n")
	})
	return b, true
}}

// genpassLen keeps only a bulk string's length (ACL GENPASS).
var genpassLen = &normalizer{"length of a bulk", func(b []byte) ([]byte, bool) {
	i := strings.Index(string(b), "\r\n")
	if len(b) == 0 || b[0] != '$' || i < 0 {
		return nil, false
	}
	return b[:i+2], true
}}

func rules(args ...string) step { return cmd(args...).with(aclRules) }

var aclCases = []diffCase{
	tc("default user", rules("ACL", "GETUSER", "default"), rules("ACL", "LIST"), c("ACL USERS"), c("ACL WHOAMI")),
	tc("new user", c("ACL SETUSER bob"), rules("ACL", "GETUSER", "bob"), rules("ACL", "LIST"), c("ACL USERS")),
	tc("flags", c("ACL SETUSER u on"), c("ACL GETUSER u"), c("ACL SETUSER u off"), c("ACL GETUSER u"),
		c("ACL SETUSER u skip-sanitize-payload"), c("ACL GETUSER u"), c("ACL SETUSER u sanitize-payload nopass"), c("ACL GETUSER u"),
		c("ACL SETUSER u ON"), c("ACL SETUSER u reset"), c("ACL GETUSER u")),
	tc("passwords", c("ACL SETUSER u >one >two >one"), c("ACL GETUSER u"), c("ACL SETUSER u <one"), c("ACL GETUSER u"),
		c("ACL SETUSER u <nope"), c("ACL SETUSER u #"+strings.Repeat("a", 64)), c("ACL GETUSER u"),
		c("ACL SETUSER u !"+strings.Repeat("a", 64)), c("ACL SETUSER u !"+strings.Repeat("a", 64)),
		c("ACL SETUSER u #abc"), c("ACL SETUSER u #"+strings.Repeat("A", 64)), c("ACL SETUSER u nopass"), c("ACL GETUSER u"),
		c("ACL SETUSER u >x"), c("ACL GETUSER u"), c("ACL SETUSER u resetpass"), c("ACL GETUSER u"), rules("ACL", "LIST")),
	tc("key patterns", c("ACL SETUSER u ~a* %R~r* %W~w* %RW~rw* ~a* %R~w*"), c("ACL GETUSER u"),
		c("ACL SETUSER u %r~x %w~y %Rw~z"), c("ACL GETUSER u"), c("ACL SETUSER u %RR~x"), c("ACL SETUSER u %X~x"),
		c("ACL SETUSER u allkeys"), c("ACL GETUSER u"), c("ACL SETUSER u ~foo"), c("ACL SETUSER u %R~foo"),
		c("ACL SETUSER u resetkeys ~b"), c("ACL GETUSER u"), c("ACL SETUSER u ~*"), c("ACL GETUSER u"),
		c("ACL SETUSER u resetkeys"), rules("ACL", "LIST")),
	tc("channel patterns", c("ACL SETUSER u &a* &b &a*"), c("ACL GETUSER u"), c("ACL SETUSER u allchannels"), c("ACL GETUSER u"),
		c("ACL SETUSER u &x"), c("ACL SETUSER u resetchannels &y"), c("ACL GETUSER u"), c("ACL SETUSER u &*"), c("ACL GETUSER u"),
		c("ACL SETUSER u resetchannels"), rules("ACL", "LIST")),
	tc("commands", c("ACL SETUSER u +get +set"), rules("ACL", "GETUSER", "u"), c("ACL SETUSER u -get"), rules("ACL", "GETUSER", "u"),
		c("ACL SETUSER u +@read"), rules("ACL", "GETUSER", "u"), c("ACL SETUSER u -@string"), rules("ACL", "GETUSER", "u"),
		c("ACL SETUSER u allcommands"), c("ACL GETUSER u"), c("ACL SETUSER u -@dangerous -debug"), rules("ACL", "GETUSER", "u"),
		c("ACL SETUSER u nocommands +client|list +client|kill"), rules("ACL", "GETUSER", "u"),
		c("ACL SETUSER u +client"), rules("ACL", "GETUSER", "u"), c("ACL SETUSER u -client|kill"), rules("ACL", "GETUSER", "u"),
		c("ACL SETUSER u -@all +select|0 +select|1"), rules("ACL", "GETUSER", "u"),
		c("ACL SETUSER u +@all -@admin +config|get -@keyspace +del"), rules("ACL", "GETUSER", "u"), rules("ACL", "LIST"),
		c("ACL SETUSER u -@all +@hash +@list +@set -hset +sort"), rules("ACL", "GETUSER", "u"),
		c("ACL SETUSER u +@ALL -@Read"), rules("ACL", "GETUSER", "u"), c("ACL SETUSER u -@all +GET +Client|List"), rules("ACL", "GETUSER", "u")),
	tc("command errors", c("ACL SETUSER u +nosuch"), c("ACL SETUSER u -nosuch"), c("ACL SETUSER u +@nosuch"), c("ACL SETUSER u -@nosuch"),
		c("ACL SETUSER u +client|nosuch"), c("ACL SETUSER u +client|list|x"), c("ACL SETUSER u +get|"), c("ACL SETUSER u -client|nosuch"),
		c("ACL SETUSER u nosuch"), c("ACL SETUSER u +"), c("ACL SETUSER u -"), c("ACL SETUSER u ~a +get +nosuch"), c("ACL USERS"),
		cmd("ACL", "SETUSER", "u", "~a b"), cmd("ACL", "SETUSER", "u", "&a b"), cmd("ACL", "SETUSER", "a b"), cmd("ACL", "SETUSER", "u", "")),
	tc("selectors", cmd("ACL", "SETUSER", "u", "on", "nopass", "(+get ~a*)", "(+set ~b* &c)"), rules("ACL", "GETUSER", "u"), rules("ACL", "LIST"),
		c("ACL SETUSER u (+hget ~h* %R~r*)"), rules("ACL", "GETUSER", "u"), c("ACL SETUSER u clearselectors"), rules("ACL", "GETUSER", "u"),
		c("ACL SETUSER u (~a"), c("ACL SETUSER u (~a ~b"), c("ACL SETUSER u (~a +nosuch)"), c("ACL SETUSER u (foo)"),
		c("ACL SETUSER u ( ~x )"), rules("ACL", "GETUSER", "u"), c("ACL SETUSER u () (allkeys allchannels allcommands)"), rules("ACL", "GETUSER", "u"),
		c("ACL SETUSER u reset"), rules("ACL", "GETUSER", "u")),
	tc("getuser resp3", c("HELLO 3").with(streamIDs), c("ACL SETUSER u on >p ~k (+get ~a)"), rules("ACL", "GETUSER", "u"), c("ACL GETUSER nosuch"), rules("ACL", "GETUSER", "default")),
	tc("deluser", c("ACL SETUSER a"), c("ACL SETUSER b"), c("ACL DELUSER a nosuch"), c("ACL DELUSER a b default"), c("ACL USERS"),
		c("ACL DELUSER b b"), c("ACL USERS"), c("ACL DELUSER default"), c("ACL DELUSER")),
	tc("whoami auth", c("ACL SETUSER u on >pw +@all ~*"), c("AUTH u wrong"), c("AUTH u pw"), c("ACL WHOAMI"), c("AUTH nosuch pw"),
		c("AUTH pw"), c("AUTH default x"), c("AUTH a b c"), c("ACL WHOAMI"), c("ACL SETUSER v off >pw +@all"), c("AUTH v pw"),
		c("ACL SETUSER n on nopass +@all"), c("AUTH n anything"), c("ACL WHOAMI"), c("RESET"), c("ACL WHOAMI"),
		c("HELLO 2 AUTH u wrong"), c("HELLO 2 AUTH u pw").with(streamIDs), c("ACL WHOAMI"), c("CLIENT INFO").with(clientInfoUser)),
	tc("top-level denials", c("ACL SETUSER u on nopass ~a* %R~r* %W~w* &ch* +@all -flushall -client|kill"), c("AUTH u x"),
		c("GET a1"), c("GET b1"), c("SET a1 v"), c("SET r1 v"), c("GET r1"), c("SET w1 v"), c("GET w1"), c("SET w1 v GET"),
		c("MSET a1 1 a2 2 b3 3"), c("COPY r1 a9"), c("COPY a1 r9"), c("LMOVE w1 a1 LEFT LEFT"), c("RENAME a1 w2"), c("APPEND w1 x"),
		c("FLUSHALL"), c("CLIENT KILL ID 99999"), c("CLIENT LIST ID 1"), c("PUBLISH ch1 m"), c("PUBLISH dh m"), c("SPUBLISH dh m"),
		c("EVAL 1 1 b1"), c("FCALL f 1 b1"), c("OBJECT ENCODING b1"), c("XREAD STREAMS a1 b1 0 0"), c("BLPOP b1 a1 1"),
		c("ACL LOG").with(aclLog)),
	tc("subscribe denials", c("ACL SETUSER u on nopass ~* &ch* &lit +@all"), c("AUTH u x"), c("SUBSCRIBE x"), c("SUBSCRIBE ch1 x ch2"),
		c("PSUBSCRIBE ch*").expect(1), c("PSUBSCRIBE ch1*"), c("SSUBSCRIBE zz"), c("ACL LOG 2").with(aclLog)),
	tc("multi denials", c("ACL SETUSER u on nopass ~a* +@all -keys"), c("AUTH u x"), c("MULTI"), c("GET a"), c("GET b"), c("KEYS *"), c("EXEC"),
		c("MULTI"), c("SET a 1"), c("EXEC"), c("ACL LOG").with(aclLog)),
	tc("exec after rules changed", c("ACL SETUSER u on nopass ~a* ~b* &c +@all"), c("AUTH u x"), c("MULTI"), c("SET a 1"), c("SET b 1"),
		c("GET a"), c("PUBLISH c m"), c("ACL WHOAMI"),
		c("ACL SETUSER u resetkeys ~a* resetchannels -acl").on(1), c("EXEC"), c("ACL LOG 3").with(aclLog).on(1)),
	tc("exec denied itself", c("ACL SETUSER u on nopass ~* +@all -exec"), c("AUTH u x"), c("MULTI"), c("SET a 1"), c("EXEC"), c("DISCARD")),
	tc("scripts", c("ACL SETUSER u on nopass ~a* %R~r* &c +@all -del -acl"), c("AUTH u x"),
		cmd("EVAL", "return redis.call('get','b')", "0"), cmd("EVAL", "return redis.pcall('get','b')", "0"),
		cmd("EVAL", "return redis.call('set','r','v')", "0"), cmd("EVAL", "return redis.call('del','a')", "0"),
		cmd("EVAL", "return redis.pcall('publish','d','m')", "0"), cmd("EVAL", "return redis.call('publish','c','m')", "0"),
		cmd("EVAL", "return redis.call('set','a','v')", "0"), cmd("EVAL", "return redis.call('get',KEYS[1])", "1", "b"),
		cmd("EVAL_RO", "return redis.call('get','r')", "0"),
		cmd("EVAL", "return {redis.acl_check_cmd('get','a'), redis.acl_check_cmd('get','b'), redis.acl_check_cmd('del','a'), redis.acl_check_cmd('get'), redis.acl_check_cmd('publish','c','m'), redis.acl_check_cmd('publish','d','m')}", "0"),
		cmd("EVAL", "return redis.acl_check_cmd('nosuch')", "0"),
		c("ACL LOG 5").with(aclLog)),
	tc("functions", cmd("FUNCTION", "LOAD", "#!lua name=l\nredis.register_function('g', function(k) return redis.call('get', k[1]) end)\nredis.register_function('h', function(k, a) return redis.call('get', a[1]) end)"),
		c("ACL SETUSER u on nopass ~a* +@all"), c("AUTH u x"), c("FCALL g 1 a"), c("FCALL g 1 b"), c("FCALL h 0 b"), c("FCALL h 0 a"),
		c("ACL LOG 2").with(aclLog)),
	tc("blocking", c("ACL SETUSER u on nopass ~a* +@all"), c("AUTH u x"), c("BLPOP b 0"), c("BLMOVE a b LEFT LEFT 0"), c("BZPOPMIN b 0"),
		c("XREAD BLOCK 0 STREAMS b $"), c("ACL SETUSER u -@blocking"), c("BLPOP a 0"), c("ACL LOG 2").with(aclLog)),
	tc("dryrun", c("ACL SETUSER u on ~a* %R~r* &c* +get +set +publish +client|list"), c("ACL DRYRUN u GET a"), c("ACL DRYRUN u GET b"),
		c("ACL DRYRUN u SET r v"), c("ACL DRYRUN u GET r"), c("ACL DRYRUN u DEL a"), c("ACL DRYRUN u PUBLISH c1 m"), c("ACL DRYRUN u PUBLISH d m"),
		c("ACL DRYRUN u CLIENT LIST"), c("ACL DRYRUN u CLIENT KILL ID 1"), c("ACL DRYRUN u CLIENT"), c("ACL DRYRUN u CLIENT NOSUCH"),
		c("ACL DRYRUN u NOSUCH"), c("ACL DRYRUN nosuch GET a"), c("ACL DRYRUN u GET"), c("ACL DRYRUN u"), c("ACL DRYRUN u MGET a b a"),
		c("ACL DRYRUN default FLUSHALL"), c("ACL LOG")),
	tc("cat", c("ACL CAT"), c("ACL CAT read").with(sorted), c("ACL CAT Dangerous").with(sorted), c("ACL CAT nosuch"), c("ACL CAT a b"),
		c("ACL CAT scripting").with(sorted), c("ACL CAT pubsub").with(sorted), c("ACL CAT keyspace").with(sorted), c("ACL CAT write").with(sorted),
		c("ACL CAT admin").with(sorted), c("ACL CAT slow").with(sorted), c("ACL CAT fast").with(sorted), c("ACL CAT connection").with(sorted)),
	tc("genpass", c("ACL GENPASS").with(genpassLen), c("ACL GENPASS 1").with(genpassLen), c("ACL GENPASS 5").with(genpassLen),
		c("ACL GENPASS 4096").with(genpassLen), c("ACL GENPASS 4097"), c("ACL GENPASS 0"), c("ACL GENPASS -1"), c("ACL GENPASS x"), c("ACL GENPASS 1 2")),
	tc("log", c("ACL SETUSER u on nopass ~a +get"), c("AUTH u x"), c("GET b"), c("GET b"), c("SET a 1"), c("AUTH u x"), c("AUTH nosuch x"),
		c("auth nosuch x"), c("ACL LOG").on(1).with(aclLog), c("ACL LOG 1").on(1).with(aclLog), c("ACL LOG 0").on(1), c("ACL LOG -5").on(1),
		c("ACL LOG x").on(1), c("ACL LOG 1 2").on(1), c("ACL LOG RESET").on(1), c("ACL LOG").on(1), c("HELLO 3").on(1).with(streamIDs),
		c("GET b"), c("ACL LOG").on(1).with(aclLog)),
	tc("help and errors", c("ACL HELP"), c("ACL"), c("ACL NOSUCH"), c("ACL GETUSER"), c("ACL GETUSER a b"), c("ACL LIST x"),
		c("ACL WHOAMI x"), c("ACL SETUSER"), c("ACL LOAD"), c("ACL SAVE")),
	tc("deluser disconnects", c("ACL SETUSER u on nopass +@all ~*"), c("AUTH u x").on(1), c("PING").on(1),
		c("ACL DELUSER u"), c("PING").on(1).eof()),
	tc("deluser self", c("ACL SETUSER u on nopass +@all ~*"), c("AUTH u x"), c("ACL DELUSER u"), c("PING").eof()),
	tc("client kill user", c("ACL SETUSER u on nopass +@all ~*"), c("AUTH u x").on(1), c("CLIENT KILL USER nosuch"),
		c("CLIENT KILL USER u"), c("PING").on(1).eof()),
	tc("channels taken away", c("ACL SETUSER u on nopass +@all ~* &a &b*"), c("AUTH u x").on(1), c("SUBSCRIBE a").on(1),
		c("AUTH u x").on(2), c("PSUBSCRIBE b*").on(2), c("ACL SETUSER u &c"), c("PUBLISH a m").on(0), c("ACL SETUSER u resetchannels &b*"),
		c("PING").on(1).eof(), c("PING").on(2), c("ACL SETUSER u resetchannels &b"), c("PING").on(2).eof()),
	tc("requirepass is default's password", c("CONFIG SET requirepass pw"), rules("ACL", "LIST"), c("AUTH pw"), c("AUTH default pw"),
		c("AUTH default x"), c("PING").on(1), c("AUTH pw").on(1), c("ACL SETUSER default nopass"), c("CONFIG GET requirepass"),
		c("CONFIG SET requirepass"+" "+"\"\""), c("CONFIG SET requirepass q"), rules("ACL", "GETUSER", "default"), cmd("CONFIG", "SET", "requirepass", ""),
		rules("ACL", "GETUSER", "default"), c("AUTH x")),
	tc("disabled default", c("ACL SETUSER u on nopass +@all ~* &*"), c("ACL SETUSER default off"), c("PING").on(1), c("AUTH u x").on(1),
		c("PING").on(1), c("ACL SETUSER default on")),
	tc("noauth commands", c("ACL SETUSER u on nopass -@all"), c("AUTH u x"), c("PING"), c("AUTH u x"), c("HELLO 2").with(streamIDs), c("QUIT")),
	tc("first args", c("ACL SETUSER u on nopass -@all +select|0 +config|get ~*"), c("AUTH u x"), c("SELECT 0"), c("SELECT 1"),
		c("CONFIG GET maxclients"), c("CONFIG SET maxclients 10"), c("ACL LOG 2").with(aclLog)),
}

// clientInfoUser keeps CLIENT INFO's user field.
var clientInfoUser = &normalizer{"CLIENT INFO user", func(b []byte) ([]byte, bool) {
	i := strings.Index(string(b), " user=")
	if i < 0 {
		return nil, false
	}
	rest := string(b[i+1:])
	return []byte(rest[:strings.IndexByte(rest, ' ')]), true
}}

// aclReset removes every user but default, gives default back its
// permissions and empties the ACL LOG.
func aclReset(t *testing.T, e *endpoint) {
	t.Helper()
	mustOK(t, e, "ACL", "SETUSER", "default", "reset", "on", "nopass", "~*", "&*", "+@all")
	mustOK(t, e, "CONFIG", "SET", "requirepass", "")
	users, err := e.admin.Do("ACL", "USERS")
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range bulkString.FindAllSubmatch(users, -1) {
		if string(u[2]) != "default" {
			if _, err := e.admin.Do("ACL", "DELUSER", string(u[2])); err != nil {
				t.Fatal(err)
			}
		}
	}
	mustOK(t, e, "ACL", "LOG", "RESET")
	mustOK(t, e, "FUNCTION", "FLUSH")
}

// TestDiffACL runs the ACL cases on a pair of their own.
func TestDiffACL(t *testing.T) {
	redistest.Require(t)
	p := newPair(t, "")
	runACLCases(t, p, aclCases)
	t.Logf("differential: %d ACL cases", len(aclCases))
}

func runACLCases(t *testing.T, p *pair, cases []diffCase) {
	checkCaseNames(t, []caseGroup{{"acl", cases}})
	for _, dc := range cases {
		t.Run(dc.name, func(t *testing.T) {
			for i := range p.ends {
				aclReset(t, &p.ends[i])
			}
			p.run(t, dc)
			if t.Failed() {
				for i, st := range dc.steps {
					t.Logf("step %d on conn %d: %s", i+1, st.conn, st.label)
				}
			}
		})
	}
	for i := range p.ends {
		aclReset(t, &p.ends[i])
	}
}
