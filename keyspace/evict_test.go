package keyspace

import (
	"slices"
	"strconv"
	"testing"
	"time"
)

// The access data (LRU clock, LFU counter) and the eviction pool, on a
// manual clock and a seeded rng.

func evictKS(t *testing.T, pol EvictPolicy, samples int) *ksTest {
	h := newKSTest(t)
	h.k.Seed(1)
	cfg := DefaultEvictConfig()
	cfg.Policy, cfg.Samples = pol, samples
	h.k.SetEvictConfig(cfg)
	return h
}

func (h *ksTest) ctx() *Ctx { return &Ctx{DB: h.db, Now: h.k.Now()} }

func (h *ksTest) idle(key string) int64 {
	h.t.Helper()
	n, ok := h.k.IdleTime(h.ctx(), []byte(key))
	if !ok {
		h.t.Fatalf("IdleTime %s: no key", key)
	}
	return n
}

func (h *ksTest) freq(key string) int64 {
	h.t.Helper()
	n, ok := h.k.Freq(h.ctx(), []byte(key))
	if !ok {
		h.t.Fatalf("Freq %s: no key", key)
	}
	return n
}

// lookupKey updates the clock; LOOKUP_NOTOUCH commands (TTL, EXISTS,
// TYPE, OBJECT) do not; TOUCH does.
func TestIdleTimeFollowsAccess(t *testing.T) {
	h := evictKS(t, NoEviction, 5)
	h.run("SET", "k", "v")
	h.advance(10 * time.Second)
	for _, c := range [][]string{{"TTL", "k"}, {"PTTL", "k"}, {"EXISTS", "k"}, {"TYPE", "k"}, {"EXPIRETIME", "k"}} {
		h.run(c...)
	}
	if got := h.idle("k"); got != 10 {
		t.Fatalf("idle after no-touch commands: %d, want 10", got)
	}
	h.run("GET", "k")
	if got := h.idle("k"); got != 0 {
		t.Fatalf("idle after GET: %d", got)
	}
	h.advance(5 * time.Second)
	h.run("TOUCH", "k", "nosuch")
	if got := h.idle("k"); got != 0 {
		t.Fatalf("idle after TOUCH: %d", got)
	}
	h.advance(7 * time.Second)
	h.run("RENAME", "k", "k2") // lookupKeyWrite: a touch
	h.run("MOVE", "k2", "1")
	h.db = 1
	if got := h.idle("k2"); got != 0 {
		t.Fatalf("idle after RENAME and MOVE: %d, want 0", got)
	}
	h.run("COPY", "k2", "k3") // a copy is a new object
	if got := h.idle("k3"); got != 0 {
		t.Fatalf("idle of a COPY: %d", got)
	}
	h.setIdle(h.ctx(), []byte("k3"), 1000)
	if got := h.idle("k3"); got != 1000 {
		t.Fatalf("idle after setIdle 1000: %d", got)
	}
	// Past the clock's start: half-way round the 24-bit clock.
	h.setIdle(h.ctx(), []byte("k3"), 1<<30)
	if got := h.idle("k3"); got < 1<<22 {
		t.Fatalf("idle after setIdle 2^30: %d", got)
	}
}

func TestLFUCounter(t *testing.T) {
	h := evictKS(t, AllKeysLFU, 5)
	h.run("SET", "k", "v")
	if got := h.freq("k"); got != lfuInitVal {
		t.Fatalf("new key: freq %d", got)
	}
	// At or below LFU_INIT_VAL every access counts (p = 1).
	h.run("GET", "k")
	if got := h.freq("k"); got != lfuInitVal+1 {
		t.Fatalf("after one GET: %d", got)
	}
	// Above it the counter grows logarithmically: with lfu-log-factor 10,
	// p = 1/((c-5)*10+1), so 1000 hits take it to about 16 (Redis's table
	// in redis.conf says 18 for 1K hits at factor 10, from a counter of 0).
	for range 1000 {
		h.run("GET", "k")
	}
	if got := h.freq("k"); got < 12 || got > 22 {
		t.Fatalf("after 1000 GETs: %d", got)
	}
	before := h.freq("k")
	h.advance(3 * time.Minute) // lfu-decay-time 1: one less a minute
	if got := h.freq("k"); got != before-3 {
		t.Fatalf("after 3 minutes: %d, want %d", got, before-3)
	}
	h.setFreq(h.ctx(), []byte("k"), 200)
	if got := h.freq("k"); got != 200 {
		t.Fatalf("after setFreq 200: %d", got)
	}
	cfg := h.k.EvictConfig()
	cfg.DecayTime = 0
	h.k.SetEvictConfig(cfg)
	h.advance(time.Hour)
	if got := h.freq("k"); got != 200 {
		t.Fatalf("lfu-decay-time 0 after an hour: %d", got)
	}
	if got := h.k.lfuIncr(255); got != 255 {
		t.Fatalf("lfuIncr(255) = %d", got)
	}
	// RENAME and MOVE move Redis's object, its counter with it.
	h.run("RENAME", "k", "k2")
	h.run("MOVE", "k2", "1")
	h.db = 1
	if got := h.freq("k2"); got < 200 || got > 201 {
		t.Fatalf("freq after RENAME and MOVE: %d, want 200 (or 201)", got)
	}
	// The minutes wrap at 2^16; LFUTimeElapsed counts 65535-ldt+now
	// then, one minute short: a stamp of 65535 reads one minute old at 1.
	cfg.DecayTime = 1
	h.k.SetEvictConfig(cfg)
	now := int64(65536+1) * 60000
	if got := h.k.lfuDecr(65535<<8|10, now); got != 9 {
		t.Fatalf("decay across the wrap: %d, want 9", got)
	}
}

// checkPool asserts the pool's shape: its candidates fill it from the
// left, in ascending score.
func checkPool(t *testing.T, k *Keyspace) {
	t.Helper()
	p := k.ev.pool
	n := 0
	for n < evpoolSize && p[n].set {
		n++
	}
	for j := n; j < evpoolSize; j++ {
		if p[j].set {
			t.Fatalf("pool has a hole at %d: %+v", n, p)
		}
	}
	if !slices.IsSortedFunc(p[:n], func(a, b poolEntry) int { return cmpU(a.idle, b.idle) }) {
		t.Fatalf("pool not ascending: %+v", p[:n])
	}
}

func cmpU(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Sampling 5 keys at a time into the 16-entry pool, allkeys-lru evicts
// among the idlest: with keys idle 0..999 s, the first 100 victims are
// far older than the average key.
func TestEvictionPoolLRU(t *testing.T) {
	h := evictKS(t, AllKeysLRU, 5)
	for i := range 1000 {
		h.run("SET", "k:"+strconv.Itoa(i), "v")
		h.setIdle(h.ctx(), []byte("k:"+strconv.Itoa(i)), int64(i))
	}
	var victims []int64
	for range 100 {
		checkPool(t, h.k)
		before := map[string]int64{}
		for i := range 1000 {
			key := "k:" + strconv.Itoa(i)
			if n, ok := h.k.IdleTime(h.ctx(), []byte(key)); ok {
				before[key] = n
			}
		}
		if !h.k.EvictOne(h.k.Now()) {
			t.Fatal("EvictOne found nothing")
		}
		for key, n := range before {
			if _, _, ok := h.k.peek(h.ctx(), []byte(key)); !ok {
				victims = append(victims, n)
			}
		}
	}
	if len(victims) != 100 || h.k.Stats().Evicted != 100 || h.k.dbs[0].used != 900 {
		t.Fatalf("victims %d, evicted %d, left %d", len(victims), h.k.Stats().Evicted, h.k.dbs[0].used)
	}
	var sum int64
	for _, v := range victims {
		sum += v
	}
	// Random victims would average 500 s; the pool's average well above.
	if avg := sum / 100; avg < 750 {
		t.Fatalf("average idle of the victims %d s, want the idlest", avg)
	}
}

// The pool inserts as evictionPoolPopulate does: into a full pool, a
// worse candidate than all is dropped, a better one pushes the worst out.
func TestEvictionPoolInsert(t *testing.T) {
	h := evictKS(t, AllKeysLRU, 64)
	for i := range 40 {
		h.run("SET", "k:"+strconv.Itoa(i), "v")
		h.setIdle(h.ctx(), []byte("k:"+strconv.Itoa(i)), int64(100+i))
	}
	h.k.populate(0, h.k.Now())
	checkPool(t, h.k)
	if p := h.k.ev.pool; !p[evpoolSize-1].set || p[evpoolSize-1].idle != 139_000 || p[0].idle < 100_000 {
		t.Fatalf("pool after 64 samples of 40 keys: %+v", p)
	}
	lowest := h.k.ev.pool[0].idle
	h.run("SET", "fresh", "v") // idle 0: worse than every candidate
	h.run("SET", "stale", "v")
	h.setIdle(h.ctx(), []byte("stale"), 5000)
	h.k.populate(0, h.k.Now())
	checkPool(t, h.k)
	p := h.k.ev.pool
	if p[evpoolSize-1].key != "stale" || p[0].idle < lowest {
		t.Fatalf("pool after a stale key: %+v", p)
	}
	for _, e := range p {
		if e.key == "fresh" {
			t.Fatalf("the freshest key entered a full pool: %+v", p)
		}
	}
}

// volatile-* evicts only keys with a TTL and then reports nothing left;
// volatile-ttl takes the soonest deadlines first.
func TestEvictVolatile(t *testing.T) {
	for _, pol := range []EvictPolicy{VolatileLRU, VolatileLFU, VolatileRandom, VolatileTTL} {
		t.Run(pol.String(), func(t *testing.T) {
			h := evictKS(t, pol, 5)
			for i := range 300 {
				key := "k:" + strconv.Itoa(i)
				if i%3 == 0 {
					h.run("SET", key, "v", "EX", strconv.Itoa(1000+i))
				} else {
					h.run("SET", key, "v")
				}
			}
			var order []int
			for h.k.EvictOne(h.k.Now()) {
				for i := 0; i < 300; i += 3 {
					if _, _, ok := h.k.peek(h.ctx(), []byte("k:"+strconv.Itoa(i))); !ok && !slices.Contains(order, i) {
						order = append(order, i)
					}
				}
			}
			if len(order) != 100 || h.k.dbs[0].used != 200 || h.k.dbs[0].expires != 0 {
				t.Fatalf("evicted %d with a TTL, %d keys left, %d with a TTL", len(order), h.k.dbs[0].used, h.k.dbs[0].expires)
			}
			if pol == VolatileTTL {
				// The first ten victims are among the soonest third.
				for _, i := range order[:10] {
					if i >= 100 {
						t.Fatalf("volatile-ttl evicted k:%d early: %v", i, order[:10])
					}
				}
			}
		})
	}
}

// The random policies take databases in turn (evict.c's next_db).
func TestEvictRandomAcrossDatabases(t *testing.T) {
	h := evictKS(t, AllKeysRandom, 5)
	for db := range 3 {
		h.db = db
		for i := range 10 {
			h.run("SET", "k:"+strconv.Itoa(i), "v")
		}
	}
	for range 6 {
		h.k.EvictOne(h.k.Now())
	}
	for db := range 3 {
		if n := h.k.dbs[db].used; n != 8 {
			t.Fatalf("db %d has %d keys after 6 evictions, want 8", db, n)
		}
	}
	cfg := h.k.EvictConfig()
	cfg.Policy = NoEviction
	h.k.SetEvictConfig(cfg)
	if h.k.EvictOne(h.k.Now()) {
		t.Fatal("noeviction evicted")
	}
}

// allkeys-lfu keeps the keys read often.
func TestEvictLFUKeepsHotKeys(t *testing.T) {
	h := evictKS(t, AllKeysLFU, 5)
	for i := range 200 {
		h.run("SET", "k:"+strconv.Itoa(i), "v")
	}
	for range 20 {
		for i := range 20 {
			h.run("GET", "k:"+strconv.Itoa(i))
		}
	}
	for range 150 {
		h.k.EvictOne(h.k.Now())
	}
	for i := range 20 {
		if _, _, ok := h.k.peek(h.ctx(), []byte("k:"+strconv.Itoa(i))); !ok {
			t.Fatalf("hot key k:%d evicted", i)
		}
	}
}

// BenchmarkEvictSetAtLimit is a SET of a new key and the eviction that
// makes room for it, under allkeys-lru with the default 5 samples, on
// 100,000 keys.
func BenchmarkEvictSetAtLimit(b *testing.B) {
	k := New(Config{})
	k.Seed(1)
	cfg := DefaultEvictConfig()
	cfg.Policy = AllKeysLRU
	k.SetEvictConfig(cfg)
	c := &Ctx{Now: k.Now()}
	val := []byte("0123456789abcdef0123456789abcdef")
	for i := range 100_000 {
		k.store(c, []byte(benchKey(i)), val, false)
	}
	b.ResetTimer()
	for i := range b.N {
		k.store(c, []byte(benchKey(100_000+i)), val, false)
		if !k.EvictOne(c.Now) {
			b.Fatal("nothing to evict")
		}
	}
}

// setIdle and setFreq set a key's access data as RESTORE's IDLETIME and
// FREQ do.
func (h *ksTest) setIdle(c *Ctx, key []byte, seconds int64) {
	if i, ok := h.k.dbs[c.DB].lookup(key); ok {
		h.k.setAccessClock(c.DB, i, seconds, -1, c.Now)
	}
}

func (h *ksTest) setFreq(c *Ctx, key []byte, freq uint8) {
	if i, ok := h.k.dbs[c.DB].lookup(key); ok {
		h.k.setAccessClock(c.DB, i, -1, int64(freq), c.Now)
	}
}
