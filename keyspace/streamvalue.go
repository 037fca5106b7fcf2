package keyspace

import (
	"encoding/binary"
	"math"
	"sort"
	"strconv"

	"github.com/minilock/minilock/internal/redisstr"
)

// A stream's value (stream.h), kept as Redis keeps it: a sequence of nodes
// ordered by ID, each holding up to stream-node-max-entries entries (live
// and deleted) and about stream-node-max-bytes of Redis's listpack, with a
// node's field names written once (its master entry) and its IDs as deltas
// from its first one. Where a node ends matters to what clients see: an
// approximate trim (MAXLEN ~, MINID ~) removes whole nodes only, so the
// nodes here end exactly where Redis's listpacks end, which is why each
// node counts the bytes its listpack would have (lpBytes).
//
// Nodes are found by binary search on their first ID (Redis's radix tree
// lookup) and appended to at the end; an entry is deleted by flagging it,
// as in Redis, and a node whose last live entry goes is dropped.

// streamID is an entry's ID, <ms>-<seq>.
type streamID struct{ ms, seq uint64 }

var maxStreamID = streamID{math.MaxUint64, math.MaxUint64}

func (a streamID) cmp(b streamID) int {
	switch {
	case a.ms > b.ms:
		return 1
	case a.ms < b.ms:
		return -1
	case a.seq > b.seq:
		return 1
	case a.seq < b.seq:
		return -1
	}
	return 0
}

func (a streamID) isZero() bool { return a.ms == 0 && a.seq == 0 }

// appendTo formats the ID as Redis does, "<ms>-<seq>".
func (a streamID) appendTo(b []byte) []byte {
	b = strconv.AppendUint(b, a.ms, 10)
	b = append(b, '-')
	return strconv.AppendUint(b, a.seq, 10)
}

func (a streamID) String() string { return string(a.appendTo(nil)) }

// incr makes a its successor (streamIncrID); false when a was the last ID
// (it wraps to 0-0).
func (a *streamID) incr() bool {
	switch {
	case a.seq != math.MaxUint64:
		a.seq++
	case a.ms != math.MaxUint64:
		a.ms, a.seq = a.ms+1, 0
	default:
		*a = streamID{}
		return false
	}
	return true
}

// decr makes a its predecessor (streamDecrID); false when a was 0-0.
func (a *streamID) decr() bool {
	switch {
	case a.seq != 0:
		a.seq--
	case a.ms != 0:
		a.ms, a.seq = a.ms-1, math.MaxUint64
	default:
		*a = maxStreamID
		return false
	}
	return true
}

// Entry flags, as stream.h's STREAM_ITEM_FLAG_*.
const (
	streamDeleted    = 1
	streamSameFields = 2
)

// streamNode is one of Redis's listpacks. b holds the master fields (their
// count, then each as a length and its bytes) and then the entries: flags,
// the ID's ms and seq deltas from master (uvarints, wrapping), for an entry
// whose fields differ from the master's their count and each field before
// its value, every string a uvarint length and its bytes.
type streamNode struct {
	master     streamID
	last       streamID // the last entry's ID, deleted or not
	b          []byte
	first      int // offset of the first entry
	live, dead int
	lpRest     int // Redis's listpack bytes but for the live and dead counts
}

// lpBytes is the size of the listpack Redis would hold for n.
func (n *streamNode) lpBytes() int {
	return n.lpRest + lpIntSize(int64(n.live)) + lpIntSize(int64(n.dead))
}

// Listpack sizes (listpack.c): an integer's encoding, a string's (stored as
// an integer when it reads as one), and the back-length after each element.
func lpIntSize(v int64) int {
	switch {
	case v >= 0 && v <= 127:
		return 2
	case v >= -4096 && v <= 4095:
		return 3
	case v >= -32768 && v <= 32767:
		return 4
	case v >= -8388608 && v <= 8388607:
		return 5
	case v >= math.MinInt32 && v <= math.MaxInt32:
		return 6
	}
	return 10
}

func lpStrSize(s []byte) int {
	if len(s) > 0 && len(s) < 21 {
		if v, ok := redisstr.ParseInt(s); ok {
			return lpIntSize(v)
		}
	}
	l := len(s)
	switch {
	case l < 64:
		l++
	case l < 4096:
		l += 2
	default:
		l += 5
	}
	switch {
	case l <= 127:
		return l + 1
	case l < 16383:
		return l + 2
	case l < 2097151:
		return l + 3
	case l < 268435455:
		return l + 4
	}
	return l + 5
}

func appendStr(b, s []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func readStr(b []byte, off int) ([]byte, int) {
	n, w := binary.Uvarint(b[off:])
	start := off + w
	end := start + int(n)
	return b[start:end:end], end
}

func readUvarint(b []byte, off int) (uint64, int) {
	n, w := binary.Uvarint(b[off:])
	return n, off + w
}

// newStreamNode starts a node whose master entry has the fields of pairs
// (field, value, ...).
func newStreamNode(id streamID, pairs [][]byte) *streamNode {
	n := &streamNode{master: id}
	nf := len(pairs) / 2
	need := binary.MaxVarintLen64
	for j := 0; j < len(pairs); j += 2 {
		need += binary.MaxVarintLen32 + len(pairs[j])
	}
	n.b = make([]byte, 0, need)
	n.b = binary.AppendUvarint(n.b, uint64(nf))
	n.lpRest = 7 + lpIntSize(int64(nf)) + lpIntSize(0)
	for j := 0; j < len(pairs); j += 2 {
		n.b = appendStr(n.b, pairs[j])
		n.lpRest += lpStrSize(pairs[j])
	}
	n.first = len(n.b)
	return n
}

// sameFields reports whether pairs have the master entry's fields.
func (n *streamNode) sameFields(pairs [][]byte) bool {
	nf, off := readUvarint(n.b, 0)
	if int(nf) != len(pairs)/2 {
		return false
	}
	for j := 0; j < len(pairs); j += 2 {
		var f []byte
		f, off = readStr(n.b, off)
		if string(f) != string(pairs[j]) {
			return false
		}
	}
	return true
}

// add appends an entry (streamAppendItem's encoding step).
func (n *streamNode) add(id streamID, pairs [][]byte) {
	flags := byte(0)
	same := n.sameFields(pairs)
	if same {
		flags = streamSameFields
	}
	nf := len(pairs) / 2
	n.b = append(n.b, flags)
	n.b = binary.AppendUvarint(n.b, id.ms-n.master.ms)
	n.b = binary.AppendUvarint(n.b, id.seq-n.master.seq)
	n.lpRest += lpIntSize(int64(flags)) + lpIntSize(int64(id.ms-n.master.ms)) + lpIntSize(int64(id.seq-n.master.seq))
	lpCount := nf + 3
	if !same {
		n.b = binary.AppendUvarint(n.b, uint64(nf))
		n.lpRest += lpIntSize(int64(nf))
		lpCount += nf + 1
	}
	for j := 0; j < len(pairs); j += 2 {
		if !same {
			n.b = appendStr(n.b, pairs[j])
			n.lpRest += lpStrSize(pairs[j])
		}
		n.b = appendStr(n.b, pairs[j+1])
		n.lpRest += lpStrSize(pairs[j+1])
	}
	n.lpRest += lpIntSize(int64(lpCount))
	n.live++
	n.last = id
}

// sentry is an entry of a node as read from it.
type sentry struct {
	off   int // of its flags
	id    streamID
	flags byte
	nf    int
	data  int // offset of its first field (or value, with same fields)
}

func (e *sentry) deleted() bool { return e.flags&streamDeleted != 0 }

// at reads the entry at off and returns it and the next entry's offset.
func (n *streamNode) at(off int) (sentry, int) {
	e := sentry{off: off, flags: n.b[off]}
	dms, p := readUvarint(n.b, off+1)
	dseq, p := readUvarint(n.b, p)
	e.id = streamID{n.master.ms + dms, n.master.seq + dseq}
	same := e.flags&streamSameFields != 0
	if same {
		nf, _ := readUvarint(n.b, 0)
		e.nf = int(nf)
	} else {
		nf, q := readUvarint(n.b, p)
		e.nf, p = int(nf), q
	}
	e.data = p
	for j := 0; j < e.nf; j++ {
		if !same {
			_, p = readStr(n.b, p)
		}
		_, p = readStr(n.b, p)
	}
	return e, p
}

// offsets lists the offsets of n's entries, for walking it backwards.
func (n *streamNode) offsets() []int {
	offs := make([]int, 0, n.live+n.dead)
	for off := n.first; off < len(n.b); {
		offs = append(offs, off)
		_, off = n.at(off)
	}
	return offs
}

// markDeleted flags the entry at off as deleted (its flags byte stays one
// byte, as the listpack integer does).
func (n *streamNode) markDeleted(off int) {
	n.b[off] |= streamDeleted
	n.live--
	n.dead++
}

func (n *streamNode) size() int64 { return int64(cap(n.b)) + streamNodeBytes }

// Bytes a node and a group's bookkeeping hold besides their slices.
const (
	streamNodeBytes     = 96 + 8
	streamNACKBytes     = 24 + 16 + 16
	streamConsumerBytes = 64 + 16
	streamGroupBytes    = 96 + 16
	streamValueBytes    = 128
)

// streamNACK is a pending entry (streamNACK): delivered to consumer, not
// yet acknowledged.
type streamNACK struct {
	id       streamID
	time     int64 // last delivery, Unix ms
	count    uint64
	consumer *streamConsumer
}

// streamConsumer is a consumer of a group, with its own pending entries.
type streamConsumer struct {
	name     string
	seenTime int64
	pel      pel
}

// pel is a pending entries list ordered by ID.
type pel []*streamNACK

func (p pel) search(id streamID) (int, bool) {
	i := sort.Search(len(p), func(i int) bool { return p[i].id.cmp(id) >= 0 })
	return i, i < len(p) && p[i].id == id
}

func (p *pel) insert(i int, n *streamNACK) {
	*p = append(*p, nil)
	copy((*p)[i+1:], (*p)[i:])
	(*p)[i] = n
}

func (p *pel) removeAt(i int) {
	copy((*p)[i:], (*p)[i+1:])
	(*p)[len(*p)-1] = nil
	*p = (*p)[:len(*p)-1]
}

// remove drops id's NACK if p holds it.
func (p *pel) remove(id streamID) {
	if i, ok := p.search(id); ok {
		p.removeAt(i)
	}
}

// streamCG is a consumer group (streamCG).
type streamCG struct {
	name        string
	lastID      streamID
	entriesRead int64 // streamInvalidRead when unknown
	pel         pel
	consumers   []*streamConsumer // ordered by name
}

// streamInvalidRead is SCG_INVALID_ENTRIES_READ.
const streamInvalidRead = -1

func (g *streamCG) consumer(name []byte) (*streamConsumer, int) {
	i := sort.Search(len(g.consumers), func(i int) bool { return g.consumers[i].name >= string(name) })
	if i < len(g.consumers) && g.consumers[i].name == string(name) {
		return g.consumers[i], i
	}
	return nil, i
}

// addConsumer creates consumer name (absent) at position i.
func (g *streamCG) addConsumer(name []byte, i int, now int64) *streamConsumer {
	c := &streamConsumer{name: string(name), seenTime: now}
	g.consumers = append(g.consumers, nil)
	copy(g.consumers[i+1:], g.consumers[i:])
	g.consumers[i] = c
	return c
}

// streamValue is a stream (stream.h's stream).
type streamValue struct {
	nodes        []*streamNode
	length       uint64
	lastID       streamID
	firstID      streamID
	maxDeleted   streamID
	entriesAdded uint64
	groups       []*streamCG // ordered by name
	bytes        int64       // what the nodes and groups hold
}

func (s *streamValue) len() int { return 1 } // an empty stream is still a key

func (s *streamValue) size() int64 { return streamValueBytes + s.bytes }

func (s *streamValue) group(name []byte) (*streamCG, int) {
	i := sort.Search(len(s.groups), func(i int) bool { return s.groups[i].name >= string(name) })
	if i < len(s.groups) && s.groups[i].name == string(name) {
		return s.groups[i], i
	}
	return nil, i
}

func (s *streamValue) clone() value {
	c := *s
	c.nodes = make([]*streamNode, len(s.nodes))
	for i, n := range s.nodes {
		cn := *n
		// The same capacity, so the copy's size is what c.bytes counts.
		cn.b = append(make([]byte, 0, cap(n.b)), n.b...)
		c.nodes[i] = &cn
	}
	c.groups = make([]*streamCG, len(s.groups))
	for i, g := range s.groups {
		cg := *g
		cg.consumers = make([]*streamConsumer, len(g.consumers))
		byOld := make(map[*streamConsumer]*streamConsumer, len(g.consumers))
		for j, sc := range g.consumers {
			nc := &streamConsumer{name: sc.name, seenTime: sc.seenTime, pel: make(pel, 0, len(sc.pel))}
			cg.consumers[j], byOld[sc] = nc, nc
		}
		cg.pel = make(pel, len(g.pel))
		for j, nack := range g.pel {
			nn := *nack
			nn.consumer = byOld[nack.consumer]
			cg.pel[j] = &nn
			nn.consumer.pel = append(nn.consumer.pel, &nn)
		}
		c.groups[i] = &cg
	}
	if len(c.groups) == 0 {
		c.groups = nil
	}
	return &c
}

// nodeFor returns the index of the node that would hold id: the last one
// whose first ID is <= id (0 when id is before every node).
func (s *streamValue) nodeFor(id streamID) int {
	i := sort.Search(len(s.nodes), func(i int) bool { return s.nodes[i].master.cmp(id) > 0 })
	if i > 0 {
		i--
	}
	return i
}

// appendEntry adds an entry with ID id after the last one; the caller has
// checked the ID (streamAppendItem from the node choice on).
func (s *streamValue) appendEntry(id streamID, pairs [][]byte, maxBytes, maxEntries int) {
	var tail *streamNode
	if len(s.nodes) > 0 {
		tail = s.nodes[len(s.nodes)-1]
		total := 0
		for _, p := range pairs {
			total += len(p)
		}
		if maxBytes <= 0 || maxBytes > streamListpackMax {
			maxBytes = streamListpackMax
		}
		if tail.lpBytes()+total >= maxBytes || maxEntries > 0 && tail.live+tail.dead >= maxEntries {
			s.shrink(tail)
			tail = nil
		}
	}
	if tail == nil {
		tail = newStreamNode(id, pairs)
		s.nodes = append(s.nodes, tail)
		s.bytes += tail.size()
	}
	before := tail.size()
	tail.add(id, pairs)
	s.bytes += tail.size() - before
	s.length++
	s.entriesAdded++
	s.lastID = id
	if s.length == 1 {
		s.firstID = id
	}
}

// shrink gives a node that is full back what it grew past its size, as
// Redis's lpShrinkToFit.
func (s *streamValue) shrink(n *streamNode) {
	if cap(n.b)-len(n.b) > len(n.b)/8 {
		before := n.size()
		n.b = append(make([]byte, 0, len(n.b)), n.b...)
		s.bytes += n.size() - before
	}
}

// streamListpackMax is STREAM_LISTPACK_MAX_SIZE: the most an entry's
// fields and values, or a node, may take.
const streamListpackMax = 1 << 30

// removeNode drops node i.
func (s *streamValue) removeNode(i int) {
	s.bytes -= s.nodes[i].size()
	copy(s.nodes[i:], s.nodes[i+1:])
	s.nodes[len(s.nodes)-1] = nil
	s.nodes = s.nodes[:len(s.nodes)-1]
}

// pos is where an iteration stands: a node and an entry's offset in it.
type pos struct {
	node int
	off  int
}

// each calls f for every live entry with start <= ID <= end, in order (or
// in reverse), until f returns false. f may not change the stream.
func (s *streamValue) each(start, end streamID, rev bool, f func(n *streamNode, e sentry) bool) {
	if len(s.nodes) == 0 || start.cmp(end) > 0 {
		return
	}
	if !rev {
		for i := s.nodeFor(start); i < len(s.nodes); i++ {
			n := s.nodes[i]
			if n.master.cmp(end) > 0 {
				return
			}
			if n.live == 0 || n.last.cmp(start) < 0 {
				continue
			}
			for off := n.first; off < len(n.b); {
				var e sentry
				e, off = n.at(off)
				if e.id.cmp(end) > 0 {
					return
				}
				if e.deleted() || e.id.cmp(start) < 0 {
					continue
				}
				if !f(n, e) {
					return
				}
			}
		}
		return
	}
	for i := s.nodeFor(end); i >= 0; i-- {
		n := s.nodes[i]
		if n.last.cmp(start) < 0 {
			return
		}
		if n.live == 0 || n.master.cmp(end) > 0 {
			continue
		}
		offs := n.offsets()
		for j := len(offs) - 1; j >= 0; j-- {
			e, _ := n.at(offs[j])
			if e.id.cmp(start) < 0 {
				return
			}
			if e.deleted() || e.id.cmp(end) > 0 {
				continue
			}
			if !f(n, e) {
				return
			}
		}
	}
}

// find returns the live entry id, its node index and whether it is there.
func (s *streamValue) find(id streamID) (int, sentry, bool) {
	if len(s.nodes) == 0 {
		return 0, sentry{}, false
	}
	i := s.nodeFor(id)
	n := s.nodes[i]
	if n.live == 0 || n.last.cmp(id) < 0 || n.master.cmp(id) > 0 {
		return 0, sentry{}, false
	}
	for off := n.first; off < len(n.b); {
		var e sentry
		e, off = n.at(off)
		if c := e.id.cmp(id); c > 0 {
			break
		} else if c == 0 {
			return i, e, !e.deleted()
		}
	}
	return 0, sentry{}, false
}

// has reports whether id is a live entry (streamEntryExists).
func (s *streamValue) has(id streamID) bool {
	_, _, ok := s.find(id)
	return ok
}

// remove deletes the live entry e of node i (streamIteratorRemoveEntry).
func (s *streamValue) remove(i int, e *sentry) {
	n := s.nodes[i]
	if n.live == 1 {
		s.removeNode(i)
	} else {
		n.markDeleted(e.off)
	}
	s.length--
}

// deleteID deletes the live entry id and reports whether there was one
// (streamDeleteItem).
func (s *streamValue) deleteID(id streamID) bool {
	i, e, ok := s.find(id)
	if ok {
		s.remove(i, &e)
	}
	return ok
}

// edge is the first (or last) live entry's ID; with none, the max ID for
// first and 0-0 for last (streamGetEdgeID with skip_tombstones).
func (s *streamValue) edge(first bool) streamID {
	var id streamID
	found := false
	s.each(streamID{}, maxStreamID, !first, func(_ *streamNode, e sentry) bool {
		id, found = e.id, true
		return false
	})
	if !found {
		if first {
			return maxStreamID
		}
		return streamID{}
	}
	return id
}

// Trim strategies (TRIM_STRATEGY_*).
const (
	trimNone = iota
	trimMaxLen
	trimMinID
)

// trimArgs are XADD's and XTRIM's trimming options (streamAddTrimArgs).
type trimArgs struct {
	strategy int
	argIdx   int
	approx   bool
	limit    int64
	maxLen   int64
	minID    streamID
}

// trim deletes entries from the head as a asks and returns how many
// (streamTrim).
func (s *streamValue) trim(a *trimArgs) int64 {
	if a.strategy == trimNone {
		return 0
	}
	var deleted int64
	for len(s.nodes) > 0 {
		if a.strategy == trimMaxLen && int64(s.length) <= a.maxLen {
			break
		}
		n := s.nodes[0]
		entries := int64(n.live)
		if a.limit != 0 && deleted+entries > a.limit {
			break
		}
		var removeNode bool
		if a.strategy == trimMaxLen {
			removeNode = int64(s.length)-entries >= a.maxLen
		} else {
			removeNode = n.last.cmp(a.minID) < 0
		}
		if removeNode {
			s.removeNode(0)
			s.length -= uint64(entries)
			deleted += entries
			continue
		}
		if a.approx {
			break
		}
		for off := n.first; off < len(n.b); {
			var e sentry
			e, off = n.at(off)
			var stop bool
			if a.strategy == trimMaxLen {
				stop = int64(s.length) <= a.maxLen
			} else {
				stop = e.id.cmp(a.minID) >= 0
			}
			if stop {
				break
			}
			if !e.deleted() {
				n.markDeleted(e.off)
				s.length--
				deleted++
			}
		}
		break
	}
	if s.length == 0 {
		s.firstID = streamID{}
	} else if deleted > 0 {
		s.firstID = s.edge(true)
	}
	return deleted
}

// rangeHasTombstones is streamRangeHasTombstones; end nil means the max.
func (s *streamValue) rangeHasTombstones(start streamID, end *streamID) bool {
	if s.length == 0 || s.maxDeleted.isZero() {
		return false
	}
	if s.firstID.cmp(s.maxDeleted) > 0 {
		return false
	}
	e := maxStreamID
	if end != nil {
		e = *end
	}
	return start.cmp(s.maxDeleted) <= 0 && s.maxDeleted.cmp(e) <= 0
}

// estimateDistance is streamEstimateDistanceFromFirstEverEntry.
func (s *streamValue) estimateDistance(id streamID) int64 {
	if s.entriesAdded == 0 {
		return 0
	}
	if s.length == 0 && id.cmp(s.lastID) < 1 {
		return int64(s.entriesAdded)
	}
	cmpLast := id.cmp(s.lastID)
	if cmpLast == 0 {
		return int64(s.entriesAdded)
	} else if cmpLast > 0 {
		return streamInvalidRead
	}
	cmpFirst := id.cmp(s.firstID)
	if s.maxDeleted.isZero() || s.maxDeleted.cmp(s.firstID) < 0 {
		if cmpFirst < 0 {
			return int64(s.entriesAdded - s.length)
		} else if cmpFirst == 0 {
			return int64(s.entriesAdded - s.length + 1)
		}
	}
	return streamInvalidRead
}
