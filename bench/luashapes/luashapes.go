// Package luashapes is the Lua benchmark set: script shapes that spend
// their time in the VM (loops, arithmetic, calls, tables, strings, cjson,
// cmsgpack) beside the few redis.call-heavy ones, each written once and
// measured twice: as Go benchmarks of the engine alone
// (luaeval/bench_vm_test.go, with ns/op and allocs/op) and against
// redis-server over the network as EVALSHA and FCALL (bench/run.sh lua).
package luashapes

import "strings"

// Shape is one script. Its body reads KEYS and ARGV, so the same text runs
// as an EVAL script and as a function's body.
type Shape struct {
	Name string
	Body string
	Keys []string
	Args []string
	// Want is the reply as the bench harness's control connection reads
	// it (an integer or a bulk string's text): redis-server's answer,
	// checked on every server before anything is measured.
	Want string
}

// Shapes is the set, in report order.
var Shapes = []Shape{
	{Name: "arith", Want: "501",
		// 200 iterations of arithmetic and string.byte (the row).
		Body: `local s = 0
for i = 1, 200 do
  s = (s + string.byte('abcdefgh', i % 8 + 1) * 3) % 1000 + i / 100
end
return math.floor(s)`},
	{Name: "numloop", Want: "333330",
		// A plain numeric loop: locals, arithmetic, a comparison.
		Body: `local a, b = 0, 1
for i = 1, 1000 do
  if i % 3 == 0 then a = a + i * 2 else a = a - 1 end
  b = (b * 7 + i) % 1009
end
return a + b`},
	{Name: "fib", Want: "233",
		// Recursive Lua calls: fib(13) is 753 calls.
		Body: `local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
return fib(13)`},
	{Name: "closures", Want: "2550",
		// Making closures and calling them through upvalues.
		Body: `local function counter(start)
  local c = start
  return function(d) c = c + d return c end
end
local s = 0
for i = 1, 50 do
  local f = counter(i)
  f(1)
  s = s + f(1) - 2 + i
end
return s`},
	{Name: "table-array", Want: "20200",
		// Filling and summing a 200-element table (the row).
		Body: `local t = {}
for i = 1, 200 do t[i] = i end
local s = 0
for i = 1, #t do s = s + t[i] end
for _, v in ipairs(t) do s = s + v end
return s / 2 + #t / 2`},
	{Name: "table-hash", Want: "10100",
		// String keys: insert, read, pairs.
		Body: `local t = {}
for i = 1, 100 do t['k' .. i] = i end
local s = 0
for i = 1, 100 do s = s + t['k' .. i] end
for k, v in pairs(t) do s = s + v end
return s`},
	{Name: "table-sort", Want: "981",
		// table.insert, table.sort with and without a comparator, table.remove.
		Body: `local t = {}
for i = 1, 100 do table.insert(t, (i * 7919) % 1000) end
table.sort(t)
local u = {}
for i = 1, #t do u[#u + 1] = t[i] end
table.sort(u, function(a, b) return a > b end)
table.remove(u, 1)
return u[1] + t[1]`},
	{Name: "concat", Want: "691",
		// Building a string from 100 parts with table.concat (the row).
		Body: `local p = {}
for i = 1, 100 do p[#p + 1] = 'part' .. i end
local s = table.concat(p, ',')
return #s`},
	{Name: "strlib", Want: "user=1234;sess=4321;id=8",
		// string.gsub with captures, find, match, format, sub, upper.
		Body: `local s = ARGV[1]
local out = string.gsub(s, '(%a+):(%d+)', '%1=%2')
local a, b = string.find(out, 'sess', 1, true)
local id = string.match(out, 'sess=(%d+)')
local r = string.format('%s;%s;id=%d', string.sub(out, 1, 9), string.sub(out, a, a + 8), #id * 2)
return string.lower(string.upper(r))`,
		Args: []string{"user:1234,sess:4321"}},
	{Name: "gsub", Want: "1234=user 4321=sess 99=n",
		// string.gsub with captures over a short string (the row).
		Body: `return (string.gsub(ARGV[1], '(%w+):(%d+)', '%2=%1'))`,
		Args: []string{"user:1234 sess:4321 n:99"}},
	{Name: "cjson", Want: `{"id":"42","data":{"to":"a@b.c","tags":["x","y"]},"name":"email","attempts":4}`,
		// cjson.decode + cjson.encode of a small job object (the row).
		Body: `local o = cjson.decode(ARGV[1])
o.attempts = o.attempts + 1
return cjson.encode(o)`,
		Args: []string{`{"id":"42","name":"email","attempts":3,"data":{"to":"a@b.c","tags":["x","y"]}}`}},
	{Name: "cmsgpack", Want: "6",
		// cmsgpack.pack and cmsgpack.unpack of a job and a list.
		Body: `local job = {id = ARGV[1], name = 'email', attempts = 3, delay = 1.5, tags = {'x', 'y', 'z'}}
local b = cmsgpack.pack(job, {1, 2, 3, 'four', 5.5})
local j, l = cmsgpack.unpack(b)
return j.attempts + #l - 2`,
		Args: []string{"42"}},
	{Name: "queue", Want: `{"ts":"1700000000000","name":"email","id":"q:1","data":"{\"to\":\"a@b.c\"}","attempts":"3"}`,
		// A job queue's add-then-take in one script, in the shape of
		// BullMQ's: options in JSON, an id from INCR, the job as a hash,
		// the wait list, taking the oldest job and reading it back, a
		// loop over its fields, the job returned as JSON.
		Body: queueBody,
		Keys: []string{"q"},
		Args: []string{"email", `{"attempts":3,"priority":0,"delay":0}`, `{"to":"a@b.c"}`, "1700000000000"}},
	{Name: "release", Want: "0",
		// The lock release in redis-py's shape (mostly redis.call).
		Body: `local token = redis.call('get', KEYS[1])
if not token or token ~= ARGV[1] then
    return 0
end
redis.call('del', KEYS[1])
return 1`,
		Keys: []string{"lock:1"}, Args: []string{"tok"}},
}

const queueBody = `local opts = cjson.decode(ARGV[2])
local id = redis.call('INCR', KEYS[1] .. ':id')
local jobKey = KEYS[1] .. ':' .. id
redis.call('HSET', jobKey, 'name', ARGV[1], 'data', ARGV[3], 'ts', ARGV[4], 'attempts', opts.attempts or 1)
if opts.priority and opts.priority > 0 then
  redis.call('ZADD', KEYS[1] .. ':prio', opts.priority, id)
else
  redis.call('LPUSH', KEYS[1] .. ':wait', id)
end
local waiting = redis.call('LLEN', KEYS[1] .. ':wait')
local next = redis.call('RPOP', KEYS[1] .. ':wait')
if not next then return false end
local fields = redis.call('HGETALL', KEYS[1] .. ':' .. next)
local job = {}
for i = 1, #fields, 2 do
  job[fields[i]] = fields[i + 1]
end
job.id = KEYS[1] .. ':' .. (next - id + 1)
redis.call('DEL', KEYS[1] .. ':' .. next)
if waiting > 1000 then redis.call('LTRIM', KEYS[1] .. ':wait', 0, 999) end
return cjson.encode(job)`

// Library is the FUNCTION LOAD code that registers s as the function
// bench_<name>, its body run with the function's KEYS and ARGV.
func (s Shape) Library() string {
	return "#!lua name=lib_" + s.FuncName() + "\nredis.register_function('" + s.FuncName() + "', function(KEYS, ARGV)\n" + s.Body + "\nend)"
}

// FuncName is the function's name: bench_ and the shape's, with
// underscores for dashes.
func (s Shape) FuncName() string { return "bench_" + strings.ReplaceAll(s.Name, "-", "_") }
