package server

import (
	"runtime/debug"
	"sort"
	"time"

	"github.com/minilock/minilock/internal/redisstr"
	"github.com/minilock/minilock/resp"
)

// MEMORY USAGE, PURGE and HELP (object.c), and the latency monitor:
// LATENCY LATEST, HISTORY, RESET, DOCTOR and HELP (latency.c).

// MEMORY USAGE key [SAMPLES count]: the bytes minilock holds for the key,
// expired or not,
// (its key and value, its slot in the table, a collection's elements); nil
// when there is no such key. SAMPLES is checked and otherwise unused:
// minilock measures collections exactly.
func cmdMemoryUsage(x *call, args [][]byte) error {
	for j := 3; j < len(args); j++ {
		if redisstr.Option(args[j], "samples") && j+1 < len(args) {
			if _, ok := redisstr.ParseInt(args[j+1]); !ok {
				return resp.ErrNotInteger
			}
			j++
			continue
		}
		return resp.ErrSyntax
	}
	n, ok := x.s.ks.KeyMemory(&x.Ctx, args[2])
	if !ok {
		x.W.Null()
		return nil
	}
	x.W.Int(n)
	return nil
}

// MEMORY PURGE: Go's counterpart of jemalloc's purge, returning freed
// memory to the operating system.
func cmdMemoryPurge(x *call, args [][]byte) error {
	debug.FreeOSMemory()
	x.W.OK()
	return nil
}

// MEMORY HELP
func cmdMemoryHelp(x *call, args [][]byte) error {
	return writeHelp(x, "MEMORY",
		"DOCTOR",
		"    Return memory problems reports.",
		"PURGE",
		"    Attempt to purge dirty pages for reclamation by the allocator.",
		"STATS",
		"    Return information about the memory usage of the server.",
		"USAGE <key> [SAMPLES <count>]",
		"    Return memory in bytes used by <key> and its value. Nested values are",
		"    sampled up to <count> times (default: 5, 0 means sample all).")
}

// latencyLen is how many samples an event keeps (LATENCY_TS_LEN).
const latencyLen = 160

type latencySample struct {
	time    int64 // Unix seconds
	latency int64 // milliseconds
}

// latencyEvent is one event's history: a ring of samples, one per second
// at most, and the highest latency seen.
type latencyEvent struct {
	samples [latencyLen]latencySample
	idx     int
	max     int64
}

// latencyAddSample records that event took ms milliseconds, when the
// latency monitor is on and ms reaches latency-monitor-threshold
// (latencyAddSampleIfNeeded). Owner goroutine.
func (o *opsState) latencyAddSample(event string, ms int64) {
	th := o.latencyThreshold
	if th <= 0 || ms < th {
		return
	}
	if o.latency == nil {
		o.latency = map[string]*latencyEvent{}
	}
	ev := o.latency[event]
	if ev == nil {
		ev = &latencyEvent{}
		o.latency[event] = ev
	}
	now := time.Now().Unix()
	ev.max = max(ev.max, ms)
	prev := &ev.samples[(ev.idx+latencyLen-1)%latencyLen]
	if prev.time == now {
		prev.latency = max(prev.latency, ms)
		return
	}
	ev.samples[ev.idx] = latencySample{now, ms}
	ev.idx = (ev.idx + 1) % latencyLen
}

func (o *opsState) latencyEvents() []string {
	names := make([]string, 0, len(o.latency))
	for n := range o.latency {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// LATENCY LATEST: per event, its name, the time and latency of its latest
// sample, and its highest latency.
func cmdLatencyLatest(x *call, args [][]byte) error {
	o := &x.s.ops
	names := o.latencyEvents()
	x.W.Array(len(names))
	for _, n := range names {
		ev := o.latency[n]
		last := ev.samples[(ev.idx+latencyLen-1)%latencyLen]
		x.W.Array(4)
		x.W.BulkString(n)
		x.W.Int(last.time)
		x.W.Int(last.latency)
		x.W.Int(ev.max)
	}
	return nil
}

// LATENCY HISTORY event: the event's samples, oldest first.
func cmdLatencyHistory(x *call, args [][]byte) error {
	ev := x.s.ops.latency[string(args[2])]
	if ev == nil {
		x.W.Array(0)
		return nil
	}
	var samples []latencySample
	for j := range latencyLen {
		s := ev.samples[(ev.idx+j)%latencyLen]
		if s.time != 0 {
			samples = append(samples, s)
		}
	}
	x.W.Array(len(samples))
	for _, s := range samples {
		x.W.Array(2)
		x.W.Int(s.time)
		x.W.Int(s.latency)
	}
	return nil
}

// LATENCY RESET [event ...]: forgets the events named (all without one),
// answering how many it forgot.
func cmdLatencyReset(x *call, args [][]byte) error {
	o := &x.s.ops
	n := 0
	if len(args) == 2 {
		n = len(o.latency)
		o.latency = nil
	} else {
		for _, a := range args[2:] {
			if _, ok := o.latency[string(a)]; ok {
				delete(o.latency, string(a))
				n++
			}
		}
	}
	x.W.Int(int64(n))
	return nil
}

// LATENCY DOCTOR: minilock answers only as Redis does with the monitor
// off; with it on, its events are in LATENCY LATEST and HISTORY.
func cmdLatencyDoctor(x *call, args [][]byte) error {
	if x.s.ops.latencyThreshold > 0 {
		return resp.NewError("LATENCY DOCTOR is not supported by minilock: use LATENCY LATEST and LATENCY HISTORY")
	}
	x.W.Verbatim("txt", "I'm sorry, Dave, I can't do that. Latency monitoring is disabled in this Redis instance. "+
		"You may use \"CONFIG SET latency-monitor-threshold <milliseconds>.\" in order to enable it. "+
		"If we weren't in a deep space mission I'd suggest to take a look at https://redis.io/topics/latency-monitor.\n")
	return nil
}

// LATENCY HELP
func cmdLatencyHelp(x *call, args [][]byte) error {
	return writeHelp(x, "LATENCY",
		"DOCTOR",
		"    Return a human readable latency analysis report.",
		"HISTORY <event>",
		"    Return time-latency samples for the <event> class.",
		"LATEST",
		"    Return the latest latency samples for all events.",
		"RESET [<event> ...]",
		"    Reset latency data of one or more <event> classes.",
		"    (default: reset all data for all event classes)")
}
