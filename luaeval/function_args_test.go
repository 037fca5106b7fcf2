package luaeval

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/minilock/minilock/luaeval/internal/luac"
	"github.com/minilock/minilock/resp"
)

// TestArgsStay: which function bodies may be given the same KEYS and ARGV
// tables call after call (they cannot keep them) and which may not.
func TestArgsStay(t *testing.T) {
	for _, c := range []struct {
		body string
		stay bool
	}{
		{"return keys[1]", true},
		{"return #keys + #args", true},
		{"local r = {} for i = 1, #args do r[i] = args[i] end return r", true},
		{"keys[1] = 'x' args.y = 1 return keys[1] .. args.y", true},
		{"if keys then return redis.call('get', keys[1]) end", true},
		{"local n = 0 while args[n + 1] do n = n + 1 end return n", true},
		{"return keys", false},
		{"local k = keys return k[1]", false},
		{"saved = keys", false},
		{"up = args", false},
		{"return unpack(args)", false},
		{"return tostring(keys)", false},
		{"return keys == args", false},
		{"return keys and 1", false},
		{"return function() return keys[1] end", false},
		{"keys.self = keys", false},
		{"local t = {} t[keys] = 1", false},
		{"local t = {keys}", false},
		{"return args:foo()", false},
		{"return #args .. keys", false},
		{"for i, v in ipairs(args) do end", false},
		{"return select('#', args)", false},
	} {
		for _, proto := range []string{"function(keys, args) ", "function(keys, args, extra) ", "function(keys, args, ...) "} {
			src := "local up\nlocal f = " + proto + c.body + " end"
			p, err := compileChunk([]byte(src), "@t", luac.Options{})
			if err != nil {
				t.Fatalf("%s: %v", src, err)
			}
			fp := p.FunctionPrototypes[0]
			if got := argsStay(fp); got != c.stay {
				t.Errorf("argsStay(%s) = %v, want %v", src, got, c.stay)
			}
		}
	}
	for _, src := range []string{"local f = function(...) return 1 end", "local f = function(keys, ...) return keys[1] end"} {
		p, err := compileChunk([]byte(src), "@t", luac.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if argsStay(p.FunctionPrototypes[0]) {
			t.Errorf("argsStay(%s): the tables are in '...'", src)
		}
	}
	var _ *lua.FunctionProto
}

// argsStmts are statements a generated function is made of: reads and
// writes of its KEYS and ARGV tables (k and a) that let them stay, and
// ones that keep them (in an upvalue, through a call, a closure, a
// return), so that a table reused when it should not be shows in the
// replies of later calls.
var argsStmts = []string{
	"r[#r+1] = k[1] or 'nil'",
	"r[#r+1] = #a",
	"r[#r+1] = a[#a] or 'none'",
	"k[2] = 'set'",
	"a.z = 'z'",
	"r[#r+1] = tostring(a.z)",
	"r[#r+1] = k[2] or 'no2'",
	"a[#a + 1] = 'grown'",
	"if k[1] then r[#r+1] = 'k1' end",
	"saved = k",
	"r[#r+1] = saved and (saved[1] or 'snil') or 'unsaved'",
	"r[#r+1] = saved and #saved or -1",
	"local c = a r[#r+1] = c[1] or 'c'",
	"setmetatable(a, {__index = function() return 'mt' end}) r[#r+1] = a[99]",
	"r[#r+1] = a[99] or 'n99'",
	"table.insert(k, 'ins')",
	"r[#r+1] = select('#', unpack(a))",
	"keep = function() return a end",
	"r[#r+1] = keep and (keep()[1] or 'knil') or 'nokeep'",
	"for i = 1, #a do r[#r+1] = a[i] end",
	"a[1] = nil",
}

// TestFcallArgsAgainstRedis loads generated libraries on redis-server and
// on minilock and calls each function several times with keys and
// arguments of varying counts, comparing the replies; minilock runs every
// call twice, once with argTables' reuse of the tables on and once off
// (each on its own engine), which must agree too.
func TestFcallArgsAgainstRedis(t *testing.T) {
	r := rand.New(rand.NewSource(seed(t)))
	rc := dialRedis(t)
	fast, slow := newTestEngine(t, Config{}), newTestEngine(t, Config{})
	h := newFakeHost()
	bad := 0
	fail := func(format string, args ...any) {
		t.Helper()
		t.Errorf(format, args...)
		if bad++; bad == 10 {
			t.Fatal("stopping after 10 differences")
		}
	}
	stays := 0
	for i := 0; i < 300; i++ {
		var body []string
		for n := 1 + r.Intn(5); n > 0; n-- {
			body = append(body, argsStmts[r.Intn(len(argsStmts))])
		}
		name := fmt.Sprintf("g%d", i)
		lib := "#!lua name=" + name + "\nlocal saved, keep\nredis.register_function('" + name + "', function(k, a) local r = {} " + strings.Join(body, " ") + " return r end)"
		want := rc.do(t, "FUNCTION", "LOAD", lib)
		for _, e := range []*Engine{fast, slow} {
			if _, err := e.FunctionLoad([]byte(lib), false); err != nil {
				t.Fatalf("%s: %v (Redis %q)", lib, err, want)
			}
		}
		if fast.LookupFunction([]byte(name)).argsStay {
			stays++
		}
		for c := 0; c < 4; c++ {
			args := []string{name}
			nk := r.Intn(3)
			args = append(args, fmt.Sprint(nk))
			for j := 0; j < nk; j++ {
				args = append(args, fmt.Sprintf("key%d", r.Intn(3)))
			}
			for j := r.Intn(4); j > 0; j-- {
				args = append(args, fmt.Sprintf("v%d", r.Intn(3)))
			}
			want := rc.do(t, append([]string{"FCALL"}, args...)...)
			reuseArgs = true
			got := fcallReply(fast, h, 2, false, args...)
			reuseArgs = false
			gotSlow := fcallReply(slow, h, 2, false, args...)
			reuseArgs = true
			if got != want || gotSlow != want {
				fail("%s\nFCALL %q\nredis       %q\nminilock    %q\nnew tables  %q", lib, args, want, got, gotSlow)
			}
		}
		rc.do(t, "FUNCTION", "DELETE", name)
	}
	if stays < 30 || stays > 270 {
		t.Fatalf("%d of 300 generated functions could reuse their tables: the generator no longer tests both paths", stays)
	}
	t.Logf("%d of 300 functions reused their tables", stays)
}

// replayHost answers every call with reply.
type replayHost struct{ reply []byte }

func (h *replayHost) Call(args [][]byte, readOnly bool, w *resp.Writer) bool {
	w.B = append(w.B, h.reply...)
	return false
}

// TestReplyArrayLayout: an array reply of redis.call, made at once when
// none of its elements is nil (parseReply), must have the layout inserting
// its elements one by one gives (lua_settable, as Redis builds it): the
// script copies it element by element into a fresh table with the VM's
// own inserts, adds the same keys to both, and walks them. Seeded arrays
// of every small size, with RESP3 nulls (nil) and RESP2 ones (false) and
// nested arrays.
func TestReplyArrayLayout(t *testing.T) {
	r := rand.New(rand.NewSource(seed(t)))
	e := newTestEngine(t, Config{})
	const script = `redis.setresp(tonumber(ARGV[2]))
local r = redis.call('x')
local n = tonumber(ARGV[1])
local c = {}
for i = 1, n do c[i] = r[i] end
for i = 1, 6 do r[n + i * 2] = i c[n + i * 2] = i end
r.x = 1 c.x = 1
local function walk(t) local o = {} for k, v in pairs(t) do o[#o + 1] = tostring(k) .. '=' .. type(v) end return table.concat(o, ' ') end
return {walk(r), walk(c), #r, #c}`
	for i := 0; i < 3000; i++ {
		n := r.Intn(12)
		if i%50 == 0 {
			n = r.Intn(300)
		}
		proto := 2 + r.Intn(2)
		var b []byte
		b = fmt.Appendf(b, "*%d\r\n", n)
		for j := 0; j < n; j++ {
			switch r.Intn(8) {
			case 0:
				if proto == 3 {
					b = append(b, "_\r\n"...)
				} else {
					b = append(b, "$-1\r\n"...)
				}
			case 1:
				b = append(b, "*2\r\n:1\r\n$1\r\nx\r\n"...)
			case 2:
				b = fmt.Appendf(b, ":%d\r\n", r.Intn(100))
			default:
				b = fmt.Appendf(b, "$2\r\nv%d\r\n", r.Intn(10))
			}
		}
		got := evalReply(e, &replayHost{b}, 2, script, "0", fmt.Sprint(n), fmt.Sprint(proto))
		it, rest, err := resp.Next([]byte(got))
		if err != nil || it.Kind != '*' || it.Int != 4 {
			t.Fatalf("reply %q", got)
		}
		var parts []string
		for j := 0; j < 4; j++ {
			var x resp.Item
			x, rest, _ = resp.Next(rest)
			parts = append(parts, fmt.Sprintf("%s%d", x.Data, x.Int))
		}
		if parts[0] != parts[1] || parts[2] != parts[3] {
			t.Fatalf("reply %q (RESP%d)\nmade at once walks %q, # %s\none by one walks   %q, # %s", b, proto, parts[0], parts[2], parts[1], parts[3])
		}
	}
}

// TestMonoNow: FUNCTION STATS measures a running function's duration from
// monoNow, which must move with the clock.
func TestMonoNow(t *testing.T) {
	start := monoNow()
	time.Sleep(20 * time.Millisecond)
	if d := time.Since(start); d < 20*time.Millisecond || d > 10*time.Second {
		t.Fatalf("20 ms measured as %v", d)
	}
	if d := monoNow().Sub(time.Now()); d < -time.Minute || d > time.Minute {
		t.Fatalf("monoNow is %v off the wall clock", d)
	}
}

// TestRunningFunctionRecord: FCALL reuses its FUNCTION STATS record
// (runningRecord) while readers on other goroutines take copies of it
// (RunningFunction). Every copy a reader gets must be one call's whole
// record (under -race: no access unordered by the counter and the
// pointer). BenchmarkLua's FCALL rows show the allocation it saves.
func TestRunningFunctionRecord(t *testing.T) {
	e := newTestEngine(t, Config{})
	h := newFakeHost()
	mustLoad(t, e, "#!lua name=rf\nredis.register_function('rf_a', function(k, a) return a[1] end)\nredis.register_function('rf_b', function(k, a) local n = 0 for i = 1, 200 do n = n + i end return a[1] end)", false)
	stop := make(chan struct{})
	done := make(chan int)
	for g := 0; g < 2; g++ {
		go func() {
			seen := 0
			for {
				select {
				case <-stop:
					done <- seen
					return
				default:
				}
				if r := e.RunningFunction(); r != nil {
					seen++
					if len(r.Argv) != 4 || string(r.Argv[1]) != r.Name || string(r.Argv[3]) != r.Name+"!" || r.Start.IsZero() {
						t.Errorf("a torn record: %q %q", r.Name, r.Argv)
					}
				}
			}
		}()
	}
	for i := 0; i < 5000; i++ {
		name := []string{"rf_a", "rf_b"}[i%2]
		if got := fcallReply(e, h, 2, false, name, "0", name+"!"); got != "$"+fmt.Sprint(len(name)+1)+"\r\n"+name+"!\r\n" {
			t.Fatalf("FCALL %s: %q", name, got)
		}
	}
	close(stop)
	t.Logf("readers saw %d records", <-done+<-done)
	if e.RunningFunction() != nil {
		t.Fatal("a record is left after the calls")
	}
}
