package diff_test

// Pub/sub: the frames of SUBSCRIBE and friends, messages and their order,
// RESP2's subscribed mode and RESP3's pushes, PUBSUB introspection, and
// PUBLISH from MULTI and from scripts. Connection 1 subscribes, connection 0
// publishes; recv reads frames a connection was sent without asking.

// recv reads n frames on connection i without sending anything.
func recv(i, n int) step {
	return step{conn: i, label: "receive", replies: n}
}

// reentrantUnlock is a reentrant lock's release in the shape hash-based lock
// libraries use (our own script): the holder's count in the lock hash goes
// down by one; at zero the lock is deleted and the release is published for
// waiters. KEYS: lock, channel; ARGV: message, lease ms, holder id.
const reentrantUnlock = `local held = redis.call('HEXISTS', KEYS[1], ARGV[3])
if held == 0 then return nil end
local left = redis.call('HINCRBY', KEYS[1], ARGV[3], -1)
if left > 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 0
end
redis.call('DEL', KEYS[1])
redis.call('PUBLISH', KEYS[2], ARGV[1])
return 1`

var pubsubCases = []diffCase{
	tc("subscribe and publish",
		c("SUBSCRIBE a b").on(1).expect(2),
		c("PUBLISH a hello"), recv(1, 1),
		c("PUBLISH b world"), recv(1, 1),
		c("PUBLISH c nobody"),
		cmd("PUBLISH", "a", "\x00\r\nbin"), recv(1, 1),
		cmd("PUBLISH", "a", ""), recv(1, 1)),
	tc("subscribe twice counts once",
		c("SUBSCRIBE a").on(1), c("SUBSCRIBE a a").on(1).expect(2),
		c("PUBLISH a x"), recv(1, 1), c("PUBSUB NUMSUB a")),
	tc("unsubscribe",
		c("SUBSCRIBE a b c").on(1).expect(3),
		c("UNSUBSCRIBE b").on(1), c("PUBLISH b x"), c("PUBLISH a y"), recv(1, 1),
		c("UNSUBSCRIBE nosuch").on(1), c("UNSUBSCRIBE a c").on(1).expect(2),
		c("UNSUBSCRIBE").on(1), c("PING").on(1), c("GET k").on(1)),
	tc("unsubscribe all, one channel", c("SUBSCRIBE a").on(1), c("UNSUBSCRIBE").on(1), c("UNSUBSCRIBE").on(1)),
	tc("unsubscribe without subscriptions", c("UNSUBSCRIBE"), c("PUNSUBSCRIBE"), c("SUNSUBSCRIBE"), c("UNSUBSCRIBE a b").expect(2), c("GET k")),
	tc("psubscribe",
		c("PSUBSCRIBE news.* h?llo").on(1).expect(2),
		c("PUBLISH news.today x"), recv(1, 1),
		c("PUBLISH hello y"), recv(1, 1),
		c("PUBLISH news z"),
		c("PUNSUBSCRIBE news.*").on(1), c("PUBLISH news.today q"),
		c("PUNSUBSCRIBE").on(1), c("PUBSUB NUMPAT")),
	tc("channel and pattern both deliver",
		c("SUBSCRIBE news.a").on(1), c("PSUBSCRIBE news.*").on(1),
		c("PUBLISH news.a m"), recv(1, 2), c("PUBSUB NUMSUB news.a news.b"), c("PUBSUB NUMPAT")),
	tc("count mixes channels and patterns",
		c("SUBSCRIBE a").on(1), c("PSUBSCRIBE p*").on(1), c("SUBSCRIBE b").on(1),
		c("PUNSUBSCRIBE p*").on(1), c("UNSUBSCRIBE a").on(1), c("UNSUBSCRIBE b").on(1)),
	tc("two subscribers",
		c("SUBSCRIBE a").on(1), c("SUBSCRIBE a").on(2),
		c("PUBLISH a m"), recv(1, 1), recv(2, 1), c("PUBSUB NUMSUB a")),
	tc("subscribed mode refuses other commands",
		c("SUBSCRIBE a").on(1), c("GET k").on(1), c("SET k v").on(1), c("MULTI").on(1),
		c("PING").on(1), c("PING hi").on(1), c("EVAL x 0").on(1), c("CLIENT ID").on(1),
		c("PUBLISH a x").on(1), c("NOSUCH").on(1), c("GET").on(1), c("UNSUBSCRIBE").on(1), c("GET k").on(1)),
	tc("subscribed mode after pattern only", c("PSUBSCRIBE x").on(1), c("GET k").on(1), c("PING").on(1)),
	tc("reset leaves subscribed mode",
		c("SUBSCRIBE a").on(1), c("RESET").on(1), c("GET k").on(1), c("PUBLISH a x"), c("PUBSUB NUMSUB a")),
	tc("quit while subscribed", c("SUBSCRIBE a").on(1), c("QUIT").on(1).eof(), c("PUBSUB NUMSUB a")),
	tc("resp3 subscribe",
		c("HELLO 3").on(1).with(helloID), c("SUBSCRIBE a").on(1), c("GET k").on(1), c("PING").on(1),
		c("PUBLISH a m"), recv(1, 1), c("PSUBSCRIBE a*").on(1), c("PUBLISH a n"), recv(1, 2),
		c("UNSUBSCRIBE").on(1), c("PUNSUBSCRIBE").on(1), c("UNSUBSCRIBE").on(1)),
	tc("resp3 subscriber gets messages between replies",
		c("HELLO 3").on(1).with(helloID), c("SUBSCRIBE a").on(1),
		c("PUBLISH a 1"), c("SET k v").on(1).expect(2), c("PUBLISH a 2"), c("GET k").on(1).expect(2)),
	tc("publish to yourself",
		c("HELLO 3").with(helloID), c("SUBSCRIBE a"), c("PUBLISH a me").expect(2), c("SPUBLISH a me")),
	tc("publish to yourself in resp2 is refused", c("SUBSCRIBE a"), c("PUBLISH a me")),
	tc("shard channels",
		c("SSUBSCRIBE s1 s2").on(1).expect(2), c("SUBSCRIBE s1").on(1), c("PSUBSCRIBE s*").on(1),
		c("SPUBLISH s1 m"), recv(1, 1), c("PUBLISH s1 n"), recv(1, 2),
		c("PUBSUB SHARDCHANNELS").with(sorted), c("PUBSUB SHARDCHANNELS s1*").with(sorted), c("PUBSUB SHARDNUMSUB s1 s2 s3"),
		c("PUBSUB CHANNELS").with(sorted), c("PUBSUB NUMSUB s1"),
		c("SUNSUBSCRIBE s1").on(1), c("SUNSUBSCRIBE").on(1), c("SUNSUBSCRIBE").on(1), c("GET k").on(1)),
	tc("pubsub channels",
		c("SUBSCRIBE lock:a").on(1), c("SUBSCRIBE lock:b other").on(2).expect(2),
		c("PUBSUB CHANNELS lock:*").with(sorted), c("PUBSUB CHANNELS nomatch*"), c("PUBSUB CHANNELS other"),
		c("PUBSUB NUMSUB"), c("PUBSUB NUMSUB lock:a lock:b other lock:c"), c("PUBSUB NUMPAT")),
	tc("pubsub errors",
		c("PUBSUB"), c("PUBSUB NOSUCH"), c("PUBSUB CHANNELS a b"), c("PUBSUB NUMPAT x"), c("PUBSUB SHARDCHANNELS a b"),
		c("PUBSUB HELP"), c("PUBSUB HELP x")),
	tc("pubsub arity",
		c("SUBSCRIBE"), c("PSUBSCRIBE"), c("SSUBSCRIBE"), c("PUBLISH a"), c("PUBLISH a b c"), c("SPUBLISH a")),
	tc("publish in multi",
		c("SUBSCRIBE a").on(1), c("MULTI"), c("PUBLISH a 1"), c("SET k v"), c("PUBLISH a 2"), c("EXEC"), recv(1, 2)),
	tc("subscribe in multi",
		c("MULTI"), c("SUBSCRIBE a"), c("PING"), c("EXEC"), c("PUBLISH a m").on(1), recv(0, 1), c("GET k")),
	tc("ssubscribe in multi", c("MULTI"), c("SSUBSCRIBE a"), c("EXEC"), c("GET k")),
	tc("publish from a script",
		c("SUBSCRIBE ch").on(1),
		cmd("EVAL", "return redis.call('PUBLISH', KEYS[1], ARGV[1])", "1", "ch", "released"), recv(1, 1),
		cmd("EVAL", "redis.call('PUBLISH', 'ch', 'a') redis.call('SET', 'k', 'v') return redis.call('PUBLISH', 'ch', 'b')", "0"), recv(1, 2),
		cmd("EVAL", "return redis.pcall('SUBSCRIBE', 'x')", "0"),
		cmd("EVAL_RO", "return redis.pcall('PUBLISH', 'ch', 'x')", "0"),
		cmd("EVAL", "return redis.call('SPUBLISH', 'ch', 'x')", "0")),
	tc("monitor may not publish", c("MONITOR"), c("PUBLISH a b")),
	tc("reentrant unlock publishes to a waiter",
		c("SUBSCRIBE lock-channel:{lock}").on(1),
		cmd("EVAL", reentrantUnlock, "2", "lock", "lock-channel:{lock}", "0", "30000", "id:1"),
		c("HSET lock id:1 2"),
		cmd("EVAL", reentrantUnlock, "2", "lock", "lock-channel:{lock}", "0", "30000", "id:1"),
		c("TTL lock"),
		cmd("EVAL", reentrantUnlock, "2", "lock", "lock-channel:{lock}", "0", "30000", "id:1"),
		recv(1, 1)),
}
