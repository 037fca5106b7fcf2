package server

import (
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/redcon"

	"github.com/minilock/minilock/expiry"
	"github.com/minilock/minilock/internal/redistest"
	"github.com/minilock/minilock/server/internal/edge"
)

// Scripts through the whole server: BUSY, SCRIPT KILL, UNKILLABLE and
// SHUTDOWN NOSAVE against a looping script (compared with redis-server
// 7.0.15 started with the same busy-reply-threshold), the frozen clock, and
// the speed of a cached compare-and-delete.
//
//	go test -run 'TestScript|TestBusy' -v ./server
//	go test -run '^$' -bench EvalSHACompareAndDelete -benchmem ./server

// scrBusyThreshold is busy-reply-threshold in these tests: long enough that
// a script's caller is surely running it before another client arrives,
// short enough to keep the tests fast.
const scrBusyThreshold = 200 * time.Millisecond

// scrLoop never ends on its own; scrLoopWrote writes first.
const (
	scrLoop      = "local i = 0 while true do i = i + 1 end"
	scrLoopWrote = "redis.call('set', 'k', 'v') while true do end"
)

func scrSHA(body string) string {
	h := sha1.Sum([]byte(body))
	return hex.EncodeToString(h[:])
}

// scrDo sends args and returns the reply, or the read error's description.
func scrDo(c *redistest.Conn, args ...string) string {
	b, err := c.Do(args...)
	if err != nil {
		return string(b) + "<" + scrErr(err) + ">"
	}
	return string(b)
}

func scrRead(c *redistest.Conn) string {
	b, err := c.ReadReply()
	if err != nil {
		return string(b) + "<" + scrErr(err) + ">"
	}
	return string(b)
}

func scrErr(err error) string {
	if errors.Is(err, redistest.ErrClosed) {
		return "closed"
	}
	return "read error"
}

// scrStartScript sends EVAL body on a new connection without waiting for
// the reply, then sends PING on b until the answer is BUSY: a PING that
// reaches the server before the script starts gets PONG at once, one sent
// while it runs gets BUSY once the threshold has passed. It returns the
// script's connection and the PING's final reply.
func scrStartScript(t *testing.T, addr, body string, b *redistest.Conn) (*redistest.Conn, string) {
	t.Helper()
	a := redistest.Dial(t, addr)
	a.Timeout = 10 * time.Second
	if err := a.Send(redistest.Encode("EVAL", body, "0")); err != nil {
		t.Fatal(err)
	}
	for range 1000 {
		got := scrDo(b, "PING")
		if got != "+PONG\r\n" {
			return a, got
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatal("the script did not start")
	return nil, ""
}

const (
	scrBusy       = "-BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.\r\n"
	scrNotBusy    = "-NOTBUSY No scripts in execution right now.\r\n"
	scrUnkillable = "-UNKILLABLE Sorry the script already executed write commands against the dataset. You can either wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command.\r\n"
)

func scrKilled(body string) string {
	return "-ERR Script killed by user with SCRIPT KILL... script: " + scrSHA(body) + ", on @user_script:1.\r\n"
}

// scrStep is one exchange of a busy scenario and its reply.
type scrStep struct {
	what, reply string
}

// busyKillScenario: a looping script that has not written is answered BUSY
// to others, SCRIPT KILL stops it and its caller gets the killed error.
// It returns the transcript, to compare with redis-server's.
func busyKillScenario(t *testing.T, addr string) []scrStep {
	b := redistest.Dial(t, addr)
	a, first := scrStartScript(t, addr, scrLoop, b)
	out := []scrStep{{"B PING until not PONG", first}}
	do := func(args ...string) {
		out = append(out, scrStep{fmt.Sprintf("B %q", args), scrDo(b, args...)})
	}
	do("GET", "k")
	do("SET", "k", "v")
	do("EVAL", "return 1", "0")
	do("EVALSHA", scrSHA("return 1"), "0")
	do("SCRIPT", "LOAD", "return 1")
	do("SCRIPT", "FLUSH")
	do("ECHO", "x")
	do("SELECT", "1")
	do("NOSUCH", "x")         // unknown command: checked before BUSY
	do("GET")                 // arity: checked before BUSY
	do("SCRIPT", "KILL", "x") // arity of an allowed command
	do("SCRIPT", "NOSUCH")
	do("SHUTDOWN")               // only SHUTDOWN NOSAVE may stop a busy server
	do("SHUTDOWN", "SAVE")       // likewise
	do("SHUTDOWN", "FOO")        // SHUTDOWN runs, and refuses its argument
	do("AUTH", "x")              // AUTH runs (no password is set)
	q := redistest.Dial(t, addr) // QUIT runs: +OK, then the connection closes
	out = append(out, scrStep{"C QUIT", scrDo(q, "QUIT") + scrRead(q)})
	if err := b.Send([]byte("PING\r\nGET k\r\n")); err != nil {
		t.Fatal(err)
	}
	out = append(out, scrStep{"B pipelined PING, GET k", scrRead(b) + scrRead(b)})
	do("SCRIPT", "KILL")
	out = append(out, scrStep{"A's EVAL", scrRead(a)})
	do("PING")
	do("SCRIPT", "KILL")
	do("GET", "k")
	out = append(out, scrStep{"A PING", scrDo(a, "PING")})
	return out
}

// unkillableScenario: a looping script that has written cannot be killed;
// SHUTDOWN NOSAVE stops the server, and both connections see it close.
func unkillableScenario(t *testing.T, addr string) []scrStep {
	b := redistest.Dial(t, addr)
	a, first := scrStartScript(t, addr, scrLoopWrote, b)
	out := []scrStep{{"B PING until not PONG", first}}
	do := func(args ...string) {
		out = append(out, scrStep{fmt.Sprintf("B %q", args), scrDo(b, args...)})
	}
	do("SCRIPT", "KILL")
	do("SCRIPT", "KILL")
	do("SHUTDOWN")
	do("SHUTDOWN", "NOSAVE")
	out = append(out, scrStep{"A's EVAL", scrRead(a)})
	return out
}

// scrCompare fails the test where the transcripts differ.
func scrCompare(t *testing.T, redis, mini []scrStep) {
	t.Helper()
	if len(redis) != len(mini) {
		t.Fatalf("transcripts have %d and %d steps", len(redis), len(mini))
	}
	for i := range redis {
		if redis[i] != mini[i] {
			t.Errorf("step %d %s:\n   redis:    %q\n   minilock: %q", i+1, redis[i].what, redis[i].reply, mini[i].reply)
		}
	}
}

// scrCheck fails the test unless the transcript holds the replies want
// (one per step, in order).
func scrCheck(t *testing.T, got []scrStep, want map[int]string) {
	t.Helper()
	for i, w := range want {
		if got[i].reply != w {
			t.Errorf("step %d %s = %q, want %q", i+1, got[i].what, got[i].reply, w)
		}
	}
}

func TestBusyScriptKill(t *testing.T) {
	s := RunT(t, Config{BusyThreshold: scrBusyThreshold})
	got := busyKillScenario(t, s.Addr())
	scrCheck(t, got, map[int]string{
		0:  scrBusy,
		1:  scrBusy,
		3:  scrBusy,
		9:  "-ERR unknown command 'NOSUCH', with args beginning with: 'x' \r\n",
		10: "-ERR wrong number of arguments for 'get' command\r\n",
		13: scrBusy,
		14: scrBusy,
		15: "-ERR syntax error\r\n",
		17: "+OK\r\n<closed>",
		18: scrBusy + scrBusy,
		19: "+OK\r\n",
		20: scrKilled(scrLoop),
		21: "+PONG\r\n",
		22: scrNotBusy,
		23: "$-1\r\n",
		24: "+PONG\r\n",
	})
	if s.lua.Running() {
		t.Error("a script is still running")
	}
}

func TestBusyUnkillableShutdownNosave(t *testing.T) {
	s := RunT(t, Config{BusyThreshold: scrBusyThreshold})
	got := unkillableScenario(t, s.Addr())
	scrCheck(t, got, map[int]string{
		0: scrBusy,
		1: scrUnkillable,
		2: scrUnkillable,
		3: scrBusy,
		4: "<closed>",
		5: "<closed>",
	})
	select {
	case <-s.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("SHUTDOWN NOSAVE did not stop the server")
	}
}

// TestBusyComparedWithRedis runs both scenarios on redis-server 7.0.15 with
// --busy-reply-threshold 200 and on minilock with the same threshold.
func TestBusyComparedWithRedis(t *testing.T) {
	redistest.Require(t)
	threshold := strconv.Itoa(int(scrBusyThreshold.Milliseconds()))
	t.Run("kill", func(t *testing.T) {
		t.Parallel()
		r := redistest.Start(t, "--busy-reply-threshold", threshold)
		m := RunT(t, Config{BusyThreshold: scrBusyThreshold})
		scrCompare(t, busyKillScenario(t, r.Addr), busyKillScenario(t, m.Addr()))
	})
	t.Run("unkillable", func(t *testing.T) {
		t.Parallel()
		r := redistest.Start(t, "--busy-reply-threshold", threshold)
		m := RunT(t, Config{BusyThreshold: scrBusyThreshold})
		scrCompare(t, unkillableScenario(t, r.Addr), unkillableScenario(t, m.Addr()))
	})
	t.Run("lua-time-limit alias", func(t *testing.T) {
		t.Parallel()
		r := redistest.Start(t, "--lua-time-limit", threshold)
		m := RunT(t, Config{BusyThreshold: scrBusyThreshold})
		scrCompare(t, busyKillScenario(t, r.Addr), busyKillScenario(t, m.Addr()))
	})
}

// TestBusyThresholdFromConfig: BUSY comes once the script has run for
// Config.BusyThreshold, not before and not at the 5 s default.
func TestBusyThresholdFromConfig(t *testing.T) {
	for _, threshold := range []time.Duration{150 * time.Millisecond, 400 * time.Millisecond} {
		t.Run(threshold.String(), func(t *testing.T) {
			s := RunT(t, Config{BusyThreshold: threshold})
			a := redistest.Dial(t, s.Addr())
			b := redistest.Dial(t, s.Addr())
			start := time.Now()
			if err := a.Send(redistest.Encode("EVAL", scrLoop, "0")); err != nil {
				t.Fatal(err)
			}
			scrWaitRunning(t, s)
			if got := scrDo(b, "PING"); got != scrBusy {
				t.Fatalf("PING = %q, want BUSY", got)
			}
			elapsed := time.Since(start)
			if elapsed < threshold || elapsed > threshold+3*time.Second {
				t.Errorf("BUSY after %v, want %v (or a little more)", elapsed, threshold)
			}
			if got := scrDo(b, "SCRIPT", "KILL"); got != "+OK\r\n" {
				t.Fatalf("SCRIPT KILL = %q", got)
			}
			if got := scrRead(a); got != scrKilled(scrLoop) {
				t.Fatalf("EVAL = %q", got)
			}
		})
	}
}

// TestBusyShortScriptMakesOthersWait: a script that ends before the
// threshold makes other clients wait, then they are answered normally.
func TestBusyShortScriptMakesOthersWait(t *testing.T) {
	s := RunT(t) // the 5 s default threshold
	a := redistest.Dial(t, s.Addr())
	b := redistest.Dial(t, s.Addr())
	const body = "for i = 1, 200000 do end redis.call('set', 'k', 'v') return 'done'"
	if err := a.Send(redistest.Encode("EVAL", body, "0")); err != nil {
		t.Fatal(err)
	}
	if got := scrDo(b, "GET", "k"); got != "$1\r\nv\r\n" && got != "$-1\r\n" {
		t.Errorf("GET during the script = %q", got)
	}
	if got := scrRead(a); got != "$4\r\ndone\r\n" {
		t.Errorf("EVAL = %q", got)
	}
	if got := scrDo(b, "SCRIPT", "KILL"); got != scrNotBusy {
		t.Errorf("SCRIPT KILL when idle = %q", got)
	}
}

// TestBusyScriptKillInResp3: the killed script's caller speaks RESP3; the
// error reads the same.
func TestBusyScriptKillInResp3(t *testing.T) {
	s := RunT(t, Config{BusyThreshold: scrBusyThreshold})
	a := redistest.Dial(t, s.Addr())
	if got := scrDo(a, "HELLO", "3"); !strings.HasPrefix(got, "%7\r\n") {
		t.Fatalf("HELLO 3 = %q", got)
	}
	if err := a.Send(redistest.Encode("EVAL", scrLoop, "0")); err != nil {
		t.Fatal(err)
	}
	scrWaitRunning(t, s)
	b := redistest.Dial(t, s.Addr())
	if got := scrDo(b, "PING"); got != scrBusy {
		t.Fatalf("PING = %q", got)
	}
	if got := scrDo(b, "SCRIPT", "KILL"); got != "+OK\r\n" {
		t.Fatalf("SCRIPT KILL = %q", got)
	}
	if got := scrRead(a); got != scrKilled(scrLoop) {
		t.Fatalf("EVAL = %q", got)
	}
}

// TestScriptFrozenClock: every command of a script sees the time the script
// started at, however long it runs: SET PX then PTTL reads back exactly the
// PX value, and a key that expires while the script runs stays visible to
// it. (redis-server 7.0.15 freezes the clock only for expiry; its PTTL and
// TIME move on inside a long script.)
func TestScriptFrozenClock(t *testing.T) {
	s := RunT(t) // a clock that moves in real time
	c := redistest.Dial(t, s.Addr())
	// The script runs for at least 20 ms of real time (TIME is not frozen,
	// in Redis either).
	const body = `local function now() local t = redis.call('time') return t[1] * 1000000 + t[2] end
redis.call('set', KEYS[1], 'v', 'PX', 5000)
local start = now()
while now() - start < 20000 do end
return {redis.call('pttl', KEYS[1]), redis.call('ttl', KEYS[1])}`
	if got := scrDo(c, "EVAL", body, "1", "lock"); got != "*2\r\n:5000\r\n:5\r\n" {
		t.Errorf("EVAL = %q, want PTTL exactly 5000", got)
	}
	// A key whose deadline passes while a script runs stays visible to it.
	const expiring = `local function now() local t = redis.call('time') return t[1] * 1000000 + t[2] end
redis.call('set', KEYS[1], 'v', 'PX', 10)
local start = now()
while now() - start < 30000 do end
return {redis.call('get', KEYS[1]), redis.call('pttl', KEYS[1])}`
	if got := scrDo(c, "EVAL", expiring, "1", "brief"); got != "*2\r\n$1\r\nv\r\n:10\r\n" {
		t.Errorf("EVAL = %q, want the key and its PTTL as at the start", got)
	}
	if got := scrDo(c, "EXISTS", "brief"); got != ":0\r\n" {
		t.Errorf("after the script, EXISTS = %q", got)
	}
	// On a manual clock, a key is gone once the clock passes its deadline.
	clock := expiry.NewManual(time.Unix(1700000000, 0))
	s = RunT(t, Config{Clock: clock})
	c = redistest.Dial(t, s.Addr())
	s.SetTTL("short", "v", 10*time.Millisecond)
	if got := scrDo(c, "EVAL", "return {redis.call('exists', 'short'), redis.call('pttl', 'short')}", "0"); got != "*2\r\n:1\r\n:10\r\n" {
		t.Errorf("before the deadline: %q", got)
	}
	clock.FastForward(10 * time.Millisecond) // at the deadline: still there, as in Redis
	if got := scrDo(c, "EVAL", "return {redis.call('exists', 'short'), redis.call('pttl', 'short')}", "0"); got != "*2\r\n:1\r\n:0\r\n" {
		t.Errorf("at the deadline: %q", got)
	}
	clock.FastForward(time.Millisecond)
	if got := scrDo(c, "EVAL", "return {redis.call('exists', 'short'), redis.call('pttl', 'short')}", "0"); got != "*2\r\n:0\r\n:-2\r\n" {
		t.Errorf("past the deadline: %q", got)
	}
}

// TestScriptSelectStaysInScript: a SELECT inside a script changes neither the
// caller's database nor the next script's.
func TestScriptSelectStaysInScript(t *testing.T) {
	s := RunT(t)
	c := redistest.Dial(t, s.Addr())
	if got := scrDo(c, "EVAL", "redis.call('select', 7) return redis.call('set', 'k', 'seven')", "0"); got != "+OK\r\n" {
		t.Fatalf("EVAL = %q", got)
	}
	if got := scrDo(c, "EVAL", "return redis.call('get', 'k')", "0"); got != "$-1\r\n" {
		t.Errorf("next script sees db %q", got)
	}
	if v, ok := s.DB(7).Get("k"); !ok || v != "seven" {
		t.Errorf("db 7 k = %q, %v", v, ok)
	}
	if _, ok := s.Get("k"); ok {
		t.Error("the script wrote to db 0")
	}
}

// BenchmarkEvalSHACompareAndDelete is the seed articles' lock release,
// cached, through the server's dispatch and the keyspace, without the
// network. luaeval runs this body without the Lua VM (luaeval/native.go);
// the lua variants run the same script made unrecognisable (a trailing
// comment), through the VM. Each op releases a lock that holds the caller's token and a TTL,
// so the script runs GET and DEL; the locks (scrBenchLocks of them) are
// taken again, with the timer stopped, after each round. The issue's
// budget is 1.5 us/op.
//
// Each runs three ways:
//
//   - owner: each op is a one-command batch run by client.Run on the keyspace
//     owner goroutine, as the owner runs a connection's batch (cpu-ns/op is
//     the owner thread's CPU time, which a loaded machine does not inflate);
//   - pipelined16: batches of 16 handed to the owner by serveBatch, as a
//     connection that pipelines does (one goroutine hand-off per 16 ops);
//   - handoff: one-command batches through serveBatch, a goroutine
//     hand-off per op, as a client that waits for each reply.
func BenchmarkEvalSHACompareAndDelete(b *testing.B) {
	const release = `if redis.call("get",KEYS[1]) == ARGV[1] then return redis.call("del",KEYS[1]) else return 0 end`
	b.Run("native", func(b *testing.B) { benchCompareAndDelete(b, release) })
	b.Run("lua", func(b *testing.B) { benchCompareAndDelete(b, release+" -- in Lua") })
}

func benchCompareAndDelete(b *testing.B, release string) {
	const scrBenchLocks = 4096
	s, err := Start(Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	c := &client{srv: s, id: s.nextID.Add(1) - 1, authed: true, user: s.acl.def, born: time.Now(), Conn: &edge.Conn{Done: make(chan struct{}, 1)}}
	c.W.Proto = 2
	var sha string
	s.owner.Do(func() {
		s.execute(c, [][]byte{[]byte("SCRIPT"), []byte("LOAD"), []byte(release)})
		sha = string(c.W.B)
		c.W.B = c.W.B[:0]
	})
	if !strings.HasPrefix(sha, "$40\r\n") {
		b.Fatalf("SCRIPT LOAD = %q", sha)
	}
	sha = sha[5:45]
	keys := make([]string, scrBenchLocks)
	ops := make([]redcon.Command, scrBenchLocks)
	for i := range ops {
		keys[i] = "lock:" + strconv.Itoa(i)
		ops[i] = redcon.Command{Args: [][]byte{[]byte("EVALSHA"), []byte(sha), []byte("1"), []byte(keys[i]), []byte("token-123")}}
	}
	// relock takes every lock again, as a client's SET lock token PX 30000 NX.
	relock := func(b *testing.B) {
		b.StopTimer()
		s.owner.Do(func() {
			for _, k := range keys {
				s.ks.SetValue(0, k, "token-123", 30*time.Second)
			}
		})
		b.StartTimer()
	}
	check := func(b *testing.B, reply []byte, n int) {
		if string(reply) != strings.Repeat(":1\r\n", n) {
			b.Fatalf("replies %q, want %d times :1", reply, n)
		}
	}

	b.Run("owner", func(b *testing.B) {
		relock(b)
		b.ReportAllocs()
		b.ResetTimer()
		var bad []byte
		var cpu time.Duration
		for i := 0; i < b.N && bad == nil; i += scrBenchLocks {
			if i > 0 {
				relock(b)
			}
			n := min(scrBenchLocks, b.N-i)
			s.owner.Do(func() {
				// Keep the owner on one thread while measuring it.
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				t0 := threadCPU()
				defer func() { cpu += threadCPU() - t0 }()
				for j := 0; j < n; j++ {
					c.Batch = append(c.Batch[:0], ops[j])
					c.Next = 0
					c.W.B = c.W.B[:0]
					c.Run()
					<-c.Done
					if string(c.W.B) != ":1\r\n" {
						bad = append([]byte{}, c.W.B...)
						return
					}
				}
			})
		}
		if bad != nil {
			b.Fatalf("reply %q", bad)
		}
		if cpu > 0 {
			// The owner's own CPU time per op: unlike ns/op, not
			// inflated when other processes share the machine.
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
		}
	})
	b.Run("pipelined16", func(b *testing.B) {
		const depth = 16
		relock(b)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i += depth {
			j := i % scrBenchLocks
			if j == 0 && i > 0 {
				relock(b)
			}
			n := min(depth, b.N-i)
			c.Batch = append(c.Batch[:0], ops[j:j+n]...)
			c.Next = 0
			c.W.B = c.W.B[:0]
			s.serveBatch(c)
			check(b, c.W.B, n)
		}
	})
	b.Run("handoff", func(b *testing.B) {
		relock(b)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			j := i % scrBenchLocks
			if j == 0 && i > 0 {
				relock(b)
			}
			c.Batch = append(c.Batch[:0], ops[j])
			c.Next = 0
			c.W.B = c.W.B[:0]
			s.serveBatch(c)
			check(b, c.W.B, 1)
		}
	})
}

// scrWaitRunning waits until a script runs on s, for at most 10 s.
func scrWaitRunning(t *testing.T, s *Server) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !s.lua.Running(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the script did not start in 10 s")
		}
	}
}

// The data a script writes is not charged to its Lua memory: a script that
// SETs 300 values of 1 MiB writes all 300, as Redis does (it used to stop
// after about 210 with "not enough memory", the first 210 written).
func TestScriptWritesAreNotLuaMemory(t *testing.T) {
	s := RunT(t)
	c := redistest.Dial(t, s.Addr())
	c.Timeout = time.Minute // 300 MiB of writes under -race on a loaded machine
	const script = "local v = string.rep('x', 1048576) for i = 1, 300 do redis.call('set', 'k' .. i, v) end return redis.call('dbsize')"
	if got := scrDo(c, "EVAL", script, "0"); got != ":300\r\n" {
		t.Fatalf("EVAL: %q", got)
	}
	if got := scrDo(c, "STRLEN", "k300"); got != ":1048576\r\n" {
		t.Fatalf("STRLEN k300: %q", got)
	}
}

// Compiling a new script is part of running it: a compile that takes long
// gets BUSY for the others past busy-reply-threshold, and SCRIPT KILL stops
// it at once (the compiler polls the kill flag), with the killed error.
func TestBusyDuringCompile(t *testing.T) {
	s := RunT(t, Config{BusyThreshold: 20 * time.Millisecond})
	// A one-line sum of 8 MB takes luac about a second (Redis: half that).
	body := "local a = 1 return a" + strings.Repeat("+a", 4<<20)
	b := redistest.Dial(t, s.Addr())
	a, got := scrStartScript(t, s.Addr(), body, b)
	if got != scrBusy {
		t.Fatalf("PING while compiling: %q", got)
	}
	killed := time.Now()
	if got := scrDo(b, "SCRIPT", "KILL"); got != "+OK\r\n" {
		t.Fatalf("SCRIPT KILL while compiling: %q", got)
	}
	if got := scrRead(a); got != "-ERR Script killed by user with SCRIPT KILL...\r\n" {
		t.Fatalf("EVAL stopped while compiling: %q", got)
	}
	if d := time.Since(killed); d > time.Second {
		t.Errorf("the compile ended %v after SCRIPT KILL", d)
	} else {
		t.Logf("the compile ended %v after SCRIPT KILL", d)
	}
	if got := scrDo(b, "PING"); got != "+PONG\r\n" {
		t.Fatalf("PING after: %q", got)
	}
	// Nothing of the stopped compile was cached.
	if got := scrDo(b, "SCRIPT", "EXISTS", scrSHA(body)); got != "*1\r\n:0\r\n" {
		t.Fatalf("SCRIPT EXISTS: %q", got)
	}
}
