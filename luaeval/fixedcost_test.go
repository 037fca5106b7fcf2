package luaeval

import (
	"testing"

	"github.com/minilock/minilock/bench/luashapes"
	"github.com/minilock/minilock/resp"
)

// BenchmarkFixedCost is what every script run pays whatever the script
// does: "return 1" with one key and one argument, as EVALSHA and as FCALL,
// with the server CPU per run beside it (cpu-ns/op), e.g.
//
//	go test -run '^$' -bench 'FixedCost' -benchtime 200000x ./luaeval/
func BenchmarkFixedCost(b *testing.B) {
	s := luashapes.Shape{Name: "fixed", Body: "return 1", Want: "1", Keys: []string{"k"}, Args: []string{"a"}}
	b.Run("evalsha", func(b *testing.B) {
		e := New(Config{})
		defer e.Close()
		sha, err := e.Load([]byte(s.Body))
		if err != nil {
			b.Fatal(err)
		}
		args := [][]byte{[]byte(sha), []byte("1"), []byte("k"), []byte("a")}
		runShape(b, ":1\r\n", func(w *resp.Writer, h Host) error { return e.EvalSHA(w, args, false, h) })
	})
	b.Run("fcall", func(b *testing.B) {
		e := New(Config{})
		defer e.Close()
		if _, err := e.FunctionLoad([]byte(s.Library()), false); err != nil {
			b.Fatal(err)
		}
		args := [][]byte{[]byte("FCALL"), []byte(s.FuncName()), []byte("1"), []byte("k"), []byte("a")}
		runShape(b, ":1\r\n", func(w *resp.Writer, h Host) error { return e.FCall(w, args, false, h) })
	})
}
