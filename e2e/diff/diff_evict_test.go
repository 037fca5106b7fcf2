package diff_test

// Eviction where both servers must do the same: with maxmemory 1 both are
// always over the limit, so every key a policy may evict goes, in one
// CONFIG SET, and what is left, the OOM refusals after, the evicted
// events and evicted_keys are deterministic. OBJECT FREQ is deterministic
// at lfu-log-factor 0 (every access counts) and for a new key
// (LFU_INIT_VAL). Each case puts maxmemory and the policy back.

var evictRestore = []step{c("CONFIG SET maxmemory 0"), c("CONFIG SET maxmemory-policy noeviction")}

func evictCase(name string, steps ...step) diffCase {
	return tc(name, append(append([]step{c("CONFIG RESETSTAT")}, steps...), evictRestore...)...)
}

var evictCases = func() []diffCase {
	var cases []diffCase
	for _, pol := range []string{"volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl"} {
		cases = append(cases, evictCase("evict "+pol,
			c("SET p v"), c("SET t v EX 100"), c("HSET h f v"), c("PEXPIRE h 500000"), c("SET q v"),
			c("CONFIG SET maxmemory-policy "+pol), c("CONFIG SET maxmemory 1"),
			c("EXISTS p t h q"), c("SET x y"), c("GET p"), c("DEL q"), c("DBSIZE"),
			c("MULTI"), c("GET p"), c("EXEC"),
			cmd("EVAL", "return redis.call('set','k','v')", "0"),
			c("INFO stats").with(infoValues("evicted_keys"))))
	}
	for _, pol := range []string{"allkeys-lru", "allkeys-lfu", "allkeys-random"} {
		cases = append(cases, evictCase("evict "+pol,
			c("SET p v"), c("SET t v EX 100"), c("RPUSH l a b"), c("SELECT 1"), c("SET o v"), c("SELECT 0"),
			c("CONFIG SET maxmemory-policy "+pol), c("CONFIG SET maxmemory 1"),
			c("DBSIZE"), c("SELECT 1"), c("DBSIZE"), c("SELECT 0"), c("SET x y"), c("GET p"), c("PING"),
			c("INFO stats").with(infoValues("evicted_keys"))))
	}
	return append(cases,
		// tests/unit/pubsub.tcl "Keyspace notifications: evicted events",
		// in database 0.
		notifyCase("evicted events", "Ee",
			c("CONFIG SET maxmemory-policy allkeys-lru"), c("SET foo bar"), c("CONFIG SET maxmemory 1"), recv(1, 1),
			c("CONFIG SET maxmemory 0"), c("CONFIG SET maxmemory-policy noeviction")),
		notifyCase("evicted events keyspace and watch", "KEA",
			c("SET foo bar"), recv(1, 2), c("WATCH foo"), c("CONFIG SET maxmemory-policy allkeys-random"),
			c("CONFIG SET maxmemory 1"), recv(1, 2), c("CONFIG SET maxmemory 0"),
			c("MULTI"), c("PING"), c("EXEC"), c("CONFIG SET maxmemory-policy noeviction")),
		evictCase("object freq under lfu",
			c("CONFIG SET maxmemory-policy allkeys-lfu"), c("SET a hello"), c("OBJECT FREQ a"), c("GET a"), c("OBJECT FREQ a"),
			c("CONFIG SET lfu-log-factor 0"), c("GET a"), c("OBJECT FREQ a"),
			// LOOKUP_NOTOUCH: no count.
			c("TYPE a"), c("EXISTS a"), c("TTL a"), c("PTTL a"), c("OBJECT ENCODING a"), c("OBJECT FREQ a"),
			c("TOUCH a nosuch"), c("OBJECT FREQ a"), c("APPEND a x"), c("OBJECT FREQ a"), c("SET a again"), c("OBJECT FREQ a"),
			c("RENAME a b"), c("OBJECT FREQ b"), c("COPY b c"), c("OBJECT FREQ c"), c("OBJECT IDLETIME b"), c("OBJECT FREQ nosuch"),
			// With maxmemory set, integers are not shared: a new one is 5.
			c("CONFIG SET maxmemory 1gb"), c("SET n 100"), c("OBJECT FREQ n"), c("RPUSH l x"), c("OBJECT FREQ l"),
			c("CONFIG SET lfu-log-factor 10")),
		evictCase("object idletime under lru",
			c("CONFIG SET maxmemory-policy volatile-lru"), c("SET a hello"), c("OBJECT IDLETIME a").with(idleNow),
			c("OBJECT FREQ a"), c("TOUCH a"), c("OBJECT IDLETIME a").with(idleNow)),
		tc("eviction params",
			c("CONFIG GET maxmemory-policy"), c("CONFIG GET maxmemory-samples"), c("CONFIG GET maxmemory-eviction-tenacity"),
			c("CONFIG GET lfu-log-factor"), c("CONFIG GET lfu-decay-time"),
			c("CONFIG SET maxmemory-policy ALLKEYS-LFU"), c("CONFIG GET maxmemory-policy"), c("CONFIG SET maxmemory-policy lru"),
			c("CONFIG SET maxmemory-samples 0"), c("CONFIG SET maxmemory-samples 64"), c("CONFIG GET maxmemory-samples"),
			c("CONFIG SET maxmemory-eviction-tenacity 101"), c("CONFIG SET maxmemory-eviction-tenacity 100"), c("CONFIG GET maxmemory-eviction-tenacity"),
			c("CONFIG SET lfu-log-factor -1"), c("CONFIG SET lfu-log-factor 100"), c("CONFIG SET lfu-decay-time x"), c("CONFIG SET lfu-decay-time 0"),
			c("CONFIG GET lfu-log-factor"), c("CONFIG GET lfu-decay-time"),
			c("CONFIG SET maxmemory-policy noeviction maxmemory-samples 5 maxmemory-eviction-tenacity 10 lfu-log-factor 10 lfu-decay-time 1"),
			// One parameter a GET: several come back in Redis's dict order.
			c("CONFIG GET maxmemory-policy"), c("CONFIG GET maxmemory-samples"), c("CONFIG GET lfu-log-factor")),
	)
}()
