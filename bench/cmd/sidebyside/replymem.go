package main

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"
)

// The memory a big reply costs: each server fresh, the data loaded, then
// the peak RSS (VmHWM, reset just before through /proc/<pid>/clear_refs)
// while one command's reply is built and written, less the RSS before it.

// replyMemCase is one measurement.
type replyMemCase struct {
	name string
	load func(c *respConn) error
	// run sends the command and reads what comes back; note says what
	// else was seen (a dropped subscriber).
	run func(p *proc, c *respConn) (note string, err error)
}

func replyMemCases(scale int) []replyMemCase {
	listN := 5 * scale
	randN := 3 * scale
	pubN := scale
	return []replyMemCase{
		{
			name: fmt.Sprintf("LRANGE l 0 -1 of %s elements", thousands(float64(listN))),
			load: func(c *respConn) error {
				return bulk(c, listN, func(lo, hi int) []string { return elems(lo, hi, member, "RPUSH", "l") })
			},
			run: func(_ *proc, c *respConn) (string, error) { return "", readOne(c, "LRANGE", "l", "0", "-1") },
		},
		{
			name: fmt.Sprintf("HRANDFIELD h -%s WITHVALUES (1,000 fields)", thousands(float64(randN))),
			load: func(c *respConn) error {
				return bulk(c, 1000, func(lo, hi int) []string {
					return elems(lo, hi, func(i int) []string { return []string{"f:" + strconv.Itoa(i), "v:" + strconv.Itoa(i)} }, "HSET", "h")
				})
			},
			run: func(_ *proc, c *respConn) (string, error) {
				return "", readOne(c, "HRANDFIELD", "h", "-"+strconv.Itoa(randN), "WITHVALUES")
			},
		},
		{
			name: fmt.Sprintf("PSUBSCRIBE ch* that never reads, %s PUBLISH ch:1 (32 bytes)", thousands(float64(pubN))),
			run:  func(p *proc, c *respConn) (string, error) { return slowSubscriber(p, c, pubN) },
		},
	}
}

// readOne sends one command and reads its reply.
func readOne(c *respConn, args ...string) error {
	c.w.Write(appendCommand(nil, args...))
	if err := c.w.Flush(); err != nil {
		return err
	}
	return skipReply(c.r)
}

// slowSubscriber subscribes a connection that then reads nothing (its
// socket's receive buffer kept small), publishes n messages on c, and
// reports whether the server dropped the subscriber.
func slowSubscriber(p *proc, c *respConn, n int) (string, error) {
	sub, err := net.Dial("tcp", p.addr)
	if err != nil {
		return "", err
	}
	defer sub.Close()
	sub.(*net.TCPConn).SetReadBuffer(4096)
	if _, err := sub.Write(appendCommand(nil, "PSUBSCRIBE", "ch*")); err != nil {
		return "", err
	}
	r := bufio.NewReader(sub)
	if err := skipReply(r); err != nil {
		return "", err
	}
	msg := strings.Repeat("x", 32)
	cmd := appendCommand(nil, "PUBLISH", "ch:1", msg)
	for sent := 0; sent < n; {
		batch := min(1000, n-sent)
		for range batch {
			c.w.Write(cmd)
		}
		if err := c.w.Flush(); err != nil {
			return "", err
		}
		for range batch {
			if err := skipReply(c.r); err != nil {
				return "", err
			}
		}
		sent += batch
	}
	// Dropped: the server counts one client, the publisher. (Reading
	// the subscriber's socket would not tell: what the kernel holds for
	// it still arrives, slowly, through its small window.)
	info, err := c.do("INFO", "clients")
	if err != nil {
		return "", err
	}
	if infoField(info, "connected_clients") == "1" {
		return "dropped", nil
	}
	return "not dropped", nil
}

// resetPeak makes VmHWM start again from the current RSS.
func (p *proc) resetPeak() error {
	return os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", p.cmd.Process.Pid), []byte("5"), 0)
}

// replyMemory measures every case on every server, a fresh process each.
func replyMemory(o *options, ks []kind, rep *report) error {
	cases := replyMemCases(o.elements)
	type result struct {
		delta []float64
		note  string
	}
	res := make([][]result, len(cases))
	for i := range res {
		res[i] = make([]result, len(ks))
	}
	for round := 0; round < o.rounds; round++ {
		for ci, mc := range cases {
			for ki, k := range ks {
				p, err := start(k, 0)
				if err != nil {
					return err
				}
				c, err := dial(p.addr)
				if err != nil {
					p.stop()
					return err
				}
				c.c.SetDeadline(time.Time{})
				if mc.load != nil {
					if err := mc.load(c); err != nil {
						p.stop()
						return fmt.Errorf("%s: %s: loading: %w", k.name, mc.name, err)
					}
				}
				time.Sleep(time.Second)
				before, _, err := p.rssKB()
				if err == nil {
					err = p.resetPeak()
				}
				if err != nil {
					p.stop()
					return err
				}
				note, err := mc.run(p, c)
				if err != nil {
					p.stop()
					return fmt.Errorf("%s: %s: %w", k.name, mc.name, err)
				}
				_, peak, err := p.rssKB()
				c.close()
				p.stop()
				if err != nil {
					return err
				}
				r := &res[ci][ki]
				r.delta = append(r.delta, float64(peak-before)/1024)
				r.note = note
				logf("round %d %-9s %s: RSS %d kB before, peak +%.1f MB %s", round+1, k.name, mc.name, before, float64(peak-before)/1024, note)
			}
		}
	}
	rep.line("Memory of big replies: a fresh process per measurement, the data loaded, then the peak RSS (VmHWM, reset through /proc/<pid>/clear_refs) while the reply is built and read, less the RSS before; medians of %d round(s).", o.rounds)
	rep.line("")
	rep.line("| reply | %s | %s | ratio |", ks[0].name, ks[1].name)
	rep.line("|---|---:|---:|---:|")
	for ci, mc := range cases {
		a, b := median(res[ci][0].delta), median(res[ci][1].delta)
		line := fmt.Sprintf("| %s | +%.0f MB", mc.name, a)
		if n := res[ci][0].note; n != "" {
			line += " (" + n + ")"
		}
		line += fmt.Sprintf(" | +%.0f MB", b)
		if n := res[ci][1].note; n != "" {
			line += " (" + n + ")"
		}
		rep.line("%s | %.2f |", line, a/max(b, 1))
	}
	rep.line("")
	return nil
}
