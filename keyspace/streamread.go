package keyspace

import (
	"github.com/minilock/minilock/internal/redisstr"
	"github.com/minilock/minilock/resp"
)

// XREAD and XREADGROUP (t_stream.c's xreadCommand), and what the server
// needs to serve a reader it parked (blocked.c's
// serveClientsBlockedOnStreamKey).

// XReadRequest is a parsed XREAD or XREADGROUP that found nothing and
// asked to block: the server parks it on Keys and hands it back to
// ServeStreamReader when one becomes ready.
type XReadRequest struct {
	// Keys are the streams read; Timeout is BLOCK's, in milliseconds (0:
	// forever).
	Keys    [][]byte
	Timeout int64
	ids     []streamID // per key: the ID to read after; max for ">"
	count   int64
	group   []byte
	name    []byte
	noAck   bool
}

// Group reports whether the request is an XREADGROUP's.
func (r *XReadRequest) Group() bool { return r.group != nil }

// xreadBlockedCount is XREAD_BLOCKED_DEFAULT_COUNT.
const xreadBlockedCount = 1000

// parseMsTimeout reads BLOCK's milliseconds as getTimeoutFromObjectOrReply
// with UNIT_MILLISECONDS: an integer, not negative.
func parseMsTimeout(b []byte) (int64, error) {
	n, ok := redisstr.ParseInt(b)
	if !ok {
		return 0, resp.NewError("timeout is not an integer or out of range")
	}
	if n < 0 {
		return 0, resp.NewError("timeout is negative")
	}
	return n, nil
}

// XRead runs XREAD or XREADGROUP. It replies, unless the command asked to
// block and found nothing to serve: then it writes nothing and returns
// the request to park (when blocking is denied, a MULTI or a script, it
// replies a null array as a timeout would). inScript refuses BLOCK as
// Redis refuses it in scripts.
func (k *Keyspace) XRead(c *Ctx, args [][]byte, inScript, denyBlocking bool) (*XReadRequest, error) {
	group := len(args[0]) == 10
	r := &XReadRequest{Timeout: -1}
	streamsAt := 0
	nstreams := 0
	for i := 1; i < len(args); i++ {
		more := len(args) - i - 1
		o := args[i]
		switch {
		case redisstr.Option(o, "block") && more > 0:
			if inScript {
				return nil, resp.NewError(redisstr.CString(args[0]) + " command is not allowed with BLOCK option from scripts")
			}
			i++
			t, err := parseMsTimeout(args[i])
			if err != nil {
				return nil, err
			}
			r.Timeout = t
		case redisstr.Option(o, "count") && more > 0:
			i++
			n, err := intArg(args[i])
			if err != nil {
				return nil, err
			}
			r.count = max(n, 0)
		case redisstr.Option(o, "streams") && more > 0:
			streamsAt = i + 1
			nstreams = len(args) - streamsAt
			if nstreams%2 != 0 {
				return nil, resp.NewError("Unbalanced XREAD list of streams: for each stream key an ID or '$' must be specified.")
			}
			nstreams /= 2
			i = len(args)
		case redisstr.Option(o, "group") && more >= 2:
			if !group {
				return nil, resp.NewError("The GROUP option is only supported by XREADGROUP. You called XREAD instead.")
			}
			r.group, r.name = args[i+1], args[i+2]
			i += 2
		case redisstr.Option(o, "noack"):
			if !group {
				return nil, resp.NewError("The NOACK option is only supported by XREADGROUP. You called XREAD instead.")
			}
			r.noAck = true
		default:
			return nil, resp.ErrSyntax
		}
	}
	if streamsAt == 0 {
		return nil, resp.ErrSyntax
	}
	if group && r.group == nil {
		return nil, resp.NewError("Missing GROUP option for XREADGROUP")
	}
	r.Keys = args[streamsAt : streamsAt+nstreams]
	r.ids = make([]streamID, nstreams)
	groups := make([]*streamCG, nstreams)
	for i := range r.Keys {
		key, idArg := r.Keys[i], args[streamsAt+nstreams+i]
		s, _, _, err := k.streamOf(c, key, true)
		if err != nil {
			return nil, err
		}
		if r.group != nil {
			var g *streamCG
			if s != nil {
				g, _ = s.group(r.group)
			}
			if g == nil {
				return nil, noGroupErr("No such key '" + redisstr.CString(key) + "' or consumer group '" + redisstr.CString(r.group) + "' in XREADGROUP with GROUP option")
			}
			groups[i] = g
		}
		switch string(idArg) {
		case "$":
			if group {
				return nil, resp.NewError("The $ ID is meaningless in the context of XREADGROUP: you want to read the history of this consumer by specifying a proper ID, or use the > ID to get new messages. The $ ID would just return an empty result set.")
			}
			if s != nil {
				r.ids[i] = s.lastID
			}
			continue
		case ">":
			if !group {
				return nil, resp.NewError("The > ID can be specified only when calling XREADGROUP using the GROUP <group> <consumer> option.")
			}
			r.ids[i] = maxStreamID
			continue
		}
		id, err := parseStreamID(idArg, 0, true, nil)
		if err != nil {
			return nil, err
		}
		r.ids[i] = id
	}
	// Which streams can be served now, and from where.
	type serve struct {
		s       *streamValue
		o       *object
		after   streamID
		history bool
	}
	var served []int
	plan := make([]serve, nstreams)
	for i, key := range r.Keys {
		s, o, slot, _ := k.streamOf(c, key, true)
		if s == nil {
			continue
		}
		if r.group != nil {
			k.snapTouch(c.DB, slot) // a group read changes pending lists
		}
		gt := r.ids[i]
		ok, history := false, false
		if r.group != nil {
			if gt != maxStreamID {
				ok, history = true, true
			} else if s.length > 0 && s.edge(false).cmp(groups[i].lastID) > 0 {
				ok, gt = true, groups[i].lastID
			}
		} else if s.length > 0 && s.edge(false).cmp(gt) > 0 {
			ok = true
		}
		if ok {
			plan[i] = serve{s, o, gt, history}
			served = append(served, i)
		}
	}
	if len(served) > 0 {
		if c.W.RESP3() {
			c.W.Map(len(served))
		} else {
			c.W.Array(len(served))
		}
		for _, i := range served {
			p := plan[i]
			if !c.W.RESP3() {
				c.W.Array(2)
			}
			c.W.Bulk(r.Keys[i])
			var consumer *streamConsumer
			if r.group != nil {
				consumer = k.consumerFor(c, r.Keys[i], p.s, groups[i], r.name)
			}
			start := p.after
			start.incr()
			k.serveRange(c, p.s, start, r.count, groups[i], consumer, r.noAck, p.history)
			if p.o != nil {
				k.recount(c, p.o)
			}
		}
		return nil, nil
	}
	if r.Timeout == -1 || denyBlocking {
		c.W.NullArray()
		return nil, nil
	}
	if r.count == 0 {
		r.count = xreadBlockedCount
	}
	r.Keys = copyArgs(r.Keys)
	r.group, r.name = cloneBytes(r.group), cloneBytes(r.name)
	return r, nil
}

func copyArgs(a [][]byte) [][]byte {
	out := make([][]byte, len(a))
	for i, b := range a {
		out[i] = cloneBytes(b)
	}
	return out
}

func cloneBytes(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte{}, b...)
}

// serveRange replies with the entries after start (at most count; all
// when 0), delivering them to consumer of g when g is given
// (streamReplyWithRange), or with consumer's own pending entries from
// start when history.
func (k *Keyspace) serveRange(c *Ctx, s *streamValue, start streamID, count int64, g *streamCG, consumer *streamConsumer, noAck, history bool) {
	w := c.W
	if history {
		p := consumer.pel
		i, _ := p.search(start)
		end := len(p)
		if count > 0 && int64(end-i) > count {
			end = i + int(count)
		}
		w.Array(end - i)
		var buf [48]byte
		for _, nack := range append(pel(nil), p[i:end]...) {
			ni, e, ok := s.find(nack.id)
			if !ok {
				w.Array(2)
				w.Bulk(nack.id.appendTo(buf[:0]))
				w.NullArray()
				continue
			}
			writeEntry(w, s.nodes[ni], &e)
			nack.time = c.Now
			nack.count++
		}
		return
	}
	type hit struct {
		n *streamNode
		e sentry
	}
	var hits []hit
	s.each(start, maxStreamID, false, func(n *streamNode, e sentry) bool {
		hits = append(hits, hit{n, e})
		return count == 0 || int64(len(hits)) < count
	})
	w.Array(len(hits))
	for j := range hits {
		id := hits[j].e.id
		if g != nil && id.cmp(g.lastID) > 0 {
			if g.entriesRead != streamInvalidRead && !s.rangeHasTombstones(id, nil) {
				g.entriesRead++
			} else if s.entriesAdded != 0 {
				g.entriesRead = s.estimateDistance(id)
			}
			g.lastID = id
		}
		writeEntry(w, hits[j].n, &hits[j].e)
		if g != nil && !noAck {
			if i, ok := g.pel.search(id); ok {
				nack := g.pel[i]
				nack.consumer.pel.remove(id)
				nack.time, nack.count = c.Now, 1
				nack.consumer = nil
				s.nackAdd(g, consumer, nack)
			} else {
				s.nackAdd(g, consumer, &streamNACK{id: id, time: c.Now, count: 1})
			}
		}
	}
}

// ServeStreamReader serves a reader parked on key, now ready, as
// serveClientsBlockedOnStreamKey does: it reports false, writing nothing,
// when key holds no stream or nothing new for the reader, and replies a
// NOGROUP error when the reader's group is gone. The second result tells
// whether key holds a stream at all.
func (k *Keyspace) ServeStreamReader(c *Ctx, r *XReadRequest, key []byte) (served, isStream bool) {
	d := &k.dbs[c.DB]
	i, ok := d.lookup(key)
	if !ok || d.slots[i].expired(c.Now) || d.slots[i].kindOf() != kindStream {
		return false, false
	}
	if r.group != nil {
		k.snapTouch(c.DB, i) // a group read changes pending lists
	}
	o := d.slots[i].obj
	s := o.v.(*streamValue)
	at := 0
	for j, kk := range r.Keys {
		if string(kk) == string(key) {
			at = j
			break
		}
	}
	gt := &r.ids[at]
	var g *streamCG
	if r.group != nil {
		if g, _ = s.group(r.group); g == nil {
			c.W.Err(noGroupErr("the consumer group this client was blocked on no longer exists"))
			return true, true
		}
		*gt = g.lastID
	}
	if s.lastID.cmp(*gt) <= 0 {
		return false, true
	}
	start := *gt
	start.incr()
	var consumer *streamConsumer
	if g != nil {
		consumer = k.consumerFor(c, key, s, g, r.name)
	}
	if c.W.RESP3() {
		c.W.Map(1)
	} else {
		c.W.Array(1)
		c.W.Array(2)
	}
	c.W.Bulk(key)
	k.serveRange(c, s, start, r.count, g, consumer, r.noAck, false)
	k.recount(c, o)
	return true, true
}

// errStreamGone is the answer to an XREADGROUP parked on a key that was
// deleted or stopped being a stream.
var errStreamGone = &resp.Error{Code: "UNBLOCKED", Msg: "the stream key no longer exists"}

// ErrStreamGone is errStreamGone for the server.
func ErrStreamGone() error { return errStreamGone }
