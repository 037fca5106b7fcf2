package server

import (
	"fmt"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/minilock/minilock/internal/redistest"
)

// Functions through the whole server while one is busy: BUSY's text names
// FUNCTION KILL, SCRIPT KILL refuses a function and FUNCTION KILL an EVAL
// script, FUNCTION STATS describes the running function, FUNCTION FLUSH
// waits; compared with redis-server 7.0.15 started with the same
// busy-reply-threshold.
//
//	go test -run 'TestFunction' -v ./server

const fnLoopLib = "#!lua name=loop\n" +
	"redis.register_function('spin', function(keys, args) local i = 0 while true do i = i + 1 end end)\n" +
	"redis.register_function('spinw', function(keys, args) redis.call('set', keys[1], 'v') while true do end end)"

// fnStart loads the looping library, sends FCALL fn on a new connection
// and waits (PING on b) until the server answers BUSY.
func fnStart(t *testing.T, addr string, b *redistest.Conn, fn string, keys ...string) (*redistest.Conn, string) {
	t.Helper()
	if got := scrDo(b, "FUNCTION", "LOAD", "REPLACE", fnLoopLib); got != "$4\r\nloop\r\n" {
		t.Fatalf("FUNCTION LOAD = %q", got)
	}
	a := redistest.Dial(t, addr)
	a.Timeout = 10 * time.Second
	args := append([]string{"FCALL", fn, strconv.Itoa(len(keys))}, keys...)
	if err := a.Send(redistest.Encode(args...)); err != nil {
		t.Fatal(err)
	}
	for range 1000 {
		got := scrDo(b, "PING")
		if got != "+PONG\r\n" {
			return a, got
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatal("the function did not start")
	return nil, ""
}

var reDurationMS = regexp.MustCompile(`duration_ms\r\n:\d+\r\n`)

// functionBusyScenario: a looping function, its BUSY replies, the kill
// commands of both kinds, FUNCTION STATS, and FUNCTION KILL's stop.
func functionBusyScenario(t *testing.T, addr string) []scrStep {
	b := redistest.Dial(t, addr)
	a, first := fnStart(t, addr, b, "spin", "k1")
	out := []scrStep{{"B PING until not PONG", first}}
	do := func(args ...string) {
		r := scrDo(b, args...)
		out = append(out, scrStep{fmt.Sprintf("B %q", args), reDurationMS.ReplaceAllString(r, "duration_ms\r\n:<ms>\r\n")})
	}
	do("GET", "k")
	do("FCALL", "spin", "0")
	do("FUNCTION", "FLUSH")
	do("FUNCTION", "LIST")
	do("SCRIPT", "KILL")
	do("FUNCTION", "STATS")
	do("FUNCTION", "KILL", "x")
	do("SHUTDOWN")
	do("FUNCTION", "KILL")
	out = append(out, scrStep{"A's FCALL", scrRead(a)})
	do("FUNCTION", "KILL")
	do("FUNCTION", "STATS")
	do("PING")
	return out
}

// functionUnkillableScenario: a function that wrote cannot be killed.
func functionUnkillableScenario(t *testing.T, addr string) []scrStep {
	b := redistest.Dial(t, addr)
	a, first := fnStart(t, addr, b, "spinw", "k")
	out := []scrStep{{"B PING until not PONG", first}}
	do := func(args ...string) {
		out = append(out, scrStep{fmt.Sprintf("B %q", args), scrDo(b, args...)})
	}
	do("FUNCTION", "KILL")
	do("SCRIPT", "KILL")
	do("SHUTDOWN", "NOSAVE")
	out = append(out, scrStep{"A's FCALL", scrRead(a)})
	return out
}

// evalBusyFunctionKillScenario: FUNCTION KILL and FUNCTION STATS while an
// EVAL script is busy.
func evalBusyFunctionKillScenario(t *testing.T, addr string) []scrStep {
	b := redistest.Dial(t, addr)
	a, first := scrStartScript(t, addr, scrLoop, b)
	out := []scrStep{{"B PING until not PONG", first}}
	do := func(args ...string) {
		out = append(out, scrStep{fmt.Sprintf("B %q", args), scrDo(b, args...)})
	}
	do("FUNCTION", "KILL")
	do("FUNCTION", "STATS")
	do("FUNCTION", "DUMP")
	do("SCRIPT", "KILL")
	out = append(out, scrStep{"A's EVAL", scrRead(a)})
	return out
}

const fnBusy = "-BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.\r\n"

func TestFunctionBusy(t *testing.T) {
	s := RunT(t, Config{BusyThreshold: scrBusyThreshold})
	got := functionBusyScenario(t, s.Addr())
	scrCheck(t, got, map[int]string{
		0:  fnBusy,
		1:  fnBusy,
		5:  fnBusy,
		9:  "+OK\r\n",
		10: "-ERR Script killed by user with SCRIPT KILL... script: spin, on @user_function:2.\r\n",
		11: scrNotBusy,
	})
	if s.lua.Running() {
		t.Error("a function is still running")
	}
}

func TestFunctionBusyComparedWithRedis(t *testing.T) {
	redistest.Require(t)
	threshold := strconv.Itoa(int(scrBusyThreshold.Milliseconds()))
	for name, scenario := range map[string]func(*testing.T, string) []scrStep{
		"kill":       functionBusyScenario,
		"unkillable": functionUnkillableScenario,
		"eval":       evalBusyFunctionKillScenario,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := redistest.Start(t, "--busy-reply-threshold", threshold)
			m := RunT(t, Config{BusyThreshold: scrBusyThreshold})
			scrCompare(t, scenario(t, r.Addr), scenario(t, m.Addr()))
		})
	}
}

// TestFunctionLoadTimeout: a library whose code never ends is stopped
// after LoadTimeout, and the server answers others meanwhile afterwards.
func TestFunctionLoadTimeout(t *testing.T) {
	s := RunT(t)
	c := redistest.Dial(t, s.Addr())
	start := time.Now()
	got := scrDo(c, "FUNCTION", "LOAD", "#!lua name=x\nlocal t = {} while true do t[#t % 100 + 1] = 'x' end")
	if want := "-ERR Error registering functions: ERR FUNCTION LOAD timeout\r\n"; got != want {
		t.Fatalf("FUNCTION LOAD = %q, want %q", got, want)
	}
	if d := time.Since(start); d < 400*time.Millisecond || d > 3*time.Second {
		t.Errorf("the load took %v, want about 500ms", d)
	}
	if got := scrDo(c, "FUNCTION", "STATS"); got != "*4\r\n$14\r\nrunning_script\r\n$-1\r\n$7\r\nengines\r\n*2\r\n$3\r\nLUA\r\n*4\r\n$15\r\nlibraries_count\r\n:0\r\n$15\r\nfunctions_count\r\n:0\r\n" {
		t.Errorf("FUNCTION STATS = %q", got)
	}
}

// TestFunctionInfo: INFO memory counts the libraries and functions.
func TestFunctionInfo(t *testing.T) {
	s := RunT(t)
	c := redistest.Dial(t, s.Addr())
	scrDo(c, "FUNCTION", "LOAD", fnLoopLib)
	got := scrDo(c, "INFO", "memory")
	for _, want := range []string{"number_of_functions:2\r\n", "number_of_libraries:1\r\n"} {
		if !regexp.MustCompile(regexp.QuoteMeta(want)).MatchString(got) {
			t.Errorf("INFO memory lacks %q", want)
		}
	}
}
