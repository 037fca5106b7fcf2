package keyspace

import (
	"math"

	"github.com/minilock/minilock/internal/redisstr"
	"github.com/minilock/minilock/resp"
)

// Consumer groups (t_stream.c): XGROUP, XACK, XPENDING, XCLAIM,
// XAUTOCLAIM, XINFO, and XREAD and XREADGROUP. Redis signals none of these
// to WATCH but XGROUP CREATE's MKSTREAM, so they count memory with recount.

func noGroupErr(msg string) error { return &resp.Error{Code: "NOGROUP", Msg: msg} }

// nackAdd records nack pending for c in g.
func (s *streamValue) nackAdd(g *streamCG, c *streamConsumer, n *streamNACK) {
	if i, ok := g.pel.search(n.id); !ok {
		g.pel.insert(i, n)
		s.bytes += streamNACKBytes
	}
	n.consumer = c
	if i, ok := c.pel.search(n.id); !ok {
		c.pel.insert(i, n)
	}
}

// nackDrop forgets a pending entry in its group and its consumer.
func (s *streamValue) nackDrop(g *streamCG, n *streamNACK) {
	g.pel.remove(n.id)
	if n.consumer != nil {
		n.consumer.pel.remove(n.id)
	}
	s.bytes -= streamNACKBytes
}

// consumerFor looks consumer name up in g (refreshing its seen-time) or
// creates it, with the xgroup-createconsumer event
// (streamLookupConsumer + streamCreateConsumer).
func (k *Keyspace) consumerFor(c *Ctx, key []byte, s *streamValue, g *streamCG, name []byte) *streamConsumer {
	sc, at := g.consumer(name)
	if sc != nil {
		sc.seenTime = c.Now
		return sc
	}
	sc = g.addConsumer(name, at, c.Now)
	s.bytes += streamConsumerBytes + int64(len(name))
	k.notify(NotifyStream, "xgroup-createconsumer", key, c.DB)
	return sc
}

// XGROUP CREATE|SETID|DESTROY|CREATECONSUMER|DELCONSUMER|HELP ...
func CmdXGroup(k *Keyspace, c *Ctx, args [][]byte) error {
	opt := args[1]
	syntaxErr := resp.NewError("unknown subcommand or wrong number of arguments for '" + redisstr.CString(opt) + "'. Try XGROUP HELP.")
	var s *streamValue
	var o *object
	var g *streamCG
	mkstream := false
	entriesRead := int64(streamInvalidRead)
	isCreate, isSetID := redisstr.Option(opt, "create"), redisstr.Option(opt, "setid")
	if len(args) >= 4 {
		for i := 5; i < len(args); {
			switch {
			case isCreate && redisstr.Option(args[i], "mkstream"):
				mkstream = true
				i++
			case (isCreate || isSetID) && redisstr.Option(args[i], "entriesread") && i+1 < len(args):
				n, err := intArg(args[i+1])
				if err != nil {
					return err
				}
				if n < 0 && n != streamInvalidRead {
					return resp.NewError("value for ENTRIESREAD must be positive or -1")
				}
				entriesRead = n
				i += 2
			default:
				return syntaxErr
			}
		}
		var err error
		if s, o, _, err = k.streamOf(c, args[2], false); err != nil {
			return err
		}
		if !mkstream {
			if s == nil {
				return resp.NewError("The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically.")
			}
			if g, _ = s.group(args[3]); g == nil && (isSetID || redisstr.Option(opt, "createconsumer") || redisstr.Option(opt, "delconsumer")) {
				return noGroupErr("No such consumer group '" + redisstr.CString(args[3]) + "' for key name '" + redisstr.CString(args[2]) + "'")
			}
		}
	}
	switch {
	case len(args) == 2 && redisstr.Option(opt, "help"):
		lines := []string{
			"XGROUP <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
			"CREATE <key> <groupname> <id|$> [option]",
			"    Create a new consumer group. Options are:",
			"    * MKSTREAM",
			"      Create the empty stream if it does not exist.",
			"    * ENTRIESREAD entries_read",
			"      Set the group's entries_read counter (internal use).",
			"CREATECONSUMER <key> <groupname> <consumer>",
			"    Create a new consumer in the specified group.",
			"DELCONSUMER <key> <groupname> <consumer>",
			"    Remove the specified consumer.",
			"DESTROY <key> <groupname>",
			"    Remove the specified group.",
			"SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
			"    Set the current group ID and entries_read counter.",
			"HELP",
			"    Prints this help.",
		}
		c.W.Array(len(lines))
		for _, l := range lines {
			c.W.Status(l)
		}
	case isCreate && len(args) >= 5 && len(args) <= 8:
		var id streamID
		if string(args[4]) == "$" {
			if s != nil {
				id = s.lastID
			}
		} else {
			var err error
			if id, err = parseStreamID(args[4], 0, true, nil); err != nil {
				return err
			}
		}
		if s == nil {
			s = &streamValue{}
			var i uint32
			o, i = k.create(c, args[2], kindStream, s)
			k.changed(c, args[2], i, o)
		}
		if g, at := s.group(args[3]); g == nil {
			g = &streamCG{name: string(args[3]), lastID: id, entriesRead: entriesRead}
			s.groups = append(s.groups, nil)
			copy(s.groups[at+1:], s.groups[at:])
			s.groups[at] = g
			s.bytes += streamGroupBytes + int64(len(args[3]))
			k.recount(c, o)
			c.W.OK()
			k.notify(NotifyStream, "xgroup-create", args[2], c.DB)
		} else {
			return &resp.Error{Code: "BUSYGROUP", Msg: "Consumer Group name already exists"}
		}
	case isSetID && (len(args) == 5 || len(args) == 7):
		id := s.lastID
		if string(args[4]) != "$" {
			var err error
			if id, err = parseStreamID(args[4], 0, false, nil); err != nil {
				return err
			}
		}
		g.lastID, g.entriesRead = id, entriesRead
		c.W.OK()
		k.notify(NotifyStream, "xgroup-setid", args[2], c.DB)
	case redisstr.Option(opt, "destroy") && len(args) == 4:
		if g == nil {
			c.W.Int(0)
			return nil
		}
		_, at := s.group(args[3])
		for _, sc := range g.consumers {
			s.bytes -= streamConsumerBytes + int64(len(sc.name))
		}
		s.bytes -= int64(len(g.pel))*streamNACKBytes + streamGroupBytes + int64(len(g.name))
		copy(s.groups[at:], s.groups[at+1:])
		s.groups[len(s.groups)-1] = nil
		s.groups = s.groups[:len(s.groups)-1]
		k.recount(c, o)
		c.W.Int(1)
		k.notify(NotifyStream, "xgroup-destroy", args[2], c.DB)
		k.signalReady(c.DB, args[2], kindStream)
	case redisstr.Option(opt, "createconsumer") && len(args) == 5:
		if sc, _ := g.consumer(args[4]); sc != nil {
			c.W.Int(0)
			return nil
		}
		k.consumerFor(c, args[2], s, g, args[4])
		k.recount(c, o)
		c.W.Int(1)
	case redisstr.Option(opt, "delconsumer") && len(args) == 5:
		sc, at := g.consumer(args[4])
		if sc == nil {
			c.W.Int(0)
			return nil
		}
		pending := len(sc.pel)
		for _, n := range append(pel(nil), sc.pel...) {
			s.nackDrop(g, n)
		}
		copy(g.consumers[at:], g.consumers[at+1:])
		g.consumers[len(g.consumers)-1] = nil
		g.consumers = g.consumers[:len(g.consumers)-1]
		s.bytes -= streamConsumerBytes + int64(len(sc.name))
		k.recount(c, o)
		k.notify(NotifyStream, "xgroup-delconsumer", args[2], c.DB)
		c.W.Int(int64(pending))
	default:
		return syntaxErr
	}
	return nil
}

// XACK key group id [id ...]
func CmdXAck(k *Keyspace, c *Ctx, args [][]byte) error {
	s, o, g, err := k.groupOf(c, args[1], args[2])
	if err != nil {
		return err
	}
	if g == nil {
		c.W.Int(0)
		return nil
	}
	ids := make([]streamID, len(args)-3)
	for j := range ids {
		if ids[j], err = parseStreamID(args[j+3], 0, true, nil); err != nil {
			return err
		}
	}
	acked := 0
	for _, id := range ids {
		if i, ok := g.pel.search(id); ok {
			s.nackDrop(g, g.pel[i])
			acked++
		}
	}
	k.recount(c, o)
	c.W.Int(int64(acked))
	return nil
}

// XPENDING key group [[IDLE min-idle-time] start end count [consumer]]
func CmdXPending(k *Keyspace, c *Ctx, args [][]byte) error {
	justInfo := len(args) == 3
	if len(args) != 3 && (len(args) < 6 || len(args) > 9) {
		return resp.ErrSyntax
	}
	var start, end streamID
	var count, minIdle int64
	var consumerName []byte
	if len(args) >= 6 {
		at := 3
		if redisstr.Option(args[3], "idle") {
			var err error
			if minIdle, err = intArg(args[4]); err != nil {
				return err
			}
			if len(args) < 8 {
				return resp.ErrSyntax
			}
			at += 2
		}
		var err error
		if count, err = intArg(args[at+2]); err != nil {
			return err
		}
		count = max(count, 0)
		var ex bool
		if start, ex, err = parseIntervalID(args[at], 0); err != nil {
			return err
		}
		if ex && !start.incr() {
			return resp.NewError("invalid start ID for the interval")
		}
		if end, ex, err = parseIntervalID(args[at+1], math.MaxUint64); err != nil {
			return err
		}
		if ex && !end.decr() {
			return resp.NewError("invalid end ID for the interval")
		}
		if at+3 < len(args) {
			consumerName = args[at+3]
		}
	}
	_, _, g, err := k.groupOf(c, args[1], args[2])
	if err != nil {
		return err
	}
	if g == nil {
		return errNoGroup(args[1], args[2])
	}
	var buf [48]byte
	if justInfo {
		c.W.Array(4)
		c.W.Int(int64(len(g.pel)))
		if len(g.pel) == 0 {
			c.W.Null()
			c.W.Null()
			c.W.NullArray()
			return nil
		}
		c.W.Bulk(g.pel[0].id.appendTo(buf[:0]))
		c.W.Bulk(g.pel[len(g.pel)-1].id.appendTo(buf[:0]))
		n := 0
		for _, sc := range g.consumers {
			if len(sc.pel) > 0 {
				n++
			}
		}
		c.W.Array(n)
		for _, sc := range g.consumers {
			if len(sc.pel) > 0 {
				c.W.Array(2)
				c.W.BulkString(sc.name)
				c.W.Bulk(appendInt(buf[:0], int64(len(sc.pel))))
			}
		}
		return nil
	}
	p := g.pel
	if consumerName != nil {
		sc, _ := g.consumer(consumerName)
		if sc == nil {
			c.W.Array(0)
			return nil
		}
		p = sc.pel
	}
	var hits []*streamNACK
	i, _ := p.search(start)
	for ; count > 0 && i < len(p) && p[i].id.cmp(end) <= 0; i++ {
		if minIdle != 0 && c.Now-p[i].time < minIdle {
			continue
		}
		hits = append(hits, p[i])
		count--
	}
	c.W.Array(len(hits))
	for _, n := range hits {
		c.W.Array(4)
		c.W.Bulk(n.id.appendTo(buf[:0]))
		c.W.BulkString(n.consumer.name)
		c.W.Int(max(c.Now-n.time, 0))
		c.W.Int(int64(n.count))
	}
	return nil
}

// claimReply is one claimed entry: its ID, and the node and entry to
// reply with unless JUSTID.
type claimReply struct {
	id streamID
	n  *streamNode
	e  sentry
}

func writeClaimed(w *resp.Writer, out []claimReply, justID bool) {
	w.Array(len(out))
	var buf [48]byte
	for j := range out {
		if justID {
			w.Bulk(out[j].id.appendTo(buf[:0]))
		} else {
			writeEntry(w, out[j].n, &out[j].e)
		}
	}
}

// XCLAIM key group consumer min-idle-time id [id ...] [IDLE ms] [TIME unix-time-milliseconds] [RETRYCOUNT count] [FORCE] [JUSTID] [LASTID lastid]
func CmdXClaim(k *Keyspace, c *Ctx, args [][]byte) error {
	s, o, g, err := k.groupOf(c, args[1], args[2])
	if err != nil {
		return err
	}
	if g == nil {
		return errNoGroup(args[1], args[2])
	}
	minIdle, ok := redisstr.ParseInt(args[4])
	if !ok {
		return resp.NewError("Invalid min-idle-time argument for XCLAIM")
	}
	minIdle = max(minIdle, 0)
	j := 5
	var ids []streamID
	for ; j < len(args); j++ {
		id, err := parseStreamID(args[j], 0, true, nil)
		if err != nil {
			break
		}
		ids = append(ids, id)
	}
	now := c.Now
	retry, delivery := int64(-1), int64(-1)
	force, justID := false, false
	var lastID streamID
	for ; j < len(args); j++ {
		more := len(args) - 1 - j
		opt := args[j]
		switch {
		case redisstr.Option(opt, "force"):
			force = true
		case redisstr.Option(opt, "justid"):
			justID = true
		case redisstr.Option(opt, "idle") && more > 0:
			j++
			n, ok := redisstr.ParseInt(args[j])
			if !ok {
				return resp.NewError("Invalid IDLE option argument for XCLAIM")
			}
			delivery = now - n
		case redisstr.Option(opt, "time") && more > 0:
			j++
			n, ok := redisstr.ParseInt(args[j])
			if !ok {
				return resp.NewError("Invalid TIME option argument for XCLAIM")
			}
			delivery = n
		case redisstr.Option(opt, "retrycount") && more > 0:
			j++
			n, ok := redisstr.ParseInt(args[j])
			if !ok {
				return resp.NewError("Invalid RETRYCOUNT option argument for XCLAIM")
			}
			retry = n
		case redisstr.Option(opt, "lastid") && more > 0:
			j++
			if lastID, err = parseStreamID(args[j], 0, true, nil); err != nil {
				return err
			}
		default:
			return resp.NewError("Unrecognized XCLAIM option '" + redisstr.CString(opt) + "'")
		}
	}
	if lastID.cmp(g.lastID) > 0 {
		g.lastID = lastID
	}
	if delivery == -1 || delivery < 0 || delivery > now {
		delivery = now
	}
	var consumer *streamConsumer
	var out []claimReply
	for _, id := range ids {
		pi, found := g.pel.search(id)
		ni, e, exists := s.find(id)
		if !exists {
			if found {
				s.nackDrop(g, g.pel[pi])
			}
			continue
		}
		var nack *streamNACK
		if found {
			nack = g.pel[pi]
		} else if force {
			nack = &streamNACK{id: id, time: now, count: 1} // streamCreateNACK
			g.pel.insert(pi, nack)
			s.bytes += streamNACKBytes
		} else {
			continue
		}
		if nack.consumer != nil && minIdle != 0 && now-nack.time < minIdle {
			continue
		}
		if consumer == nil {
			consumer = k.consumerFor(c, args[1], s, g, args[3])
		}
		if nack.consumer != consumer && nack.consumer != nil {
			nack.consumer.pel.remove(id)
		}
		nack.time = delivery
		if retry >= 0 {
			nack.count = uint64(retry)
		} else if !justID {
			nack.count++
		}
		if nack.consumer != consumer {
			s.nackAdd(g, consumer, nack)
		}
		out = append(out, claimReply{id, s.nodes[ni], e})
	}
	k.recount(c, o)
	writeClaimed(c.W, out, justID)
	return nil
}

// XAUTOCLAIM key group consumer min-idle-time start [COUNT count] [JUSTID]
func CmdXAutoClaim(k *Keyspace, c *Ctx, args [][]byte) error {
	minIdle, ok := redisstr.ParseInt(args[4])
	if !ok {
		return resp.NewError("Invalid min-idle-time argument for XAUTOCLAIM")
	}
	minIdle = max(minIdle, 0)
	start, ex, err := parseIntervalID(args[5], 0)
	if err != nil {
		return err
	}
	if ex && !start.incr() {
		return resp.NewError("invalid start ID for the interval")
	}
	count := int64(100)
	justID := false
	for j := 6; j < len(args); j++ {
		more := len(args) - 1 - j
		switch {
		case redisstr.Option(args[j], "count") && more > 0:
			n, ok := redisstr.ParseInt(args[j+1])
			if !ok || n < 1 || n > math.MaxInt64/16 {
				return resp.NewError("COUNT must be > 0")
			}
			count = n
			j++
		case redisstr.Option(args[j], "justid"):
			justID = true
		default:
			return resp.ErrSyntax
		}
	}
	s, o, g, err := k.groupOf(c, args[1], args[2])
	if err != nil {
		return err
	}
	if g == nil {
		return errNoGroup(args[1], args[2])
	}
	attempts := count * 10
	now := c.Now
	var consumer *streamConsumer
	var out []claimReply
	var deleted []streamID
	i, _ := g.pel.search(start)
	for ; attempts > 0 && count > 0 && i < len(g.pel); attempts-- {
		nack := g.pel[i]
		ni, e, exists := s.find(nack.id)
		if !exists {
			deleted = append(deleted, nack.id)
			s.nackDrop(g, nack)
			count--
			continue
		}
		i++
		if minIdle != 0 && now-nack.time < minIdle {
			continue
		}
		if consumer == nil {
			consumer = k.consumerFor(c, args[1], s, g, args[3])
		}
		if nack.consumer != consumer && nack.consumer != nil {
			nack.consumer.pel.remove(nack.id)
		}
		nack.time = now
		if !justID {
			nack.count++
		}
		if nack.consumer != consumer {
			s.nackAdd(g, consumer, nack)
		}
		out = append(out, claimReply{nack.id, s.nodes[ni], e})
		count--
	}
	var next streamID
	if i < len(g.pel) {
		next = g.pel[i].id
	}
	k.recount(c, o)
	var buf [48]byte
	c.W.Array(3)
	c.W.Bulk(next.appendTo(buf[:0]))
	writeClaimed(c.W, out, justID)
	c.W.Array(len(deleted))
	for _, id := range deleted {
		c.W.Bulk(id.appendTo(buf[:0]))
	}
	return nil
}

// writeLag replies with g's lag, or a null when it cannot be known
// (streamReplyWithCGLag).
func writeLag(w *resp.Writer, s *streamValue, g *streamCG) {
	switch {
	case s.entriesAdded == 0:
		w.Int(0)
	case g.entriesRead != streamInvalidRead && !s.rangeHasTombstones(g.lastID, nil):
		w.Int(int64(s.entriesAdded) - g.entriesRead)
	default:
		if read := s.estimateDistance(g.lastID); read != streamInvalidRead {
			w.Int(int64(s.entriesAdded) - read)
		} else {
			w.Null()
		}
	}
}

func writeEntriesRead(w *resp.Writer, g *streamCG) {
	if g.entriesRead != streamInvalidRead {
		w.Int(g.entriesRead)
	} else {
		w.Null()
	}
}

// XINFO STREAM|GROUPS|CONSUMERS|HELP ...
func CmdXInfo(k *Keyspace, c *Ctx, args [][]byte) error {
	opt := args[1]
	syntaxErr := resp.NewError("unknown subcommand or wrong number of arguments for '" + redisstr.CString(opt) + "'. Try XINFO HELP.")
	if redisstr.Option(opt, "help") {
		if len(args) != 2 {
			return syntaxErr
		}
		lines := []string{
			"XINFO <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
			"CONSUMERS <key> <groupname>",
			"    Show consumers of <groupname>.",
			"GROUPS <key>",
			"    Show the stream consumer groups.",
			"STREAM <key> [FULL [COUNT <count>]",
			"    Show information about the stream.",
			"HELP",
			"    Prints this help.",
		}
		c.W.Array(len(lines))
		for _, l := range lines {
			c.W.Status(l)
		}
		return nil
	} else if len(args) < 3 {
		return syntaxErr
	}
	key := args[2]
	s, _, _, err := k.streamOf(c, key, true)
	if err != nil {
		return err
	}
	if s == nil {
		return errNoKey
	}
	var buf [48]byte
	w := c.W
	switch {
	case redisstr.Option(opt, "consumers") && len(args) == 4:
		g, _ := s.group(args[3])
		if g == nil {
			return noGroupErr("No such consumer group '" + redisstr.CString(args[3]) + "' for key name '" + redisstr.CString(key) + "'")
		}
		w.Array(len(g.consumers))
		for _, sc := range g.consumers {
			w.Map(3)
			w.BulkString("name")
			w.BulkString(sc.name)
			w.BulkString("pending")
			w.Int(int64(len(sc.pel)))
			w.BulkString("idle")
			w.Int(max(c.Now-sc.seenTime, 0))
		}
	case redisstr.Option(opt, "groups") && len(args) == 3:
		w.Array(len(s.groups))
		for _, g := range s.groups {
			w.Map(6)
			w.BulkString("name")
			w.BulkString(g.name)
			w.BulkString("consumers")
			w.Int(int64(len(g.consumers)))
			w.BulkString("pending")
			w.Int(int64(len(g.pel)))
			w.BulkString("last-delivered-id")
			w.Bulk(g.lastID.appendTo(buf[:0]))
			w.BulkString("entries-read")
			writeEntriesRead(w, g)
			w.BulkString("lag")
			writeLag(w, s, g)
		}
	case redisstr.Option(opt, "stream"):
		return k.xinfoStream(c, s, args)
	default:
		return syntaxErr
	}
	return nil
}

func (k *Keyspace) xinfoStream(c *Ctx, s *streamValue, args [][]byte) error {
	syntaxErr := resp.NewError("unknown subcommand or wrong number of arguments for '" + redisstr.CString(args[1]) + "'. Try XINFO HELP.")
	full := false
	count := int64(10)
	if opts := args[3:]; len(opts) > 0 {
		if len(opts) != 1 && len(opts) != 3 || !redisstr.Option(opts[0], "full") {
			return syntaxErr
		}
		if len(opts) == 3 {
			if !redisstr.Option(opts[1], "count") {
				return syntaxErr
			}
			n, err := intArg(opts[2])
			if err != nil {
				return err
			}
			if n < 0 {
				n = 10
			}
			count = n
		}
		full = true
	}
	w := c.W
	var buf [48]byte
	if full {
		w.Map(9)
	} else {
		w.Map(10)
	}
	w.BulkString("length")
	w.Int(int64(s.length))
	w.BulkString("radix-tree-keys")
	w.Int(int64(len(s.nodes)))
	w.BulkString("radix-tree-nodes")
	w.Int(int64(s.raxNodes()))
	w.BulkString("last-generated-id")
	w.Bulk(s.lastID.appendTo(buf[:0]))
	w.BulkString("max-deleted-entry-id")
	w.Bulk(s.maxDeleted.appendTo(buf[:0]))
	w.BulkString("entries-added")
	w.Int(int64(s.entriesAdded))
	w.BulkString("recorded-first-entry-id")
	w.Bulk(s.firstID.appendTo(buf[:0]))
	if !full {
		w.BulkString("groups")
		w.Int(int64(len(s.groups)))
		for _, rev := range []bool{false, true} {
			if rev {
				w.BulkString("last-entry")
			} else {
				w.BulkString("first-entry")
			}
			found := false
			s.each(streamID{}, maxStreamID, rev, func(n *streamNode, e sentry) bool {
				writeEntry(w, n, &e)
				found = true
				return false
			})
			if !found {
				w.Null()
			}
		}
		return nil
	}
	w.BulkString("entries")
	k.replyRange(w, s, streamID{}, maxStreamID, func() int64 {
		if count == 0 {
			return -1
		}
		return count
	}(), false)
	w.BulkString("groups")
	w.Array(len(s.groups))
	limit := func(n int) int {
		if count != 0 && int64(n) > count {
			return int(count)
		}
		return n
	}
	for _, g := range s.groups {
		w.Map(7)
		w.BulkString("name")
		w.BulkString(g.name)
		w.BulkString("last-delivered-id")
		w.Bulk(g.lastID.appendTo(buf[:0]))
		w.BulkString("entries-read")
		writeEntriesRead(w, g)
		w.BulkString("lag")
		writeLag(w, s, g)
		w.BulkString("pel-count")
		w.Int(int64(len(g.pel)))
		w.BulkString("pending")
		w.Array(limit(len(g.pel)))
		for _, n := range g.pel[:limit(len(g.pel))] {
			w.Array(4)
			w.Bulk(n.id.appendTo(buf[:0]))
			w.BulkString(n.consumer.name)
			w.Int(n.time)
			w.Int(int64(n.count))
		}
		w.BulkString("consumers")
		w.Array(len(g.consumers))
		for _, sc := range g.consumers {
			w.Map(4)
			w.BulkString("name")
			w.BulkString(sc.name)
			w.BulkString("seen-time")
			w.Int(sc.seenTime)
			w.BulkString("pel-count")
			w.Int(int64(len(sc.pel)))
			w.BulkString("pending")
			w.Array(limit(len(sc.pel)))
			for _, n := range sc.pel[:limit(len(sc.pel))] {
				w.Array(3)
				w.Bulk(n.id.appendTo(buf[:0]))
				w.Int(n.time)
				w.Int(int64(n.count))
			}
		}
	}
	return nil
}

// raxNodes is the number of nodes of the radix tree Redis would hold for
// the nodes' first IDs as 128-bit big-endian keys (rax.c's numnodes): one
// per compressed run and per branching point, and a leaf per key.
func (s *streamValue) raxNodes() int {
	keys := make([][16]byte, len(s.nodes))
	for i, n := range s.nodes {
		for b := 0; b < 8; b++ {
			keys[i][b] = byte(n.master.ms >> (56 - 8*b))
			keys[i][8+b] = byte(n.master.seq >> (56 - 8*b))
		}
	}
	return raxCount(keys, 0)
}

func raxCount(keys [][16]byte, depth int) int {
	if len(keys) == 0 || depth == 16 {
		return 1
	}
	first, last := keys[0], keys[len(keys)-1]
	l := 0
	for depth+l < 16 && first[depth+l] == last[depth+l] {
		l++
	}
	if l > 0 {
		return 1 + raxCount(keys, depth+l)
	}
	n := 1
	for i := 0; i < len(keys); {
		j := i
		for j < len(keys) && keys[j][depth] == keys[i][depth] {
			j++
		}
		n += raxCount(keys[i:j], depth+1)
		i = j
	}
	return n
}
