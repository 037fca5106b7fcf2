package server

import (
	"bytes"
	"math/bits"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	_ "unsafe" // nanotime

	"github.com/minilock/minilock/resp"
	"github.com/minilock/minilock/server/internal/edge"
)

// Per-command and per-error counters (INFO commandstats, errorstats,
// latencystats; server.c:call and afterErrorReply). They live on the
// owner goroutine: every command runs there, and so do INFO and CONFIG
// RESETSTAT.

// opsState is what the operators' commands keep: INFO's counters, the
// slow log, and the settings CONFIG SET keeps for them. Owner goroutine.
type opsState struct {
	counters counters
	slowlog  slowlog
	// latencyTracking is latency-tracking; percentiles are
	// latency-tracking-info-percentiles.
	latencyTracking bool
	percentiles     []float64
	// params are the values CONFIG SET kept for parameters minilock does
	// not act on, by canonical name (config.go).
	params map[string]string
	live   liveSettings
	pause  pauseState // CLIENT PAUSE (clientcmds.go)
	// The latency monitor (memlatency.go): latency-monitor-threshold in
	// ms (0: off) and the events seen.
	latencyThreshold int64
	latency          map[string]*latencyEvent
	// Commands serveWhileBusy ran, for the owner to count.
	pendMu     sync.Mutex
	pending    []pendingStat
	hasPending atomic.Bool
	// tick is when the batch's current command started (commandStart).
	tick int64
	// scriptErrs are the errors of the commands the running script ran
	// (see afterCommand).
	scriptErrs []string

	// Read and written from any goroutine.
	processed  atomic.Int64 // total_commands_processed
	edge.Stats              // the I/O counters, which the edge keeps
	peak       atomic.Uint64
	inst       [instCount]instMetric
	startupMem uint64
	// overSince is when memory last went over maxmemory for good (zero:
	// it is not), overTotal the time it was before (oom.go:evictOver).
	overSince time.Time
	overTotal time.Duration
	replID    string

	// The biggest batch read and reply written in each of the last few
	// seconds, for client_recent_max_input_buffer and _output_buffer
	// (CLIENTS_PEAK_MEM_USAGE_SLOTS). Owner goroutine.
	peakSlots [peakSlots]peakSlot
}

// liveSettings are the settings CONFIG SET changes that connection
// goroutines read: atomics.
type liveSettings struct {
	password      atomic.Pointer[string]
	maxClients    atomic.Int64
	idleTimeout   atomic.Int64 // nanoseconds; 0: never
	protectedMode atomic.Bool
}

func (o *opsState) init(s *Server) {
	o.slowlog.slowerThan = 10000
	o.slowlog.maxLen = 128
	o.latencyTracking = true
	o.percentiles = []float64{50, 99, 99.9}
	// Nothing is saved and there is no append-only file.
	o.params = map[string]string{"save": "", "appendonly": "no"}
	pw := s.cfg.Password
	o.live.password.Store(&pw)
	o.live.maxClients.Store(int64(s.cfg.MaxClients))
	o.live.idleTimeout.Store(int64(s.cfg.IdleTimeout))
	o.live.protectedMode.Store(!s.cfg.DisableProtectedMode)
	o.startupMem = readMem().heapObjects
	s.evictTenacity = 10 // maxmemory-eviction-tenacity's default
	o.peak.Store(o.startupMem)
	o.replID = newRunID()
}

// resetStats is CONFIG RESETSTAT's part here.
func (o *opsState) resetStats(s *Server) {
	ks := s.ks.Stats()
	o.counters = counters{ksHits: ks.Hits, ksMisses: ks.Misses, ksExpired: ks.Expired, ksEvicted: ks.Evicted}
	o.overSince, o.overTotal = time.Time{}, 0
	o.processed.Store(0)
	o.NetIn.Store(0)
	o.NetOut.Store(0)
	o.Reads.Store(0)
	o.Writes.Store(0)
	o.peak.Store(s.usedMemory())
}

// password is requirepass; "" for none.
func (s *Server) password() string { return *s.ops.live.password.Load() }

// idleTimeout is timeout; 0 for none.
func (s *Server) idleTimeout() time.Duration { return time.Duration(s.ops.live.idleTimeout.Load()) }

// peakSlots is how many seconds of buffer peaks INFO looks back over.
const peakSlots = 8

type peakSlot struct{ sec, in, out int64 }

// notePeakBuffers records a batch of in bytes read and out bytes of
// replies at Unix second sec. Owner goroutine.
func (o *opsState) notePeakBuffers(sec, in, out int64) {
	sl := &o.peakSlots[sec%peakSlots]
	if sl.sec != sec {
		*sl = peakSlot{sec: sec}
	}
	sl.in, sl.out = max(sl.in, in), max(sl.out, out)
}

// recentPeaks returns the biggest input and output of the last seconds.
func (o *opsState) recentPeaks(now int64) (in, out int64) {
	for _, sl := range o.peakSlots {
		if now-sl.sec < peakSlots {
			in, out = max(in, sl.in), max(out, sl.out)
		}
	}
	return in, out
}

// cmdStat is one command's counters, cmdstat_<name> in INFO.
type cmdStat struct {
	calls    int64
	usec     int64
	rejected int64 // refused before it ran: arity, NOAUTH, MULTI rules
	failed   int64 // ran and answered an error
	hist     *latencyHist
}

// allCommands lists every command and subcommand of the table by id
// (command.id), containers included; set by index.
var allCommands []*command

// numberCommands gives each command and subcommand of the table its place
// in allCommands, hence in each Server's counters.
func numberCommands(table []*command) {
	for _, cmd := range table {
		cmd.id = len(allCommands)
		allCommands = append(allCommands, cmd)
		for _, sub := range cmd.subs {
			sub.id = len(allCommands)
			allCommands = append(allCommands, sub)
		}
	}
}

// maxErrorCodes bounds the distinct error prefixes errorstats keeps, as
// Redis's ERROR_STATS_NUMBER does: a script's error_reply can make up any
// number of them.
const maxErrorCodes = 128

// counters are the statistics CONFIG RESETSTAT clears. Owner goroutine.
type counters struct {
	cmds        []cmdStat // by command.id
	errors      map[string]int64
	errorOrder  []string // the codes of errors, in the order first seen
	totalErrors int64
	// ksBase is the keyspace's counters at the last RESETSTAT: INFO
	// reports the difference.
	ksHits, ksMisses, ksExpired, ksEvicted int64
}

func (st *counters) cmd(c *command) *cmdStat {
	if st.cmds == nil {
		st.cmds = make([]cmdStat, len(allCommands))
	}
	return &st.cmds[c.id]
}

// countError records one error reply under its prefix: the first word of
// its text ("ERR", "WRONGTYPE" ...).
func (st *counters) countError(err error) {
	st.countErrorText(resp.Text(err))
}

func (st *counters) countErrorText(text string) {
	code, _, _ := strings.Cut(text, " ")
	st.totalErrors++
	if st.errors == nil {
		st.errors = map[string]int64{}
	}
	if _, ok := st.errors[code]; !ok {
		if len(st.errors) >= maxErrorCodes {
			return
		}
		st.errorOrder = append(st.errorOrder, code)
	}
	st.errors[code]++
}

// afterCommand records one run of cmd that took d and, when it took long
// enough, logs it in the slow log. err is the error it returned; reply
// what it wrote, which may be an error it wrote itself (a script's
// error_reply).
func (s *Server) afterCommand(x *call, cmd *command, args [][]byte, began int64, err error, reply []byte) {
	end := nanotime()
	d := time.Duration(end - began)
	if x.offOwner {
		p := pendingStat{cmd: cmd, us: d.Microseconds()}
		if err != nil {
			p.err = resp.Text(err)
		}
		s.ops.processed.Add(1)
		s.ops.deferStat(p)
		return
	}
	if x.script == nil && !x.inExec {
		s.ops.tick = end // the next command of the batch starts now
	}
	if s.ops.hasPending.Load() {
		s.ops.drainPending(s)
	}
	// total_commands_processed counts what ran, as call() does: refused
	// commands are not counted, a script's and a transaction's are.
	s.ops.processed.Add(1)
	us := d.Microseconds()
	st := s.ops.counters.cmd(cmd)
	st.calls++
	st.usec += us
	text := ""
	if err != nil {
		text = resp.Text(err)
	} else if len(reply) > 0 && reply[0] == '-' {
		line := reply[1:]
		if i := bytes.IndexByte(line, '\r'); i >= 0 {
			line = line[:i]
		}
		text = string(line)
	}
	o := &s.ops
	if text != "" {
		st.failed++
		switch {
		case x.script != nil:
			// A script may pass this error on as its own: Redis then
			// counts it once, here (ignore_error_stats_update).
			if len(o.scriptErrs) < maxScriptErrs {
				o.scriptErrs = append(o.scriptErrs, text)
			}
			o.counters.countErrorText(text)
		case cmd.flags&fNoScript != 0 && o.passedOn(text):
		default:
			o.counters.countErrorText(text)
		}
	}
	if x.script == nil {
		o.scriptErrs = o.scriptErrs[:0]
	}
	if s.ops.latencyTracking {
		if st.hist == nil {
			st.hist = new(latencyHist)
		}
		st.hist.record(us * 1000)
	}
	if o.latencyThreshold > 0 {
		event := "command"
		if cmd.flags&fFast != 0 {
			event = "fast-command"
		}
		o.latencyAddSample(event, us/1000)
	}
	s.slowlogPush(x, cmd, args, us)
}

// pendingStat is a command run or refused by serveWhileBusy, off the owner
// goroutine, to be counted by the owner later.
type pendingStat struct {
	cmd      *command // nil: unknown command
	us       int64
	err      string
	rejected bool
}

// maxPending bounds the commands waiting to be counted; more are not.
const maxPending = 10000

// deferStat keeps p for the owner; any goroutine.
func (o *opsState) deferStat(p pendingStat) {
	o.pendMu.Lock()
	if len(o.pending) < maxPending {
		o.pending = append(o.pending, p)
	}
	o.hasPending.Store(true)
	o.pendMu.Unlock()
}

// drainPending counts what serveWhileBusy ran. Owner goroutine.
func (o *opsState) drainPending(s *Server) {
	o.pendMu.Lock()
	pending := o.pending
	o.pending = nil
	o.hasPending.Store(false)
	o.pendMu.Unlock()
	for _, p := range pending {
		if p.rejected {
			if p.cmd != nil {
				o.counters.cmd(p.cmd).rejected++
			}
			o.counters.countErrorText(p.err)
			continue
		}
		st := o.counters.cmd(p.cmd)
		st.calls++
		st.usec += p.us
		if p.err != "" {
			st.failed++
			o.counters.countErrorText(p.err)
		}
	}
}

// maxScriptErrs bounds the errors of one script's commands remembered for
// passedOn.
const maxScriptErrs = 64

// passedOn reports whether a script's error reply is the error of a
// command it ran, already counted.
func (o *opsState) passedOn(text string) bool {
	for _, e := range o.scriptErrs {
		if strings.HasPrefix(text, e) {
			return true
		}
	}
	return false
}

// nanotime is the runtime's monotonic clock: half the cost of time.Now,
// which also reads the wall clock, and paid once per command in a batch.
//
//go:linkname nanotime runtime.nanotime
func nanotime() int64

// commandStart returns when the command x is about to run started, in
// nanotime. A command of a client's batch starts when the one before it
// ended (tick, set by batchStart and afterCommand), so timing it costs one
// clock read, not two; a command run by a script or inside EXEC, or off
// the owner, reads the clock itself.
func (s *Server) commandStart(x *call) int64 {
	if x.script == nil && !x.inExec && !x.offOwner && s.ops.tick != 0 {
		return s.ops.tick
	}
	return nanotime()
}

// batchStart marks the start of a batch on the owner.
func (s *Server) batchStart() { s.ops.tick = nanotime() }

// rejectCommand records a command refused before it ran (Redis's
// rejectCommand): its error, and the command's rejected_calls when it is
// known.
func (s *Server) rejectCommand(cmd *command, err error) {
	if cmd != nil {
		s.ops.counters.cmd(cmd).rejected++
	}
	s.ops.counters.countError(err)
}

// scriptRejected records a command a script called that was refused
// before it ran (script.c:scriptCall's error path): the command's
// rejected_calls and the error, which the script's own error then does
// not count again.
func (s *Server) scriptRejected(cmd *command, err error) {
	s.rejectCommand(cmd, err)
	if o := &s.ops; len(o.scriptErrs) < maxScriptErrs {
		o.scriptErrs = append(o.scriptErrs, resp.Text(err))
	}
}

// latencyHist is the histogram Redis keeps per command for latencystats:
// an HdrHistogram from 1 ns to 1 s with 2 significant digits
// (LATENCY_HISTOGRAM_PRECISION), reproduced so that the percentiles it
// reports are the very values Redis would print for the same durations.
type latencyHist struct {
	counts [histLen]int64
	total  int64
}

const (
	histSubBits   = 7 // sub_bucket_half_count_magnitude for 2 digits: 256 sub-buckets
	histSubHalf   = 1 << histSubBits
	histBuckets   = 23 // buckets needed to reach 1e9 from 1
	histLen       = (histBuckets + 1) * histSubHalf
	histMaxValue  = 1_000_000_000
	histMinValue  = 1
	histSubMaskOr = 2*histSubHalf - 1
)

func (h *latencyHist) record(ns int64) {
	ns = min(max(ns, histMinValue), histMaxValue)
	v := uint64(ns)
	bucket := 63 - bits.LeadingZeros64(v|histSubMaskOr) - histSubBits
	sub := int(v >> bucket)
	h.counts[(bucket+1)<<histSubBits+sub-histSubHalf]++
	h.total++
}

// percentile is hdr_value_at_percentile: the highest value equivalent to
// the one at which the count reaches p percent.
func (h *latencyHist) percentile(p float64) int64 {
	want := max(int64(p/100*float64(h.total)+0.5), 1)
	var seen int64
	for i, n := range h.counts {
		seen += n
		if seen >= want {
			bucket := i>>histSubBits - 1
			sub := i&(histSubHalf-1) + histSubHalf
			if bucket < 0 {
				sub -= histSubHalf
				bucket = 0
			}
			if p == 0 {
				return int64(sub) << bucket
			}
			return int64(sub)<<bucket + 1<<bucket - 1
		}
	}
	return 0
}

// writeCDF writes the histogram as LATENCY HISTOGRAM does
// (latency.c:fillCommandCDF): the calls, and the cumulative count at each
// power of two from 1024 ns on, keyed by the highest value (in us) of the
// histogram slot where the count was read; a power that adds no calls is
// left out. It walks the slots as hdr_iter_log_init(h, 1024, 2) does.
func (h *latencyHist) writeCDF(w *resp.Writer) {
	type point struct{ us, count int64 }
	var points []point
	// The iterator's state: the slot i it is at, that slot's lowest and
	// highest values, the calls counted up to it, and the next reporting
	// level (a power of two, so its own lowest equivalent value).
	i, value, highest, cum := -1, int64(0), int64(0), int64(0)
	level := int64(1024)
	next := func() bool { // log_iter_next
		if cum >= h.total && (i >= histLen || histValue(i+1) <= level) {
			return false
		}
		for {
			if value >= level {
				level *= 2
				return true
			}
			if i++; i >= histLen {
				return true // out of slots: reports the last one again
			}
			cum += h.counts[i]
			value, highest = histValue(i), histHighest(i)
		}
	}
	var prev int64
	for next() {
		if cum > prev {
			points = append(points, point{highest / 1000, cum})
		}
		prev = cum
	}
	w.Map(2)
	w.BulkString("calls")
	w.Int(h.total)
	w.BulkString("histogram_usec")
	w.Map(len(points))
	for _, p := range points {
		w.Int(p.us)
		w.Int(p.count)
	}
}

// histValue is hdr_value_at_index: the lowest value slot i holds.
func histValue(i int) int64 {
	bucket := i>>histSubBits - 1
	sub := i&(histSubHalf-1) + histSubHalf
	if bucket < 0 {
		sub -= histSubHalf
		bucket = 0
	}
	return int64(sub) << bucket
}

// histHighest is the highest value slot i holds.
func histHighest(i int) int64 {
	bucket := max(i>>histSubBits-1, 0)
	return histValue(i) + 1<<bucket - 1
}

// latencyLine formats a histogram as INFO latencystats does:
// p50=2.007,p99=...,p99.9=... (microseconds, three decimals).
func (h *latencyHist) line(percentiles []float64) string {
	var b strings.Builder
	for i, p := range percentiles {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("p" + strconv.FormatFloat(p, 'f', -1, 64) + "=")
		b.WriteString(strconv.FormatFloat(float64(h.percentile(p))/1000, 'f', 3, 64))
	}
	return b.String()
}
