package reliability_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/minilock/minilock/internal/lockscripts"
	"github.com/minilock/minilock/internal/redistest"
	"github.com/minilock/minilock/server"
)

// Hostile scripts: each one is answered (with an error, or by SCRIPT KILL)
// while another client keeps getting PING answered, and the heap grows by
// less than hostileHeapLimit. Each case names the Redis CVE or behaviour it
// mirrors; cases marked redis also run against redis-server 7.0.15 and
// must get the very same bytes.
//
//	go test -race -run TestHostileScripts -v ./e2e/reliability

const (
	hostileHeapLimit = 512 << 20
	hostileBusy      = 100 * time.Millisecond
	// hostileNoMemory is the reply to a script stopped for its memory.
	hostileNoMemory = "-ERR not enough memory script: {sha}, on @user_script:1.\r\n"
)

type hostileCase struct {
	name    string
	mirrors string // the CVE or Redis behaviour the case reproduces
	script  string
	// want is the reply, or its start when it ends in "..."; {sha} stands
	// for the script's SHA1.
	want string
	// redis: compare every reply with redis-server 7.0.15's. Only for
	// scripts that cannot hurt it (string.rep('x',1e10) gets a real
	// redis-server OOM-killed at 24 GB).
	redis bool
	// kill: the script runs until SCRIPT KILL, which another client sends
	// once it is answered BUSY.
	kill bool
	// during are commands the other client sends while the script is busy,
	// before SCRIPT KILL, each with the reply it must get.
	during [][2]string
	// after runs once the script has been answered, on the same server.
	after [][2]string
}

var hostileCases = []hostileCase{
	// Sandbox: what Redis 7.0 removes or never loads.
	{name: "bytecode via loadstring", mirrors: "CVE-2015-4335: loadstring of string.dump bytecode escaped the sandbox; Redis refuses binary chunks",
		script: `return assert(loadstring(string.dump(function() return 1 end)))()`,
		want:   `-ERR user_script:1: [string "` + "\x1b" + `LuaQ"]:1: unexpected symbol near 'char(27)' script: {sha}, on @user_script:1.` + "\r\n", redis: true},
	{name: "bytecode via load with a reader", mirrors: "CVE-2015-4335, through load(function) instead of loadstring",
		script: `local d, done = string.dump(function() return 1 end), false
return assert(load(function() if done then return nil end done = true return d end))()`,
		want: "-ERR user_script:2: ...", redis: true},
	{name: "package.loadlib", mirrors: "CVE-2022-0543: Debian's Redis exposed package, and package.loadlib reached liblua's io.popen",
		script: `return package.loadlib("/lib/x86_64-linux-gnu/liblua5.1.so.0", "luaopen_io")`,
		want:   "-ERR user_script:1: Script attempted to access nonexistent global variable 'package' script: {sha}, on @user_script:1.\r\n", redis: true},
	{name: "require", mirrors: "CVE-2022-0543 (require is package's)",
		script: `return require("io")`,
		want:   "-ERR user_script:1: Script attempted to access nonexistent global variable 'require' script: {sha}, on @user_script:1.\r\n", redis: true},
	{name: "io.popen", mirrors: "CVE-2022-0543's payload: io.popen('id')",
		script: `return io.popen("id"):read("*a")`,
		want:   "-ERR user_script:1: Script attempted to access nonexistent global variable 'io' script: {sha}, on @user_script:1.\r\n", redis: true},
	{name: "os.execute", mirrors: "Redis loads no os library",
		script: `return os.execute("id")`,
		want:   "-ERR user_script:1: Script attempted to access nonexistent global variable 'os' script: {sha}, on @user_script:1.\r\n", redis: true},
	{name: "debug.getregistry", mirrors: "Redis sets debug = nil after loading it: the registry holds every script's closures",
		script: `return debug.getregistry()`,
		want:   "-ERR user_script:1: Script attempted to access nonexistent global variable 'debug' script: {sha}, on @user_script:1.\r\n", redis: true},
	{name: "dofile", mirrors: "Redis removes dofile and loadfile",
		script: `return dofile("/etc/passwd")`,
		want:   "-ERR user_script:1: Script attempted to access nonexistent global variable 'dofile' script: {sha}, on @user_script:1.\r\n", redis: true},

	// Tampering that would leak into the next script (Redis 7.0 makes the
	// globals and every library table read-only).
	{name: "setmetatable(_G, nil)", mirrors: "CVE-2022-24735: scripts could change globals that other users' scripts then ran; Redis 7 made _G read-only",
		script: `setmetatable(_G, nil) x = 1 return x`,
		want:   "-ERR Attempt to modify a readonly table script: {sha}, on @user_script:1.\r\n", redis: true},
	{name: "string metatable __index", mirrors: "CVE-2025-46818: the metatables of basic types let one user's code run in another's scripts",
		script: `getmetatable("").__index = function() return "pwned" end return ("x"):upper()`,
		want:   "-ERR user_script:1: Attempt to modify a readonly table script: {sha}, on @user_script:1.\r\n", redis: true},
	{name: "string metatable rawset", mirrors: "CVE-2025-46818, through rawset",
		script: `rawset(getmetatable(""), "__index", {upper = function() return "pwned" end}) return ("x"):upper()`,
		want:   "-ERR Attempt to modify a readonly table script: {sha}, on @user_script:1.\r\n", redis: true},
	{name: "string library function replaced", mirrors: "CVE-2025-46818: string.* reached through every string's metatable",
		script: `string.rep = function() return "" end return 1`,
		want:   "-ERR user_script:1: Attempt to modify a readonly table script: {sha}, on @user_script:1.\r\n", redis: true},
	{name: "redis.call replaced", mirrors: "CVE-2022-24735: the redis table is read-only",
		script: `redis.call = function() return "hijacked" end return 1`,
		want:   "-ERR user_script:1: Attempt to modify a readonly table script: {sha}, on @user_script:1.\r\n", redis: true},
	{name: "tampering does not reach the next script", mirrors: "CVE-2022-24735 / CVE-2025-46818, checked from the next script",
		script: `pcall(function() getmetatable("").__index.upper = function() return "pwned" end end) return ("x"):upper()`,
		want:   "$1\r\nX\r\n", redis: true},

	// Arithmetic on sizes (Lua 5.1's unpack, string.rep, the C libraries).
	{name: "unpack({}, 1, 1e8)", mirrors: "CVE-2025-46817: unpack's count overflowed int in lbaselib.c",
		script: `return #{unpack({}, 1, 1e8)}`,
		want:   "-ERR user_script:1: too many results to unpack script: {sha}, on @user_script:1.\r\n", redis: true},
	{name: "unpack({}, INT_MIN, INT_MAX)", mirrors: "CVE-2025-46817: e - i + 1 wraps around",
		script: `return unpack({}, -2147483648, 2147483647)`,
		want:   "-ERR user_script:1: too many results to unpack script: {sha}, on @user_script:1.\r\n", redis: true},
	{name: "unpack of 8000 values", mirrors: "CVE-2021-32626: a huge number of values on the Lua stack; LUAI_MAXCSTACK is 8000",
		script: `local t = {} for i = 1, 8000 do t[i] = i end return unpack(t)`,
		want:   "-ERR user_script:1: too many results to unpack script: {sha}, on @user_script:1.\r\n", redis: true},
	{name: "string.rep('x', 1e10)", mirrors: "Redis puts no limit on Lua memory: redis-server 7.0.15 was OOM-killed by this at 24 GB",
		script: `return #string.rep("x", 1e10)`, want: hostileNoMemory},
	{name: "doubling s = s .. s", mirrors: "the same, one `..` at a time: each is refused before it would build more than 128 MiB",
		script: `local s = "x" for i = 1, 64 do s = s .. s end return #s`, want: hostileNoMemory},
	{name: "table.concat of a huge table", mirrors: "the same, through table.concat",
		script: `local t = {} local s = string.rep("y", 1024 * 1024) for i = 1, 4096 do t[i] = s end return #table.concat(t)`, want: hostileNoMemory},
	{name: "bit.tohex(x, INT_MIN)", mirrors: "CVE-2024-31449: lua_bit.c negated INT_MIN and overflowed its stack buffer (redis-server 7.0.15 is vulnerable: not run against it); patched Redis returns 0000FFFF",
		script: `return bit.tohex(65535, -2147483648)`, want: "$8\r\n0000FFFF\r\n"},
	{name: "struct.unpack with a huge size", mirrors: "CVE-2015-8080 / CVE-2020-14147: getnum in lua_struct.c overflowed",
		script: `return struct.unpack("i4294967295", "x")`,
		want:   "-ERR user_script:1: integral size overflow script: {sha}, on @user_script:1.\r\n", redis: true},
	{name: "cjson.encode of a huge string", mirrors: "CVE-2022-24834: cjson's strbuf size overflowed on big strings",
		script: `return #cjson.encode(string.rep("\0", 100 * 1024 * 1024))`, want: hostileNoMemory},
	{name: "cjson.encode nesting", mirrors: "lua-cjson's encode depth limit (1000)",
		script: `local t = {} local c = t for i = 1, 2000 do c[1] = {} c = c[1] end return cjson.encode(t)`,
		want:   "-ERR user_script:1: Cannot serialise, excessive nesting (1001) script: {sha}, on @user_script:1.\r\n", redis: true},
	{name: "cjson.decode nesting", mirrors: "lua-cjson's decode depth limit (1000)",
		script: `return cjson.decode(string.rep("[", 100000))`,
		want:   "-ERR user_script:1: Found too many nested data structures (1001) at character 1001 script: {sha}, on @user_script:1.\r\n", redis: true},
	// Issue 22: with the depth options raised, these killed the process
	// (a Go stack overflow is fatal). Redis's recursion is bounded by its
	// Lua stack (lua_checkstack, LUAI_MAXCSTACK 8000 slots), whatever the
	// options say. Redis keeps cjson's options for the life of its Lua
	// state, so SCRIPT FLUSH afterwards gives the next cases its defaults.
	{name: "cjson.encode nesting, encode_max_depth raised", mirrors: "lua_cjson.c's lua_checkstack as it descends: one Lua stack slot per array level",
		script: `cjson.encode_max_depth(2^31-1) local t={} t[1]=t return cjson.encode(t)`,
		want:   "-ERR user_script:1: Cannot serialise, excessive nesting (7998) script: {sha}, on @user_script:1.\r\n", redis: true,
		after: [][2]string{{"SCRIPT FLUSH", "+OK\r\n"}}},
	{name: "cjson.encode nesting of objects, encode_max_depth raised", mirrors: "the same, two slots (key and value) per object level",
		script: `cjson.encode_max_depth(2^31-1) local t={} t.a=t return cjson.encode(t)`,
		want:   "-ERR user_script:1: Cannot serialise, excessive nesting (4000) script: {sha}, on @user_script:1.\r\n", redis: true,
		after: [][2]string{{"SCRIPT FLUSH", "+OK\r\n"}}},
	{name: "cjson.decode nesting, decode_max_depth raised", mirrors: "lua_cjson.c's json_decode_descend: lua_checkstack fails past 7998 nested arrays",
		script: `cjson.decode_max_depth(2^31-1) return cjson.decode(string.rep("[", 5000000))`,
		want:   "-ERR user_script:1: Found too many nested data structures (7999) at character 7999 script: {sha}, on @user_script:1.\r\n", redis: true,
		after: [][2]string{{"SCRIPT FLUSH", "+OK\r\n"}}},
	{name: "cjson.decode of five million [", mirrors: "lua-cjson's decode depth limit (1000), on a 5 MB input",
		script: `return cjson.decode(string.rep("[", 5000000))`,
		want:   "-ERR user_script:1: Found too many nested data structures (1001) at character 1001 script: {sha}, on @user_script:1.\r\n", redis: true},
	{name: "cmsgpack.unpack nesting", mirrors: "CVE-2018-11218: cmsgpack overflowed its stack on nested input; since the fix, luaL_checkstack stops it at LUAI_MAXCSTACK",
		script: `return cmsgpack.unpack(string.rep(string.char(0x91), 100000) .. string.char(1))`,
		want:   "-ERR user_script:1: stack overflow (in function mp_decode_to_lua_array) script: {sha}, on @user_script:1.\r\n", redis: true},
	{name: "cmsgpack.unpack of a 2^32-item array", mirrors: "CVE-2018-11218: counts from the payload; each item needs a byte of it",
		script: `return cmsgpack.unpack(string.char(0xdd, 0xff, 0xff, 0xff, 0xff, 1, 2, 3))`,
		want:   "-ERR user_script:1: Missing bytes in input. script: {sha}, on @user_script:1.\r\n", redis: true},
	{name: "cmsgpack.pack of 4001 values", mirrors: "CVE-2018-11218: mp_pack's lua_checkstack of its arguments",
		script: `local t = {} for i = 1, 4001 do t[i] = i end return cmsgpack.pack(unpack(t))`,
		want:   "-ERR user_script:1: bad argument #0 to 'pack' (Too many arguments for MessagePack pack.) script: {sha}, on @user_script:1.\r\n", redis: true},
	{name: "cmsgpack.pack of a value shared 100^5 times", mirrors: "CVE-2022-24834: cmsgpack's buffer size overflowed on big output; minilock refuses past 128 MiB",
		script: `local t = {} for i = 1, 100 do t[i] = i end for d = 1, 4 do local u = {} for i = 1, 100 do u[i] = t end t = u end return #cmsgpack.pack(t)`, want: hostileNoMemory},

	// Replies.
	{name: "a table that contains itself", mirrors: "CVE-2021-32626: luaReplyToRedisReply checks the Lua stack and stops at 'reached lua stack limit'",
		script: `local t = {} t[1] = t t[2] = 7 return t`, want: "*2\r\n*2\r\n...", redis: true},
	{name: "a deep table", mirrors: "CVE-2021-32626, with a fresh table at each level",
		script: `local t = {} local c = t for i = 1, 100000 do c[1] = {} c = c[1] end return t`, want: "*1\r\n*1\r\n...", redis: true},
	{name: "a huge number of returned values", mirrors: "Redis turns any table into a reply: 1024 references to one 1 MiB string make a 1 GiB reply from a 16 KiB table; minilock stops at 64 MiB",
		script: `local s = string.rep("v", 1024 * 1024) local t = {} for i = 1, 1024 do t[i] = s end return t`,
		want:   "-ERR not enough memory for the script's reply (limit 67108864 bytes)\r\n"},
	{name: "a huge reply from nested references", mirrors: "the same with no big string: 1e9 integers from three small tables",
		script: `local a = {} for i = 1, 1000 do a[i] = i end local b = {} for i = 1, 1000 do b[i] = a end local c = {} for i = 1, 1000 do c[i] = b end return c`,
		want:   "-ERR not enough memory for the script's reply (limit 67108864 bytes)\r\n"},
	{name: "many small values", mirrors: "a big but honest reply (600 KB) is answered whole",
		script: `local t = {} for i = 1, 100000 do t[i] = i end return t`, want: "*100000\r\n:1\r\n:2\r\n...", redis: true},

	// Recursion.
	{name: "deep recursion", mirrors: "CVE-2021-32626 family: Lua's C stack limit (LUAI_MAXCCALLS) answers 'stack overflow'",
		script: `local function f(n) return f(n + 1) + 1 end return f(1)`,
		want:   "-ERR user_script:1: stack overflow script: {sha}, on @user_script:1.\r\n", redis: true},
	{name: "recursion through pcall", mirrors: "the C stack limit still holds when every level is a pcall",
		script: `local function f() return pcall(f) end return tostring(f())`, want: "$4\r\ntrue\r\n", redis: true},
	{name: "coroutine bomb", mirrors: "memory: each coroutine is a new Lua thread with its own stack; the memory limit stops it, and nothing of the stopped run's coroutines may act after it",
		script: `local cos = {} for i = 1, 10000000 do cos[i] = coroutine.create(function() end) end return #cos`,
		want:   hostileNoMemory,
		after:  [][2]string{{"EVAL:return coroutine.wrap(function() return 7 end)()", ":7\r\n"}}},

	// Time: busy-reply-threshold and SCRIPT KILL.
	{name: "while true do end", mirrors: "busy-reply-threshold: other clients get BUSY, SCRIPT KILL stops the script",
		script: `while true do end`, kill: true,
		want: "-ERR Script killed by user with SCRIPT KILL... script: {sha}, on @user_script:1.\r\n", redis: true},
	{name: "pcall swallowing SCRIPT KILL", mirrors: "Redis re-raises the kill error on every line, so pcall cannot swallow it",
		script: `while true do pcall(function() while true do end end) end`, kill: true,
		want: "-ERR Script killed by user with SCRIPT KILL... script: {sha}, on @user_script:1.\r\n", redis: true},
	{name: "xpcall whose handler loops", mirrors: "the kill also reaches a message handler",
		script: `while true do xpcall(function() while true do end end, function(e) while true do end end) end`, kill: true,
		want: "-ERR Script killed by user with SCRIPT KILL... script: {sha}, on @user_script:1.\r\n"},
	{name: "coroutine swallowing SCRIPT KILL", mirrors: "the kill reaches code running in a coroutine (redis-server 7.0.15 takes about 5 s to get out of this one)",
		script: `while true do coroutine.resume(coroutine.create(function() while true do end end)) end`, kill: true,
		want: "-ERR Script killed by user with SCRIPT KILL... script: {sha}, on @user_script:1.\r\n"},
	{name: "collectgarbage in a loop", mirrors: "a busy script that only collects garbage",
		script: `while true do collectgarbage() collectgarbage("count") end`, kill: true,
		want: "-ERR Script killed by user with SCRIPT KILL... script: {sha}, on @user_script:1.\r\n", redis: true},
	{name: "redis.pcall in a loop", mirrors: "a busy script that calls commands but never writes stays killable",
		script: `while true do redis.pcall("GET", "k") end`, kill: true,
		want: "-ERR Script killed by user with SCRIPT KILL... script: {sha}, on @user_script:1.\r\n", redis: true},
	{name: "SCRIPT FLUSH while a script runs", mirrors: "CVE-2024-46981: SCRIPT FLUSH freed the Lua state under a script's feet; it gets BUSY",
		script: `while true do end`, kill: true,
		during: [][2]string{{"SCRIPT FLUSH", "-BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.\r\n"}},
		want:   "-ERR Script killed by user with SCRIPT KILL... script: {sha}, on @user_script:1.\r\n", redis: true,
		after: [][2]string{{"SCRIPT EXISTS {sha}", "*1\r\n:1\r\n"}}},
	{name: "__gc that runs at SCRIPT FLUSH", mirrors: "CVE-2024-46981: a __gc finalizer ran redis.call after SCRIPT FLUSH closed the state",
		script: `setmetatable({}, {__gc = function() redis.call("SET", "gc-ran", "1") end}) return 1`, want: ":1\r\n", redis: true,
		after: [][2]string{{"SCRIPT FLUSH", "+OK\r\n"}, {"EVAL:collectgarbage() collectgarbage() return 1", ":1\r\n"}, {"GET gc-ran", "$-1\r\n"}}},
	{name: "writes then loops", mirrors: "a script that has written is UNKILLABLE: Redis's answer is SHUTDOWN NOSAVE; here it runs until its own end",
		// It runs for a second of wall time (TIME is not frozen in a
		// script), well past the busy threshold, so the SCRIPT KILL sent
		// after the first BUSY always finds it still running.
		script: `redis.call("SET", "w", "1") local t0 = redis.call("TIME") local t repeat t = redis.call("TIME") until (t[1] - t0[1]) * 1000000 + (t[2] - t0[2]) >= 1000000 return 1`,
		during: [][2]string{{"SCRIPT KILL", "-UNKILLABLE Sorry the script already executed write commands against the dataset. You can either wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command.\r\n"}},
		want:   ":1\r\n"},
	{name: "not allowed from scripts", mirrors: "EVAL, SCRIPT and the like are refused inside a script (no recursion through redis.call)",
		script: `return redis.call("EVAL", "return 1", "0")`,
		want:   "-ERR This Redis command is not allowed from script script: {sha}, on @user_script:1.\r\n", redis: true},
}

// TestHostileScripts runs the battery against minilock and, for the cases
// marked redis, against redis-server 7.0.15 too.
func TestHostileScripts(t *testing.T) {
	s := server.RunT(t, server.Config{BusyThreshold: hostileBusy})
	var redisAddr string
	for _, hc := range hostileCases {
		if hc.redis {
			redisAddr = redistest.Start(t, "--busy-reply-threshold", fmt.Sprint(hostileBusy.Milliseconds())).Addr
			break
		}
	}
	for _, hc := range hostileCases {
		t.Run(hc.name, func(t *testing.T) {
			t.Logf("mirrors %s", hc.mirrors)
			began := time.Now()
			got := runHostile(t, s.Addr(), hc, true)
			t.Logf("reply %.60q in %v, heap +%d MiB, %d PINGs answered meanwhile", got.reply, time.Since(began).Round(time.Millisecond), got.heap>>20, got.pings)
			if !hostileMatch(got.reply, expandSHA(hc.want, hc.script)) {
				t.Fatalf("reply %.300q, want %.300q", got.reply, expandSHA(hc.want, hc.script))
			}
			if got.heap > hostileHeapLimit {
				t.Fatalf("heap grew by %d MiB, want under %d MiB", got.heap>>20, hostileHeapLimit>>20)
			}
			if !hc.redis {
				return
			}
			began = time.Now()
			want := runHostile(t, redisAddr, hc, false)
			t.Logf("redis-server answered in %v", time.Since(began).Round(time.Millisecond))
			if got.reply != want.reply || strings.Join(got.during, "|") != strings.Join(want.during, "|") ||
				strings.Join(got.after, "|") != strings.Join(want.after, "|") {
				t.Fatalf("minilock %.300q %q %q\nredis    %.300q %q %q", got.reply, got.during, got.after, want.reply, want.during, want.after)
			}
		})
	}
}

type hostileResult struct {
	reply         string
	during, after []string
	heap          uint64
	pings         int
}

// runHostile sends the script from one client while another keeps sending
// PING (and SCRIPT KILL, for kill cases, once answered BUSY).
func runHostile(t *testing.T, addr string, hc hostileCase, measure bool) hostileResult {
	t.Helper()
	var stop func() uint64
	if measure {
		stop = heapPeak()
	}
	runner := redistest.Dial(t, addr)
	other := redistest.Dial(t, addr)
	runner.Timeout = 2 * time.Minute
	runner.MustSend(redistest.Encode("EVAL", hc.script, "0"))
	replied := make(chan string, 1)
	go func() {
		r, err := tryReply(runner)
		if err != nil {
			r = "<" + err.Error() + ">"
		}
		replied <- r
	}()
	var res hostileResult
	killed, duringDone := false, false
	timeout := time.After(2 * time.Minute)
	for res.reply == "" {
		select {
		case res.reply = <-replied:
			continue
		case <-timeout:
			t.Fatalf("no reply after 2 minutes (%d PINGs answered meanwhile)", res.pings)
			return res
		default:
		}
		got := other.MustDo("PING")
		res.pings++
		switch {
		case got == "+PONG\r\n":
		case strings.HasPrefix(got, "-BUSY "):
			if !duringDone {
				for _, d := range hc.during {
					res.during = append(res.during, other.MustDo(strings.Fields(d[0])...))
					if want := d[1]; res.during[len(res.during)-1] != want {
						t.Fatalf("%s while busy: %q, want %q", d[0], res.during[len(res.during)-1], want)
					}
				}
				duringDone = true
			}
			if hc.kill && !killed {
				// NOTBUSY: the script ended on its own (the memory limit)
				// between the BUSY and the kill.
				if got := other.MustDo("SCRIPT", "KILL"); got != "+OK\r\n" && !strings.HasPrefix(got, "-NOTBUSY ") {
					t.Fatalf("SCRIPT KILL: %q", got)
				}
				killed = true
			}
		default:
			t.Fatalf("PING while the script runs: %q", got)
		}
		time.Sleep(2 * time.Millisecond) // the pace of the pinging client
	}
	if measure {
		res.heap = stop()
	}
	if len(hc.during) > 0 && !duringDone {
		t.Fatalf("the script ended (%q) before any BUSY, so the commands meant for while it runs were never sent", res.reply)
	}
	if hc.kill && !killed && !strings.HasPrefix(res.reply, "-") {
		t.Fatalf("the script was meant to run until killed, and returned %q", res.reply)
	}
	runner.Timeout = 0
	if got := runner.MustDo("PING"); got != "+PONG\r\n" {
		t.Fatalf("the script's client afterwards: %q", got)
	}
	for _, a := range hc.after {
		var got string
		if src, ok := strings.CutPrefix(a[0], "EVAL:"); ok {
			got = runner.MustDo("EVAL", src, "0")
		} else {
			got = runner.MustDo(strings.Fields(expandSHA(a[0], hc.script))...)
		}
		res.after = append(res.after, got)
		if got != a[1] {
			t.Fatalf("%s afterwards: %q, want %q", a[0], got, a[1])
		}
	}
	runner.MustDo("FLUSHALL")
	return res
}

func expandSHA(s, script string) string {
	return strings.ReplaceAll(s, "{sha}", lockscripts.SHA1(script))
}

// hostileMatch compares a reply with a want that may end in "...".
func hostileMatch(got, want string) bool {
	if prefix, ok := strings.CutSuffix(want, "..."); ok {
		return strings.HasPrefix(got, prefix)
	}
	return got == want
}
