package luaeval

import (
	"strconv"
	"strings"
	"testing"
)

// Hostile scripts: each must end with an error (or a harmless reply), and
// nothing it does may be visible to the next script.
func TestHostileScripts(t *testing.T) {
	tests := []struct {
		script string
		prefix string // expected reply prefix
	}{
		// Where Redis itself would allocate gigabytes, minilock refuses
		// with Lua's memory error (a documented difference).
		{"return string.rep('x', 1e10)", "-ERR not enough memory script: "},
		{"return string.rep('abc', 2^30)", "-ERR not enough memory script: "},
		{"return table.concat({string.rep('x', 1e6)}, string.rep('y', 2e8), 1, 2)", "-ERR "},
		{"return unpack({}, 1, 1e8)", "-ERR user_script:1: too many results to unpack script: "},
		{"return unpack({}, -2147483648, 2147483647)", "-ERR user_script:1: too many results to unpack script: "},
		{"local t = {} for i = 1, 7000 do t[i] = i end return unpack(t)", ":1\r\n"},
		{"return string.format('%99999d', 1)", "-ERR user_script:1: invalid format (width or precision too long) script: "},
		{"local function f() return f() + 1 end return f()", "-ERR user_script:1: stack overflow script: "},
		{"local t = setmetatable({}, {}) getmetatable(t).__index = function(t, k) return t[k] end return t.x", "-ERR "},
		{"local f f = function(n) return pcall(f, n) end return f(1)", ":1\r\n"},
		{"for i = 1, 100000 do collectgarbage() collectgarbage('count') end return 1", ":1\r\n"},
		{"return loadstring(string.dump(function() return 1 end))", "$-1\r\n"},
		{"return load(function() return nil end)", ""},
		{"local f = loadstring('return _G') return f() == _G", ":1\r\n"},
		{"return io.open('/etc/passwd')", "-ERR user_script:1: Script attempted to access nonexistent global variable 'io' script: "},
		{"return os.execute('true')", "-ERR user_script:1: Script attempted to access nonexistent global variable 'os' script: "},
		{"return require('os')", "-ERR user_script:1: Script attempted to access nonexistent global variable 'require' script: "},
		{"return debug.getregistry()", "-ERR user_script:1: Script attempted to access nonexistent global variable 'debug' script: "},
		{"return package.loaded", "-ERR user_script:1: Script attempted to access nonexistent global variable 'package' script: "},
		{"return getfenv(0)", "-ERR user_script:1: Script attempted to access nonexistent global variable 'getfenv' script: "},
		{"setmetatable(_G, nil)", "-ERR Attempt to modify a readonly table script: "},
		{"setmetatable('', {})", "-ERR user_script:1: bad argument #1 to 'setmetatable' (table expected, got string) script: "},
		{"rawset(getmetatable(''), '__index', {})", "-ERR Attempt to modify a readonly table script: "},
		{"rawset(getmetatable(_G), '__index', nil)", "-ERR Attempt to modify a readonly table script: "},
		{"getmetatable('').__index.upper = function() return 'pwned' end", "-ERR user_script:1: Attempt to modify a readonly table script: "},
		{"table.insert(redis, 1)", "-ERR Attempt to modify a readonly table script: "},
		{"local mt = getmetatable(_G) mt.__newindex = nil", "-ERR user_script:1: Attempt to modify a readonly table script: "},
		{"for k in pairs(string) do string[k] = nil end", "-ERR user_script:1: Attempt to modify a readonly table script: "},
		{"cjson.encode_max_depth(1) return 1", ":1\r\n"},
		{"math.randomseed(1) return 1", ":1\r\n"},
		{"local t = {} t[1] = t return t", "*1\r\n*1\r\n"},
		{"local t = {} for i = 1, 100000 do t[i] = i end return t", "*100000\r\n:1\r\n"},
		{"return cjson.decode(string.rep('[', 100000))", "-ERR user_script:1: Found too many nested data structures (1001) at character 1001 script: "},
		{"local t = {} t[1] = t return cjson.encode(t)", "-ERR user_script:1: Cannot serialise, excessive nesting (1001) script: "},
		// Issue 22: raised depth options used to let these overflow Go's
		// stack; Redis's Lua stack bounds them (see lcjson).
		{"cjson.encode_max_depth(2^31-1) local t={} t[1]=t return cjson.encode(t)", "-ERR user_script:1: Cannot serialise, excessive nesting (7998) script: "},
		{"cjson.decode_max_depth(2^31-1) return cjson.decode(string.rep('[', 5000000))", "-ERR user_script:1: Found too many nested data structures (7999) at character 7999 script: "},
		{"return cjson.decode(string.rep('[', 5000000))", "-ERR user_script:1: Found too many nested data structures (1001) at character 1001 script: "},
		{"return '" + strings.Repeat("(", 300) + "'", "$300\r\n"},
		{"return " + strings.Repeat("(", 300) + "1" + strings.Repeat(")", 300), "-ERR Error compiling script (new function): user_script:1: chunk has too many syntax levels\r\n"},
		// Tables (issue 17): a sparse key is one hash entry, not an array
		// sized by the key; a constructor keeps every item; `#` is a
		// logarithmic border search; an inconsistent comparator is caught
		// as Lua's auxsort catches it; a table growing without end stops
		// at the script's memory limit, charged before each resize.
		{"local t = {} t[60000000] = 1 t[2^53] = 1 t[-2^53] = 1 return #t", ":0\r\n"},
		{"local t = {} for i = 1, 100000 do t[i * 1000003 % 2^52] = i end return 1", ":1\r\n"},
		{"return #{" + strings.Repeat("1,", 100000) + "}", ":100000\r\n"},
		{"local t = {} for i = 1, 50000 do t[#t + 1] = i end for i = 1, 50000 do t[#t] = nil end return #t", ":0\r\n"},
		{"local t = {} for i = 1, 100 do t[i] = i end table.sort(t, function() return true end)", "-ERR user_script:1: invalid order function for sorting script: "},
		{"local t = setmetatable({}, {__len = function() return 5 end}) return #t", ":0\r\n"},
		{"local t = {} local i = 0 while true do i = i + 1 t[i * 1024] = i end", "-ERR not enough memory script: "},
	}
	e := newTestEngine(t, Config{})
	for _, tc := range tests {
		got := evalReply(e, newFakeHost(), 2, tc.script, "0")
		if !strings.HasPrefix(got, tc.prefix) {
			t.Errorf("EVAL %q\n got %q\nwant prefix %q", tc.script, trunc(got), tc.prefix)
		}
		// Whatever the script did, the sandbox is intact afterwards.
		probe := "return {('x'):upper(), type(string.rep), tostring(rawget(_G, 'x')), cjson.encode({{{1}}}), type(getmetatable('').__index.upper)}"
		want := "*5\r\n$1\r\nX\r\n$8\r\nfunction\r\n$3\r\nnil\r\n$7\r\n[[[1]]]\r\n$8\r\nfunction\r\n"
		if p := evalReply(e, newFakeHost(), 2, probe, "0"); p != want {
			t.Fatalf("after %q the sandbox probe says %q", tc.script, p)
		}
	}
}

// The script cache keeps every script until SCRIPT FLUSH, as Redis 7.0
// does (12,000 SCRIPT LOADs used to make the first answer NOSCRIPT), counts
// what it holds, and refuses a new script past its byte bound rather than
// forgetting a loaded one.
func TestScriptCacheKeepsEverything(t *testing.T) {
	e := newTestEngine(t, Config{})
	first, err := e.Load([]byte("return 0"))
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < 20000; i++ {
		if _, err := e.Load([]byte("return " + strconv.Itoa(i))); err != nil {
			t.Fatal(err)
		}
	}
	if r := runReply(e, newFakeHost(), 2, true, false, first, "0"); r != ":0\r\n" {
		t.Fatalf("EVALSHA of the first of 20000 scripts: %q", r)
	}
	n, bytes := e.ScriptCacheUsed()
	if n != 20000 || bytes < 20000*256 {
		t.Fatalf("cache reports %d scripts, %d bytes", n, bytes)
	}
	e.Flush()
	if n, bytes := e.ScriptCacheUsed(); n != 0 || bytes != 0 || e.Exists([]byte(first)) {
		t.Fatalf("after Flush: %d scripts, %d bytes", n, bytes)
	}
}

func TestScriptCacheByteBound(t *testing.T) {
	e := newTestEngine(t, Config{ScriptCacheBytes: 64 << 10})
	var shas []string
	var err error
	for i := 0; err == nil; i++ {
		var sha string
		sha, err = e.Load([]byte("return '" + strings.Repeat("x", 1000) + strconv.Itoa(i) + "'"))
		if err == nil {
			shas = append(shas, sha)
		}
		if i > 1000 {
			t.Fatal("a 64 KiB cache took 1000 scripts of 1 KB")
		}
	}
	if !strings.HasPrefix(err.Error(), "ERR script cache full: ") || len(shas) < 10 {
		t.Fatalf("after %d scripts: %v", len(shas), err)
	}
	// Every loaded script is still there, and EVAL of a cached body runs.
	for _, sha := range shas {
		if !e.Exists([]byte(sha)) {
			t.Fatalf("%s was forgotten", sha)
		}
	}
	if r := evalReply(e, newFakeHost(), 2, "return '"+strings.Repeat("x", 1000)+"0'", "0"); !strings.HasPrefix(r, "$1001\r\n") {
		t.Fatalf("EVAL of a cached body: %q", trunc(r))
	}
	if r := evalReply(e, newFakeHost(), 2, "return 'new'", "0"); !strings.HasPrefix(r, "-ERR script cache full: ") {
		t.Fatalf("EVAL of a new body in a full cache: %q", r)
	}
	e.Flush()
	if r := evalReply(e, newFakeHost(), 2, "return 'new'", "0"); r != "$3\r\nnew\r\n" {
		t.Fatalf("after Flush: %q", r)
	}
}
