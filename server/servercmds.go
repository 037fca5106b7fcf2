package server

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/minilock/minilock/internal/redisstr"
	"github.com/minilock/minilock/keyspace"
	"github.com/minilock/minilock/resp"
)

// Server commands: INFO, TIME, CONFIG GET, COMMAND, SHUTDOWN (server.c,
// config.c).

func newRunID() string {
	var b [20]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// TIME: seconds and microseconds, as two bulk strings, on the server's clock
// (the one keys expire by), so that a manual clock moves TIME too and a
// script that takes its timestamps from TIME agrees with the TTLs.
func cmdTime(x *call, args [][]byte) error {
	now := x.s.cfg.Clock.Now()
	x.W.Array(2)
	x.W.BulkString(itoa(now.Unix()))
	x.W.BulkString(itoa(int64(now.Nanosecond() / 1000)))
	return nil
}

// infoSection writes one INFO section.
type infoSection struct {
	name   string
	fields func(x *call) [][2]string
}

var infoSections = []infoSection{
	{"server", infoServer},
	{"clients", infoClients},
	{"memory", infoMemory},
	{"persistence", infoPersistence},
	{"stats", infoStats},
	{"replication", infoReplication},
	{"cpu", infoCPU},
	{"keyspace", infoKeyspace},
}

// INFO [section ...]: Redis's field names, minilock's figures. With no
// argument, "default", "all" or "everything", every section; unknown
// sections are left out.
func cmdInfo(x *call, args [][]byte) error {
	want := map[string]bool{}
	all := len(args) == 1
	for _, a := range args[1:] {
		s := strings.ToLower(string(a))
		if s == "default" || s == "all" || s == "everything" {
			all = true
		}
		want[s] = true
	}
	var b strings.Builder
	for _, sec := range infoSections {
		if !all && !want[sec.name] {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\r\n")
		}
		b.WriteString("# " + strings.ToUpper(sec.name[:1]) + sec.name[1:] + "\r\n")
		for _, f := range sec.fields(x) {
			b.WriteString(f[0] + ":" + f[1] + "\r\n")
		}
	}
	x.W.Verbatim("txt", b.String())
	return nil
}

func infoServer(x *call) [][2]string {
	s := x.s
	up := time.Since(s.start)
	port := "0"
	if i := strings.LastIndexByte(s.Addr(), ':'); i >= 0 {
		port = s.Addr()[i+1:]
	}
	exe, _ := os.Executable()
	return [][2]string{
		{"redis_version", Version},
		{"redis_mode", "standalone"},
		{"minilock", "1"},
		{"os", runtime.GOOS + " " + runtime.GOARCH},
		{"arch_bits", "64"},
		{"multiplexing_api", "go"},
		{"go_version", runtime.Version()},
		{"process_id", fmt.Sprint(os.Getpid())},
		{"run_id", s.runID},
		{"tcp_port", port},
		{"server_time_usec", fmt.Sprint(time.Now().UnixMicro())},
		{"uptime_in_seconds", fmt.Sprint(int64(up.Seconds()))},
		{"uptime_in_days", fmt.Sprint(int64(up.Hours() / 24))},
		{"executable", exe},
		{"config_file", ""},
	}
}

func infoClients(x *call) [][2]string {
	return [][2]string{
		{"connected_clients", fmt.Sprint(x.s.clients.count())},
		{"cluster_connections", "0"},
		{"maxclients", fmt.Sprint(x.s.cfg.MaxClients)},
		{"blocked_clients", fmt.Sprint(x.s.blocking.parked)},
		{"tracking_clients", "0"},
	}
}

func infoMemory(x *call) [][2]string {
	samples := []metrics.Sample{
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/total:bytes"},
	}
	metrics.Read(samples)
	used := samples[0].Value.Uint64()
	total := samples[1].Value.Uint64()
	return [][2]string{
		{"used_memory", fmt.Sprint(used)},
		{"used_memory_human", humanBytes(used)},
		{"used_memory_rss", fmt.Sprint(total)},
		{"used_memory_rss_human", humanBytes(total)},
		{"maxmemory", "0"},
		{"maxmemory_human", "0B"},
		{"maxmemory_policy", "noeviction"},
		{"mem_allocator", "go"},
	}
}

func infoPersistence(x *call) [][2]string {
	// Nothing is persisted. ioredis's ready check waits while "loading:1",
	// which is what the restart delay looks like from outside.
	loading := "0"
	if x.Now < x.s.writableAt {
		loading = "1"
	}
	return [][2]string{
		{"loading", loading},
		{"async_loading", "0"},
		{"rdb_changes_since_last_save", "0"},
		{"rdb_bgsave_in_progress", "0"},
		{"rdb_last_save_time", fmt.Sprint(x.s.start.Unix())},
		{"aof_enabled", "0"},
	}
}

func infoStats(x *call) [][2]string {
	s := x.s
	ks := s.ks.Stats()
	return [][2]string{
		{"total_connections_received", fmt.Sprint(s.stats.connections.Load())},
		{"total_commands_processed", fmt.Sprint(s.stats.commands.Load())},
		{"rejected_connections", fmt.Sprint(s.stats.rejected.Load())},
		{"expired_keys", fmt.Sprint(ks.Expired)},
		{"evicted_keys", "0"},
		{"keyspace_hits", fmt.Sprint(ks.Hits)},
		{"keyspace_misses", fmt.Sprint(ks.Misses)},
		{"pubsub_channels", "0"},
		{"pubsub_patterns", "0"},
	}
}

func infoReplication(x *call) [][2]string {
	return [][2]string{{"role", "master"}, {"connected_slaves", "0"}}
}

func infoCPU(x *call) [][2]string {
	return [][2]string{{"goroutines", fmt.Sprint(runtime.NumGoroutine())}}
}

func infoKeyspace(x *call) [][2]string {
	var out [][2]string
	for i, db := range x.s.ks.Info() {
		if db.Keys > 0 {
			out = append(out, [2]string{fmt.Sprintf("db%d", i), fmt.Sprintf("keys=%d,expires=%d,avg_ttl=0", db.Keys, db.Expires)})
		}
	}
	return out
}

// humanBytes formats n as Redis's bytesToHuman does.
func humanBytes(n uint64) string {
	f := float64(n)
	switch {
	case n < 1024:
		return fmt.Sprintf("%dB", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.2fK", f/1024)
	case n < 1024*1024*1024:
		return fmt.Sprintf("%.2fM", f/(1024*1024))
	default:
		return fmt.Sprintf("%.2fG", f/(1024*1024*1024))
	}
}

// configValues returns the settings CONFIG GET reports, by Redis's names.
func (s *Server) configValues() map[string]string {
	port := "0"
	if i := strings.LastIndexByte(s.Addr(), ':'); i >= 0 {
		port = s.Addr()[i+1:]
	}
	var binds []string
	for _, a := range s.Addrs() {
		if i := strings.LastIndexByte(a, ':'); i >= 0 {
			binds = append(binds, strings.Trim(a[:i], "[]"))
		}
	}
	busy := fmt.Sprint(s.cfg.BusyThreshold.Milliseconds())
	return map[string]string{
		"port":                      port,
		"bind":                      strings.Join(binds, " "),
		"requirepass":               s.cfg.Password,
		"databases":                 fmt.Sprint(s.ks.Databases()),
		"maxclients":                fmt.Sprint(s.cfg.MaxClients),
		"timeout":                   fmt.Sprint(int64(s.cfg.IdleTimeout.Seconds())),
		"busy-reply-threshold":      busy,
		"lua-time-limit":            busy,
		"proto-max-bulk-len":        fmt.Sprint(defaultMaxBulkLen),
		"client-query-buffer-limit": fmt.Sprint(defaultMaxQueryLen),
		"protected-mode":            yesNo(!s.cfg.DisableProtectedMode),
		"restart-delay":             fmt.Sprint(s.cfg.RestartDelay.Milliseconds()),
		"save":                      "",
		"appendonly":                "no",
		"maxmemory":                 "0",
		"maxmemory-policy":          "noeviction",
	}
}

// withParams adds the settable settings (config.go), under all their names,
// to what CONFIG GET reports. Owner goroutine.
func (s *Server) withParams(values map[string]string) map[string]string {
	for i := range configParams {
		p := &configParams[i]
		v := strconv.FormatInt(p.get(s), 10)
		if p.format != nil {
			v = p.format(p.get(s))
		}
		values[p.name] = v
		for _, a := range p.aliases {
			if a != "" {
				values[a] = v
			}
		}
	}
	return values
}

// CONFIG GET parameter [parameter ...]: each setting at most once, as a map
// (a flat array in RESP2). As in config.c:configGetCommand, a parameter
// without glob characters is looked up ignoring case and answered under the
// name as typed; a glob pattern matches the lower-case names, with case.
func cmdConfigGet(x *call, args [][]byte) error {
	values := x.s.withParams(x.s.configValues())
	names := make([]string, 0, len(values))
	for name := range values {
		names = append(names, name)
	}
	sort.Strings(names)
	seen := map[string]bool{}
	var out [][2]string // reply name, setting
	for _, pat := range args[2:] {
		if !strings.ContainsAny(redisstr.CString(pat), "[*?") {
			name := strings.ToLower(string(pat))
			if _, ok := values[name]; ok && !seen[name] {
				seen[name] = true
				out = append(out, [2]string{string(pat), name})
			}
			continue
		}
		for _, name := range names {
			if !seen[name] && keyspace.Match([]byte(redisstr.CString(pat)), name) {
				seen[name] = true
				out = append(out, [2]string{name, name})
			}
		}
	}
	x.W.Map(len(out))
	for _, o := range out {
		x.W.BulkString(o[0])
		x.W.BulkString(values[o[1]])
	}
	return nil
}

// CONFIG RESETSTAT
func cmdConfigResetStat(x *call, args [][]byte) error {
	x.s.stats.commands.Store(0)
	x.s.stats.connections.Store(0)
	x.s.stats.rejected.Store(0)
	x.W.OK()
	return nil
}

var errShutdownArgs = resp.ErrSyntax

// SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE]: minilock persists nothing, so every
// form stops the server at once. Like Redis, it sends no reply: the client
// sees the connection close.
func cmdShutdown(x *call, args [][]byte) error {
	nosave := false
	for _, a := range args[1:] {
		switch {
		case redisstr.Option(a, "nosave"):
			nosave = true
		case redisstr.Option(a, "save"),
			redisstr.Option(a, "now"), redisstr.Option(a, "force"):
		default:
			return errShutdownArgs
		}
	}
	if !nosave && x.s.lua.Running() {
		// A script is busy (this runs from serveWhileBusy): only SHUTDOWN
		// NOSAVE may stop the server then (server.c:shutdownCommand).
		return resp.ErrBusy
	}
	x.c.closeNow = true
	x.s.shutdownAsync()
	return nil
}

// shutdownAsync closes the server from outside the owner goroutine, which
// Close waits on.
func (s *Server) shutdownAsync() {
	s.log.Warn("shutting down on SHUTDOWN")
	if s.cfg.OnShutdown != nil {
		go s.cfg.OnShutdown()
	}
	go s.Close()
}

// commandNames returns the names of the top-level commands, sorted.
func commandNames() []string {
	names := make([]string, 0, len(commands))
	for name := range commands {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// COMMAND: every command's COMMAND INFO entry.
func cmdCommandAll(x *call, args [][]byte) error {
	if len(args) > 1 {
		// Reached only for a known subcommand with a bad arity, which
		// lookup has already answered; kept for safety.
		return resp.ErrWrongArgs("command")
	}
	names := commandNames()
	x.W.Array(len(names))
	for _, name := range names {
		x.W.B = append(x.W.B, commandInfo[x.W.Proto][name]...)
	}
	return nil
}

// COMMAND COUNT
func cmdCommandCount(x *call, args [][]byte) error {
	x.W.Int(int64(len(commands)))
	return nil
}

// COMMAND INFO [name ...]: Redis 7.0.15's own entries, captured by
// internal/gencommands; null for a command minilock does not have.
func cmdCommandInfo(x *call, args [][]byte) error {
	if len(args) == 2 {
		return cmdCommandAll(x, args[:1])
	}
	x.W.Array(len(args) - 2)
	for _, a := range args[2:] {
		info, ok := commandInfoEntry(x.W.Proto, strings.ToLower(string(a)))
		if !ok {
			x.W.Null()
			continue
		}
		x.W.B = append(x.W.B, info...)
	}
	return nil
}

// COMMAND DOCS [name ...]: a map of the named (or all) commands' docs.
func cmdCommandDocs(x *call, args [][]byte) error {
	names := commandNames()
	if len(args) > 2 {
		names = names[:0]
		for _, a := range args[2:] {
			// Named twice, a command is answered twice, as in Redis.
			name := strings.ToLower(string(a))
			if _, ok := commandDocsEntry(x.W.Proto, name); ok {
				names = append(names, name)
			}
		}
	}
	x.W.Map(len(names))
	for _, name := range names {
		x.W.BulkString(name)
		docs, _ := commandDocsEntry(x.W.Proto, name)
		x.W.B = append(x.W.B, docs...)
	}
	return nil
}

// COMMAND LIST: the names of all commands.
func cmdCommandList(x *call, args [][]byte) error {
	if len(args) > 2 {
		return resp.ErrSyntax
	}
	names := commandNames()
	x.W.Array(len(names))
	for _, name := range names {
		x.W.BulkString(name)
	}
	return nil
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
