package server

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/minilock/minilock/internal/redisstr"
	"github.com/minilock/minilock/keyspace"
	"github.com/minilock/minilock/resp"
)

// CONFIG GET and CONFIG SET (config.c). Every parameter redis-server 7.0
// has is known, with its default and the checks CONFIG SET makes
// (configdefs_gen.go, recorded from a real redis-server by
// internal/genconfig). The parameters minilock acts on are live: reading
// them reads minilock's own setting and setting them takes effect at once
// (liveParams). The rest are checked as Redis checks them and kept, so
// CONFIG GET returns what was set.

// configKind is how CONFIG SET reads a parameter's value.
type configKind int

const (
	kString    configKind = iota // any string
	kBool                        // yes or no
	kEnum                        // one of enum
	kInt                         // an integer within [min, max]
	kMemory                      // a size with an optional unit, within [min, max]
	kImmutable                   // set at startup only
	kProtected                   // refused while enable-protected-configs is no
	kSpecial                     // its own syntax (save, client-output-buffer-limit ...)
)

// configDef is one parameter as Redis 7.0 defines it.
type configDef struct {
	name     string
	def      string
	kind     configKind
	min, max string // kInt and kMemory bounds, as Redis prints them
	enum     []string
	msg      string // kSpecial: the error for a malformed value
}

// configAliases maps each of Redis's alias names to the parameter it
// stands for; both names answer CONFIG GET and CONFIG SET.
var configAliases = map[string]string{
	"hash-max-ziplist-entries":      "hash-max-listpack-entries",
	"hash-max-ziplist-value":        "hash-max-listpack-value",
	"zset-max-ziplist-entries":      "zset-max-listpack-entries",
	"zset-max-ziplist-value":        "zset-max-listpack-value",
	"list-max-ziplist-size":         "list-max-listpack-size",
	"lua-time-limit":                "busy-reply-threshold",
	"cluster-slave-no-failover":     "cluster-replica-no-failover",
	"cluster-slave-validity-factor": "cluster-replica-validity-factor",
	"min-slaves-max-lag":            "min-replicas-max-lag",
	"min-slaves-to-write":           "min-replicas-to-write",
	"repl-ping-slave-period":        "repl-ping-replica-period",
	"slave-announce-ip":             "replica-announce-ip",
	"slave-announce-port":           "replica-announce-port",
	"slave-ignore-maxmemory":        "replica-ignore-maxmemory",
	"slave-lazy-flush":              "replica-lazy-flush",
	"slave-priority":                "replica-priority",
	"slave-read-only":               "replica-read-only",
	"slave-serve-stale-data":        "replica-serve-stale-data",
	"slaveof":                       "replicaof",
}

// configByName finds a parameter by a lower-case name.
var configByName = func() map[string]*configDef {
	m := make(map[string]*configDef, len(configDefs))
	for i := range configDefs {
		m[configDefs[i].name] = &configDefs[i]
	}
	for i := range hiddenDefs {
		m[hiddenDefs[i].name] = &hiddenDefs[i]
	}
	return m
}()

// canonicalParam is the name a parameter's value is kept under.
func canonicalParam(name string) string {
	if c, ok := configAliases[name]; ok {
		return c
	}
	return name
}

// liveParam is a parameter minilock acts on: get reads minilock's
// setting; set, when there is one, applies a value CONFIG SET has already
// checked (nil: immutable or protected in Redis).
type liveParam struct {
	get func(s *Server) string
	set func(s *Server, v string) error
}

func intParam(get func(s *Server) int64, set func(s *Server, n int64)) liveParam {
	return liveParam{
		get: func(s *Server) string { return itoa(get(s)) },
		set: func(s *Server, v string) error {
			n, err := strconv.ParseInt(v, 10, 64)
			if err == nil {
				set(s, n)
			}
			return err
		},
	}
}

func encodingParam(field func(*keyspace.Encodings) *int) liveParam {
	return intParam(
		func(s *Server) int64 { e := s.ks.Encodings(); return int64(*field(&e)) },
		func(s *Server, n int64) { e := s.ks.Encodings(); *field(&e) = int(n); s.ks.SetEncodings(e) })
}

// liveParams are the parameters minilock acts on, by canonical name.
var liveParams = map[string]liveParam{
	"port": {
		get: func(s *Server) string { return s.port() },
		set: func(s *Server, v string) error {
			if v == s.port() {
				return nil // unchanged: Redis does not apply it
			}
			return s.rebind(s.bindHosts(), v, errListenPort)
		},
	},
	"bind": {
		get: (*Server).bindValue,
		set: func(s *Server, v string) error {
			hosts := strings.Fields(v)
			if len(hosts) == 0 {
				hosts = []string{"*", "-::*"} // CONFIG SET bind "" is Redis's default
			}
			if err := s.rebind(hosts, s.port(), errBind); err != nil {
				return err
			}
			s.rt.bind = hosts
			return nil
		},
	},
	"databases": {get: func(s *Server) string { return strconv.Itoa(s.ks.Databases()) }},
	"dir": {get: func(s *Server) string {
		d, _ := filepath.Abs(s.cfg.Dir)
		return d
	}},
	"requirepass": {
		get: func(s *Server) string { return s.password() },
		set: func(s *Server, v string) error { s.setRequirePass(v); return nil },
	},
	"maxclients": intParam(func(s *Server) int64 { return s.ops.live.maxClients.Load() },
		func(s *Server, n int64) { s.ops.live.maxClients.Store(n) }),
	"timeout": intParam(func(s *Server) int64 { return int64(s.idleTimeout() / time.Second) }, (*Server).setIdleTimeout),
	"protected-mode": {
		get: func(s *Server) string { return yesNo(s.ops.live.protectedMode.Load()) },
		set: func(s *Server, v string) error { s.ops.live.protectedMode.Store(v == "yes"); return nil },
	},
	// Live as in Redis: the Lua engine's watchdog, every connection's frame
	// guard and the string-growing commands read them at each use.
	"busy-reply-threshold": intParam(func(s *Server) int64 { return s.busyReplyMs.Load() },
		func(s *Server, n int64) { s.busyReplyMs.Store(n); s.lua.SetBusyThreshold(millis(n)) }),
	"proto-max-bulk-len": intParam(func(s *Server) int64 { return s.limits.Load().MaxBulkLen },
		func(s *Server, n int64) {
			l := s.limits.Load()
			l.MaxBulkLen = n
			s.limits.Set(l)
			s.ks.SetMaxStringLen(n)
		}),
	"client-query-buffer-limit": intParam(func(s *Server) int64 { return s.limits.Load().MaxQueryLen },
		func(s *Server, n int64) {
			l := s.limits.Load()
			l.MaxQueryLen = n
			s.limits.Set(l)
		}),
	"client-output-buffer-limit": {
		get: (*Server).cobl,
		set: func(s *Server, v string) error {
			s.ops.params["client-output-buffer-limit"] = v
			// The subscribers connected now take the pubsub class at once.
			hard, soft, softFor := s.pubsubLimits()
			for _, c := range s.clients.snapshot() {
				if c.Feed != nil && !c.monitor && c.inSubscribedMode() {
					c.Feed.SetLimits(hard, soft, softFor)
				}
			}
			return nil
		},
	},
	"tcp-keepalive": intParam(func(s *Server) int64 { return s.limits.KeepAlive() },
		func(s *Server, n int64) { s.limits.SetKeepAlive(n) }),
	"min-replicas-to-write": intParam(func(s *Server) int64 { return s.rt.minReplicas },
		func(s *Server, n int64) { s.rt.minReplicas = n }),
	"min-replicas-max-lag": intParam(func(s *Server) int64 { return s.rt.maxLag },
		func(s *Server, n int64) { s.rt.maxLag = n }),
	"restart-delay": {get: func(s *Server) string { return itoa(s.cfg.RestartDelay.Milliseconds()) }},
	"maxmemory":     maxMemoryParam,
	"rdbcompression": {
		get: func(s *Server) string { return yesNo(s.ks.RDBCompression()) },
		set: func(s *Server, v string) error { s.ks.SetRDBCompression(v == "yes"); return nil },
	},
	"notify-keyspace-events": {
		get: func(s *Server) string { return s.notify.flags.String() },
		set: func(s *Server, v string) error {
			f, err := keyspace.ParseNotifyFlags(v)
			if err == nil {
				s.setNotifyFlags(f)
			}
			return err
		},
	},
	"slowlog-log-slower-than": intParam(func(s *Server) int64 { return s.ops.slowlog.slowerThan },
		func(s *Server, n int64) { s.ops.slowlog.slowerThan = n }),
	"slowlog-max-len": intParam(func(s *Server) int64 { return s.ops.slowlog.maxLen },
		func(s *Server, n int64) { s.ops.slowlog.maxLen = n }),
	"loglevel": {
		get: func(s *Server) string {
			if v, ok := s.ops.params["loglevel"]; ok || s.cfg.LogLevel == nil {
				return cmpEmpty(v, "notice")
			}
			switch l := s.cfg.LogLevel.Level(); {
			case l <= slog.LevelDebug:
				return "debug"
			case l <= slog.LevelInfo:
				return "notice"
			}
			return "warning"
		},
		set: func(s *Server, v string) error {
			s.ops.params["loglevel"] = v
			if s.cfg.LogLevel != nil {
				// As cmd/minilock reads redis.conf's loglevel.
				l := map[string]slog.Level{"debug": slog.LevelDebug, "verbose": slog.LevelInfo, "notice": slog.LevelInfo, "warning": slog.LevelWarn}[v]
				s.cfg.LogLevel.Set(l)
			}
			return nil
		},
	},
	"latency-monitor-threshold": intParam(func(s *Server) int64 { return s.ops.latencyThreshold },
		func(s *Server, n int64) { s.ops.latencyThreshold = n }),
	"latency-tracking": {
		get: func(s *Server) string { return yesNo(s.ops.latencyTracking) },
		set: func(s *Server, v string) error { s.ops.latencyTracking = v == "yes"; return nil },
	},
	"latency-tracking-info-percentiles": {
		get: func(s *Server) string { return percentilesText(s.ops.percentiles) },
		set: func(s *Server, v string) error {
			ps, err := parsePercentiles(v)
			if err == nil {
				s.ops.percentiles = ps
			}
			return err
		},
	},
	"hash-max-listpack-entries": encodingParam(func(e *keyspace.Encodings) *int { return &e.HashMaxListpackEntries }),
	"hash-max-listpack-value":   encodingParam(func(e *keyspace.Encodings) *int { return &e.HashMaxListpackValue }),
	"zset-max-listpack-entries": encodingParam(func(e *keyspace.Encodings) *int { return &e.ZSetMaxListpackEntries }),
	"zset-max-listpack-value":   encodingParam(func(e *keyspace.Encodings) *int { return &e.ZSetMaxListpackValue }),
	"set-max-intset-entries":    encodingParam(func(e *keyspace.Encodings) *int { return &e.SetMaxIntsetEntries }),
	"list-max-listpack-size":    encodingParam(func(e *keyspace.Encodings) *int { return &e.ListMaxListpackSize }),
	"stream-node-max-bytes":     encodingParam(func(e *keyspace.Encodings) *int { return &e.StreamNodeMaxBytes }),
	"stream-node-max-entries":   encodingParam(func(e *keyspace.Encodings) *int { return &e.StreamNodeMaxEntries }),
	"hll-sparse-max-bytes":      encodingParam(func(e *keyspace.Encodings) *int { return &e.HLLSparseMaxBytes }),
}

// setIdleTimeout is CONFIG SET timeout: connections waiting for their
// next command get the new deadline at once, counted from their last
// command, as Redis's clientsCron closes a client idle for longer than
// timeout whenever it was set. Owner goroutine.
func (s *Server) setIdleTimeout(sec int64) {
	d := time.Duration(sec) * time.Second
	s.ops.live.idleTimeout.Store(int64(d))
	for _, c := range s.clients.snapshot() {
		if d > 0 {
			c.Guard.SetReadDeadline(c.lastAt.Add(d))
		} else {
			c.Guard.SetReadDeadline(time.Time{})
		}
	}
}

// CheckParam reports whether a config file line "name value" would be
// accepted at startup: a parameter CONFIG GET knows, with a value CONFIG
// SET would accept (immutable parameters too, which only a config file
// sets). The error is the text redis-server prints for such a line.
func CheckParam(name, value string) error {
	_, _, err := checkParam(name, value, "")
	return err
}

// errBadDirective is Redis's error for a config file line it does not know.
var errBadDirective = errors.New("Bad directive or wrong number of arguments")

// checkParam checks one parameter as CheckParam does and returns its
// definition and the value in CONFIG GET's form; cur is the parameter's
// current value, for the ones set by parts (client-output-buffer-limit).
func checkParam(name, value, cur string) (*configDef, string, error) {
	d := lookupDef(strings.ToLower(name))
	if d == nil {
		return nil, "", errBadDirective
	}
	if d.name == "client-output-buffer-limit" {
		v, err := setCOBL(cur, value)
		return d, v, err
	}
	v, err := d.check(value)
	return d, v, err
}

// Output buffer limits (Redis's client-output-buffer-limit classes). A
// monitor is a normal client to Redis, which has no limit for those; ours
// keeps a hard one so a stalled monitor cannot grow memory without bound.
const (
	monitorLimit      = 64 << 20
	pubsubHardLimit   = 32 << 20
	pubsubSoftLimit   = 8 << 20
	pubsubSoftSeconds = 60 * time.Second
)

// cobl is client-output-buffer-limit's value.
func (s *Server) cobl() string {
	return cmpEmpty(s.ops.params["client-output-buffer-limit"], configByName["client-output-buffer-limit"].def)
}

// pubsubLimits reads client-output-buffer-limit's pubsub class: the hard
// and soft limits, in bytes, and how long the soft one may be exceeded. A
// subscriber's feed takes them when it starts, and again at each CONFIG SET.
func (s *Server) pubsubLimits() (hard, soft int, softFor time.Duration) {
	f := strings.Fields(s.cobl())
	for i := 0; i+3 < len(f); i += 4 {
		if f[i] != "pubsub" {
			continue
		}
		h, err1 := strconv.ParseInt(f[i+1], 10, 64)
		so, err2 := strconv.ParseInt(f[i+2], 10, 64)
		sec, err3 := strconv.ParseInt(f[i+3], 10, 64)
		if err1 == nil && err2 == nil && err3 == nil {
			return int(h), int(so), time.Duration(sec) * time.Second
		}
	}
	return pubsubHardLimit, pubsubSoftLimit, pubsubSoftSeconds
}

// startupParams reads Config.Params before the server listens: every line
// is checked, and the parameters minilock reads only at startup go into
// s.cfg. The others are applied by applyParams once the keyspace exists.
func (s *Server) startupParams() error {
	for _, p := range s.cfg.Params {
		d, v, err := checkParam(p[0], p[1], s.param("client-output-buffer-limit"))
		if err != nil {
			return fmt.Errorf("%s %q: %w", p[0], p[1], err)
		}
		n, _ := strconv.ParseInt(v, 10, 64)
		switch canonicalParam(d.name) {
		case "busy-reply-threshold":
			s.cfg.BusyThreshold = millis(n)
			s.busyReplyMs.Store(n)
		case "proto-max-bulk-len":
			s.cfg.MaxBulkLen = n
		case "client-query-buffer-limit":
			s.cfg.QueryBufferLimit = n
		case "restart-delay":
			s.cfg.RestartDelay = millis(n)
		}
	}
	return nil
}

// applyParams sets Config.Params as CONFIG SET sets them, in order, so
// that a later line wins. Those startupParams took, and the ones Config's
// own fields give (port, bind, databases), are left alone. Owner goroutine.
func (s *Server) applyParams() error {
	for _, p := range s.cfg.Params {
		d, v, err := checkParam(p[0], p[1], s.param("client-output-buffer-limit"))
		if err != nil {
			return fmt.Errorf("%s %q: %w", p[0], p[1], err)
		}
		name := canonicalParam(d.name)
		if name == "port" || name == "bind" {
			continue // Config.Addrs
		}
		if lp, ok := liveParams[name]; ok {
			if lp.set != nil {
				if err := lp.set(s, v); err != nil {
					return fmt.Errorf("%s %q: %w", p[0], p[1], err)
				}
			}
			continue
		}
		s.ops.params[name] = v
	}
	return nil
}

// millis is n milliseconds, or the longest time.Duration past about 292
// years (a config's range goes to 2^63-1 milliseconds).
func millis(n int64) time.Duration {
	if n > math.MaxInt64/int64(time.Millisecond) {
		return math.MaxInt64
	}
	return time.Duration(n) * time.Millisecond
}

// restart-delay is minilock's own: CONFIG GET knows it, CONFIG SET does not
// change it.
var minilockDefs = []configDef{{name: "restart-delay", def: "0", kind: kImmutable}}

func cmpEmpty(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

func (s *Server) bindValue() string {
	if s.rt.bind != nil {
		return strings.Join(s.rt.bind, " ") // as CONFIG SET bind gave them
	}
	var binds []string
	for _, a := range s.Addrs() {
		if i := strings.LastIndexByte(a, ':'); i >= 0 {
			binds = append(binds, strings.Trim(a[:i], "[]"))
		}
	}
	return strings.Join(binds, " ")
}

// param returns a parameter's value as CONFIG GET shows it, by canonical
// name. Owner goroutine.
func (s *Server) param(name string) string {
	if lp, ok := liveParams[name]; ok {
		return lp.get(s)
	}
	if v, ok := s.ops.params[name]; ok {
		return v
	}
	if d := configByName[name]; d != nil {
		return d.def
	}
	return ""
}

// allConfigNames lists every parameter name CONFIG GET knows, aliases
// included, sorted.
var allConfigNames = func() []string {
	var names []string
	for _, d := range configDefs {
		names = append(names, d.name)
	}
	for _, d := range minilockDefs {
		names = append(names, d.name)
	}
	slices.Sort(names)
	return names
}()

func lookupDef(name string) *configDef {
	if d := configByName[name]; d != nil {
		return d
	}
	for i := range minilockDefs {
		if minilockDefs[i].name == name {
			return &minilockDefs[i]
		}
	}
	return nil
}

// CONFIG GET parameter [parameter ...]: each setting at most once, as a map
// (a flat array in RESP2). As in config.c:configGetCommand, a parameter
// without glob characters is looked up ignoring case and answered under the
// name as typed; a glob pattern matches the lower-case names, with case.
func cmdConfigGet(x *call, args [][]byte) error {
	seen := map[string]bool{}
	var out [][2]string // reply name, setting
	for _, pat := range args[2:] {
		p := redisstr.CString(pat)
		if !strings.ContainsAny(p, "[*?") {
			name := strings.ToLower(string(pat))
			if lookupDef(name) != nil && !seen[name] {
				seen[name] = true
				out = append(out, [2]string{string(pat), name})
			}
			continue
		}
		for _, name := range allConfigNames {
			if !seen[name] && keyspace.Match([]byte(p), name) {
				seen[name] = true
				out = append(out, [2]string{name, name})
			}
		}
	}
	x.W.Map(len(out))
	for _, o := range out {
		x.W.BulkString(o[0])
		x.W.BulkString(x.s.param(canonicalParam(o[1])))
	}
	return nil
}

var (
	errNotInteger = errors.New("argument couldn't be parsed into an integer")
	errNotMemory  = errors.New("argument must be a memory value")
	errNotBool    = errors.New("argument must be 'yes' or 'no'")
	errNoDefrag   = errors.New("Active defragmentation cannot be enabled: it requires a Redis server compiled with a modified Jemalloc like the one shipped by default with the Redis source distribution")
)

// check reads a value as config.c reads it for d's kind and returns the
// form CONFIG GET will show (1kb becomes 1024, YES becomes yes).
func (d *configDef) check(v string) (string, error) {
	switch d.kind {
	case kBool:
		// yesnotoi and the enum and memory parsers read a C string: a
		// NUL ends the value ("yes\x00x" is yes).
		switch strings.ToLower(cString(v)) {
		case "yes":
			if d.name == "activedefrag" {
				// config.c:isValidActiveDefrag without HAVE_DEFRAG, as
				// Debian's redis-server (system jemalloc) answers: minilock
				// has no allocator to defragment either.
				return "", errNoDefrag
			}
			return "yes", nil
		case "no":
			return "no", nil
		}
		return "", errNotBool
	case kEnum:
		for _, e := range d.enum {
			if strings.EqualFold(cString(v), e) {
				return e, nil
			}
		}
		return "", errors.New("argument(s) must be one of the following: " + strings.Join(d.enum, ", "))
	case kInt:
		n, ok := redisstr.ParseInt([]byte(v))
		if !ok {
			return "", errNotInteger
		}
		lo, _ := strconv.ParseInt(d.min, 10, 64)
		hi, _ := strconv.ParseInt(d.max, 10, 64)
		if n < lo || n > hi {
			return "", d.rangeErr()
		}
		if d.name == "hz" {
			n = min(max(n, 1), 500) // updateHZ: CONFIG_MIN_HZ..CONFIG_MAX_HZ
		}
		return itoa(n), nil
	case kMemory:
		n, ok := memToBytes(cString(v))
		if !ok {
			return "", errNotMemory
		}
		lo, _ := strconv.ParseUint(d.min, 10, 64)
		hi, _ := strconv.ParseUint(d.max, 10, 64)
		if n < lo || n > hi {
			return "", d.rangeErr()
		}
		if d.name == "repl-backlog-size" {
			n = max(n, 16<<10) // resizeReplicationBacklog: CONFIG_REPL_BACKLOG_MIN_SIZE
		}
		return strconv.FormatUint(n, 10), nil
	case kSpecial:
		return checkSpecial(d, v)
	}
	if !sdsParams[d.name] {
		// A plain string parameter is kept as a C string (zstrdup).
		v = cString(v)
	}
	if err := checkString(d.name, v); err != nil {
		return "", err
	}
	if d.name == "notify-keyspace-events" {
		// Kept as given: its canonical form drops 'n' beside 'A' (as
		// keyspaceEventsFlagsToString does), the flags do not.
		if _, err := keyspace.ParseNotifyFlags(v); err != nil {
			return "", err
		}
	}
	return v, nil
}

// cString is v as C reads it: up to its first NUL.
func cString(v string) string {
	if i := strings.IndexByte(v, 0); i >= 0 {
		return v[:i]
	}
	return v
}

func (d *configDef) rangeErr() error {
	return errors.New("argument must be between " + d.min + " and " + d.max + " inclusive")
}

// memToBytes is util.c:memtoull: a number and an optional unit b, k, kb,
// m, mb, g, gb (any case; k is 1000, kb 1024).
func memToBytes(s string) (uint64, bool) {
	if strings.HasPrefix(s, "-") {
		return 0, false
	}
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	var mul uint64
	switch strings.ToLower(s[i:]) {
	case "", "b":
		mul = 1
	case "k":
		mul = 1000
	case "kb":
		mul = 1024
	case "m":
		mul = 1000 * 1000
	case "mb":
		mul = 1 << 20
	case "g":
		mul = 1000 * 1000 * 1000
	case "gb":
		mul = 1 << 30
	default:
		return 0, false
	}
	if i >= 128 {
		return 0, false
	}
	var val uint64 // no digits at all read as 0, as strtoull("") does
	if i > 0 {
		v, err := strconv.ParseUint(s[:i], 10, 64)
		if err != nil {
			v = math.MaxUint64 // strtoull saturates on overflow
		}
		val = v
	}
	return val * mul, true // and C's unsigned multiply wraps
}

// checkSpecial checks the parameters with a syntax of their own.
func checkSpecial(d *configDef, v string) (string, error) {
	fail := errors.New(d.msg)
	switch d.name {
	case "save":
		if v == "" {
			return "", nil
		}
		parts := strings.Split(v, " ")
		if len(parts)%2 != 0 {
			return "", fail
		}
		for _, p := range parts {
			if _, ok := redisstr.ParseInt([]byte(p)); !ok {
				return "", fail
			}
		}
		return v, nil
	case "latency-tracking-info-percentiles":
		ps, err := parsePercentiles(v)
		if err != nil {
			return "", err
		}
		return percentilesText(ps), nil
	case "maxmemory-clients":
		if strings.HasSuffix(v, "%") {
			n, ok := redisstr.ParseInt([]byte(strings.TrimSuffix(v, "%")))
			if !ok || n < 0 {
				return "", fail
			}
			if n > 100 {
				return "", errors.New("percentage argument must be less or equal to 100")
			}
			return itoa(n) + "%", nil
		}
		n, ok := memToBytes(v)
		if !ok {
			return "", fail
		}
		return strconv.FormatUint(n, 10), nil
	case "oom-score-adj-values":
		parts := strings.Fields(v)
		if len(parts) != 3 {
			return "", fail
		}
		for i, p := range parts {
			n, ok := redisstr.ParseInt([]byte(p))
			if !ok || n < -2000 || n > 2000 {
				return "", errors.New("Invalid oom-score-adj-values, elements must be between -2000 and 2000.")
			}
			parts[i] = itoa(n)
		}
		return strings.Join(parts, " "), nil
	case "client-output-buffer-limit":
		return "", errors.New("client-output-buffer-limit is set by setCOBL")
	}
	return v, nil
}

// parsePercentiles reads latency-tracking-info-percentiles as Redis's
// setter does: "" for none, else the value split at each single space
// (sdssplitlen: two spaces make an empty part, which is invalid), each
// part a number string2d reads ("0x10" is 16) between 0 and 100.
func parsePercentiles(v string) ([]float64, error) {
	if v == "" {
		return nil, nil
	}
	if strings.Count(v, " ") >= 1<<10 {
		return nil, errors.New("Invalid latency-tracking-info-percentiles parameters")
	}
	parts := strings.Split(v, " ")
	out := make([]float64, 0, len(parts))
	for _, p := range parts {
		f, ok := redisstr.String2d(p)
		if !ok {
			return nil, errors.New("Invalid latency-tracking-info-percentiles parameters")
		}
		if f < 0 || f > 100 {
			return nil, errors.New("latency-tracking-info-percentiles parameters should sit between [0.0,100.0]")
		}
		out = append(out, f)
	}
	return out, nil
}

// percentilesText is the parameter's value as Redis's getter writes it:
// each percentile as %f with its trailing zeros (and point) trimmed.
func percentilesText(ps []float64) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		t := strconv.FormatFloat(p, 'f', 6, 64)
		parts[i] = strings.TrimSuffix(strings.TrimRight(t, "0"), ".")
	}
	return strings.Join(parts, " ")
}

// setCOBL applies client-output-buffer-limit: groups of class, hard
// limit, soft limit and soft seconds, changing the classes named.
func setCOBL(cur, v string) (string, error) {
	args := strings.Fields(v)
	if len(args)%4 != 0 {
		return "", errors.New("Wrong number of arguments in buffer limit configuration.")
	}
	classes := []string{"normal", "slave", "pubsub"}
	vals := map[string][3]string{}
	curF := strings.Fields(cur)
	for i := 0; i+3 < len(curF); i += 4 {
		vals[curF[i]] = [3]string{curF[i+1], curF[i+2], curF[i+3]}
	}
	for i := 0; i < len(args); i += 4 {
		class := strings.ToLower(args[i])
		if class == "replica" {
			class = "slave"
		}
		if !slices.Contains(classes, class) || class == "" {
			return "", errors.New("Invalid client class specified in buffer limit configuration.")
		}
		hard, ok1 := memToBytes(args[i+1])
		soft, ok2 := memToBytes(args[i+2])
		secs, ok3 := redisstr.ParseInt([]byte(args[i+3]))
		if !ok1 || !ok2 || !ok3 || secs < 0 {
			return "", errors.New("Error in hard, soft or soft_seconds setting in buffer limit configuration.")
		}
		vals[class] = [3]string{strconv.FormatUint(hard, 10), strconv.FormatUint(soft, 10), itoa(secs)}
	}
	var parts []string
	for _, c := range classes {
		v := vals[c]
		parts = append(parts, c, v[0], v[1], v[2])
	}
	return strings.Join(parts, " "), nil
}

func configSetErr(name string, err error) error {
	return resp.NewError("CONFIG SET failed (possibly related to argument '" + name + "') - " + err.Error())
}

// CONFIG SET parameter value [parameter value ...]: the names are checked
// first (unknown, immutable, protected, named twice), then every value,
// and only when all are good is any applied, as configSetCommand does.
func cmdConfigSet(x *call, args [][]byte) error {
	if len(args)%2 != 0 {
		return resp.ErrSyntax
	}
	type change struct {
		name  string // lower case, as typed
		def   *configDef
		value string
	}
	var changes []change
	seen := map[string]bool{}
	for j := 2; j < len(args); j += 2 {
		typed := redisstr.CString(args[j])
		name := strings.ToLower(string(args[j]))
		d := lookupDef(name)
		if d == nil {
			return resp.NewError("Unknown option or number of arguments for CONFIG SET - '" + typed + "'")
		}
		switch {
		case d.kind == kImmutable:
			return configSetErr(typed, errors.New("can't set immutable config"))
		case d.kind == kProtected:
			return configSetErr(typed, errors.New("can't set protected config"))
		case seen[name]:
			return configSetErr(typed, errors.New("duplicate parameter"))
		}
		seen[name] = true
		changes = append(changes, change{name, d, string(args[j+1])})
	}
	for i := range changes {
		ch := &changes[i]
		var v string
		var err error
		if ch.def.name == "client-output-buffer-limit" {
			v, err = setCOBL(x.s.param(ch.def.name), ch.value)
		} else {
			v, err = ch.def.check(ch.value)
		}
		if err != nil {
			return configSetErr(ch.name, err)
		}
		ch.value = v
	}
	for _, ch := range changes {
		name := canonicalParam(ch.def.name)
		if lp, ok := liveParams[name]; ok {
			if lp.set != nil {
				if err := lp.set(x.s, ch.value); err != nil {
					return configSetErr(ch.name, err)
				}
			}
			continue
		}
		x.s.ops.params[name] = ch.value
	}
	x.W.OK()
	return nil
}

// checkConfigTables is run by a test: every live parameter and alias
// names a parameter Redis has.
func checkConfigTables() error {
	for name := range liveParams {
		if lookupDef(name) == nil {
			return fmt.Errorf("live parameter %q is not in configDefs", name)
		}
	}
	for a, c := range configAliases {
		if lookupDef(a) == nil || lookupDef(c) == nil {
			return fmt.Errorf("alias %q -> %q: not in configDefs", a, c)
		}
	}
	return nil
}
