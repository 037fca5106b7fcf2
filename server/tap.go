package server

import (
	"slices"
	"sync"
	"time"

	"github.com/minilock/minilock/keyspace"
)

// Message is one message published on the server, as a Tap records it.
type Message struct {
	Channel string
	Payload string
	Shard   bool // sent with SPUBLISH
}

// A Tap records the messages published to channels that match its
// pattern, from the moment it was made: a test reads what its code under
// test PUBLISHed (lock releases, keyspace notifications) without a
// subscriber connection. A tap is an observer, not a subscriber: PUBLISH's
// count of receivers and PUBSUB's answers do not include it.
//
//	tap := s.Tap("redisson_lock__channel:*")
//	... release the lock ...
//	msgs := tap.Wait(t, 1, time.Second)
type Tap struct {
	pattern []byte
	mu      sync.Mutex
	msgs    []Message
	more    chan struct{} // signalled on each message
}

// Tap starts recording the messages published to channels matching
// pattern (a glob, as PSUBSCRIBE's).
func (s *Server) Tap(pattern string) *Tap {
	t := &Tap{pattern: []byte(pattern), more: make(chan struct{}, 1)}
	s.owner.Do(func() { s.pubsub.taps = append(s.pubsub.taps, t) })
	return t
}

// Publish sends message to channel as PUBLISH does and returns the number
// of clients that received it.
func (s *Server) Publish(channel, message string) (n int) {
	s.owner.Do(func() { n = s.publish([]byte(channel), []byte(message)) })
	return n
}

// Messages returns what the tap has recorded so far.
func (t *Tap) Messages() []Message {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.msgs)
}

// Wait returns the first n messages recorded, waiting up to timeout for
// them; it fails the test if they do not come.
func (t *Tap) Wait(tb interface {
	Helper()
	Fatalf(string, ...any)
}, n int, timeout time.Duration) []Message {
	tb.Helper()
	deadline := time.After(timeout)
	for {
		if m := t.Messages(); len(m) >= n {
			return m[:n]
		}
		select {
		case <-t.more:
		case <-deadline:
			tb.Fatalf("minilock: tap %q recorded %d messages in %v, want %d", t.pattern, len(t.Messages()), timeout, n)
			return nil
		}
	}
}

// tapMessage is called on the owner for every message published.
func (s *Server) tapMessage(channel, message []byte, shard bool) {
	for _, t := range s.pubsub.taps {
		if !keyspace.Match(t.pattern, string(channel)) {
			continue
		}
		t.mu.Lock()
		t.msgs = append(t.msgs, Message{Channel: string(channel), Payload: string(message), Shard: shard})
		t.mu.Unlock()
		select {
		case t.more <- struct{}{}:
		default:
		}
	}
}
