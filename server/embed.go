package server

import (
	"testing"
	"time"

	"github.com/minilock/minilock/expiry"
)

// The embedding API: what a Go test uses to run minilock as a fixture.

// RunT starts a server on a free loopback port for the test t and closes it
// when the test ends. Unless cfg sets a Clock, the server runs on a shifted
// real clock: keys expire in real time, and FastForward jumps ahead.
//
//	s := server.RunT(t)
//	rdb := redis.NewClient(&redis.Options{Addr: s.Addr()})
//	s.FastForward(30 * time.Second)
func RunT(t testing.TB, cfg ...Config) *Server {
	t.Helper()
	var c Config
	if len(cfg) > 0 {
		c = cfg[0]
	}
	if c.Clock == nil {
		c.Clock = expiry.NewShifted()
	}
	s, err := Start(c)
	if err != nil {
		t.Fatalf("minilock: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// mover is a clock that can be moved: expiry.Manual and expiry.Shifted.
type mover interface {
	FastForward(time.Duration)
	SetTime(time.Time)
}

// FastForward moves the server's clock forward by d and expires what fell
// due: when it returns, those keys are gone, as if d had passed. It panics
// if the server runs on the real clock (use RunT, or Config.Clock with
// expiry.NewManual or expiry.NewShifted).
func (s *Server) FastForward(d time.Duration) {
	s.moveClock(func(m mover) { m.FastForward(d) })
}

// SetTime sets the server's clock to t and expires what fell due, like
// FastForward.
func (s *Server) SetTime(t time.Time) {
	s.moveClock(func(m mover) { m.SetTime(t) })
}

func (s *Server) moveClock(move func(mover)) {
	m, ok := s.cfg.Clock.(mover)
	if !ok {
		panic("minilock: the server's clock cannot be moved; configure expiry.NewManual or expiry.NewShifted")
	}
	s.ks.DoFunc(func() {
		move(m)
		s.ks.Sweep()
	})
}

// Now returns the time on the server's clock.
func (s *Server) Now() time.Time { return s.cfg.Clock.Now() }

// Get returns key's value in database 0, and whether it exists.
func (s *Server) Get(key string) (string, bool) { return s.DB(0).Get(key) }

// Set sets key to value in database 0, without a TTL.
func (s *Server) Set(key, value string) { s.DB(0).Set(key, value, 0) }

// SetTTL sets key to value in database 0 with a time to live.
func (s *Server) SetTTL(key, value string, ttl time.Duration) { s.DB(0).Set(key, value, ttl) }

// TTL returns key's time to live in database 0: 0 for a key without one or
// a missing key.
func (s *Server) TTL(key string) time.Duration {
	ttl, _ := s.DB(0).TTL(key)
	return ttl
}

// Del deletes key from database 0 and reports whether it existed.
func (s *Server) Del(key string) bool { return s.DB(0).Del(key) }

// Keys returns the keys of database 0, sorted.
func (s *Server) Keys() []string { return s.DB(0).Keys() }

// FlushAll empties every database.
func (s *Server) FlushAll() { s.ks.DoFunc(s.ks.FlushAll) }

// CheckGet fails the test unless key holds want in database 0.
func (s *Server) CheckGet(t testing.TB, key, want string) {
	t.Helper()
	got, ok := s.Get(key)
	if !ok {
		t.Errorf("minilock: key %q does not exist, want %q", key, want)
		return
	}
	if got != want {
		t.Errorf("minilock: key %q = %q, want %q", key, got, want)
	}
}

// DB is direct access to one database of a Server.
type DB struct {
	s *Server
	n int
}

// DB returns direct access to database n.
func (s *Server) DB(n int) DB { return DB{s, n} }

// Get returns key's value and whether it exists.
func (d DB) Get(key string) (val string, ok bool) {
	d.s.ks.DoFunc(func() { val, ok = d.s.ks.Value(d.n, key) })
	return val, ok
}

// Set sets key to value, with a time to live when ttl > 0.
func (d DB) Set(key, value string, ttl time.Duration) {
	d.s.ks.DoFunc(func() { d.s.ks.SetValue(d.n, key, value, ttl) })
}

// TTL returns key's time to live (0 when it has none) and whether the key
// exists.
func (d DB) TTL(key string) (ttl time.Duration, ok bool) {
	d.s.ks.DoFunc(func() { ttl, ok = d.s.ks.TTL(d.n, key) })
	return ttl, ok
}

// Del deletes key and reports whether it existed.
func (d DB) Del(key string) (ok bool) {
	d.s.ks.DoFunc(func() { ok = d.s.ks.Delete(d.n, key) })
	return ok
}

// Keys returns the keys, sorted.
func (d DB) Keys() (keys []string) {
	d.s.ks.DoFunc(func() { keys = d.s.ks.Keys(d.n) })
	return keys
}
