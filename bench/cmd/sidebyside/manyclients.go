package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"
)

// raiseNoFile lifts RLIMIT_NOFILE's soft limit to at least want (as far as
// the hard limit allows). The servers the harness starts inherit it, as
// they would from `ulimit -n` in a shell.
func raiseNoFile(want uint64) (uint64, error) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0, err
	}
	if lim.Cur >= want {
		return lim.Cur, nil
	}
	if lim.Max < want {
		// Root may raise the hard limit too.
		hard := lim
		hard.Cur, hard.Max = want, want
		if syscall.Setrlimit(syscall.RLIMIT_NOFILE, &hard) == nil {
			return want, nil
		}
	}
	lim.Cur = min(want, lim.Max)
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0, err
	}
	return lim.Cur, nil
}

// openIdle opens n connections that each answer one PING (so the server
// has admitted them) and then stay idle.
func openIdle(addr string, n int) ([]net.Conn, error) {
	conns := make([]net.Conn, n)
	errs := make([]error, n)
	next := make(chan int)
	var wg sync.WaitGroup
	ping := []byte("*1\r\n$4\r\nPING\r\n")
	for range 64 {
		wg.Go(func() {
			buf := make([]byte, 7)
			for i := range next {
				c, err := net.DialTimeout("tcp", addr, 10*time.Second)
				if err != nil {
					errs[i] = err
					continue
				}
				conns[i] = c
				c.SetDeadline(time.Now().Add(10 * time.Second))
				if _, err := c.Write(ping); err != nil {
					errs[i] = err
					continue
				}
				if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "+PONG\r\n" {
					errs[i] = fmt.Errorf("connection %d: PING answered %q, %v", i, buf, err)
					continue
				}
				c.SetDeadline(time.Time{})
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		closeAll(conns)
		return nil, err
	}
	return conns, nil
}

func closeAll(conns []net.Conn) {
	for _, c := range conns {
		if c != nil {
			c.Close()
		}
	}
}

// manyClients holds o.idle idle connections on each server while o.active
// go-redis goroutines run lock cycles, in interleaved rounds.
func manyClients(o *options) error {
	// Idle connections, the active pool, and the servers' own descriptors.
	limit, err := raiseNoFile(uint64(o.idle + o.active + 1000))
	if err != nil {
		return fmt.Errorf("raising RLIMIT_NOFILE: %w", err)
	}
	if limit < uint64(o.idle+o.active+100) {
		return fmt.Errorf("RLIMIT_NOFILE is %d: too low for %d idle + %d active connections", limit, o.idle, o.active)
	}
	logf("RLIMIT_NOFILE %d", limit)
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
		maxClients := 0
		switch {
		case strings.HasPrefix(k.name, "minilock"):
			maxClients = 2 * (o.idle + o.active)
		case k.name == "redis":
			maxClients = o.idle + o.active
		}
		if procs[i], err = start(k, maxClients); err != nil {
			return err
		}
		defer procs[i].stop()
		logf("%s listening on %s (pid %d), maxclients %d", k.name, procs[i].addr, procs[i].cmd.Process.Pid, maxClients)
	}
	shas := make([]string, len(ks))
	allScripts := true
	for i, p := range procs {
		if shas[i], err = scriptSHA(p.addr); err != nil {
			allScripts = false
			logf("%s: scripts cannot be measured: %v", p.name, err)
		}
	}
	useSHA := o.release == "evalsha" || o.release == "auto" && allScripts

	type mc struct {
		res                 []result
		open, rssIdle, rss0 []float64
	}
	ms := make([]mc, len(ks))
	for round := 1; round <= o.rounds; round++ {
		for i, p := range procs {
			if _, err := control(p.addr, "FLUSHALL"); err != nil {
				return err
			}
			rss0, _, _ := p.rssKB()
			t0 := time.Now()
			conns, err := openIdle(p.addr, o.idle)
			if err != nil {
				return fmt.Errorf("%s: opening %d idle connections: %w", p.name, o.idle, err)
			}
			open := time.Since(t0)
			rssIdle, _, _ := p.rssKB()
			sha := ""
			if useSHA {
				sha = shas[i]
			}
			r, err := lockCycles(p.addr, o.active, 0, time.Now().Add(o.duration), sha)
			closeAll(conns)
			if err != nil {
				return fmt.Errorf("%s: lock cycles: %w", p.name, err)
			}
			// Let the server see the closes before the next round.
			time.Sleep(500 * time.Millisecond)
			ms[i].res = append(ms[i].res, r)
			ms[i].open = append(ms[i].open, open.Seconds())
			ms[i].rssIdle = append(ms[i].rssIdle, float64(rssIdle))
			ms[i].rss0 = append(ms[i].rss0, float64(rss0))
			logf("round %d %-10s %d idle opened in %v, RSS %d -> %d kB; %d active: %.0f cycles/s p50 %.3f p99 %.3f p999 %.3f ms",
				round, p.name, o.idle, open.Round(time.Millisecond), rss0, rssIdle, o.active, r.ops, r.p50, r.p99, r.p999)
		}
	}

	var rep report
	rep.line("## minilock with many clients")
	rep.line("")
	rep.line("%s; %s. Load average %s at the start, %s at the end.", began.Format("2006-01-02 15:04"), machine(), loadStart, loadAvg())
	release := "EVALSHA compare-and-delete"
	if !useSHA {
		release = "DEL (EVALSHA unavailable on some server)"
	}
	rep.line("%d idle connections (each answered one PING) held open while %d go-redis goroutines run lock cycles (SET NX PX 30000, then %s) for %v; %d interleaved round(s); medians. Latency is one whole cycle (two round trips).",
		o.idle, o.active, release, o.duration, o.rounds)
	rep.line("")
	head, sep := "| server | cycles/s | p50 ms | p99 ms | p99.9 ms | open idle conns | RSS before | RSS with idle conns |", "|---|---:|---:|---:|---:|---:|---:|---:|"
	rep.line("%s", head)
	rep.line("%s", sep)
	for i, k := range ks {
		s := samples{res: ms[i].res}
		rep.line("| %s | %s | %.3f | %.3f | %.3f | %.2f s | %.1f MB | %.1f MB |", k.name,
			thousands(s.median(func(r result) float64 { return r.ops })),
			s.median(func(r result) float64 { return r.p50 }),
			s.median(func(r result) float64 { return r.p99 }),
			s.median(func(r result) float64 { return r.p999 }),
			median(ms[i].open), median(ms[i].rss0)/1024, median(ms[i].rssIdle)/1024)
	}
	if len(ks) > 1 {
		a := samples{res: ms[0].res}
		for i := 1; i < len(ks); i++ {
			b := samples{res: ms[i].res}
			rep.line("")
			rep.line("%s/%s throughput: %.2f", ks[0].name, ks[i].name,
				a.median(func(r result) float64 { return r.ops })/b.median(func(r result) float64 { return r.ops }))
		}
	}
	rep.line("")
	return rep.finish(o)
}
