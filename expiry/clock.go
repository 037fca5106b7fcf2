// Package expiry is minilock's sense of time: the clock every deadline is
// read against, and the index that finds the next key to expire.
//
// Deadlines are absolute Unix milliseconds, never durations, so they cannot
// go stale or drift; a key expires once the clock is past its deadline
// (Redis's keyIsExpired: now > when).
package expiry

import (
	"sync"
	"time"
)

// Clock tells the time. The keyspace reads it once per command (and once per
// script), so a command sees a single instant.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// Moved returns nil for a clock that moves on its own. A clock that
	// only moves when told (Manual) returns a channel that receives after
	// each move, so the owner can run what fell due without polling.
	Moved() <-chan struct{}
}

// Real is the system clock.
type Real struct{}

// Now returns time.Now().
func (Real) Now() time.Time { return time.Now() }

// Moved returns nil: the real clock moves on its own.
func (Real) Moved() <-chan struct{} { return nil }

// Manual is a clock that stands still until it is moved, for tests and for
// replaying lock races deterministically. It is safe for concurrent use.
type Manual struct {
	mu    sync.Mutex
	now   time.Time
	moved chan struct{}
}

// NewManual returns a manual clock reading t.
func NewManual(t time.Time) *Manual {
	return &Manual{now: t, moved: make(chan struct{}, 1)}
}

// Now returns the clock's current reading.
func (m *Manual) Now() time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.now
}

// Moved returns the channel that receives after the clock moves.
func (m *Manual) Moved() <-chan struct{} { return m.moved }

// FastForward moves the clock forward by d (backward if d is negative).
func (m *Manual) FastForward(d time.Duration) {
	m.mu.Lock()
	m.now = m.now.Add(d)
	m.mu.Unlock()
	notify(m.moved)
}

// SetTime sets the clock to t.
func (m *Manual) SetTime(t time.Time) {
	m.mu.Lock()
	m.now = t
	m.mu.Unlock()
	notify(m.moved)
}

// Millis returns t as Unix milliseconds, the unit of every deadline.
func Millis(t time.Time) int64 { return t.UnixMilli() }

// Shifted is the real clock plus an offset that FastForward and SetTime
// change: keys expire in real time, and a test can also jump ahead. It is
// safe for concurrent use.
type Shifted struct {
	mu     sync.Mutex
	offset time.Duration
	moved  chan struct{}
}

// NewShifted returns a clock that reads the real time until it is moved.
func NewShifted() *Shifted { return &Shifted{moved: make(chan struct{}, 1)} }

// Now returns the real time plus the offset.
func (s *Shifted) Now() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return time.Now().Add(s.offset)
}

// Moved returns the channel that receives after the clock jumps.
func (s *Shifted) Moved() <-chan struct{} { return s.moved }

// FastForward moves the clock forward by d.
func (s *Shifted) FastForward(d time.Duration) {
	s.mu.Lock()
	s.offset += d
	s.mu.Unlock()
	notify(s.moved)
}

// SetTime makes the clock read t now, and run on from there.
func (s *Shifted) SetTime(t time.Time) {
	s.mu.Lock()
	s.offset = time.Until(t)
	s.mu.Unlock()
	notify(s.moved)
}

func notify(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default: // a notification is already pending; one is enough
	}
}
