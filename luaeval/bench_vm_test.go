package luaeval

import (
	"strconv"
	"syscall"
	"testing"

	"github.com/minilock/minilock/bench/luashapes"
	"github.com/minilock/minilock/resp"
)

// shapeHost is the little keyspace the queue and release shapes call:
// strings, lists and hashes in maps, answering as Redis does for the
// commands the shapes use, so the benchmarks measure the VM and the
// libraries rather than a host.
type shapeHost struct {
	str  map[string]string
	list map[string][]string
	hash map[string][][2]string
}

func newShapeHost() *shapeHost {
	return &shapeHost{str: map[string]string{}, list: map[string][]string{}, hash: map[string][][2]string{}}
}

func (h *shapeHost) Call(args [][]byte, readOnly bool, w *resp.Writer) bool {
	k := ""
	if len(args) > 1 {
		k = string(args[1])
	}
	switch string(args[0]) {
	case "get", "GET":
		if v, ok := h.str[k]; ok {
			w.Bulk([]byte(v))
		} else {
			w.Null()
		}
		return false
	case "INCR":
		n, _ := strconv.Atoi(h.str[k])
		n++
		h.str[k] = strconv.Itoa(n)
		w.Int(int64(n))
	case "HSET":
		for i := 2; i+1 < len(args); i += 2 {
			h.hash[k] = append(h.hash[k], [2]string{string(args[i]), string(args[i+1])})
		}
		w.Int(int64((len(args) - 2) / 2))
	case "HGETALL":
		f := h.hash[k]
		w.Array(2 * len(f))
		for _, p := range f {
			w.Bulk([]byte(p[0]))
			w.Bulk([]byte(p[1]))
		}
		return false
	case "LPUSH":
		for _, v := range args[2:] {
			h.list[k] = append([]string{string(v)}, h.list[k]...)
		}
		w.Int(int64(len(h.list[k])))
	case "LLEN":
		w.Int(int64(len(h.list[k])))
		return false
	case "RPOP":
		l := h.list[k]
		if len(l) == 0 {
			w.Null()
			return true
		}
		w.Bulk([]byte(l[len(l)-1]))
		h.list[k] = l[:len(l)-1]
	case "del", "DEL":
		_, a := h.str[k]
		_, b := h.hash[k]
		delete(h.str, k)
		delete(h.hash, k)
		if a || b {
			w.Int(1)
		} else {
			w.Int(0)
		}
	default:
		w.Error("ERR Unknown Redis command called from script")
		return false
	}
	return true
}

func bytesOf(ss []string) [][]byte {
	out := make([][]byte, len(ss))
	for i, s := range ss {
		out[i] = []byte(s)
	}
	return out
}

// shapeReply is Want as a RESP2 reply: an integer when it reads as one.
func shapeReply(s luashapes.Shape) string {
	if _, err := strconv.ParseInt(s.Want, 10, 64); err == nil {
		return ":" + s.Want + "\r\n"
	}
	return "$" + strconv.Itoa(len(s.Want)) + "\r\n" + s.Want + "\r\n"
}

// BenchmarkLua runs every shape of the benchmark set (bench/luashapes) as
// EVALSHA and as FCALL against the engine alone, checking the reply is
// redis-server's. Compare two builds with interleaved -count runs (the
// machine is shared), e.g.
//
//	go test -run '^$' -bench 'Lua/' -benchtime 2000x -count 5 ./luaeval/
func BenchmarkLua(b *testing.B) {
	for _, s := range luashapes.Shapes {
		want := shapeReply(s)
		b.Run(s.Name+"/evalsha", func(b *testing.B) {
			e := New(Config{})
			defer e.Close()
			sha, err := e.Load([]byte(s.Body))
			if err != nil {
				b.Fatal(err)
			}
			args := append([][]byte{[]byte(sha), []byte(strconv.Itoa(len(s.Keys)))}, bytesOf(append(s.Keys, s.Args...))...)
			runShape(b, want, func(w *resp.Writer, h Host) error { return e.EvalSHA(w, args, false, h) })
		})
		b.Run(s.Name+"/fcall", func(b *testing.B) {
			e := New(Config{})
			defer e.Close()
			if _, err := e.FunctionLoad([]byte(s.Library()), false); err != nil {
				b.Fatal(err)
			}
			args := append([][]byte{[]byte("FCALL"), []byte(s.FuncName()), []byte(strconv.Itoa(len(s.Keys)))}, bytesOf(append(s.Keys, s.Args...))...)
			runShape(b, want, func(w *resp.Writer, h Host) error { return e.FCall(w, args, false, h) })
		})
	}
}

func runShape(b *testing.B, want string, run func(*resp.Writer, Host) error) {
	h := newShapeHost()
	w := &resp.Writer{}
	if err := run(w, h); err != nil {
		b.Fatal(err)
	}
	if string(w.B) != want {
		b.Fatalf("reply %q, want %q", w.B, want)
	}
	b.ReportAllocs()
	var r0, r1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &r0)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w.B = w.B[:0]
		if err := run(w, h); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	syscall.Getrusage(syscall.RUSAGE_SELF, &r1)
	cpu := (r1.Utime.Nano() + r1.Stime.Nano()) - (r0.Utime.Nano() + r0.Stime.Nano())
	b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
	if string(w.B) != want {
		b.Fatalf("reply %q, want %q", w.B, want)
	}
}
