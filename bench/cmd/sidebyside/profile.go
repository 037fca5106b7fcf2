package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// profile runs each workload against profserver (minilock embedded with
// net/http/pprof) while taking a CPU profile, and reports per command:
// allocations, bytes, GC cycles, goroutine schedules, CPU time, syscalls and
// context switches, with the top of the CPU and allocation profiles. The
// same workload against redis-server gives CPU, syscalls and context
// switches per command for reference.
func profile(o *options) error {
	dir := o.profDir
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "minilock-profile-"); err != nil {
			return err
		}
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	bin, err := build(o.profserver, dir, "bench/cmd/profserver")
	if err != nil {
		return err
	}
	pport, err := freePort()
	if err != nil {
		return err
	}
	ml := &target{pprof: fmt.Sprintf("127.0.0.1:%d", pport), bin: bin}
	k := kind{"minilock", bin, func(port, _ int) []string {
		return []string{"--port", strconv.Itoa(port), "--pprof", ml.pprof}
	}, nil}
	if ml.proc, err = start(k, 0); err != nil {
		return err
	}
	defer ml.proc.stop()
	logf("profserver on %s, pprof on %s (pid %d); profiles in %s", ml.proc.addr, ml.pprof, ml.proc.cmd.Process.Pid, dir)
	rd := &target{}
	if rd.proc, err = start(redisKind(o.redisServer), 0); err != nil {
		return err
	}
	defer rd.proc.stop()
	var scriptErr error
	for _, t := range []*target{ml, rd} {
		if t.sha, err = scriptSHA(t.proc.addr); err != nil && t == ml {
			scriptErr = err
			logf("scripts cannot be profiled: %v", err)
		}
	}
	release := "evalsha"
	if scriptErr != nil {
		release = "del"
	}

	var rep report
	rep.line("## minilock profile")
	rep.line("")
	rep.line("%s; %s. Load average %s at the start. bench/cmd/profserver (server.Start + net/http/pprof) on the %s edge; %d s CPU profile per workload while redis-benchmark -c %d (or the go-redis cycle) runs in a loop; then the same %d s against redis-server. Profiles in %s.",
		time.Now().Format("2006-01-02 15:04"), machine(), loadAvg(), profEdge(), o.profSeconds, o.clients, o.profSeconds, dir)
	rep.line("")
	rep.line("Per command (commands counted by INFO total_commands_processed; a lock cycle is 2). CPU: the server's utime+stime. Schedules: goroutine transitions to running, from runtime/metrics /sched/latencies (sampled 1 in 8, scaled up). Syscalls and context switches: perf stat on the server process.")
	rep.line("")
	rep.line("| workload | server | commands/s | CPU us/cmd | allocs/cmd | bytes/cmd | GC/1M cmds | schedules/cmd | syscalls/cmd | ctx switches/cmd |")
	rep.line("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	var tops strings.Builder
	for wi, w := range workloads(release) {
		label := strings.Join(w.rows, ", ")
		if w.script && ml.sha == "" {
			rep.line("| %s | minilock | n/a: %v ||||||||", label, scriptErr)
			continue
		}
		name := fmt.Sprintf("%02d-%s", wi, slug(w.rows[0]))
		for _, t := range []*target{ml, rd} {
			m, err := t.measure(o, w, release, dir, name)
			if err != nil {
				rep.line("| %s | %s | failed: %v ||||||||", label, t.proc.name, err)
				logf("%s %s: %v", t.proc.name, label, err)
				continue
			}
			na := func(ok bool, v float64, format string) string {
				if !ok {
					return "n/a"
				}
				return fmt.Sprintf(format, v)
			}
			rep.line("| %s | %s | %s | %.2f | %s | %s | %s | %s | %s | %s |", label, t.proc.name,
				thousands(m.perSec), m.cpuUS, na(m.runtime, m.allocs, "%.2f"), na(m.runtime, m.bytes, "%.0f"),
				na(m.runtime, m.gcPerM, "%.1f"), na(m.runtime, m.schedules, "%.2f"),
				na(m.perf, m.syscalls, "%.2f"), na(m.perf, m.ctxsw, "%.2f"))
			logf("%s %s: %.0f commands/s", t.proc.name, label, m.perSec)
			if t == ml {
				fmt.Fprintf(&tops, "### %s\n\nCPU, flat:\n\n```\n%s```\n\nCPU, cumulative:\n\n```\n%s```\n\nAllocations (objects) during the run:\n\n```\n%s```\n\n",
					label, m.cpuTop, m.cumTop, m.allocTop)
			}
		}
	}
	rep.line("")
	rep.WriteString(tops.String())
	if err := os.WriteFile(filepath.Join(dir, "profile.md"), []byte(rep.String()), 0o644); err != nil {
		return err
	}
	return rep.finish(o)
}

// profEdge is the network edge profserver serves from: the binary's
// default (epoll on Linux) unless MINILOCK_EDGE, which profserver
// inherits, names the other.
func profEdge() string {
	switch e := os.Getenv("MINILOCK_EDGE"); {
	case e == "epoll" || e == "goroutine":
		return e
	case runtime.GOOS == "linux":
		return "epoll"
	}
	return "goroutine"
}

// target is a server profile mode measures; pprof is set for profserver.
type target struct {
	proc  *proc
	pprof string
	bin   string
	sha   string
}

// measurement is what one workload cost the server, per command.
type measurement struct {
	perSec, cpuUS                    float64
	runtime                          bool // the Go runtime counters below are set
	allocs, bytes, gcPerM, schedules float64
	perf                             bool // syscalls and ctxsw are set
	syscalls, ctxsw                  float64
	cpuTop, cumTop, allocTop         string
}

// measure runs w in a loop for o.profSeconds against t and returns its
// per-command costs; for profserver with the CPU and allocation profiles.
func (t *target) measure(o *options, w workload, release, dir, name string) (measurement, error) {
	var m measurement
	addr, pid := t.proc.addr, t.proc.cmd.Process.Pid
	if _, err := control(addr, "FLUSHALL"); err != nil {
		return m, err
	}
	var before, after map[string]float64
	allocsBefore := filepath.Join(dir, name+".allocs.before")
	allocsAfter := filepath.Join(dir, name+".allocs.after")
	cpuFile := filepath.Join(dir, name+".cpu")
	if t.pprof != "" {
		var err error
		if before, err = getStats(t.pprof); err != nil {
			return m, err
		}
		if err := fetch(t.pprof, "/debug/pprof/allocs", allocsBefore); err != nil {
			return m, err
		}
	}
	cmds0, err := commands(addr)
	if err != nil {
		return m, err
	}
	cpu0 := cpuTicks(pid)
	var perf *exec.Cmd
	var perfOut bytes.Buffer
	if _, err := exec.LookPath("perf"); err == nil {
		perf = exec.Command("perf", "stat", "-x", ",", "-e", "raw_syscalls:sys_enter,context-switches", "-p", strconv.Itoa(pid))
		perf.Stderr = &perfOut
		if err := perf.Start(); err != nil {
			perf = nil
		}
	}
	t0 := time.Now()
	profDone := make(chan error, 1)
	if t.pprof != "" {
		go func() {
			profDone <- fetch(t.pprof, fmt.Sprintf("/debug/pprof/profile?seconds=%d", o.profSeconds), cpuFile)
		}()
	} else {
		go func() {
			time.Sleep(time.Duration(o.profSeconds) * time.Second)
			profDone <- nil
		}()
	}
	var runErr error
loop:
	for {
		select {
		case err := <-profDone:
			if err != nil {
				return m, err
			}
			break loop
		default:
		}
		if w.cycle {
			sha := t.sha
			if release == "del" {
				sha = ""
			}
			_, runErr = lockCycles(addr, o.clients, 0, time.Now().Add(time.Second), sha)
		} else {
			_, runErr = redisBenchmark(o.redisBench, addr, o.clients, o.n/4, w, t.sha)
		}
		if runErr != nil {
			<-profDone
			break
		}
	}
	elapsed := time.Since(t0)
	cpu1 := cpuTicks(pid)
	if perf != nil {
		perf.Process.Signal(syscall.SIGINT)
		perf.Wait()
		m.syscalls, m.ctxsw = parsePerf(perfOut.String())
		m.perf = m.syscalls > 0
	}
	cmds1, err := commands(addr)
	if err != nil {
		return m, err
	}
	if runErr != nil {
		return m, runErr
	}
	n := cmds1 - cmds0
	m.perSec = n / elapsed.Seconds()
	m.cpuUS = (cpu1 - cpu0) * 1e6 / clkTck / n
	m.syscalls /= n
	m.ctxsw /= n
	if t.pprof == "" {
		return m, nil
	}
	if after, err = getStats(t.pprof); err != nil {
		return m, err
	}
	if err := fetch(t.pprof, "/debug/pprof/allocs", allocsAfter); err != nil {
		return m, err
	}
	d := func(name string) float64 { return (after[name] - before[name]) / n }
	m.runtime = true
	m.allocs = d("/gc/heap/allocs:objects")
	m.bytes = d("/gc/heap/allocs:bytes")
	m.gcPerM = d("/gc/cycles/total:gc-cycles") * 1e6
	m.schedules = d("/sched/latencies:seconds") * 8
	m.cpuTop = pprofTop(t.bin, "-top", "-nodecount=25", cpuFile)
	m.cumTop = pprofTop(t.bin, "-top", "-cum", "-nodecount=25", cpuFile)
	m.allocTop = pprofTop(t.bin, "-top", "-nodecount=12", "-sample_index=alloc_objects", "-base", allocsBefore, allocsAfter)
	return m, nil
}

const clkTck = 100 // sysconf(_SC_CLK_TCK) on Linux

// cpuTicks returns utime+stime of pid in clock ticks.
func cpuTicks(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name may hold spaces; fields count from after ')'.
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return u + st
}

func commands(addr string) (float64, error) {
	info, err := control(addr, "INFO", "stats")
	if err != nil {
		return 0, err
	}
	return strconv.ParseFloat(infoField(info, "total_commands_processed"), 64)
}

func getStats(addr string) (map[string]float64, error) {
	resp, err := http.Get("http://" + addr + "/stats")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	out := map[string]float64{}
	return out, json.NewDecoder(resp.Body).Decode(&out)
}

func fetch(addr, path, file string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", "http://"+addr+path, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("GET %s: %s: %s", path, resp.Status, b)
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// parsePerf reads perf stat -x, output: value,unit,event,...
func parsePerf(out string) (syscalls, ctxsw float64) {
	for _, line := range strings.Split(out, "\n") {
		f := strings.Split(line, ",")
		if len(f) < 3 {
			continue
		}
		v, err := strconv.ParseFloat(f[0], 64)
		if err != nil {
			continue
		}
		switch {
		case strings.Contains(f[2], "sys_enter"):
			syscalls = v
		case strings.Contains(f[2], "context-switches"):
			ctxsw = v
		}
	}
	return syscalls, ctxsw
}

func pprofTop(bin string, args ...string) string {
	// The binary goes before the profile: go tool pprof [options] binary profile.
	a := append([]string{"tool", "pprof"}, args[:len(args)-1]...)
	a = append(a, bin, args[len(args)-1])
	out, err := exec.Command("go", a...).CombinedOutput()
	if err != nil {
		return fmt.Sprintf("go tool pprof: %v\n%s", err, out)
	}
	// Drop pprof's header lines up to the column titles.
	s := string(out)
	if i := strings.Index(s, "      flat  flat%"); i >= 0 {
		s = s[i:]
	}
	return s
}

func slug(s string) string {
	var b strings.Builder
	for _, c := range strings.ToLower(s) {
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
			b.WriteRune(c)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "-"):
			b.WriteByte('-')
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}
