package diff_test

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

// randomStreamCases are sequences of XADD, XTRIM, XDEL, XGROUP,
// XREADGROUP, XACK, XCLAIM, XAUTOCLAIM and the reads, with explicit IDs
// (so both servers hold the same entries), small node sizes so that
// approximate trims cut at node boundaries, and errors. Times that follow
// each server's clock (idle, delivery and seen times) are masked; every
// claim uses a min-idle-time of 0 or one no entry reaches.
func randomStreamCases(r *rand.Rand, n int) []diffCase {
	var cases []diffCase
	for i := 0; i < n; i++ {
		g := &streamGen{r: r}
		nodeMax := []int{100, 2, 3, 5, 10}[r.IntN(5)]
		steps := []step{c("CONFIG SET stream-node-max-entries " + strconv.Itoa(nodeMax))}
		for j := 0; j < 60; j++ {
			steps = append(steps, g.next())
		}
		steps = append(steps, c("XINFO STREAM s FULL").with(maskTimes), c("XINFO STREAM t FULL").with(maskTimes), c("CONFIG SET stream-node-max-entries 100"))
		cases = append(cases, tc(fmt.Sprintf("stream %d", i), steps...))
	}
	return cases
}

type streamGen struct {
	r   *rand.Rand
	ms  uint64
	ids []string
}

func (g *streamGen) key() string {
	if g.r.IntN(10) == 0 {
		return []string{"str", "nosuch"}[g.r.IntN(2)]
	}
	return []string{"s", "s", "s", "t"}[g.r.IntN(4)]
}

func (g *streamGen) group() string    { return []string{"g1", "g1", "g2", "nog"}[g.r.IntN(4)] }
func (g *streamGen) consumer() string { return []string{"c1", "c2", "c3"}[g.r.IntN(3)] }

// id is an ID seen before, a bound near them, or junk now and then.
func (g *streamGen) id() string {
	switch n := g.r.IntN(20); {
	case n == 0:
		return []string{"x", "-", "+", "1-", "0-0", "18446744073709551615-18446744073709551615"}[g.r.IntN(6)]
	case n < 12 && len(g.ids) > 0:
		return g.ids[g.r.IntN(len(g.ids))]
	default:
		return strconv.FormatUint(uint64(g.r.IntN(int(g.ms)+3)), 10) + "-" + strconv.Itoa(g.r.IntN(3))
	}
}

func (g *streamGen) bound(start bool) string {
	switch n := g.r.IntN(6); n {
	case 0:
		if start {
			return "-"
		}
		return "+"
	case 1:
		return "(" + g.id()
	default:
		return g.id()
	}
}

func (g *streamGen) pairs() []string {
	var out []string
	for f := 0; f <= g.r.IntN(3); f++ {
		out = append(out, []string{"a", "b", "c"}[g.r.IntN(3)], strconv.Itoa(g.r.IntN(1000)))
	}
	return out
}

func (g *streamGen) trim() []string {
	var out []string
	if g.r.IntN(2) == 0 {
		out = append(out, "MAXLEN")
	} else {
		out = append(out, "MINID")
	}
	if m := g.r.IntN(3); m > 0 {
		out = append(out, []string{"~", "="}[m-1])
	}
	if out[0] == "MAXLEN" {
		out = append(out, strconv.Itoa(g.r.IntN(30)))
	} else {
		out = append(out, g.id())
	}
	if g.r.IntN(4) == 0 {
		out = append(out, "LIMIT", strconv.Itoa(g.r.IntN(20)))
	}
	return out
}

func (g *streamGen) next() step {
	r := g.r
	switch op := r.IntN(100); {
	case op < 30:
		args := []string{"XADD", g.key()}
		if r.IntN(8) == 0 {
			args = append(args, "NOMKSTREAM")
		}
		if r.IntN(4) == 0 {
			args = append(args, g.trim()...)
		}
		var id string
		switch n := r.IntN(10); {
		case n == 0:
			id = g.id() // often too small: an error
		case n == 1:
			g.ms += uint64(r.IntN(2))
			id = strconv.FormatUint(g.ms, 10) + "-*"
		default:
			g.ms += uint64(r.IntN(3))
			id = strconv.FormatUint(g.ms, 10) + "-" + strconv.Itoa(r.IntN(4))
		}
		g.ids = append(g.ids, strings.Replace(id, "*", "0", 1))
		return cmd(append(append(args, id), g.pairs()...)...)
	case op < 35:
		args := []string{"XDEL", g.key()}
		for k := 0; k <= r.IntN(3); k++ {
			args = append(args, g.id())
		}
		return cmd(args...)
	case op < 40:
		return cmd(append([]string{"XTRIM", g.key()}, g.trim()...)...)
	case op < 47:
		name, a, b := "XRANGE", g.bound(true), g.bound(false)
		if r.IntN(2) == 0 {
			name, a, b = "XREVRANGE", g.bound(false), g.bound(true)
		}
		args := []string{name, g.key(), a, b}
		if r.IntN(2) == 0 {
			args = append(args, "COUNT", strconv.Itoa(r.IntN(6)-1))
		}
		return cmd(args...)
	case op < 49:
		return cmd("XLEN", g.key())
	case op < 55:
		switch r.IntN(6) {
		case 0, 1:
			args := []string{"XGROUP", "CREATE", g.key(), g.group(), []string{"0", "$", g.id()}[r.IntN(3)]}
			if r.IntN(2) == 0 {
				args = append(args, "MKSTREAM")
			}
			if r.IntN(4) == 0 {
				args = append(args, "ENTRIESREAD", strconv.Itoa(r.IntN(10)-1))
			}
			return cmd(args...)
		case 2:
			return cmd("XGROUP", "SETID", g.key(), g.group(), []string{"0", "$", g.id()}[r.IntN(3)])
		case 3:
			return cmd("XGROUP", "DESTROY", g.key(), g.group())
		case 4:
			return cmd("XGROUP", "CREATECONSUMER", g.key(), g.group(), g.consumer())
		default:
			return cmd("XGROUP", "DELCONSUMER", g.key(), g.group(), g.consumer())
		}
	case op < 67:
		args := []string{"XREADGROUP", "GROUP", g.group(), g.consumer()}
		if r.IntN(2) == 0 {
			args = append(args, "COUNT", strconv.Itoa(r.IntN(4)))
		}
		if r.IntN(6) == 0 {
			args = append(args, "NOACK")
		}
		id := ">"
		if r.IntN(4) == 0 {
			id = []string{"0", g.id()}[r.IntN(2)]
		}
		return cmd(append(args, "STREAMS", g.key(), id)...)
	case op < 71:
		args := []string{"XREAD"}
		if r.IntN(2) == 0 {
			args = append(args, "COUNT", strconv.Itoa(r.IntN(4)))
		}
		return cmd(append(args, "STREAMS", g.key(), []string{"0", "$", g.id()}[r.IntN(3)])...)
	case op < 78:
		args := []string{"XACK", g.key(), g.group()}
		for k := 0; k <= r.IntN(3); k++ {
			args = append(args, g.id())
		}
		return cmd(args...)
	case op < 84:
		args := []string{"XCLAIM", g.key(), g.group(), g.consumer(), []string{"0", "0", "100000000"}[r.IntN(3)]}
		for k := 0; k <= r.IntN(3); k++ {
			args = append(args, g.id())
		}
		for _, o := range []string{"FORCE", "JUSTID"} {
			if r.IntN(3) == 0 {
				args = append(args, o)
			}
		}
		if r.IntN(4) == 0 {
			args = append(args, "RETRYCOUNT", strconv.Itoa(r.IntN(5)))
		}
		if r.IntN(6) == 0 {
			args = append(args, "LASTID", g.id())
		}
		return cmd(args...)
	case op < 89:
		args := []string{"XAUTOCLAIM", g.key(), g.group(), g.consumer(), []string{"0", "0", "100000000"}[r.IntN(3)], g.bound(true)}
		if r.IntN(2) == 0 {
			args = append(args, "COUNT", strconv.Itoa(r.IntN(5)))
		}
		if r.IntN(3) == 0 {
			args = append(args, "JUSTID")
		}
		return cmd(args...)
	case op < 93:
		if r.IntN(2) == 0 {
			return cmd("XPENDING", g.key(), g.group())
		}
		args := []string{"XPENDING", g.key(), g.group(), g.bound(true), g.bound(false), strconv.Itoa(r.IntN(5))}
		if r.IntN(2) == 0 {
			args = append(args, g.consumer())
		}
		return cmd(args...).with(maskIdle)
	case op < 97:
		switch r.IntN(3) {
		case 0:
			return cmd("XINFO", "STREAM", g.key())
		case 1:
			return cmd("XINFO", "GROUPS", g.key())
		default:
			return cmd("XINFO", "CONSUMERS", g.key(), g.group()).with(maskIdle)
		}
	case op < 98:
		return cmd("SET", "str", "v")
	default:
		args := []string{"XSETID", g.key(), g.id()}
		if r.IntN(2) == 0 {
			args = append(args, "ENTRIESADDED", strconv.Itoa(r.IntN(50)))
		}
		return cmd(args...)
	}
}

// randomStreamWakeCases park two to five readers (XREAD on $,
// XREADGROUP on >, on one stream or both, some with COUNT or NOACK), then
// write at random (XADD, XDEL, XTRIM, XGROUP CREATE/SETID/DESTROY,
// XSETID, DEL, SET), then wake whoever is left (DEL, then an XADD to each
// stream) and read every reader's one answer: what each was served, and
// so the order in which the writes woke them, must be Redis's.
func randomStreamWakeCases(r *rand.Rand, n int) []diffCase {
	var cases []diffCase
	for i := 0; i < n; i++ {
		steps := []step{c("XGROUP CREATE s g1 $ MKSTREAM"), c("XGROUP CREATE s g2 $"), c("XGROUP CREATE t g1 $ MKSTREAM")}
		readers := 2 + r.IntN(4)
		for rd := 1; rd <= readers; rd++ {
			keys := [][]string{{"s"}, {"t"}, {"s", "t"}, {"t", "s"}}[r.IntN(4)]
			args := []string{}
			group := r.IntN(3) > 0
			if group {
				g := "g1"
				if len(keys) == 1 && keys[0] == "s" && r.IntN(2) == 0 {
					g = "g2"
				}
				args = append(args, "XREADGROUP", "GROUP", g, "c"+strconv.Itoa(r.IntN(3)))
			} else {
				args = append(args, "XREAD")
			}
			if r.IntN(3) == 0 {
				args = append(args, "COUNT", strconv.Itoa(1+r.IntN(2)))
			}
			if group && r.IntN(4) == 0 {
				args = append(args, "NOACK")
			}
			args = append(args, "BLOCK", "0", "STREAMS")
			args = append(args, keys...)
			for range keys {
				if group {
					args = append(args, ">")
				} else {
					args = append(args, "$")
				}
			}
			s := cmd(args...).on(rd).expect(0)
			s.park = true
			steps = append(steps, s)
		}
		ms := 1
		for j := 0; j < 4+r.IntN(8); j++ {
			key := []string{"s", "t"}[r.IntN(2)]
			switch op := r.IntN(20); {
			case op < 9:
				steps = append(steps, cmd("XADD", key, strconv.Itoa(ms)+"-1", "n", strconv.Itoa(j)))
				ms += 1 + r.IntN(2)
			case op < 10:
				steps = append(steps, cmd("XDEL", key, strconv.Itoa(1+r.IntN(ms))+"-1"))
			case op < 11:
				steps = append(steps, cmd("XTRIM", key, "MAXLEN", "0"))
			case op < 13:
				steps = append(steps, cmd("XGROUP", "DESTROY", key, []string{"g1", "g2"}[r.IntN(2)]))
			case op < 14:
				steps = append(steps, cmd("XGROUP", "CREATE", key, []string{"g1", "g2"}[r.IntN(2)], "0", "MKSTREAM"))
			case op < 16:
				steps = append(steps, cmd("XGROUP", "SETID", key, "g1", []string{"0", "$"}[r.IntN(2)]))
			case op < 17:
				steps = append(steps, cmd("XSETID", key, strconv.Itoa(ms+5)+"-1"))
				ms += 6
			case op < 18:
				steps = append(steps, cmd("DEL", key))
			case op < 19:
				steps = append(steps, cmd("SET", key, "x"), cmd("DEL", key))
			default:
				steps = append(steps, cmd("MULTI"), cmd("XADD", key, strconv.Itoa(ms)+"-1", "m", "1"), cmd("XADD", key, strconv.Itoa(ms+1)+"-1", "m", "2"), cmd("EXEC"))
				ms += 2
			}
		}
		steps = append(steps, c("DEL s t"), cmd("XADD", "s", strconv.Itoa(ms+100)+"-1", "last", "s"), cmd("XADD", "t", strconv.Itoa(ms+100)+"-1", "last", "t"))
		for rd := 1; rd <= readers; rd++ {
			steps = append(steps, recv(rd, 1))
		}
		cases = append(cases, tc(fmt.Sprintf("stream wake %d", i), steps...))
	}
	return cases
}
