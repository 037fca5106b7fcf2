// Package server is minilock's command layer and the package to embed: it
// keeps each connection's session, runs the connection and server
// commands, and hands every batch of commands to the owner goroutine
// (internal/edge.Owner), the one goroutine that touches the keyspace. The
// network edge beside the owner (server/internal/edge) accepts, parses
// requests once in the frame guard, reads and writes the sockets, and
// hands it each batch through edge.Handler.
//
// It does not serve through redcon.Server: that copies every command and
// allocates its arguments (about a fifth of minilock's CPU at -P 16, with
// the garbage it leaves), while the guard already holds complete commands
// whose arguments can be used in place.
//
// Output a connection did not ask for. Every command runs on the owner, so
// a message or a wake-up starts there, inside the command that causes it:
//
//   - PUBLISH (from a client, a MULTI, a script or a keyspace notification)
//     looks the subscribers up in owner-only tables and appends the frame to
//     each one's feed (edge/feed.go). A feed is a connection's output queue with
//     Redis's output-buffer limits and a goroutine of its own that writes
//     it; once a connection has one, its replies go through it too, so the
//     socket sees replies and messages in the order the owner made them.
//     The owner never waits on a socket; a reader too slow is disconnected.
//   - A blocking pop that finds nothing parks its client on the owner, in a
//     FIFO per key (blocking.go), and the client's goroutine waits. When a
//     command completes having created an awaited list or sorted set, the
//     owner serves the parked clients in order, writes each reply to the
//     client's wake buffer and signals its goroutine, which sends it and
//     goes on with the client's pipeline. Timeouts are owner timers on the
//     server's clock, like key expiry.
//
// It is also the package to embed: Start (or RunT in a test) serves on a
// loopback port, and the Server's methods move its clock and read or change
// its data directly.
package server

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/minilock/minilock/expiry"
	"github.com/minilock/minilock/keyspace"
	"github.com/minilock/minilock/luaeval"
	"github.com/minilock/minilock/server/internal/edge"
)

// Version is the Redis version minilock answers as (HELLO, INFO,
// redis.REDIS_VERSION): the one whose replies it reproduces.
const Version = "7.0.15"

// Config configures a Server. The zero Config serves on a random loopback
// port with Redis's defaults.
type Config struct {
	// Addrs are the host:port addresses to listen on. Empty means
	// "127.0.0.1:0": a free loopback port, see Addr. An address starting
	// with '-' is optional, as in redis.conf's "bind 127.0.0.1 -::1": failing
	// to listen on it is not an error.
	Addrs []string
	// Password enables AUTH, as redis.conf's requirepass. Empty means none.
	// It is the default user's password.
	Password string
	// Users are redis.conf's "user" lines: a name and its ACL rules, as
	// ACL SETUSER takes them. None means only the default user (and those
	// of the aclfile parameter, which may not be given with Users).
	Users [][]string
	// Databases is the number of databases. Zero means 16.
	Databases int
	// MaxClients limits concurrent connections; the next one gets
	// "-ERR max number of clients reached" and is closed. Zero means 10000.
	MaxClients int
	// IdleTimeout closes a connection that sends nothing for this long, as
	// redis.conf's timeout. Zero means never.
	IdleTimeout time.Duration
	// WriteTimeout bounds how long writing replies to a client may block.
	// A client that stops reading is disconnected once its replies have
	// waited this long (at least half of it: the deadline is renewed
	// lazily), instead of holding its connection forever. Memory is bounded
	// either way: a connection holds at most 64 KiB of replies plus one
	// command's reply while it waits. Redis has no such limit for normal
	// clients. Zero means 60 s; negative means never.
	WriteTimeout time.Duration
	// MaxBulkLen is proto-max-bulk-len: a longer bulk string in a request
	// is a protocol error. Zero means 512 MiB.
	MaxBulkLen int64
	// QueryBufferLimit is client-query-buffer-limit: a connection whose
	// command being read grows past it is closed without a reply. Zero
	// means 1 GiB.
	QueryBufferLimit int64
	// BusyThreshold is busy-reply-threshold (lua-time-limit): how long a
	// script runs before other clients get -BUSY. Zero means 5 s.
	BusyThreshold time.Duration
	// Clock drives every deadline. Nil means the real clock.
	Clock expiry.Clock
	// DisableProtectedMode turns off Redis's protected mode. With it on
	// (the default, as redis.conf's "protected-mode yes") and no Password,
	// clients connecting from anywhere but the loopback interface get
	// -DENIED and are closed.
	DisableProtectedMode bool
	// RestartDelay refuses write commands for this long after Start, with a
	// LOADING error. minilock keeps nothing across a restart, so a lock
	// taken just before a crash could be granted again just after a quick
	// restart; the remedy Redis documents is to stay unavailable for the
	// longest lock TTL after a restart. Zero means no delay.
	RestartDelay time.Duration
	// Params are further redis.conf settings, name and value, for any
	// parameter CONFIG GET knows (immutable ones included): applied in
	// order at Start as CONFIG SET applies them, so a later one wins.
	// A config file's lines beyond the fields above come here; CheckParam
	// tells whether one would be accepted.
	Params [][2]string
	// Dir is redis.conf's dir: the directory of the RDB file (dbfilename),
	// loaded at Start when it exists and written by SAVE. Empty means
	// none: Start loads nothing and SAVE writes into the working
	// directory, as Redis's default "./" would.
	Dir string
	// ConfigFile is the path of the config file the server was started
	// with, which CONFIG REWRITE rewrites. Empty (the default) means none:
	// CONFIG REWRITE then answers Redis's error for a server without one.
	ConfigFile string
	// Logger receives the server's log lines. Nil discards them.
	Logger *slog.Logger
	// LogLevel, when set, is the level of Logger's handler: CONFIG GET
	// loglevel reads it and CONFIG SET loglevel changes it. Nil: loglevel
	// is kept by CONFIG SET but changes nothing.
	LogLevel *slog.LevelVar
	// OnShutdown is called (in its own goroutine) when a client's SHUTDOWN
	// is accepted, as the server starts closing itself; Done tells when it
	// has. Nil does nothing; the binary exits the process.
	OnShutdown func()
	// EventLoop serves the sockets from an epoll event loop run by the
	// owner goroutine, as Redis's one thread does
	// (edge/eventloop_linux.go), instead of a goroutine per connection. Linux
	// only; elsewhere it is ignored. False (the default) means a goroutine
	// per connection. Start does not read the environment: the binary and
	// RunT apply MINILOCK_EDGE (EdgeFromEnv).
	EventLoop bool
	// NotifyKeyspaceEvents is redis.conf's notify-keyspace-events: the
	// classes of keyspace events published on the __keyspace@<db>__ and
	// __keyevent@<db>__ channels ("KEA", "Ex" ...). Empty means none.
	NotifyKeyspaceEvents string
	// Doctor, when set, turns on the lock doctor (doctor.go,
	// docs/doctor.md): every command is watched for unsafe lock recipes,
	// and DOCTOR REPORT answers what it found. Nil (the default) means off,
	// at no cost.
	Doctor *DoctorConfig
}

// Server is a running minilock.
type Server struct {
	cfg   Config
	ks    *keyspace.Keyspace
	owner *edge.Owner // the goroutine that runs every command, on ks
	lua   *luaeval.Engine
	log   *slog.Logger
	start time.Time
	runID string
	lns   []*edge.Listener // lnMu held: CONFIG SET port and bind replace them
	lnMu  sync.Mutex
	// busyReplyMs is busy-reply-threshold as set, in milliseconds: up to
	// 2^63-1, which no time.Duration holds (the engine's is saturated).
	busyReplyMs atomic.Int64
	// limits are the frame guard's limits, shared by every listener's
	// connections and changed by CONFIG SET.
	limits *edge.LiveLimits
	done   chan struct{} // closed when the server has stopped

	host scriptHost // the one script host; scripts never nest
	// doctor watches the commands when Config.Doctor is set (doctor.go).
	doctor *serverDoctor
	// writableAt is when RestartDelay ends, in Unix ms on cfg.Clock.
	writableAt int64
	monitors   []*client // MONITOR clients; owner goroutine only
	pubsub     pubsubState
	maxMemory  uint64 // maxmemory in bytes, 0: none (oom.go); owner goroutine
	// oom is the last performEvictions's failure, evictLater that it ran
	// out of time; evictTenacity is maxmemory-eviction-tenacity (oom.go).
	oom, evictLater bool
	evictTenacity   int64
	blocking        blockingState
	clients         clientList
	nextID          atomic.Int64
	net             edge.Edge // the goroutine edge: Closing, Inflight, the I/O counters
	stats           stats
	ops             opsState     // INFO's counters, the slow log, settings (stats.go)
	rt              runtimeState // run-time settings the commands read (replicas.go)
	persist         persistState // BGSAVE, LASTSAVE, the save points (bgsave.go)
	aof             aofState     // the append-only file (aof.go)

	notify notifyState   // keyspace notifications (notify.go)
	track  trackingState // client-side caching (tracking.go)
	loop   *edge.Loop    // the epoll edge; nil on the goroutine edge

	embed embedState // what the embedding API set (embed_types.go)
	acl   aclState   // users and the ACL LOG (acl.go)

	closeOnce sync.Once
}

// stats are the counters INFO stats reports.
type stats struct {
	connections atomic.Int64 // total_connections_received
	commands    atomic.Int64 // total_commands_processed
	rejected    atomic.Int64 // rejected_connections
}

// Start listens on cfg.Addrs and serves in the background until Close.
func Start(cfg Config) (*Server, error) {
	if len(cfg.Addrs) == 0 {
		cfg.Addrs = []string{"127.0.0.1:0"}
	}
	if cfg.MaxClients <= 0 {
		cfg.MaxClients = 10000
	}
	if cfg.WriteTimeout == 0 {
		cfg.WriteTimeout = edge.DefaultWriteTimeout
	}
	if cfg.BusyThreshold <= 0 {
		cfg.BusyThreshold = 5 * time.Second
	}
	if cfg.Clock == nil {
		cfg.Clock = expiry.Real{}
	}
	notifyFlags, err := keyspace.ParseNotifyFlags(cfg.NotifyKeyspaceEvents)
	if err != nil {
		return nil, fmt.Errorf("notify-keyspace-events: %w", err)
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{
		pubsub: pubsubState{
			channels: map[string][]*client{},
			patterns: map[string][]*client{},
			shard:    map[string][]*client{},
			ordered:  map[string]bool{},
		},
		cfg:   cfg,
		rt:    newRuntimeState(),
		log:   log,
		start: time.Now(),
		runID: newRunID(),
		done:  make(chan struct{}),
	}
	s.ops.init(s)
	s.initACL()
	s.persist.init(expiry.Millis(cfg.Clock.Now()))
	s.aof.lastRwSec = -1
	if err := s.startupParams(); err != nil {
		return nil, err
	}
	cfg = s.cfg
	s.net.H, s.net.Log, s.net.Stats, s.net.WriteTimeout = (*netHandler)(s), log, &s.ops.Stats, cfg.WriteTimeout
	s.limits = edge.NewLiveLimits(edge.Limits{MaxBulkLen: cfg.MaxBulkLen, MaxQueryLen: cfg.QueryBufferLimit})
	s.clients.m = make(map[int64]*client)
	s.nextID.Store(2) // Redis's first client id, after its internal ones
	for _, addr := range cfg.Addrs {
		optional := strings.HasPrefix(addr, "-")
		ln, err := net.Listen("tcp", strings.TrimPrefix(addr, "-"))
		if err != nil {
			if optional {
				log.Info("skipping optional address", "addr", addr, "err", err)
				continue
			}
			s.closeListeners()
			return nil, fmt.Errorf("listen %s: %w", addr, err)
		}
		s.lns = append(s.lns, edge.NewListener(ln, s.limits))
	}
	if len(s.lns) == 0 {
		return nil, errors.New("server: no address to listen on")
	}
	s.blocking = blockingState{s: s, byKey: map[keyspace.ReadyKey][]*parked{}}
	s.ks = keyspace.New(keyspace.Config{Databases: cfg.Databases, Clock: cfg.Clock, MaxStringLen: cfg.MaxBulkLen})
	ocfg := edge.OwnerConfig{Clock: cfg.Clock, Due: dueWork{s}}
	if cfg.EventLoop && edge.LoopSupported {
		if s.loop, err = edge.NewLoop(&s.net, (*netHandler)(s)); err != nil {
			s.closeListeners()
			return nil, err
		}
		ocfg.Waiter = s.loop
	}
	s.owner = edge.NewOwner(ocfg)
	if s.loop != nil {
		s.loop.Owner = s.owner
	}
	s.writableAt = s.ks.Now() + cfg.RestartDelay.Milliseconds()
	lcfg := luaeval.Config{BusyThreshold: cfg.BusyThreshold, Log: s.scriptLog, DataBytes: s.ks.DataBytes}
	if s.busyReplyMs.Load() == 0 {
		s.busyReplyMs.Store(cfg.BusyThreshold.Milliseconds())
	}
	if s.loop != nil {
		lcfg.WhileBusy = s.loop.WhileBusy
	}
	s.lua = luaeval.New(lcfg)
	s.startDoctor()
	var perr error
	s.owner.Do(func() {
		s.setNotifyFlags(notifyFlags)
		if perr = s.applyParams(); perr == nil {
			perr = s.startupUsers() // aclfile is one of the params
			if perr == nil && s.param("appendonly") == "yes" {
				perr = s.loadAOF() // the AOF, when on, is what is loaded (loadDataFromDisk)
			} else if perr == nil {
				perr = s.loadRDB()
			}
			s.aof.started = true
		}
	})
	if perr != nil {
		s.Close()
		return nil, perr
	}
	// The sampler reads the keyspace (used_memory): it starts once that
	// exists, not in ops.init (a data race the race detector caught).
	go s.sampleLoop()
	for _, ln := range s.lns {
		s.serve(ln)
	}
	return s, nil
}

// dueWork is what falls due with time, for the owner to run between
// commands (edge.Due): blocked clients' timeouts, then key expiry.
type dueWork struct{ s *Server }

func (d dueWork) Tick(now int64) (more bool) {
	d.s.blocking.Fire(now)
	d.s.evictDue()
	more = d.s.ks.Tick(now)
	d.s.trackingCron(now)
	d.s.trackingTick()
	// Active expiry may have deleted a stream that XREADGROUPs wait on:
	// they hear of it now, not at the next command.
	d.s.serveReady()
	more = d.s.bgSaveTick(now) || more
	d.s.aofFlush() // expired keys' DELs
	return more
}

func (d dueWork) Next() (int64, bool) {
	next, ok := d.s.ks.NextExpiry()
	if t, tok := d.s.blocking.Next(); tok && (!ok || t < next) {
		next, ok = t, true
	}
	if t, tok := d.s.trackingDue(); tok && (!ok || t < next) {
		next, ok = t, true
	}
	if t, tok := d.s.bgSaveNext(d.s.ks.Now()); tok && (!ok || t < next) {
		next, ok = t, true
	}
	return next, ok
}

// Addr returns the address of the first listener, for clients to dial:
// "127.0.0.1:54321".
// Empty when it listens on none (CONFIG SET port 0).
func (s *Server) Addr() string {
	if lns := s.listeners(); len(lns) > 0 {
		return lns[0].Addr().String()
	}
	return ""
}

// Addrs returns the addresses of all listeners.
func (s *Server) Addrs() []string {
	lns := s.listeners()
	out := make([]string, len(lns))
	for i, ln := range lns {
		out[i] = ln.Addr().String()
	}
	return out
}

// listeners returns the listeners now in use. Any goroutine.
func (s *Server) listeners() []*edge.Listener {
	s.lnMu.Lock()
	defer s.lnMu.Unlock()
	return slices.Clone(s.lns)
}

// Done returns a channel that is closed once the server has stopped, by
// Close or by a client's SHUTDOWN.
func (s *Server) Done() <-chan struct{} { return s.done }

// serve accepts ln's connections in the background: on the event loop,
// or each served on its own goroutine (edge.Edge.Accept), until ln stops
// accepting.
func (s *Server) serve(ln *edge.Listener) {
	if s.loop != nil {
		if err := s.loop.Listen(ln); err != nil {
			s.log.Error("event loop: listen", "addr", ln.Addr(), "err", err)
		}
		return
	}
	s.net.Accept(ln)
}

// drainTimeout bounds how long Close waits for replies in flight.
const drainTimeout = 5 * time.Second

// Close stops the server gracefully: it stops accepting, lets batches of
// commands already being served finish and reach their clients, then closes
// every connection and stops the keyspace. A script still running is
// stopped. It is safe to call more than once.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		s.net.Closing.Store(true)
		if s.loop != nil {
			// The event loop stops its listeners on the owner: a script
			// must not hold that up.
			s.lua.KillForShutdown()
		}
		for _, ln := range s.listeners() {
			ln.StopAccepting()
		}
		// From here on no command of a new batch runs.
		s.log.Info("closing: no new connections or commands; letting replies in flight go out")
		s.lua.KillForShutdown()
		deadline := time.Now().Add(drainTimeout)
		for s.net.Inflight.Load() > 0 && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		// On the event loop, replies in flight are the output buffers the
		// loop goes on writing meanwhile.
		for s.loop != nil && time.Now().Before(deadline) {
			pending := false
			if s.owner.Do(func() { pending = s.loop.PendingOutput() }) != nil || !pending {
				break
			}
			time.Sleep(time.Millisecond)
		}
		s.closeConns()
		// The AOF's last writes reach the disk; a save or rewrite running
		// stops, its temporary file removed.
		s.owner.Do(func() {
			s.abortBgSave()
			s.stopAOF()
		})
		s.owner.Close()
		if s.loop != nil {
			s.loop.Close()
		}
		s.lua.Close()
		close(s.done)
	})
	return nil
}

func (s *Server) closeListeners() {
	for _, ln := range s.listeners() {
		ln.StopAccepting()
	}
}

// closeConns closes every client's connection; their goroutines then
// notice and forget them. A connection accepted meanwhile closes itself
// in admit, which finds its listener stopped.
func (s *Server) closeConns() {
	if s.loop != nil {
		s.owner.Do(s.loop.CloseAll)
		return
	}
	for _, c := range s.clients.snapshot() {
		c.Guard.Close()
	}
}

// deniedProtected is Redis 7.0's reply to a client refused by protected
// mode (networking.c:clientAcceptHandler).
const deniedProtected = "-DENIED Redis is running in protected mode because protected mode is enabled and no password is set for the default user. In this mode connections are only accepted from the loopback interface. If you want to connect from external computers to Redis you may adopt one of the following solutions: 1) Just disable protected mode sending the command 'CONFIG SET protected-mode no' from the loopback interface by connecting to Redis from the same host the server is running, however MAKE SURE Redis is not publicly accessible from internet if you do so. Use CONFIG REWRITE to make this change permanent. 2) Alternatively you can just disable the protected mode by editing the Redis configuration file, and setting the protected mode option to 'no', and then restarting the server. 3) If you started the server manually just for testing, restart it with the '--protected-mode no' option. 4) Setup a an authentication password for the default user. NOTE: You only need to do one of the above things in order for the server to start accepting connections from the outside.\r\n"

// admit registers a new connection, or refuses it as Redis would and
// closes it.
func (s *Server) admit(ln *edge.Listener, conn *edge.Guard) *client {
	s.stats.connections.Add(1)
	refuse := func(reply string) *client {
		if reply != "" {
			s.stats.rejected.Add(1)
			conn.Write([]byte(reply))
		}
		conn.Close()
		return nil
	}
	if s.net.Closing.Load() {
		return refuse("")
	}
	if int64(s.clients.count()) >= s.ops.live.maxClients.Load() {
		return refuse("-ERR max number of clients reached\r\n")
	}
	if s.ops.live.protectedMode.Load() && s.defaultNoPass() && !remoteHostIsLoopback(conn) {
		return refuse(deniedProtected)
	}
	c := newClient(s, conn)
	s.clients.add(c)
	// Close and Restart stop the listener before they close the clients
	// they know of: one added after that closes itself here.
	if ln.Stopped() {
		s.clients.remove(c)
		return refuse("")
	}
	return c
}

// forget closes a connection and drops its client.
func (s *Server) forget(c *client) {
	c.Guard.Close()
	s.clients.remove(c)
	if perr := c.Guard.ProtocolError(); perr != nil {
		s.log.Debug("protocol error", "client", c.Addr, "err", perr)
	}
	if c.OnLoop() {
		// The event loop forgets its clients on the owner.
		s.dropParked(c)
		if c.needsCleanup() {
			s.cleanup(c)
		}
		return
	}
	if c.needsCleanup() {
		// WATCHed keys and MONITOR registrations live on the owner.
		s.owner.Do(func() { s.cleanup(c) })
	}
}

func (s *Server) scriptLog(level int, msg string) {
	levels := [...]slog.Level{slog.LevelDebug, slog.LevelDebug, slog.LevelInfo, slog.LevelWarn}
	if level < 0 || level >= len(levels) {
		level = len(levels) - 1
	}
	s.log.Log(nil, levels[level], msg, "source", "script")
}

// clientList is the set of connected clients, for CLIENT LIST and INFO.
type clientList struct {
	mu sync.Mutex
	m  map[int64]*client
}

func (l *clientList) add(c *client) {
	l.mu.Lock()
	l.m[c.id] = c
	l.mu.Unlock()
}

func (l *clientList) remove(c *client) {
	l.mu.Lock()
	delete(l.m, c.id)
	l.mu.Unlock()
}

func (l *clientList) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.m)
}

// snapshot returns the clients ordered by id.
func (l *clientList) snapshot() []*client {
	l.mu.Lock()
	out := make([]*client, 0, len(l.m))
	for _, c := range l.m {
		out = append(out, c)
	}
	l.mu.Unlock()
	sortClients(out)
	return out
}

// goroutines is reported by INFO as a minilock-specific field.
func goroutines() int { return runtime.NumGoroutine() }
