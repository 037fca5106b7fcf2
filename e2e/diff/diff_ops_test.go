package diff_test

// What operators' tools read: SLOWLOG, INFO, CONFIG GET/SET, CLIENT KILL,
// PAUSE and REPLY. Values that differ by nature (times, durations,
// addresses, memory, pids) are masked by the normalizers below; field
// names, their order and format are compared, and so is every figure that
// is the same on both servers after CONFIG RESETSTAT (calls, errors, hits).

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/minilock/minilock/resp"
)

// slowOn and slowOff bracket the slow-log cases: log every command, then
// back to the default.
var (
	slowOn  = c("CONFIG SET slowlog-log-slower-than 0")
	slowOff = c("CONFIG SET slowlog-log-slower-than 10000")
)

func manyArgs(n int) []string {
	args := []string{"RPUSH", "l"}
	for i := range n {
		args = append(args, strconv.Itoa(i))
	}
	return args
}

var slowlogCases = []diffCase{
	tc("slowlog entries", slowOn, c("SLOWLOG RESET"), c("SET k v"), c("GET k"), c("CLIENT SETNAME me"), cmd("SET", strings.Repeat("x", 200), strings.Repeat("y", 129)),
		cmd(manyArgs(40)...), cmd(manyArgs(30)...), c("AUTH nopass"), c("HELLO 2 AUTH default pw SETNAME x").with(helloID), c("CONFIG SET masterauth secret"), cmd("CONFIG", "SET", "masterauth", ""),
		c("SLOWLOG LEN"), c("SLOWLOG GET").with(slowlogShape), c("SLOWLOG GET 2").with(slowlogShape), c("SLOWLOG GET -1").with(slowlogShape), c("SLOWLOG GET 0"), slowOff, c("SLOWLOG RESET")),
	tc("slowlog scripts and transactions", slowOn, c("SLOWLOG RESET"), cmd("EVAL", "redis.call('SET', KEYS[1], 'v') return redis.pcall('get', KEYS[1])", "1", "k"),
		cmd("EVAL", "return redis.pcall('INCR', 'k')", "0"), c("MULTI"), c("SET a 1"), c("INCR a"), c("EXEC"), c("SLOWLOG GET 20").with(slowlogShape), slowOff, c("SLOWLOG RESET")),
	tc("slowlog other connections", slowOn, c("SLOWLOG RESET"), c("CLIENT SETNAME other").on(1), c("PING").on(1), c("SLOWLOG GET").with(slowlogShape), slowOff, c("SLOWLOG RESET")),
	tc("slowlog max len", slowOn, c("CONFIG SET slowlog-max-len 2"), c("SLOWLOG RESET"), c("SLOWLOG LEN"), c("SET a 1"), c("SET b 2"), c("SET c 3"), c("SLOWLOG LEN"),
		c("SLOWLOG GET").with(slowlogShape), c("CONFIG SET slowlog-max-len 0"), c("SLOWLOG LEN"), c("PING"), c("SLOWLOG LEN"), c("CONFIG SET slowlog-max-len 128"), c("CONFIG GET slowlog-*").with(sortedPairs), slowOff, c("SLOWLOG RESET")),
	tc("slowlog threshold", c("CONFIG SET slowlog-log-slower-than -1"), c("SLOWLOG RESET"), c("SET a 1"), c("SLOWLOG LEN"), c("CONFIG SET slowlog-log-slower-than 100000000"), c("SET a 1"), c("SLOWLOG LEN"),
		c("CONFIG SET slowlog-log-slower-than -2"), c("CONFIG SET slowlog-log-slower-than x"), c("CONFIG GET slowlog-log-slower-than"), slowOff, c("SLOWLOG RESET")),
	tc("slowlog errors", c("SLOWLOG GET x"), c("SLOWLOG GET -2"), c("SLOWLOG GET 1 2"), c("SLOWLOG RESET x"), c("SLOWLOG LEN x"), c("SLOWLOG foo"), c("SLOWLOG"), c("SLOWLOG HELP"), c("slowlog help"),
		c("SLOWLOG GET 99999999999999999999")),
	tc("slowlog from scripts", cmd("EVAL", "return redis.call('SLOWLOG', 'LEN')", "0"), cmd("EVAL", "return redis.pcall('SLOWLOG', 'GET', 'x')", "0")),
	tc("slowlog resp3", c("HELLO 3").with(helloID), slowOn, c("SLOWLOG RESET"), c("SET k v"), c("SLOWLOG GET").with(slowlogShape), slowOff, c("SLOWLOG RESET")),
}

var memLatencyCases = []diffCase{
	tc("memory usage", c("MEMORY USAGE nosuch"), c("SET lock 0123456789abcdef"), c("MEMORY USAGE lock").with(positiveInt), c("MEMORY USAGE lock SAMPLES 0").with(positiveInt),
		c("MEMORY USAGE lock samples x"), c("MEMORY USAGE lock foo 1"), c("MEMORY USAGE lock SAMPLES"), c("MEMORY USAGE"), c("HSET h a 1"), c("MEMORY USAGE h").with(positiveInt),
		c("RPUSH l a b"), c("MEMORY USAGE l").with(positiveInt), c("SET k v EX 100"), c("MEMORY USAGE k").with(positiveInt), c("TTL k"), cmd("EVAL", "return redis.call('MEMORY', 'USAGE', 'lock') > 0", "0")),
	tc("latency monitor off", c("LATENCY LATEST"), c("LATENCY HISTORY command"), c("LATENCY RESET"), c("LATENCY RESET command x"), c("LATENCY DOCTOR"), c("LATENCY HISTORY"), c("LATENCY LATEST x"),
		c("LATENCY FOO"), cmd("EVAL", "return redis.call('LATENCY', 'LATEST')", "0")),
	// The threshold is far above what any other command of the case takes
	// on a loaded machine, so that only the script's 150 ms is an event.
	tc("latency monitor on", c("CONFIG SET latency-monitor-threshold 100"), c("LATENCY RESET"), c("PING"), c("LATENCY LATEST"),
		cmd("EVAL", "local t = redis.call('TIME') while true do local n = redis.call('TIME') if (n[1]-t[1])*1000000 + (n[2]-t[2]) > 150000 then break end end", "0"),
		c("LATENCY LATEST").with(latencyShape), c("LATENCY HISTORY command").with(latencyShape), c("LATENCY HISTORY nosuch"),
		c("LATENCY GRAPH command").with(digitsMasked), c("LATENCY GRAPH nosuch"), c("LATENCY GRAPH"), c("LATENCY GRAPH a b"), c("LATENCY RESET command x"), c("LATENCY LATEST"), c("LATENCY GRAPH command"),
		c("CONFIG SET latency-monitor-threshold 0"), c("CONFIG GET latency-monitor-threshold")),
	tc("latency histogram", c("CONFIG RESETSTAT"), c("SET a 1"), c("SET b 2"), c("GET a"), c("CONFIG GET maxclients"), c("LATENCY HISTOGRAM nosuch"),
		c("LATENCY HISTOGRAM SET get config nosuch config|get CONFIG|GET set|x a|b|c GET").with(histogramShape), c("LATENCY HISTOGRAM").with(histogramShape),
		cmd("EVAL", "return redis.call('LATENCY', 'HISTOGRAM')", "0"), c("LATENCY HELP"),
		c("CONFIG SET latency-tracking no"), c("CONFIG RESETSTAT"), c("PING"), c("LATENCY HISTOGRAM"), c("CONFIG SET latency-tracking yes"),
		c("HELLO 3").with(helloID), c("CONFIG RESETSTAT"), c("GET a"), c("LATENCY HISTOGRAM get").with(histogramShape), c("LATENCY HISTOGRAM").with(histogramShape)),
}

var infoCases = []diffCase{
	tc("info field names", c("INFO").with(infoFieldNames), c("INFO default").with(infoFieldNames), c("INFO all").with(infoFieldNames), c("INFO everything").with(infoFieldNames),
		c("INFO server keyspace").with(infoFieldNames), c("INFO CPU cpu").with(infoFieldNames), c("INFO memory").with(infoFieldNames), c("INFO persistence stats replication clients").with(infoFieldNames)),
	tc("info sections with values", c("INFO replication").with(infoMask("master_replid")), c("INFO persistence").with(infoMask("rdb_last_save_time", "rdb_changes_since_last_save")),
		c("INFO clients").with(infoMask("client_recent_max_input_buffer", "client_recent_max_output_buffer")), c("CLIENT SETNAME x").on(1), c("INFO clients").with(infoMask("client_recent_max_input_buffer", "client_recent_max_output_buffer")),
		c("CONFIG SET maxmemory 10mb maxmemory-policy allkeys-lru"), c("INFO memory").with(infoValues("maxmemory", "maxmemory_human", "maxmemory_policy", "number_of_cached_scripts", "number_of_functions")),
		c("CONFIG SET maxmemory 0 maxmemory-policy noeviction")),
	tc("info sections exact", c("INFO nosuch"), c("INFO modules"), c("INFO cluster"), c("INFO cluster nosuch modules"), c("INFO keyspace"), c("SET k v EX 100"), c("SET j v"), c("INFO keyspace").with(avgTTL), c("SELECT 3"), c("SET k v"), c("INFO keyspace").with(avgTTL)),
	tc("info counters after resetstat", c("CONFIG RESETSTAT"), c("INFO errorstats"), c("SET a 1"), c("GET a"), c("GET nosuch"), c("INCR a"), c("HSET a f v"), c("GET"), c("NOSUCH"), c("INCR nosuch"),
		c("EXISTS a b c"), cmd("EVAL", "redis.pcall('HGET', 'a', 'f') return redis.call('GET', 'a')", "0"), cmd("EVAL", "return redis.error_reply('MYERR custom')", "0"), cmd("EVAL", "return redis.call('HGET', 'a', 'f')", "0"),
		cmd("EVAL", "return redis.call('NOSUCH')", "0"), cmd("EVAL", "error('boom')", "0"), cmd("EVAL", "return redis.pcall('HGET', 'a', 'f')", "0"),
		cmd("EVAL", "return redis.call('GET')", "0"), cmd("EVAL", "return redis.call('SET', 'a', 'b', 'XX', 'NX')", "0"), c("MULTI"), c("HGET a f"), c("GET a"), c("EXEC"), c("MULTI"), c("GET"), c("EXEC"), c("MULTI"), c("GET a"), c("EXEC"),
		c("CLIENT NOSUCH"), c("CONFIG GET"), c("SLOWLOG GET x"),
		c("INFO errorstats"), c("INFO commandstats").with(commandStats), c("INFO stats").with(infoValues(statsKept...)), c("INFO latencystats").with(latencyStats)),
	tc("info counters of transactions", c("CONFIG RESETSTAT"), c("MULTI"), c("GET"), c("EXEC"), c("MULTI"), c("EXEC x"), c("EXEC"), c("MULTI"), c("MULTI"), c("SET a b"), c("EXEC"),
		c("DISCARD"), c("INFO errorstats"), c("INFO commandstats").with(commandStats)),
	tc("info counters resp3", c("HELLO 3").with(helloID), c("CONFIG RESETSTAT"), c("SET a 1"), c("GET a b"), c("INFO errorstats"), c("INFO commandstats").with(commandStats)),
	tc("info latency percentiles", c("CONFIG RESETSTAT"), cmd("CONFIG", "SET", "latency-tracking-info-percentiles", "50 99.99 100 0"), c("PING"), c("INFO latencystats").with(latencyStats),
		c("CONFIG SET latency-tracking no"), c("CONFIG RESETSTAT"), c("PING"), c("INFO latencystats"), cmd("CONFIG", "SET", "latency-tracking", "yes", "latency-tracking-info-percentiles", "50 99 99.9")),
	tc("info from a script", cmd("EVAL", "return redis.call('INFO', 'cluster')", "0")),
}

// statsKept are the INFO stats fields whose values are the same on both
// servers after CONFIG RESETSTAT and the same commands.
var statsKept = []string{"total_connections_received", "total_commands_processed", "rejected_connections", "expired_keys", "evicted_keys",
	"keyspace_hits", "keyspace_misses", "total_error_replies", "unexpected_error_replies", "sync_full", "pubsub_channels", "total_forks"}

var configCases = []diffCase{
	tc("config get every default", c("CONFIG GET *").with(configDefaults)),
	tc("config get patterns", c("CONFIG GET maxmemory*").with(sortedPairs), c("CONFIG GET slowlog-* *-max-len").with(sortedPairs), c("CONFIG GET MaxMemory"), c("CONFIG GET nosuch *nomatch*"),
		c("CONFIG GET hash-max-* hash-max-ziplist-entries").with(sortedPairs), c("CONFIG GET slave-* replica-*").with(sortedPairs), c("CONFIG GET lua-time-limit busy-reply-threshold").with(sortedPairs),
		c("CONFIG GET maxmemory maxmemory MAXMEMORY"), c("CONFIG GET ?z").with(sortedPairs), c("CONFIG GET [lm]ax*").with(sortedPairs)),
	tc("config set kinds", c("CONFIG SET maxmemory 1kb"), c("CONFIG GET maxmemory"), c("CONFIG SET maxmemory 1GB maxmemory-policy ALLKEYS-LRU"), c("CONFIG GET maxmemory*").with(sortedPairs),
		c("CONFIG SET maxmemory 0 maxmemory-policy noeviction"), c("CONFIG SET activerehashing NO"), c("CONFIG GET activerehashing"), c("CONFIG SET activerehashing yes"),
		c("CONFIG SET loglevel WARNING"), c("CONFIG GET loglevel"), c("CONFIG SET loglevel notice"), c("CONFIG SET hz 20"), c("CONFIG GET hz"), c("INFO server").with(infoValues("hz", "configured_hz")), c("CONFIG SET hz 10"),
		c("CONFIG SET tracking-table-max-keys 5"), c("CONFIG GET tracking-table-max-keys"), c("CONFIG SET tracking-table-max-keys 1000000")),
	tc("config set C strings, hz bounds, activedefrag",
		cmd("CONFIG", "SET", "hash-max-listpack-value", "100\x00x"), c("CONFIG GET hash-max-listpack-value"),
		cmd("CONFIG", "SET", "dynamic-hz", "no\x00yes"), c("CONFIG GET dynamic-hz"),
		cmd("CONFIG", "SET", "maxmemory-policy", "allkeys-lru\x00"), c("CONFIG GET maxmemory-policy"),
		cmd("CONFIG", "SET", "hz", "1\x00"), c("CONFIG SET hz 0"), c("CONFIG GET hz"), c("CONFIG SET hz 100000"), c("CONFIG GET hz"),
		c("CONFIG SET activedefrag yes"), c("CONFIG SET activedefrag no"), c("CONFIG SET hz 5 activedefrag YES"), c("CONFIG GET hz"),
		c("CONFIG SET hash-max-listpack-value 64 dynamic-hz yes maxmemory-policy noeviction hz 10")),
	tc("config set errors", c("CONFIG SET activerehashing maybe"), c("CONFIG SET loglevel loud"), c("CONFIG SET hz x"), c("CONFIG SET hz -1"), c("CONFIG SET maxmemory -1"), c("CONFIG SET maxmemory 1xb"),
		c("CONFIG SET timeout 99999999999"), c("CONFIG SET maxclients 0"), c("CONFIG SET Daemonize no"), c("CONFIG SET databases 4"), c("CONFIG SET dir /tmp"), c("CONFIG SET dbfilename x.rdb"),
		c("CONFIG SET hz 5 HZ 6"), c("CONFIG SET hz 5 nosuch 1"), c("CONFIG SET hz x daemonize no"), c("CONFIG SET HASH-MAX-ZIPLIST-ENTRIES x"), c("CONFIG SET hz 5 maxmemory x"), c("CONFIG GET hz"),
		c("CONFIG SET"), c("CONFIG SET hz"), c("CONFIG SET hz 1 2"), c("CONFIG SET maxmemory-policy"), cmd("CONFIG", "SET", "nosuch\x00x", "1")),
	tc("config set special values", cmd("CONFIG", "SET", "save", "10 1 x"), c("CONFIG SET save 10"), cmd("CONFIG", "SET", "save", " 10   1 "),
		c("CONFIG SET notify-keyspace-events Q"), c("CONFIG SET notify-keyspace-events KEA"), c("CONFIG GET notify-keyspace-events"), c("CONFIG SET notify-keyspace-events g$lshzxetdKm"), c("CONFIG GET notify-keyspace-events"),
		c("CONFIG SET notify-keyspace-events Ex"), c("CONFIG GET notify-keyspace-events"), cmd("CONFIG", "SET", "notify-keyspace-events", ""),
		cmd("CONFIG", "SET", "latency-tracking-info-percentiles", "50 101"), c("CONFIG SET latency-tracking-info-percentiles x"), cmd("CONFIG", "SET", "latency-tracking-info-percentiles", "50.0 99 99.90"), c("CONFIG GET latency-tracking-info-percentiles"),
		cmd("CONFIG", "SET", "latency-tracking-info-percentiles", ""), c("CONFIG GET latency-tracking-info-percentiles"), cmd("CONFIG", "SET", "latency-tracking-info-percentiles", "50 99 99.9"),
		c("CONFIG SET maxmemory-clients 101%"), c("CONFIG SET maxmemory-clients 10%"), c("CONFIG GET maxmemory-clients"), c("CONFIG SET maxmemory-clients 1mb"), c("CONFIG GET maxmemory-clients"), c("CONFIG SET maxmemory-clients 0"),
		cmd("CONFIG", "SET", "client-output-buffer-limit", "normal 1 2 3"), c("CONFIG GET client-output-buffer-limit"), cmd("CONFIG", "SET", "client-output-buffer-limit", "replica 1mb 2kb 3 pubsub 4 5 6"), c("CONFIG GET client-output-buffer-limit"),
		cmd("CONFIG", "SET", "client-output-buffer-limit", "foo 1 2 3"), cmd("CONFIG", "SET", "client-output-buffer-limit", "normal 1x 2 3"), cmd("CONFIG", "SET", "client-output-buffer-limit", "normal 1 2"),
		cmd("CONFIG", "SET", "client-output-buffer-limit", "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60"),
		cmd("CONFIG", "SET", "oom-score-adj-values", "1 2 3000"), cmd("CONFIG", "SET", "oom-score-adj-values", "1 2"), cmd("CONFIG", "SET", "oom-score-adj-values", "-1 2 3"), c("CONFIG GET oom-score-adj-values"), cmd("CONFIG", "SET", "oom-score-adj-values", "0 200 800")),
	tc("config set takes effect", c("CONFIG SET timeout 100 maxclients 500"), c("CONFIG GET timeout maxclients").with(sortedPairs), c("INFO clients").with(infoValues("maxclients")),
		c("CONFIG SET timeout 0 maxclients 10000")),
	tc("config set requirepass", c("CONFIG SET requirepass s3"), c("PING").on(1), c("AUTH s3").on(1), c("PING").on(1), c("PING"), c("CONFIG GET requirepass"), cmd("CONFIG", "SET", "requirepass", ""), c("PING").on(2)),
	tcAuth("config set in auth pair", c("AUTH "+diffPassword), c("CONFIG GET requirepass"), c("CONFIG SET slowlog-max-len 5"), c("CONFIG GET slowlog-max-len"), c("CONFIG SET slowlog-max-len 128")),
}

var clientOpsCases = []diffCase{
	tc("client kill errors", c("CLIENT KILL 1.2.3.4:5"), c("CLIENT KILL ID 0"), c("CLIENT KILL ID x"), c("CLIENT KILL ID 99999"), c("CLIENT KILL TYPE foo"), c("CLIENT KILL USER nosuch"),
		c("CLIENT KILL USER default SKIPME maybe"), c("CLIENT KILL ADDR"), c("CLIENT KILL foo bar"), c("CLIENT KILL LADDR 1.1.1.1:1"), c("CLIENT KILL MAXAGE 5"), c("CLIENT KILL"),
		c("CLIENT KILL TYPE master"), c("CLIENT KILL TYPE pubsub"), c("CLIENT KILL ADDR 1.2.3.4:5 SKIPME no")),
	tc("client kill type replica spares a monitor", c("MONITOR").on(1), c("CLIENT KILL TYPE replica"), c("CLIENT KILL TYPE slave"), c("CLIENT LIST TYPE replica")),
	tc("client pause", c("CLIENT PAUSE"), c("CLIENT PAUSE x"), c("CLIENT PAUSE 10 foo"), c("CLIENT PAUSE -1"), c("CLIENT PAUSE 10 write x"), c("CLIENT UNPAUSE x"),
		c("CLIENT PAUSE 300 WRITE"), c("GET k").on(1), c("SET k v").on(1), c("GET k").on(1), c("CLIENT PAUSE 200 ALL"), c("PING").on(1), c("CLIENT PAUSE 300 ALL"), c("CLIENT UNPAUSE"), c("PING").on(1),
		c("CLIENT PAUSE 0 WRITE"), c("CLIENT UNPAUSE"), c("SET k w"), c("GET k")),
	tc("client pause write holds scripts and exec", c("MULTI").on(1), c("GET k").on(1), c("CLIENT PAUSE 200 WRITE"), c("EXEC").on(1), c("CLIENT PAUSE 200 WRITE"), cmd("EVAL", "return 1", "0").on(1),
		c("CLIENT UNPAUSE")),
	tc("client reply", c("CLIENT REPLY OFF").expect(0), c("SET a 1").expect(0), c("GET a").expect(0), c("CLIENT REPLY ON"), c("GET a"), c("CLIENT REPLY SKIP").expect(0), c("SET b 2").expect(0), c("GET b"),
		c("CLIENT REPLY foo"), c("CLIENT REPLY"), c("CLIENT REPLY ON"), raw("CLIENT REPLY SKIP\r\nCLIENT REPLY SKIP\r\nGET b\r\nGET a\r\n")),
	tc("client reply off then errors", c("CLIENT REPLY OFF").expect(0), c("NOSUCH").expect(0), c("CLIENT REPLY ON")),
	tc("client getredir trackinginfo", c("CLIENT GETREDIR"), c("CLIENT TRACKINGINFO"), c("CLIENT GETREDIR x"), c("HELLO 3").with(helloID), c("CLIENT TRACKINGINFO")),
	tc("client no-evict flag", c("CLIENT NO-EVICT on"), c("CLIENT INFO").with(clientFields), c("CLIENT NO-EVICT off"), c("CLIENT INFO").with(clientFields)),
	tc("client list of a monitor", c("MONITOR").on(1), c("CLIENT LIST TYPE replica").with(clientFields), c("CLIENT LIST TYPE normal").with(clientFields)),
}

// histogramKey reports whether us is a bucket LATENCY HISTOGRAM can
// print: the highest value, in us, of the histogram slot that starts at a
// power of two from 1024 ns on (slots there are 1/128 of it wide), or of
// the last slot, where values past 1 s are counted.
func histogramKey(us int64) bool {
	for level := int64(1024); level < 1<<30; level *= 2 {
		if us == (level+level/128-1)/1000 {
			return true
		}
	}
	return us == 1073741
}

// verbatimText returns the text of a bulk or verbatim reply, and a
// function that wraps new text the same way.
func verbatimText(b []byte) (string, func(string) []byte, bool) {
	it, rest, err := resp.Next(b)
	if err != nil || (it.Kind != '$' && it.Kind != '=') || len(rest) != 0 {
		return "", nil, false
	}
	prefix, text := "", string(it.Data)
	if it.Kind == '=' {
		prefix, text = text[:4], text[4:]
	}
	wrap := func(s string) []byte {
		body := prefix + s
		return []byte(string(it.Kind) + strconv.Itoa(len(body)) + "\r\n" + body + "\r\n")
	}
	return text, wrap, true
}

var (
	// slowlogShape masks what differs in SLOWLOG GET entries (id, time,
	// duration, client address) after checking each is plausible; the
	// arguments and client name are compared.
	slowlogShape = &normalizer{"SLOWLOG entries", func(b []byte) ([]byte, bool) {
		top, _, _ := resp.Next(b)
		entries, ok := arrayElems(b)
		if !ok {
			return nil, false
		}
		now := time.Now().Unix()
		for i, e := range entries {
			eh, _, _ := resp.Next(e)
			f, ok := arrayElems(e)
			if !ok || len(f) != 6 {
				return nil, false
			}
			id, _, err1 := resp.Next(f[0])
			ts, _, err2 := resp.Next(f[1])
			dur, _, err3 := resp.Next(f[2])
			if err1 != nil || err2 != nil || err3 != nil || id.Kind != ':' || ts.Kind != ':' || dur.Kind != ':' ||
				id.Int < 0 || abs(ts.Int-now) > 60 || dur.Int < 0 || dur.Int > 10_000_000 {
				return nil, false
			}
			f[0], f[1], f[2] = []byte(":<id>\r\n"), []byte(":<time>\r\n"), []byte(":<us>\r\n")
			if peer, _, err := resp.Next(f[4]); err == nil && string(peer.Data) != "?:0" {
				f[4] = []byte("$<addr>\r\n")
			}
			entries[i] = joinElems(eh, f)
		}
		// Ids must count down by one from the newest.
		return joinElems(top, entries), true
	}}

	// positiveInt masks a positive integer reply: sizes each server
	// measures its own way.
	positiveInt = &normalizer{"positive integer", func(b []byte) ([]byte, bool) {
		it, rest, err := resp.Next(b)
		if err != nil || it.Kind != ':' || it.Int <= 0 || len(rest) != 0 {
			return nil, false
		}
		return []byte(":<positive>\r\n"), true
	}}

	// latencyShape masks the times and latencies (integers) in LATENCY
	// LATEST and HISTORY replies, keeping the events and the shape.
	latencyShape = &normalizer{"latency figures", func(b []byte) ([]byte, bool) {
		top, _, _ := resp.Next(b)
		rows, ok := arrayElems(b)
		if !ok || len(rows) == 0 {
			return nil, false
		}
		for i, r := range rows {
			rh, _, _ := resp.Next(r)
			f, ok := arrayElems(r)
			if !ok {
				return nil, false
			}
			for j := range f {
				if it, _, err := resp.Next(f[j]); err == nil && it.Kind == ':' && it.Int > 0 {
					f[j] = []byte(":<n>\r\n")
				}
			}
			rows[i] = joinElems(rh, f)
		}
		// HISTORY may hold one sample or two, as the second ticks.
		return joinElems(resp.Item{Kind: top.Kind, Int: 1}, rows[:1]), true
	}}

	// digitsMasked replaces every digit of a verbatim text with N: LATENCY
	// GRAPH's latencies and its labels (seconds ago) are timings.
	digitsMasked = &normalizer{"digits masked", func(b []byte) ([]byte, bool) {
		text, wrap, ok := verbatimText(b)
		if !ok {
			return nil, false
		}
		return wrap(strings.Map(func(r rune) rune {
			if '0' <= r && r <= '9' {
				return 'N'
			}
			return r
		}, text)), true
	}}

	// histogramShape keeps LATENCY HISTOGRAM's commands, sorted (Redis
	// walks a hash table), and their calls, and checks each histogram
	// rather than compare its timings: bucket keys Redis can print,
	// cumulative counts that grow and end at the calls.
	histogramShape = &normalizer{"latency histogram shape", func(b []byte) ([]byte, bool) {
		top, _, _ := resp.Next(b)
		elems, ok := aggregateElems(b)
		if !ok || len(elems)%2 != 0 {
			return nil, false
		}
		type entry struct{ name, body []byte }
		var es []entry
		for i := 0; i < len(elems); i += 2 {
			f, ok := aggregateElems(elems[i+1])
			if !ok || len(f) != 4 {
				return nil, false
			}
			calls, _, _ := resp.Next(f[1])
			buckets, ok := aggregateElems(f[3])
			if !ok {
				return nil, false
			}
			var prev int64
			verdict := "+<cumulative>\r\n"
			for j := 0; j+1 < len(buckets); j += 2 {
				k, _, _ := resp.Next(buckets[j])
				v, _, _ := resp.Next(buckets[j+1])
				if !histogramKey(k.Int) || v.Int <= prev {
					verdict = "+<bad histogram>\r\n"
				}
				prev = v.Int
			}
			if prev != calls.Int {
				verdict = "+<bad histogram>\r\n"
			}
			fh, _, _ := resp.Next(elems[i+1])
			es = append(es, entry{elems[i], joinElems(fh, [][]byte{f[0], f[1], f[2], []byte(verdict)})})
		}
		slices.SortFunc(es, func(a, b entry) int { return bytes.Compare(a.name, b.name) })
		out := make([][]byte, 0, len(elems))
		for _, e := range es {
			out = append(out, e.name, e.body)
		}
		return joinElems(top, out), true
	}}

	// infoFieldNames keeps INFO's section titles and field names, in
	// order, and drops the values; the lines of the sections that list
	// what happened (commands, errors, databases) are dropped too.
	infoFieldNames = &normalizer{"INFO field names", func(b []byte) ([]byte, bool) {
		text, wrap, ok := verbatimText(b)
		if !ok {
			return nil, false
		}
		var out []string
		drop := false
		for _, line := range strings.Split(text, "\r\n") {
			switch {
			case strings.HasPrefix(line, "# "):
				title := line[2:]
				drop = title == "Commandstats" || title == "Errorstats" || title == "Latencystats" || title == "Keyspace"
				out = append(out, line)
			case line == "" || drop:
			default:
				name, _, ok := strings.Cut(line, ":")
				if !ok {
					return nil, false
				}
				out = append(out, name)
			}
		}
		return wrap(strings.Join(out, "\n")), true
	}}

	// commandStats sorts INFO commandstats lines (Redis prints them in its
	// hash table's order) and masks the microseconds.
	commandStats = &normalizer{"commandstats without times", func(b []byte) ([]byte, bool) {
		text, wrap, ok := verbatimText(b)
		if !ok {
			return nil, false
		}
		lines := strings.Split(strings.TrimSuffix(text, "\r\n"), "\r\n")
		for i, l := range lines {
			if strings.HasPrefix(l, "#") {
				continue
			}
			name, v, ok := strings.Cut(l, ":")
			if !ok {
				return nil, false
			}
			var kept []string
			for _, kv := range strings.Split(v, ",") {
				if strings.HasPrefix(kv, "usec") {
					k, _, _ := strings.Cut(kv, "=")
					kv = k + "=*"
				}
				kept = append(kept, kv)
			}
			lines[i] = name + ":" + strings.Join(kept, ",")
		}
		slices.Sort(lines[1:])
		return wrap(strings.Join(lines, "\n")), true
	}}

	// latencyStats sorts INFO latencystats lines and masks the figures,
	// keeping which percentiles are printed.
	latencyStats = &normalizer{"latencystats without figures", func(b []byte) ([]byte, bool) {
		text, wrap, ok := verbatimText(b)
		if !ok {
			return nil, false
		}
		lines := strings.Split(strings.TrimSuffix(text, "\r\n"), "\r\n")
		for i, l := range lines {
			if strings.HasPrefix(l, "#") {
				continue
			}
			name, v, ok := strings.Cut(l, ":")
			if !ok {
				return nil, false
			}
			var kept []string
			for _, kv := range strings.Split(v, ",") {
				k, fig, _ := strings.Cut(kv, "=")
				if _, err := strconv.ParseFloat(fig, 64); err != nil {
					return nil, false
				}
				kept = append(kept, k+"=*")
			}
			lines[i] = name + ":" + strings.Join(kept, ",")
		}
		slices.Sort(lines[1:])
		return wrap(strings.Join(lines, "\n")), true
	}}

	// configDefaults is sortedPairs for CONFIG GET *, with the values that
	// describe how each server was started masked (port, directories,
	// daemonize ...) and minilock's own restart-delay dropped.
	configDefaults = &normalizer{"CONFIG GET * defaults", func(b []byte) ([]byte, bool) {
		it, _, _ := resp.Next(b)
		elems, ok := aggregateElems(b)
		if !ok || len(elems)%2 != 0 {
			return nil, false
		}
		masked := map[string]bool{"port": true, "dir": true, "logfile": true, "pidfile": true, "bind": true, "daemonize": true}
		var pairs [][]byte
		for i := 0; i < len(elems); i += 2 {
			k, _, _ := resp.Next(elems[i])
			name := string(k.Data)
			if name == "restart-delay" {
				continue
			}
			v := elems[i+1]
			if masked[name] {
				v = []byte("$<masked>\r\n")
			}
			pairs = append(pairs, slices.Concat(elems[i], v))
		}
		slices.SortFunc(pairs, bytes.Compare)
		head := headerOf(it)
		if it.Kind == '%' {
			head = []byte(fmt.Sprintf("%%%d\r\n", len(pairs)))
		} else {
			head = []byte(fmt.Sprintf("*%d\r\n", 2*len(pairs)))
		}
		return slices.Concat(head, slices.Concat(pairs...)), true
	}}
)

// infoMask masks the values of the named INFO fields and keeps every
// other field's value.
func infoMask(masked ...string) *normalizer {
	m := map[string]bool{}
	for _, k := range masked {
		m[k] = true
	}
	return &normalizer{"INFO without " + strings.Join(masked, ","), func(b []byte) ([]byte, bool) {
		text, wrap, ok := verbatimText(b)
		if !ok {
			return nil, false
		}
		lines := strings.Split(text, "\r\n")
		for i, l := range lines {
			if name, _, ok := strings.Cut(l, ":"); ok && m[name] {
				lines[i] = name + ":*"
			}
		}
		return wrap(strings.Join(lines, "\r\n")), true
	}}
}

// infoValues keeps the values of the named INFO fields and masks every
// other field's value.
func infoValues(keep ...string) *normalizer {
	kept := map[string]bool{}
	for _, k := range keep {
		kept[k] = true
	}
	return &normalizer{"INFO values of " + strings.Join(keep, ","), func(b []byte) ([]byte, bool) {
		text, wrap, ok := verbatimText(b)
		if !ok {
			return nil, false
		}
		lines := strings.Split(text, "\r\n")
		for i, l := range lines {
			name, _, ok := strings.Cut(l, ":")
			if ok && !strings.HasPrefix(l, "#") && !kept[name] {
				lines[i] = name + ":*"
			}
		}
		return wrap(strings.Join(lines, "\r\n")), true
	}}
}
