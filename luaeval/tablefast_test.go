package luaeval

import (
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"testing"

	"github.com/minilock/minilock/luaeval/internal/seam"
	"github.com/minilock/minilock/resp"
)

// The table fast paths (new keys written from the VM loop, # from the loop,
// table.sort's comparator called directly: seam.SetFastTables) against the
// slow paths they stand in for (the hooked handlers, L.Call), on seeded
// generated scripts: every reply the same, errors and their text included.
func TestTableFastPathsAgainstSlow(t *testing.T) {
	if !seam.Enabled() {
		t.Skip("the hooks are off: there are no fast paths")
	}
	tablesFastAgainstSlow(t, 3000, genTableOpsScript)
}

// tablesFastAgainstSlow runs n scripts from gen (seeded) with seam's table
// paths on and off (seam.SetFastTables): every reply must be the same.
func tablesFastAgainstSlow(t *testing.T, n int, gen func(*rand.Rand) string) {
	t.Helper()
	r := rand.New(rand.NewSource(seed(t)))
	e := newTestEngine(t, Config{})
	defer seam.SetFastTables(true)
	for i := range n {
		s := gen(r)
		seam.SetFastTables(true)
		fast := evalReply(e, newFakeHost(), 2, s, "0")
		seam.SetFastTables(false)
		slow := evalReply(e, newFakeHost(), 2, s, "0")
		if fast != slow {
			t.Fatalf("script %d: %s\nfast %q\nslow %q", i, s, trunc(fast), trunc(slow))
		}
	}
}

// The same generated scripts, fewer of them, against redis-server: pairs
// order, borders, sort results and error texts byte for byte.
func TestTableOpsAgainstRedis(t *testing.T) {
	r := rand.New(rand.NewSource(seed(t) + 1))
	scripts := []string{
		// The comparator's call at the C-call limit and at the call-stack
		// limit, where a comparator of the plain shape is computed
		// without its call: each nesting depth's outcome is Redis's.
		`local cmp = function(a, b) return a < b end
local function nest(n) if n == 0 then table.sort({3, 1, 2}, cmp) return 'sorted' end local ok, e = pcall(nest, n - 1) return ok and e or ('error: ' .. tostring(e)) end
local r = {} for n = 190, 202 do r[#r + 1] = n .. ' ' .. nest(n) end return r`,
		`local cmp = function(a, b) return a > b end
local function nest(n) if n == 0 then local t = {3, 1, 2} table.sort(t, cmp) return t[1] end return nest(n - 1) + 0 end
local r = {} for n = 16370, 16395 do local ok, e = pcall(nest, n) r[#r + 1] = n .. ' ' .. tostring(e) end return r`,
		`local cmp = function(a, b) return a < b end
local function nest(n) if n == 0 then local t = {3, 'x', 2} table.sort(t, cmp) return t[1] end return nest(n - 1) + 0 end
local ok, e = pcall(nest, 10) return tostring(e)`,
	}
	for range 800 {
		scripts = append(scripts, genTableOpsScript(r))
	}
	diffTimed(t, scripts)
}

// genTableOpsScript builds a table by a random sequence of writes (integer,
// string and float keys, nil assignments, appends with t[#t+1], table.insert
// and table.remove, some on a table with a metatable), may sort it (with or
// without a comparator, some comparators inconsistent or failing), and
// returns its border, its pairs in next's order and any error's text.
func genTableOpsScript(r *rand.Rand) string { return genTableOpsScriptFrom(r, "{}") }

// genTableOpsScriptFrom is genTableOpsScript on the table start makes.
func genTableOpsScriptFrom(r *rand.Rand, start string) string {
	keys := []string{"0", "-1", "0.5", "1.5", "-0", "2^31", "2^53", "1e100", "true", "'a'", "'b'", "'k1'", "'10'", "''"}
	for i := 1; i <= 24; i++ {
		keys = append(keys, strconv.Itoa(i), fmt.Sprintf("'s%d'", i))
	}
	key := func() string {
		if r.Intn(3) == 0 {
			return strconv.Itoa(1 + r.Intn(40))
		}
		return keys[r.Intn(len(keys))]
	}
	val := func() string {
		switch r.Intn(6) {
		case 0:
			return fmt.Sprintf("'v%d'", r.Intn(50))
		case 1:
			return fmt.Sprintf("%d.25", r.Intn(50))
		default:
			return strconv.Itoa(r.Intn(100))
		}
	}
	var b strings.Builder
	b.WriteString("local t = " + start + " ")
	if r.Intn(6) == 0 {
		// A metatable: writes of new keys must meet __newindex.
		b.WriteString("local log = {} setmetatable(t, {__newindex = function(t, k, v) log[#log + 1] = tostring(k) rawset(t, k, v) end, __index = function(t, k) return nil end}) ")
	}
	b.WriteString("local ok, err = pcall(function() ")
	numeric := r.Intn(2) == 0 // sortable: values of one type
	for i, n := 0, r.Intn(80); i < n; i++ {
		v := val()
		if numeric {
			v = strconv.Itoa(r.Intn(100))
		}
		switch r.Intn(13) {
		case 12:
			// Many string keys, some cleared again: rehashes of a larger
			// hash part with collisions and nodes whose value is nil.
			fmt.Fprintf(&b, "for i = 1, %d do t['x' .. i] = %s end for i = 1, %d, %d do t['x' .. i] = nil end ", r.Intn(70), v, r.Intn(70), 1+r.Intn(4))
		case 0, 1, 2:
			fmt.Fprintf(&b, "t[%s] = %s ", key(), v)
		case 3:
			fmt.Fprintf(&b, "t[%s] = nil ", key())
		case 4, 5:
			fmt.Fprintf(&b, "t[#t + 1] = %s ", v)
		case 6:
			b.WriteString("t[#t] = nil ")
		case 7:
			fmt.Fprintf(&b, "table.insert(t, %s) ", v)
		case 8:
			fmt.Fprintf(&b, "table.insert(t, math.min(#t + 1, %d), %s) ", 1+r.Intn(8), v)
		case 9:
			b.WriteString("table.remove(t) ")
		case 10:
			fmt.Fprintf(&b, "table.remove(t, %d) ", 1+r.Intn(5))
		case 11:
			fmt.Fprintf(&b, "for i = 1, %d do t[i] = %s end ", r.Intn(40), v)
		}
	}
	if r.Intn(2) == 0 {
		b.WriteString("local a = {} for i = 1, #t do a[i] = t[i] end ")
		switch r.Intn(15) {
		case 13:
			b.WriteString("for i = 1, #a do a[i] = tostring(a[i]) end table.sort(a, function(x, y) return x > y end) ")
		case 14:
			b.WriteString("local w = {} for i = 1, #a do w[i] = {s = tostring(a[i])} end table.sort(w, function(x, y) return x.s <= y.s end) for i = 1, #w do a[i] = w[i].s end ")
		case 10:
			b.WriteString("local w = {} for i = 1, #a do w[i] = {score = a[i]} end table.sort(w, function(x, y) return x.score > y.score end) for i = 1, #w do a[i] = w[i].score end ")
		case 11:
			b.WriteString("local w = {} for i = 1, #a do w[i] = {a[i]} end table.sort(w, function(x, y) return x[1] <= y[1] end) for i = 1, #w do a[i] = w[i][1] end ")
		case 12:
			// Some elements without the field: their __index answers, or
			// nil (an error comparing it), or they are not tables.
			b.WriteString("local mt = {__index = function(t, k) return -1 end} local w = {} for i = 1, #a do if i % 3 == 0 then w[i] = setmetatable({}, mt) elseif i % 7 == 0 then w[i] = {} elseif i % 11 == 0 then w[i] = 'str' else w[i] = {n = a[i]} end end table.sort(w, function(x, y) return x.n < y.n end) for i = 1, #w do a[i] = type(w[i]) == 'table' and tostring(w[i].n) or w[i] end ")
		case 6:
			b.WriteString("table.sort(a, function(x, y) return x < y end) ")
		case 7:
			b.WriteString("table.sort(a, function(x, y) return y >= x end) ")
		case 8:
			b.WriteString("table.sort(a, function(x, y) return x <= y end) ")
		case 9:
			b.WriteString("table.sort(a, function(x, y) return y < x end) ")
		case 0:
			b.WriteString("table.sort(a) ")
		case 1:
			b.WriteString("table.sort(a, function(x, y) return x > y end) ")
		case 2:
			b.WriteString("table.sort(a, function(x, y) return true end) ")
		case 3:
			b.WriteString("table.sort(a, function(x, y) if x == y then error('same ' .. tostring(x)) end return x < y end) ")
		case 4:
			b.WriteString("local c = 0 table.sort(a, function(x, y) c = c + 1 return tostring(x) < tostring(y) end) a[#a + 1] = c ")
		case 5:
			b.WriteString("table.sort(a, function(x, y, z) return z == nil and x < y end) ")
		}
		b.WriteString("t.sorted = table.concat(a, ',') ")
	}
	b.WriteString("end) ")
	b.WriteString("local r = {#t, tostring(err)} for k, v in pairs(t) do r[#r + 1] = tostring(k) .. '=' .. tostring(v) end return r")
	return b.String()
}

// mgetHost is fakeHost with MGET, for array replies of any length with
// nulls in them.
type mgetHost struct{ *fakeHost }

func (h mgetHost) Call(args [][]byte, readOnly bool, w *resp.Writer) bool {
	if !strings.EqualFold(string(args[0]), "mget") || len(args) < 2 {
		return h.fakeHost.Call(args, readOnly, w)
	}
	w.Array(len(args) - 1)
	for _, k := range args[1:] {
		if v, ok := h.m[string(k)]; ok {
			w.BulkString(v)
		} else {
			w.Null()
		}
	}
	return false
}

// Array replies turned into tables (seam.SequenceTable sizes them at
// once) have the layout of Redis's, built one lua_rawseti at a time:
// borders, next's order and the layout's later growth, with RESP2 nulls
// (false) and RESP3 nulls (nil, which breaks the sequence) at random
// places, against redis-server.
func TestArrayReplyTablesAgainstRedis(t *testing.T) {
	r := rand.New(rand.NewSource(seed(t) + 2))
	rc := dialRedis(t)
	e := newTestEngine(t, Config{})
	var all []string
	for i := 1; i <= 80; i++ {
		all = append(all, fmt.Sprintf("'s%d'", i))
	}
	for n := range 400 {
		var b strings.Builder
		fmt.Fprintf(&b, "redis.call('DEL', %s) ", strings.Join(all, ", "))
		for i := range all {
			if r.Intn(4) != 0 {
				fmt.Fprintf(&b, "redis.call('SET', %s, 'v%d') ", all[i], i)
			}
		}
		if r.Intn(2) == 0 {
			b.WriteString("redis.setresp(3) ")
		}
		keys := make([]string, r.Intn(75))
		for i := range keys {
			keys[i] = all[r.Intn(len(all))]
		}
		if len(keys) == 0 {
			keys = append(keys, all[0])
		}
		fmt.Fprintf(&b, "local t = redis.call('MGET', %s) ", strings.Join(keys, ", "))
		for i, m := 0, r.Intn(6); i < m; i++ {
			switch r.Intn(4) {
			case 0:
				b.WriteString("t[#t + 1] = 'x' ")
			case 1:
				fmt.Fprintf(&b, "t['f%d'] = 1 ", r.Intn(5))
			case 2:
				fmt.Fprintf(&b, "t[%d] = nil ", 1+r.Intn(80))
			case 3:
				fmt.Fprintf(&b, "t[%d] = 'y' ", 1+r.Intn(140))
			}
		}
		b.WriteString("local r = {#t} for k, v in pairs(t) do r[#r + 1] = tostring(k) .. '=' .. tostring(v) end return r")
		s := b.String()
		want := rc.do(t, "EVAL", s, "0")
		got := evalReply(e, mgetHost{newFakeHost()}, 2, s, "0")
		if got != want {
			t.Fatalf("script %d: %s\nredis    %q\nminilock %q", n, s, trunc(want), trunc(got))
		}
	}
}

// Long string keys against redis-server: Redis's Lua hashes every byte of
// a string (its lstring.c has step 1), where stock Lua 5.1 samples one
// longer than 32 bytes in steps, so keys that differ only where stock Lua
// does not look, and long keys generally, land in Redis's nodes only with
// Redis's hash. The order pairs, cjson.encode and cmsgpack.pack give them
// shows it.
func TestLongStringKeysAgainstRedis(t *testing.T) {
	r := rand.New(rand.NewSource(seed(t) + 3))
	var scripts []string
	for range 300 {
		n := 2 + r.Intn(20)
		prefix := strings.Repeat(string(rune('a'+r.Intn(26))), r.Intn(64))
		var b strings.Builder
		b.WriteString("local t = {} ")
		for i := range n {
			key := make([]byte, r.Intn(200))
			for j := range key {
				key[j] = byte('a' + r.Intn(26))
			}
			fmt.Fprintf(&b, "t['%s%s'] = %d ", prefix, key, i)
		}
		switch r.Intn(3) {
		case 0:
			b.WriteString("local o = {} for k, v in pairs(t) do o[#o + 1] = v end return o")
		case 1:
			b.WriteString("return cjson.encode(t)")
		default:
			b.WriteString("return cmsgpack.pack(t)")
		}
		scripts = append(scripts, b.String())
	}
	diffTimed(t, scripts)
}

// The tables the seam makes at once (a constructor's small hash part,
// cjson's and cmsgpack's objects: seam.HashTable) and one grown key by key,
// written every way a script can write a table (new keys, nil, rawset,
// table.insert/remove, __newindex, inside a coroutine, rehashes) and then
// walked: pairs order, borders and errors byte for byte as redis-server's.
func TestMadeTablesThroughEveryWriter(t *testing.T) {
	r := rand.New(rand.NewSource(seed(t) + 2))
	names := []string{"a", "b", "k1", "10", "", "id", "name", "x1", "x2", "x3"}
	for i := 1; i <= 24; i++ {
		names = append(names, fmt.Sprintf("s%d", i))
	}
	fields := func() []string {
		p := r.Perm(len(names))[:1+r.Intn(8)]
		f := make([]string, len(p))
		for i, j := range p {
			f[i] = names[j]
		}
		return f
	}
	start := func() string {
		f := fields()
		var lua, json []string
		for i, k := range f {
			lua = append(lua, fmt.Sprintf("[%q] = %d", k, i))
			json = append(json, fmt.Sprintf(`\"%s\":%d`, k, i))
		}
		switch r.Intn(4) {
		case 3: // grown key by key from no hash part
			return "{}"
		case 0: // OP_NEWTABLE with a hash part of up to 8 nodes
			return "{" + strings.Join(lua, ", ") + "}"
		case 1:
			return `cjson.decode("{` + strings.Join(json, ",") + `}")`
		default:
			return "cmsgpack.unpack(cmsgpack.pack({" + strings.Join(lua, ", ") + "}))"
		}
	}
	scripts := []string{
		`local t = cjson.decode('{"a":1,"b":2}') rawset(t, 'c', 3) rawset(t, 1, 'x') local r = {} for k, v in pairs(t) do r[#r + 1] = tostring(k) .. '=' .. tostring(v) end return r`,
		`local t = cmsgpack.unpack(cmsgpack.pack({a = 1, b = 2})) local co = coroutine.wrap(function() t.c = 3 t.a = nil coroutine.yield() t[1] = 'x' table.insert(t, 'y') end) co() co() local r = {} for k, v in pairs(t) do r[#r + 1] = tostring(k) .. '=' .. tostring(v) end return r`,
		`local t = {p = 1, q = 2} local log = {} setmetatable(t, {__newindex = function(t, k, v) log[#log + 1] = k rawset(t, k, v) end}) t.z = 1 t.p = 5 for i = 1, 20 do t['n' .. i] = i end return {cjson.encode(log), #t, t.z, t.p, t.n20}`,
		`local t = cjson.decode('{"a":1}') for i = 1, 100 do t['k' .. i] = i end for i = 1, 100, 3 do t['k' .. i] = nil end local n = 0 for k in pairs(t) do n = n + 1 end return {n, next(t) ~= nil and 1 or 0, cjson.encode({t.k2, t.k4, t.a})}`,
	}
	for range 600 {
		scripts = append(scripts, genTableOpsScriptFrom(r, start()))
	}
	diffTimed(t, scripts)
}

// The library tables (and a cjson.new() module, written to) are walked in
// Redis's order: filled in their C sources' order (lua_cjson.c,
// lua_cmsgpack.c, the luaL_Reg arrays of Lua 5.1's libraries, lua_bit.c,
// lua_struct.c, script_lua.c's redis table, and the globals' history in
// Redis 7.0) as lua_setfield fills them.
func TestLibraryTablesOrderAgainstRedis(t *testing.T) {
	walk := func(m string) string {
		return "local r = {} for k in pairs(" + m + ") do r[#r + 1] = k end return r"
	}
	diffTimed(t, []string{
		walk("cjson"),
		walk("cmsgpack"),
		walk("cjson.new()"),
		walk("string"),
		walk("table"),
		walk("math"),
		walk("coroutine"),
		walk("bit"),
		walk("struct"),
		walk("redis"),
		walk("getmetatable('').__index"),
		// The globals: luaopen_base, the libraries, redis, the error
		// handler, KEYS and ARGV, with the dead nodes of the names the
		// allow list refused and of debug.
		walk("_G"),
		"local r = {} for k, v in pairs(_G) do r[#r + 1] = k .. '=' .. type(v) end return r",
		// A copy of each, written to after: its order follows the walk's.
		"local r = {} for _, m in ipairs({string, table, math, coroutine, bit, struct, redis, _G}) do " +
			"local c = {} for k, v in pairs(m) do c[k] = v end c.x = 1 c.sub = nil c.pi = nil c.call = nil c[1] = 2 c.y = 3 " +
			"for k in pairs(c) do r[#r + 1] = tostring(k) end end return r",
		"return cmsgpack.pack(math, bit, struct)",
		"local m = cjson.new() m.x = 1 m.encode = nil m[1] = 2 local r = {} for k in pairs(m) do r[#r + 1] = tostring(k) end return r",
		"return cmsgpack.pack(cjson, cmsgpack, cjson.new())",
		"return {pcall(cjson.encode, cmsgpack)}",
	})
}
