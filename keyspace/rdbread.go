package keyspace

import (
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"strconv"

	"github.com/minilock/minilock/internal/rdbfmt"
	"github.com/minilock/minilock/internal/redisstr"
	"github.com/minilock/minilock/keyspace/internal/intset"
)

// ReadRDBValue reads a value of RDB type t (rdbLoadObject) from r and
// returns it, its encoding chosen by enc as Redis chooses it when it
// loads. Every length is checked against the bytes that remain before
// anything is made for it. A corrupt value, an empty collection, a
// module's value or an unknown type is ErrBadRDB.
func ReadRDBValue(r *rdbfmt.Reader, t byte, enc Encodings) (Value, error) {
	v, ok := readRDB(r, t, &enc)
	switch {
	case !ok:
		return Value{}, ErrBadRDB
	case v.obj != nil && v.obj.kind != kindStream && v.obj.v.len() == 0:
		return Value{}, ErrEmptyRDB
	}
	return v, nil
}

// ErrEmptyRDB is returned for a collection with no elements, which Redis
// never writes: a RESTORE refuses it as bad data, a file's loader skips
// the key (RDB_LOAD_ERR_EMPTY_KEY).
var ErrEmptyRDB = errors.New("empty key in RDB data")

// count reads a collection's length and checks that at least min bytes
// per element remain, so a claimed length never sizes an allocation the
// payload cannot fill.
func count(r *rdbfmt.Reader, min int) (int, bool) {
	n, enc, ok := r.Len()
	if !ok || enc || n > uint64(r.Remaining()/min) {
		return 0, false
	}
	return int(n), true
}

func readRDB(r *rdbfmt.Reader, t byte, enc *Encodings) (Value, bool) {
	switch t {
	case RDBTypeString:
		s, ok := r.String()
		return Value{str: slices.Clip(s)}, ok
	case RDBTypeList:
		n, ok := count(r, 1)
		if !ok {
			return Value{}, false
		}
		l := newList(enc)
		for ; n > 0; n-- {
			s, ok := r.String()
			if !ok {
				return Value{}, false
			}
			l.pushBack(s)
		}
		return obj(kindList, l), true
	case RDBTypeSet:
		n, ok := count(r, 1)
		if !ok {
			return Value{}, false
		}
		ms := make([][]byte, 0, n)
		for ; n > 0; n-- {
			s, ok := r.String()
			if !ok {
				return Value{}, false
			}
			ms = append(ms, s)
		}
		return buildSet(ms, enc)
	case RDBTypeZSet, RDBTypeZSet2:
		return readZSet(r, t, enc)
	case RDBTypeHash:
		n, ok := count(r, 2)
		if !ok {
			return Value{}, false
		}
		pairs := make([][]byte, 0, 2*n)
		for ; n > 0; n-- {
			f, ok1 := r.String()
			v, ok2 := r.String()
			if !ok1 || !ok2 {
				return Value{}, false
			}
			pairs = append(pairs, f, v)
		}
		return buildHash(pairs, enc)
	case RDBTypeListQuicklist, RDBTypeListQuicklist2:
		return readQuicklist(r, t, enc)
	case RDBTypeHashZipmap, RDBTypeListZiplist, RDBTypeSetIntset, RDBTypeZSetZiplist,
		RDBTypeZSetListpack, RDBTypeHashZiplist, RDBTypeHashListpack:
		blob, ok := r.String()
		if !ok {
			return Value{}, false
		}
		return readBlob(blob, t, enc)
	case RDBTypeStreamListpacks, RDBTypeStreamListpacks2:
		return readStream(r, t)
	}
	return Value{}, false
}

func obj(kind Kind, v value) Value { return Value{obj: &object{kind: kind, v: v}} }

// buildSet makes a set of members ms; a repeated member is corrupt.
func buildSet(ms [][]byte, enc *Encodings) (Value, bool) {
	if len(ms) == 0 {
		return obj(kindSet, &setValue{}), true
	}
	s := newSetFor(ms[0])
	if len(ms) > enc.SetMaxIntsetEntries {
		s.convert()
	}
	for _, m := range ms {
		if !s.add(m, enc) {
			return Value{}, false
		}
	}
	return obj(kindSet, s), true
}

// buildHash makes a hash of pairs (field, value ...); a repeated field is
// corrupt.
func buildHash(pairs [][]byte, enc *Encodings) (Value, bool) {
	h := &hashValue{}
	if len(pairs)/2 > enc.HashMaxListpackEntries {
		h.convert()
	}
	for j := 0; j+1 < len(pairs); j += 2 {
		if !h.set(pairs[j], pairs[j+1], enc) {
			return Value{}, false
		}
	}
	return obj(kindHash, h), true
}

func readZSet(r *rdbfmt.Reader, t byte, enc *Encodings) (Value, bool) {
	n, ok := count(r, 2)
	if !ok {
		return Value{}, false
	}
	items := make([]zitem, 0, n)
	for ; n > 0; n-- {
		m, ok := r.String()
		if !ok {
			return Value{}, false
		}
		var score float64
		if t == RDBTypeZSet2 {
			b, ok := r.Take(8)
			if !ok {
				return Value{}, false
			}
			score = math.Float64frombits(binary.LittleEndian.Uint64(b))
		} else if score, ok = readOldDouble(r); !ok {
			return Value{}, false
		}
		if math.IsNaN(score) {
			return Value{}, false
		}
		items = append(items, zitem{score, string(m)})
	}
	return buildZSet(items, enc)
}

// readOldDouble is rdbLoadDoubleValue: a length byte (253 nan, 254 inf,
// 255 -inf) and that many bytes of decimal text.
func readOldDouble(r *rdbfmt.Reader) (float64, bool) {
	c, ok := r.Byte()
	if !ok {
		return 0, false
	}
	switch c {
	case 253:
		return math.NaN(), true
	case 254:
		return math.Inf(1), true
	case 255:
		return math.Inf(-1), true
	}
	b, ok := r.Take(int(c))
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(b), 64)
	return f, err == nil
}

// buildZSet makes a sorted set of items; a repeated member is corrupt.
func buildZSet(items []zitem, enc *Encodings) (Value, bool) {
	slices.SortFunc(items, func(a, b zitem) int {
		switch {
		case a.member < b.member:
			return -1
		case a.member > b.member:
			return 1
		}
		return 0
	})
	maxLen := 0
	for i := range items {
		if i > 0 && items[i].member == items[i-1].member {
			return Value{}, false
		}
		maxLen = max(maxLen, len(items[i].member))
	}
	slices.SortFunc(items, func(a, b zitem) int {
		if zless(a, b) {
			return -1
		}
		return 1
	})
	z := &zsetValue{}
	if len(items) <= enc.ZSetMaxListpackEntries && maxLen <= enc.ZSetMaxListpackValue {
		for _, it := range items {
			z.put([]byte(it.member), it.score, enc)
		}
	} else {
		z.loadSorted(func(f func(m []byte, s float64) bool) {
			for _, it := range items {
				if !f([]byte(it.member), it.score) {
					return
				}
			}
		})
	}
	return obj(kindZSet, z), true
}

func readQuicklist(r *rdbfmt.Reader, t byte, enc *Encodings) (Value, bool) {
	n, ok := count(r, 2)
	if !ok {
		return Value{}, false
	}
	l := newList(enc)
	for ; n > 0; n-- {
		container := uint64(qlPacked)
		if t == RDBTypeListQuicklist2 {
			c, _, ok := r.Len()
			if !ok || c != qlPacked && c != qlPlain {
				return Value{}, false
			}
			container = c
		}
		data, ok := r.String()
		if !ok || len(data) == 0 {
			return Value{}, false
		}
		if container == qlPlain {
			l.pushBack(data)
			continue
		}
		var elems [][]byte
		if t == RDBTypeListQuicklist2 {
			elems, ok = listpackStrings(data)
		} else {
			elems, ok = readZiplist(data)
		}
		if !ok {
			return Value{}, false
		}
		for _, e := range elems {
			l.pushBack(e)
		}
	}
	return obj(kindList, l), true
}

// readBlob reads the types whose whole value is one string: a listpack,
// ziplist, zipmap or intset.
func readBlob(blob []byte, t byte, enc *Encodings) (Value, bool) {
	switch t {
	case RDBTypeSetIntset:
		w, ms, ok := readIntset(blob)
		if !ok {
			return Value{}, false
		}
		s := &setValue{ints: intset.FromBlob(w, blob[8:])}
		if len(ms) > enc.SetMaxIntsetEntries {
			s.convert()
		}
		return obj(kindSet, s), true
	case RDBTypeListZiplist:
		elems, ok := readZiplist(blob)
		if !ok {
			return Value{}, false
		}
		l := newList(enc)
		for _, e := range elems {
			l.pushBack(e)
		}
		return obj(kindList, l), true
	}
	var elems [][]byte
	var ok bool
	switch t {
	case RDBTypeHashZipmap:
		elems, ok = readZipmap(blob)
	case RDBTypeHashZiplist, RDBTypeZSetZiplist:
		elems, ok = readZiplist(blob)
	default:
		elems, ok = listpackStrings(blob)
	}
	if !ok || len(elems)%2 != 0 {
		return Value{}, false
	}
	if t == RDBTypeZSetZiplist || t == RDBTypeZSetListpack {
		items := make([]zitem, 0, len(elems)/2)
		for j := 0; j < len(elems); j += 2 {
			f, n := redisstr.Strtod(string(elems[j+1]))
			if n != len(elems[j+1]) || math.IsNaN(f) {
				return Value{}, false
			}
			items = append(items, zitem{f, string(elems[j])})
		}
		return buildZSet(items, enc)
	}
	return buildHash(elems, enc)
}

// readStream reads a stream (RDB_TYPE_STREAM_LISTPACKS and _2) and checks
// what minilock's stream relies on beyond Redis's own checks: nodes and
// entries in ascending ID order, each node's counts as its entries' flags
// say, the length the sum of live entries, every pending entry owned.
func readStream(r *rdbfmt.Reader, t byte) (Value, bool) {
	nn, _, ok := r.Len()
	if !ok || nn > uint64(r.Remaining()/2) {
		return Value{}, false
	}
	s := &streamValue{}
	var prev streamID
	any := false
	for ; nn > 0; nn-- {
		key, ok := r.String()
		if !ok || len(key) != 16 {
			return Value{}, false
		}
		master := streamID{binary.BigEndian.Uint64(key), binary.BigEndian.Uint64(key[8:])}
		lp, ok := r.String()
		if !ok {
			return Value{}, false
		}
		n, ok := readStreamNode(master, lp)
		if !ok || any && n.master.cmp(prev) <= 0 {
			return Value{}, false
		}
		prev, any = n.last, true
		s.nodes = append(s.nodes, n)
		s.bytes += n.size()
	}
	var meta [8]uint64
	fields := meta[:3]
	if t == RDBTypeStreamListpacks2 {
		fields = meta[:8]
	}
	for i := range fields {
		if fields[i], _, ok = r.Len(); !ok {
			return Value{}, false
		}
	}
	s.length = meta[0]
	s.lastID = streamID{meta[1], meta[2]}
	live := uint64(0)
	for _, n := range s.nodes {
		live += uint64(n.live)
	}
	if live != s.length || any && prev.cmp(s.lastID) > 0 {
		return Value{}, false
	}
	if t == RDBTypeStreamListpacks2 {
		s.firstID = streamID{meta[3], meta[4]}
		s.maxDeleted = streamID{meta[5], meta[6]}
		s.entriesAdded = meta[7]
	} else {
		s.entriesAdded = s.length
		s.firstID = s.edge(true)
	}
	ng, _, ok := r.Len()
	if !ok || ng > uint64(r.Remaining()/4) {
		return Value{}, false
	}
	for ; ng > 0; ng-- {
		g, ok := readStreamGroup(r, t, s)
		if !ok {
			return Value{}, false
		}
		g2, i := s.group([]byte(g.name))
		if g2 != nil {
			return Value{}, false // "Duplicated consumer group name"
		}
		s.groups = slices.Insert(s.groups, i, g)
	}
	return obj(kindStream, s), true
}

// readStreamNode rebuilds a node from its listpack
// (streamValidateListpackIntegrity's walk).
func readStreamNode(master streamID, lp []byte) (*streamNode, bool) {
	var elems []lpElem
	if !readListpack(lp, func(e lpElem) bool { elems = append(elems, e); return true }) {
		return nil, false
	}
	p := 0
	next := func() (lpElem, bool) {
		if p >= len(elems) {
			return lpElem{}, false
		}
		p++
		return elems[p-1], true
	}
	nextInt := func() (int64, bool) {
		e, ok := next()
		if !ok {
			return 0, false
		}
		return e.integer()
	}
	liveN, ok1 := nextInt()
	deadN, ok2 := nextInt()
	mf, ok3 := nextInt()
	if !ok1 || !ok2 || !ok3 || liveN < 1 || deadN < 0 || mf < 0 || mf > int64(len(elems)) {
		return nil, false
	}
	mpairs := make([][]byte, 0, 2*mf)
	for j := int64(0); j < mf; j++ {
		e, ok := next()
		if !ok {
			return nil, false
		}
		mpairs = append(mpairs, e.text(), nil)
	}
	if z, ok := nextInt(); !ok || z != 0 {
		return nil, false
	}
	n := newStreamNode(master, mpairs)
	var last streamID
	for total := liveN + deadN; total > 0; total-- {
		flags, ok1 := nextInt()
		dms, ok2 := nextInt()
		dseq, ok3 := nextInt()
		if !ok1 || !ok2 || !ok3 || flags < 0 || flags > 3 {
			return nil, false
		}
		id := streamID{master.ms + uint64(dms), master.seq + uint64(dseq)}
		if id.cmp(master) < 0 || n.live+n.dead > 0 && id.cmp(last) <= 0 {
			return nil, false
		}
		fields, extra := mf, int64(3)
		same := flags&streamSameFields != 0
		if !same {
			var ok bool
			if fields, ok = nextInt(); !ok || fields < 0 || fields > int64(len(elems)) {
				return nil, false
			}
			extra += fields + 1
		}
		pairs := make([][]byte, 0, 2*fields)
		for j := int64(0); j < fields; j++ {
			var f []byte
			if same {
				f = mpairs[2*j] // fields == mf
			} else {
				e, ok := next()
				if !ok {
					return nil, false
				}
				f = e.text()
			}
			e, ok := next()
			if !ok {
				return nil, false
			}
			pairs = append(pairs, f, e.text())
		}
		if c, ok := nextInt(); !ok || c != fields+extra {
			return nil, false
		}
		// A node's fields decide its entries' encoding here as in Redis:
		// an entry flagged with the master's fields must have them.
		if n.sameFields(pairs) != same {
			return nil, false
		}
		off := len(n.b)
		n.add(id, pairs)
		if flags&streamDeleted != 0 {
			n.markDeleted(off)
		}
		last = id
	}
	if p != len(elems) || int64(n.live) != liveN || int64(n.dead) != deadN {
		return nil, false
	}
	n.b = slices.Clip(n.b)
	return n, true
}

func readStreamGroup(r *rdbfmt.Reader, t byte, s *streamValue) (*streamCG, bool) {
	name, ok := r.String()
	if !ok {
		return nil, false
	}
	g := &streamCG{name: string(name), entriesRead: streamInvalidRead}
	var ms, seq uint64
	var ok1, ok2 bool
	ms, _, ok1 = r.Len()
	seq, _, ok2 = r.Len()
	if !ok1 || !ok2 {
		return nil, false
	}
	g.lastID = streamID{ms, seq}
	if t == RDBTypeStreamListpacks2 {
		er, _, ok := r.Len()
		if !ok {
			return nil, false
		}
		g.entriesRead = int64(er)
	} else {
		g.entriesRead = s.estimateDistance(g.lastID)
	}
	s.bytes += streamGroupBytes + int64(len(g.name))
	np, _, ok := r.Len()
	if !ok || np > uint64(r.Remaining()/(16+8+1)) {
		return nil, false
	}
	g.pel = make(pel, 0, np)
	for ; np > 0; np-- {
		raw, ok := r.Take(16)
		if !ok {
			return nil, false
		}
		id := streamID{binary.BigEndian.Uint64(raw), binary.BigEndian.Uint64(raw[8:])}
		tb, ok1 := r.Take(8)
		cnt, _, ok2 := r.Len()
		if !ok1 || !ok2 {
			return nil, false
		}
		if k := len(g.pel); k > 0 && g.pel[k-1].id.cmp(id) >= 0 {
			return nil, false // rax order, no repeats
		}
		g.pel = append(g.pel, &streamNACK{id: id, time: int64(binary.LittleEndian.Uint64(tb)), count: cnt})
		s.bytes += streamNACKBytes
	}
	nc, _, ok := r.Len()
	if !ok || nc > uint64(r.Remaining()/(1+8+1)) {
		return nil, false
	}
	for ; nc > 0; nc-- {
		cname, ok := r.String()
		if !ok {
			return nil, false
		}
		seen, ok := r.Take(8)
		if !ok {
			return nil, false
		}
		c, i := g.consumer(cname)
		if c != nil {
			return nil, false // "Duplicate stream consumer detected."
		}
		c = g.addConsumer(cname, i, int64(binary.LittleEndian.Uint64(seen)))
		s.bytes += streamConsumerBytes + int64(len(cname))
		np, _, ok := r.Len()
		if !ok || np > uint64(r.Remaining()/16) {
			return nil, false
		}
		for ; np > 0; np-- {
			raw, ok := r.Take(16)
			if !ok {
				return nil, false
			}
			id := streamID{binary.BigEndian.Uint64(raw), binary.BigEndian.Uint64(raw[8:])}
			j, found := g.pel.search(id)
			if !found || g.pel[j].consumer != nil {
				return nil, false
			}
			g.pel[j].consumer = c
			c.pel = append(c.pel, g.pel[j])
		}
	}
	for _, nack := range g.pel {
		if nack.consumer == nil {
			return nil, false // "Stream CG PEL entry without consumer"
		}
	}
	for _, c := range g.consumers {
		slices.SortFunc(c.pel, func(a, b *streamNACK) int { return a.id.cmp(b.id) })
	}
	return g, true
}
