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
