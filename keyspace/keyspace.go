// Package keyspace holds minilock's data and the Redis semantics of the
// commands that read and write it.
//
// A Keyspace is passive: it has no goroutine and no locks, and is called
// by exactly one goroutine at a time, the server's owner (see
// server/internal/edge), which runs every command, every Lua script and,
// between them, Tick. That serial order is the whole atomicity story. What
// it needs from time it reads from its clock or is given (Ctx.Now, Tick's
// now).
//
// The commands are functions named after Redis's (CmdSet is SET), one file
// per group (strings.go, keys.go, expire.go); the server's command table
// lists them with their arity and flags and checks both before a command
// runs, so a command may index its arguments as its arity promises.
package keyspace

import (
	"math/rand/v2"
	"sync/atomic"

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
	Evicted      int64 // evicted_keys
}

// Keyspace is the set of databases.
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
	rdbRaw  bool       // rdbcompression no: DUMP writes no LZF
	dumper  *RDBWriter // DUMP's and MIGRATE's (rdbcmds.go)
	rng     *rand.Rand // SPOP, SRANDMEMBER, HRANDFIELD, RANDOMKEY ...
	stats   Stats
	watches watchers
	// awaited counts the clients waiting on each key; ready lists the
	// awaited keys created since the server last looked (blocking.go).
	awaited map[ReadyKey]int
	ready   []ReadyKey

	// notifier reports keyspace events (notify.go).
	notifier notifier
	// modified, when set, hears of every key a change touches (watch.go).
	modified func(key []byte)

	ev evictState // maxmemory-policy and the eviction pool (evict.go)

	// snap is the snapshot being taken, if any (snapshot.go).
	snap *snapshot
	// changes counts the changes to keys (each signalModifiedKey, and the
	// keys a flush removed): Redis's server.dirty, which the save points
	// and rdb_changes_since_last_save read.
	changes int64
	// tracker hears of changes for the AOF; expiring mutes its Touched
	// while an expired key is removed (propagate.go).
	tracker  Tracker
	expiring bool
}

// Changes is the number of key changes so far (Redis's server.dirty,
// never reset). Owner goroutine only.
func (k *Keyspace) Changes() int64 { return k.changes }

// New returns an empty keyspace.
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
		enc:    DefaultEncodings(),
		rng:    rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())),
		maxLen: maxLen,
		dbs:    make([]db, n),
		clock:  clock,
	}
	k.ev.cfg = DefaultEvictConfig()
	for i := range k.dbs {
		k.dbs[i].init(&k.mem)
	}
	return k
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
// looks at its work again, so a million keys falling due at once delay
// commands by one batch, not by the whole sweep.
const sweepBatch = 1000

// Tick is the keyspace's part of what runs between commands (Redis's
// beforeSleep and serverCron): it compacts databases that mass deletes left
// sparse and deletes up to one batch of keys whose deadline now has
// passed. more reports that the batch was full: more keys may be due.
func (k *Keyspace) Tick(now int64) (more bool) {
	k.shrinkAll()
	return k.index.Len() > 0 && k.sweep(now) == sweepBatch
}

// NextExpiry is the earliest key deadline (Unix ms), if any key has one.
func (k *Keyspace) NextExpiry() (int64, bool) {
	if k.index.Len() == 0 {
		return 0, false
	}
	return k.index.Next()
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
// visible as soon as the call returns.
func (k *Keyspace) Sweep() {
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
	if !d.sparse() || d.snap != nil {
		// A snapshot's walk goes by slot number: compaction waits for it.
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
