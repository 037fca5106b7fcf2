// Package miniredis is minilock behind miniredis's API: a suite written
// for github.com/alicebob/miniredis/v2 (v2.40) switches by changing that
// one import path to github.com/minilock/minilock/miniredis.
//
//	s := miniredis.RunT(t)
//	rdb := redis.NewClient(&redis.Options{Addr: s.Addr()})
//	s.HSet("session", "user", "ann")
//	s.FastForward(time.Minute)
//	s.CheckList(t, "queue", "job1")
//
// The names, signatures and documented behaviour are miniredis's; the
// server behind them is minilock's, which answers as Redis 7.0 does, and
// where miniredis does not, this package follows Redis:
//
//   - Keys expire in real time, as in Redis; miniredis's TTLs only run
//     down on FastForward (or with ClockTTL). FastForward and SetTime move
//     the server's clock, and keys expire as it passes their deadline.
//   - Set removes the key's TTL, as SET does; miniredis's Set keeps it.
//   - Every command, error text, Lua 5.1 and blocking behaviour is Redis
//     7.0.15's (see minilock's README for its own few differences).
//   - Close keeps the data and Restart listens again, as in miniredis;
//     connections are dropped on Close, as a stopped server drops them.
//
// Not here (a suite using them does not compile): Dial, Server,
// NewSubscriber, IsReadOnlyCommand, the hash field TTLs (HExpire,
// HPersist, HTTL, HSetEX: Redis 7.4), and streams and HyperLogLogs (XAdd,
// Stream, PfAdd, PfCount, PfMerge) until minilock has those types.
// RequireUserAuth accepts only the user "default": minilock has no ACL
// users yet. TLS is served on the goroutine edge only (RunTLS picks it).
//
// The package does not import testing: Tester and T are interfaces, as
// they are in miniredis.
package miniredis

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/minilock/minilock/expiry"
	"github.com/minilock/minilock/server"
)

// DumpMaxLineLen is the length Dump cuts values to.
var DumpMaxLineLen = 60

// Errors the direct accessors return, with miniredis's texts (which are
// Redis's).
var (
	// ErrKeyNotFound is returned when a key doesn't exist.
	ErrKeyNotFound = errors.New("ERR no such key")
	// ErrWrongType when a key is not the right type.
	ErrWrongType = errors.New("WRONGTYPE Operation against a key holding the wrong kind of value")
	// ErrIntValueError can be returned by INCRBY.
	ErrIntValueError = errors.New("ERR value is not an integer or out of range")
	// ErrIntValueOverflowError can be returned by INCR, DECR, INCRBY, DECRBY.
	ErrIntValueOverflowError = errors.New("ERR increment or decrement would overflow")
	// ErrFloatValueError can be returned by INCRBYFLOAT.
	ErrFloatValueError = errors.New("ERR value is not a valid float")
)

// translate turns the embedding API's errors into miniredis's values, so
// that a suite comparing with ==, or errors.Is, sees what it expects.
func translate(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, server.ErrNoKey):
		return ErrKeyNotFound
	case errors.Is(err, server.ErrWrongType):
		return ErrWrongType
	}
	for _, e := range []error{ErrIntValueError, ErrIntValueOverflowError, ErrFloatValueError} {
		if err.Error() == e.Error() {
			return e
		}
	}
	return err
}

// Tester is the part of testing.TB RunT uses.
type Tester interface {
	Fatalf(string, ...interface{})
	Cleanup(func())
	Logf(format string, args ...interface{})
}

// T is the part of testing.TB the Check helpers use.
type T interface {
	Helper()
	Errorf(string, ...interface{})
}

// Miniredis is a Redis server, minilock, with miniredis's API.
type Miniredis struct {
	mu       sync.Mutex
	srv      *server.Server
	port     int    // the port the last Start listened on, for Restart
	listened bool   // listening now (Start, not yet Close)
	selected int    // the database of the direct accessors
	addr     string // where it listens or last listened
}

// RedisDB is one numbered database.
type RedisDB struct {
	m  *Miniredis
	id int
}

// NewMiniRedis makes a Miniredis that does not listen yet: Start does.
// Its data can be read and written before.
func NewMiniRedis() *Miniredis { return newMiniRedis(true) }

// newMiniRedis is NewMiniRedis; envEdge lets MINILOCK_EDGE pick the
// network edge (EdgeFromEnv), which RunTLS does not: TLS is served on the
// goroutine edge only.
func newMiniRedis(envEdge bool) *Miniredis {
	cfg := server.Config{Clock: expiry.NewShifted()}
	if envEdge {
		server.EdgeFromEnv(&cfg)
	}
	srv, err := server.Start(cfg)
	if err != nil {
		// Start binds 127.0.0.1:0: only a machine out of sockets fails.
		panic(fmt.Sprintf("miniredis: starting minilock: %v", err))
	}
	srv.Unlisten()
	m := &Miniredis{srv: srv}
	// miniredis keeps its data across Close for Restart, so Close cannot
	// stop the server; it stops once the Miniredis is unreachable.
	runtime.AddCleanup(m, func(s *server.Server) { s.Close() }, srv)
	return m
}

// Run creates and Start()s a Miniredis.
func Run() (*Miniredis, error) {
	m := NewMiniRedis()
	return m, m.Start()
}

// RunT starts a new Miniredis for the test t and closes it when the test
// ends.
func RunT(t Tester) *Miniredis {
	m := NewMiniRedis()
	if err := m.Start(); err != nil {
		t.Fatalf("could not start miniredis: %s", err)
	}
	t.Cleanup(m.Close)
	return m
}

// Start listens on a free port on 127.0.0.1 (the port it listened on
// before, after a Close). See Addr.
func (m *Miniredis) Start() error {
	m.mu.Lock()
	port := m.port
	m.mu.Unlock()
	return m.StartAddr("127.0.0.1:" + strconv.Itoa(port))
}

// StartAddr listens on addr: "127.0.0.1:6379", ":6379", "127.0.0.1:0".
// On a Miniredis that listens already, it moves to addr.
func (m *Miniredis) StartAddr(addr string) error { return m.listen(addr, nil) }

func (m *Miniredis) listen(addr string, cfg *tls.Config) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	var err error
	if cfg != nil {
		err = m.srv.ListenTLS(cfg, addr)
	} else {
		err = m.srv.Listen(addr)
	}
	if err != nil {
		return err
	}
	m.addr = m.srv.Addr()
	if _, p, err := net.SplitHostPort(m.addr); err == nil {
		m.port, _ = strconv.Atoi(p)
	}
	m.listened = true
	return nil
}

// RunTLS creates and starts a Miniredis serving TLS with cfg.
func RunTLS(cfg *tls.Config) (*Miniredis, error) {
	m := newMiniRedis(false)
	return m, m.StartTLS(cfg)
}

// StartTLS is Start, serving TLS with cfg.
func (m *Miniredis) StartTLS(cfg *tls.Config) error {
	m.mu.Lock()
	port := m.port
	m.mu.Unlock()
	return m.StartAddrTLS("127.0.0.1:"+strconv.Itoa(port), cfg)
}

// StartAddrTLS is StartAddr, serving TLS with cfg. TLS is served on the
// goroutine edge only: on a NewMiniRedis under MINILOCK_EDGE=epoll it
// fails (RunTLS always serves on the goroutine edge).
func (m *Miniredis) StartAddrTLS(addr string, cfg *tls.Config) error {
	return m.listen(addr, cfg)
}

// Restart listens again, on the same port, after a Close. The data is
// kept.
func (m *Miniredis) Restart() error { return m.Start() }

// Close stops listening and drops every connection. The data is kept
// for Restart. It is safe to call more than once.
func (m *Miniredis) Close() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.listened {
		m.srv.Unlisten()
		m.listened = false
	}
}

// Addr returns "127.0.0.1:12345": where to connect.
func (m *Miniredis) Addr() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.addr
}

// Host returns the host part of Addr.
func (m *Miniredis) Host() string {
	h, _, _ := net.SplitHostPort(m.Addr())
	return h
}

// Port returns the port part of Addr.
func (m *Miniredis) Port() string {
	_, p, _ := net.SplitHostPort(m.Addr())
	return p
}

// RequireAuth makes every new connection AUTH first with pw; "" turns
// that off.
func (m *Miniredis) RequireAuth(pw string) { m.srv.RequireAuth(pw) }

// RequireUserAuth is RequireAuth for AUTH username password. minilock has
// only the default user: for another name it panics, saying so, rather
// than let a test pass that would not against Redis without that user.
func (m *Miniredis) RequireUserAuth(username, pw string) {
	if err := m.srv.RequireUserAuth(username, pw); err != nil {
		panic(fmt.Sprintf("miniredis: RequireUserAuth(%q): %v", username, err))
	}
}

// DB returns database i.
func (m *Miniredis) DB(i int) *RedisDB { return &RedisDB{m: m, id: i} }

// SwapDB swaps databases i and j, as SWAPDB does (clients stay in the
// database they selected and see the other's keys), and reports whether
// both exist; miniredis, whose databases are unbounded, always says
// true. A *RedisDB names a database by its number, so DB(i) reaches
// what was j's before the swap.
func (m *Miniredis) SwapDB(i, j int) bool { return m.srv.SwapDB(i, j) }

// Select sets the database of the direct accessors (Get, HSet ...).
func (m *Miniredis) Select(i int) {
	m.mu.Lock()
	m.selected = i
	m.mu.Unlock()
}

func (m *Miniredis) sel() *RedisDB {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.DB(m.selected)
}

func (db *RedisDB) d() server.DB { return db.m.srv.DB(db.id) }

// CommandCount returns the number of commands clients sent.
func (m *Miniredis) CommandCount() int { return m.srv.CommandCount() }

// CurrentConnectionCount returns the number of clients connected now.
func (m *Miniredis) CurrentConnectionCount() int { return m.srv.CurrentConnectionCount() }

// TotalConnectionCount returns the number of connections since the start.
func (m *Miniredis) TotalConnectionCount() int { return m.srv.TotalConnectionCount() }

// FastForward moves the clock forward by duration: keys whose TTL runs
// out meanwhile expire, and blocked clients whose timeout passes are
// answered. As in miniredis, a key whose TTL is exactly duration is gone
// too: Redis expires a key once its deadline is past, a millisecond
// after it, so the clock moves by that millisecond more (a shifted real
// clock reads TTLs that coarsely anyway).
func (m *Miniredis) FastForward(duration time.Duration) {
	if duration > 0 {
		duration += time.Millisecond
	}
	m.srv.FastForward(duration)
}

// SetTime sets the server's clock to t (TIME, EXPIREAT, TTLs follow it);
// the clock then runs on from t in real time.
func (m *Miniredis) SetTime(t time.Time) { m.srv.SetTime(t) }

// ClockTTL is accepted for miniredis's sake: TTLs always run down with
// the clock here, as in Redis.
func (m *Miniredis) ClockTTL(enabled bool) {}

// SetError makes every command answer msg ("LOADING Redis is loading the
// dataset in memory": the code first) until SetError("").
func (m *Miniredis) SetError(msg string) { m.srv.SetError(msg) }

// Seed seeds the random commands (SPOP, SRANDMEMBER, RANDOMKEY ...).
func (m *Miniredis) Seed(seed int) { m.srv.Seed(int64(seed)) }

// Dump returns the selected database, a line per key and per element.
func (m *Miniredis) Dump() string { return m.sel().d().DumpWidth(DumpMaxLineLen) }

// Publish publishes message on channel and returns how many subscribers
// received it.
func (m *Miniredis) Publish(channel, message string) int { return m.srv.Publish(channel, message) }

// CheckGet fails the test unless key holds the string expected.
func (m *Miniredis) CheckGet(t T, key, expected string) {
	t.Helper()
	found, err := m.Get(key)
	if err != nil {
		t.Errorf("GET error, key %#v: %v", key, err)
		return
	}
	if found != expected {
		t.Errorf("GET error, key %#v: Expected %#v, got %#v", key, expected, found)
	}
}

// CheckList fails the test unless the list at key holds expected.
func (m *Miniredis) CheckList(t T, key string, expected ...string) {
	t.Helper()
	m.sel().d().CheckList(tb{t}, key, expected...)
}

// CheckSet fails the test unless the set at key holds expected, in any
// order.
func (m *Miniredis) CheckSet(t T, key string, expected ...string) {
	t.Helper()
	m.sel().d().CheckSet(tb{t}, key, expected...)
}

// tb is a T seen as a server.TB: the Check helpers call only Helper and
// Errorf.
type tb struct{ T }

func (t tb) Fatalf(format string, args ...any) { t.Errorf(format, args...) }
func (t tb) Cleanup(func())                    {}

// PubSubChannels is PUBSUB CHANNELS pattern ("" for all), sorted.
func (m *Miniredis) PubSubChannels(pattern string) []string { return m.srv.PubSubChannels(pattern) }

// PubSubNumSub is PUBSUB NUMSUB channels...
func (m *Miniredis) PubSubNumSub(channels ...string) map[string]int {
	return m.srv.PubSubNumSub(channels...)
}

// PubSubNumPat is PUBSUB NUMPAT.
func (m *Miniredis) PubSubNumPat() int { return m.srv.PubSubNumPat() }
