package luaeval

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// cjsonScripts are the cjson behaviours issue 22 is about: nesting bounded
// by the Lua stack whatever the depth options say (the process used to
// die of a Go stack overflow on the first three), at several call depths of
// the calling script; the option functions' argument checks; the
// invalid-number modes.
var cjsonScripts = []string{
	"cjson.encode_max_depth(2^31-1) local t={} t[1]=t return cjson.encode(t)",
	"cjson.decode_max_depth(2^31-1) return cjson.decode(string.rep('[', 5000000))",
	"cjson.encode_max_depth(100000) local t={} t.a=t return cjson.encode(t)",
	"cjson.decode_max_depth(100000) return cjson.decode(string.rep('{\"a\":', 100000))",
	"cjson.decode_max_depth(100000) return {pcall(cjson.decode, string.rep('[{\"a\":', 100000))}",
	"cjson.encode_max_depth(100000) local t={} local c=t for i=1,5000 do local n={} c[1]={a=n} c=n end return {pcall(cjson.encode, t)}",
	// The bound counts the slots of cjson's own C function, so where the
	// script calls it from does not change it.
	"local t={} t[1]=t cjson.encode_max_depth(100000) local function f(n) if n==0 then return cjson.encode(t) end local a,b,c,d,e=1,2,3,4,5 return (f(n-1)) end return f(5000)",
	"local t={} t[1]=t cjson.encode_max_depth(100000) local function f(n) if n==0 then return cjson.encode(t) end return (f(n-1)) end return f(150)",
	"local t={} t[1]=t cjson.encode_max_depth(100000) local co=coroutine.create(function() return cjson.encode(t) end) return {coroutine.resume(co)}",
	"local t={} t[1]=t cjson.encode_max_depth(100000) local m=setmetatable({},{__index=function() return cjson.encode(t) end}) return m.x",
	"local t={} t[1]=t cjson.encode_max_depth(100000) return {pcall(cjson.encode, t)}",
	"cjson.decode_max_depth(100000) local s=string.rep('[', 100000) local function f(n) if n==0 then return cjson.decode(s) end return (f(n-1)) end return f(5000)",
	"cjson.decode_max_depth(100000) return {pcall(cjson.decode, string.rep('[', 100000))}",
	"cjson.decode_max_depth(100000) return {xpcall(function() return cjson.decode(string.rep('[', 100000)) end, function(e) return 'h:' .. e end)}",
	"cjson.decode_max_depth(7998) return {pcall(cjson.decode, string.rep('[', 7998) .. string.rep(']', 7998))}",
	"cjson.decode_max_depth(7999) return #cjson.encode(cjson.decode(string.rep('[', 7998) .. '1' .. string.rep(']', 7998)))",
	"cjson.encode_max_depth(8000) cjson.decode_max_depth(8000) return #cjson.encode(cjson.decode(string.rep('[', 7997) .. '1' .. string.rep(']', 7997)))",
	"local t={} t[1]=t return cjson.encode(t)",
	"return cjson.decode(string.rep('[', 100000))",
	// Invalid numbers.
	"cjson.encode_invalid_numbers(true) return cjson.encode({0/0, 1/0, -1/0, -(0/0)})",
	"cjson.encode_invalid_numbers('null') return cjson.encode({0/0, 1/0, -1/0})",
	"cjson.encode_number_precision(3) cjson.encode_invalid_numbers(true) return cjson.encode({1/0,-1/0, 0/0, -(0/0)})",
	"cjson.encode_invalid_numbers(1==1) return cjson.encode({[1/0]=1})",
	"cjson.encode_invalid_numbers('null') return cjson.encode({[1/0]=1})",
	"return cjson.encode({[1/0]=1})",
	"cjson.decode_invalid_numbers(false) return cjson.decode('[NaN]')",
	"cjson.decode_invalid_numbers('off') return cjson.decode('[0x10]')",
	"return cjson.encode(cjson.decode('[NaN, inf, -Infinity, 0x10, +5]'))",
	"return cjson.decode('[NaN, inf, -Infinity, 0x10, +5, 1e999]')",
	// Sparse arrays and lua_array_length's C int.
	"return cjson.encode({[2^31]=1, [1]=2})",
	"local t={} t[1]=1 t[2^31]=2 return cjson.encode(t)",
	"local t={} t[2^33]=2 t[1]=1 t[2]=1 return cjson.encode(t)",
	"return cjson.encode({[0]=1})",
	"cjson.encode_sparse_array(false, 1073741824, 0) local t={} t[1]=1 t[5]=2 t[20]=3 return cjson.encode(t)",
	"cjson.encode_sparse_array(false, 1073741824, 0) return cjson.encode({1, 2})",
	"cjson.encode_sparse_array(false, 2147483647) local t={} t[1]=1 t[5]=2 t[20]=3 return cjson.encode(t)",
	// A refused option keeps the ones set before it.
	"pcall(cjson.encode_sparse_array, true, -1) return {cjson.encode_sparse_array()}",
	// NULs: the UTF-16/32 check, then C's end of string.
	"return cjson.decode('1\\0')",
	"return cjson.decode(' \\0')",
	"return cjson.decode('\\0')",
	"return cjson.decode('[1] \\0 x')",
	"return {pcall(cjson.decode, '1\\0')}",
	// cjson.new: another module, writable, with its own configuration.
	"local c = cjson.new() c.encode_max_depth(1) return {cjson.encode_max_depth(), c.encode_max_depth(), c == cjson and 1 or 0, c.null == cjson.null and 1 or 0, c._NAME, c._VERSION}",
	"local c = cjson.new() c.x = 1 return c.x",
	"local c = cjson.new() local d = c.new() d.encode_max_depth(2) return {c.encode_max_depth(), d.encode_max_depth()}",
	"local n = 0 for k in pairs(cjson.new()) do n = n + 1 end return n",
	"local c = cjson.new() c.encode_max_depth(2^31-1) local t = {} t[1] = t return c.encode(t)",
	"return cjson.new(1)",
	"for i = 1, 100000 do cjson.new() end return 1",
	// luaL_error's position: none when pcall calls cjson directly.
	"return {pcall(cjson.decode, '[')}",
	"return {pcall(cjson.encode, function() end)}",
	"return {pcall(cjson.encode)}",
	"return {pcall(cjson.encode, {[true]=1})}",
}

// cjsonOptionScripts generates calls of the option functions with
// arguments of every kind, directly and through pcall, each followed by a
// read of the setting.
func cjsonOptionScripts(r *rand.Rand, n int) []string {
	funcs := []string{"encode_max_depth", "decode_max_depth", "encode_number_precision", "encode_keep_buffer",
		"encode_invalid_numbers", "decode_invalid_numbers", "encode_sparse_array"}
	args := []string{"nil", "true", "false", "0", "1", "-1", "3", "14", "15", "3.7", "-0.5", "2^31", "2^31-1", "2^32+5",
		"2^63", "0/0", "1e300", "'7'", "' 9 '", "'0x10'", "'on'", "'off'", "'null'", "'both'", "'x'", "'on\\0'", "{}", "print"}
	var out []string
	for i := 0; i < n; i++ {
		f := funcs[r.Intn(len(funcs))]
		var a []string
		for k := r.Intn(5); k > 0; k-- {
			a = append(a, args[r.Intn(len(args))])
		}
		call := "cjson." + f + "(" + strings.Join(a, ", ") + ")"
		if r.Intn(2) == 0 {
			call = "pcall(cjson." + f + ", " + strings.Join(append(a, "nil"), ", ") + ")"
			if len(a) == 0 {
				call = "pcall(cjson." + f + ")"
			}
		}
		out = append(out, fmt.Sprintf("local r = {%s} r[#r+1] = cjson.encode({cjson.%s()}) return r", call, f))
	}
	return out
}

// TestCjsonAgainstRedis runs each script on a fresh Lua state of a live
// redis-server (SCRIPT FLUSH before each: Redis keeps cjson's options for
// the life of its Lua state, minilock resets them before each script, a
// README difference) and on minilock, and compares the replies.
func TestCjsonAgainstRedis(t *testing.T) {
	scripts := append(append([]string(nil), cjsonScripts...), cjsonOptionScripts(rand.New(rand.NewSource(seed(t))), 400)...)
	rc := dialRedis(t)
	e := newTestEngine(t, Config{})
	bad := 0
	for _, s := range scripts {
		rc.do(t, "SCRIPT", "FLUSH")
		want := rc.do(t, "EVAL", s, "0")
		got := evalReply(e, newFakeHost(), 2, s, "0")
		if got != want {
			t.Errorf("EVAL %q\nredis    %q\nminilock %q", s, trunc(want), trunc(got))
			if bad++; bad == 10 {
				t.Fatal("stopping after 10 differences")
			}
		}
	}
}

// jsonGen generates JSON documents shaped to take every path of the
// decoder's table building: objects whose keys collide in Lua's hash
// (short keys from a small alphabet), repeat (a duplicate is read key by
// key), need escapes, or are long; arrays of every small size; strings
// with and without escapes, short (interned) and long; numbers of every
// spelling (the parser's plain integers and the tokenizer's others);
// nesting; and now and then a document cut short or broken.
type jsonGen struct{ r *rand.Rand }

func (g jsonGen) key() string {
	switch g.r.Intn(12) {
	case 0:
		return `"k\"` + string(rune('a'+g.r.Intn(3))) + `"`
	case 1:
		return `"\u00` + string("4567"[g.r.Intn(4)]) + string("123"[g.r.Intn(3)]) + `"`
	case 2:
		// Long, but within the 32 bytes whose hash seam's tables
		// compute as Redis's Lua does (Redis hashes every byte of a
		// longer string, seam one in two: a difference of the tables',
		// reported, not of the decoder's).
		return `"` + strings.Repeat("long", 5+g.r.Intn(3)) + string(rune('a'+g.r.Intn(3))) + `"`
	case 3:
		return `"` + fmt.Sprint(g.r.Intn(20)) + `"`
	case 4:
		return `""`
	}
	b := make([]byte, 1+g.r.Intn(3))
	for i := range b {
		b[i] = "abcdefgh_"[g.r.Intn(9)]
	}
	return `"` + string(b) + `"`
}

func (g jsonGen) str() string {
	switch g.r.Intn(8) {
	case 0:
		return `"a\nb\t\"c\\d\/e\u00e9\ud83d\ude00"`
	case 1:
		return `"` + strings.Repeat("x", 20+g.r.Intn(40)) + `"`
	case 2:
		return `""`
	}
	return `"` + []string{"email", "42", "a@b.c", "x", "y", "to", "é"}[g.r.Intn(7)] + `"`
}

func (g jsonGen) num() string {
	if g.r.Intn(6) == 0 {
		// Where the parser's plain integers end and strtod's spellings
		// begin: 15 and 16 digits, leading zeros, hex, a fraction or
		// exponent after the digits, signs and words.
		return []string{"123456789012345", "-999999999999999", "1234567890123456", "012", "-0012", "0x1F", "-0x10",
			"00", "7.", "5e+2", "1E", "1e", "-", "+1", "-inf", "Infinity", "nan", "1.5e", "9007199254740993", "-0.0"}[g.r.Intn(20)]
	}
	return []string{"0", "-0", "1", "3", "-7", "1.5", "1e3", "2E-2", "123456789012345678", "0.1", "-1.25e10", "1e400", "3.14159265358979"}[g.r.Intn(13)]
}

func (g jsonGen) ws() string { return []string{"", "", "", " ", "\n", " \t "}[g.r.Intn(6)] }

func (g jsonGen) value(depth int) string {
	k := g.r.Intn(10)
	if depth > 3 {
		k = 4 + g.r.Intn(6)
	}
	switch k {
	case 0, 1, 2:
		return g.object(depth + 1)
	case 3:
		return g.array(depth + 1)
	case 4, 5:
		return g.str()
	case 6, 7:
		return g.num()
	}
	return []string{"true", "false", "null"}[g.r.Intn(3)]
}

func (g jsonGen) object(depth int) string {
	n := g.r.Intn(10)
	if g.r.Intn(8) == 0 {
		n = g.r.Intn(70)
	}
	parts := make([]string, n)
	for i := range parts {
		parts[i] = g.ws() + g.key() + g.ws() + ":" + g.ws() + g.value(depth)
	}
	return "{" + strings.Join(parts, ",") + g.ws() + "}"
}

func (g jsonGen) array(depth int) string {
	n := g.r.Intn(10)
	if g.r.Intn(8) == 0 {
		n = g.r.Intn(40)
	}
	parts := make([]string, n)
	for i := range parts {
		parts[i] = g.ws() + g.value(depth)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

func (g jsonGen) doc() string {
	d := g.object(0)
	if g.r.Intn(4) == 0 {
		d = g.value(0)
	}
	switch g.r.Intn(25) {
	case 0:
		d = d[:g.r.Intn(len(d)+1)] // cut short
	case 1:
		i := g.r.Intn(len(d) + 1)
		d = d[:i] + []string{",", ":", "}", "]", "\"", "x", "\\"}[g.r.Intn(7)] + d[i:]
	}
	return d
}

// cjsonDocScripts are what each generated document goes through: a round
// trip (encode writes keys in next's order, so the decoded tables' layout
// must be Lua's), the keys as pairs walks them, and keys added after the
// decode (the chains and free node of the layout must be Lua's too).
var cjsonDocScripts = []string{
	`return cjson.encode(cjson.decode(ARGV[1]))`,
	`local t = cjson.decode(ARGV[1]) if type(t) ~= 'table' then return {type(t)} end
local r = {} for k, v in pairs(t) do r[#r+1] = k r[#r+1] = type(v) end return r`,
	`local t = cjson.decode(ARGV[1]) if type(t) == 'table' then for i = 1, 12 do t['n' .. i] = i t[ARGV[2] .. i] = true end end
return cjson.encode(t)`,
	`local ok, e = pcall(cjson.decode, ARGV[1]) if ok then return cjson.encode({e, e}) end return e`,
}

// TestCjsonDocumentsAgainstRedis decodes and re-encodes thousands of
// generated documents on redis-server and on minilock.
func TestCjsonDocumentsAgainstRedis(t *testing.T) {
	g := jsonGen{rand.New(rand.NewSource(seed(t)))}
	rc := dialRedis(t)
	e := newTestEngine(t, Config{})
	// Around lauxlib.MaxAtOnce, past which tables are filled one by one.
	var big []string
	for _, n := range []int{4095, 4096, 4097, 9000} {
		var a, o []string
		for i := 0; i < n; i++ {
			a = append(a, fmt.Sprint(i%7))
			o = append(o, fmt.Sprintf(`"k%d":%d`, i, i%5))
		}
		big = append(big, "["+strings.Join(a, ",")+"]", "{"+strings.Join(o, ",")+"}")
	}
	bad := 0
	for i := 0; i < 3000+len(big); i++ {
		s := cjsonDocScripts[i%len(cjsonDocScripts)]
		var doc string
		if i < len(big) {
			doc, s = big[i], cjsonDocScripts[0]
		} else {
			doc = g.doc()
		}
		want := rc.do(t, "EVAL", s, "0", doc, "x")
		got := evalReply(e, newFakeHost(), 2, s, "0", doc, "x")
		if got != want {
			t.Errorf("EVAL %q on %q\nredis    %q\nminilock %q", s, trunc(doc), trunc(want), trunc(got))
			if bad++; bad == 10 {
				t.Fatal("stopping after 10 differences")
			}
		}
	}
}
