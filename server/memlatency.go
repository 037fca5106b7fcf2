package server

import (
	"bytes"
	"fmt"
	"runtime/debug"
	"sort"
	"strings"
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
		"MALLOC-STATS",
		"    Return internal statistics report from the memory allocator.",
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

// LATENCY GRAPH event: an ASCII sparkline of the event's samples, labelled
// with how long ago each was taken (latency.c:latencyCommandGenSparkeline,
// sparkline.c).
func cmdLatencyGraph(x *call, args [][]byte) error {
	event := string(args[2])
	ev := x.s.ops.latency[event]
	if ev == nil {
		return resp.NewError(fmt.Sprintf("No samples available for event '%s'", event))
	}
	var values []float64
	var labels []string
	var lo, hi int64
	now := time.Now().Unix()
	for j := range latencyLen {
		smp := ev.samples[(ev.idx+j)%latencyLen]
		if smp.time == 0 {
			continue
		}
		if len(values) == 0 {
			lo, hi = smp.latency, smp.latency
		}
		lo, hi = min(lo, smp.latency), max(hi, smp.latency)
		switch elapsed := now - smp.time; {
		case elapsed < 60:
			labels = append(labels, fmt.Sprintf("%ds", elapsed))
		case elapsed < 3600:
			labels = append(labels, fmt.Sprintf("%dm", elapsed/60))
		case elapsed < 3600*24:
			labels = append(labels, fmt.Sprintf("%dh", elapsed/3600))
		default:
			labels = append(labels, fmt.Sprintf("%dd", elapsed/(3600*24)))
		}
		values = append(values, float64(smp.latency))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s - high %d ms, low %d ms (all time high %d ms)\n", event, hi, lo, ev.max)
	b.WriteString(strings.Repeat("-", latencyGraphCols) + "\n")
	for j := 0; j < len(values); j += latencyGraphCols {
		if j != 0 {
			b.WriteByte('\n')
		}
		end := min(j+latencyGraphCols, len(values))
		sparkline(&b, values, labels[j:end], j, end, float64(lo), float64(hi))
	}
	x.W.Verbatim("txt", b.String())
	return nil
}

// latencyGraphCols is LATENCY GRAPH's width (LATENCY_GRAPH_COLS).
const latencyGraphCols = 80

// sparkline renders values[from:to] as sparkline.c's
// sparklineRenderRange does with 4 rows and SPARKLINE_FILL: the bars,
// then the labels written downwards under them. lo and hi are the whole
// sequence's minimum and maximum.
func sparkline(b *strings.Builder, values []float64, labels []string, from, to int, lo, hi float64) {
	const rows, charset, fill = 4, 3, "_o#"
	relmax := hi - lo
	if relmax == 0 {
		relmax = 1
	}
	steps := charset * rows
	chars := make([]byte, to-from)
	for row := 0; ; row++ {
		more := false
		for j := range chars {
			chars[j] = ' '
		}
		for j := range chars {
			if row < rows {
				step := int(float64(int((values[from+j]-lo)*float64(steps))) / relmax)
				step = min(max(step, 0), steps-1)
				more = true
				switch idx := step - (rows-row-1)*charset; {
				case idx >= 0 && idx < charset:
					chars[j] = fill[idx]
				case idx >= charset:
					chars[j] = '|'
				}
				continue
			}
			// One blank line between the bars and the labels (every
			// sample has a label).
			if row-rows < 1 {
				more = true
				break
			}
			if c := row - rows - 1; c < len(labels[j]) {
				more = true
				chars[j] = labels[j][c]
			}
		}
		if !more {
			return
		}
		b.Write(chars)
		b.WriteByte('\n')
	}
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
		"GRAPH <event>",
		"    Return an ASCII latency graph for the <event> class.",
		"HISTORY <event>",
		"    Return time-latency samples for the <event> class.",
		"LATEST",
		"    Return the latest latency samples for all events.",
		"RESET [<event> ...]",
		"    Reset latency data of one or more <event> classes.",
		"    (default: reset all data for all event classes)",
		"HISTOGRAM [COMMAND ...]",
		"    Return a cumulative distribution of latencies in the format of a histogram for the specified command names.",
		"    If no commands are specified then all histograms are replied.")
}

// LATENCY HISTOGRAM [command ...]: each named command's (or, with none
// named, every command's) calls and cumulative latency histogram
// (latency.c:latencySpecificCommandsFillCDF). A container named brings its
// subcommands; an unknown name is skipped; a name given twice is answered
// twice. With no names Redis walks its command dict in hash order;
// minilock answers in the table's order.
func cmdLatencyHistogram(x *call, args [][]byte) error {
	counters := x.s.ops.counters.cmds
	hist := func(cmd *command) *latencyHist {
		if st := counters[cmd.id]; st.hist != nil && st.hist.total > 0 {
			return st.hist
		}
		return nil
	}
	type row struct {
		name string
		h    *latencyHist
	}
	var rows []row
	add := func(cmd *command) {
		if h := hist(cmd); h != nil {
			rows = append(rows, row{cmd.name, h})
		}
	}
	if len(args) == 2 {
		for _, cmd := range allCommands {
			add(cmd)
		}
	} else {
		for _, a := range args[2:] {
			cmd := lookupFullName(a)
			if cmd == nil {
				continue
			}
			add(cmd)
			for _, sub := range cmd.subs {
				add(sub)
			}
		}
	}
	x.W.Map(len(rows))
	for _, r := range rows {
		x.W.BulkString(r.name)
		r.h.writeCDF(x.W)
	}
	return nil
}

// lookupFullName finds a command by its full name, "get" or
// "config|get", case-insensitively (server.c:lookupCommandBySds).
func lookupFullName(name []byte) *command {
	base, sub, isSub := bytes.Cut(name, []byte("|"))
	cmd := find(commands, base)
	if cmd == nil || !isSub {
		return cmd
	}
	if cmd.subs == nil || bytes.IndexByte(sub, '|') >= 0 {
		return nil
	}
	return find(cmd.subIndex, sub)
}
