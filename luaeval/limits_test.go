package luaeval

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/minilock/minilock/resp"
)

// errAt is the reply to an error raised on line 1 of script.
func errAt(script, msg string, line int) string {
	sha := sha1Hex([]byte(script))
	return "-ERR " + msg + " script: " + string(sha[:]) + ", on @user_script:" + itoa(line) + ".\r\n"
}

// `..` is refused before it allocates past MaxStringBytes (1 MiB here; the
// watchdog is off, and without the bound each script would just succeed
// with at most 16 MiB).
func TestConcatLimit(t *testing.T) {
	e := newTestEngine(t, Config{MemoryLimit: -1, MaxStringBytes: 1 << 20})
	for _, tc := range []struct{ script, want string }{
		{`local s = "x" for i = 1, 24 do s = s .. s end return #s`, "not enough memory@1"},
		{"local s = 'x'\nfor i = 1, 24 do\ns = s .. s .. 1\nend", "not enough memory@3"},
		{`return #(string.rep("x", 2^19) .. string.rep("y", 2^19))`, ":1048576\r\n"},
		{`return {pcall(function() local s = string.rep("x", 2^20) return s .. "y" end)}`, "*2\r\n$-1\r\n$17\r\nnot enough memory\r\n"},
		{`return coroutine.wrap(function() local s = "x" for i = 1, 24 do s = s .. s end end)()`, "not enough memory@1"},
		// A __concat result is not bounded by the operands; the result is.
		{`local big = string.rep("x", 2^20) local t = setmetatable({}, {__concat = function() return big end})
return #("y" .. "z" .. t)`, "not enough memory@2"},
		{`local t = setmetatable({}, {__concat = function(a, b) return "m" end}) return "a" .. "b" .. t .. 1`, "$3\r\nabm\r\n"},
		{`local x return "a" .. x`, "user_script:1: attempt to concatenate local 'x' (a nil value)@1"},
		// table.concat sums before it allocates: exactly the limit is fine.
		{`local t = {} for i = 1, 1024 do t[i] = string.rep("x", 1023) end return #table.concat(t, ",")`, ":1048575\r\n"},
		{`local t = {} for i = 1, 1024 do t[i] = string.rep("x", 1024) end return #table.concat(t, ",")`, "not enough memory@1"},
	} {
		want := tc.want
		if msg, line, ok := strings.Cut(want, "@"); ok {
			n, _ := strconv.Atoi(line)
			want = errAt(tc.script, msg, n)
		}
		if got := evalReply(e, newFakeHost(), 2, tc.script, "0"); got != want {
			t.Errorf("EVAL %q\n got %q\nwant %q", tc.script, trunc(got), want)
		}
	}
}

// A run stopped while it holds coroutines (suspended, or running the loop
// the kill must reach) ends cleanly, and so do the runs after it: nothing
// of the stopped run may act once it is over.
func TestStopWithCoroutines(t *testing.T) {
	for _, tc := range []struct {
		script string
		kill   bool
		want   string
	}{
		{`local cos = {} for i = 1, 1e7 do cos[i] = coroutine.create(function() end) end return #cos`, false, "not enough memory"},
		{`local cos = {} for i = 1, 1e7 do cos[i] = coroutine.wrap(function() end) end return #cos`, false, "not enough memory"},
		{`local cos = {} for i = 1, 20 do cos[i] = coroutine.create(function() end) end
coroutine.wrap(function() while true do end end)()`, true, "Script killed by user with SCRIPT KILL..."},
	} {
		t.Run(tc.script, func(t *testing.T) {
			e := newTestEngine(t, Config{BusyThreshold: 20 * time.Millisecond, MemoryLimit: 32 << 20})
			ch := runAsync(e, newFakeHost(), tc.script, "0")
			if tc.kill {
				if !waitFor(5*time.Second, func() bool { return isClosed(e.BusyChan()) }) {
					t.Fatal("not busy")
				}
				if err := e.Kill(); err != nil {
					t.Fatalf("Kill = %v", err)
				}
			}
			line := strings.Count(tc.script, "\n") + 1
			if got, want := waitReply(t, ch, 30*time.Second), errAt(tc.script, tc.want, line); got != want {
				t.Fatalf("reply %q, want %q", trunc(got), want)
			}
			for i := 0; i < 200; i++ {
				probe := "return coroutine.wrap(function() return 7 end)()"
				if r := evalReply(e, newFakeHost(), 2, probe, "0"); r != ":7\r\n" {
					t.Fatalf("after the stop: %q", r)
				}
			}
		})
	}
}

// bit.tohex as patched Redis (CVE-2024-31449): n = INT_MIN is taken as
// INT_MIN+1, i.e. eight upper-case digits.
func TestBitTohex(t *testing.T) {
	e := newTestEngine(t, Config{})
	for _, tc := range []struct{ script, want string }{
		{"return bit.tohex(65535, -2147483648)", "$8\r\n0000FFFF\r\n"},
		{"return bit.tohex(65535, 2147483647)", "$8\r\n0000ffff\r\n"},
		{"return bit.tohex(65535, -4)", "$4\r\nFFFF\r\n"},
		{"return bit.tohex(-1)", "$8\r\nffffffff\r\n"},
		{"return bit.tohex(1, 0)", "$0\r\n\r\n"},
	} {
		if got := evalReply(e, newFakeHost(), 2, tc.script, "0"); got != tc.want {
			t.Errorf("EVAL %q = %q, want %q", tc.script, got, tc.want)
		}
	}
}

// cjson.encode refuses output past MaxStringBytes (1 MiB here) before its
// buffer grows, counting the escapes ("\0" is six bytes out).
func TestCjsonEncodeLimit(t *testing.T) {
	e := newTestEngine(t, Config{MemoryLimit: -1, MaxStringBytes: 1 << 20})
	for _, tc := range []struct{ script, want string }{
		{`return #cjson.encode(string.rep("\0", 200 * 1024))`, "not enough memory"},
		{`return #cjson.encode({string.rep("\0", 100 * 1024), string.rep("\0", 100 * 1024)})`, "not enough memory"},
		{`return #cjson.encode({[string.rep("\1", 200 * 1024)] = 1})`, "not enough memory"},
		{`return #cjson.encode(string.rep("a", 2^20 - 2))`, ":1048576\r\n"},
		{`return #cjson.encode(string.rep("\0", 174762))`, ":1048574\r\n"},
	} {
		want := tc.want
		if !strings.HasPrefix(want, ":") {
			want = errAt(tc.script, want, 1)
		}
		if got := evalReply(e, newFakeHost(), 2, tc.script, "0"); got != want {
			t.Errorf("EVAL %q\n got %q\nwant %q", tc.script, trunc(got), want)
		}
	}
}

// A reply is refused once it passes MaxReplyBytes (1 MiB here), however
// small the table that stands for it; what came before it in w is kept.
// Strings that long come from outside (ARGV here, or a command's reply).
func TestReplyLimit(t *testing.T) {
	e := newTestEngine(t, Config{MaxReplyBytes: 1 << 20})
	const tooBig = "-ERR not enough memory for the script's reply (limit 1048576 bytes)\r\n"
	big := strings.Repeat("b", 1<<20+1)
	for _, tc := range []struct{ script, want string }{
		{`local s = string.rep("v", 1024) local t = {} for i = 1, 2048 do t[i] = s end return t`, tooBig},
		{`local a = {} for i = 1, 1000 do a[i] = i end local b = {} for i = 1, 1000 do b[i] = a end return b`, tooBig},
		{`return ARGV[1]`, tooBig},
		{`return {map = {k = ARGV[1]}}`, tooBig},
		{`return {err = ARGV[1]}`, tooBig},
		{`return {ok = ARGV[1]}`, tooBig},
		{`return #ARGV[1]`, ":1048577\r\n"},
		{`local t = {} for i = 1, 1000 do t[i] = i end return #t`, ":1000\r\n"},
	} {
		w := &resp.Writer{Proto: 2, B: []byte("+before\r\n")}
		got := ""
		if err := e.Eval(w, [][]byte{[]byte(tc.script), []byte("0"), []byte(big)}, false, newFakeHost()); err != nil {
			got = "-" + resp.Text(err) + "\r\n"
			if string(w.B) != "+before\r\n" {
				t.Errorf("EVAL %q left %q in the writer", tc.script, trunc(string(w.B)))
			}
		} else {
			got = strings.TrimPrefix(string(w.B), "+before\r\n")
		}
		if got != tc.want {
			t.Errorf("EVAL %q\n got %q\nwant %q", tc.script, trunc(got), tc.want)
		}
	}
	// The limit counts the strings' bytes, not the few of RESP framing.
	if got := evalReply(e, newFakeHost(), 2, `return ARGV[1]`, "0", big[1:]); len(got) != 1<<20+12 {
		t.Errorf("a reply of exactly the limit: %d bytes", len(got))
	}
}
