package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

func numCPU() int { return runtime.NumCPU() }

// samples are the per-round measurements of one row on one server.
type samples struct {
	res []result
	err string // why there is nothing to show, when res is empty
}

func (s *samples) median(f func(result) float64) float64 {
	v := make([]float64, len(s.res))
	for i, r := range s.res {
		v[i] = f(r)
	}
	return median(v)
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	v = slices.Clone(v)
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

func sideBySide(o *options) error {
	dir, err := os.MkdirTemp("", "minilock-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	ks, err := kinds(o, dir)
	if err != nil {
		return err
	}
	loadStart := loadAvg()
	began := time.Now()

	procs := make([]*proc, len(ks))
	for i, k := range ks {
		if procs[i], err = start(k, 0); err != nil {
			return err
		}
		defer procs[i].stop()
		logf("%s listening on %s (pid %d)", k.name, procs[i].addr, procs[i].cmd.Process.Pid)
	}
	shas := make([]string, len(ks))
	scriptErr := make([]string, len(ks))
	allScripts := true
	for i, p := range procs {
		if shas[i], err = scriptSHA(p.addr); err != nil {
			scriptErr[i] = err.Error()
			allScripts = false
			logf("%s: scripts cannot be measured: %v", p.name, err)
		}
	}
	release := o.release
	if release == "auto" {
		release = "del"
		if allScripts {
			release = "evalsha"
		}
	}
	ws := workloads(release)
	if o.types {
		ws = typeWorkloads()
	}
	if o.lua {
		ws = luaWorkloads()
		for i, p := range procs {
			if err := checkShapes(p.addr); err != nil {
				return fmt.Errorf("%s: %w", ks[i].name, err)
			}
		}
	}
	// data[row][server]
	data := map[string][]samples{}
	var rows []string
	for _, w := range ws {
		for _, row := range w.rows {
			rows = append(rows, row)
			data[row] = make([]samples, len(ks))
		}
	}

	for round := 1; round <= o.rounds; round++ {
		for _, w := range ws {
			for i, p := range procs {
				if w.script && shas[i] == "" {
					for _, row := range w.rows {
						data[row][i].err = scriptErr[i]
					}
					continue
				}
				if !w.keep {
					if _, err := control(p.addr, "FLUSHALL"); err != nil {
						return fmt.Errorf("%s FLUSHALL: %w", p.name, err)
					}
				}
				var res []result
				if w.consume {
					var r result
					r, err = streamConsumerCycles(p.addr, o.clients, o.cycles)
					res = []result{r}
				} else if w.cycle {
					sha := ""
					if release == "evalsha" {
						sha = shas[i]
					}
					var r result
					r, err = lockCycles(p.addr, o.clients, o.cycles, time.Time{}, sha)
					res = []result{r}
				} else {
					res, err = redisBenchmark(o.redisBench, p.addr, o.clients, o.n, w, shas[i])
				}
				if err != nil {
					logf("round %d %s %s: %v", round, p.name, w.rows[0], err)
					for _, row := range w.rows {
						data[row][i].err = err.Error()
					}
					continue
				}
				for j, row := range w.rows {
					data[row][i].res = append(data[row][i].res, res[j])
					logf("round %d %-10s %-55s %10.0f ops/s  p50 %.3f ms  p99 %.3f ms", round, p.name, row, res[j].ops, res[j].p50, res[j].p99)
				}
			}
		}
	}
	for _, p := range procs {
		p.stop()
	}

	var rep report
	if o.types {
		rep.line("## minilock side by side: data types")
	} else if o.lua {
		rep.line("## minilock side by side: Lua scripts (bench/luashapes)")
	} else {
		rep.line("## minilock side by side")
	}
	rep.line("")
	rep.line("%s; %s. Load average %s at the start, %s at the end of the throughput rounds (the machine is shared: read ratios, not absolutes).",
		began.Format("2006-01-02 15:04"), machine(), loadStart, loadAvg())
	rep.line("redis-benchmark -c %d -n %d (-P 16: 4x that; EVALSHA: a quarter at either -P), --csv; go-redis lock cycle: %d goroutines, %d cycles. %d interleaved round(s) (%s), FLUSHALL before each run; medians.",
		o.clients, o.n, o.clients, o.cycles, o.rounds, strings.ReplaceAll(o.servers, ",", ", "))
	rep.line("")
	throughputTable(&rep, ks, rows, data, o.ratioTo)
	latencyTable(&rep, ks, rows, data)
	for i, k := range ks {
		if scriptErr[i] != "" {
			rep.line("- %s: EVALSHA not measured: %s", k.name, scriptErr[i])
		}
	}
	if release == "del" {
		rep.line("- the go-redis lock cycle released with DEL, because not every server runs the release script")
	}
	if slices.ContainsFunc(ks, func(k kind) bool { return k.name == "miniredis" }) {
		rep.line("- miniredis keys never expire by the wall clock (its default, as in a test): lock keys from SET NX PX stay until FLUSHALL, which runs before every measurement")
	}
	rep.line("")

	if o.memory && o.types {
		if err := typesMemory(o, ks, &rep); err != nil {
			return err
		}
	} else if o.memory {
		if err := memory(o, ks, &rep); err != nil {
			return err
		}
	}
	if o.embedded {
		if err := embedded(o, &rep); err != nil {
			logf("embedded start+close: %v", err)
			rep.line("embedded start + close: not measured: %v", err)
			rep.line("")
		}
	}
	return rep.finish(o)
}

func throughputTable(rep *report, ks []kind, rows []string, data map[string][]samples, ratioTo string) {
	// ratios lists the pairs the ratio columns divide: the first server by
	// each other one, or, with ratioTo, each other server by that one.
	var ratios [][2]int
	for i := range ks {
		if ratioTo == "" && i > 0 {
			ratios = append(ratios, [2]int{0, i})
		}
		for j, k := range ks {
			if ratioTo != "" && k.name == ratioTo && i != j {
				ratios = append(ratios, [2]int{i, j})
			}
		}
	}
	head := "| workload |"
	sep := "|---|"
	for _, k := range ks {
		head += " " + k.name + " ops/s |"
		sep += "---:|"
	}
	for _, r := range ratios {
		head += fmt.Sprintf(" %s/%s |", ks[r[0]].name, ks[r[1]].name)
		sep += "---:|"
	}
	rep.line("%s", head)
	rep.line("%s", sep)
	for _, row := range rows {
		line := "| " + row + " |"
		med := make([]float64, len(ks))
		for i := range ks {
			s := &data[row][i]
			if len(s.res) == 0 {
				line += " n/a |"
				continue
			}
			med[i] = s.median(func(r result) float64 { return r.ops })
			line += " " + thousands(med[i]) + " |"
		}
		for _, r := range ratios {
			if med[r[0]] == 0 || med[r[1]] == 0 {
				line += " n/a |"
				continue
			}
			line += fmt.Sprintf(" %.2f |", med[r[0]]/med[r[1]])
		}
		rep.line("%s", line)
	}
	rep.line("")
}

func latencyTable(rep *report, ks []kind, rows []string, data map[string][]samples) {
	names := make([]string, len(ks))
	for i, k := range ks {
		names[i] = k.name
	}
	rep.line("Latency, median over rounds of each run's percentile, ms (%s):", strings.Join(names, " / "))
	rep.line("")
	rep.line("| workload | p50 | p99 |")
	rep.line("|---|---:|---:|")
	for _, row := range rows {
		var p50, p99 []string
		for i := range ks {
			s := &data[row][i]
			if len(s.res) == 0 {
				p50, p99 = append(p50, "n/a"), append(p99, "n/a")
				continue
			}
			p50 = append(p50, fmt.Sprintf("%.3f", s.median(func(r result) float64 { return r.p50 })))
			p99 = append(p99, fmt.Sprintf("%.3f", s.median(func(r result) float64 { return r.p99 })))
		}
		rep.line("| %s | %s | %s |", row, strings.Join(p50, " / "), strings.Join(p99, " / "))
	}
	rep.line("")
}

func thousands(v float64) string {
	s := strconv.FormatInt(int64(v+0.5), 10)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// memory measures, on fresh processes in interleaved rounds, idle RSS, RSS
// with o.keys lock keys and the time to load them.
func memory(o *options, ks []kind, rep *report) error {
	type mem struct{ idle, loaded, peak, load []float64 }
	ms := make([]mem, len(ks))
	for round := 1; round <= o.rounds; round++ {
		for i, k := range ks {
			p, err := start(k, 0)
			if err != nil {
				return err
			}
			time.Sleep(time.Second)
			idle, _, err := p.rssKB()
			if err != nil {
				p.stop()
				return err
			}
			d, err := loadKeys(p.addr, o.keys)
			if err != nil {
				p.stop()
				return fmt.Errorf("%s: loading keys: %w", k.name, err)
			}
			n, _ := control(p.addr, "DBSIZE")
			time.Sleep(time.Second)
			loaded, peak, err := p.rssKB()
			p.stop()
			if err != nil {
				return err
			}
			if n != strconv.Itoa(o.keys) {
				return fmt.Errorf("%s: DBSIZE %s after loading %d keys", k.name, n, o.keys)
			}
			ms[i].idle = append(ms[i].idle, float64(idle))
			ms[i].loaded = append(ms[i].loaded, float64(loaded))
			ms[i].peak = append(ms[i].peak, float64(peak))
			ms[i].load = append(ms[i].load, d.Seconds())
			logf("round %d %-10s idle %d kB, %d keys: %d kB (peak %d kB), loaded in %v", round, k.name, idle, o.keys, loaded, peak, d.Round(time.Millisecond))
		}
	}
	head, sep := "| memory |", "|---|"
	for _, k := range ks {
		head += " " + k.name + " |"
		sep += "---:|"
	}
	for _, k := range ks[1:] {
		head += fmt.Sprintf(" %s/%s |", ks[0].name, k.name)
		sep += "---:|"
	}
	rep.line("Memory and load time: fresh process per measurement; %d keys `SET lock:i <32-byte token> PX 600000` pipelined on one connection; VmRSS from /proc/<pid>/status, 1 s after start and 1 s after the last reply; medians of %d round(s).", o.keys, o.rounds)
	rep.line("")
	rep.line("%s", head)
	rep.line("%s", sep)
	row := func(name string, f func(m mem) float64, format func(float64) string) {
		line := "| " + name + " |"
		v := make([]float64, len(ks))
		for i := range ks {
			v[i] = f(ms[i])
			line += " " + format(v[i]) + " |"
		}
		for i := range ks[1:] {
			line += fmt.Sprintf(" %.2f |", v[0]/v[i+1])
		}
		rep.line("%s", line)
	}
	mb := func(v float64) string { return fmt.Sprintf("%.1f MB", v/1024) }
	row("idle RSS", func(m mem) float64 { return median(m.idle) }, mb)
	row(fmt.Sprintf("RSS with %s keys", thousands(float64(o.keys))), func(m mem) float64 { return median(m.loaded) }, mb)
	row("peak RSS (VmHWM)", func(m mem) float64 { return median(m.peak) }, mb)
	row("bytes per key", func(m mem) float64 { return (median(m.loaded) - median(m.idle)) * 1024 / float64(o.keys) },
		func(v float64) string { return fmt.Sprintf("%.0f", v) })
	row(fmt.Sprintf("time to load %s keys", thousands(float64(o.keys))), func(m mem) float64 { return median(m.load) },
		func(v float64) string { return fmt.Sprintf("%.2f s", v) })
	rep.line("")
	return nil
}

var benchLine = regexp.MustCompile(`^Benchmark(\S+?)(-\d+)?\s+\d+\s+(.*)$`)

// embedded runs server's start+close benchmarks (minilock's Start+Close and
// miniredis.Run+Close) with go test and reports medians.
func embedded(o *options, rep *report) error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	logf("go test -bench EmbeddedStartClose ./server")
	cmd := exec.Command("go", "test", "-run", "^$", "-bench", "^BenchmarkEmbeddedStartClose", "-benchtime", "2000x",
		"-count", strconv.Itoa(max(o.rounds, 3)), "./server")
	cmd.Dir = root
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%v\n%s", err, out.String())
	}
	// name -> metric unit -> values
	vals := map[string]map[string][]float64{}
	var names []string
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		m := benchLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		if vals[m[1]] == nil {
			vals[m[1]] = map[string][]float64{}
			names = append(names, m[1])
		}
		f := strings.Fields(m[3])
		for j := 0; j+1 < len(f); j += 2 {
			v, err := strconv.ParseFloat(f[j], 64)
			if err == nil {
				vals[m[1]][f[j+1]] = append(vals[m[1]][f[j+1]], v)
			}
		}
	}
	if len(names) == 0 {
		return fmt.Errorf("no benchmark lines in:\n%s", out.String())
	}
	rep.line("Embedded start + close (go test -bench EmbeddedStartClose ./server, -benchtime 2000x, median of %d runs):", max(o.rounds, 3))
	rep.line("")
	rep.line("| benchmark | median of per-iteration p50 | mean ns/op | allocs/op | B/op |")
	rep.line("|---|---:|---:|---:|---:|")
	for _, n := range names {
		v := vals[n]
		rep.line("| %s | %.1f us | %.1f us | %.0f | %.0f |", n, median(v["p50-ns"])/1000, median(v["ns/op"])/1000,
			median(v["allocs/op"]), median(v["B/op"]))
	}
	rep.line("")
	return nil
}
