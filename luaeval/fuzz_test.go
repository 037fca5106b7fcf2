package luaeval

import (
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/minilock/minilock/resp"
)

var (
	fuzzOnce   sync.Once
	fuzzEngine *Engine
)

// FuzzEval runs arbitrary script sources with arbitrary KEYS/ARGV: no panic,
// no run past a short deadline (a timer kills it), and the reply is one
// well-formed RESP value. One engine serves every input, so an input that
// managed to tamper with the sandbox would break the ones after it.
func FuzzEval(f *testing.F) {
	for _, s := range []string{
		"return 1", "return redis.call('get', KEYS[1])", "return {1,2,{3}}", "error('x')",
		"while true do end", "local t = {} t[1] = t return t", "return cjson.decode(ARGV[1])",
		"return string.rep(ARGV[1], 100)", "return redis.pcall('nosuch')", "x = 1",
		// Loops the VM runs as numeric kernels (seam/kernel.go).
		"local a, b = 0, 1 for i = 1, 1e9 do if i % 3 == 0 then a = a + i * 2 else a = a - 1 end b = (b * 7 + i) % 1009 end return a + b",
		"local x = tonumber(ARGV[1]) or 0/0 local s = -0 for i = 10, 1, -0.5 do if not (x < i) then break end s = s + x ^ i / -x end return tostring(s)",
		"local s, t = 0, nil for i = 1, 3 do s = s + t end return s",
	} {
		f.Add(s, uint8(1), "k\x00v")
	}
	f.Fuzz(func(t *testing.T, script string, numkeys uint8, rawArgs string) {
		fuzzOnce.Do(func() {
			fuzzEngine = New(Config{BusyThreshold: 50 * time.Millisecond, MemoryLimit: 64 << 20, MaxStringBytes: 8 << 20})
		})
		e := fuzzEngine
		var args []string
		if rawArgs != "" {
			args = strings.Split(rawArgs, "\x00")
		}
		n := int(numkeys) % (len(args) + 1)
		all := append([]string{strconv.Itoa(n)}, args...)
		stop := time.AfterFunc(200*time.Millisecond, func() {
			if e.Kill() != nil {
				e.KillForShutdown()
			}
		})
		got := evalReply(e, newFakeHost(), 2, script, all...)
		stop.Stop()
		rest, err := resp.Skip([]byte(got))
		if err != nil || len(rest) != 0 {
			t.Fatalf("EVAL %q: malformed reply %q", script, trunc(got))
		}
		if e.Running() {
			t.Fatal("still running after the reply")
		}
	})
}
