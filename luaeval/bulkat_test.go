package luaeval

import (
	"bytes"
	"math/rand"
	"strconv"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"github.com/minilock/minilock/resp"
)

// bulkAt, the array elements' shortcut, against the general parser
// (resp.Next) on seeded generated element encodings, well formed and
// not (lengths with leading zeros, signs, seven digits, missing or wrong
// line ends, truncations, other kinds): whenever it takes an element it
// gives the parser's string and the same rest.
func TestBulkAtAgainstParser(t *testing.T) {
	r := rand.New(rand.NewSource(seed(t)))
	e := newTestEngine(t, Config{})
	pieces := []string{"$", "$", "$", ":", "*", "+", "-", "0", "1", "3", "5", "9", "10", "07", "-1", "1234567", "\r", "\n", "\r\n", "\r\n", "\r\n", "abc", "hello", "x", ""}
	took := 0
	for i := range 200000 {
		var b []byte
		if r.Intn(2) == 0 {
			// A well-formed bulk string, maybe cut or followed by more.
			s := bytes.Repeat([]byte{byte('a' + r.Intn(26))}, r.Intn(20))
			b = append(b, '$')
			b = strconv.AppendInt(b, int64(len(s)), 10)
			b = append(b, "\r\n"...)
			b = append(b, s...)
			b = append(b, "\r\n"...)
			if r.Intn(4) == 0 {
				b = b[:r.Intn(len(b)+1)]
			}
			if r.Intn(2) == 0 {
				b = append(b, ":1\r\n"...)
			}
		} else {
			for range 1 + r.Intn(6) {
				b = append(b, pieces[r.Intn(len(pieces))]...)
			}
		}
		v, rest, ok := e.bulkAt(b)
		if !ok {
			continue
		}
		took++
		it, prest, err := resp.Next(b)
		if err != nil || it.Kind != '$' {
			t.Fatalf("case %d: %q: bulkAt took %q, the parser: %v %q", i, b, v, err, it.Kind)
		}
		if s, isStr := v.(lua.LString); !isStr || string(s) != string(it.Data) || !bytes.Equal(rest, prest) {
			t.Fatalf("case %d: %q: bulkAt %q rest %q, the parser %q rest %q", i, b, v, rest, it.Data, prest)
		}
	}
	if took < 50000 {
		t.Fatalf("bulkAt took only %d elements", took)
	}
}
