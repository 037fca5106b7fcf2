package luaeval

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
	"unicode/utf8"
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
	// A known difference (listed in docs/differences.md): minilock's reply and why.
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

// caseFiles are the recorded case files: testdata/*.jsonl, each a topic
// (eval_cases.jsonl is the first; the libraries and the VM have their own).
func caseFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("testdata/*.jsonl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no case files: %v", err)
	}
	sort.Strings(files)
	return files
}

// TestEvalCases runs every recorded case, file by file and in order, on one
// engine (as the recording ran them on one server), each against an empty
// keyspace.
func TestEvalCases(t *testing.T) {
	for _, file := range caseFiles(t) {
		t.Run(filepath.Base(file), func(t *testing.T) { testEvalCases(t, file) })
	}
}

func testEvalCases(t *testing.T, file string) {
	e := newTestEngine(t, Config{})
	for i, c := range loadCases(t, file) {
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
//
// With LUAEVAL_RECORD=1 it records instead: every case of a file whose want
// is empty gets Redis's reply, and the file is written back. New cases are
// added that way, as scripts only, and then checked in with what Redis said.
func TestTablesAgainstRedis(t *testing.T) {
	rc := dialRedis(t)
	for _, file := range caseFiles(t) {
		t.Run(filepath.Base(file), func(t *testing.T) { testCasesAgainstRedis(t, rc, file) })
	}
}

func testCasesAgainstRedis(t *testing.T, rc *redisConn, file string) {
	record := os.Getenv("LUAEVAL_RECORD") == "1"
	cases := loadCases(t, file)
	recorded := 0
	// Each file starts on a fresh Lua state, as TestEvalCases gives each
	// its own engine (a state's history shows: see luaFreshCalls).
	rc.do(t, "SCRIPT", "FLUSH")
	for i, c := range cases {
		rc.do(t, "FLUSHALL")
		if c.Proto == 3 {
			rc.do(t, "HELLO", "3")
		}
		got := rc.do(t, append([]string{"EVAL", c.Script}, caseArgs(c)...)...)
		if c.Proto == 3 {
			rc.do(t, "HELLO", "2")
		}
		if record && c.Want == "" && c.WantQ == "" {
			cases[i].Want = got
			recorded++
			continue
		}
		if got != c.Want {
			t.Errorf("case %d: EVAL %q: Redis says %q, table says %q", i, c.Script, trunc(got), trunc(c.Want))
		}
	}
	if recorded > 0 {
		writeCases(t, file, cases)
		t.Logf("%s: recorded %d cases", file, recorded)
	}
}

// writeCases writes cases back as JSON lines; a reply that is not valid
// UTF-8 goes in wantq, Go-quoted.
func writeCases(t *testing.T, file string, cases []evalCase) {
	t.Helper()
	var b bytes.Buffer
	for _, c := range cases {
		if !utf8.ValidString(c.Want) {
			c.WantQ, c.Want = strconv.Quote(c.Want), ""
		}
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(c); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func trunc(s string) string {
	if len(s) > 300 {
		return s[:150] + "..." + s[len(s)-150:]
	}
	return s
}
