package diff_test

import "time"

// Keyspace notifications: notify-keyspace-events through CONFIG SET and
// GET, and the messages a subscriber receives, frame by frame (channel,
// message, pattern, RESP2 pmessage or RESP3 push), in order. Connection 1
// subscribes, connection 0 writes. Each case ends with a marker publish
// that must be the next frame, so an extra notification is a difference,
// and turns notifications off again (the setting outlives the case).
// keyspace/notify_diff_test.go compares the events of every data command
// at length; these cases check the wiring from a command to a socket.

func notifyOn(flags string) step { return cmd("CONFIG", "SET", "notify-keyspace-events", flags) }

var notifyOff = cmd("CONFIG", "SET", "notify-keyspace-events", "")

// notifyEnd publishes the end marker, reads it on connection 1 and turns
// notifications off.
func notifyEnd() []step {
	return []step{c("PUBLISH __keyend__:x end"), recv(1, 1), notifyOff}
}

func notifyCase(name, flags string, steps ...step) diffCase {
	all := append([]step{notifyOn(flags), c("PSUBSCRIBE __key*__:*").on(1)}, steps...)
	return tc(name, append(all, notifyEnd()...)...)
}

var notifyCases = []diffCase{
	tc("notify config round trip",
		c("CONFIG GET notify-keyspace-events"),
		notifyOn("KEA"), c("CONFIG GET notify-keyspace-events"),
		notifyOn("$x"), c("CONFIG GET notify-keyspace-events"),
		notifyOn("Kx"), c("CONFIG GET notify-keyspace-events"),
		notifyOn("KEAmn"), c("CONFIG GET notify-keyspace-events"),
		notifyOn("g$lshzxetd"), c("CONFIG GET notify-keyspace-events"),
		notifyOn("nmEK"), c("CONFIG GET notify-keyspace-events"),
		notifyOn("zzz"), c("CONFIG GET notify-keyspace-events"),
		notifyOn("KE A"), notifyOn("KEAX"), notifyOn("a"), c("CONFIG GET notify-keyspace-events"),
		c("CONFIG SET notify-keyspace-events"),
		c("CONFIG SET notify-keyspace-events KEA notify-keyspace-events E"),
		c("CONFIG SET NOTIFY-keyspace-events Eg"), c("CONFIG GET NOTIFY-keyspace-events"), c("CONFIG GET notify*"),
		notifyOff, c("CONFIG GET notify-keyspace-events")),
	notifyCase("notify set expire del", "KEA",
		c("SET k v"), recv(1, 2),
		c("SET k v EX 100"), recv(1, 4),
		c("EXPIRE k 200"), recv(1, 2),
		c("PERSIST k"), recv(1, 2),
		c("DEL k nosuch k"), recv(1, 2),
		c("DEL k"), c("GET k")),
	notifyCase("notify new and keymiss", "AKEnm",
		c("GET nosuch"), recv(1, 2),
		c("LPUSH l a b"), recv(1, 4),
		c("LPUSH l c"), recv(1, 2),
		c("MGET l x"), recv(1, 2),
		c("RENAME l m"), recv(1, 6),
		c("LMOVE m n LEFT RIGHT"), recv(1, 6),
		c("RPOP m 5"), recv(1, 4)),
	notifyCase("notify keyspace only, one class", "K$",
		c("SET k 1"), c("INCR k"), c("APPEND k x"), recv(1, 3),
		c("EXPIRE k 100"), c("HSET h f v"), c("SETRANGE k 0 y"), recv(1, 1)),
	notifyCase("notify keyevent only", "Eh",
		c("HSET h f v g w"), c("HDEL h f g"), recv(1, 2), c("HINCRBY h x 1"), recv(1, 1)),
	notifyCase("notify other databases", "KEA",
		c("SELECT 3"), c("SET k v"), recv(1, 2), c("MOVE k 5"), recv(1, 4),
		c("COPY k j DB 5"), c("SELECT 5"), c("COPY k j DB 3"), recv(1, 2)),
	notifyCase("notify in multi", "KEA",
		c("MULTI"), c("SET k 1"), c("INCRBY k 5"), c("SADD s a"), c("DEL k s"), c("EXEC"), recv(1, 10)),
	notifyCase("notify from a script", "KEAm",
		cmd("EVAL", "redis.call('SET', KEYS[1], 'v') redis.call('GET', 'nosuch') redis.call('DEL', KEYS[1]) return 1", "1", "lock"), recv(1, 6)),
	notifyCase("notify zset and list pops", "KEA",
		c("ZADD z 1 a 2 b"), c("ZINCRBY z 1 a"), c("ZPOPMIN z 5"), recv(1, 8),
		c("RPUSH l a"), c("LMPOP 1 l LEFT"), recv(1, 6),
		c("SADD s a"), c("SPOP s"), recv(1, 6)),
	notifyCase("notify blocking pops", "KEA",
		c("RPUSH l a b"), c("BLPOP l 0"), c("BRPOP l 0"), recv(1, 8),
		parkOn(2, "BLPOP q 0"), c("RPUSH q x"), recv(1, 6), recv(2, 1),
		parkOn(2, "BLMOVE q dst LEFT RIGHT 0"), c("LPUSH q y"), recv(1, 8), recv(2, 1),
		c("ZADD z 1 a"), c("BZPOPMIN z 0"), recv(1, 6),
		parkOn(2, "BZMPOP 0 1 z MAX"), c("ZADD z 1 a 2 b"), recv(1, 4), recv(2, 1)),
	notifyCase("notify expire in the past deletes", "KEA",
		c("SET k v"), c("EXPIREAT k 1000"), recv(1, 4),
		c("SET k v"), c("GETEX k PXAT 1"), recv(1, 4)),
	tc("notify expired at the deadline",
		notifyOn("Ex"), c("PSUBSCRIBE __key*__:*").on(1),
		c("SET lock token PX 50"), pause(400*time.Millisecond), recv(1, 1),
		c("PUBLISH __keyend__:x end"), recv(1, 1), notifyOff),
	tc("notify subscribe to one key",
		notifyOn("KA"), c("SUBSCRIBE __keyspace@0__:lock").on(1),
		c("SET lock a NX PX 30000"), recv(1, 2), c("SET other b"), c("DEL lock"), recv(1, 1),
		c("PUBLISH __keyspace@0__:lock end"), recv(1, 1), notifyOff),
	tc("notify resp3 push",
		notifyOn("KEA"), c("HELLO 3").on(1).with(helloID), c("PSUBSCRIBE __key*__:*").on(1),
		c("SET k v"), recv(1, 2), c("GET k").on(1), c("DEL k").on(1).expect(3),
		c("PUBLISH __keyend__:x end"), recv(1, 1), notifyOff),
	tc("notify off publishes nothing",
		notifyOn("KEA"), notifyOff, c("PSUBSCRIBE *").on(1), c("SET k v"), c("DEL k"),
		c("PUBLISH end x"), recv(1, 1)),
}
