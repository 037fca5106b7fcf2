package diff_test

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/minilock/minilock/internal/redistest"
)

// Run-time configuration and what a standalone node answers about
// replication: CONFIG SET of the limits Redis changes live, the hidden
// parameters, min-replicas-to-write's NOREPLICAS, CLIENT REPLY with
// pub/sub, SMOVE's signals, ASKING, REPLCONF, and the arity and MULTI
// answers of SYNC and PSYNC (their success, a full resynchronization, is
// a deliberate difference). Each case puts back what it changed.

// bulkSetFrame is SET k with an n-byte value, as one multibulk.
func bulkSetFrame(n int) string {
	return fmt.Sprintf("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$%d\r\n%s\r\n", n, strings.Repeat("x", n))
}

// noReplicas sets min-replicas-to-write to n (0 turns the check off).
func noReplicas(n int) step { return cmd("CONFIG", "SET", "min-replicas-to-write", strconv.Itoa(n)) }

var runtimeCases = []diffCase{
	tc("proto-max-bulk-len live",
		c("CONFIG SET proto-max-bulk-len 1mb"), c("CONFIG GET proto-max-bulk-len"),
		c("SETRANGE k 1048576 x"), c("SETRANGE k 1048575 x"), c("STRLEN k"), c("APPEND k y"),
		c("CONFIG SET proto-max-bulk-len 1048575"), c("CONFIG SET proto-max-bulk-len 2mb"),
		raw(bulkSetFrame(1<<20)).on(1),
		c("CONFIG SET proto-max-bulk-len 1mb"),
		// The header alone: the server closes at it, and a payload still
		// being sent would fail to send.
		raw(fmt.Sprintf("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$%d\r\n", 1<<20+1)).on(1).eof(),
		c("CONFIG SET proto-max-bulk-len 536870912")),
	tc("client-query-buffer-limit live",
		c("CONFIG SET client-query-buffer-limit 1mb"), c("CONFIG GET client-query-buffer-limit"),
		c("CONFIG SET client-query-buffer-limit 1048575"), c("CONFIG SET client-query-buffer-limit 0"),
		raw(bulkSetFrame(1000)).on(1),
		// A command past the limit closes the connection (TestLiveFrameLimits
		// in server: sending it here races the close).
		c("CONFIG SET client-query-buffer-limit 1gb"), c("CONFIG GET client-query-buffer-limit")),
	tc("busy-reply-threshold and lua-time-limit live",
		c("CONFIG SET lua-time-limit 100"), c("CONFIG GET busy-reply-threshold"), c("CONFIG GET lua-time-limit"),
		c("CONFIG SET busy-reply-threshold 0"), c("CONFIG GET lua-time-limit"),
		c("CONFIG SET busy-reply-threshold -1"), c("CONFIG SET lua-time-limit x"),
		c("CONFIG SET busy-reply-threshold 5000 lua-time-limit 10"),
		// The top of the range is more milliseconds than a time.Duration
		// holds (the generated config cases found it read back as 0).
		c("CONFIG SET lua-time-limit 9223372036854775807"), c("CONFIG GET busy-reply-threshold"),
		c("CONFIG SET busy-reply-threshold 9223372036854776"), c("CONFIG GET lua-time-limit"),
		cmd("EVAL", "return 1", "0"),
		c("CONFIG SET busy-reply-threshold 5000"), c("CONFIG GET busy-reply-threshold")),
	tc("latency-tracking-info-percentiles as string2d reads them",
		// Split at each single space, each part strtod's whole and no
		// more: hex floats are numbers, a leading space an empty part.
		cmd("CONFIG", "SET", "latency-tracking-info-percentiles", "0x10"), c("CONFIG GET latency-tracking-info-percentiles"),
		cmd("CONFIG", "SET", "latency-tracking-info-percentiles", " 5"), cmd("CONFIG", "SET", "latency-tracking-info-percentiles", "5  6"),
		cmd("CONFIG", "SET", "latency-tracking-info-percentiles", "0x1p-30 99.9 -0"), c("CONFIG GET latency-tracking-info-percentiles"),
		cmd("CONFIG", "SET", "latency-tracking-info-percentiles", "inf"), cmd("CONFIG", "SET", "latency-tracking-info-percentiles", "1e999"),
		cmd("CONFIG", "SET", "latency-tracking-info-percentiles", "1e-400"), cmd("CONFIG", "SET", "latency-tracking-info-percentiles", "nan"),
		cmd("CONFIG", "SET", "latency-tracking-info-percentiles", "0x10", "shutdown-timeout", "-1"),
		cmd("CONFIG", "SET", "latency-tracking-info-percentiles", ""), c("CONFIG GET latency-tracking-info-percentiles"),
		cmd("CONFIG", "SET", "latency-tracking-info-percentiles", "50 99 99.9"), c("CONFIG GET latency-tracking-info-percentiles")),
	tc("port and bind refused",
		c("CONFIG SET bind 192.0.2.1"), c("CONFIG SET port 65536"), c("CONFIG SET port -1"), c("CONFIG SET port x"), c("PING")),
	tc("hidden configs",
		c("CONFIG GET key-load-delay"), c("CONFIG GET rdb-key-save-delay"), c("CONFIG GET loading-process-events-interval-bytes"),
		c("CONFIG GET use-exit-on-panic"), c("CONFIG GET watchdog-period"), c("CONFIG GET lua-enable-deprecated-api"),
		c("CONFIG GET KEY-LOAD-DELAY"), c("CONFIG GET key-load-delay*"), c("CONFIG GET *save-delay*").with(sortedPairs), c("CONFIG GET *key*").with(sortedPairs),
		c("CONFIG GET *-period").with(sortedPairs), c("CONFIG GET use-*"),
		c("CONFIG SET key-load-delay -2147483648"), c("CONFIG SET key-load-delay 2147483648"), c("CONFIG GET key-load-delay"),
		c("CONFIG SET loading-process-events-interval-bytes 1023"), c("CONFIG SET loading-process-events-interval-bytes 1kb"),
		c("CONFIG SET loading-process-events-interval-bytes 4096"), c("CONFIG GET loading-process-events-interval-bytes"),
		c("CONFIG SET use-exit-on-panic maybe"), c("CONFIG SET use-exit-on-panic YES"), c("CONFIG GET use-exit-on-panic"),
		c("CONFIG SET watchdog-period -1"), c("CONFIG SET lua-enable-deprecated-api yes"),
		c("CONFIG SET key-load-delay 0 loading-process-events-interval-bytes 2097152 use-exit-on-panic no"),
		c("CONFIG GET key-load-delay")),
	tc("min-replicas-to-write refuses writes",
		c("SET k v"), c("INFO replication").with(infoMask("master_replid")),
		c("MULTI").on(1), c("SET k w").on(1), c("FCALL nosuch 0").on(1),
		noReplicas(1), c("CONFIG GET min-slaves-to-write"),
		c("EXEC").on(1),
		c("SET k x"), c("GET k"), c("DEL k"), c("EXPIRE k 10"), c("FLUSHDB"), c("PUBLISH c m"), c("INCR n"),
		c("INFO replication").with(infoMask("master_replid")),
		c("MULTI"), c("GET k"), c("SET k y"), c("EXEC"),
		c("MULTI"), c("GET k"), c("EXEC"),
		cmd("EVAL", "return redis.call('set','k','x')", "0"),
		cmd("EVAL", "return redis.pcall('set','k','x')", "0"),
		cmd("EVAL", "return redis.call('get','k')", "0"),
		cmd("EVAL", "#!lua\nreturn 1", "0"),
		cmd("EVAL", "#!lua flags=no-writes\nreturn 1", "0"),
		cmd("EVAL", "#!lua flags=allow-oom\nreturn 1", "0"),
		cmd("EVAL_RO", "return redis.call('get','k')", "0"),
		c("MULTI"), cmd("EVAL", "return redis.call('set','k','x')", "0"), c("EXEC"),
		cmd("FUNCTION", "LOAD", "#!lua name=l\nredis.register_function('f', function() return 1 end)"),
		c("CONFIG SET min-replicas-max-lag 0"), c("SET k z"),
		c("INFO replication").with(infoMask("master_replid")),
		c("CONFIG SET min-replicas-max-lag 10"), c("SET k z"),
		noReplicas(0), c("SET k z"), c("GET k")),
	tc("min-replicas-to-write and functions",
		cmd("FUNCTION", "LOAD", "REPLACE", "#!lua name=l\n"+
			"redis.register_function('w', function() return redis.call('set','z','1') end)\n"+
			"redis.register_function{function_name='r', callback=function() return redis.call('get','z') end, flags={'no-writes'}}"),
		noReplicas(2),
		c("FCALL w 0"), c("FCALL r 0"), c("FCALL_RO r 0"), c("FCALL_RO w 0"),
		c("MULTI"), c("FCALL r 0"), c("EXEC"),
		c("MULTI"), c("FCALL w 0"), c("EXEC"),
		c("FUNCTION DELETE l"),
		noReplicas(0), c("FUNCTION DELETE l"), c("FUNCTION LIST")),
	tc("smove to a set that has the member",
		c("SADD src a b"), c("SADD dst a"),
		c("WATCH dst"), c("SMOVE src dst a").on(1), c("MULTI"), c("SET x 1"), c("EXEC"),
		c("WATCH src"), c("SMOVE src dst b").on(1), c("MULTI"), c("SET x 1"), c("EXEC"),
		c("SMEMBERS src"), c("SMEMBERS dst").with(sorted)),
	notifyCase("notify smove", "KEA",
		c("SADD src a b c"), recv(1, 2), c("SADD dst a"), recv(1, 2),
		c("SMOVE src dst a"), recv(1, 2),
		c("SMOVE src dst b"), recv(1, 4),
		c("SMOVE src dst nosuch"),
		c("SMOVE src src c"),
		c("SMOVE src dst c"), recv(1, 6),
		c("SADD dst2 c"), recv(1, 2),
		c("SMOVE dst dst2 c"), recv(1, 2)),
	tc("asking replconf sync",
		c("ASKING"), c("ASKING x"), c("asking"),
		c("REPLCONF"), c("REPLCONF listening-port 6380"), c("REPLCONF listening-port"), c("REPLCONF listening-port x"),
		c("REPLCONF ip-address 10.0.0.1"), cmd("REPLCONF", "ip-address", strings.Repeat("a", 255)),
		cmd("REPLCONF", "ip-address", strings.Repeat("a", 256)),
		c("REPLCONF capa eof capa psync2"), c("REPLCONF CAPA whatever"), c("REPLCONF rdb-only 1"), c("REPLCONF rdb-only 0"),
		c("REPLCONF rdb-only 2"), c("REPLCONF rdb-only -1"), c("REPLCONF rdb-only x"), c("REPLCONF nope 1"),
		cmd("REPLCONF", "a\r\nb", "1"), cmd("REPLCONF", "a\x00b", "1"), c("REPLCONF a b c"),
		c("REPLCONF listening-port 1 nope 2"), c("REPLCONF listening-port x ack 1"),
		c("REPLCONF ack 1").expect(0), c("REPLCONF getack 1").expect(0), c("REPLCONF listening-port 1 ack 1").expect(0), c("PING"),
		c("SYNC x"), c("PSYNC"), c("PSYNC a"), c("MULTI"), c("SYNC"), c("PSYNC ? -1"), c("ASKING"), c("REPLCONF capa eof"), c("EXEC"),
		cmd("EVAL", "return redis.call('replconf','capa','eof')", "0"), cmd("EVAL", "return redis.call('asking')", "0"),
		c("COMMAND INFO asking replconf sync psync"), c("COMMAND DOCS asking").with(sortedPairs)),
}

// clientReplyPubsubCases: pub/sub frames are not replies (Redis's
// CLIENT_PUSHING): CLIENT REPLY OFF or SKIP leaves a subscriber its
// confirmations and messages, in RESP2 and RESP3. Connection 0 is the
// subscriber, 1 publishes; each case ends with a message that must be the
// next frame connection 0 gets.
func clientReplyPubsubCases() []diffCase {
	var cases []diffCase
	for _, proto := range []string{"2", "3"} {
		hello := c("HELLO " + proto).with(helloID)
		add := func(name string, steps ...func(ch string) step) {
			// A channel of its own: a subscriber of the case before may
			// not be gone yet when this one publishes.
			ch := fmt.Sprintf("rp%d", len(cases))
			all := []step{hello}
			for _, st := range steps {
				all = append(all, st(ch))
			}
			all = append(all, cmd("PUBLISH", ch, "end").on(1), recv(0, 1))
			cases = append(cases, tc(name+" resp"+proto, all...))
		}
		fixed := func(st step) func(string) step { return func(string) step { return st } }
		sub := func(ch string) step { return cmd("SUBSCRIBE", ch) }
		pub := func(ch string) step { return cmd("PUBLISH", ch, "m").on(1) }
		add("reply off subscribe",
			fixed(c("CLIENT REPLY OFF").expect(0)), sub, pub, fixed(recv(0, 1)),
			func(ch string) step { return cmd("PSUBSCRIBE", ch+"x*") },
			func(ch string) step { return cmd("PUBLISH", ch+"xy", "m").on(1) }, fixed(recv(0, 1)), fixed(c("PING").expect(0)),
			fixed(c("UNSUBSCRIBE nosuch")), sub)
		add("reply skip subscribe",
			fixed(c("CLIENT REPLY SKIP").expect(0)), sub, pub, fixed(recv(0, 1)), fixed(c("PING")))
		add("reply skip then on",
			fixed(c("CLIENT REPLY SKIP").expect(0)), fixed(c("CLIENT REPLY ON")), fixed(c("PING")), fixed(c("GET x")), sub)
		add("reply skip skip on",
			fixed(c("CLIENT REPLY SKIP").expect(0)), fixed(c("CLIENT REPLY SKIP").expect(0)), fixed(c("CLIENT REPLY ON")), fixed(c("PING")), sub)
		add("reply off skip on",
			fixed(c("CLIENT REPLY OFF").expect(0)), fixed(c("CLIENT REPLY SKIP").expect(0)), fixed(c("PING").expect(0)),
			fixed(c("CLIENT REPLY ON")), fixed(c("PING")), sub)
		add("reply skip subscribe then on",
			fixed(c("CLIENT REPLY SKIP").expect(0)), sub, fixed(c("CLIENT REPLY ON")), fixed(c("PING")), pub, fixed(recv(0, 1)))
		add("reply skip publish to self",
			sub, fixed(c("CLIENT REPLY SKIP").expect(map[string]int{"2": 1, "3": 0}[proto])))
	}
	// RESP3 only: a subscriber may run any command, so it can publish to
	// itself with its replies off.
	cases = append(cases, tc("reply off publish to self resp3",
		c("HELLO 3").with(helloID), c("SUBSCRIBE rpself"), c("CLIENT REPLY OFF").expect(0),
		c("PUBLISH rpself self").expect(1), c("MULTI").expect(0), c("PUBLISH rpself tx").expect(0), c("EXEC").expect(1),
		cmd("EVAL", "return redis.call('publish','rpself','lua')", "0").expect(1),
		c("CLIENT REPLY ON"), c("PUBLISH rpself back").expect(2)))
	return cases
}

// skippedParams are the parameters the generator leaves alone: they would
// change the servers under the other cases (listening addresses, client
// limits and eviction, persistence files, timeouts), Redis acts on them
// outside the protocol (TLS files, OOM scores, the watchdog signal, the
// process title), or hand-written cases cover them (min-replicas-*).
var skippedParams = map[string]bool{
	"port": true, "bind": true, "maxclients": true, "timeout": true, "requirepass": true, "protected-mode": true,
	"maxmemory": true, "maxmemory-clients": true, "client-output-buffer-limit": true,
	"save": true, "appendonly": true, "dir": true, "dbfilename": true,
	"oom-score-adj": true, "oom-score-adj-values": true, "watchdog-period": true,
	"min-replicas-to-write": true, "min-slaves-to-write": true, "min-replicas-max-lag": true, "min-slaves-max-lag": true,
	"replicaof": true, "slaveof": true, "unixsocket": true, "logfile": true,
}

// hiddenParams are the HIDDEN_CONFIG parameters, which CONFIG GET * does
// not list.
var hiddenParams = []string{"key-load-delay", "rdb-key-save-delay", "loading-process-events-interval-bytes", "use-exit-on-panic", "lua-enable-deprecated-api"}

// enumWords are words some enum parameter takes.
var enumWords = []string{"everysec", "always", "no", "yes", "ignore", "panic", "panic-on-replicas", "disabled", "swapdb",
	"on-empty-db", "noeviction", "allkeys-lru", "volatile-ttl", "ip", "hostname", "unknown-endpoint", "default", "save",
	"nosave", "now", "force", "clients", "optional", "relative", "debug", "verbose", "notice", "warning", "allchannels",
	"resetchannels", "EVERYSEC", "Notice", "bogus"}

// randomParamValue is a value for a parameter whose default is def:
// integers at and past the edges of Redis's ranges, memory units, booleans
// and enum words, spelled well or badly.
func randomParamValue(r *rand.Rand, def string) string {
	edges := []string{"0", "1", "-1", "1023", "1024", "1048575", "1048576", "2147483647", "2147483648", "-2147483648",
		"-2147483649", "4294967295", "4294967296", "9223372036854775807", "9223372036854775808", "-9223372036854775808"}
	switch r.IntN(9) {
	case 0, 1:
		return edges[r.IntN(len(edges))]
	case 2:
		return strconv.Itoa(r.IntN(5000)) + []string{"", "b", "k", "kb", "m", "mb", "g", "gb", "KB", "Mb", "x", " "}[r.IntN(12)]
	case 3:
		return []string{"yes", "no", "YES", "No", "maybe", "", " yes", "yes\x00x"}[r.IntN(8)]
	case 4:
		return enumWords[r.IntN(len(enumWords))]
	case 5:
		return def
	case 6:
		return strings.ToUpper(def)
	case 7:
		return []string{"", "abc", "a b", "-", "+5", " 5", "0x10", "1e3", "5.0", "007", "{title}", "{port} x", "{bogus}", "{{", "a_b", "host-1.example"}[r.IntN(16)]
	}
	return strconv.Itoa(r.IntN(300))
}

// randomRuntimeConfigCases CONFIG SET one to three parameters at once,
// drawn from every parameter redis-server lists (and the hidden ones),
// with generated values, read them back with CONFIG GET, and put back the
// defaults, read from redis-server before the cases.
func randomRuntimeConfigCases(r *rand.Rand, n int, defaults map[string]string) []diffCase {
	var names []string
	for name := range defaults {
		if !skippedParams[name] && !strings.HasPrefix(name, "tls-") {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	var cases []diffCase
	for i := range n {
		var steps []step
		touched := map[string]bool{}
		for range 3 {
			args := []string{"CONFIG", "SET"}
			var read []string
			for range 1 + r.IntN(3) {
				p := names[r.IntN(len(names))]
				if r.IntN(5) == 0 {
					p = strings.ToUpper(p)
				}
				args = append(args, p, randomParamValue(r, defaults[strings.ToLower(p)]))
				read = append(read, p)
				touched[strings.ToLower(p)] = true
			}
			steps = append(steps, cmd(args...), cmd(append([]string{"CONFIG", "GET"}, read...)...).with(sortedPairs))
		}
		var reset []string
		for _, p := range names {
			if touched[p] {
				reset = append(reset, p)
			}
		}
		for _, p := range reset {
			steps = append(steps, cmd("CONFIG", "SET", p, defaults[p]))
		}
		cases = append(cases, tc(fmt.Sprintf("config %d", i), steps...))
	}
	return cases
}

// serverDefaults reads every parameter's value from redis-server, hidden
// ones included.
func serverDefaults(t *testing.T, e *endpoint) map[string]string {
	t.Helper()
	out := map[string]string{}
	read := func(pattern string) {
		b, err := e.admin.Do("CONFIG", "GET", pattern)
		if err != nil {
			t.Fatal(err)
		}
		elems, ok := arrayElems(b)
		if !ok {
			t.Fatalf("CONFIG GET %s: %q", pattern, b)
		}
		for i := 0; i+1 < len(elems); i += 2 {
			out[string(bulkText(elems[i]))] = string(bulkText(elems[i+1]))
		}
	}
	read("*")
	for _, h := range hiddenParams {
		read(h)
	}
	return out
}

// bulkText is a RESP bulk string's payload.
func bulkText(b []byte) []byte {
	if i := strings.Index(string(b), "\r\n"); i >= 0 && len(b) >= i+4 {
		return b[i+2 : len(b)-2]
	}
	return nil
}

var runtimeConfigCases = flag.Int("diff.configcases", 60, "generated CONFIG SET cases in TestDiffRuntime")

// TestDiffRuntime runs the run-time configuration cases: hand-written, and
// generated CONFIG SET/GET over every parameter (seeded; rerun a failure
// with -diff.seed).
func TestDiffRuntime(t *testing.T) {
	redistest.Require(t)
	r := seededRand(t)
	p := newPair(t, "")
	defaults := serverDefaults(t, &p.ends[0])
	groups := []caseGroup{
		{"runtime", runtimeCases},
		{"client reply pubsub", clientReplyPubsubCases()},
		{"random config", randomRuntimeConfigCases(r, *runtimeConfigCases, defaults)},
	}
	checkCaseNames(t, groups)
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			for _, dc := range g.cases {
				t.Run(dc.name, func(t *testing.T) { p.run(t, dc) })
			}
		})
	}
}
