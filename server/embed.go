package server

import (
	"crypto/tls"
	"errors"
	"net"
	"os"
	"time"

	"github.com/minilock/minilock/expiry"
	"github.com/minilock/minilock/server/internal/edge"
)

// The embedding API: what a Go test uses to run minilock as a fixture.
//
//	s := server.RunT(t, server.Manual())          // started; closed by t.Cleanup
//	rdb := redis.NewClient(&redis.Options{Addr: s.Addr()})
//	rdb.SetNX(ctx, "lock", "me", 30*time.Second)
//	s.CheckTTL(t, "lock", 30*time.Second)
//	s.FastForward(30*time.Second + time.Millisecond) // the lock expires now
//
// Every accessor below (Get, Set, TTL, Keys ...) runs on the keyspace owner
// goroutine, as a command would, so a test may call them while clients are
// connected and see a consistent state.

// TB is the part of testing.TB that RunT and the Check helpers use. It is
// an interface of our own, as miniredis's Tester is, so that the binary,
// which links this package, does not link the testing package; a
// *testing.T, *testing.B or *testing.F satisfies it.
type TB interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
	Cleanup(func())
}

// RunT starts a server on a free loopback port for the test t and closes it
// when the test ends. Unless cfg sets a Clock, the server runs on a shifted
// real clock: keys expire in real time, and FastForward jumps ahead.
// MINILOCK_EDGE in the environment picks the network edge (EdgeFromEnv).
//
//	s := server.RunT(t)
//	rdb := redis.NewClient(&redis.Options{Addr: s.Addr()})
//	s.FastForward(30 * time.Second)
func RunT(t TB, cfg ...Config) *Server {
	t.Helper()
	var c Config
	if len(cfg) > 0 {
		c = cfg[0]
	}
	if c.Clock == nil {
		c.Clock = expiry.NewShifted()
	}
	if td, ok := t.(interface{ TempDir() string }); ok && c.Dir == "" {
		c.Dir = td.TempDir() // SAVE writes there, not into the test's package
	}
	EdgeFromEnv(&c)
	s, err := Start(c)
	if err != nil {
		t.Fatalf("minilock: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	if c.Doctor != nil {
		// Registered after Close, so it runs first, on a live server.
		t.Cleanup(func() { s.checkDoctor(t) })
	}
	return s
}

// EdgeFromEnv applies the environment variable MINILOCK_EDGE to cfg:
// "epoll" turns Config.EventLoop on, "goroutine" turns it off, anything
// else leaves it. The binary and RunT call it, so that a whole test suite
// (or every server a benchmark starts) runs on the edge the variable
// names; Start does not, so an embedder's Config is what it says.
func EdgeFromEnv(cfg *Config) {
	switch os.Getenv("MINILOCK_EDGE") {
	case "epoll":
		cfg.EventLoop = true
	case "goroutine":
		cfg.EventLoop = false
	}
}

// Manual returns a Config whose clock stands still, at the real time of the
// call, until FastForward or SetTime moves it. Nothing expires behind the
// test's back and TTLs read back exactly, which a moving clock cannot
// promise; a client that computes absolute times (EXPIREAT) still agrees
// with the server, because the clock starts at the real time.
//
//	s := server.RunT(t, server.Manual())
func Manual() Config {
	return Config{Clock: expiry.NewManual(time.Now())}
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
	s.owner.Do(func() {
		move(m)
		s.blocking.Fire(s.ks.Now())
		s.ks.Sweep()
		s.serveReady()
	})
}

// Now returns the time on the server's clock.
func (s *Server) Now() time.Time { return s.cfg.Clock.Now() }

// The Server's helpers below (and those of embed_types.go) work on the
// database Select picked: 0 unless changed.

// Get returns key's value, and whether it exists.
func (s *Server) Get(key string) (string, bool) { return s.sel().Get(key) }

// Set sets key to value, without a TTL.
func (s *Server) Set(key, value string) { s.sel().Set(key, value, 0) }

// SetTTL sets key to value with a time to live.
func (s *Server) SetTTL(key, value string, ttl time.Duration) { s.sel().Set(key, value, ttl) }

// TTL returns key's time to live: 0 for a key without one or a missing
// key.
func (s *Server) TTL(key string) time.Duration {
	ttl, _ := s.sel().TTL(key)
	return ttl
}

// Exists reports whether key exists.
func (s *Server) Exists(key string) bool { return s.sel().Exists(key) }

// Del deletes key and reports whether it existed.
func (s *Server) Del(key string) bool { return s.sel().Del(key) }

// Keys returns the keys, sorted.
func (s *Server) Keys() []string { return s.sel().Keys() }

// FlushAll empties every database.
func (s *Server) FlushAll() { s.owner.Do(s.ks.FlushAll) }

// CheckGet fails the test unless key holds want.
func (s *Server) CheckGet(t TB, key, want string) {
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

// CheckTTL fails the test unless key exists with time to live
// want (0: no TTL). It compares exactly, so it suits a server on a manual
// clock (Manual), where a TTL does not run down between two reads.
func (s *Server) CheckTTL(t TB, key string, want time.Duration) {
	t.Helper()
	got, ok := s.sel().TTL(key)
	switch {
	case !ok:
		t.Errorf("minilock: key %q does not exist, want TTL %v", key, want)
	case got != want:
		t.Errorf("minilock: key %q has TTL %v, want %v", key, got, want)
	}
}

// ErrClosed is returned by Restart on a server that was closed.
var ErrClosed = errors.New("server: closed")

// restartWait bounds how long Restart waits for the old connections'
// goroutines to finish: a script stuck past it is still stopped by Close.
const restartWait = 5 * time.Second

// Restart stops the server and starts it again on the same addresses,
// keeping the data, as a redis-server that reloads its dump file would: every
// connection is closed (clients see the connection drop and reconnect), the
// script cache is emptied (clients see NOSCRIPT and send EVAL again), and
// Config.RestartDelay refuses writes again. A command in flight when
// Restart cuts its connection may or may not have run, as with a real
// restart. The clock is not touched.
//
// Restart must not run concurrently with Close or another Restart.
func (s *Server) Restart() error {
	return s.relisten(nil, nil, func() {
		s.owner.Do(func() {
			s.lua.Flush()
			s.writableAt = s.ks.Now() + s.cfg.RestartDelay.Milliseconds()
		})
	})
}

// Unlisten stops accepting connections and closes every open one, as a
// server going down would, but keeps the data, the clock and the owner:
// direct access goes on working, and Listen serves again. Addr still
// returns the address it listened on.
//
// Unlisten and Listen must not run concurrently with each other, Close or
// Restart.
func (s *Server) Unlisten() {
	for _, ln := range s.lns {
		ln.StopAccepting()
	}
	s.closeConns()
	// Wait until every old connection's goroutine has finished (forget
	// removes its client), so no command from before runs after.
	for deadline := time.Now().Add(restartWait); s.clients.count() > 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
}

// Listen closes the connections and listeners the server has (Unlisten)
// and listens on addrs, or, with none, again on the addresses it listened
// on (the ports they were given, for a ":0" address). The data is kept.
func (s *Server) Listen(addrs ...string) error { return s.relisten(addrs, nil, nil) }

// errTLSEpoll refuses TLS on the epoll edge, which reads the sockets'
// descriptors itself.
var errTLSEpoll = errors.New("server: TLS is served on the goroutine edge only (Config.EventLoop off, MINILOCK_EDGE not epoll)")

// ListenTLS is Listen serving TLS with cfg on every address: for a test of
// a client's TLS set-up. The goroutine edge only.
func (s *Server) ListenTLS(cfg *tls.Config, addrs ...string) error {
	if s.loop != nil {
		return errTLSEpoll
	}
	return s.relisten(addrs, cfg, nil)
}

// relisten is Listen, with TLS when tlsCfg is set, running between (if not
// nil) once the new addresses are bound and before any client is
// accepted.
func (s *Server) relisten(addrs []string, tlsCfg *tls.Config, between func()) error {
	if s.net.Closing.Load() {
		return ErrClosed
	}
	s.Unlisten()
	if len(addrs) == 0 {
		addrs = s.Addrs()
	}
	old := s.lns
	s.lns = nil
	for i, addr := range addrs {
		lim := edge.Limits{MaxBulkLen: s.cfg.MaxBulkLen, MaxQueryLen: s.cfg.QueryBufferLimit}
		if i < len(old) {
			lim = old[i].Limits
		}
		nl, err := net.Listen("tcp", addr)
		if err != nil {
			s.closeListeners()
			return err
		}
		if tlsCfg != nil {
			nl = tls.NewListener(nl, tlsCfg)
		}
		s.lns = append(s.lns, edge.NewListener(nl, lim))
	}
	if between != nil {
		between()
	}
	for _, ln := range s.lns {
		s.serve(ln)
	}
	return nil
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
	d.s.owner.Do(func() { val, ok = d.s.ks.Value(d.n, key) })
	return val, ok
}

// Set sets key to value, with a time to live when ttl > 0.
func (d DB) Set(key, value string, ttl time.Duration) {
	d.s.owner.Do(func() { d.s.ks.SetValue(d.n, key, value, ttl) })
}

// TTL returns key's time to live (0 when it has none) and whether the key
// exists.
func (d DB) TTL(key string) (ttl time.Duration, ok bool) {
	d.s.owner.Do(func() { ttl, ok = d.s.ks.TTL(d.n, key) })
	return ttl, ok
}

// Exists reports whether key exists.
func (d DB) Exists(key string) bool {
	_, ok := d.Get(key)
	return ok
}

// Del deletes key and reports whether it existed.
func (d DB) Del(key string) (ok bool) {
	d.s.owner.Do(func() { ok = d.s.ks.Delete(d.n, key) })
	return ok
}

// Keys returns the keys, sorted.
func (d DB) Keys() (keys []string) {
	d.s.owner.Do(func() { keys = d.s.ks.Keys(d.n) })
	return keys
}
