package lab

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/minilock/minilock/doctor"
	"github.com/minilock/minilock/server"
)

// The lock doctor (docs/doctor.md) watching the lab's scenarios: it flags
// each broken recipe it can see with the hazards below, and nothing on any
// fix.

func hazardsOf(findings []doctor.Finding) []string {
	var out []string
	for _, f := range findings {
		out = append(out, string(f.Hazard)+" "+strings.Join(f.Clients, ","))
	}
	return out
}

func runDoctor(t *testing.T, sc *Scenario) []doctor.Finding {
	t.Helper()
	_, findings, err := runScenario(sc, &server.DoctorConfig{})
	if err != nil {
		t.Fatal(err)
	}
	return findings
}

func report(findings []doctor.Finding) string {
	var b bytes.Buffer
	doctor.Report(&b, findings, 0)
	return b.String()
}

func TestDoctorOnBrokenScenarios(t *testing.T) {
	// What the doctor says of each broken scenario, with the clients it
	// blames. A scenario whose flaw is out of the commands' sight has
	// nothing: paused-holder's stale write goes to a storage outside
	// minilock (see TestDoctorLeaseExpired for the same race with the
	// storage inside), and the waiting and semaphore races are not lock
	// hazards the doctor knows, nor is a stream job left pending by a
	// crashed consumer, nor a lock the server forgot in a power loss.
	want := map[string][]string{
		"setnx-expire":          {"no-ttl A"},
		"del-after-expiry":      {"shared-token A,B", "plain-del A", "del-other A,B", "shared-token A,C"},
		"get-then-del":          {"get-then-del A", "del-other A,B"},
		"timestamp-del":         {"get-then-del B", "del-other B,A", "get-then-del C", "del-other C,B", "shared-token B,C"},
		"timestamp-skew":        {"timestamp-skew A,B"},
		"paused-holder":         nil,
		"subscribe-late":        nil,
		"signal-crash":          nil,
		"signal-ttl":            nil,
		"semaphore-skew":        nil,
		"stream-consumer-crash": nil,
		"crash-no-fsync":        nil, // the lost fsync is below the commands
	}
	for _, sc := range Scenarios() {
		if !sc.Broken() {
			continue
		}
		t.Run(sc.Name, func(t *testing.T) {
			w, ok := want[sc.Name]
			if !ok {
				t.Fatalf("a new broken scenario: say what the doctor finds in it")
			}
			findings := runDoctor(t, sc)
			if got := hazardsOf(findings); !slices.Equal(got, w) {
				t.Errorf("doctor found %q, want %q\n%s", got, w, report(findings))
			}
		})
	}
}

func TestDoctorSilentOnFixes(t *testing.T) {
	for _, sc := range Scenarios() {
		if sc.Broken() {
			continue
		}
		t.Run(sc.Name, func(t *testing.T) {
			if findings := runDoctor(t, sc); len(findings) != 0 {
				t.Errorf("doctor found %q on a fix:\n%s", hazardsOf(findings), report(findings))
			}
		})
	}
}

// The broken recipes, in runs the doctor can see whole.
func TestDoctorVariants(t *testing.T) {
	tests := []struct {
		name string
		run  func(l *Lab)
		want []string
	}{
		{
			// setnx-expire's recipe when the client does not crash: SETNX,
			// then EXPIRE in a second command.
			name: "setnx-then-expire",
			run: func(l *Lab) {
				a, b := l.client("A"), l.client("B")
				setnxExpire(a, 10*time.Second, nil)
				l.Wait(30*time.Second, "A's lock times out")
				setnxExpire(b, 10*time.Second, nil)
			},
			// Both store "1": the recipe's value is no token.
			want: []string{"setnx-expire A", "shared-token A,B", "setnx-expire B"},
		},
		{
			// SETNX + EXPIRE in one MULTI/EXEC: atomic, so safe.
			name: "setnx-expire-in-multi",
			run: func(l *Lab) {
				a := l.client("A")
				a.Tx([]any{"SETNX", "lock", "tok"}, []any{"EXPIRE", "lock", 10})
				luaRelease(a, "tok")
			},
		},
		{
			// paused-holder with the storage in minilock: A's write after
			// its lease ran out is a command the doctor sees, and A's late
			// compare-and-delete finds B's token.
			name: "paused-holder-storage-in-redis",
			run: func(l *Lab) {
				a, b := l.client("A"), l.client("B")
				ta := l.token()
				setNXPX(a, ta, 10*time.Second)
				a.Pause("a stop-the-world GC")
				l.Wait(11*time.Second, "A is paused")
				setNXPX(b, l.token(), 10*time.Second)
				b.Do("SET", "data", "B's data")
				l.Wait(4*time.Second, "A is still paused")
				a.Resume()
				a.Do("SET", "data", "A's data")
				luaRelease(a, ta)
			},
			want: []string{"lease-expired A"},
		},
		{
			// token-release's timing: A's release is late, but A wrote
			// nothing after its lease ran out. A late cleanup is no hazard.
			name: "late-release-without-work",
			run: func(l *Lab) {
				a, b := l.client("A"), l.client("B")
				ta := l.token()
				setNXPX(a, ta, 10*time.Second)
				a.Do("SET", "data", "A's data, in time")
				l.Wait(12*time.Second, "A works elsewhere, then is late")
				setNXPX(b, l.token(), 10*time.Second)
				luaRelease(a, ta)
			},
		},
		{
			// A SET NX lock with no TTL at all, released by its holder.
			name: "no-ttl-released",
			run: func(l *Lab) {
				a := l.client("A")
				a.Do("SET", "lock", "tok", "NX")
				luaRelease(a, "tok")
			},
			want: []string{"no-ttl A"},
		},
		{
			// B retries SET NX in a tight loop while A holds the lock.
			name: "spin",
			run: func(l *Lab) {
				a, b := l.client("A"), l.client("B")
				setNXPX(a, l.token(), 10*time.Second)
				tb := l.token()
				for range 40 {
					setNXPX(b, tb, 10*time.Second)
				}
			},
			want: []string{"spin B"},
		},
		{
			// The same retries, 5 ms apart (redsync's and redislock's
			// retry delays are of that order and more).
			name: "retry-with-backoff",
			run: func(l *Lab) {
				a, b := l.client("A"), l.client("B")
				setNXPX(a, l.token(), 10*time.Second)
				tb := l.token()
				for range 40 {
					setNXPX(b, tb, 10*time.Second)
					time.Sleep(5 * time.Millisecond)
				}
			},
		},
		{
			// WATCH, GET, then DEL in MULTI/EXEC that succeeds: the check
			// and the delete are one optimistic transaction.
			name: "watch-get-multi-del",
			run: func(l *Lab) {
				a := l.client("A")
				setNXPX(a, "tok", 10*time.Second)
				a.Watch("lock", func(w Watched) {
					if w.Do("GET", "lock").Str() == "tok" {
						w.Tx([]any{"DEL", "lock"})
					}
				})
			},
		},
		{
			// GET, then DEL inside MULTI/EXEC without a WATCH: still two
			// steps.
			name: "get-then-multi-del",
			run: func(l *Lab) {
				a := l.client("A")
				setNXPX(a, "tok", 10*time.Second)
				if a.Do("GET", "lock").Str() == "tok" {
					a.Tx([]any{"DEL", "lock"})
				}
			},
			want: []string{"get-then-del A"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc := &Scenario{Name: tt.name, Key: "lock", run: tt.run}
			findings := runDoctor(t, sc)
			if got := hazardsOf(findings); !slices.Equal(got, tt.want) {
				t.Errorf("doctor found %q, want %q\n%s", got, tt.want, report(findings))
			}
		})
	}
}

// The report and the picture of a finding: the lab's timeline, with the
// commands, their clients and the server's clock, and a well-formed SVG
// that marks the command.
func TestDoctorReportAndPicture(t *testing.T) {
	sc, _ := Lookup("del-after-expiry")
	findings := runDoctor(t, sc)
	text := report(findings)
	for _, want := range []string{
		"minilock doctor: 4 lock hazards",
		"3. del-other: a DEL removed a lock another client had set",
		"A's DEL at 22:13:35.000 removed \"lock\" = \"1\", which B had set",
		"t=+10.000s  minilock  (lock expires: its TTL ran out)",
		"t=+15.000s  A         DEL lock             (integer) 1   <-- del-other",
		"see: minilock lab del-after-expiry, fixed by token-release",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q:\n%s", want, text)
		}
	}
	pic := doctor.SVG(findings[2], "TestX")
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
	for _, want := range []string{">client A<", ">client B<", ">minilock<", "✗ t=+15.000s: del-other", "TestX: del-other"} {
		if !bytes.Contains(pic, []byte(want)) {
			t.Errorf("picture lacks %q", want)
		}
	}
}
