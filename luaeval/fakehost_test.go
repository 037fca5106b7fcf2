package luaeval

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/minilock/minilock/resp"
)

// fakeHost is a tiny in-memory keyspace answering the commands the tests
// use, with Redis 7.0.15's replies and script-call errors.
type fakeHost struct {
	m      map[string]string
	calls  int
	onCall func(args [][]byte) // test hook, run before the command
}

func newFakeHost() *fakeHost { return &fakeHost{m: map[string]string{}} }

var fakeArity = map[string]int{
	"get": 2, "set": -3, "del": -2, "echo": 2, "ping": -1, "incr": 2,
	"eval": -3, "evalsha": -3, "script": -2, "auth": -2, "hello": -1, "quit": -1,
	"hset": -4, "lpush": -3, "smembers": 2, "exists": -2, "pexpire": -3,
}

var fakeWrites = map[string]bool{"set": true, "del": true, "incr": true, "hset": true, "lpush": true, "pexpire": true}
var fakeNoScript = map[string]bool{"eval": true, "evalsha": true, "script": true, "auth": true, "hello": true, "quit": true}

func (h *fakeHost) Call(args [][]byte, readOnly bool, w *resp.Writer) bool {
	h.calls++
	if h.onCall != nil {
		h.onCall(args)
	}
	name := strings.ToLower(string(args[0]))
	ar, ok := fakeArity[name]
	if !ok {
		w.Error("ERR Unknown Redis command called from script")
		return false
	}
	if (ar > 0 && len(args) != ar) || (ar < 0 && len(args) < -ar) {
		w.Error("ERR Wrong number of args calling Redis command from script")
		return false
	}
	if fakeNoScript[name] {
		w.Error("ERR This Redis command is not allowed from script")
		return false
	}
	if readOnly && fakeWrites[name] {
		w.Error("ERR Write commands are not allowed from read-only scripts.")
		return false
	}
	switch name {
	case "get":
		v, ok := h.m[string(args[1])]
		if !ok {
			w.Null()
		} else if v == "\x00hash" {
			w.Err(resp.ErrWrongType)
		} else {
			w.BulkString(v)
		}
	case "set":
		h.m[string(args[1])] = string(args[2])
		w.OK()
	case "hset":
		h.m[string(args[1])] = "\x00hash"
		w.Int(1)
	case "del":
		n := 0
		for _, k := range args[1:] {
			if _, ok := h.m[string(k)]; ok {
				delete(h.m, string(k))
				n++
			}
		}
		w.Int(int64(n))
	case "exists":
		n := 0
		for _, k := range args[1:] {
			if _, ok := h.m[string(k)]; ok {
				n++
			}
		}
		w.Int(int64(n))
	case "echo":
		w.Bulk(args[1])
	case "ping":
		if len(args) > 1 {
			w.Bulk(args[1])
		} else {
			w.Status("PONG")
		}
	case "incr":
		n, _ := strconv.ParseInt(h.m[string(args[1])], 10, 64)
		n++
		h.m[string(args[1])] = strconv.FormatInt(n, 10)
		w.Int(n)
	case "pexpire":
		w.Int(1)
	case "lpush":
		w.Int(1)
	case "smembers":
		w.Set(2)
		w.BulkString("a")
		w.BulkString("b")
	}
	return fakeWrites[name]
}

// newTestEngine returns an engine closed at the end of the test.
func newTestEngine(t testing.TB, cfg Config) *Engine {
	t.Helper()
	e := New(cfg)
	t.Cleanup(e.Close)
	return e
}

// evalReply runs EVAL and returns the raw reply (the error reply when Eval
// returns one), in protocol proto.
func evalReply(e *Engine, h Host, proto int, script string, args ...string) string {
	return runReply(e, h, proto, false, false, script, args...)
}

func runReply(e *Engine, h Host, proto int, sha, ro bool, script string, args ...string) string {
	w := &resp.Writer{Proto: proto}
	all := [][]byte{[]byte(script)}
	for _, a := range args {
		all = append(all, []byte(a))
	}
	var err error
	if sha {
		err = e.EvalSHA(w, all, ro, h)
	} else {
		err = e.Eval(w, all, ro, h)
	}
	if err != nil {
		if len(w.B) != 0 {
			return "BUG: wrote and returned error"
		}
		w.Err(err)
	}
	return string(w.B)
}

// waitFor polls cond for up to d.
func waitFor(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if cond() {
			return true
		}
		time.Sleep(time.Millisecond)
	}
	return cond()
}

// Known implements CommandChecker.
func (h *fakeHost) Known(args [][]byte) bool {
	_, ok := fakeArity[strings.ToLower(string(args[0]))]
	return ok
}

// Permitted implements CommandChecker: the fake host's one user may run
// everything.
func (h *fakeHost) Permitted(args [][]byte) bool { return true }
