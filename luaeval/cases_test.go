package luaeval

import (
	"bufio"
	"encoding/json"
	"os"
	"strconv"
	"testing"
)

// evalCase is one line of testdata/eval_cases.jsonl: a script run with
// EVAL <script> 0 by a client speaking proto, and Redis 7.0.15's raw reply
// (recorded from redis-server 7.0.15 and re-checked by
// TestTablesAgainstRedis).
type evalCase struct {
	Proto  int      `json:"proto"`
	Script string   `json:"script"`
	Args   []string `json:"args,omitempty"`
	Want   string   `json:"want"`
	WantQ  string   `json:"wantq,omitempty"` // Want, Go-quoted, for replies that are not UTF-8
	// A known difference (listed in the README): minilock's reply and why.
	Minilock string `json:"minilock,omitempty"`
	Why      string `json:"why,omitempty"`
}

func loadCases(t *testing.T, name string) []evalCase {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []evalCase
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var c evalCase
		err := json.Unmarshal(sc.Bytes(), &c)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if c.WantQ != "" {
			if c.Want, err = strconv.Unquote(c.WantQ); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		out = append(out, c)
	}
	return out
}

func caseArgs(c evalCase) []string {
	if c.Args == nil {
		return []string{"0"}
	}
	return c.Args
}

// TestEvalCases runs every recorded case, in order, on one engine (as the
// recording ran them on one server), each against an empty keyspace.
func TestEvalCases(t *testing.T) {
	e := newTestEngine(t, Config{})
	for i, c := range loadCases(t, "testdata/eval_cases.jsonl") {
		got := evalReply(e, newFakeHost(), c.Proto, c.Script, caseArgs(c)...)
		if c.Minilock != "" {
			if got != c.Minilock {
				t.Errorf("case %d (known difference: %s): EVAL %q\n got %q\nwant %q", i, c.Why, c.Script, trunc(got), trunc(c.Minilock))
			}
			continue
		}
		if got != c.Want {
			t.Errorf("case %d: EVAL %q (RESP%d)\n got %q\nwant %q", i, c.Script, c.Proto, trunc(got), trunc(c.Want))
		}
	}
}

// TestTablesAgainstRedis checks the recorded replies against a live Redis.
func TestTablesAgainstRedis(t *testing.T) {
	rc := dialRedis(t)
	for i, c := range loadCases(t, "testdata/eval_cases.jsonl") {
		rc.do(t, "FLUSHALL")
		if c.Proto == 3 {
			rc.do(t, "HELLO", "3")
		}
		got := rc.do(t, append([]string{"EVAL", c.Script}, caseArgs(c)...)...)
		if c.Proto == 3 {
			rc.do(t, "HELLO", "2")
		}
		if got != c.Want {
			t.Errorf("case %d: EVAL %q: Redis says %q, table says %q", i, c.Script, trunc(got), trunc(c.Want))
		}
	}
}

func trunc(s string) string {
	if len(s) > 300 {
		return s[:150] + "..." + s[len(s)-150:]
	}
	return s
}
