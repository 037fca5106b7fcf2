package luaeval

import (
	"testing"

	"github.com/minilock/minilock/resp"
)

// benchHost answers GET and DEL from a map, as cheaply as a keyspace would.
type benchHost struct{ m map[string][]byte }

func (h *benchHost) Call(args [][]byte, readOnly bool, w *resp.Writer) bool {
	switch string(args[0]) {
	case "get":
		if v, ok := h.m[string(args[1])]; ok {
			w.Bulk(v)
		} else {
			w.Null()
		}
		return false
	case "del":
		if _, ok := h.m[string(args[1])]; ok {
			// keep the key so every iteration does the same work
			w.Int(1)
		} else {
			w.Int(0)
		}
		return true
	}
	w.Error("ERR Unknown Redis command called from script")
	return false
}

const compareAndDelete = "if redis.call('get',KEYS[1]) == ARGV[1] then return redis.call('del',KEYS[1]) else return 0 end"

func benchEvalSHA(b *testing.B, script string, match bool) {
	e := New(Config{})
	defer e.Close()
	sha, err := e.Load([]byte(script))
	if err != nil {
		b.Fatal(err)
	}
	h := &benchHost{m: map[string][]byte{"lock:1": []byte("token-123")}}
	arg := "token-123"
	if !match {
		arg = "other"
	}
	args := [][]byte{[]byte(sha), []byte("1"), []byte("lock:1"), []byte(arg)}
	w := &resp.Writer{}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w.B = w.B[:0]
		if err := e.EvalSHA(w, args, false, h); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	want := ":1\r\n"
	if !match {
		want = ":0\r\n"
	}
	if string(w.B) != want {
		b.Fatalf("reply %q", w.B)
	}
}

func BenchmarkEvalSHACompareAndDelete(b *testing.B)         { benchEvalSHA(b, compareAndDelete, true) }
func BenchmarkEvalSHACompareAndDeleteMismatch(b *testing.B) { benchEvalSHA(b, compareAndDelete, false) }
func BenchmarkEvalSHAReturnOne(b *testing.B)                { benchEvalSHA(b, "return 1", true) }
