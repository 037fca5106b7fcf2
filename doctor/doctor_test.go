package doctor

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// fakeServer applies the few commands these tests send to a map, so that
// the doctor's probe reads what a server would hold.
type fakeServer struct {
	d     *Doctor
	now   int64
	mono  time.Duration
	data  map[string]string
	dead  map[string]int64
	found []Finding
}

func newFake(cfg Config) *fakeServer {
	f := &fakeServer{now: 1_700_000_000_000, data: map[string]string{}, dead: map[string]int64{}}
	cfg.OnFinding = func(x Finding) { f.found = append(f.found, x) }
	f.d = New(cfg)
	return f
}

func (f *fakeServer) probe(db int, key string) KeyState {
	v, ok := f.data[key]
	return KeyState{Exists: ok, String: ok, Value: v, Deadline: f.dead[key]}
}

// do runs one command as a client; it knows SET [NX] [PX], DEL, GET.
func (f *fakeServer) do(client int64, args ...string) {
	f.mono += 10 * time.Microsecond
	var reply string
	key := args[1]
	switch strings.ToLower(args[0]) {
	case "set":
		nx := len(args) > 3 && strings.EqualFold(args[3], "nx")
		if _, held := f.data[key]; nx && held {
			reply = "$-1\r\n"
			break
		}
		f.data[key] = args[2]
		delete(f.dead, key)
		if len(args) > 5 {
			ms, _ := strconv.ParseInt(args[5], 10, 64)
			f.dead[key] = f.now + ms
		}
		reply = "+OK\r\n"
	case "del":
		_, ok := f.data[key]
		delete(f.data, key)
		reply = ":0\r\n"
		if ok {
			reply = ":1\r\n"
		}
	case "get":
		reply = "$-1\r\n"
		if v, ok := f.data[key]; ok {
			reply = "$" + strconv.Itoa(len(v)) + "\r\n" + v + "\r\n"
		}
	}
	r := Record{At: f.now, Mono: f.mono, Client: client, Addr: "127.0.0.1:" + strconv.FormatInt(client, 10), Args: bytesOf(args), Keys: []int{1}, Reply: []byte(reply), Write: args[0] != "get"}
	f.d.See(&r, f.probe)
}

func bytesOf(args []string) [][]byte {
	out := make([][]byte, len(args))
	for i, a := range args {
		out[i] = []byte(a)
	}
	return out
}

// A long-running doctor keeps at most Config.Keys lock keys and
// Config.Clients clients, however many it has seen.
func TestBounded(t *testing.T) {
	f := newFake(Config{Keys: 16, Clients: 8})
	for i := range 5000 {
		key := "lock:" + strconv.Itoa(i)
		client := int64(i % 100)
		f.do(client, "SET", key, "tok"+strconv.Itoa(i), "NX", "PX", "10000")
		f.do(client, "GET", key)
		if len(f.d.locks) > 16 || len(f.d.clients) > 8 {
			t.Fatalf("after %d locks: %d keys, %d clients kept", i+1, len(f.d.locks), len(f.d.clients))
		}
		for _, lk := range f.d.locks {
			if len(lk.rows) > rowsPerKey || len(lk.grants) > grantsPerKey {
				t.Fatalf("key %s keeps %d rows, %d grants", lk.id.key, len(lk.rows), len(lk.grants))
			}
		}
	}
	if len(f.d.Findings()) != 0 {
		t.Errorf("findings on safe locks: %v", f.d.Findings())
	}
}

// The same hazard repeated is one finding that counts; past
// Config.Findings, findings are counted but not kept.
func TestRepeatsAndCap(t *testing.T) {
	f := newFake(Config{Findings: 3})
	for range 10 {
		f.do(1, "SET", "lock", "tok", "NX", "PX", "1000")
		f.do(1, "DEL", "lock")
	}
	got := f.d.Findings()
	if len(got) != 1 || got[0].Hazard != PlainDel || got[0].Repeats != 9 {
		t.Fatalf("findings %+v, want one plain-del repeated 9 times", got)
	}
	for i := range 10 {
		key := "k" + strconv.Itoa(i)
		f.do(1, "SET", key, "tok", "NX", "PX", "1000")
		f.do(1, "DEL", key)
	}
	if n, dropped := len(f.d.Findings()), f.d.Dropped(); n != 3 || dropped != 8 {
		t.Errorf("kept %d, dropped %d; want 3 and 8", n, dropped)
	}
	if len(f.found) != 3 {
		t.Errorf("OnFinding called %d times, want 3 (repeats and findings not kept are only counted)", len(f.found))
	}
	f.d.Reset()
	if len(f.d.Findings()) != 0 || f.d.Dropped() != 0 {
		t.Error("Reset kept findings")
	}
}

// A script's commands (Inner) are judged with their container: a GET and
// a DEL in one script are a compare-and-delete, not two steps.
func TestInnerCommands(t *testing.T) {
	f := newFake(Config{})
	f.do(1, "SET", "lock", "tok", "NX", "PX", "1000")
	see := func(r Record) { f.d.See(&r, f.probe) }
	see(Record{At: f.now, Client: 1, Args: bytesOf([]string{"get", "lock"}), Keys: []int{1}, Reply: []byte("$3\r\ntok\r\n"), Inner: true})
	delete(f.data, "lock")
	see(Record{At: f.now, Client: 1, Args: bytesOf([]string{"del", "lock"}), Keys: []int{1}, Reply: []byte(":1\r\n"), Inner: true, Write: true})
	see(Record{At: f.now, Client: 1, Args: bytesOf([]string{"EVAL", "…", "1", "lock", "tok"}), Keys: []int{3}, Reply: []byte(":1\r\n")})
	if got := f.d.Findings(); len(got) != 0 {
		t.Errorf("compare-and-delete in a script flagged: %+v", got)
	}
	// The same two commands from the client, one after the other.
	f.do(1, "SET", "lock", "tok", "NX", "PX", "1000")
	f.do(1, "GET", "lock")
	f.do(1, "DEL", "lock")
	if got := f.d.Findings(); len(got) != 1 || got[0].Hazard != GetThenDel {
		t.Errorf("GET then DEL: %+v, want get-then-del", got)
	}
}

func TestParseReply(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"+OK\r\n", "OK"},
		{"$3\r\nabc\r\n", `"abc"`},
		{"$-1\r\n", "(nil)"},
		{"_\r\n", "(nil)"},
		{"*-1\r\n", "(nil)"},
		{":-2\r\n", "(integer) -2"},
		{"*2\r\n:1\r\n:2\r\n", "(2 replies)"},
		{"-ERR x\r\n", "(error) ERR x"},
		{"$9\r\nab\r\n", `"ab\r\n"`}, // clipped (copyRecord): what is there, never past the end
		{"", "(error) "},
	}
	for _, tt := range tests {
		if got := parseReply([]byte(tt.in)).text(); got != tt.want {
			t.Errorf("parseReply(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestStampMS(t *testing.T) {
	now := int64(1_700_000_000_000)
	for v, want := range map[string]bool{"1700000011": true, "1700000011000": true, "1": false, "42": false, "abc": false, "9999999999999999999": false} {
		if _, ok := stampMS(v, now); ok != want {
			t.Errorf("stampMS(%s) = %v, want %v", v, ok, want)
		}
	}
}

// Timestamp locks: writers whose timestamps agree with the server's clock
// (in seconds or milliseconds) are silent; one already in the past as it is
// written, or two that disagree by 2 s or more, are timestamp-skew.
func TestTimestamps(t *testing.T) {
	sec := func(f *fakeServer, ahead int64) string { return strconv.FormatInt((f.now+ahead)/1000, 10) }
	f := newFake(Config{})
	f.do(1, "SET", "lock.foo", sec(f, 11_000), "NX")
	f.do(2, "SET", "lock.foo", sec(f, 11_000), "NX") // refused, same clock
	f.do(2, "SET", "lock.foo", strconv.FormatInt(f.now+11_500, 10), "NX")
	if got := f.d.Findings(); len(got) != 0 {
		t.Fatalf("agreeing clocks flagged: %+v", got)
	}
	f.do(3, "SET", "lock.foo", sec(f, -5_000), "NX")
	if got := f.d.Findings(); len(got) != 1 || got[0].Hazard != TimestampSkew || !strings.Contains(got[0].Summary, "already 5s in the past") {
		t.Fatalf("a timestamp in the past: %+v", got)
	}
	g := newFake(Config{})
	g.do(1, "SET", "lock.foo", sec(g, 11_000), "NX")
	g.do(2, "SET", "lock.foo", sec(g, 14_000), "NX")
	if got := g.d.Findings(); len(got) != 1 || got[0].Hazard != TimestampSkew || strings.Join(got[0].Clients, ",") != "id=1,id=2" {
		t.Fatalf("clocks 3 s apart: %+v", got)
	}
}
