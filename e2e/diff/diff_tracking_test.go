package diff_test

import (
	"regexp"
	"strings"
)

// Client-side caching (CLIENT TRACKING): every error text, the invalidation
// messages of each mode (default, OPTIN/OPTOUT, BCAST with prefixes,
// NOLOOP), RESP3 pushes on the tracking connection and RESP2 REDIRECT to a
// subscriber of __redis__:invalidate, MULTI, scripts, flushes, expiry, the
// table's limit, and what INFO, CLIENT INFO and TRACKINGINFO say of it.
// Connections 1 and 2 usually write while connection 0 tracks; recv reads
// the messages a connection was sent without asking.

// h3 switches connection i to RESP3.
func h3(i int) step { return c("HELLO 3").on(i).with(helloID) }

var (
	redirIDPattern = regexp.MustCompile(`(redirect\r\n|tracking-redir-broken\r\n):[1-9][0-9]*\r\n`)

	// trackIDs replaces the client ids TRACKINGINFO's redirect and the
	// tracking-redir-broken push carry: the servers count connections
	// differently. Lengths around them do not change (they are not in a
	// bulk string).
	trackIDs = &normalizer{"redirect ids", func(b []byte) ([]byte, bool) {
		if !redirIDPattern.Match(b) {
			return nil, false
		}
		return redirIDPattern.ReplaceAll(b, []byte("$1:<id>\r\n")), true
	}}

	// trackingInfo keeps INFO's tracking_* lines.
	trackingInfo = &normalizer{"INFO tracking fields", func(b []byte) ([]byte, bool) {
		text, wrap, ok := verbatimText(b)
		if !ok {
			return nil, false
		}
		var out []string
		for _, line := range strings.Split(text, "\r\n") {
			if strings.HasPrefix(line, "tracking_") {
				out = append(out, line)
			}
		}
		return wrap(strings.Join(out, "\n")), true
	}}

	evictedAnyPattern = regexp.MustCompile(`>2\r\n\$10\r\ninvalidate\r\n\*1\r\n\$1\r\n[abc]\r\n`)

	// evictedAnyKey masks which of a, b or c the table's limit dropped.
	evictedAnyKey = &normalizer{"evicted key a, b or c", func(b []byte) ([]byte, bool) {
		if !evictedAnyPattern.Match(b) {
			return nil, false
		}
		return evictedAnyPattern.ReplaceAll(b, []byte(">2\r\n$10\r\ninvalidate\r\n*1\r\n$1\r\n<key>\r\n")), true
	}}

	evictedKeyPattern = regexp.MustCompile(`>2\r\n\$10\r\ninvalidate\r\n\*1\r\n\$1\r\n[ab]\r\n`)

	// evictedKey masks which of the keys a or b the table's limit dropped:
	// Redis picks it with a random walk.
	evictedKey = &normalizer{"evicted key a or b", func(b []byte) ([]byte, bool) {
		if !evictedKeyPattern.Match(b) {
			return nil, false
		}
		return evictedKeyPattern.ReplaceAll(b, []byte(">2\r\n$10\r\ninvalidate\r\n*1\r\n$1\r\n<a|b>\r\n")), true
	}}
)

var trackingCases = []diffCase{
	tc("tracking errors",
		c("CLIENT TRACKING"), c("CLIENT TRACKING maybe"), c("CLIENT TRACKING on nosuch"),
		c("CLIENT TRACKING on redirect"), c("CLIENT TRACKING on redirect x"),
		c("CLIENT TRACKING on redirect 0"), c("CLIENT TRACKING on redirect -1"),
		c("CLIENT TRACKING on redirect 99999"), c("CLIENT TRACKING on redirect +1"),
		withIDs("CLIENT", "TRACKING", "on", "redirect", "@1", "redirect", "@1"),
		c("CLIENT TRACKING on prefix a"), c("CLIENT TRACKING on prefix"),
		c("CLIENT TRACKING on bcast optin"), c("CLIENT TRACKING on bcast optout"),
		c("CLIENT TRACKING on optin optout"), c("CLIENT TRACKING off redirect 99999"),
		c("CLIENT TRACKING off bogus"), c("CLIENT TRACKING maybe bcast"),
		c("CLIENT TRACKING on bcast prefix a prefix ab"), c("CLIENT TRACKING on bcast prefix ab prefix a"),
		c("CLIENT TRACKINGINFO"), c("CLIENT GETREDIR"),
		c("CLIENT CACHING"), c("CLIENT CACHING yes"), c("CLIENT CACHING no"), c("CLIENT CACHING maybe"),
		c("CLIENT TRACKING on"), c("CLIENT CACHING yes"), c("CLIENT CACHING no"), c("CLIENT CACHING maybe"),
		c("CLIENT TRACKING on optin"), c("CLIENT TRACKING on optout"), c("CLIENT TRACKING on bcast"),
		c("CLIENT TRACKING off"), c("CLIENT TRACKING on optout"), c("CLIENT TRACKING on optin"),
		c("CLIENT CACHING yes"), c("CLIENT CACHING no"), c("CLIENT TRACKING off"),
		c("CLIENT TRACKING on bcast prefix a"), c("CLIENT TRACKING on bcast prefix ab"),
		c("CLIENT TRACKING on bcast prefix b prefix a"), c("CLIENT TRACKING on"),
		c("CLIENT TRACKINGINFO"), c("CLIENT TRACKING OFF"), c("CLIENT TRACKING OFF"), c("CLIENT TRACKINGINFO"),
		c("CLIENT TRACKINGINFO x"), c("CLIENT GETREDIR x")),
	tc("prefix error texts",
		cmd("CLIENT", "TRACKING", "on", "bcast", "prefix", "a\r\nb", "prefix", "a\r\nbc"),
		cmd("CLIENT", "TRACKING", "on", "bcast", "prefix", "", "prefix", "x"),
		cmd("CLIENT", "TRACKING", "on", "bcast", "prefix", "x\x00y"),
		cmd("CLIENT", "TRACKING", "on", "bcast", "prefix", "x\x00"),
		c("CLIENT TRACKINGINFO")),
	tc("client help", c("CLIENT HELP")),
	tc("default mode, another client writes",
		h3(0), c("CLIENT TRACKING on"), c("GET k"), c("SET k v").on(1), recv(0, 1),
		c("SET k w").on(1), c("GET k"), c("MGET a b k"), c("DEL k a").on(1), recv(0, 1),
		c("SET a 1").on(1), recv(0, 1), c("SET b 1").on(1), recv(0, 1), c("SET b 2").on(1), c("PING")),
	tc("default mode, the client writes itself",
		h3(0), c("CLIENT TRACKING on"), c("GET k"), c("SET k v").expect(2), c("SET k v"),
		c("GET k"), c("SET k 1").expect(2), c("GET k"), c("INCR k").expect(2), c("GET k"), c("GET k"), c("APPEND k x").expect(2)),
	tc("the reads that track",
		h3(0), c("CLIENT TRACKING on"), c("HSET h f v").on(1), c("RPUSH l a").on(1), c("SADD s m").on(1),
		c("ZADD z 1 m").on(1), c("XADD x 1-1 f v").on(1),
		c("HGET h f"), c("LRANGE l 0 -1"), c("SISMEMBER s m"), c("ZSCORE z m"), c("XRANGE x - +"),
		c("EXISTS a b"), c("TYPE c"), c("STRLEN d"), c("TTL e"), c("OBJECT ENCODING h"),
		c("SINTERCARD 2 s s2"), c("ZUNION 2 z z2"), c("XREAD STREAMS x 0"),
		c("INFO stats").with(trackingInfo),
		c("SET x1 1").on(1), c("DEL h l s z x a b c d e s2 z2").on(1), recv(0, 5),
		c("INFO stats").with(trackingInfo)),
	tc("writes that do not read do not track",
		h3(0), c("CLIENT TRACKING on"), c("SET k v"), c("LPUSH l a"), c("GETSET k w"), c("INFO stats").with(trackingInfo),
		c("SET k x").on(1), c("DEL l").on(1), c("PING")),
	tc("invalidation order of multi-key writes",
		h3(0), c("CLIENT TRACKING on"), c("MSET a 1 b 2 c 3 d 4").on(1),
		c("MGET a b c d"), c("RENAME a b").on(1), recv(0, 2),
		c("MGET a b c d"), c("DEL d c").on(1), recv(0, 2),
		c("SADD s1 x").on(1), c("SADD s2 y").on(1), c("EXISTS s1 s2"), c("SMOVE s1 s2 x").on(1), recv(0, 2),
		c("RPUSH l1 x").on(1), c("EXISTS l1 l2"), c("LMOVE l1 l2 LEFT RIGHT").on(1), recv(0, 2),
		c("EXISTS s2 dst"), c("SINTERSTORE dst s2 s2").on(1), recv(0, 1),
		c("EXISTS s2 cp"), c("COPY s2 cp").on(1), recv(0, 1)),
	tc("noloop",
		h3(0), c("CLIENT TRACKING on noloop"), c("GET k"), c("SET k v"), c("GET k"),
		c("SET k w").on(1), recv(0, 1), c("CLIENT TRACKINGINFO")),
	tc("resp2 without redirect sends nothing",
		c("CLIENT TRACKING on"), c("GET k"), c("SET k v"), c("SET k w").on(1), c("GET k"),
		c("CLIENT TRACKINGINFO"), c("CLIENT GETREDIR"), c("INFO stats").with(trackingInfo)),
	tc("resp2 redirect to a subscriber",
		c("SUBSCRIBE __redis__:invalidate").on(1),
		withIDs("CLIENT", "TRACKING", "on", "redirect", "@1"), c("GET k"), c("MGET a b"),
		c("SET k v").on(2), recv(1, 1), c("SET k v"), c("SET a 1"), recv(1, 1),
		c("CLIENT GETREDIR").with(clientID), c("CLIENT TRACKINGINFO").with(trackIDs),
		c("FLUSHALL").on(2), recv(1, 1), c("GET b"), c("FLUSHDB"), recv(1, 1), c("SET b 1"), c("PING")),
	tc("redirect to a resp2 client that is not subscribed",
		withIDs("CLIENT", "TRACKING", "on", "redirect", "@1"), c("GET k"), c("SET k v").on(2),
		c("GET k").on(1), c("PING").on(1)),
	tc("resp2 redirect to a resp3 client",
		h3(1), c("SUBSCRIBE __redis__:invalidate").on(1), withIDs("CLIENT", "TRACKING", "on", "redirect", "@1"), c("GET k"),
		c("SET k v").on(2), recv(1, 1), c("FLUSHALL").on(2), recv(1, 1)),
	tc("resp3 redirect to a resp2 subscriber",
		h3(0), c("SUBSCRIBE __redis__:invalidate").on(1),
		withIDs("CLIENT", "TRACKING", "on", "redirect", "@1"), c("GET k"),
		c("SET k v").on(2), recv(1, 1), c("FLUSHALL").on(2), recv(1, 1), c("PING")),
	tc("two clients redirect to one",
		h3(2), c("SUBSCRIBE __redis__:invalidate").on(2), withIDs("CLIENT", "TRACKING", "on", "redirect", "@2"), c("GET k"),
		withIDs("CLIENT", "TRACKING", "on", "redirect", "@2").on(1), c("GET k").on(1),
		c("SET k v").on(3), recv(2, 2)),
	tc("redirect to a client that left",
		h3(0), withIDs("CLIENT", "TRACKING", "on", "redirect", "@1"), c("GET k"), c("MGET a b"),
		c("QUIT").on(1).eof(), c("CLIENT TRACKINGINFO").with(trackIDs),
		c("SET k v").on(2), recv(0, 1).with(trackIDs), c("CLIENT TRACKINGINFO").with(trackIDs),
		c("SET a 1").expect(2).with(trackIDs), c("PING"),
		c("FLUSHALL").on(2), recv(0, 1).with(trackIDs),
		c("CLIENT TRACKING on"), c("CLIENT TRACKINGINFO"), c("GET k"), c("SET k 1").on(2), recv(0, 1)),
	tc("bcast with prefixes",
		h3(0), c("CLIENT TRACKING on bcast prefix a prefix b"), c("CLIENT TRACKINGINFO"),
		c("MSET a1 x b1 y c1 z").on(1), recv(0, 2), c("SET c2 z").on(1), c("SET a1 q").on(1), recv(0, 1),
		c("SET a2 q").expect(2), c("GET a3"), c("INFO stats").with(trackingInfo),
		c("CLIENT TRACKING on bcast prefix c"), c("CLIENT TRACKINGINFO"), c("SET c3 x").on(1), recv(0, 1),
		c("CLIENT TRACKING off"), c("SET a1 1").on(1), c("INFO stats").with(trackingInfo), c("PING")),
	tc("bcast without prefix",
		h3(0), c("CLIENT TRACKING on bcast"), c("SET x 1").on(1), recv(0, 1), c("DEL x y").on(1), recv(0, 1),
		c("CLIENT TRACKINGINFO"), c("INFO stats").with(trackingInfo)),
	tc("bcast pipeline is one message",
		h3(0), c("CLIENT TRACKING on bcast prefix k"),
		raw("SET k2 a\r\nSET k1 b\r\nSET k2 c\r\nSET x d\r\nDEL k1\r\n").on(1).expect(5), recv(0, 1)),
	tc("bcast noloop",
		h3(0), c("CLIENT TRACKING on bcast noloop prefix a"), c("MSET a1 x a2 y"),
		c("SET a1 z").on(1), recv(0, 1),
		raw("SET a1 x\r\nSET a3 y\r\n").on(1).expect(2), recv(0, 1),
		cmd("EVAL", "redis.call('set','a4','v')", "0").expect(2), c("CLIENT TRACKINGINFO")),
	tc("bcast two clients share a prefix",
		h3(0), h3(1), c("CLIENT TRACKING on bcast prefix p"), c("CLIENT TRACKING on bcast prefix p").on(1),
		c("INFO stats").with(trackingInfo), c("SET p1 x").on(2), recv(0, 1), recv(1, 1),
		c("CLIENT TRACKING off"), c("INFO stats").with(trackingInfo), c("SET p2 x").on(2), recv(1, 1)),
	tc("bcast redirect",
		c("SUBSCRIBE __redis__:invalidate").on(1),
		withIDs("CLIENT", "TRACKING", "on", "bcast", "redirect", "@1", "prefix", "a"),
		c("MSET a1 x a2 y b z").on(2), recv(1, 1)),
	tc("optin",
		h3(0), c("CLIENT TRACKING on optin"), c("GET k"), c("SET k v").on(1), c("PING"),
		c("CLIENT CACHING yes"), c("CLIENT TRACKINGINFO"), c("CLIENT TRACKINGINFO"), c("GET k"),
		c("CLIENT TRACKINGINFO"), c("SET k w").on(1), recv(0, 1),
		c("CLIENT CACHING yes"), c("PING"), c("GET k"), c("SET k x").on(1), c("PING"),
		c("CLIENT CACHING yes"), c("CLIENT ID").with(clientID), c("GET k"), c("SET k y").on(1), recv(0, 1),
		c("CLIENT CACHING yes"), c("NOSUCH"), c("GET k"), c("SET k y").on(1), c("PING"),
		c("CLIENT CACHING yes"), c("GET"), c("GET k"), c("SET k y").on(1), c("PING")),
	tc("optin with multi",
		h3(0), c("CLIENT TRACKING on optin"), c("CLIENT CACHING yes"), c("MULTI"), c("GET a"), c("GET b"),
		c("EXEC"), c("CLIENT TRACKINGINFO"), c("MSET a 1 b 2").on(1), recv(0, 2),
		c("MULTI"), c("CLIENT CACHING yes"), c("GET a"), c("EXEC"), c("SET a 3").on(1), recv(0, 1)),
	tc("optout",
		h3(0), c("CLIENT TRACKING on optout"), c("GET k"), c("SET k v").on(1), recv(0, 1),
		c("CLIENT CACHING no"), c("CLIENT TRACKINGINFO"), c("GET k"), c("SET k w").on(1), c("PING"),
		c("GET k"), c("SET k x").on(1), recv(0, 1)),
	tc("switching tracking on again",
		h3(0), c("CLIENT TRACKING on optin noloop"), c("CLIENT CACHING yes"), c("CLIENT TRACKING on"),
		c("CLIENT TRACKINGINFO"), c("GET k"), c("SET k v").expect(2),
		c("CLIENT TRACKING on bcast"), c("CLIENT TRACKING off"), c("CLIENT TRACKING on bcast prefix a"),
		c("CLIENT TRACKING on bcast prefix b"), c("CLIENT TRACKING on bcast"), c("CLIENT TRACKINGINFO"),
		c("CLIENT TRACKING on bcast prefix c"), c("SET zz 1").on(1), recv(0, 1)),
	tc("tracking off keeps the table until keys change",
		h3(0), c("CLIENT TRACKING on"), c("MGET a b"), c("CLIENT TRACKING off"),
		c("INFO stats").with(trackingInfo), c("INFO clients").with(trackingInfo),
		c("SET a 1").on(1), c("INFO stats").with(trackingInfo),
		c("CLIENT TRACKING on"), c("SET b 1").on(1), recv(0, 1), c("INFO stats").with(trackingInfo)),
	tc("multi sends own invalidations after exec",
		h3(0), c("CLIENT TRACKING on"), c("MGET a b"), c("MULTI"), c("SET a 1"), c("GET c"), c("SET b 2"),
		c("EXEC").expect(3), c("SET c 1").on(1), recv(0, 1)),
	tc("scripts",
		h3(0), c("CLIENT TRACKING on"),
		cmd("EVAL", "return redis.call('get',KEYS[1])", "1", "k"), c("SET k v").on(1), recv(0, 1),
		cmd("EVAL_RO", "return redis.call('get',KEYS[1])", "1", "k"), c("SET k w").on(1), recv(0, 1),
		cmd("EVAL", "redis.call('get','a') redis.call('set','a','1') return redis.call('get','a')", "0"),
		c("SET a 2").on(1), c("PING"),
		cmd("EVAL", "redis.call('get',KEYS[1]) redis.call('set',KEYS[1],'1') return redis.call('get',KEYS[1])", "1", "a").expect(2),
		c("SET a 2").on(1), recv(0, 1),
		cmd("EVAL", "return redis.call('get','x')", "1", "y"), c("SET x 1").on(1), c("SET y 1").on(1), recv(0, 1),
		cmd("EVAL", "return redis.call('set',KEYS[1],'1')", "1", "b"), c("SET b 0").on(1), c("GET b"),
		cmd("EVAL", "redis.call('set',KEYS[1],'2') redis.call('del',KEYS[1]) return 1", "1", "b").expect(2),
		c("MULTI"), cmd("EVAL", "return redis.call('get',KEYS[1])", "1", "m"), c("GET n"), c("EXEC"),
		c("MSET m 1 n 1").on(1), recv(0, 2),
		cmd("EVAL", "redis.call('get',KEYS[1]) return redis.call('flushall')", "1", "b").expect(2)),
	tc("functions",
		h3(0), c("CLIENT TRACKING on"),
		cmd("FUNCTION", "LOAD", "#!lua name=trk\nredis.register_function{function_name='rd', callback=function(k) return redis.call('get', k[1]) end, flags={'no-writes'}}"),
		c("FCALL_RO rd 1 k"), c("SET k v").on(1), recv(0, 1), c("FCALL rd 1 k"), c("SET k w").on(1), recv(0, 1),
		c("FCALL rd 0"), c("FCALL_RO rd 2 a b"), c("MSET a 1 b 1").on(1), recv(0, 2),
		c("FUNCTION FLUSH")),
	tc("flush sends a null to every tracking client",
		h3(0), c("CLIENT TRACKING on"), h3(1), c("CLIENT TRACKING on bcast").on(1),
		c("CLIENT TRACKING on").on(2), c("GET k"),
		c("FLUSHDB").on(3), recv(0, 1), recv(1, 1), c("FLUSHALL").on(3), recv(0, 1), recv(1, 1),
		c("FLUSHALL ASYNC").on(3), recv(0, 1), recv(1, 1), c("FLUSHDB x").on(3),
		c("INFO stats").with(trackingInfo), c("FLUSHALL").expect(2), recv(1, 1), c("FLUSHDB").on(1).expect(2),
		recv(0, 1), c("SET k v").on(1).expect(2)),
	tc("flush inside multi and a script",
		h3(0), c("CLIENT TRACKING on"), c("MULTI"), c("FLUSHDB"), c("FLUSHALL"), c("EXEC").expect(3),
		cmd("EVAL", "return redis.call('flushdb')", "0").expect(2)),
	tc("expiry invalidates",
		h3(0), c("CLIENT TRACKING on"), c("SET k v PX 100").on(1), c("GET k"), pause(400), recv(0, 1),
		c("SET k v").on(1), c("GET k"), c("EXPIRE k 0").on(1), recv(0, 1),
		c("SET k v").on(1), c("GET k"), c("PEXPIRE k 100000").on(1), recv(0, 1), c("PERSIST k").on(1), c("PING")),
	tc("table limit",
		h3(0), c("CLIENT TRACKING on"), c("CONFIG SET tracking-table-max-keys 1").on(1),
		raw("GET a\r\nGET b\r\nCLIENT TRACKING off\r\n").expect(4).with(evictedKey), c("INFO stats").with(trackingInfo),
		c("CONFIG SET tracking-table-max-keys 1000000").on(1)),
	tc("table limit while idle",
		h3(0), c("CLIENT TRACKING on"), c("MGET a b c"), c("CONFIG SET tracking-table-max-keys 2").on(1),
		pause(300), recv(0, 1).with(evictedAnyKey), c("INFO stats").with(trackingInfo),
		c("CONFIG SET tracking-table-max-keys 1000000").on(1)),
	tc("tracking flags in client info",
		h3(0), c("CLIENT INFO").with(clientFields), c("CLIENT TRACKING on"), c("CLIENT INFO").with(clientFields),
		c("CLIENT TRACKING on noloop optin"), c("CLIENT INFO").with(clientFields),
		c("CLIENT TRACKING off"), c("CLIENT TRACKING on bcast"), c("CLIENT INFO").with(clientFields),
		c("INFO clients").with(trackingInfo), c("RESET"), c("CLIENT INFO").with(clientFields),
		c("CLIENT TRACKINGINFO"), c("INFO clients").with(trackingInfo)),
	tc("databases share one tracking table",
		h3(0), c("CLIENT TRACKING on"), c("SELECT 1"), c("GET k"), c("SET k v").on(1), recv(0, 1),
		c("GET k"), c("SET k v").expect(2), c("GET k"), c("MOVE k 2").expect(2), c("GET k"), c("SELECT 0"), c("GET k"),
		c("FLUSHDB").on(1), recv(0, 1), c("SELECT 1"), c("FLUSHDB").expect(2)),
	tc("the redirect client killed",
		h3(0), withIDs("CLIENT", "TRACKING", "on", "redirect", "@1"), c("GET k"),
		withIDs("CLIENT", "KILL", "ID", "@1").on(2), pause(50),
		c("SET k v").on(3), recv(0, 1).with(trackIDs), c("CLIENT TRACKINGINFO").with(trackIDs)),
	tc("writes of every type invalidate",
		h3(0), c("CLIENT TRACKING on"), c("HSET h f v").on(1), c("RPUSH l a b").on(1), c("SADD s m n").on(1),
		c("ZADD z 1 m 2 n").on(1), c("SET n 1").on(1), c("SET str abc").on(1),
		c("MGET h l s z n str"), c("HINCRBY h f2 1").on(1), recv(0, 1), c("LPOP l").on(1), recv(0, 1),
		c("SREM s m").on(1), recv(0, 1), c("ZINCRBY z 1 m").on(1), recv(0, 1), c("INCRBYFLOAT n 1.5").on(1), recv(0, 1),
		c("SETRANGE str 1 x").on(1), recv(0, 1),
		c("MGET h l s z n str"), c("HDEL h nosuch").on(1), c("SREM s nosuch").on(1), c("LREM l 0 nosuch").on(1),
		c("ZADD z 2 m").on(1), c("SADD s n").on(1), c("PERSIST n").on(1), c("PING"),
		c("GETEX str EX 100").on(1), recv(0, 1), c("GETDEL n").on(1), recv(0, 1), c("SET h x").on(1), recv(0, 1),
		c("LTRIM l 0 -1").on(1), recv(0, 1), c("SPOP s 5").on(1), recv(0, 1), c("ZREMRANGEBYRANK z 0 -1").on(1), recv(0, 1)),
	tc("a tracking client leaving",
		h3(1), c("CLIENT TRACKING on").on(1), c("CLIENT TRACKING on bcast prefix q").on(2), c("GET k").on(1),
		c("INFO stats").with(trackingInfo), c("INFO clients").with(trackingInfo),
		c("QUIT").on(1).eof(), c("QUIT").on(2).eof(), pause(50),
		c("INFO stats").with(trackingInfo), c("INFO clients").with(trackingInfo),
		c("SET k v"), c("INFO stats").with(trackingInfo)),
}
