// Package keyspace holds minilock's data and the Redis semantics of the
// commands that read and write it.
//
// Exactly one goroutine, the owner, ever touches the databases. Every
// command, every Lua script and every active-expiry sweep runs on it, one
// after another; that serial order is the whole atomicity story. Other
// goroutines hand work to the owner with Submit (a Job, which signals its
// own completion: the server's connections) or DoFunc (a function, waited
// for: tests and embedders).
//
// The commands are functions named after Redis's (CmdSet is SET), one file
// per group (strings.go, keys.go, expire.go); the server's command table
// lists them with their arity and flags and checks both before a command
// runs, so a command may index its arguments as its arity promises.
package keyspace

import (
	"errors"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/minilock/minilock/expiry"
	"github.com/minilock/minilock/resp"
)

// Config configures a Keyspace. The zero Config is valid.
type Config struct {
	// Databases is the number of databases, as redis.conf's "databases".
	// Zero means 16.
	Databases int
	// Clock is read for every command and drives expiry. Nil means the real
	// clock.
	Clock expiry.Clock
	// MaxStringLen is proto-max-bulk-len as commands that grow a string
	// (APPEND) apply it: they refuse to make a value longer. Zero means
	// 512 MiB, Redis's default.
	MaxStringLen int64
	// Timers, when set, is a second source of deadlines the owner keeps:
	// the server's blocked clients.
	Timers Timers
	// Poller, when set, is what the owner waits in between jobs instead of
	// a select on a channel: the server's event loop, which then serves its
	// sockets on the owner (poller.go). Nil: the owner selects on its job
	// channel, a timer, clock moves and stop.
	Poller Poller
}

// Timers is work due at a time, kept by the owner beside key expiry. Next
// is the earliest deadline (Unix ms on the keyspace's clock); Fire runs on
// the owner once the clock has passed it, as a key expires once the clock
// is past its deadline.
type Timers interface {
	Next() (int64, bool)
	Fire(now int64)
}

// Job is work for the owner goroutine. Run is called on the owner; the
// goroutine that passed the job to Do waits until it returns.
type Job interface {
	Run(k *Keyspace)
}

// Ctx is what one command sees while it runs on the owner goroutine.
type Ctx struct {
	// W receives the command's reply.
	W *resp.Writer
	// DB is the selected database.
	DB int
	// Now is the time the command runs at, in Unix milliseconds. It is read
	// once per top-level command (once per script or transaction), so every
	// key the command touches is judged at the same instant, as in Redis.
	Now int64
}

// Stats are counters reported by INFO.
type Stats struct {
	Hits, Misses int64 // keyspace_hits, keyspace_misses
	Expired      int64 // expired_keys: removed lazily or actively
}

// Keyspace is the set of databases and the goroutine that owns them.
type Keyspace struct {
	dbs     []db
	clock   expiry.Clock
	index   expiry.Index
	withTTL int // keys that have a deadline, across all databases
	// mem counts the bytes the databases hold: keys, values and their
	// bookkeeping (see db.account). Written by the owner, read by anyone.
	mem     atomic.Int64
	maxLen  int64
	enc     Encodings
	rng     *rand.Rand // SPOP, SRANDMEMBER, HRANDFIELD, RANDOMKEY ...
	stats   Stats
	watches watchers
	// awaited counts the clients waiting on each key; ready lists the
	// awaited keys created since the server last looked (blocking.go).
	awaited map[ReadyKey]int
	ready   []ReadyKey
	timers  Timers

	// notifier reports keyspace events (notify.go).
	notifier notifier

	jobs    chan Job
	stop    chan struct{}
	stopped chan struct{}

	poller Poller
	queue  jobQueue // the jobs handed to the owner when there is a poller
}

// New starts a keyspace and its owner goroutine. Close stops it.
func New(cfg Config) *Keyspace {
	n := cfg.Databases
	if n <= 0 {
		n = 16
	}
	clock := cfg.Clock
	if clock == nil {
		clock = expiry.Real{}
	}
	maxLen := cfg.MaxStringLen
	if maxLen <= 0 {
		maxLen = 512 << 20
	}
	k := &Keyspace{
		enc:     DefaultEncodings(),
		rng:     rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())),
		maxLen:  maxLen,
		dbs:     make([]db, n),
		clock:   clock,
		timers:  cfg.Timers,
		poller:  cfg.Poller,
		jobs:    make(chan Job),
		stop:    make(chan struct{}),
		stopped: make(chan struct{}),
	}
	for i := range k.dbs {
		k.dbs[i].init(&k.mem)
	}
	if k.poller != nil {
		go k.runPolled()
	} else {
		go k.run()
	}
	return k
}

// ErrClosed is returned when work is handed to a keyspace that was closed.
var ErrClosed = errors.New("keyspace: closed")

// ErrBusy is returned by Submit when the busy channel fired before the owner
// took the job.
var ErrBusy = errors.New("keyspace: owner busy")

// Submit hands j to the owner goroutine. It blocks until the owner accepts
// the job, not until the job finishes: callers that need the result signal
// completion from j.Run themselves (the server does, with one reusable
// channel per connection, so a round trip costs no allocation). It returns
// ErrBusy when busy fires first, which is how a connection stops waiting for
// an owner stuck in a long script; busy may be nil.
func (k *Keyspace) Submit(j Job, busy <-chan struct{}) error {
	if k.poller != nil {
		return k.enqueue(j)
	}
	select {
	case k.jobs <- j:
		return nil
	case <-busy:
		return ErrBusy
	case <-k.stopped:
		return ErrClosed
	}
}

// DoFunc runs f on the owner goroutine and waits for it: the way for tests
// and embedders to read or change data safely. It must not be called from
// the owner goroutine itself.
func (k *Keyspace) DoFunc(f func()) error {
	done := make(chan struct{})
	if err := k.Submit(funcJob{f, done}, nil); err != nil {
		return err
	}
	<-done
	return nil
}

type funcJob struct {
	f    func()
	done chan struct{}
}

func (j funcJob) Run(*Keyspace) {
	defer close(j.done)
	j.f()
}

// Close stops the owner goroutine after the job it is running, if any.
func (k *Keyspace) Close() {
	select {
	case <-k.stop:
	default:
		close(k.stop)
	}
	if k.poller != nil {
		k.poller.Wake()
	}
	<-k.stopped
}

// Clock returns the clock commands are judged by.
func (k *Keyspace) Clock() expiry.Clock { return k.clock }

// Now reads the clock in Unix milliseconds.
func (k *Keyspace) Now() int64 { return expiry.Millis(k.clock.Now()) }

// Databases returns the number of databases.
func (k *Keyspace) Databases() int { return len(k.dbs) }

// DataBytes is how many bytes the databases hold: every key and value,
// and the slots and hash cells that index them. Any goroutine may call it
// (the Lua watchdog does, to tell a script's own memory from the data it
// writes).
func (k *Keyspace) DataBytes() int64 { return k.mem.Load() }

// Stats returns the INFO counters. Owner goroutine only.
func (k *Keyspace) Stats() Stats { return k.stats }

// sweepBatch bounds the keys one active-expiry pass deletes before the owner
// looks at its job queue again, so a million keys falling due at once delay
// commands by one batch, not by the whole sweep.
const sweepBatch = 1000

// run is the owner goroutine: it serves jobs one at a time and, between
// them, deletes keys whose deadline has passed.
func (k *Keyspace) run() {
	defer close(k.stopped)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	var armed int64 // deadline the timer is set for; 0 when not set
	moved := k.clock.Moved()
	for {
		select {
		case j := <-k.jobs:
			j.Run(k)
		case <-timer.C:
			armed = 0
		case <-moved:
		case <-k.stop:
			return
		}
		k.fireTimers()
		k.shrinkAll()
		if k.index.Len() > 0 && k.sweep(k.Now()) == sweepBatch {
			// More may be due: serve a waiting job first, then sweep again.
			select {
			case j := <-k.jobs:
				j.Run(k)
			default:
			}
			armed = 0
		}
		// A manual clock also wakes us through moved; the timer is then
		// at worst one spurious wake-up.
		next, ok := k.nextDeadline()
		if !ok || next == armed {
			continue
		}
		// Due once the clock is past the deadline.
		wait := time.Duration(next+1-k.Now()) * time.Millisecond
		timer.Reset(max(wait, 0))
		armed = next
	}
}

// fireTimers runs the Timers whose deadline the clock has passed.
func (k *Keyspace) fireTimers() {
	if k.timers == nil {
		return
	}
	if t, ok := k.timers.Next(); ok && k.Now() > t {
		k.timers.Fire(k.Now())
	}
}

// sweep deletes up to sweepBatch keys that expired before now and returns
// how many index items it looked at. It also compacts the index once stale
// items (deleted keys, replaced deadlines) outnumber live ones.
func (k *Keyspace) sweep(now int64) int {
	n := k.index.PopDue(now, sweepBatch, func(dbi int, i uint32, deadline int64) {
		if k.due(dbi, i, deadline) {
			k.expireNow(dbi, i)
		}
	})
	if k.index.Len() > 2*k.withTTL+1024 {
		k.index.Compact(k.due)
	}
	return n
}

// Sweep runs active expiry to completion at the current time. The server
// calls it after moving a manual clock, so that the move's effects are
// visible as soon as the call returns. Owner goroutine only.
func (k *Keyspace) Sweep() {
	k.fireTimers()
	now := k.Now()
	for k.sweep(now) == sweepBatch {
	}
}

// shrink compacts database dbi when mass deletes left it sparse (Redis's
// tryResizeHashTables). It renumbers the keys' slots, so it runs only
// where no command holds one: between jobs, and at the start of RANDOMKEY
// and SCAN, which need a dense table.
func (k *Keyspace) shrink(dbi int) {
	d := &k.dbs[dbi]
	if !d.sparse() {
		return
	}
	remap := d.compact()
	k.index.Renumber(dbi, func(i uint32) uint32 {
		if int(i) < len(remap) {
			return remap[i]
		}
		return noSlot
	})
}

// shrinkAll is shrink for every database, for the owner's loop.
func (k *Keyspace) shrinkAll() {
	for i := range k.dbs {
		k.shrink(i)
	}
}

// due reports whether an index item still describes a key: slot i of
// database dbi holds a key whose deadline is deadline. A slot freed and
// reused by a key with the very same deadline counts too, rightly: that key
// is due then as well.
func (k *Keyspace) due(dbi int, i uint32, deadline int64) bool {
	d := &k.dbs[dbi]
	return int(i) < len(d.slots) && d.slots[i].live() && d.slots[i].expireAt == deadline
}
