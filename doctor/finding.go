package doctor

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/minilock/minilock/internal/timeline"
)

// Hazard names one unsafe lock recipe (docs/doctor.md defines each).
type Hazard string

// The hazards the doctor flags.
const (
	SetnxExpire   Hazard = "setnx-expire"   // SETNX, then a separate EXPIRE
	NoTTL         Hazard = "no-ttl"         // a lock key with no TTL
	PlainDel      Hazard = "plain-del"      // released with a plain DEL
	DelOther      Hazard = "del-other"      // a DEL removed another client's lock
	GetThenDel    Hazard = "get-then-del"   // GET, compare, DEL: two commands, no WATCH
	LeaseExpired  Hazard = "lease-expired"  // the holder kept working after its lease ran out
	SharedToken   Hazard = "shared-token"   // two clients took the lock with the same value
	TimestampSkew Hazard = "timestamp-skew" // timestamp-lock writers' clocks disagree
	Spin          Hazard = "spin"           // SET NX in a tight loop
)

// Hazards lists every hazard, in the order docs/doctor.md gives them.
var Hazards = []Hazard{SetnxExpire, NoTTL, PlainDel, DelOther, GetThenDel, LeaseExpired, SharedToken, TimestampSkew, Spin}

// hazardInfo is what the report says of a hazard: its one-line title, the
// fix, and the `minilock lab` scenarios that show it and its fix.
var hazardInfo = map[Hazard]struct{ title, fix, lab string }{
	SetnxExpire:   {"lock taken by SETNX and given its TTL by a separate EXPIRE", "take the lock with one SET key token NX PX ttl", "setnx-expire, fixed by set-nx-px"},
	NoTTL:         {"a lock key with no TTL", "give every lock a TTL in the command that takes it (SET ... NX PX)", "setnx-expire, fixed by set-nx-px"},
	PlainDel:      {"lock released by a plain DEL", "release with a compare-and-delete script on a random token", "del-after-expiry, fixed by token-release"},
	DelOther:      {"a DEL removed a lock another client had set", "release with a compare-and-delete script on a random token", "del-after-expiry, fixed by token-release"},
	GetThenDel:    {"check-then-delete release in two commands, without WATCH", "compare and delete in one script, or WATCH the key before the GET", "get-then-del, fixed by lua-release and watch-release"},
	LeaseExpired:  {"a holder kept using a lock after its lease ran out", "stop work when the lease ends (extend it in time), and fence the resource", "paused-holder, fixed by fencing"},
	SharedToken:   {"the same token used by two clients", "give each acquisition its own random token", "del-after-expiry, fixed by token-release"},
	TimestampSkew: {"GETSET timestamp lock whose timestamps are far from the server's clock", "let the server time the lock: SET key token NX PX ttl", "timestamp-skew, fixed by set-nx-px"},
	Spin:          {"a client spinning on SET NX without backing off", "back off between tries (with jitter), or wait for a release message", "subscribe-first, signal-pttl (waiting without polling)"},
}

// Title is the hazard's one-line description.
func (h Hazard) Title() string { return hazardInfo[h].title }

// Fix says how to repair the recipe.
func (h Hazard) Fix() string { return hazardInfo[h].fix }

// Lab names the `minilock lab` scenarios that show the hazard and its fix.
func (h Hazard) Lab() string { return hazardInfo[h].lab }

// Finding is one hazard the doctor saw, with its evidence.
type Finding struct {
	Hazard Hazard
	DB     int
	Key    string
	// At is the server's clock, Unix ms, at the command that showed it;
	// Last at the latest of its Repeats (the same hazard on the same key
	// between the same clients, counted rather than repeated).
	At, Last int64
	Repeats  int
	// Clients are the connections involved, by name (or id=N).
	Clients []string
	// Summary says what happened, with the evidence's commands and times.
	Summary string
	// Evidence is the lock key's recent history, the command that showed
	// the hazard last.
	Evidence []Evidence
}

// Evidence is one row of a finding's history: a command with its client,
// the server's clock and the reply, or a note of the doctor's (the key
// expiring).
type Evidence struct {
	At      int64 // server clock, Unix ms
	Client  string
	Addr    string
	Command string
	Reply   string
	Note    bool
	// The lock key after the row.
	Exists  bool
	Value   string
	Owner   string
	Expires bool
}

// find records a finding on lk, at row rw (the last of lk's rows). The
// same hazard on the same key between the same clients is one finding,
// counted in Repeats.
func (d *Doctor) find(lk *lock, h Hazard, rw row, clients []string, summary string) {
	clients = slices.Compact(slices.Clone(clients))
	tag := string(h) + "\x00" + strings.Join(clients, "\x00")
	if i, ok := lk.seen[tag]; ok {
		if i >= 0 && i < len(d.findings) {
			d.findings[i].Repeats++
			d.findings[i].Last = rw.at
		}
		return
	}
	if len(d.findings) >= d.cfg.Findings {
		d.dropped++
		if len(lk.seen) < seenPerKey {
			lk.seen[tag] = -1
		}
		return // counted, not reported: a long run's log does not flood
	}
	f := Finding{Hazard: h, DB: lk.id.db, Key: lk.id.key, At: rw.at, Last: rw.at, Clients: clients, Summary: summary}
	for _, x := range lk.rows {
		f.Evidence = append(f.Evidence, Evidence{
			At: x.at, Client: x.who, Addr: x.addr, Command: x.text, Reply: x.reply, Note: x.note,
			Exists: x.state.Exists, Value: x.state.Value, Owner: x.owner, Expires: x.state.Deadline > 0,
		})
	}
	if len(lk.seen) < seenPerKey {
		lk.seen[tag] = len(d.findings)
	}
	d.findings = append(d.findings, f)
	if d.cfg.OnFinding != nil {
		d.cfg.OnFinding(f)
	}
}

// Report writes the findings as text: each hazard, what happened, the fix,
// the lab scenario, and the key's history as the lab's timeline prints it.
func Report(w io.Writer, findings []Finding, dropped int) {
	if len(findings) == 0 && dropped == 0 {
		fmt.Fprintln(w, "minilock doctor: no lock hazards")
		return
	}
	n := len(findings) + dropped
	fmt.Fprintf(w, "minilock doctor: %d lock hazard%s\n", n, plural(n))
	for i, f := range findings {
		fmt.Fprintf(w, "\n%d. %s: %s\n", i+1, f.Hazard, f.Hazard.Title())
		fmt.Fprintf(w, "   key %q (db %d), at %s by the server's clock\n", f.Key, f.DB, time.UnixMilli(f.At).UTC().Format("2006-01-02 15:04:05.000"))
		if f.Repeats > 0 {
			fmt.Fprintf(w, "   seen %d more time%s, the last at %s\n", f.Repeats, plural(f.Repeats), clock(f.Last))
		}
		for _, line := range wrap(f.Summary, 74) {
			fmt.Fprintf(w, "   %s\n", line)
		}
		fmt.Fprintf(w, "   fix: %s\n", f.Hazard.Fix())
		fmt.Fprintf(w, "   see: minilock lab %s\n\n", f.Hazard.Lab())
		events, clients := f.events()
		timeline.Text(w, events, len(events)-1, string(f.Hazard))
		fmt.Fprintf(w, "   clients: %s\n", strings.Join(clients, ", "))
	}
	if dropped > 0 {
		fmt.Fprintf(w, "\n(%d more not kept)\n", dropped)
	}
}

// events is f's evidence as timeline rows, times from its first row, and
// the clients with their addresses.
func (f *Finding) events() ([]timeline.Event, []string) {
	var out []timeline.Event
	var clients []string
	if len(f.Evidence) == 0 {
		return nil, nil
	}
	start := f.Evidence[0].At
	for _, e := range f.Evidence {
		ev := timeline.Event{
			At:    time.Duration(e.At-start) * time.Millisecond,
			Actor: e.Client, Kind: timeline.Command, Text: e.Command, Reply: e.Reply,
			Lock: timeline.LockState{Held: e.Exists, Value: e.Value, Owner: e.Owner, Expires: e.Expires},
		}
		if e.Note {
			ev.Actor, ev.Kind = timeline.Server, timeline.Note
		} else if c := e.Client + " " + e.Addr; e.Addr != "" && !slices.Contains(clients, c) {
			clients = append(clients, c)
		}
		out = append(out, ev)
	}
	return out, clients
}

// SVG draws f as `minilock lab` draws a scenario: a lane per client and one
// for minilock, shaded while the lock key exists in the colour of the
// client that set it, and the command that showed the hazard marked.
func SVG(f Finding, test string) []byte {
	events, _ := f.events()
	var lanes []string
	for _, e := range events {
		if e.Kind == timeline.Command && !slices.Contains(lanes, e.Actor) {
			lanes = append(lanes, e.Actor)
		}
	}
	heading := string(f.Hazard) + ": " + f.Hazard.Title()
	if test != "" {
		heading = test + ": " + heading
	}
	return timeline.SVG(&timeline.Chart{
		DocTitle: "minilock doctor: " + string(f.Hazard),
		Heading:  heading,
		Subtitle: fmt.Sprintf("key %q, db %d · fix: %s · see minilock lab %s", f.Key, f.DB, f.Hazard.Fix(), f.Hazard.Lab()),
		Key:      f.Key,
		Clients:  lanes,
		Events:   events,
		Mark:     timeline.Mark{Index: len(events) - 1, Label: string(f.Hazard), Lanes: f.Clients},
		Verdict:  clip(f.Summary, 160),
		Bad:      true,
		Legend: []string{
			"shaded minilock lane: the lock key exists, in the colour of the client that set it",
			"solid arrow: command as sent · dashed arrow: reply as received · time runs down, one row per command, by the server's clock",
			"the marked row is the command that showed the hazard; the rows above it are the key's recent history",
		},
	})
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// wrap breaks text into lines of at most width bytes, at spaces.
func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		switch {
		case line == "":
			line = word
		case len(line)+1+len(word) > width:
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
