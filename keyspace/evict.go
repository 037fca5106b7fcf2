package keyspace

import (
	"math"
	"strings"
)

// Eviction as redis-server 7.0 does it (evict.c, object.c's LFU functions,
// db.c:lookupKey's access update).
//
// Every key carries 24 bits of access data at the start of its array
// (entry.meta, as Redis's robj.lru): under an LRU or non-LFU policy the LRU clock, seconds
// modulo 2^24, of its last access; under an LFU policy the minutes modulo
// 2^16 of its last decrement in the high 16 bits and a logarithmic access
// counter in the low 8. What the bits mean follows the policy in force, so
// after switching between LRU and LFU the old values read as noise for a
// while, as in Redis.
//
// The keyspace chooses the victims (EvictOne); the server decides when to
// evict and how long to go on (server/oom.go), as performEvictions does.

// EvictPolicy is maxmemory-policy.
type EvictPolicy uint8

const (
	NoEviction EvictPolicy = iota
	VolatileLRU
	VolatileLFU
	VolatileRandom
	VolatileTTL
	AllKeysLRU
	AllKeysLFU
	AllKeysRandom
)

var policyNames = [...]string{"noeviction", "volatile-lru", "volatile-lfu", "volatile-random",
	"volatile-ttl", "allkeys-lru", "allkeys-lfu", "allkeys-random"}

func (p EvictPolicy) String() string { return policyNames[p] }

// ParseEvictPolicy reads a maxmemory-policy value (case-insensitive, as
// CONFIG SET takes an enum).
func ParseEvictPolicy(s string) (EvictPolicy, bool) {
	for i, n := range policyNames {
		if strings.EqualFold(s, n) {
			return EvictPolicy(i), true
		}
	}
	return NoEviction, false
}

// LFU reports whether the policy keeps access frequencies
// (MAXMEMORY_FLAG_LFU); every other policy keeps the LRU clock.
func (p EvictPolicy) LFU() bool { return p == VolatileLFU || p == AllKeysLFU }

func (p EvictPolicy) lru() bool     { return p == VolatileLRU || p == AllKeysLRU }
func (p EvictPolicy) allKeys() bool { return p >= AllKeysLRU }

// EvictConfig is what eviction and the access clocks read from CONFIG.
type EvictConfig struct {
	Policy    EvictPolicy
	Samples   int   // maxmemory-samples, >= 1
	LogFactor int64 // lfu-log-factor
	DecayTime int64 // lfu-decay-time, minutes; 0: counters never decay
}

// DefaultEvictConfig is Redis's defaults.
func DefaultEvictConfig() EvictConfig {
	return EvictConfig{Policy: NoEviction, Samples: 5, LogFactor: 10, DecayTime: 1}
}

const (
	lruClockMax = 1<<24 - 1 // LRU_CLOCK_MAX
	lfuInitVal  = 5         // LFU_INIT_VAL
	evpoolSize  = 16        // EVPOOL_SIZE
)

// lruClock is LRU_CLOCK(): seconds, modulo 2^24 (LRU_CLOCK_RESOLUTION
// 1000 ms). now is Unix ms.
func lruClock(now int64) uint32 { return uint32(now/1000) & lruClockMax }

// lfuMinutes is LFUGetTimeInMinutes.
func lfuMinutes(now int64) uint32 { return uint32(now/60000) & 0xffff }

// idleMillis is estimateObjectIdleTime: the time since the LRU clock
// stored in meta, allowing for one wrap of the clock.
func idleMillis(meta uint32, now int64) uint64 {
	clock := lruClock(now)
	if clock >= meta {
		return uint64(clock-meta) * 1000
	}
	return uint64(clock+(lruClockMax-meta)) * 1000
}

// lfuDecr is LFUDecrAndReturn: the counter less one for every
// lfu-decay-time minutes since its last decrement.
func (k *Keyspace) lfuDecr(meta uint32, now int64) uint8 {
	ldt, counter := meta>>8, meta&255
	var periods uint32
	if dt := k.ev.cfg.DecayTime; dt != 0 {
		t := lfuMinutes(now)
		elapsed := t - ldt
		if t < ldt {
			elapsed = 65535 - ldt + t
		}
		periods = uint32(int64(elapsed) / dt)
	}
	if periods > counter {
		return 0
	}
	return uint8(counter - periods)
}

// lfuIncr is LFULogIncr: the counter grows with probability
// 1/((counter-LFU_INIT_VAL)*lfu-log-factor+1).
func (k *Keyspace) lfuIncr(counter uint8) uint8 {
	if counter == 255 {
		return 255
	}
	r := k.rng.Float64()
	base := max(float64(counter)-lfuInitVal, 0)
	if r < 1/(base*float64(k.ev.cfg.LogFactor)+1) {
		counter++
	}
	return counter
}

// freshMeta is what createObject gives a new value.
func (k *Keyspace) freshMeta(now int64) uint32 {
	if k.ev.cfg.Policy.LFU() {
		return lfuMinutes(now)<<8 | lfuInitVal
	}
	return lruClock(now)
}

// access updates e's access data as lookupKey does for every lookup not
// flagged LOOKUP_NOTOUCH.
func (k *Keyspace) access(e *entry, now int64) {
	if k.ev.cfg.Policy.LFU() {
		e.setMeta(lfuMinutes(now)<<8 | uint32(k.lfuIncr(k.lfuDecr(e.meta(), now))))
		return
	}
	e.setMeta(lruClock(now))
}

// born gives the key in slot i of database dbi a new value's access data.
func (k *Keyspace) born(dbi int, i uint32, now int64) {
	k.dbs[dbi].slots[i].setMeta(k.freshMeta(now))
}

// SetEvictConfig applies maxmemory-policy, maxmemory-samples,
// lfu-log-factor and lfu-decay-time. Owner goroutine only.
func (k *Keyspace) SetEvictConfig(cfg EvictConfig) {
	if cfg.Policy != k.ev.cfg.Policy {
		// evictionPoolAlloc is once in Redis, and a pool filled under one
		// policy ranks keys by another's scale: empty it.
		k.ev.pool = [evpoolSize]poolEntry{}
	}
	k.ev.cfg = cfg
}

// EvictConfig returns what SetEvictConfig set.
func (k *Keyspace) EvictConfig() EvictConfig { return k.ev.cfg }

// IdleTime is OBJECT IDLETIME's figure for key in c's database, in
// seconds (estimateObjectIdleTime/1000), without touching it; false when
// the key is missing. Meaningful when the policy is not an LFU one.
func (k *Keyspace) IdleTime(c *Ctx, key []byte) (int64, bool) {
	e, ok := k.objectLookup(c, key)
	if !ok {
		return 0, false
	}
	return int64(idleMillis(e.meta(), c.Now) / 1000), true
}

// Freq is OBJECT FREQ's figure for key in c's database: the decayed
// counter (LFUDecrAndReturn), without touching it. Meaningful under an LFU
// policy.
func (k *Keyspace) Freq(c *Ctx, key []byte) (int64, bool) {
	e, ok := k.objectLookup(c, key)
	if !ok {
		return 0, false
	}
	return int64(k.lfuDecr(e.meta(), c.Now)), true
}

// objectLookup is objectCommandLookup: a read that neither touches the
// key nor reports a miss, but counts a hit or a miss.
func (k *Keyspace) objectLookup(c *Ctx, key []byte) (*entry, bool) {
	e, _, ok := k.peek(c, key)
	if ok {
		k.stats.Hits++
	} else {
		k.stats.Misses++
	}
	return e, ok
}

// setAccessClock is objectSetLRUOrLFU for the key in slot i of database
// db, as RESTORE ... IDLETIME/FREQ sets it: under an LFU policy freq (0..255)
// becomes its counter, under any other idle (seconds) its idle time; -1 is
// an option not given.
func (k *Keyspace) setAccessClock(db int, i uint32, idle, freq, now int64) {
	e := &k.dbs[db].slots[i]
	if k.ev.cfg.Policy.LFU() {
		if freq >= 0 {
			e.setMeta(lfuMinutes(now)<<8 | uint32(freq))
		}
		return
	}
	if idle < 0 {
		return
	}
	clock := int64(lruClock(now))
	abs := clock - idle
	if abs < 0 {
		// The clock wrapped: the best is a value half-way round it, so the
		// key reads as idle for a long time (Redis's choice).
		abs = (clock + lruClockMax/2) % lruClockMax
	}
	e.setMeta(uint32(abs))
}

// evictState is the eviction pool and the random policies' database
// cursor.
type evictState struct {
	cfg    EvictConfig
	pool   [evpoolSize]poolEntry // EvictionPoolLRU, ascending idle
	nextDB int                   // evict.c's static next_db
	buf    []uint32              // populate's samples, kept between calls
}

// poolEntry is a candidate: its key (empty: an empty bucket), database,
// and score, higher evicted first.
type poolEntry struct {
	idle uint64
	key  string
	db   int
	set  bool
}

// populate is evictionPoolPopulate: it samples up to maxmemory-samples
// keys of database dbi (keys with a TTL only, for a volatile policy) and
// inserts each into the pool by score, dropping the lowest when the pool
// is full. Like Redis it does not look for the key already in the pool.
func (k *Keyspace) populate(dbi int, now int64) {
	d := &k.dbs[dbi]
	pol := k.ev.cfg.Policy
	pool := &k.ev.pool
	// dictGetSomeKeys takes no more than the dict holds, which bounds the
	// buffer by the keys whatever maxmemory-samples says.
	want := max(min(k.ev.cfg.Samples, d.candidates(pol)), 1)
	if cap(k.ev.buf) < want {
		k.ev.buf = make([]uint32, want)
	}
	for _, i := range k.sample(d, !pol.allKeys(), k.ev.buf[:want]) {
		e := &d.slots[i]
		var idle uint64
		switch {
		case pol.lru():
			idle = idleMillis(e.meta(), now)
		case pol.LFU():
			idle = 255 - uint64(k.lfuDecr(e.meta(), now))
		default: // volatile-ttl: the sooner the deadline, the better
			idle = math.MaxUint64 - uint64(e.expireAt)
		}
		j := 0
		for j < evpoolSize && pool[j].set && pool[j].idle < idle {
			j++
		}
		switch {
		case j == 0 && pool[evpoolSize-1].set:
			continue // worse than every candidate of a full pool
		case j < evpoolSize && !pool[j].set:
		case !pool[evpoolSize-1].set:
			copy(pool[j+1:], pool[j:evpoolSize-1]) // room on the right
		default:
			j-- // full: drop the lowest, on the left
			copy(pool[:j], pool[1:j+1])
		}
		pool[j] = poolEntry{idle: idle, key: e.key(), db: dbi, set: true}
	}
}

// sample picks up to len(buf) random slots of d holding a key (with a
// deadline, if volatile), as dictGetSomeKeys picks from the dict or the
// expires dict: up to ten tries per key wanted, and, when a database with
// candidates gave none that way (few keys with a TTL among many), a walk
// from a random slot, so a round never comes back empty.
func (k *Keyspace) sample(d *db, volatile bool, buf []uint32) []uint32 {
	n := 0
	want := func(i int) bool { return d.slots[i].live() && (!volatile || d.slots[i].expireAt != 0) }
	for try := 0; try < 10*len(buf) && n < len(buf); try++ {
		if i := k.rng.IntN(len(d.slots)); want(i) {
			buf[n] = uint32(i)
			n++
		}
	}
	if n == 0 {
		start := k.rng.IntN(len(d.slots))
		for j := range len(d.slots) {
			if i := (start + j) % len(d.slots); want(i) {
				buf[0] = uint32(i)
				return buf[:1]
			}
		}
	}
	return buf[:n]
}

// candidates is how many keys database d has that the policy may evict.
func (d *db) candidates(p EvictPolicy) int {
	if p.allKeys() {
		return d.used
	}
	return d.expires
}

// EvictOne removes one key as performEvictions's loop picks it under the
// policy, sends its "evicted" event and counts it, and reports whether
// there was one to remove (false: nothing is evictable, or noeviction).
// now is Unix ms. Owner goroutine only.
func (k *Keyspace) EvictOne(now int64) bool {
	pol := k.ev.cfg.Policy
	dbi, slot, found := 0, uint32(0), false
	switch pol {
	case NoEviction:
		return false
	case AllKeysRandom, VolatileRandom:
		for range k.dbs {
			k.ev.nextDB++
			j := k.ev.nextDB % len(k.dbs)
			d := &k.dbs[j]
			if d.candidates(pol) != 0 {
				var buf [1]uint32
				k.sample(d, pol == VolatileRandom, buf[:]) // never empty: d has candidates
				dbi, slot, found = j, buf[0], true
				break
			}
		}
	default:
		for !found {
			total := 0
			for j := range k.dbs {
				if n := k.dbs[j].candidates(pol); n != 0 {
					k.populate(j, now)
					total += n
				}
			}
			if total == 0 {
				break
			}
			// From the best candidate down, the first still there (a
			// candidate deleted or, for a volatile policy, made
			// persistent since it was pooled is a ghost).
			for p := evpoolSize - 1; p >= 0; p-- {
				c := k.ev.pool[p]
				if !c.set {
					continue
				}
				k.ev.pool[p] = poolEntry{}
				d := &k.dbs[c.db]
				if i, ok := d.lookupString(c.key); ok && (pol.allKeys() || d.slots[i].expireAt != 0) {
					dbi, slot, found = c.db, i, true
					break
				}
			}
		}
	}
	if !found {
		return false
	}
	key := k.dbs[dbi].slots[slot].key() // stays valid: the bytes outlive the slot
	k.remove(dbi, slot)
	k.stats.Evicted++
	k.notifyString(NotifyEvicted, "evicted", key, dbi)
	return true
}
