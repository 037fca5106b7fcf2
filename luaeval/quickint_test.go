package luaeval

import (
	"math"
	"math/rand"
	"strconv"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// quickReply's integers against the general parser on seeded generated
// integer replies, well formed (every magnitude up to the int64 limits)
// and not (leading zeros, "-0", a plus sign, 19 digits, stray bytes,
// missing line ends): whenever it takes a reply it gives the parser's
// number, and it takes every canonical integer of up to 18 digits.
func TestQuickReplyIntAgainstParser(t *testing.T) {
	r := rand.New(rand.NewSource(seed(t)))
	e := newTestEngine(t, Config{})
	L := e.sandbox().L
	pieces := []string{":", "-", "+", "0", "00", "1", "7", "9", "1023", "1024", "999999999999999999", "9223372036854775807", " ", "x", "\r", "\n", "\r\n", "\r\n"}
	took := 0
	for i := range 200000 {
		var b []byte
		canonical := false
		if r.Intn(2) == 0 {
			var n int64
			switch r.Intn(4) {
			case 0:
				n = int64(r.Intn(2048)) - 1024
			case 1:
				n = r.Int63n(1 << uint(r.Intn(63)))
			case 2:
				n = []int64{math.MaxInt64, math.MinInt64, 1e17, 1e18 - 1, 1e18, -1e18 + 1, -1e18}[r.Intn(7)]
			default:
				n = -r.Int63n(1 << uint(r.Intn(63)))
			}
			b = strconv.AppendInt(append(b, ':'), n, 10)
			b = append(b, "\r\n"...)
			canonical = n > -1e18 && n < 1e18
		} else {
			for range 1 + r.Intn(6) {
				b = append(b, pieces[r.Intn(len(pieces))]...)
			}
		}
		v, ok := e.quickReply(L, b)
		if canonical && !ok {
			t.Fatalf("case %d: %q: quickReply did not take it", i, b)
		}
		if !ok {
			continue
		}
		took++
		pv, rest, pok := e.parseReply(L, b, 0)
		if !pok || len(rest) != 0 {
			t.Fatalf("case %d: %q: quickReply took %v, the parser did not (rest %q)", i, b, v, rest)
		}
		n, isNum := v.(lua.LNumber)
		pn, pisNum := pv.(lua.LNumber)
		if b[0] == ':' && (!isNum || !pisNum || n != pn) {
			t.Fatalf("case %d: %q: quickReply %v, the parser %v", i, b, v, pv)
		}
	}
	if took < 75000 {
		t.Fatalf("quickReply took only %d replies", took)
	}
}

// quickReply against the general parser on short seeded generated
// replies of every kind it takes (integers, bulk strings, RESP2's null
// bulk string) and of others beside, in both protocols: whenever it takes
// a reply it gives the parser's value.
func TestQuickReplyAgainstParser(t *testing.T) {
	r := rand.New(rand.NewSource(seed(t)))
	e := newTestEngine(t, Config{})
	L := e.sandbox().L
	pieces := []string{":", "$", "$", "*", "_", "-", "-1", "1", "0", "12", "\r", "\n", "\r\n", "\r\n", "\r\n", "ab", "x", "$-1\r\n", "$1\r\nx\r\n", "$2\r\n", ":5\r\n", "_\r\n", "*-1\r\n"}
	took := map[byte]int{}
	for i := range 200000 {
		e.run.resp = 2 + r.Intn(2)
		var b []byte
		for range 1 + r.Intn(5) {
			b = append(b, pieces[r.Intn(len(pieces))]...)
		}
		v, ok := e.quickReply(L, b)
		if !ok {
			continue
		}
		took[b[0]]++
		pv, rest, pok := e.parseReply(L, b, 0)
		if !pok || len(rest) != 0 || v.String() != pv.String() || v.Type() != pv.Type() {
			t.Fatalf("case %d (RESP%d): %q: quickReply %v, the parser %v (ok %v, rest %q)", i, e.run.resp, b, v, pv, pok, rest)
		}
	}
	if took[':'] < 1000 || took['$'] < 1000 {
		t.Fatalf("quickReply took too few replies: %v", took)
	}
	e.run.resp = 2
}
