// Package lab replays the classic Redis-lock races, and their fixes, against
// an embedded minilock, through real go-redis clients, on a manual clock.
//
// Each Scenario scripts one interleaving: which client sends what, and
// when time passes. Nothing runs concurrently (one goroutine drives every
// client, and time moves only when the scenario says so), so every run
// prints the same timeline. What is scripted is the order of the steps, not
// their outcome: the replies come from the server, each client decides from
// its replies whether it holds the lock, as the recipe's code would, and the
// Verdict is computed from those beliefs, from the lock key on the server and
// from what the protected resource accepted.
//
// Waiting clients (a BLPOP parked on the server, a subscriber listening for
// a release message) are scripted the same way: the scenario says when a
// client starts to wait, and the lab delivers to it what the server sent,
// at the simulated instant the server sent it, so that how long a waiter
// waited for a free lock is measured, not assumed.
package lab

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/minilock/minilock/doctor"
	"github.com/minilock/minilock/server"
)

// Scenario is one replayable interleaving of a lock recipe.
type Scenario struct {
	// Name is what `minilock lab <name>` takes.
	Name string
	// Title says in a few words what the recipe does.
	Title string
	// Fixes names the broken scenario this one repairs; empty for a broken
	// recipe.
	Fixes string
	// Explain is the short explanation printed before the timeline.
	Explain string
	// Expect is the outcome the scenario demonstrates.
	Expect Outcome
	// Key is the lock's key: a string, or for a semaphore (Permits > 1) the
	// sorted set of its holders.
	Key string
	// Permits is how many clients a semaphore admits at once; 0 for a lock,
	// which admits one.
	Permits int
	// Fenced makes the storage refuse writes with an old fencing token.
	Fenced bool
	// Group makes Key a stream used as a work queue and names its
	// consumer group: the "lock" is then the group's pending entries (a
	// job handed to a consumer and not yet acknowledged), and a holder a
	// consumer that believes it is working on one.
	Group string
	// AppendFsync turns the AOF on with this appendfsync ("always",
	// "everysec", "no") in a directory of its own, for a scenario in which
	// the server loses power (Lab.PowerLoss); empty: no AOF.
	AppendFsync string
	// RestartDelay is the server's restart-delay.
	RestartDelay time.Duration

	run func(l *Lab)
}

// Broken reports whether the scenario shows a broken recipe.
func (sc *Scenario) Broken() bool { return sc.Fixes == "" }

// Kind says what the scenario is: "broken recipe", or "fix for <name>".
func (sc *Scenario) Kind() string {
	if sc.Broken() {
		return "broken recipe"
	}
	return "fix for " + sc.Fixes
}

// Scenarios returns every scenario, each broken recipe followed by its fixes.
func Scenarios() []*Scenario { return scenarios }

// Lookup returns the scenario called name.
func Lookup(name string) (*Scenario, bool) {
	for _, sc := range scenarios {
		if sc.Name == name {
			return sc, true
		}
	}
	return nil, false
}

// Result is what one run of a scenario produced.
type Result struct {
	Scenario *Scenario
	Clients  []string // the clients' names, in the order they appeared
	Events   []Event
	Verdict  Verdict
}

// AsExpected reports whether the verdict is the outcome the scenario
// expects.
func (r *Result) AsExpected() bool { return r.Verdict.Outcome == r.Scenario.Expect }

// Run replays sc against a fresh embedded server and judges what happened.
// An error means the lab itself failed (the server did not start, a client
// lost its connection), not that the recipe did.
func Run(sc *Scenario) (*Result, error) {
	r, _, err := runScenario(sc, nil)
	return r, err
}

// RunWithDoctor is Run with the lock doctor watching the server, and what
// it found (docs/doctor.md).
func RunWithDoctor(sc *Scenario) (*Result, []doctor.Finding, error) {
	return runScenario(sc, &server.DoctorConfig{})
}

func runScenario(sc *Scenario, dc *server.DoctorConfig) (*Result, []doctor.Finding, error) {
	l, err := newLab(sc, dc)
	if err != nil {
		return nil, nil, err
	}
	defer l.close()
	sc.run(l)
	if l.err != nil {
		return nil, nil, fmt.Errorf("lab %s: %w", sc.Name, l.err)
	}
	r := &Result{Scenario: sc, Events: l.events}
	for _, c := range l.clients {
		r.Clients = append(r.Clients, c.Name)
	}
	r.Verdict = Judge(r.Events, sc.Permits)
	if sc.Group != "" && r.Verdict.Outcome == NeverFreed {
		// A pending entry nobody works on is a job that never finishes.
		r.Verdict.Outcome = StuckJob
	}
	findings, _ := l.srv.DoctorFindings()
	return r, findings, nil
}

// List writes one line per scenario.
func List(w io.Writer) {
	nameW, kindW := 0, 0
	for _, sc := range scenarios {
		nameW, kindW = max(nameW, len(sc.Name)), max(kindW, len(sc.Kind()))
	}
	for _, sc := range scenarios {
		fmt.Fprintf(w, "%-*s %-*s %s\n", nameW, sc.Name, kindW, sc.Kind(), sc.Title)
	}
}

// Print writes r as the lab shows it: title, explanation, timeline and
// verdict.
func Print(w io.Writer, r *Result) {
	sc := r.Scenario
	fmt.Fprintf(w, "== %s: %s (%s)\n\n", sc.Name, sc.Title, sc.Kind())
	for _, line := range wrap(sc.Explain, 76) {
		fmt.Fprintf(w, "  %s\n", line)
	}
	fmt.Fprintln(w)
	printTimeline(w, r.Events, r.Verdict)
	fmt.Fprintf(w, "\nverdict: %s", r.Verdict)
	if r.AsExpected() {
		fmt.Fprintf(w, " (as expected)\n")
	} else {
		fmt.Fprintf(w, " (UNEXPECTED: the scenario expects %s)\n", sc.Expect)
	}
}

// wrap breaks text into lines of at most width runes, at spaces.
func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		switch {
		case line == "":
			line = word
		case len([]rune(line))+1+len([]rune(word)) > width:
			lines = append(lines, line)
			line = word
		default:
			line += " " + word
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}
