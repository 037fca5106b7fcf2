package main

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"time"
)

// The wake-up benchmarks (issue 13), each server in its own process,
// interleaved rounds:
//
//   - release to acquire: waiters parked in BLPOP on one signal list; a
//     releaser RPUSHes one token at a time and times how long until a
//     waiter has it (the woken waiter parks again at once, so the queue
//     stays full);
//   - PUBLISH fan-out: one publisher, 1 or many subscribers of one
//     channel; how long until every subscriber has every message;
//   - memory per idle subscriber: RSS growth with many connections each
//     subscribed to a channel of its own.
type wakeupResult struct {
	p50, p99     float64 // release-to-acquire, ms
	pub1, pubN   float64 // deliveries per second
	perSubscribe float64 // bytes of RSS per idle subscriber
}

func wakeups(o *options) error {
	const waiters, releases = 100, 2000
	fanout, pubMsgs := 1000, 2000
	idleSubs := o.idle
	if o.quick {
		fanout, pubMsgs = 200, 500
	}
	if _, err := raiseNoFile(uint64(idleSubs + fanout + 1000)); err != nil {
		return err
	}
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
	res := make([][]wakeupResult, len(ks))
	for round := 1; round <= o.rounds; round++ {
		for i, k := range ks {
			p, err := start(k, 2*(idleSubs+fanout+waiters))
			if err != nil {
				return err
			}
			var r wakeupResult
			err = func() error {
				defer p.stop()
				if r.p50, r.p99, err = releaseToAcquire(p.addr, waiters, releases); err != nil {
					return fmt.Errorf("release to acquire: %w", err)
				}
				if r.pub1, err = fanOut(p.addr, 1, 20*pubMsgs); err != nil {
					return fmt.Errorf("publish to 1: %w", err)
				}
				if r.pubN, err = fanOut(p.addr, fanout, pubMsgs); err != nil {
					return fmt.Errorf("publish to %d: %w", fanout, err)
				}
				before, _, _ := p.rssKB()
				conns, err := subscribeIdle(p.addr, idleSubs)
				if err != nil {
					return fmt.Errorf("idle subscribers: %w", err)
				}
				after, _, _ := p.rssKB()
				for _, c := range conns {
					c.close()
				}
				r.perSubscribe = float64(after-before) * 1024 / float64(idleSubs)
				return nil
			}()
			if err != nil {
				return fmt.Errorf("%s: %w", k.name, err)
			}
			res[i] = append(res[i], r)
			logf("round %d %-9s release->acquire p50 %.3f p99 %.3f ms; publish to 1: %.0f/s, to %d: %.0f deliveries/s; %.0f B per idle subscriber",
				round, k.name, r.p50, r.p99, r.pub1, fanout, r.pubN, r.perSubscribe)
		}
	}
	var rep report
	rep.line("## Wake-ups: blocking pops and pub/sub")
	rep.line("")
	rep.line("%s; %s. Load average %s at the start, %s at the end.", began.Format("2006-01-02 15:04"), machine(), loadStart, loadAvg())
	rep.line("Release to acquire: %d waiters in BLPOP on one signal list, %d releases (RPUSH), each timed until a waiter holds the token. PUBLISH: one publisher (one request at a time) to 1 subscriber (%d messages) and to %d subscribers of one channel (%d messages), timed until every subscriber has every message. Idle subscribers: %d connections each SUBSCRIBEd to its own channel. %d interleaved round(s), a fresh process per server per round; medians.",
		waiters, releases, 20*pubMsgs, fanout, pubMsgs, idleSubs, o.rounds)
	rep.line("")
	rep.line("| server | release→acquire p50 ms | p99 ms | PUBLISH to 1, msgs/s | PUBLISH to %d, deliveries/s | RSS per idle subscriber |", fanout)
	rep.line("|---|---:|---:|---:|---:|---:|")
	med := func(i int, f func(wakeupResult) float64) float64 {
		var v []float64
		for _, r := range res[i] {
			v = append(v, f(r))
		}
		return median(v)
	}
	for i, k := range ks {
		rep.line("| %s | %.3f | %.3f | %s | %s | %.0f B |", k.name,
			med(i, func(r wakeupResult) float64 { return r.p50 }), med(i, func(r wakeupResult) float64 { return r.p99 }),
			thousands(med(i, func(r wakeupResult) float64 { return r.pub1 })), thousands(med(i, func(r wakeupResult) float64 { return r.pubN })),
			med(i, func(r wakeupResult) float64 { return r.perSubscribe }))
	}
	return rep.finish(o)
}

// releaseToAcquire parks n waiters in BLPOP and times m releases.
func releaseToAcquire(addr string, n, m int) (p50, p99 float64, err error) {
	got := make(chan time.Time, n)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var conns []*respConn
	defer func() {
		close(stop)
		for _, c := range conns {
			c.close()
		}
		wg.Wait()
	}()
	for range n {
		c, err := dial(addr)
		if err != nil {
			return 0, 0, err
		}
		conns = append(conns, c)
		wg.Go(func() {
			for {
				if _, err := c.do("BLPOP", "signal", "0"); err != nil {
					return
				}
				select {
				case got <- time.Now():
				case <-stop:
					return
				}
			}
		})
	}
	rel, err := dial(addr)
	if err != nil {
		return 0, 0, err
	}
	defer rel.close()
	// Wait until all are parked.
	for deadline := time.Now().Add(10 * time.Second); ; {
		info, err := rel.do("INFO", "clients")
		if err != nil {
			return 0, 0, err
		}
		if b, _ := strconv.Atoi(infoField(info, "blocked_clients")); b >= n {
			break
		}
		if time.Now().After(deadline) {
			return 0, 0, fmt.Errorf("waiters never blocked")
		}
		time.Sleep(5 * time.Millisecond)
	}
	lat := make([]float64, 0, m)
	for range m {
		t0 := time.Now()
		if _, err := rel.do("RPUSH", "signal", "token"); err != nil {
			return 0, 0, err
		}
		select {
		case t1 := <-got:
			lat = append(lat, float64(t1.Sub(t0).Microseconds())/1000)
		case <-time.After(10 * time.Second):
			return 0, 0, fmt.Errorf("a release woke nobody")
		}
	}
	slices.Sort(lat)
	return lat[len(lat)/2], lat[len(lat)*99/100], nil
}

// fanOut has subs subscribers of one channel and one publisher send msgs
// messages; it returns deliveries per second until the last arrived.
func fanOut(addr string, subs, msgs int) (float64, error) {
	var wg sync.WaitGroup
	errs := make(chan error, subs)
	var conns []*respConn
	defer func() {
		for _, c := range conns {
			c.close()
		}
	}()
	for range subs {
		c, err := dial(addr)
		if err != nil {
			return 0, err
		}
		conns = append(conns, c)
		if _, err := c.do("SUBSCRIBE", "fanout"); err != nil {
			return 0, err
		}
	}
	start := time.Now()
	for _, c := range conns {
		wg.Go(func() {
			c.c.SetReadDeadline(time.Now().Add(60 * time.Second))
			for range msgs {
				if _, err := c.readReply(); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	pub, err := dial(addr)
	if err != nil {
		return 0, err
	}
	defer pub.close()
	for range msgs {
		if _, err := pub.do("PUBLISH", "fanout", "lock:released:0123456789"); err != nil {
			return 0, err
		}
	}
	wg.Wait()
	select {
	case err := <-errs:
		return 0, err
	default:
	}
	return float64(subs*msgs) / time.Since(start).Seconds(), nil
}

// subscribeIdle opens n connections, each subscribed to a channel of its
// own, and leaves them idle.
func subscribeIdle(addr string, n int) ([]*respConn, error) {
	conns := make([]*respConn, 0, n)
	for i := range n {
		c, err := dial(addr)
		if err != nil {
			return conns, err
		}
		conns = append(conns, c)
		if _, err := c.do("SUBSCRIBE", "idle:"+strconv.Itoa(i)); err != nil {
			return conns, err
		}
	}
	time.Sleep(200 * time.Millisecond)
	return conns, nil
}
