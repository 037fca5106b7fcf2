package luaeval

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/minilock/minilock/resp"
)

// runAsync runs EVAL on its own goroutine (standing in for the keyspace
// owner) and returns a channel with the reply.
func runAsync(e *Engine, h Host, script string, args ...string) <-chan string {
	ch := make(chan string, 1)
	go func() { ch <- evalReply(e, h, 2, script, args...) }()
	return ch
}

func waitReply(t *testing.T, ch <-chan string, d time.Duration) string {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(d):
		t.Fatalf("script still running after %v", d)
		return ""
	}
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// Redis 7.0.15's SCRIPT KILL replies (script.c:scriptKill), observed.
const (
	notBusyText    = "NOTBUSY No scripts in execution right now."
	unkillableText = "UNKILLABLE Sorry the script already executed write commands against the dataset. You can either wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command."
)

func TestKillNotBusy(t *testing.T) {
	e := newTestEngine(t, Config{})
	if err := e.Kill(); err == nil || resp.Text(err) != notBusyText {
		t.Fatalf("Kill when idle = %v", err)
	}
	if isClosed(e.BusyChan()) {
		t.Fatal("busy channel closed while idle")
	}
}

func TestBusyAndKill(t *testing.T) {
	e := newTestEngine(t, Config{BusyThreshold: 30 * time.Millisecond})
	busy := e.BusyChan()
	script := "local i = 0 while true do i = i + 1 end"
	ch := runAsync(e, newFakeHost(), script, "0")
	select {
	case <-busy:
	case <-time.After(5 * time.Second):
		t.Fatal("busy channel not closed")
	}
	if !isClosed(e.BusyChan()) {
		t.Fatal("BusyChan while busy should be closed")
	}
	if err := e.Kill(); err != nil {
		t.Fatalf("Kill = %v", err)
	}
	got := waitReply(t, ch, 5*time.Second)
	// Redis 7.0.15: "-ERR Script killed by user with SCRIPT KILL... script: <sha>, on @user_script:1."
	sha := sha1Hex([]byte(script))
	want := "-ERR Script killed by user with SCRIPT KILL... script: " + string(sha[:]) + ", on @user_script:1.\r\n"
	if got != want {
		t.Fatalf("killed script replied %q, want %q", got, want)
	}
	if isClosed(e.BusyChan()) {
		t.Fatal("BusyChan after the busy script should be open")
	}
	if r := evalReply(e, newFakeHost(), 2, "return 1", "0"); r != ":1\r\n" {
		t.Fatalf("next script after kill: %q", r)
	}
	if e.Running() {
		t.Fatal("Running after the end")
	}
}

func TestUnkillableThenShutdown(t *testing.T) {
	e := newTestEngine(t, Config{BusyThreshold: 20 * time.Millisecond})
	h := newFakeHost()
	ch := runAsync(e, h, "redis.call('set','k','v') while true do end", "0")
	if !waitFor(5*time.Second, func() bool { return isClosed(e.BusyChan()) }) {
		t.Fatal("not busy")
	}
	if err := e.Kill(); err == nil || resp.Text(err) != unkillableText {
		t.Fatalf("Kill after a write = %v", err)
	}
	e.KillForShutdown()
	got := waitReply(t, ch, 5*time.Second)
	if !strings.HasPrefix(got, "-ERR Script killed by user with SCRIPT KILL...") {
		t.Fatalf("reply %q", got)
	}
}

// Scripts that try to outlive SCRIPT KILL: each must stop.
func TestKillCannotBeSwallowed(t *testing.T) {
	for _, script := range []string{
		"while true do pcall(function() while true do end end) end",
		"while true do pcall(error, 'x') end",
		"local co = coroutine.wrap(function() while true do end end) co()",
		"while true do coroutine.resume(coroutine.create(function() while true do end end)) end",
		"xpcall(function() error('x') end, function() while true do end end) while true do end",
		"local t = setmetatable({}, {__index = function(t, k) while true do end end}) return t.x",
		"while true do redis.pcall('ping') end",
		"table.sort({3,2,1,5,4,7,6,9,8}, function(a, b) while true do end end)",
		"local function f() return pcall(f) end while true do f() end",
		"for i = 1, 1e9 do local t = {} table.insert(t, 1) end",
	} {
		t.Run(script, func(t *testing.T) {
			e := newTestEngine(t, Config{BusyThreshold: 20 * time.Millisecond})
			ch := runAsync(e, newFakeHost(), script, "0")
			if !waitFor(5*time.Second, func() bool { return isClosed(e.BusyChan()) }) {
				t.Fatal("not busy")
			}
			if err := e.Kill(); err != nil {
				t.Fatalf("Kill = %v", err)
			}
			got := waitReply(t, ch, 10*time.Second)
			if !strings.HasPrefix(got, "-ERR Script killed by user with SCRIPT KILL...") {
				t.Fatalf("reply %q", got)
			}
			// The engine is healthy afterwards, coroutines included.
			probe := "return {coroutine.wrap(function() return 7 end)(), pcall(error, 'e')}"
			if r := evalReply(e, newFakeHost(), 2, probe, "0"); r != "*3\r\n:7\r\n$-1\r\n$1\r\ne\r\n" {
				t.Fatalf("after the kill: %q", r)
			}
		})
	}
}

// A script that grows the heap without bound is stopped by the watchdog.
func TestMemoryLimit(t *testing.T) {
	for _, script := range []string{
		"local s = 'x' while true do s = s .. s end",
		"local t = {} local i = 0 while true do i = i + 1 t[i] = tostring(i) .. 'padding-padding' end",
		"local t = {} while true do t[#t+1] = string.rep('y', 1000000) end",
	} {
		t.Run(script, func(t *testing.T) {
			e := newTestEngine(t, Config{MemoryLimit: 64 << 20})
			ch := runAsync(e, newFakeHost(), script, "0")
			got := waitReply(t, ch, 30*time.Second)
			if !strings.HasPrefix(got, "-ERR not enough memory script: ") {
				t.Fatalf("reply %q", trunc(got))
			}
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > 512<<20 {
				t.Fatalf("heap still %d MiB after the script", ms.HeapAlloc>>20)
			}
		})
	}
}

// KEYS and ARGV are reused between runs; nothing a script does to them may
// show in the next run.
func TestKeysArgvFreshEachRun(t *testing.T) {
	e := newTestEngine(t, Config{})
	h := newFakeHost()
	evalReply(e, h, 2, "KEYS.foo = 1 KEYS[5] = 'x' ARGV[1] = 'changed' setmetatable(ARGV, {__index = function() return 'leak' end})", "1", "k", "a")
	got := evalReply(e, h, 2, "return {#KEYS, tostring(KEYS.foo), KEYS[1], ARGV[1], tostring(ARGV[9])}", "1", "k", "a")
	want := "*5\r\n:1\r\n$3\r\nnil\r\n$1\r\nk\r\n$1\r\na\r\n$3\r\nnil\r\n"
	if got != want {
		t.Fatalf("got %q want %q", got, want)
	}
	evalReply(e, h, 2, "KEYS[1] = nil", "2", "a", "b")
	if got := evalReply(e, h, 2, "return KEYS", "2", "a", "b"); got != "*2\r\n$1\r\na\r\n$1\r\nb\r\n" {
		t.Fatalf("got %q", got)
	}
	if got := evalReply(e, h, 2, "return {#KEYS, #ARGV}", "0"); got != "*2\r\n:0\r\n:0\r\n" {
		t.Fatalf("got %q", got)
	}
}
