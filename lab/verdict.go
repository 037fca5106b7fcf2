package lab

import (
	"fmt"
	"strings"
	"time"
)

// Outcome is what a scenario's run showed about the lock.
type Outcome int

const (
	// Safe: at no instant did two clients believe they held the lock, no
	// stale write was accepted, and the lock did not outlive its holder.
	Safe Outcome = iota
	// TwoHolders: two clients believed they held the lock at once.
	TwoHolders
	// StaleWrite: the storage accepted a write from a client that no longer
	// held the lock.
	StaleWrite
	// NeverFreed: the lock outlived its holder with no TTL, so nobody can
	// ever take it again.
	NeverFreed
)

func (o Outcome) String() string {
	switch o {
	case TwoHolders:
		return "two holders"
	case StaleWrite:
		return "stale write"
	case NeverFreed:
		return "never freed"
	}
	return "safe"
}

// Verdict is the judgement of one run, and where it was reached.
type Verdict struct {
	Outcome Outcome
	// Index is the event where it happened; -1 when Safe.
	Index int
	At    time.Duration
	// Who are the clients involved: the two holders, the stale writer and
	// the actual holder, or the lock's last owner.
	Who []string
}

// Judge computes the verdict from a timeline: the first event after which
// two clients believed they held the lock, or the first write the storage
// accepted from a client other than the lock's owner on the server; failing
// both, a lock still on the server at the end with no TTL and nobody who
// believes they hold it.
func Judge(events []Event) Verdict {
	for i, e := range events {
		if len(e.Holders) >= 2 {
			return Verdict{Outcome: TwoHolders, Index: i, At: e.At, Who: e.Holders}
		}
		if e.Kind == Write && e.Accepted && e.Lock.Owner != e.Actor {
			return Verdict{Outcome: StaleWrite, Index: i, At: e.At, Who: []string{e.Actor, e.Lock.Owner}}
		}
	}
	if n := len(events); n > 0 {
		last := events[n-1]
		if last.Lock.Held && !last.Lock.Expires && len(last.Holders) == 0 {
			return Verdict{Outcome: NeverFreed, Index: n - 1, At: last.At, Who: []string{last.Lock.Owner}}
		}
	}
	return Verdict{Outcome: Safe, Index: -1}
}

// String is the verdict line: "two clients held the lock at t=+16.000s (B
// and C)", "safe".
func (v Verdict) String() string {
	switch v.Outcome {
	case TwoHolders:
		return fmt.Sprintf("two clients held the lock at %s (%s)", Seconds(v.At), strings.Join(v.Who, " and "))
	case StaleWrite:
		holder := "nobody held it"
		if v.Who[1] != "" {
			holder = v.Who[1] + " held it"
		}
		return fmt.Sprintf("the storage accepted a stale write at %s (from %s; %s)", Seconds(v.At), v.Who[0], holder)
	case NeverFreed:
		return fmt.Sprintf("the lock never freed: %s's lock is still there at %s, with no TTL and nobody holding it", v.Who[0], Seconds(v.At))
	}
	return "safe"
}

// Short is the marker for the timeline row where the verdict was reached.
func (v Verdict) Short() string {
	switch v.Outcome {
	case TwoHolders:
		return strings.Join(v.Who, " and ") + " both hold the lock"
	case StaleWrite:
		return "stale write accepted"
	case NeverFreed:
		return "still locked, with no TTL and nobody holding it"
	}
	return ""
}
