package luaeval

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// Generated reply conversions: random Lua values returned from a script,
// nested tables with holes, status and error tables of every type, and
// RESP3's typed tables (map, set, double, big_number, verbatim_string),
// converted for a RESP2 and a RESP3 client as script_lua.c's
// luaReplyToRedisReply does, against a live redis-server.

type replyGen struct{ r *rand.Rand }

func (g replyGen) pick(xs ...string) string { return xs[g.r.Intn(len(xs))] }

func (g replyGen) scalar() string {
	return g.pick("0", "-0", "1.5", "-2.7", "1e20", "2^63", "-2^63", "2^53+1", "(0/0)", "(1/0)", "(-1/0)", "3", "0.9999",
		`""`, `"x"`, `"\0a"`, `"OK"`, `"1.5"`, "true", "false", "nil",
		`redis.status_reply("st")`, `redis.error_reply("E1 bad")`, `redis.error_reply("-E2 dash")`)
}

func (g replyGen) value(depth int) string {
	if depth == 0 || g.r.Intn(3) == 0 {
		return g.scalar()
	}
	switch g.r.Intn(12) {
	case 0:
		return "{ok = " + g.pick(`"fine"`, "5", "true", "{}") + "}"
	case 1:
		return "{err = " + g.pick(`"bad"`, `"-ERR x"`, "5", "{}", `""`) + "}"
	case 2:
		return "{double = " + g.pick("1.5", `"2.5"`, "(0/0)", "(1/0)", "-0", `"x"`, "{}") + "}"
	case 3:
		return "{big_number = " + g.pick(`"123456789012345678901234567890"`, "5", `"x"`) + "}"
	case 4:
		return "{verbatim_string = {format = " + g.pick(`"txt"`, `"mkd"`, `"x"`) + ", string = " + g.pick(`"hello"`, "5", "nil") + "}}"
	case 5:
		return "{map = {" + g.fields(depth) + "}}"
	case 6:
		return "{set = {" + g.setFields() + "}}"
	case 7:
		return "{" + g.fields(depth) + "}"
	case 8:
		return "{ok = " + `"a"` + ", err = " + `"b"` + "}"
	default:
		n := g.r.Intn(5)
		items := make([]string, n)
		for i := range items {
			items[i] = g.value(depth - 1)
		}
		return "{" + strings.Join(items, ", ") + "}"
	}
}

// fields is a table constructor's keyed fields.
func (g replyGen) fields(depth int) string {
	n := g.r.Intn(4)
	items := make([]string, n)
	for i := range items {
		key := g.pick("a", "b", "k1", "[1]", "[2]", "[1.5]", "[true]", "zz")
		if !strings.HasPrefix(key, "[") {
			key = fmt.Sprintf("[%q]", key)
		}
		items[i] = key + " = " + g.value(depth-1)
	}
	return strings.Join(items, ", ")
}

func (g replyGen) setFields() string {
	n := g.r.Intn(4)
	items := make([]string, n)
	for i := range items {
		items[i] = g.pick(`a = true`, `b = true`, `[5] = true`, `c = false`, `d = 1`, `[2.5] = true`)
	}
	return strings.Join(items, ", ")
}

func genReplyScripts(seed int64, n int) []string {
	g := replyGen{rand.New(rand.NewSource(seed))}
	out := make([]string, n)
	for i := range out {
		out[i] = "return " + g.value(3)
	}
	return out
}

func TestReplyConversionAgainstRedis(t *testing.T) {
	scripts := genReplyScripts(seed(t)+3000, 1500)
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("RESP%d", proto), func(t *testing.T) {
			diffAgainstRedisProto(t, scripts, proto, maskAddresses)
		})
	}
}
