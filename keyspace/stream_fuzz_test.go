package keyspace

import (
	"fmt"
	"strconv"
	"testing"
)

// FuzzStreamCommands drives XADD, XDEL, XTRIM, XGROUP, XREADGROUP, XACK,
// XCLAIM, XAUTOCLAIM and XSETID from the fuzzer's bytes, with small nodes,
// and checks after every command that the stream is consistent: nodes in
// ID order with the counts and listpack sizes their entries give, the
// length and first ID the entries give, every pending entry in its
// group's and its consumer's lists, and the memory count what size()
// says.
func FuzzStreamCommands(f *testing.F) {
	f.Add([]byte("\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b"))
	f.Add([]byte("\x00\x00\x00\x00\x00\x00\x03\x05\x05\x06\x02\x01\x07\x08"))
	f.Fuzz(func(t *testing.T, ops []byte) {
		h := newKSTest(t)
		e := h.k.Encodings()
		e.StreamNodeMaxEntries = 3
		h.k.SetEncodings(e)
		ms := 0
		for i := 0; i+1 < len(ops) && i < 400; i += 2 {
			op, arg := ops[i], int(ops[i+1])
			id := strconv.Itoa(arg%16) + "-" + strconv.Itoa(arg/16%3)
			switch op % 12 {
			case 0, 1, 2:
				ms += arg % 3
				h.run("XADD", "s", strconv.Itoa(ms)+"-"+strconv.Itoa(arg%2), "f"+strconv.Itoa(arg%2), "v")
			case 3:
				h.run("XDEL", "s", id)
			case 4:
				h.run("XTRIM", "s", "MAXLEN", []string{"~", "="}[arg%2], strconv.Itoa(arg%7))
			case 5:
				h.run("XTRIM", "s", "MINID", []string{"~", "="}[arg%2], id)
			case 6:
				h.run("XGROUP", "CREATE", "s", "g"+strconv.Itoa(arg%2), []string{"0", "$"}[arg/2%2], "MKSTREAM")
			case 7:
				h.run("XREADGROUP", "GROUP", "g"+strconv.Itoa(arg%2), "c"+strconv.Itoa(arg/2%3), "COUNT", strconv.Itoa(arg%4), "STREAMS", "s", []string{">", "0"}[arg/6%2])
			case 8:
				h.run("XACK", "s", "g"+strconv.Itoa(arg%2), id)
			case 9:
				h.run("XCLAIM", "s", "g"+strconv.Itoa(arg%2), "c"+strconv.Itoa(arg/2%3), "0", id, []string{"FORCE", "JUSTID"}[arg%2])
			case 10:
				h.run("XAUTOCLAIM", "s", "g"+strconv.Itoa(arg%2), "c"+strconv.Itoa(arg/2%3), "0", "0", "COUNT", strconv.Itoa(1+arg%3))
			case 11:
				switch arg % 4 {
				case 0:
					h.run("XGROUP", "DELCONSUMER", "s", "g0", "c"+strconv.Itoa(arg%3))
				case 1:
					h.run("XGROUP", "DESTROY", "s", "g1")
				case 2:
					h.run("XSETID", "s", strconv.Itoa(ms+1)+"-0")
					ms++
				default:
					h.run("XINFO", "STREAM", "s", "FULL")
				}
			}
			if err := h.k.checkStream("s"); err != nil {
				t.Fatalf("after op %d (%d %d): %v", i/2, op, arg, err)
			}
		}
	})
}

// checkStream checks key's stream against what its entries say.
func (k *Keyspace) checkStream(key string) error {
	c := &Ctx{Now: k.Now()}
	s, o, _, err := k.streamOf(c, []byte(key), false)
	if err != nil || s == nil {
		return err
	}
	if o.counted != s.size() {
		return fmt.Errorf("memory count %d, size %d", o.counted, s.size())
	}
	var length uint64
	var prev streamID
	first := true
	var firstLive *streamID
	for i, n := range s.nodes {
		if i > 0 && n.master.cmp(s.nodes[i-1].last) <= 0 {
			return fmt.Errorf("node %d starts at %v, before the end of node %d (%v)", i, n.master, i-1, s.nodes[i-1].last)
		}
		live, dead := 0, 0
		lp := 0
		for off := n.first; off < len(n.b); {
			var e sentry
			e, off = n.at(off)
			if !first && e.id.cmp(prev) <= 0 {
				return fmt.Errorf("entry %v after %v", e.id, prev)
			}
			prev, first = e.id, false
			if e.deleted() {
				dead++
			} else {
				live++
				if firstLive == nil {
					id := e.id
					firstLive = &id
				}
			}
			lp += lpIntSize(int64(e.flags)) + lpIntSize(int64(e.id.ms-n.master.ms)) + lpIntSize(int64(e.id.seq-n.master.seq))
		}
		if live != n.live || dead != n.dead {
			return fmt.Errorf("node %d counts %d live %d dead, holds %d and %d", i, n.live, n.dead, live, dead)
		}
		if n.last != prev {
			return fmt.Errorf("node %d's last ID %v, its last entry %v", i, n.last, prev)
		}
		if n.lpBytes() < lp {
			return fmt.Errorf("node %d: %d listpack bytes for entries whose IDs alone take %d", i, n.lpBytes(), lp)
		}
		length += uint64(live)
	}
	if length != s.length {
		return fmt.Errorf("length %d, %d live entries", s.length, length)
	}
	switch {
	case s.length == 0 && !s.firstID.isZero():
		return fmt.Errorf("empty, first ID %v", s.firstID)
	case s.length > 0 && *firstLive != s.firstID:
		return fmt.Errorf("first ID %v, first entry %v", s.firstID, *firstLive)
	case len(s.nodes) > 0 && s.lastID.cmp(prev) < 0:
		return fmt.Errorf("last ID %v before the last entry %v", s.lastID, prev)
	}
	for _, g := range s.groups {
		n := 0
		for j, nack := range g.pel {
			if j > 0 && nack.id.cmp(g.pel[j-1].id) <= 0 {
				return fmt.Errorf("group %s: PEL out of order", g.name)
			}
			if nack.consumer == nil {
				return fmt.Errorf("group %s: %v pending for no consumer", g.name, nack.id)
			}
			if i, ok := nack.consumer.pel.search(nack.id); !ok || nack.consumer.pel[i] != nack {
				return fmt.Errorf("group %s: %v not in its consumer %s's list", g.name, nack.id, nack.consumer.name)
			}
		}
		for _, sc := range g.consumers {
			for _, nack := range sc.pel {
				if nack.consumer != sc {
					return fmt.Errorf("group %s: consumer %s lists %v, pending for %s", g.name, sc.name, nack.id, nack.consumer.name)
				}
				if _, ok := g.pel.search(nack.id); !ok {
					return fmt.Errorf("group %s: consumer %s lists %v, not in the group", g.name, sc.name, nack.id)
				}
				n++
			}
		}
		if n != len(g.pel) {
			return fmt.Errorf("group %s: %d pending, %d in its consumers", g.name, len(g.pel), n)
		}
	}
	return nil
}
