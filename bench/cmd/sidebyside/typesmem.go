package main

import (
	"fmt"
	"strconv"
	"time"
)

// A collection shape for the memory table: how many keys, and the
// commands that fill one of them.
type shape struct {
	name string
	keys int
	fill func(i int) [][]string // the commands that build key i
}

// typeShapes are the collections issue 12 measures: 1M members spread
// over 10k hashes, zsets and sets, and one zset of 1M members.
func typeShapes(scale int) []shape {
	perKey := 100
	batch := func(cmd, key string, n int, member func(j int) []string) [][]string {
		var out [][]string
		args := []string{cmd, key}
		for j := range n {
			args = append(args, member(j)...)
			if len(args) >= 2+2*1000 {
				out = append(out, args)
				args = []string{cmd, key}
			}
		}
		if len(args) > 2 {
			out = append(out, args)
		}
		return out
	}
	big := 100 * scale * perKey
	return []shape{
		{fmt.Sprintf("%s fields in %s hashes", thousands(float64(scale*perKey*100)), thousands(float64(scale*100))), scale * 100, func(i int) [][]string {
			return batch("HSET", "h:"+strconv.Itoa(i), perKey, func(j int) []string { return []string{"field:" + strconv.Itoa(j), "value:" + strconv.Itoa(i*j)} })
		}},
		{fmt.Sprintf("%s members in %s zsets", thousands(float64(scale*perKey*100)), thousands(float64(scale*100))), scale * 100, func(i int) [][]string {
			return batch("ZADD", "z:"+strconv.Itoa(i), perKey, func(j int) []string { return []string{strconv.Itoa(i*7 + j), "member:" + strconv.Itoa(j)} })
		}},
		{fmt.Sprintf("%s members in %s sets", thousands(float64(scale*perKey*100)), thousands(float64(scale*100))), scale * 100, func(i int) [][]string {
			return batch("SADD", "s:"+strconv.Itoa(i), perKey, func(j int) []string { return []string{"member:" + strconv.Itoa(j)} })
		}},
		{fmt.Sprintf("one zset of %s members", thousands(float64(big))), 1, func(int) [][]string {
			return batch("ZADD", "bigz", big, func(j int) []string { return []string{strconv.Itoa(j * 3), "member:" + strconv.Itoa(j)} })
		}},
	}
}

// typesMemory measures RSS with each shape loaded, a fresh process per
// shape, server and round.
func typesMemory(o *options, ks []kind, rep *report) error {
	scale := 100 // 10k keys x 100 members = 1M
	if o.quick {
		scale = 10
	}
	shapes := typeShapes(scale)
	rss := make([][][]float64, len(shapes)) // [shape][server] -> rounds
	for si := range shapes {
		rss[si] = make([][]float64, len(ks))
	}
	for round := 1; round <= o.rounds; round++ {
		for si, sh := range shapes {
			for i, k := range ks {
				p, err := start(k, 0)
				if err != nil {
					return err
				}
				time.Sleep(500 * time.Millisecond)
				idle, _, _ := p.rssKB()
				err = loadShape(p.addr, sh)
				time.Sleep(time.Second)
				loaded, _, rerr := p.rssKB()
				p.stop()
				if err != nil {
					return fmt.Errorf("%s: %s: %w", k.name, sh.name, err)
				}
				if rerr != nil {
					return rerr
				}
				rss[si][i] = append(rss[si][i], float64(loaded-idle))
				logf("round %d %-10s %s: +%d kB", round, k.name, sh.name, loaded-idle)
			}
		}
	}
	head, sep := "| RSS growth with |", "|---|"
	for _, k := range ks {
		head += " " + k.name + " |"
		sep += "---:|"
	}
	for _, k := range ks[1:] {
		head += fmt.Sprintf(" %s/%s |", ks[0].name, k.name)
		sep += "---:|"
	}
	rep.line("Collection memory: a fresh process per shape, server and round; members are short strings (`member:<j>`, fields `field:<j>` with values `value:<n>`), loaded pipelined in commands of up to 1,000 members; RSS after loading minus RSS at start (VmRSS, 1 s after the last reply); medians of %d round(s).", o.rounds)
	rep.line("")
	rep.line("%s", head)
	rep.line("%s", sep)
	for si, sh := range shapes {
		line := "| " + sh.name + " |"
		v := make([]float64, len(ks))
		for i := range ks {
			v[i] = median(rss[si][i])
			line += fmt.Sprintf(" %.1f MB |", v[i]/1024)
		}
		for i := range ks[1:] {
			line += fmt.Sprintf(" %.2f |", v[0]/v[i+1])
		}
		rep.line("%s", line)
	}
	rep.line("")
	return nil
}

// loadShape sends every command of sh pipelined on one connection and
// reads every reply.
func loadShape(addr string, sh shape) error {
	c, err := dial(addr)
	if err != nil {
		return err
	}
	defer c.close()
	n := 0
	for i := range sh.keys {
		n += len(sh.fill(i))
	}
	werr := make(chan error, 1)
	go func() {
		var b []byte
		for i := range sh.keys {
			for _, cmd := range sh.fill(i) {
				b = appendCommand(b[:0], cmd...)
				if _, err := c.w.Write(b); err != nil {
					werr <- err
					return
				}
			}
		}
		werr <- c.w.Flush()
	}()
	for i := range n {
		if err := skipLine(c.r); err != nil {
			return fmt.Errorf("reply %d: %w", i, err)
		}
	}
	return <-werr
}
