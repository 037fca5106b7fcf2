package keyspace

import (
	"encoding/binary"

	"github.com/minilock/minilock/internal/rdbfmt"
)

// Lists and streams in RDB form.

// quicklist nodes' containers (quicklist.h).
const (
	qlPlain  = 1
	qlPacked = 2
)

// packedThreshold is quicklist.c's packed_threshold: an element this big
// gets a node of its own, kept plain.
const packedThreshold = 1 << 30

// appendRDBList writes a list as RDB_TYPE_LIST_QUICKLIST_2: its nodes,
// each a listpack. The nodes are cut where Redis's quicklist cuts a list
// pushed at its tail (_quicklistNodeAllowInsert), so a list built by RPUSH
// dumps to the bytes Redis's does.
func appendRDBList(w *RDBWriter, b []byte, l *listValue) []byte {
	fill := l.fill
	type node struct {
		plain []byte
		lp    listpack
		count int
	}
	var nodes []*node
	var cur *node
	l.each(0, l.n-1, false, func(v []byte) bool {
		if len(v) >= packedThreshold {
			nodes = append(nodes, &node{plain: v})
			cur = nil
			return true
		}
		if cur == nil || !quicklistAllows(cur.lp.size(), cur.count, fill, len(v)) {
			cur = &node{}
			nodes = append(nodes, cur)
		}
		cur.lp.add(v)
		cur.count++
		return true
	})
	b = rdbfmt.AppendLen(b, uint64(len(nodes)))
	for _, n := range nodes {
		if n.plain != nil {
			b = rdbfmt.AppendLen(b, qlPlain)
			b = w.String(b, n.plain)
			continue
		}
		b = rdbfmt.AppendLen(b, qlPacked)
		b = w.String(b, n.lp.bytes())
	}
	return b
}

// quicklistAllows is _quicklistNodeAllowInsert for a node of sz bytes and
// count elements taking one more of n bytes.
func quicklistAllows(sz, count, fill, n int) bool {
	newSz := sz + n + 8 // SIZE_ESTIMATE_OVERHEAD
	if fill < 0 {
		if off := -fill - 1; off < 5 {
			return newSz <= 4096<<off
		}
	}
	if newSz > 8192 { // SIZE_SAFETY_LIMIT
		return false
	}
	return count < fill
}

// streamIDBytes is streamEncodeID: big-endian ms then seq, the radix tree's
// key for a node and a PEL entry's raw ID.
func streamIDBytes(b []byte, id streamID) []byte {
	b = binary.BigEndian.AppendUint64(b, id.ms)
	return binary.BigEndian.AppendUint64(b, id.seq)
}

// nodeListpack is the listpack Redis holds for node n (t_stream.c's
// layout): the master entry (live count, deleted count, the master
// fields, a 0), then per entry its flags, ID deltas, its own fields
// unless it has the master's, its values and its element count.
func nodeListpack(n *streamNode) []byte {
	var lp listpack
	lp.addInt(int64(n.live))
	lp.addInt(int64(n.dead))
	nf, off := readUvarint(n.b, 0)
	lp.addInt(int64(nf))
	for j := uint64(0); j < nf; j++ {
		var f []byte
		f, off = readStr(n.b, off)
		lp.add(f)
	}
	lp.addInt(0)
	for off := n.first; off < len(n.b); {
		e, next := n.at(off)
		lp.addInt(int64(e.flags))
		lp.addInt(int64(e.id.ms - n.master.ms))
		lp.addInt(int64(e.id.seq - n.master.seq))
		same := e.flags&streamSameFields != 0
		count := e.nf + 3
		if !same {
			lp.addInt(int64(e.nf))
			count += e.nf + 1
		}
		p := e.data
		for j := 0; j < e.nf; j++ {
			var s []byte
			if !same {
				s, p = readStr(n.b, p)
				lp.add(s)
			}
			s, p = readStr(n.b, p)
			lp.add(s)
		}
		lp.addInt(int64(count))
		off = next
	}
	return lp.bytes()
}

// appendRDBStream writes a stream as RDB_TYPE_STREAM_LISTPACKS_2.
func appendRDBStream(w *RDBWriter, b []byte, s *streamValue) []byte {
	b = rdbfmt.AppendLen(b, uint64(len(s.nodes)))
	var key [16]byte
	for _, n := range s.nodes {
		b = w.String(b, streamIDBytes(key[:0], n.master))
		b = w.String(b, nodeListpack(n))
	}
	for _, v := range []uint64{s.length, s.lastID.ms, s.lastID.seq, s.firstID.ms, s.firstID.seq,
		s.maxDeleted.ms, s.maxDeleted.seq, s.entriesAdded, uint64(len(s.groups))} {
		b = rdbfmt.AppendLen(b, v)
	}
	for _, g := range s.groups {
		b = w.String(b, []byte(g.name))
		b = rdbfmt.AppendLen(b, g.lastID.ms)
		b = rdbfmt.AppendLen(b, g.lastID.seq)
		b = rdbfmt.AppendLen(b, uint64(g.entriesRead))
		b = rdbfmt.AppendLen(b, uint64(len(g.pel)))
		for _, nack := range g.pel {
			b = streamIDBytes(b, nack.id)
			b = binary.LittleEndian.AppendUint64(b, uint64(nack.time))
			b = rdbfmt.AppendLen(b, nack.count)
		}
		b = rdbfmt.AppendLen(b, uint64(len(g.consumers)))
		for _, c := range g.consumers {
			b = w.String(b, []byte(c.name))
			b = binary.LittleEndian.AppendUint64(b, uint64(c.seenTime))
			b = rdbfmt.AppendLen(b, uint64(len(c.pel)))
			for _, nack := range c.pel {
				b = streamIDBytes(b, nack.id)
			}
		}
	}
	return b
}
