package lab

import (
	"fmt"
	"slices"
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
	// IdleWait: a client kept waiting for the lock while the lock was
	// free: it missed the wake-up, or its wait outlasted the lock.
	IdleWait
	// Overbooked: more clients believed they held a permit of a semaphore
	// than it has permits.
	Overbooked
	// StuckJob: a stream's entry stayed pending for a consumer that no
	// longer works on it, so the job never finishes.
	StuckJob
)

func (o Outcome) String() string {
	switch o {
	case TwoHolders:
		return "two holders"
	case StaleWrite:
		return "stale write"
	case NeverFreed:
		return "never freed"
	case IdleWait:
		return "idle wait"
	case Overbooked:
		return "overbooked"
	case StuckJob:
		return "stuck job"
	}
	return "safe"
}

// Verdict is the judgement of one run, and where it was reached.
type Verdict struct {
	Outcome Outcome
	// Index is the event where it happened; -1 when Safe.
	Index int
	At    time.Duration
	// Who are the clients involved: the two holders (every holder, for a
	// semaphore), the stale writer and the actual holder, the lock's last
	// owner, or the client that waited.
	Who []string
	// Idle is how long the waiter waited while the lock was free, from
	// Since (IdleWait).
	Idle, Since time.Duration
	// Permits is the semaphore's number of permits (Overbooked).
	Permits int
}

// Judge computes the verdict from a timeline of a lock (permits <= 1) or a
// semaphore with that many permits: the first event after which more
// clients believed they held it than it allows (two, for a lock), the first
// write the storage accepted from a client other than the lock's owner on
// the server, or the first event where a client stopped waiting for the
// lock later than the lock became free; failing all three, a lock still on
// the server at the end with no TTL and nobody who believes they hold it.
func Judge(events []Event, permits int) Verdict {
	// free[w]: since when the lock has been free while w waits for it.
	free := map[string]time.Duration{}
	var waiting []string
	for i, e := range events {
		switch {
		case permits <= 1 && len(e.Holders) >= 2:
			return Verdict{Outcome: TwoHolders, Index: i, At: e.At, Who: e.Holders}
		case permits > 1 && len(e.Holders) > permits:
			return Verdict{Outcome: Overbooked, Index: i, At: e.At, Who: e.Holders, Permits: permits}
		case e.Kind == Write && e.Accepted && e.Lock.Owner != e.Actor:
			return Verdict{Outcome: StaleWrite, Index: i, At: e.At, Who: []string{e.Actor, e.Lock.Owner}}
		}
		for _, w := range waiting {
			if since, ok := free[w]; ok && !slices.Contains(e.Waiters, w) && e.At > since {
				return idle(i, e.At, w, since)
			}
		}
		for _, w := range e.Waiters {
			_, ok := free[w]
			switch {
			case e.Lock.Held:
				delete(free, w)
			case !ok:
				free[w] = e.At
			}
		}
		for _, w := range waiting {
			if !slices.Contains(e.Waiters, w) {
				delete(free, w)
			}
		}
		waiting = e.Waiters
	}
	n := len(events)
	if n == 0 {
		return Verdict{Outcome: Safe, Index: -1}
	}
	last := events[n-1]
	for _, w := range last.Waiters {
		if since, ok := free[w]; ok && last.At > since {
			return idle(n-1, last.At, w, since) // still waiting at the end
		}
	}
	if last.Lock.Held && !last.Lock.Expires && len(last.Holders) == 0 {
		return Verdict{Outcome: NeverFreed, Index: n - 1, At: last.At, Who: []string{last.Lock.Owner}}
	}
	return Verdict{Outcome: Safe, Index: -1}
}

func idle(i int, at time.Duration, who string, since time.Duration) Verdict {
	return Verdict{Outcome: IdleWait, Index: i, At: at, Who: []string{who}, Idle: at - since, Since: since}
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
	case IdleWait:
		return fmt.Sprintf("%s waited %.3fs for a free lock (free from %s, %s waited until %s)", v.Who[0], v.Idle.Seconds(), Seconds(v.Since), v.Who[0], Seconds(v.At))
	case Overbooked:
		return fmt.Sprintf("%d clients held the semaphore's %d permits at %s (%s)", len(v.Who), v.Permits, Seconds(v.At), names(v.Who))
	case StuckJob:
		return fmt.Sprintf("a job is stuck: it is still pending for %s at %s, and nobody works on it", v.Who[0], Seconds(v.At))
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
	case IdleWait:
		return fmt.Sprintf("%s waited %.3fs on a free lock", v.Who[0], v.Idle.Seconds())
	case Overbooked:
		return fmt.Sprintf("%s hold %d permits of %d", names(v.Who), len(v.Who), v.Permits)
	case StuckJob:
		return "still pending, and nobody works on it"
	}
	return ""
}

// names lists clients as a sentence does: "A", "A and B", "A, B and C".
func names(who []string) string {
	if len(who) <= 2 {
		return strings.Join(who, " and ")
	}
	return strings.Join(who[:len(who)-1], ", ") + " and " + who[len(who)-1]
}
