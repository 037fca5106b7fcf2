// Package timeline is the picture of a lock's history that both `minilock
// lab` and the lock doctor draw: rows of commands, notes and messages on a
// simulated or server clock, printed as aligned text or drawn as an SVG
// sequence diagram. It knows nothing of servers or scenarios; the lab and
// the doctor fill in the rows and say which row to mark and why.
package timeline

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// Kind says what an Event is.
type Kind int

const (
	// Command is a client's command to minilock and the reply it got.
	Command Kind = iota
	// Write is a client's write to the protected storage and its answer.
	Write
	// Note is something that happens without a message: time passing, a
	// pause, a crash, a lease running out, the lock key expiring.
	Note
	// Push is what the server sends a client unasked, at the instant it
	// sends it: a pub/sub message, or the late reply to a blocking command
	// (Text names the command, Reply is what it answered).
	Push
)

// Actors that are not clients.
const (
	Server  = "minilock"
	Storage = "storage"
	Nobody  = "" // time passing
)

// Notes the picture recognises, to draw a crash or a paused lifeline: a
// Note whose text starts with one of them.
const (
	CrashNote  = "crashes"
	PauseNote  = "pauses"
	ResumeNote = "resumes"
)

// BlocksReply is the reply column of a command the server parked: its
// reply comes later, as a Push.
const BlocksReply = "(blocks)"

// Event is one row of a timeline.
type Event struct {
	At    time.Duration // time since the timeline started
	Actor string        // a client's name, Server, Storage or Nobody
	Kind  Kind
	Text  string // the command as sent, the write, or the note
	Reply string // the reply as received (Command, Write)
	// Accepted is set on a Write the storage accepted.
	Accepted bool

	// The state right after the event, for the verdict and the picture.

	// Holders are the clients that believe they hold the lock, sorted.
	Holders []string
	// Waiters are the clients waiting for the lock, sorted: parked in a
	// blocking command, or listening for a release message.
	Waiters []string
	// Lock is the lock key on the server.
	Lock LockState
}

// LockState is the lock key on the server, read directly (not through a
// client, so reading it changes nothing).
type LockState struct {
	Held    bool
	Value   string
	Owner   string // the client whose command gave the key its value
	Expires bool   // the key has a TTL
}

// Seconds formats a time as the timeline shows it: t=+10.001s.
func Seconds(d time.Duration) string {
	return fmt.Sprintf("t=+%.3fs", d.Seconds())
}

// Text writes the events as aligned columns: time, actor, command, reply;
// the row mark (when >= 0) gets label at its end.
func Text(w io.Writer, events []Event, mark int, label string) {
	if len(events) == 0 {
		return
	}
	actorW, textW := len("client"), len("command")
	for _, e := range events {
		actorW = max(actorW, len(e.Actor))
		switch {
		case e.Kind == Push && len(e.Text)+3 <= 56:
			textW = max(textW, len(e.Text)+3)
		case e.Kind != Note && len(e.Text) <= 56:
			textW = max(textW, len(e.Text))
		}
	}
	timeW := len(Seconds(events[len(events)-1].At))
	fmt.Fprintf(w, "  %-*s  %-*s  %-*s  %s\n", timeW, "time", actorW, "client", textW, "command", "reply")
	for i, e := range events {
		actor, text := e.Actor, e.Text
		if actor == Nobody {
			actor = "·"
		}
		line := fmt.Sprintf("  %-*s  %-*s  ", timeW, Seconds(e.At), actorW, actor)
		switch e.Kind {
		case Note:
			line += "(" + text + ")"
		case Push:
			line += fmt.Sprintf("%-*s  %s", textW, "<- "+text, e.Reply)
		default:
			line += fmt.Sprintf("%-*s  %s", textW, text, e.Reply)
		}
		if i == mark {
			line += "   <-- " + label
		}
		fmt.Fprintln(w, strings.TrimRight(line, " "))
	}
}
