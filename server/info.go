package server

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// INFO (server.c:genRedisInfoString): every section and field redis-server
// 7.0 prints, in its order. A field is minilock's own figure where minilock
// has one; for a feature minilock lacks (persistence, replication, forks,
// defragmentation, threads, modules, cluster) it is the value Redis prints
// when that feature is off or idle. Nothing is made up to look busy.

// infoSection is one INFO section: its name as INFO takes it, its title,
// and its fields.
type infoSection struct {
	name   string
	title  string
	fields func(x *call) [][2]string
	// inDefault: printed by INFO with no argument and INFO default.
	inDefault bool
}

// infoSections is Redis 7.0's order of sections.
var infoSections = []infoSection{
	{"server", "Server", infoServer, true},
	{"clients", "Clients", infoClients, true},
	{"memory", "Memory", infoMemory, true},
	{"persistence", "Persistence", infoPersistence, true},
	{"stats", "Stats", infoStats, true},
	{"replication", "Replication", infoReplication, true},
	{"cpu", "CPU", infoCPU, true},
	{"modules", "Modules", func(*call) [][2]string { return nil }, true},
	{"commandstats", "Commandstats", infoCommandStats, false},
	{"errorstats", "Errorstats", infoErrorStats, true},
	{"latencystats", "Latencystats", infoLatencyStats, false},
	{"cluster", "Cluster", func(*call) [][2]string { return [][2]string{{"cluster_enabled", "0"}} }, true},
	{"keyspace", "Keyspace", infoKeyspace, true},
}

// INFO [section ...]: no argument or "default" is the default sections;
// "all" and "everything" every section; several may be named at once, in
// any case; unknown ones are ignored.
func cmdInfo(x *call, args [][]byte) error {
	if x.s.ops.hasPending.Load() && !x.offOwner {
		x.s.ops.drainPending(x.s)
	}
	want := map[string]bool{}
	if len(args) == 1 {
		want["default"] = true
	}
	for _, a := range args[1:] {
		want[strings.ToLower(string(a))] = true
	}
	all := want["all"] || want["everything"]
	var b strings.Builder
	for _, sec := range infoSections {
		if !all && !want[sec.name] && !(want["default"] && sec.inDefault) {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\r\n")
		}
		b.WriteString("# " + sec.title + "\r\n")
		for _, f := range sec.fields(x) {
			b.WriteString(f[0] + ":" + f[1] + "\r\n")
		}
	}
	x.W.Verbatim("txt", b.String())
	return nil
}

// buildID is redis_build_id: the VCS revision minilock was built from,
// when the Go toolchain recorded one.
var buildID = func() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 15 {
				return s.Value[:15]
			}
		}
	}
	return "0"
}()

func (s *Server) port() string {
	if i := strings.LastIndexByte(s.Addr(), ':'); i >= 0 {
		return s.Addr()[i+1:]
	}
	return "0"
}

func infoServer(x *call) [][2]string {
	s := x.s
	up := time.Since(s.start)
	exe, _ := os.Executable()
	now := time.Now()
	return [][2]string{
		{"redis_version", Version},
		{"redis_git_sha1", "00000000"},
		{"redis_git_dirty", "0"},
		{"redis_build_id", buildID},
		{"redis_mode", "standalone"},
		{"os", osName()},
		{"arch_bits", strconv.Itoa(strconv.IntSize)},
		{"monotonic_clock", "POSIX clock_gettime"},
		{"multiplexing_api", multiplexingAPI()},
		{"atomicvar_api", "sync/atomic"},
		// Redis prints 0.0.0 when it was not built with GCC.
		{"gcc_version", "0.0.0"},
		{"process_id", strconv.Itoa(os.Getpid())},
		{"process_supervised", "no"},
		{"run_id", s.runID},
		{"tcp_port", s.port()},
		{"server_time_usec", itoa(now.UnixMicro())},
		{"uptime_in_seconds", itoa(int64(up.Seconds()))},
		{"uptime_in_days", itoa(int64(up.Hours() / 24))},
		{"hz", s.param("hz")},
		{"configured_hz", s.param("hz")},
		// Redis's LRU clock: seconds, modulo 2^24.
		{"lru_clock", itoa(now.Unix() & (1<<24 - 1))},
		{"executable", exe},
		{"config_file", ""},
		{"io_threads_active", "0"},
	}
}

func multiplexingAPI() string {
	switch runtime.GOOS {
	case "linux":
		return "epoll" // Go's network poller
	case "darwin", "freebsd", "netbsd", "openbsd", "dragonfly":
		return "kqueue"
	}
	return runtime.GOOS
}

func infoClients(x *call) [][2]string {
	s := x.s
	in, out := s.ops.recentPeaks(time.Now().Unix())
	return [][2]string{
		{"connected_clients", strconv.Itoa(s.clients.count())},
		{"cluster_connections", "0"},
		{"maxclients", itoa(s.ops.live.maxClients.Load())},
		{"client_recent_max_input_buffer", itoa(in)},
		{"client_recent_max_output_buffer", itoa(out)},
		{"blocked_clients", strconv.Itoa(s.blocking.parked)},
		{"tracking_clients", strconv.Itoa(s.track.clients)},
		{"clients_in_timeout_table", strconv.Itoa(len(s.blocking.timers))},
	}
}

// memSample is what INFO memory reads from the Go runtime.
type memSample struct {
	heapObjects, heapUnused, total, released uint64
}

var memMetrics = []string{
	"/memory/classes/heap/objects:bytes",
	"/memory/classes/heap/unused:bytes",
	"/memory/classes/total:bytes",
	"/memory/classes/heap/released:bytes",
}

func readMem() memSample {
	samples := make([]metrics.Sample, len(memMetrics))
	for i, n := range memMetrics {
		samples[i].Name = n
	}
	metrics.Read(samples)
	v := func(i int) uint64 {
		if samples[i].Value.Kind() == metrics.KindUint64 {
			return samples[i].Value.Uint64()
		}
		return 0
	}
	return memSample{heapObjects: v(0), heapUnused: v(1), total: v(2), released: v(3)}
}

func ratio(a, b uint64) string {
	if b == 0 {
		return "0.00"
	}
	return fmt.Sprintf("%.2f", float64(a)/float64(b))
}

func infoMemory(x *call) [][2]string {
	s := x.s
	m := readMem()
	used := s.usedMemory()
	peak := s.ops.notePeak(used)
	rss := m.total - m.released // what the process holds from the OS
	active := m.heapObjects + m.heapUnused
	resident := rss
	dataset := uint64(max(s.ks.DataBytes(), 0))
	overhead := used - min(dataset, used)
	startup := s.ops.startupMem
	net := max(int64(used)-int64(startup), 1)
	scripts, scriptBytes := s.lua.ScriptCacheUsed()
	nlibs, nfuncs := s.lua.FunctionCount()
	funcBytes := s.lua.FunctionBytes()
	maxmem, _ := strconv.ParseUint(s.param("maxmemory"), 10, 64)
	u := func(n uint64) string { return strconv.FormatUint(n, 10) }
	return [][2]string{
		{"used_memory", u(used)},
		{"used_memory_human", humanBytes(used)},
		{"used_memory_rss", u(rss)},
		{"used_memory_rss_human", humanBytes(rss)},
		{"used_memory_peak", u(peak)},
		{"used_memory_peak_human", humanBytes(peak)},
		{"used_memory_peak_perc", fmt.Sprintf("%.2f%%", float64(used)*100/float64(max(peak, 1)))},
		{"used_memory_overhead", u(overhead)},
		{"used_memory_startup", u(startup)},
		{"used_memory_dataset", u(dataset)},
		{"used_memory_dataset_perc", fmt.Sprintf("%.2f%%", float64(dataset)*100/float64(net))},
		{"allocator_allocated", u(m.heapObjects)},
		{"allocator_active", u(active)},
		{"allocator_resident", u(resident)},
		{"total_system_memory", u(totalSystemMemory())},
		{"total_system_memory_human", humanBytes(totalSystemMemory())},
		// gopher-lua does not account its VM's memory: minilock has no
		// figure for these, and prints 0 rather than a guess.
		{"used_memory_lua", "0"},
		{"used_memory_vm_eval", "0"},
		{"used_memory_lua_human", "0B"},
		{"used_memory_scripts_eval", itoa(scriptBytes)},
		{"number_of_cached_scripts", strconv.Itoa(scripts)},
		{"number_of_functions", strconv.FormatInt(nfuncs, 10)},
		{"number_of_libraries", strconv.FormatInt(nlibs, 10)},
		{"used_memory_vm_functions", "0"},
		{"used_memory_vm_total", "0"},
		{"used_memory_vm_total_human", "0B"},
		{"used_memory_functions", itoa(funcBytes)},
		{"used_memory_scripts", itoa(scriptBytes + funcBytes)},
		{"used_memory_scripts_human", humanBytes(uint64(max(scriptBytes+funcBytes, 0)))},
		{"maxmemory", u(maxmem)},
		{"maxmemory_human", humanBytes(maxmem)},
		{"maxmemory_policy", s.param("maxmemory-policy")},
		{"allocator_frag_ratio", ratio(active, m.heapObjects)},
		{"allocator_frag_bytes", itoa(int64(active) - int64(m.heapObjects))},
		{"allocator_rss_ratio", ratio(resident, active)},
		{"allocator_rss_bytes", itoa(int64(resident) - int64(active))},
		{"rss_overhead_ratio", ratio(rss, resident)},
		{"rss_overhead_bytes", itoa(int64(rss) - int64(resident))},
		{"mem_fragmentation_ratio", ratio(rss, used)},
		{"mem_fragmentation_bytes", itoa(int64(rss) - int64(used))},
		{"mem_not_counted_for_evict", "0"},
		{"mem_replication_backlog", "0"},
		{"mem_total_replication_buffers", "0"},
		{"mem_clients_slaves", "0"},
		{"mem_clients_normal", itoa(s.clientsMemory())},
		{"mem_cluster_links", "0"},
		{"mem_aof_buffer", "0"},
		{"mem_allocator", "go-" + runtime.Version()},
		{"active_defrag_running", "0"},
		{"lazyfree_pending_objects", "0"},
		{"lazyfreed_objects", "0"},
	}
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
	case n < 1024*1024*1024*1024:
		return fmt.Sprintf("%.2fG", f/(1024*1024*1024))
	case n < 1024*1024*1024*1024*1024:
		return fmt.Sprintf("%.2fT", f/(1024*1024*1024*1024))
	case n < 1024*1024*1024*1024*1024*1024:
		return fmt.Sprintf("%.2fP", f/(1024*1024*1024*1024*1024))
	}
	return fmt.Sprintf("%dB", n)
}

func infoPersistence(x *call) [][2]string {
	// ioredis's ready check waits while "loading:1", which is what the
	// restart delay looks like from outside.
	loading := "0"
	if x.Now < x.s.writableAt {
		loading = "1"
	}
	p := &x.s.persist
	// The figures of the snapshot being taken: its copies of changed keys
	// stand for Redis's copy-on-write pages, and the share of keys copied
	// out for current_fork_perc (the child's progress).
	snap := x.s.ks.SnapshotProgress()
	forkPerc := "0.00"
	if snap.KeysTotal > 0 {
		forkPerc = fmt.Sprintf("%.2f", 100*float64(snap.KeysDone)/float64(snap.KeysTotal))
	}
	a := &x.s.aof
	rw := p.bg != nil && p.bg.aof
	rwCur := int64(-1)
	if rw {
		rwCur = (x.Now - a.rwStart) / 1000
	}
	rwStatus := okErr(a.rewriteOK || a.rewrites == 0 && !rw)
	out := [][2]string{
		{"loading", loading},
		{"async_loading", "0"},
		{"current_cow_peak", itoa(snap.CowPeak)},
		{"current_cow_size", itoa(snap.CowBytes)},
		{"current_cow_size_age", "0"},
		{"current_fork_perc", forkPerc},
		{"current_save_keys_processed", itoa(snap.KeysDone)},
		{"current_save_keys_total", itoa(snap.KeysTotal)},
		{"rdb_changes_since_last_save", itoa(x.s.ks.Changes() - p.saved)},
		{"rdb_bgsave_in_progress", boolDigit(p.bg != nil)},
		{"rdb_last_save_time", itoa(p.lastSave)},
		{"rdb_last_bgsave_status", okErr(!p.lastFailed)},
		{"rdb_last_bgsave_time_sec", itoa(p.lastSecs)},
		{"rdb_current_bgsave_time_sec", itoa(x.s.bgSaveElapsed(x.Now))},
		{"rdb_saves", itoa(p.saves)},
		{"rdb_last_cow_size", itoa(p.lastCow)},
		{"rdb_last_load_keys_expired", "0"},
		{"rdb_last_load_keys_loaded", "0"},
		{"aof_enabled", boolDigit(a.on)},
		{"aof_rewrite_in_progress", boolDigit(rw)},
		{"aof_rewrite_scheduled", boolDigit(a.rewriting)},
		{"aof_last_rewrite_time_sec", itoa(a.lastRwSec)},
		{"aof_current_rewrite_time_sec", itoa(rwCur)},
		{"aof_last_bgrewrite_status", rwStatus},
		{"aof_rewrites", itoa(a.rewrites)},
		{"aof_rewrites_consecutive_failures", "0"},
		{"aof_last_write_status", okErr(a.lastErr == nil)},
		{"aof_last_cow_size", "0"},
		{"module_fork_in_progress", "0"},
		{"module_fork_last_cow_size", "0"},
	}
	if a.on {
		out = append(out, x.s.aofInfo()...)
	}
	return out
}

func infoStats(x *call) [][2]string {
	s := x.s
	o := &s.ops
	ks := s.ks.Stats()
	c := &o.counters
	overTotal, overCur := s.evictExceeded()
	kbps := func(v int64) string { return fmt.Sprintf("%.2f", float64(v)/1024) }
	return [][2]string{
		{"total_connections_received", itoa(s.stats.connections.Load())},
		{"total_commands_processed", itoa(o.processed.Load())},
		{"instantaneous_ops_per_sec", itoa(o.inst[instOps].rate())},
		{"total_net_input_bytes", itoa(o.NetIn.Load())},
		{"total_net_output_bytes", itoa(o.NetOut.Load())},
		{"total_net_repl_input_bytes", "0"},
		{"total_net_repl_output_bytes", "0"},
		{"instantaneous_input_kbps", kbps(o.inst[instIn].rate())},
		{"instantaneous_output_kbps", kbps(o.inst[instOut].rate())},
		{"instantaneous_input_repl_kbps", "0.00"},
		{"instantaneous_output_repl_kbps", "0.00"},
		{"rejected_connections", itoa(s.stats.rejected.Load())},
		{"sync_full", "0"},
		{"sync_partial_ok", "0"},
		{"sync_partial_err", "0"},
		{"expired_keys", itoa(ks.Expired - c.ksExpired)},
		{"expired_stale_perc", "0.00"},
		{"expired_time_cap_reached_count", "0"},
		{"expire_cycle_cpu_milliseconds", "0"},
		{"evicted_keys", itoa(ks.Evicted - c.ksEvicted)},
		{"evicted_clients", "0"},
		{"total_eviction_exceeded_time", itoa(overTotal)},
		{"current_eviction_exceeded_time", itoa(overCur)},
		{"keyspace_hits", itoa(ks.Hits - c.ksHits)},
		{"keyspace_misses", itoa(ks.Misses - c.ksMisses)},
		{"pubsub_channels", strconv.Itoa(len(s.pubsub.channels))},
		{"pubsub_patterns", strconv.Itoa(len(s.pubsub.patterns))},
		{"pubsubshard_channels", strconv.Itoa(len(s.pubsub.shard))},
		{"latest_fork_usec", "0"},
		{"total_forks", "0"},
		{"migrate_cached_sockets", "0"},
		{"slave_expires_tracked_keys", "0"},
		{"active_defrag_hits", "0"},
		{"active_defrag_misses", "0"},
		{"active_defrag_key_hits", "0"},
		{"active_defrag_key_misses", "0"},
		{"total_active_defrag_time", "0"},
		{"current_active_defrag_time", "0"},
		{"tracking_total_keys", strconv.Itoa(s.track.table.len())},
		{"tracking_total_items", strconv.Itoa(s.track.items)},
		{"tracking_total_prefixes", strconv.Itoa(len(s.track.prefixes))},
		{"unexpected_error_replies", "0"},
		{"total_error_replies", itoa(c.totalErrors)},
		{"dump_payload_sanitizations", "0"},
		{"total_reads_processed", itoa(o.Reads.Load())},
		{"total_writes_processed", itoa(o.Writes.Load())},
		{"io_threaded_reads_processed", "0"},
		{"io_threaded_writes_processed", "0"},
		{"reply_buffer_shrinks", "0"},
		{"reply_buffer_expands", "0"},
	}
}

func infoReplication(x *call) [][2]string {
	out := [][2]string{
		{"role", "master"},
		{"connected_slaves", "0"},
	}
	if !x.s.goodReplicas() {
		// Shown while min-replicas-to-write is on (genRedisInfoString).
		out = append(out, [2]string{"min_slaves_good_slaves", "0"})
	}
	return append(out, [][2]string{
		{"master_failover_state", "no-failover"},
		{"master_replid", x.s.ops.replID},
		{"master_replid2", strings.Repeat("0", 40)},
		{"master_repl_offset", "0"},
		{"second_repl_offset", "-1"},
		{"repl_backlog_active", "0"},
		{"repl_backlog_size", x.s.param("repl-backlog-size")},
		{"repl_backlog_first_byte_offset", "0"},
		{"repl_backlog_histlen", "0"},
	}...)
}

func infoCPU(x *call) [][2]string {
	self, children := cpuTimes()
	// minilock has no main thread: the owner goroutine moves between OS
	// threads, so the *_main_thread fields repeat the process's figures.
	return [][2]string{
		{"used_cpu_sys", self.sys},
		{"used_cpu_user", self.user},
		{"used_cpu_sys_children", children.sys},
		{"used_cpu_user_children", children.user},
		{"used_cpu_sys_main_thread", self.sys},
		{"used_cpu_user_main_thread", self.user},
	}
}

// cpuTime is a getrusage figure as Redis prints it: seconds with six
// decimals.
type cpuTime struct{ sys, user string }

func rusageTime(sec, usec int64) string { return fmt.Sprintf("%d.%06d", sec, usec) }

func infoCommandStats(x *call) [][2]string {
	var out [][2]string
	for i, st := range x.s.ops.counters.cmds {
		if st.calls == 0 && st.failed == 0 && st.rejected == 0 {
			continue
		}
		perCall := 0.0
		if st.calls > 0 {
			perCall = float64(st.usec) / float64(st.calls)
		}
		out = append(out, [2]string{"cmdstat_" + allCommands[i].name, fmt.Sprintf(
			"calls=%d,usec=%d,usec_per_call=%.2f,rejected_calls=%d,failed_calls=%d",
			st.calls, st.usec, perCall, st.rejected, st.failed)})
	}
	return out
}

func infoErrorStats(x *call) [][2]string {
	c := &x.s.ops.counters
	codes := make([]string, 0, len(c.errors))
	for code := range c.errors {
		codes = append(codes, code)
	}
	slices.Sort(codes) // Redis keeps them in a radix tree
	out := make([][2]string, len(codes))
	for i, code := range codes {
		out[i] = [2]string{"errorstat_" + code, "count=" + itoa(c.errors[code])}
	}
	return out
}

func infoLatencyStats(x *call) [][2]string {
	var out [][2]string
	for i, st := range x.s.ops.counters.cmds {
		if st.hist == nil || st.hist.total == 0 {
			continue
		}
		out = append(out, [2]string{"latency_percentiles_usec_" + allCommands[i].name, st.hist.line(x.s.ops.percentiles)})
	}
	return out
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

// Instantaneous metrics (server.c:trackInstantaneousMetric): every 100 ms
// a sampler records the rate of a counter since the previous sample; INFO
// prints the mean of the last 16.
const (
	instSamples  = 16
	instInterval = 100 * time.Millisecond
)

const (
	instOps = iota
	instIn
	instOut
	instCount
)

type instMetric struct {
	last    int64
	samples [instSamples]atomic.Int64
	idx     int
}

func (m *instMetric) sample(now int64, elapsed time.Duration) {
	ms := elapsed.Milliseconds()
	if ms <= 0 {
		ms = 1
	}
	delta := max(now-m.last, 0) // CONFIG RESETSTAT zeroes the counters
	m.samples[m.idx].Store(delta * 1000 / ms)
	m.idx = (m.idx + 1) % instSamples
	m.last = now
}

func (m *instMetric) rate() int64 {
	var sum int64
	for i := range m.samples {
		sum += m.samples[i].Load()
	}
	return sum / instSamples
}

// sampleLoop feeds the instantaneous metrics and the memory peak until the
// server stops.
func (s *Server) sampleLoop() {
	t := time.NewTicker(instInterval)
	defer t.Stop()
	last := time.Now()
	o := &s.ops
	o.inst[instOps].last = o.processed.Load()
	for {
		select {
		case <-s.done:
			return
		case now := <-t.C:
			d := now.Sub(last)
			last = now
			o.inst[instOps].sample(o.processed.Load(), d)
			o.inst[instIn].sample(o.NetIn.Load(), d)
			o.inst[instOut].sample(o.NetOut.Load(), d)
			o.notePeak(s.usedMemory())
		}
	}
}

// notePeak raises used_memory_peak to used if it is higher, and returns
// the peak.
func (o *opsState) notePeak(used uint64) uint64 {
	for {
		p := o.peak.Load()
		if used <= p {
			return p
		}
		if o.peak.CompareAndSwap(p, used) {
			return used
		}
	}
}
