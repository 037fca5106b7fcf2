package server

import (
	"fmt"
	"runtime"
	"strconv"
)

// MEMORY STATS and MEMORY DOCTOR (object.c, getMemoryOverheadData and
// getMemoryDoctorReport), from the figures INFO memory prints: the Go
// heap stands for Redis's allocator. Replication backlog, replica and
// cluster buffers and the AOF buffer are features minilock lacks: 0.

// memOverhead is redisMemOverhead.
type memOverhead struct {
	peak, total, startup, clientsNormal, luaCaches, funcCaches uint64
	dbs                                                        []dbMem
	overheadTotal, totalKeys, bytesPerKey, dataset             uint64
	datasetPerc, peakPerc                                      float64
	allocated, active, resident                                uint64
	totalFrag, allocFrag, allocRSS, rssExtra                   float64
	totalFragBytes, allocFragBytes                             int64
	allocRSSBytes, rssExtraBytes                               int64
	scripts                                                    int
}

type dbMem struct {
	id            int
	main, expires int64
}

func fratio(a, b uint64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func (s *Server) memOverhead() memOverhead {
	m := readMem()
	used := s.usedMemory() // INFO's used_memory, what eviction compares (oom.go)
	rss := m.total - m.released
	active := m.heapObjects + m.heapUnused
	scripts, scriptBytes := s.lua.ScriptCacheUsed()
	o := memOverhead{
		peak: s.ops.notePeak(used), total: used, startup: s.ops.startupMem,
		clientsNormal: uint64(max(s.clientsMemory(), 0)), luaCaches: uint64(max(scriptBytes, 0)),
		allocated: m.heapObjects, active: active, resident: rss, scripts: scripts,
		funcCaches: uint64(max(s.lua.FunctionBytes(), 0)),
	}
	o.overheadTotal = o.startup + o.clientsNormal + o.luaCaches + o.funcCaches
	for i, d := range s.ks.Overheads() {
		if d.Keys == 0 {
			continue
		}
		o.dbs = append(o.dbs, dbMem{id: i, main: d.Main, expires: d.Expires})
		o.overheadTotal += uint64(d.Main + d.Expires)
		o.totalKeys += uint64(d.Keys)
	}
	net := uint64(1)
	if used > o.startup {
		net = used - o.startup
	}
	if o.totalKeys > 0 {
		o.bytesPerKey = net / o.totalKeys
	}
	if used > o.overheadTotal {
		o.dataset = used - o.overheadTotal
	}
	o.datasetPerc = float64(o.dataset) * 100 / float64(net)
	o.peakPerc = fratio(used, o.peak) * 100
	o.totalFrag, o.totalFragBytes = fratio(rss, used), int64(rss)-int64(used)
	o.allocFrag, o.allocFragBytes = fratio(active, m.heapObjects), int64(active)-int64(m.heapObjects)
	o.allocRSS, o.allocRSSBytes = fratio(rss, active), int64(rss)-int64(active)
	o.rssExtra, o.rssExtraBytes = fratio(rss, rss), 0 // the process's RSS is all the allocator's
	return o
}

// MEMORY STATS
func cmdMemoryStats(x *call, args [][]byte) error {
	o := x.s.memOverhead()
	w := x.W
	w.Map(27 + len(o.dbs))
	u := func(name string, n uint64) { w.BulkString(name); w.Int(int64(n)) }
	i := func(name string, n int64) { w.BulkString(name); w.Int(n) }
	f := func(name string, v float64) { w.BulkString(name); w.Double(v) }
	u("peak.allocated", o.peak)
	u("total.allocated", o.total)
	u("startup.allocated", o.startup)
	u("replication.backlog", 0)
	u("clients.slaves", 0)
	u("clients.normal", o.clientsNormal)
	u("cluster.links", 0)
	u("aof.buffer", 0)
	u("lua.caches", o.luaCaches)
	u("functions.caches", o.funcCaches)
	for _, d := range o.dbs {
		w.BulkString("db." + strconv.Itoa(d.id))
		w.Map(3)
		i("overhead.hashtable.main", d.main)
		i("overhead.hashtable.expires", d.expires)
		i("overhead.hashtable.slot-to-keys", 0)
	}
	u("overhead.total", o.overheadTotal)
	u("keys.count", o.totalKeys)
	u("keys.bytes-per-key", o.bytesPerKey)
	u("dataset.bytes", o.dataset)
	f("dataset.percentage", o.datasetPerc)
	f("peak.percentage", o.peakPerc)
	u("allocator.allocated", o.allocated)
	u("allocator.active", o.active)
	u("allocator.resident", o.resident)
	f("allocator-fragmentation.ratio", o.allocFrag)
	i("allocator-fragmentation.bytes", o.allocFragBytes)
	f("allocator-rss.ratio", o.allocRSS)
	i("allocator-rss.bytes", o.allocRSSBytes)
	f("rss-overhead.ratio", o.rssExtra)
	i("rss-overhead.bytes", o.rssExtraBytes)
	f("fragmentation", o.totalFrag)
	i("fragmentation.bytes", o.totalFragBytes)
	return nil
}

// MEMORY DOCTOR: Redis's report, its thresholds applied to minilock's
// figures (the allocator named is Go's runtime).
func cmdMemoryDoctor(x *call, args [][]byte) error {
	text := memoryDoctor(x.s.memOverhead(), x.s.clients.count())
	if x.W.RESP3() {
		x.W.Verbatim("txt", text)
	} else {
		x.W.BulkString(text)
	}
	return nil
}

func memoryDoctor(o memOverhead, clients int) string {
	const mb10 = 10 << 20
	var issues []string
	empty := o.total < 5<<20
	if !empty {
		if fratio(o.peak, o.total) > 1.5 {
			issues = append(issues, " * Peak memory: In the past this instance used more than 150% the memory that is currently using. The allocator is normally not able to release memory after a peak, so you can expect to see a big fragmentation ratio, however this is actually harmless and is only due to the memory peak, and if the Redis instance Resident Set Size (RSS) is currently bigger than expected, the memory will be used as soon as you fill the Redis instance with more data. If the memory peak was only occasional and you want to try to reclaim memory, please try the MEMORY PURGE command, otherwise the only other option is to shutdown and restart the instance.\n\n")
		}
		if o.totalFrag > 1.4 && o.totalFragBytes > mb10 {
			issues = append(issues, fmt.Sprintf(" * High total RSS: This instance has a memory fragmentation and RSS overhead greater than 1.4 (this means that the Resident Set Size of the Redis process is much larger than the sum of the logical allocations Redis performed). This problem is usually due either to a large peak memory (check if there is a peak memory entry above in the report) or may result from a workload that causes the allocator to fragment memory a lot. If the problem is a large peak memory, then there is no issue. Otherwise, make sure you are using the Jemalloc allocator and not the default libc malloc. Note: The currently used allocator is \"%s\".\n\n", "go-"+runtime.Version()))
		}
		if o.allocFrag > 1.1 && o.allocFragBytes > mb10 {
			issues = append(issues, " * High allocator fragmentation: This instance has an allocator external fragmentation greater than 1.1. This problem is usually due either to a large peak memory (check if there is a peak memory entry above in the report) or may result from a workload that causes the allocator to fragment memory a lot. You can try enabling 'activedefrag' config option.\n\n")
		}
		if o.allocRSS > 1.1 && o.allocRSSBytes > mb10 {
			issues = append(issues, " * High allocator RSS overhead: This instance has an RSS memory overhead is greater than 1.1 (this means that the Resident Set Size of the allocator is much larger than the sum what the allocator actually holds). This problem is usually due to a large peak memory (check if there is a peak memory entry above in the report), you can try the MEMORY PURGE command to reclaim it.\n\n")
		}
		if clients > 0 && o.clientsNormal/uint64(clients) > 200<<10 {
			issues = append(issues, " * Big client buffers: The clients output buffers in this instance are greater than 200K per client (on average). This may result from different causes, like Pub/Sub clients subscribed to channels bot not receiving data fast enough, so that data piles on the Redis instance output buffer, or clients sending commands with large replies or very large sequences of commands in the same pipeline. Please use the CLIENT LIST command in order to investigate the issue if it causes problems in your instance, or to understand better why certain clients are using a big amount of memory.\n\n")
		}
		if o.scripts > 1000 {
			issues = append(issues, " * Many scripts: There seem to be many cached scripts in this instance (more than 1000). This may be because scripts are generated and `EVAL`ed, instead of being parameterized (with KEYS and ARGV), `SCRIPT LOAD`ed and `EVALSHA`ed. Unless `SCRIPT FLUSH` is called periodically, the scripts' caches may end up consuming most of your memory.\n\n")
		}
	}
	switch {
	case empty:
		return "Hi Sam, this instance is empty or is using very little memory, my issues detector can't be used in these conditions. Please, leave for your mission on Earth and fill it with some data. The new Sam and I will be back to our programming as soon as I finished rebooting.\n"
	case len(issues) == 0:
		return "Hi Sam, I can't find any memory issue in your instance. I can only account for what occurs on this base.\n"
	}
	s := "Sam, I detected a few issues in this Redis instance memory implants:\n\n"
	for _, is := range issues {
		s += is
	}
	return s + "I'm here to keep you safe, Sam. I want to help you.\n"
}
