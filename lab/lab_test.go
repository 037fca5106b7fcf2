package lab

import (
	"bytes"
	"encoding/xml"
	"errors"
	"flag"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/minilock/minilock/internal/timeline"
)

// fact is a row the timeline must contain: who, what they sent (a prefix of
// the command as sent), and the reply ("" matches any).
type fact struct{ actor, text, reply string }

// Every scenario, run as a test: its verdict, where it was reached, and the
// rows that make the story. Facts must appear in this order.
func TestScenarios(t *testing.T) {
	tests := []struct {
		name  string
		at    time.Duration // when the verdict was reached (not for Safe)
		who   []string
		owner string // the lock key's owner after the last event
		facts []fact
	}{
		{"setnx-expire", 3630 * time.Second, []string{"A"}, "A", []fact{
			{"A", "SETNX lock 1", "(integer) 1"},
			{"A", "crashes", ""},
			{"B", "SETNX lock 1", "(integer) 0"},
			{"B", "SETNX lock 1", "(integer) 0"},
		}},
		{"set-nx-px", 0, nil, "B", []fact{
			{"A", "SET lock ", "OK"},
			{"A", "crashes", ""},
			{Server, "lock expires", ""},
			{"B", "SET lock ", "OK"},
		}},
		{"del-after-expiry", 16 * time.Second, []string{"B", "C"}, "C", []fact{
			{"A", "SET lock 1 NX EX 10", "OK"},
			{"A", "no longer holds the lock", ""},
			{"B", "SET lock 1 NX EX 10", "OK"},
			{"A", "DEL lock", "(integer) 1"},
			{"C", "SET lock 1 NX EX 10", "OK"},
		}},
		{"token-release", 0, nil, "B", []fact{
			{"A", "SET lock ", "OK"},
			{"B", "SET lock ", "OK"},
			{"A", "EVAL ", "(integer) 0"},
			{"C", "SET lock ", "(nil)"},
		}},
		{"get-then-del", 10100 * time.Millisecond, []string{"B", "C"}, "C", []fact{
			{"A", "SET lock ", "OK"},
			{"A", "GET lock", ""},
			{Server, "lock expires", ""},
			{"B", "SET lock ", "OK"},
			{"A", "DEL lock", "(integer) 1"},
			{"C", "SET lock ", "OK"},
		}},
		{"lua-release", 0, nil, "B", []fact{
			{"B", "SET lock ", "OK"},
			{"A", "EVAL ", "(integer) 0"},
			{"C", "SET lock ", "(nil)"},
		}},
		{"watch-release", 0, nil, "B", []fact{
			{"A", "watch lock", "OK"},
			{"A", "GET lock", ""},
			{"B", "SET lock ", "OK"},
			{"A", "MULTI", "OK"},
			{"A", "DEL lock", "QUEUED"},
			{"A", "EXEC", "(nil)"},
			{"C", "SET lock ", "(nil)"},
		}},
		{"timestamp-del", 20 * time.Second, []string{"B", "C"}, "C", []fact{
			{"A", "SETNX lock.foo 1700000011", "(integer) 1"},
			{"B", "GET lock.foo", `"1700000011"`},
			{"C", "GET lock.foo", `"1700000011"`},
			{"B", "DEL lock.foo", "(integer) 1"},
			{"B", "SETNX lock.foo", "(integer) 1"},
			{"C", "DEL lock.foo", "(integer) 1"},
			{"C", "SETNX lock.foo", "(integer) 1"},
		}},
		{"timestamp-getset", 0, nil, "C", []fact{
			{"B", "GET lock.foo", `"1700000011"`},
			{"C", "GET lock.foo", `"1700000011"`},
			{"B", "GETSET lock.foo 1700000031", `"1700000011"`},
			{"C", "GETSET lock.foo 1700000032", `"1700000031"`},
		}},
		{"timestamp-skew", 9 * time.Second, []string{"A", "B"}, "B", []fact{
			{"A", "SETNX lock.foo 1700000011", "(integer) 1"},
			{"B", "SETNX lock.foo 1700000023", "(integer) 0"},
			{"B", "GETSET lock.foo 1700000023", `"1700000011"`},
		}},
		{"paused-holder", 15 * time.Second, []string{"A", "B"}, "B", []fact{
			{"A", "SET lock ", "OK"},
			{"A", "pauses", ""},
			{"B", "SET lock ", "OK"},
			{"B", `write "B's data"`, "ok"},
			{"A", `write "A's data"`, "ok"},
		}},
		{"fencing", 0, nil, "B", []fact{
			{"A", "EXEC", "1) OK 2) (integer) 33"},
			{"B", "EXEC", "1) OK 2) (integer) 34"},
			{"B", `write "B's data" token=34`, "ok"},
			{"A", `write "A's data" token=33`, "refused: token 33 < 34"},
		}},
		{"subscribe-late", 30 * time.Second, []string{"B"}, "B", []fact{
			{"A", "EVAL ", "(nil)"},
			{"B", "EVAL ", "(integer) 25000"},
			{"A", "EVAL ", "(integer) 1"},
			{"B", "SUBSCRIBE redisson_lock__channel:{lock}", `1) "subscribe" 2) "redisson_lock__channel:{lock}" 3) (integer) 1`},
			{"B", "stops waiting: its 25s wait ran out", ""},
			{"B", "EVAL ", "(nil)"},
		}},
		{"subscribe-first", 0, nil, "B", []fact{
			{"B", "SUBSCRIBE redisson_lock__channel:{lock}", ""},
			{"B", "EVAL ", "(integer) 25000"},
			{"A", "EVAL ", "(integer) 1"},
			{"B", "message redisson_lock__channel:{lock}", `"0"`},
			{"B", "EVAL ", "(nil)"},
		}},
		{"signal-crash", 62001 * time.Millisecond, []string{"B"}, "B", []fact{
			{"A", "SET lock:res ", "OK"},
			{"B", "SET lock:res ", "(nil)"},
			{"B", "BLPOP lock-signal:res 60", "(blocks)"},
			{"A", "crashes", ""},
			{Server, "lock:res expires", ""},
			{"B", "BLPOP lock-signal:res 60", "(nil)"},
			{"B", "SET lock:res ", "OK"},
		}},
		{"signal-ttl", 12001 * time.Millisecond, []string{"B"}, "B", []fact{
			{"B", "SET lock:res ", "(nil)"},
			{"B", "BLPOP lock-signal:res 10", "(blocks)"},
			{"A", "crashes", ""},
			{Server, "lock:res expires", ""},
			{"B", "BLPOP lock-signal:res 10", "(nil)"},
			{"B", "SET lock:res ", "OK"},
		}},
		{"signal-pttl", 0, nil, "C", []fact{
			{"B", "EVAL ", "(integer) 8000"},
			{"B", "BLPOP lock-signal:res 8", "(blocks)"},
			{"C", "EVAL ", "(integer) 6000"},
			{"C", "BLPOP lock-signal:res 6", "(blocks)"},
			{"A", "crashes", ""},
			{Server, "lock:res expires", ""},
			{"B", "BLPOP lock-signal:res 8", "(nil)"},
			{"C", "BLPOP lock-signal:res 6", "(nil)"},
			{"B", "EVAL ", "(nil)"},
			{"C", "EVAL ", "(integer) 10000"},
			{"C", "BLPOP lock-signal:res 10", "(blocks)"},
			{"B", "EVAL ", "(integer) 0"},
			{"C", "BLPOP lock-signal:res 10", `1) "lock-signal:res" 2) "1"`},
			{"C", "EVAL ", "(nil)"},
		}},
		{"semaphore-skew", 3 * time.Second, []string{"A", "B", "C"}, "", []fact{
			{"A", "EVAL ", "(integer) 1"},
			{"B", "EVAL ", "(integer) 1"},
			{"C", "EVAL ", "(integer) 1"},
		}},
		{"semaphore-server-time", 0, nil, "", []fact{
			{"A", "EVAL ", "(integer) 1"},
			{"B", "EVAL ", "(integer) 1"},
			{"C", "EVAL ", "(integer) 0"},
		}},
		{"stream-consumer-crash", 3660 * time.Second, []string{"A"}, "A", []fact{
			{"P", "XADD jobs * ", `"1700000000000-0"`},
			{"A", "XREADGROUP GROUP workers A COUNT 1 STREAMS jobs >", `{"jobs" => [1) [1) "1700000000000-0" 2) [1) "task" 2) "paint the fence"]]]}`},
			{"A", "crashes", ""},
			{"B", "XREADGROUP GROUP workers B COUNT 1 STREAMS jobs >", "(nil)"},
			{"B", "XREADGROUP GROUP workers B COUNT 1 STREAMS jobs >", "(nil)"},
		}},
		{"crash-no-fsync", 2 * time.Second, []string{"A", "B"}, "B", []fact{
			{"A", "SET lock ", "OK"},
			{Server, "loses power and restarts", ""},
			{"B", "SET lock ", "OK"},
		}},
		{"crash-fsync-always", 0, nil, "A", []fact{
			{"A", "SET lock ", "OK"},
			{Server, "loses power and restarts", ""},
			{"B", "SET lock ", "(nil)"},
		}},
		{"crash-restart-delay", 0, nil, "B", []fact{
			{"A", "SET lock ", "OK"},
			{Server, "loses power and restarts", ""},
			{"B", "SET lock ", ""}, // LOADING: refused during the restart delay
			{"B", "SET lock ", "OK"},
		}},
		{"stream-xautoclaim", 0, nil, "", []fact{
			{"A", "XREADGROUP GROUP workers A COUNT 1 STREAMS jobs >", ""},
			{"A", "crashes", ""},
			{"B", "XREADGROUP GROUP workers B COUNT 1 STREAMS jobs >", "(nil)"},
			{"B", "XAUTOCLAIM jobs workers B 30000 0 COUNT 1", `1) "0-0" 2) [1) [1) "1700000000000-0" 2) [1) "task" 2) "paint the fence"]]] 3) (empty array)`},
			{"B", "XACK jobs workers 1700000000000-0", "(integer) 1"},
		}},
	}
	if len(tests) != len(Scenarios()) {
		t.Errorf("%d scenarios tested, %d defined", len(tests), len(Scenarios()))
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, tt.name)
			v := r.Verdict
			if !r.AsExpected() {
				t.Errorf("verdict %q, want outcome %v", v, r.Scenario.Expect)
			}
			if v.Outcome != Safe && (v.At != tt.at || !slices.Equal(v.Who, tt.who)) {
				t.Errorf("verdict %q, want it at %s involving %q", v, Seconds(tt.at), tt.who)
			}
			if got := r.Events[len(r.Events)-1].Lock.Owner; got != tt.owner {
				t.Errorf("lock owner at the end = %q, want %q", got, tt.owner)
			}
			checkFacts(t, r.Events, tt.facts)
			if t.Failed() {
				var b bytes.Buffer
				Print(&b, r)
				t.Log("\n" + b.String())
			}
		})
	}
}

// When each client came to hold the lock (or a permit), and when each
// waiter stopped waiting: the wake-ups come the instant the server sends
// them, and a missed one costs the whole wait.
func TestWaits(t *testing.T) {
	tests := []struct {
		name   string
		holds  map[string]time.Duration // the first instant the client holds
		woken  map[string]time.Duration // the first instant a waiting client stops waiting
		idle   time.Duration            // IdleWait: how long the lock stood free
		member int                      // semaphores: members of the set at the end
	}{
		{"subscribe-late", map[string]time.Duration{"A": 0, "B": 30 * time.Second},
			map[string]time.Duration{"B": 30 * time.Second}, 24999 * time.Millisecond, 0},
		{"subscribe-first", map[string]time.Duration{"A": 0, "B": 5001 * time.Millisecond},
			map[string]time.Duration{"B": 5001 * time.Millisecond}, 0, 0},
		{"signal-crash", map[string]time.Duration{"A": 0, "B": 62001 * time.Millisecond},
			map[string]time.Duration{"B": 62001 * time.Millisecond}, 52 * time.Second, 0},
		{"signal-ttl", map[string]time.Duration{"A": 0, "B": 12001 * time.Millisecond},
			map[string]time.Duration{"B": 12001 * time.Millisecond}, 2 * time.Second, 0},
		{"signal-pttl", map[string]time.Duration{"A": 0, "B": 10001 * time.Millisecond, "C": 13001 * time.Millisecond},
			map[string]time.Duration{"B": 10001 * time.Millisecond, "C": 10001 * time.Millisecond}, 0, 0},
		{"semaphore-skew", map[string]time.Duration{"A": 0, "B": time.Second, "C": 3 * time.Second}, nil, 0, 1},
		{"semaphore-server-time", map[string]time.Duration{"A": 0, "B": time.Second}, nil, 0, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, tt.name)
			holds, woken := map[string]time.Duration{}, map[string]time.Duration{}
			var waiting []string
			for _, e := range r.Events {
				for _, h := range e.Holders {
					if _, ok := holds[h]; !ok {
						holds[h] = e.At
					}
				}
				for _, w := range waiting {
					if _, ok := woken[w]; !ok && !slices.Contains(e.Waiters, w) {
						woken[w] = e.At
					}
				}
				waiting = e.Waiters
			}
			if !maps.Equal(holds, tt.holds) {
				t.Errorf("holds from %v, want %v", holds, tt.holds)
			}
			if len(woken) > 0 || len(tt.woken) > 0 {
				if !maps.Equal(woken, tt.woken) {
					t.Errorf("first woken at %v, want %v", woken, tt.woken)
				}
			}
			if r.Verdict.Idle != tt.idle {
				t.Errorf("idle %v, want %v", r.Verdict.Idle, tt.idle)
			}
			if tt.member > 0 {
				last := r.Events[len(r.Events)-1].Lock
				if n := len(strings.Split(last.Value, ",")); !last.Held || n != tt.member {
					t.Errorf("the set holds %q at the end, want %d members", last.Value, tt.member)
				}
			}
			if t.Failed() {
				var b bytes.Buffer
				Print(&b, r)
				t.Log("\n" + b.String())
			}
		})
	}
}

func run(t *testing.T, name string) *Result {
	t.Helper()
	sc, ok := Lookup(name)
	if !ok {
		t.Fatalf("no scenario %q", name)
	}
	r, err := Run(sc)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// checkFacts fails unless the facts appear in events, in order.
func checkFacts(t *testing.T, events []Event, facts []fact) {
	t.Helper()
	i := 0
	for _, f := range facts {
		for i < len(events) && !matches(events[i], f) {
			i++
		}
		if i == len(events) {
			t.Errorf("no row %s %q -> %q (in order)", f.actor, f.text, f.reply)
			return
		}
		i++
	}
}

func matches(e Event, f fact) bool {
	return e.Actor == f.actor && strings.HasPrefix(e.Text, f.text) && (f.reply == "" || e.Reply == f.reply)
}

// Every run of a scenario prints and draws the same thing: the clock is
// manual and the tokens come from a seeded generator.
func TestRunsRepeat(t *testing.T) {
	for _, sc := range Scenarios() {
		var out [2]string
		var pic [2][]byte
		for i := range out {
			r, err := Run(sc)
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			Print(&b, r)
			out[i], pic[i] = b.String(), SVG(r)
		}
		if out[0] != out[1] || !bytes.Equal(pic[0], pic[1]) {
			t.Errorf("%s: two runs differ:\n%s\n---\n%s", sc.Name, out[0], out[1])
		}
	}
}

func TestSVG(t *testing.T) {
	for _, sc := range Scenarios() {
		t.Run(sc.Name, func(t *testing.T) {
			r := run(t, sc.Name)
			pic := SVG(r)
			dec := xml.NewDecoder(bytes.NewReader(pic))
			for {
				_, err := dec.Token()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatalf("not well-formed XML: %v\n%s", err, pic)
				}
			}
			s := string(pic)
			for _, lane := range append(r.Clients, Server) {
				if !strings.Contains(s, ">"+timeline.LaneTitle(lane)+"<") {
					t.Errorf("no lane for %s", lane)
				}
			}
			if !strings.Contains(s, "verdict: "+timeline.Escape(r.Verdict.String())) {
				t.Error("no verdict line")
			}
			if marked := strings.Contains(s, "✗ "); marked != sc.Broken() {
				t.Errorf("violation marker drawn = %v for a scenario with verdict %q", marked, r.Verdict)
			}
		})
	}
}

var update = flag.Bool("update", false, "rewrite testdata/del-after-expiry.svg")

// The README shows testdata/del-after-expiry.svg; this keeps it what the lab
// draws today. After a deliberate change: go test ./lab -run README -update
func TestREADMEPicture(t *testing.T) {
	const path = "testdata/del-after-expiry.svg"
	pic := SVG(run(t, "del-after-expiry"))
	if *update {
		if err := os.WriteFile(path, pic, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(pic, want) {
		t.Fatalf("%s is out of date: go test ./lab -run README -update", path)
	}
}

func TestJudge(t *testing.T) {
	held := func(owner string, expires bool) LockState {
		return LockState{Held: true, Value: "v", Owner: owner, Expires: expires}
	}
	tests := []struct {
		name   string
		events []Event
		want   Outcome
		index  int
	}{
		{"nothing happened", nil, Safe, -1},
		{"one holder at a time", []Event{
			{Holders: []string{"A"}, Lock: held("A", true)},
			{},
			{Holders: []string{"B"}, Lock: held("B", true)},
		}, Safe, -1},
		{"two holders", []Event{
			{Holders: []string{"A"}},
			{Holders: []string{"A", "B"}},
			{Holders: []string{"A", "B", "C"}},
		}, TwoHolders, 1},
		{"write by the owner", []Event{
			{Kind: Write, Actor: "A", Accepted: true, Lock: held("A", true)},
		}, Safe, -1},
		{"write by a stale holder, refused", []Event{
			{Kind: Write, Actor: "A", Accepted: false, Lock: held("B", true)},
		}, Safe, -1},
		{"write by a stale holder, accepted", []Event{
			{Kind: Write, Actor: "A", Accepted: true, Lock: held("B", true)},
		}, StaleWrite, 0},
		{"write with nobody holding the lock", []Event{
			{Kind: Write, Actor: "A", Accepted: true},
		}, StaleWrite, 0},
		{"the earliest violation wins", []Event{
			{Holders: []string{"A", "B"}},
			{Kind: Write, Actor: "A", Accepted: true, Lock: held("B", true)},
		}, TwoHolders, 0},
		{"orphaned lock without TTL", []Event{
			{Holders: []string{"A"}, Lock: held("A", false)},
			{Lock: held("A", false)},
		}, NeverFreed, 1},
		{"orphaned lock with a TTL frees itself", []Event{
			{Lock: held("A", true)},
		}, Safe, -1},
		{"a live holder without TTL is not stuck", []Event{
			{Holders: []string{"A"}, Lock: held("A", false)},
		}, Safe, -1},
		{"woken the instant the lock frees", []Event{
			{At: 1, Waiters: []string{"B"}, Lock: held("A", true)},
			{At: 2, Waiters: []string{"B"}},
			{At: 2},
		}, Safe, -1},
		{"woken after the lock freed", []Event{
			{At: 1, Waiters: []string{"B"}, Lock: held("A", true)},
			{At: 2, Waiters: []string{"B"}},
			{At: 3, Waiters: []string{"B"}},
			{At: 9},
		}, IdleWait, 3},
		{"the lock was taken again before the waiter woke", []Event{
			{At: 1, Waiters: []string{"B"}},
			{At: 1, Waiters: []string{"B"}, Lock: held("C", true)},
			{At: 5, Lock: held("C", true)},
		}, Safe, -1},
		{"still waiting on a free lock at the end", []Event{
			{At: 1, Waiters: []string{"B"}, Lock: held("A", true)},
			{At: 2, Waiters: []string{"B"}},
			{At: 4, Waiters: []string{"B"}},
		}, IdleWait, 2},
	}
	for _, tt := range tests {
		v := Judge(tt.events, 0)
		if v.Outcome != tt.want || v.Index != tt.index {
			t.Errorf("%s: %v at event %d, want %v at %d", tt.name, v.Outcome, v.Index, tt.want, tt.index)
		}
	}

	// A semaphore of two permits: three holders, not two, break it.
	two := []Event{{Holders: []string{"A", "B"}}}
	if v := Judge(two, 2); v.Outcome != Safe {
		t.Errorf("two holders of two permits: %v", v)
	}
	if v := Judge(two, 1); v.Outcome != TwoHolders {
		t.Errorf("two holders of a lock: %v", v)
	}
	three := append(two, Event{At: 3, Holders: []string{"A", "B", "C"}})
	if v := Judge(three, 2); v.Outcome != Overbooked || v.Index != 1 || v.String() != "3 clients held the semaphore's 2 permits at t=+0.000s (A, B and C)" {
		t.Errorf("three holders of two permits: %v at %d", v, v.Index)
	}
}

func TestFormat(t *testing.T) {
	args := []struct {
		in   []any
		want string
	}{
		{[]any{"SET", "lock", "tok", "NX", "PX", int64(10000)}, "SET lock tok NX PX 10000"},
		{[]any{"EVAL", `return "x"`, 0}, `EVAL "return \"x\"" 0`},
		{[]any{"SET", "k", ""}, `SET k ""`},
	}
	for _, tt := range args {
		if got := formatArgs(tt.in); got != tt.want {
			t.Errorf("formatArgs(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
	replies := []struct {
		val  any
		err  error
		want string
	}{
		{"OK", nil, "OK"},
		{"tok", nil, `"tok"`},
		{int64(1), nil, "(integer) 1"},
		{nil, nil, "(nil)"},
		{[]any{"OK", int64(33)}, nil, "1) OK 2) (integer) 33"},
	}
	for _, tt := range replies {
		if got := formatReply(tt.val, tt.err); got != tt.want {
			t.Errorf("formatReply(%#v, %v) = %s, want %s", tt.val, tt.err, got, tt.want)
		}
	}
}

func TestWrap(t *testing.T) {
	got := wrap("aaa bbb  ccc\n\t ddd", 7)
	if want := []string{"aaa bbb", "ccc ddd"}; !slices.Equal(got, want) {
		t.Fatalf("wrap = %q, want %q", got, want)
	}
}
