package diff_test

import (
	"fmt"
	"strings"
)

// keysN sets n keys named prefix0, prefix1 ... in one MSET.
func keysN(prefix string, n int) step {
	args := []string{"MSET"}
	for i := range n {
		args = append(args, fmt.Sprintf("%s%d", prefix, i), "v")
	}
	s := cmd(args...)
	s.label = fmt.Sprintf("MSET %s0..%s%d", prefix, prefix, n-1)
	return s
}

// Key commands: DEL, UNLINK, EXISTS, TOUCH, TYPE, KEYS (and its glob
// patterns), SCAN, DBSIZE, FLUSHDB, FLUSHALL.
var keyCases = []diffCase{
	// DEL, UNLINK
	tc("del one", c("SET k v"), c("DEL k"), c("EXISTS k"), c("DEL k")),
	tc("del several with duplicates", c("MSET a 1 b 2"), c("DEL a a b c"), c("DBSIZE")),
	tc("del expired", c("SET k v PXAT 1000"), c("DEL k")),
	tc("del removes ttl", c("SET k v EX 100"), c("DEL k"), c("SET k v"), c("TTL k")),
	tc("del arity", c("DEL")),
	tc("unlink", c("MSET a 1 b 2"), c("UNLINK a b c a"), c("EXISTS a b")),
	tc("unlink arity", c("UNLINK")),

	// EXISTS, TOUCH, TYPE
	tc("exists counts duplicates", c("SET a 1"), c("EXISTS a a a b")),
	tc("exists missing", c("EXISTS nosuch")),
	tc("exists expired", c("SET k v PXAT 1000"), c("EXISTS k")),
	tc("exists arity", c("EXISTS")),
	tc("touch", c("MSET a 1 b 2"), c("TOUCH a b c a"), c("TOUCH nosuch")),
	tc("touch arity", c("TOUCH")),
	tc("type", c("SET k v"), c("TYPE k"), c("TYPE nosuch")),
	tc("type expired", c("SET k v PXAT 1000"), c("TYPE k")),
	tc("type arity", c("TYPE"), c("TYPE a b")),

	// KEYS: one match per pattern where possible, so the order is exact.
	tc("keys star", c("MSET a 1 b 2 c 3"), c("KEYS *").with(sorted)),
	tc("keys empty db", c("KEYS *"), c("KEYS a*")),
	tc("keys no match", c("SET abc v"), c("KEYS x*"), c("KEYS ab"), c("KEYS abcd")),
	tc("keys exact", c("MSET abc 1 abcd 2"), c("KEYS abc")),
	tc("keys question mark", c("MSET ab 1 abc 2 b 3"), c("KEYS a?"), c("KEYS ?"), c("KEYS ???"), c("KEYS ????")),
	tc("keys prefix and suffix", c("MSET user:1 1 order:1 2 user:22 3"), c("KEYS user:2*"), c("KEYS *:1").with(sorted), c("KEYS *der*")),
	tc("keys many stars", c("MSET abc 1 xyz 2"), c("KEYS **a**"), c("KEYS *b*c*"), c("KEYS a*b*c*d")),
	tc("keys class", c("MSET hallo 1 hello 2 hillo 3"), c("KEYS h[ae]llo").with(sorted), c("KEYS h[i]llo"), c("KEYS h[xyz]llo")),
	tc("keys negated class", c("MSET hallo 1 hello 2 hillo 3"), c("KEYS h[^ae]llo"), c("KEYS h[^a]llo").with(sorted)),
	tc("keys range", c("MSET hallo 1 hbllo 2 hello 3"), c("KEYS h[a-b]llo").with(sorted), c("KEYS h[c-e]llo"), c("KEYS h[^a-d]llo")),
	tc("keys reversed range", c("MSET hallo 1 hbllo 2 hello 3"), c("KEYS h[e-c]llo"), c("KEYS h[b-a]llo").with(sorted)),
	tc("keys range edges", c("MSET a 1 z 2 - 3"), c("KEYS [a-]"), c("KEYS [-z]").with(sorted), c("KEYS [z-z]"), c("KEYS [---]")),
	tc("keys escaped star", c("MSET a*b 1 axb 2"), cmd("KEYS", `a\*b`), c("KEYS a*b").with(sorted)),
	tc("keys escaped question and bracket", c("MSET a?b 1 axb 2 [x] 3"), cmd("KEYS", `a\?b`), cmd("KEYS", `\[x\]`), cmd("KEYS", `\[x]`)),
	tc("keys escape inside class", cmd("MSET", "]", "1", `\`, "2", "x", "3"), cmd("KEYS", `[\]]`), cmd("KEYS", `[\\]`), cmd("KEYS", `[x\]`).with(sorted)),
	tc("keys escaped plain char", c("MSET ab 1"), cmd("KEYS", `\a\b`)),
	tc("keys trailing backslash", cmd("MSET", `a\`, "1", "a", "2"), cmd("KEYS", `a\`), cmd("KEYS", `a\\`)),
	tc("keys unterminated class", cmd("MSET", "ha", "1", "hb", "2", "h[ab", "3", "h", "4"), c("KEYS h[ab").with(sorted), c("KEYS h[a"), c("KEYS h["), c("KEYS h[^a")),
	tc("keys unterminated class at end", cmd("MSET", "a", "1", "ab", "2"), c("KEYS a["), c("KEYS [a")),
	tc("keys class with bracket first", cmd("MSET", "]", "1", "a", "2"), c("KEYS []]"), c("KEYS []a]").with(sorted)),
	tc("keys empty class", cmd("MSET", "a", "1", "ab", "2"), c("KEYS a[]"), c("KEYS a[]b"), c("KEYS [^]")),
	tc("keys star then class", c("MSET xa 1 xya 2 xyb 3"), c("KEYS *[a]").with(sorted), c("KEYS *y[^a]")),
	tc("keys signed byte ranges", cmd("MSET", "a", "1", "\x80", "2", "\xff", "3", "\x01", "4"),
		cmd("KEYS", "[a-\xff]").with(sorted), cmd("KEYS", "[\x80-\x81]"), cmd("KEYS", "[\x01-\xff]").with(sorted)),
	tc("keys binary", cmd("MSET", "a\x00b", "1", "a\r\nb", "2"), cmd("KEYS", "a?b"), cmd("KEYS", "a\x00*"), cmd("KEYS", "a??b")),
	tc("keys empty pattern", cmd("SET", "", "v"), c("SET a v"), cmd("KEYS", "")),
	tc("keys empty key", cmd("SET", "", "v"), c("KEYS *"), c("KEYS **"), c("KEYS ?"), c("KEYS *a"), scanAll("MATCH", "*"), scanAll("MATCH", "**"), scanAll("MATCH", "")),
	tc("keys pathological pattern", cmd("SET", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab", "v"), c("KEYS a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*c")),
	tc("keys nesting limit", cmd("SET", strings.Repeat("a", 1200), "v"),
		cmd("KEYS", strings.Repeat("a*", 1000)+"a"), cmd("KEYS", strings.Repeat("a*", 1001)+"a"), cmd("KEYS", strings.Repeat("*a", 1100)), cmd("KEYS", strings.Repeat("a?", 600))),
	tc("keys nesting limit with consecutive stars", cmd("SET", strings.Repeat("a", 1200), "v"), cmd("KEYS", strings.Repeat("a**", 1001)+"a"), cmd("KEYS", strings.Repeat("*", 5000)+"a")),
	tc("keys expired left out", c("SET a v PXAT 1000"), c("SET b v"), c("KEYS *"), c("KEYS a")),
	tc("keys per database", c("SET k v"), c("SELECT 1"), c("KEYS *"), c("SET j v"), c("KEYS *"), c("SELECT 0"), c("KEYS *")),
	tc("keys arity", c("KEYS"), c("KEYS a b")),

	// SCAN: cursors differ between the servers (deliberately), so a case
	// compares the keys a full iteration collects.
	tc("scan empty db", c("SCAN 0"), scanAll()),
	tc("scan all", keysN("key:", 50), scanAll()),
	tc("scan count", keysN("key:", 50), scanAll("COUNT", "3"), scanAll("COUNT", "1000"), scanAll("count", "1")),
	tc("scan match", keysN("key:", 30), keysN("other:", 5), scanAll("MATCH", "key:1*"), scanAll("MATCH", "other:?"), scanAll("MATCH", "*"), scanAll("MATCH", "nothing*")),
	tc("scan match and count", keysN("key:", 30), scanAll("MATCH", "*2*", "COUNT", "5"), scanAll("COUNT", "5", "MATCH", "*3")),
	tc("scan type", keysN("key:", 10), scanAll("TYPE", "string"), scanAll("TYPE", "STRING"), scanAll("TYPE", "hash"), scanAll("TYPE", "nosuchtype")),
	tc("scan all options", keysN("key:", 20), scanAll("TYPE", "string", "MATCH", "key:1?", "COUNT", "4")),
	tc("scan repeated options", keysN("key:", 10), scanAll("MATCH", "x*", "MATCH", "key:2", "COUNT", "1", "COUNT", "100")),
	tc("scan expired left out", c("SET a v PXAT 1000"), c("SET b v"), scanAll(), scanAll("MATCH", "a")),
	tc("scan per database", keysN("key:", 5), c("SELECT 2"), scanAll(), c("SET other v"), scanAll()),
	tc("scan count invalid", c("SCAN 0 COUNT 0"), c("SCAN 0 COUNT -1"), c("SCAN 0 COUNT abc"), c("SCAN 0 COUNT 01"), c("SCAN 0 COUNT 9223372036854775808")),
	tc("scan count huge", keysN("key:", 5), scanAll("COUNT", "9223372036854775807")),
	tc("scan syntax", c("SCAN 0 MATCH"), c("SCAN 0 COUNT"), c("SCAN 0 TYPE"), c("SCAN 0 FOO bar"), c("SCAN 0 MATCH a COUNT")),
	tc("scan invalid cursor", c("SCAN abc"), cmd("SCAN", " 0"), cmd("SCAN", "0 "), c("SCAN 0x0"), c("SCAN 18446744073709551616"), c("SCAN 1.5")),
	tc("scan cursor forms", cmd("SCAN", ""), c("SCAN +0"), c("SCAN 00"), cmd("SCAN", "0\x00junk")),
	tc("scan cursor checked first", c("SCAN abc COUNT 0"), c("SCAN abc FOO")),
	tc("scan arity", c("SCAN")),

	// DBSIZE, FLUSHDB, FLUSHALL
	tc("dbsize", c("DBSIZE"), c("MSET a 1 b 2 c 3"), c("DBSIZE"), c("DEL a"), c("DBSIZE")),
	tc("dbsize per database", c("SET a 1"), c("SELECT 5"), c("DBSIZE"), c("SET b 1"), c("SET c 1"), c("DBSIZE"), c("SELECT 0"), c("DBSIZE")),
	tc("dbsize arity", c("DBSIZE x")),
	tc("flushdb", c("MSET a 1 b 2"), c("SELECT 1"), c("SET c 3"), c("FLUSHDB"), c("DBSIZE"), c("SELECT 0"), c("DBSIZE")),
	tc("flushdb options", c("SET a 1"), c("FLUSHDB SYNC"), c("SET a 1"), c("FLUSHDB async"), c("DBSIZE")),
	tc("flushdb bad options", c("SET a 1"), c("FLUSHDB FOO"), c("FLUSHDB SYNC ASYNC"), c("FLUSHDB SYNC SYNC"), c("DBSIZE")),
	tc("flushdb removes ttls", c("SET a 1 EX 100"), c("FLUSHDB"), c("SET a 1"), c("TTL a")),
	tc("flushall", c("SET a 1"), c("SELECT 1"), c("SET b 2"), c("FLUSHALL"), c("DBSIZE"), c("SELECT 0"), c("DBSIZE")),
	tc("flushall options", c("SET a 1"), c("FLUSHALL ASYNC"), c("SET a 1"), c("flushall sync"), c("DBSIZE")),
	tc("flushall bad options", c("SET a 1"), c("FLUSHALL NOW"), c("FLUSHALL ASYNC x"), c("DBSIZE")),
}

// Key commands across every type: RENAME, RENAMENX, COPY, MOVE,
// RANDOMKEY, TYPE, EXPIRE on collections.
var keyTypeCases = []diffCase{
	tc("rename", c("SET a 1 EX 100"), c("RENAME a b"), c("GET b"), c("TTL b"), c("EXISTS a"), c("RENAME nosuch x"), c("RENAME b b"), c("RENAME nosuch nosuch"),
		c("HSET h f v"), c("RENAME h b"), c("TYPE b"), c("HGET b f"), c("RPUSH l x"), c("SET s v"), c("RENAME l s"), c("TYPE s"), c("LRANGE s 0 -1")),
	tc("renamenx", c("SET a 1"), c("SET b 2"), c("RENAMENX a b"), c("RENAMENX a c"), c("GET c"), c("RENAMENX c c"), c("RENAMENX nosuch x"), c("ZADD z 1 m"), c("RENAMENX z y"), c("ZRANGE y 0 -1")),
	tc("copy", c("SET a 1 EX 100"), c("COPY a b"), c("GET b"), c("TTL b"), c("COPY a b"), c("COPY a b REPLACE"), c("COPY a a"), c("COPY a a DB 1"), c("SELECT 1"), c("GET a"), c("SELECT 0"),
		c("COPY nosuch x"), c("COPY a x DB 16"), c("COPY a x DB -1"), c("COPY a x DB x"), c("COPY a x FOO"), c("COPY a x DB"), c("COPY a x DB 99999999999"),
		c("HSET h f v"), c("COPY h h2"), c("HSET h2 g w"), c("HGETALL h"), c("HGETALL h2"), c("SADD s 1 2"), c("COPY s s2"), c("SREM s 1"), c("SMEMBERS s2"),
		c("ZADD z 1 a"), c("COPY z z2"), c("ZADD z 2 a"), c("ZSCORE z2 a"), c("RPUSH l 1 2"), c("COPY l l2"), c("RPOP l"), c("LRANGE l2 0 -1")),
	tc("move", c("SET a 1 EX 100"), c("MOVE a 1"), c("EXISTS a"), c("SELECT 1"), c("GET a"), c("TTL a"), c("MOVE a 1"), c("MOVE a 0"), c("SELECT 0"), c("SET a 2"), c("SELECT 1"), c("MOVE a 0"),
		c("SELECT 0"), c("GET a"), c("MOVE nosuch 1"), c("MOVE a 16"), c("MOVE a -1"), c("MOVE a x"), c("HSET h f v"), c("MOVE h 2"), c("SELECT 2"), c("HGET h f")),
	tc("randomkey", c("RANDOMKEY"), c("SET only v"), c("RANDOMKEY"), c("DEL only"), c("RANDOMKEY"), c("HSET h f v"), c("RANDOMKEY")),
	tc("expire on collections", c("HSET h f v"), c("SADD s a"), c("ZADD z 1 a"), c("RPUSH l a"), c("EXPIRE h 100"), c("PEXPIRE s 100000"), c("EXPIREAT z "+farSec), c("TTL h"), c("PTTL s").with(msToSec),
		c("EXPIRETIME z"), c("PERSIST h"), c("TTL h"), c("DEL h s z l"), c("EXISTS h s z l"), c("KEYS *")),
	tc("types", c("SET s v"), c("HSET h f v"), c("SADD t m"), c("ZADD z 1 m"), c("RPUSH l m"), c("TYPE s"), c("TYPE h"), c("TYPE t"), c("TYPE z"), c("TYPE l"), c("TYPE nosuch"),
		c("KEYS *").with(sorted), c("SCAN 0 TYPE zset"), c("SCAN 0 TYPE list"), c("SCAN 0 TYPE set"), c("DBSIZE"), c("EXISTS s h t z l nosuch"), c("UNLINK s h"), c("DBSIZE")),
}

// CONFIG SET of the encoding thresholds (each case puts them back).
var configEncodingCases = []diffCase{
	tc("config set encodings", c("CONFIG GET hash-max-listpack-entries"), c("CONFIG GET *listpack* *ziplist* set-max-intset-entries").with(sortedPairs), c("CONFIG SET hash-max-listpack-entries 4"),
		c("CONFIG GET hash-max-ziplist-entries"), c("HSET h a 1 b 2 c 3 d 4 e 5"), c("HGETALL h").with(sortedPairs), c("CONFIG SET zset-max-ziplist-value 1kb"), c("CONFIG GET zset-max-listpack-value"),
		c("CONFIG SET hash-max-listpack-entries x"), c("CONFIG SET hash-max-listpack-entries -1"), c("CONFIG SET hash-max-listpack-value 1xb"), c("CONFIG SET nosuch 1"),
		c("CONFIG SET list-max-listpack-size -6"), c("CONFIG GET list-max-ziplist-size"), c("CONFIG SET set-max-intset-entries 2 set-max-intset-entries 3"),
		c("CONFIG SET hash-max-listpack-entries 1 nosuch 2"), c("CONFIG GET hash-max-listpack-entries"), c("CONFIG SET hash-max-listpack-entries"),
		c("CONFIG SET zset-max-listpack-entries 0"), c("ZADD z 1 a"), c("ZRANGE z 0 -1 WITHSCORES"),
		c("CONFIG SET hash-max-listpack-entries 512 hash-max-listpack-value 64 zset-max-listpack-entries 128 zset-max-listpack-value 64 set-max-intset-entries 512 list-max-listpack-size -2")),
}
