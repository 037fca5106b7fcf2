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
