package diff_test

import (
	"fmt"
	"math/rand/v2"
)

// configResets are Redis 7.0.15's defaults for the parameters the
// config generator sets (CONFIG GET on a fresh redis-server); each case
// puts them back, as the servers are shared by the cases (TestDiffRuntime
// draws from every parameter).
var configResets = [][2]string{
	{"hash-max-listpack-entries", "512"}, {"hash-max-listpack-value", "64"},
	{"zset-max-listpack-entries", "128"}, {"zset-max-listpack-value", "64"},
	{"list-max-listpack-size", "-2"}, {"set-max-intset-entries", "512"},
	{"slowlog-log-slower-than", "10000"}, {"slowlog-max-len", "128"},
	{"latency-monitor-threshold", "0"},
	{"notify-keyspace-events", ""}, {"maxmemory-policy", "noeviction"},
	{"maxmemory-samples", "5"}, {"active-expire-effort", "1"},
	{"lfu-log-factor", "10"}, {"lfu-decay-time", "1"}, {"list-compress-depth", "0"},
	{"hll-sparse-max-bytes", "3000"}, {"tcp-keepalive", "300"},
	{"lazyfree-lazy-eviction", "no"}, {"lazyfree-lazy-user-del", "no"}, {"activedefrag", "no"},
	{"stream-node-max-entries", "100"}, {"stream-node-max-bytes", "4096"},
	{"maxmemory-eviction-tenacity", "10"}, {"hz", "10"}, {"dynamic-hz", "yes"},
}

// configAliases are the old names Redis 7.0 still takes for some of them.
var configAliases = []string{"hash-max-ziplist-entries", "zset-max-ziplist-value", "list-max-ziplist-size"}

// randomConfigValue is a value any of those parameters might be given:
// integers and their edges, memory units, booleans, enum words and
// keyspace-event classes, spelled well or badly.
func randomConfigValue(r *rand.Rand) string {
	switch r.IntN(6) {
	case 0:
		return randomInteger(r)
	case 1:
		return fmt.Sprint(r.IntN(2000)-10) + []string{"", "kb", "mb", "gb", "KB", "k", "b", "x"}[r.IntN(8)]
	case 2:
		return []string{"yes", "no", "YES", "No", "maybe", "1", "0", "", " yes"}[r.IntN(9)]
	case 3:
		return []string{"noeviction", "allkeys-lru", "volatile-lfu", "allkeys-random", "NOEVICTION", "lru", "volatile-ttl"}[r.IntN(7)]
	case 4:
		return randomString(r, "KEg$lshzxetmnAd", 5)
	}
	return fmt.Sprint(r.IntN(300))
}

// randomConfigCases CONFIG SET one to three generated parameter values
// at once (Redis 7.0 applies them all or none, refusing duplicates, bad
// values and unknown names with its own texts), read them back with
// CONFIG GET, and restore the defaults.
func randomConfigCases(r *rand.Rand, n int) []diffCase {
	name := func() string {
		if r.IntN(8) == 0 {
			return configAliases[r.IntN(len(configAliases))]
		}
		if r.IntN(30) == 0 {
			return "no-such-parameter"
		}
		return configResets[r.IntN(len(configResets))][0]
	}
	var cases []diffCase
	for i := range n {
		var steps []step
		var read []string
		for range 4 {
			args := []string{"CONFIG", "SET"}
			for range 1 + r.IntN(3) {
				p := name()
				args = append(args, p, randomConfigValue(r))
				read = append(read, p)
			}
			steps = append(steps, cmd(args...))
		}
		get := append([]string{"CONFIG", "GET"}, read...)
		steps = append(steps, cmd(get...).with(sortedPairs))
		reset := []string{"CONFIG", "SET"}
		for _, d := range configResets {
			reset = append(reset, d[0], d[1])
		}
		steps = append(steps, cmd(reset...))
		cases = append(cases, tc(fmt.Sprintf("config %d", i), steps...))
	}
	return cases
}
