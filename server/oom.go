package server

import (
	"math"
	"strconv"
	"time"

	"github.com/minilock/minilock/keyspace"
	"github.com/minilock/minilock/resp"
)

// maxmemory, as Redis 7.0 applies it (evict.c:performEvictions, called by
// processCommand before every command once maxmemory is set, and by CONFIG
// SET maxmemory). Over the limit, the keyspace evicts keys as
// maxmemory-policy says (keyspace/evict.go) until memory is back under it,
// the time maxmemory-eviction-tenacity allows is spent (the rest is
// evicted between commands, as Redis's eviction timer does), or nothing
// is left to evict. In that last case, and always under noeviction,
// commands that may grow memory (denyoom) are refused, and so is anything
// queued in a MULTI; reads, deletes and EXEC/DISCARD still run. A script
// is judged once, when it starts (server.c saves pre_command_oom_state),
// and only until its first write (script.c:scriptVerifyOOM): a script that
// has written is never cut in the middle for the data it writes, and
// nothing is evicted while it runs. Off (the default, 0), none of this
// costs anything.
//
// The memory compared with maxmemory is INFO's used_memory (usedMemory):
// what the server held at start-up plus the bytes the keyspace accounts
// for its keys, values and their index. The Go heap's own figure counts
// garbage not yet collected, up to GOGC percent (50 in cmd/minilock) more
// than the live data, and would make eviction remove far more than
// needed, then nothing, in waves that follow the collector rather than
// the data. What it leaves out: the deadline index and the allocator's
// rounding (a 1M lock-key keyspace accounts 98.4 bytes a key of the 117.2
// it holds live), client buffers, scripts; and the process's RSS is the
// heap's, GOGC's headroom included.

var errOOM = &resp.Error{Code: "OOM", Msg: "command not allowed when used memory > 'maxmemory'."}

// usedMemory is INFO's used_memory and what eviction compares with
// maxmemory. Any goroutine.
func (s *Server) usedMemory() uint64 {
	return s.ops.startupMem + uint64(max(s.ks.DataBytes(), 0))
}

// outOfMemory reports the verdict of the last performEvictions, taken when
// the running command started (pre_command_oom_state). Owner goroutine
// only.
func (s *Server) outOfMemory() bool { return s.maxMemory != 0 && s.oom }

// performEvictions evicts keys until used memory is at most maxmemory and
// records and reports whether that failed (EVICT_FAIL: over the limit with
// nothing evictable, or noeviction). Running out of time is not a failure:
// the rest is evicted between commands (evictLater). Owner goroutine only.
func (s *Server) performEvictions() bool {
	s.evictLater = false
	s.oom = false
	if s.maxMemory == 0 {
		return false
	}
	if s.usedMemory() <= s.maxMemory {
		s.evictOver(false)
		return false
	}
	if s.ops.pause.active() {
		// isSafeToPerformEvictions: while clients are paused the dataset
		// stays as it is, evictions included; nothing is refused either.
		return false
	}
	limit := evictionTimeLimit(s.evictTenacity)
	start := time.Now()
	defer func() {
		s.ops.latencyAddSample("eviction-cycle", time.Since(start).Milliseconds())
		s.evictOver(s.oom || s.evictLater)
	}()
	now := s.ks.Now()
	for n := 1; s.usedMemory() > s.maxMemory; n++ {
		del := time.Now()
		if !s.ks.EvictOne(now) {
			s.oom = true
			return true
		}
		s.ops.latencyAddSample("eviction-del", time.Since(del).Milliseconds())
		// Like Redis, look at the clock every 16 keys only.
		if n%16 == 0 && time.Since(start) > limit {
			s.evictLater = true
			return false
		}
	}
	return false
}

// evictOver keeps INFO's total_eviction_exceeded_time and
// current_eviction_exceeded_time: the time memory stays over maxmemory,
// from a performEvictions that could not get under it to one that finds
// it under (performEvictions's update_metrics). Setting maxmemory to 0
// does not end it, as in Redis.
func (s *Server) evictOver(over bool) {
	switch {
	case over && s.ops.overSince.IsZero():
		s.ops.overSince = time.Now()
	case !over && !s.ops.overSince.IsZero():
		s.ops.overTotal += time.Since(s.ops.overSince)
		s.ops.overSince = time.Time{}
	}
}

// evictExceeded is INFO's total_eviction_exceeded_time and
// current_eviction_exceeded_time, in ms.
func (s *Server) evictExceeded() (total, current int64) {
	var cur time.Duration
	if !s.ops.overSince.IsZero() {
		cur = time.Since(s.ops.overSince)
	}
	return (s.ops.overTotal + cur).Milliseconds(), cur.Milliseconds()
}

// evictionTimeLimit is evictionTimeLimitUs: 50 µs per point of tenacity
// up to 10, then 15% more per point, unbounded at 100.
func evictionTimeLimit(tenacity int64) time.Duration {
	switch {
	case tenacity <= 10:
		return time.Duration(50*tenacity) * time.Microsecond
	case tenacity < 100:
		return time.Duration(500*math.Pow(1.15, float64(tenacity)-10)) * time.Microsecond
	}
	return math.MaxInt64
}

// evictDue is Redis's eviction timer (evictionTimeProc): what the last
// performEvictions left for later, between commands.
func (s *Server) evictDue() {
	if s.evictLater {
		s.performEvictions()
	}
}

// oomRefuses says whether, out of memory, Redis refuses cmd from c
// (processCommand's reject_cmd_on_oom).
func oomRefuses(c *client, cmd *command) bool {
	switch cmd.name {
	case "exec":
		for _, q := range c.multi.cmdsOrNil() {
			if q.cmd.flags&fDenyOOM != 0 {
				return true
			}
		}
		return false
	case "discard", "quit", "reset":
		return false
	}
	return cmd.flags&fDenyOOM != 0 || c.multi != nil
}

func (m *multiState) cmdsOrNil() []queued {
	if m == nil {
		return nil
	}
	return m.cmds
}

// maxMemoryParam is CONFIG GET/SET maxmemory, in bytes. Setting it evicts
// at once (config.c:updateMaxmemory).
var maxMemoryParam = liveParam{
	get: func(s *Server) string { return strconv.FormatUint(s.maxMemory, 10) },
	set: func(s *Server, v string) error {
		n, err := strconv.ParseUint(v, 10, 64)
		if err == nil {
			s.maxMemory = n
			// For 0 it does nothing: like Redis, INFO's
			// current_eviction_exceeded_time then goes on counting until
			// a limit is set and met again.
			s.performEvictions()
		}
		return err
	},
}

// evictParam is a parameter kept in the keyspace's EvictConfig.
func evictParam(get func(*keyspace.EvictConfig) string, set func(*keyspace.EvictConfig, string) error) liveParam {
	return liveParam{
		get: func(s *Server) string { c := s.ks.EvictConfig(); return get(&c) },
		set: func(s *Server, v string) error {
			c := s.ks.EvictConfig()
			if err := set(&c, v); err != nil {
				return err
			}
			s.ks.SetEvictConfig(c)
			return nil
		},
	}
}

func evictIntParam(field func(*keyspace.EvictConfig) *int64) liveParam {
	return evictParam(func(c *keyspace.EvictConfig) string { return itoa(*field(c)) },
		func(c *keyspace.EvictConfig, v string) error {
			n, err := strconv.ParseInt(v, 10, 64)
			if err == nil {
				*field(c) = n
			}
			return err
		})
}

func init() {
	liveParams["maxmemory-policy"] = evictParam(func(c *keyspace.EvictConfig) string { return c.Policy.String() },
		func(c *keyspace.EvictConfig, v string) error {
			p, ok := keyspace.ParseEvictPolicy(v)
			if !ok {
				return errBadPolicy
			}
			c.Policy = p
			return nil
		})
	liveParams["maxmemory-samples"] = evictParam(func(c *keyspace.EvictConfig) string { return strconv.Itoa(c.Samples) },
		func(c *keyspace.EvictConfig, v string) error {
			n, err := strconv.Atoi(v)
			if err == nil {
				c.Samples = n
			}
			return err
		})
	liveParams["lfu-log-factor"] = evictIntParam(func(c *keyspace.EvictConfig) *int64 { return &c.LogFactor })
	liveParams["lfu-decay-time"] = evictIntParam(func(c *keyspace.EvictConfig) *int64 { return &c.DecayTime })
	liveParams["maxmemory-eviction-tenacity"] = intParam(func(s *Server) int64 { return s.evictTenacity },
		func(s *Server, n int64) { s.evictTenacity = n })
}

// errBadPolicy never reaches a client: CONFIG SET checks the enum first.
var errBadPolicy = resp.NewError("invalid maxmemory-policy")
