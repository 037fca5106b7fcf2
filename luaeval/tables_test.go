package luaeval

import (
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Lua 5.1's tables (luaeval/internal/seam/table.go) against redis-server:
// constructors of every size, sparse keys up to 2^53, borders with holes,
// pushes and pops, the order of next, the table library. Every script's
// reply must be Redis's byte for byte, and no script may take more than
// slowFactor times Redis's time (with a floor, so that round trips do not
// count; not under -race, which slows minilock alone).
func TestTablesLua51AgainstRedis(t *testing.T) {
	var scripts []string
	for _, n := range []int{0, 1, 49, 50, 51, 511, 25550, 25551, 30000, 100000} {
		items := make([]string, n)
		for i := range items {
			items[i] = strconv.Itoa(i + 1)
		}
		list := strings.Join(items, ",")
		scripts = append(scripts,
			"return #{"+list+"}",
			"local t = {"+list+"} return {#t, t[#t], select('#', unpack(t, 1, 100))}",
			"local t = {"+list+", n = 1, [0] = 0} local c = 0 for k in pairs(t) do c = c + 1 end return {#t, c}",
			"local function f(...) return {...} end local t = f("+list+") return #t",
		)
	}
	scripts = append(scripts,
		"local t = {} t[60000000] = 1 return {#t, t[60000000], next(t)}",
		"local t = {} t[2^53] = 1 t[2^53 - 1] = 2 t[2^31] = 3 t[2^31 - 1] = 4 t[2^26] = 5 t[2^26 + 1] = 6 local r = {} for k, v in pairs(t) do r[#r + 1] = string.format('%.0f', k) end return r",
		"local t = {} for i = 1, 50000 do t[#t + 1] = i end for i = 1, 50000 do t[#t] = nil end return #t",
		"local t = {} for i = 1, 50000 do table.insert(t, i) end local s = 0 for i = 1, 50000 do s = s + table.remove(t) end return {#t, s}",
		"local t = setmetatable({}, {__len = function() return 5 end}) return #t",
		"local t = {} for i = 1, 30 do t[2^i] = i end return #t",
		"local t = {} for i = 1, 31 do t[i] = i end for i = 33, 64 do t[i] = i end return #t",
		"local t = {1, 2, nil, 4} return #t",
		"local t = {nil, nil, 3} return #t",
		"local t = {1, 2, 3, nil, 5, nil, nil, 8} return #t",
		"local t = {} for i = 1, 10 do t[i] = i end t[8] = nil return #t",
		"local t = {} t[1] = 1 t[2] = 2 t[4] = 4 return #t",
		"local t = {} for i = 1, 1000 do t[i] = i end for i = 1, 1000, 3 do t[i] = nil end return #t",
		"local t = {n = 1} for i = 1, 17 do t[i] = i end t[17] = nil t[16] = nil return #t",
		"local t = {} for i = 100, 1, -1 do t[i] = i end return #t",
		"local t = {} local ok, e = pcall(function() t[0/0] = 1 end) return e",
		"local t = {} local ok, e = pcall(function() t[nil] = 1 end) return e",
		"local t = {} local ok, e = pcall(rawset, t, nil, 1) return e",
		"local t = {a = 1} local ok, e = pcall(next, t, 'zz') return e",
		"local t = {} for i = 1, 100 do t[i] = i end local ok, e = pcall(table.sort, t, function(a, b) return true end) return e",
		"local t = {3, 1, 2} table.sort(t, function(a, b) return true end) return t",
		"local t = {5, 3, 8, 1, 9, 2} table.sort(t) return t",
		"local t = {'b', 'a', 'c'} table.sort(t, function(a, b) return a > b end) return t",
		"local ok, e = pcall(table.sort, {1, 'x', 2}) return e",
		"return table.insert({}, 1, 2, 3)",
		"return table.concat({1, 2, {}})",
		"return {pcall(table.concat, {1, 2, {}})}",
		"return {pcall(table.setn, {}, 1)}",
		"return {pcall(table.insert, nil, 1)}",
		"return {pcall(table.getn, 1)}",
		"return table.maxn({1, 2, [10] = 3, [2.5] = 1, [-5] = 1})",
		"local t = {1, 2, 3} table.insert(t, 1, 0) table.insert(t, 10, 10) return {#t, t[1], t[4], t[10]}",
		"local t = {1, 2, 3} return {table.remove(t, 1), table.remove(t, 5), #t, t[1]}",
		"return table.concat({1, 2.5, 'x', 1e15}, '-', 2, 4)",
		"return table.concat({}, 'x', 3, 1)",
		"local r = {} for i, v in ipairs({1, 2, nil, 4}) do r[#r + 1] = v end return r",
		"local r = {} table.foreachi({1, 2, 3}, function(i, v) r[#r + 1] = v * 2 end) return r",
		"local t = {a = 1, b = 2, c = 3, d = 4, e = 5, [1] = 1, [3] = 3, x = true} local r = {} for k in pairs(t) do r[#r + 1] = tostring(k) end return r",
		"local t = {} for i = 1, 20 do t['k' .. i] = i end t.k3 = nil t.k7 = nil t.zz = 1 local r = {} for k in pairs(t) do r[#r + 1] = k end return r",
		"local t = {} for i = 1, 20 do t['k' .. i] = i end for k in pairs(t) do t[k] = nil end t.x = 1 return next(t)",
		"return cjson.encode({[1] = 1, [2] = 2, [4] = 4})",
		"return cjson.encode({a = 1, b = 2, c = 3, dd = 4, e = {1, 2}})",
		"return cjson.encode({[1] = 1, [2] = 2, [30] = 4})",
		"local t = cjson.decode('[1,2,3]') t[5] = 5 return {#t, cjson.encode(t)}",
		"local t = {} t[1.5] = 1 t[true] = 2 t[false] = 3 t[-0] = 4 local r = {} for k, v in pairs(t) do r[#r + 1] = tostring(k) end return r",
		"local p = setmetatable({}, {__index = {[5] = 'five'}}) return p[5]",
		"local log = {} local p = setmetatable({}, {__newindex = function(t, k, v) log[#log + 1] = k rawset(t, k, v) end}) p[1] = 1 p[1] = 2 p[100] = 3 return {log[1], log[2], p[100], #log}",
		"KEYS[1000000] = 1 return #KEYS",
		"local base = {[1]='a', [100]='b', x='c'} local t = setmetatable({}, {__index = base}) return {t[1], t[100], t.x, t[2]}",
		"local t = setmetatable({}, {__index = function(t, k) return k * 2 end}) return {t[5], t[2^40]}",
		"local store = {} local t = setmetatable({}, {__newindex = store}) t[1] = 'a' t[1000] = 'b' return {rawget(t, 1) == nil, store[1], store[1000]}",
		"local t = {} t['10'] = 'str' t[10] = 'num' return {t['10'], t[10]}",
		"local t = {} t[-0] = 1 return {t[0], next(t)}",
		"local t = {} t[2^63] = 1 t[-2^63] = 2 t[1e300] = 3 t[-1e300] = 4 local c = 0 for k in pairs(t) do c = c + 1 end return c",
		"local t = {1, 2, 3, 4, 5} t[3] = nil table.insert(t, 2, 'x') local r = {} for i = 1, 7 do r[i] = tostring(t[i]) end return r",
		"local t = {1, 2, 3, 4, 5} t[3] = nil return {table.remove(t, 1), tostring(t[2]), #t}",
		"math.randomseed(7) local t = {} for i = 1, 2000 do t[i] = math.random(1000) end table.sort(t) local ok = true for i = 2, 2000 do if t[i-1] > t[i] then ok = false end end return {ok, t[1], t[2000]}",
		"math.randomseed(7) local t = {} for i = 1, 300 do t[i] = tostring(math.random(1000)) end table.sort(t, function(a, b) return a > b end) return table.concat(t, ',', 1, 10)",
		"local t = {} for i = 1, 64 do t[i] = i end for i = 1, 64 do t[i] = nil end t.x = 1 return {#t, next(t)}",
		"local t = {} for i = 1, 100 do t['k'..i] = i end for i = 1, 100, 2 do t['k'..i] = nil end for i = 1, 40 do t['n'..i] = i end local r = {} for k in pairs(t) do r[#r+1] = k end return table.concat(r, ',')",
		"local t = {} for i = 1, 100 do t[i] = i end for i = 1, 100, 2 do t[i] = nil end for i = 200, 260 do t[i] = i end local r = {} for k in pairs(t) do r[#r+1] = k end return table.concat(r, ',')",
		"local t = {10, 20, 30, nil, 50} local r = {} for k, v in pairs(t) do r[#r+1] = k..'='..v end return r",
		"local t = {n = 1, 1, 2, [3] = 3, [5] = 5, m = 2} local r = {} for k, v in pairs(t) do r[#r+1] = tostring(k) end return {#t, table.concat(r, ' ')}",
		"return {unpack({1, 2, nil, 4})}",
		"return select('#', unpack({1, 2, nil, 4}))",
		"local t = {} t[1] = 1 t[2] = nil t[3] = 3 return {#t, select('#', unpack(t))}",
		"return table.getn({1, 2, nil, [4] = 4})",
		"local t = {} for i = 1, 20 do t[i] = i end for i = 10, 20 do t[i] = nil end collectgarbage() return #t",
		"local t = {1,2,3} local ok, e = pcall(ipairs) return e",
		"local ok, e = pcall(table.insert, {}, 'x', 1) return e",
		"local ok, e = pcall(table.concat, {}, {}) return e",
		"local ok, e = pcall(table.remove, {}, 'x') return e",
		"return table.concat({1, 2, 3}, ', ', 2)",
		"local t = {} for i = 1, 10 do t[#t + 1] = i * i end return t",
		"local t = {'a', 'b'} local r = {} for i, v in ipairs(t) do r[#r + 1] = i .. v end return r",
		"return {#KEYS, #ARGV}",
	)
	r := rand.New(rand.NewSource(seed(t)))
	for range 600 {
		scripts = append(scripts, genTableScript(r))
	}
	diffTimed(t, scripts)
}

// slowFactor is the most minilock may take, as a multiple of Redis's time
// (or of slowFloor, when Redis takes less).
const (
	slowFactor = 1000 // the 50x target is logged; a loaded machine must not fail it, a quadratic case would
	slowFloor  = 2 * time.Millisecond
)

func diffTimed(t *testing.T, scripts []string) {
	t.Helper()
	rc := dialRedis(t)
	e := newTestEngine(t, Config{})
	timed := !raceBuild()
	bad := 0
	var worst float64
	var worstScript string
	for _, s := range scripts {
		t0 := time.Now()
		want := rc.do(t, "EVAL", s, "0")
		rd := time.Since(t0)
		t1 := time.Now()
		got := evalReply(e, newFakeHost(), 2, s, "0")
		md := time.Since(t1)
		if got != want {
			t.Errorf("EVAL %q\nredis    %q\nminilock %q", trunc(s), trunc(want), trunc(got))
			if bad++; bad == 10 {
				t.Fatal("stopping after 10 differences")
			}
		}
		ratio := float64(md) / float64(max(rd, slowFloor))
		if ratio > worst {
			worst, worstScript = ratio, s
		}
		if timed && ratio > slowFactor {
			t.Errorf("EVAL %q: minilock %v, redis %v", trunc(s), md, rd)
		}
	}
	t.Logf("%d scripts; slowest against Redis (floor %v): x%.1f for %q", len(scripts), slowFloor, worst, trunc(worstScript))
}

// genTableScript makes a table from a random constructor, applies random
// writes (sets, deletions, pushes, pops, inserts, removes) and returns its
// border and every pair in next's order.
func genTableScript(r *rand.Rand) string {
	keys := []string{"0", "-1", "1.5", "true", "false", "2^53", "2^53-1", "2^31", "2^26", "2^26+1", "1e15", "'a'", "'b'", "'key'", "'n'", "''", "'10'"}
	for i := 1; i <= 40; i++ {
		keys = append(keys, strconv.Itoa(i))
	}
	for i := 0; i < 12; i++ {
		keys = append(keys, fmt.Sprintf("'k%d'", i))
	}
	key := func() string {
		if r.Intn(3) == 0 {
			return strconv.Itoa(1 + r.Intn(70))
		}
		return keys[r.Intn(len(keys))]
	}
	val := func() string { return strconv.Itoa(r.Intn(1000)) }
	var b strings.Builder
	b.WriteString("local t = {")
	for i, n := 0, r.Intn(30); i < n; i++ {
		switch r.Intn(5) {
		case 0:
			b.WriteString("nil")
		case 1:
			b.WriteString("[" + key() + "] = " + val())
		case 2:
			b.WriteString("x" + strconv.Itoa(r.Intn(5)) + " = " + val())
		default:
			b.WriteString(val())
		}
		b.WriteString(", ")
	}
	b.WriteString("} ")
	if r.Intn(4) == 0 {
		fmt.Fprintf(&b, "for i = 1, %d do t[i] = i end ", r.Intn(300))
	}
	for i, n := 0, r.Intn(60); i < n; i++ {
		switch r.Intn(9) {
		case 0, 1, 2:
			b.WriteString("t[" + key() + "] = " + val() + " ")
		case 3, 4:
			b.WriteString("t[" + key() + "] = nil ")
		case 5:
			b.WriteString("t[#t + 1] = " + val() + " ")
		case 6:
			b.WriteString("t[#t] = nil ")
		case 7:
			fmt.Fprintf(&b, "table.insert(t, math.min(#t + 1, %d), %s) ", 1+r.Intn(10), val())
		case 8:
			b.WriteString("table.remove(t) ")
		}
	}
	b.WriteString("local r = {#t} for k, v in pairs(t) do r[#r + 1] = tostring(k) .. '=' .. tostring(v) end return r")
	return b.String()
}

// A script that spends its time inside one table-library call is stopped
// by SCRIPT KILL as promptly as one running Lua instructions: ltablib's
// loops poll the kill flag. table.insert at position -2^31+2 shifts 2^31
// elements (Redis takes minutes too); table.maxn walks a big table again
// and again.
func TestKillInsideTableLibrary(t *testing.T) {
	// Without polling inside the library, the insert shifts 2^31 slots and
	// maxn loops for ever; a kill that lands within seconds on a loaded
	// machine proves the loops poll (the latency itself is not a target).
	limit := 2 * time.Second
	if raceBuild() {
		limit = 4 * time.Second
	}
	for _, script := range []string{
		"local t = {} table.insert(t, -2^31 + 2, 1)",
		"local t = {} for i = 1, 100000 do t[i * 3] = i end while true do table.maxn(t) end",
	} {
		e := newTestEngine(t, Config{BusyThreshold: 30 * time.Millisecond})
		ch := runAsync(e, newFakeHost(), script, "0")
		select {
		case <-e.BusyChan():
		case <-time.After(5 * time.Second):
			t.Fatalf("%q: never busy", script)
		}
		time.Sleep(50 * time.Millisecond)
		start := time.Now()
		if err := e.Kill(); err != nil {
			t.Fatalf("Kill = %v", err)
		}
		got := waitReply(t, ch, 5*time.Second)
		if d := time.Since(start); d > limit || !strings.Contains(got, "Script killed by user") {
			t.Errorf("%q: %q after %v", script, got, d)
		}
	}
}
