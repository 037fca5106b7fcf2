package luaeval

import (
	"fmt"
	"math/rand"
	"testing"
)

// TestWrappedCoroutineErrorsAgainstRedis: an argument error raised inside
// a coroutine.wrap function keeps the name and position it got inside the
// coroutine when a Go function (pcall, xpcall) called the wrapper. The
// wrapper re-raises its coroutine's error; it was once taken for the
// wrapper's own argument error and rewritten to "bad argument #1 to '?'"
// without a position (Redis: "user_script:1: bad argument #1 to
// 'tonumber' (value expected)").
func TestWrappedCoroutineErrorsAgainstRedis(t *testing.T) {
	scripts := []string{
		"local co = coroutine.wrap(function(...) local x = tonumber(...) return x end) return {pcall(co)}",
		"local co = coroutine.wrap(function() return tonumber() end) return {pcall(co)}",
		"local co = coroutine.wrap(function() local x = setmetatable() return x end) return {pcall(co, 1)}",
		"return {pcall(coroutine.wrap(function(...) return pcall(string.rep) end))}",
		"return {xpcall(coroutine.wrap(function(...) string.rep() end), function(e) return e end)}",
		"local f = coroutine.wrap(function(...) coroutine.yield() string.rep() end) f() return {pcall(f)}",
		"return {pcall(coroutine.wrap(function() return coroutine.wrap(function() string.rep() end)() end))}",
		"return {pcall(coroutine.wrap(function() return pcall(coroutine.wrap(function() string.rep() end)) end))}",
		"return {pcall(coroutine.wrap(string.rep))}",
	}
	calls := []string{"tonumber()", "string.rep()", "setmetatable()", "string.sub('x', {})",
		"math.floor('x')", "table.concat(1)", "tostring()", "string.format('%d', 'x')",
		"select(0)", "string.char(300)", "redis.sha1hex()", "unpack(nil)"}
	outer := []string{"{pcall(%s)}", "{pcall(%s, 1, 2)}", "{xpcall(%s, function(e) return type(e) == 'table' and 'tbl:' .. tostring(e.err) or 'h:' .. tostring(e) end)}",
		"{%s()}", "{pcall(function() return %s() end)}"}
	r := rand.New(rand.NewSource(seed(t) + 11))
	for range 300 {
		call := calls[r.Intn(len(calls))]
		body := "local x = " + call + " return x"
		if r.Intn(3) == 0 {
			body = "coroutine.yield(1) " + body
		}
		if r.Intn(4) == 0 {
			body = "return coroutine.wrap(function() " + body + " end)()"
		}
		wrap := "coroutine.wrap(function(...) " + body + " end)"
		scripts = append(scripts, "local co = "+wrap+" local a = {pcall(co)} return "+fmt.Sprintf(outer[r.Intn(len(outer))], "co"))
	}
	diffTimed(t, scripts)
}

// TestFunctionStateGlobalsAgainstRedis: a function's Lua state has no
// __redis__err__handler global and no redis.breakpoint, redis.debug or
// redis.replicate_commands (EVAL's additions, eval.c); they were there.
func TestFunctionStateGlobalsAgainstRedis(t *testing.T) {
	rc := dialRedis(t)
	e := newTestEngine(t, Config{})
	h := newFakeHost()
	lib := "#!lua name=globals\n" +
		"redis.register_function('types', function() return {type(redis.debug), type(redis.breakpoint), type(redis.replicate_commands), type(redis.setresp), type(redis.set_repl), type(KEYS), type(ARGV)} end)\n" +
		"redis.register_function('handler', function() return type(__redis__err__handler) end)\n" +
		"redis.register_function('walk', function() local t = {} for k in pairs(_G) do t[#t+1] = k end return t end)"
	rc.do(t, "FUNCTION", "LOAD", "REPLACE", lib)
	if _, err := e.FunctionLoad([]byte(lib), true); err != nil {
		t.Fatal(err)
	}
	for _, fn := range []string{"types", "handler", "walk"} {
		want := rc.do(t, "FCALL", fn, "0")
		if got := fcallReply(e, h, 2, false, fn, "0"); got != want {
			t.Errorf("FCALL %s:\nredis    %q\nminilock %q", fn, want, got)
		}
	}
}
