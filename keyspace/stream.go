package keyspace

import (
	"bytes"
	"math"

	"github.com/minilock/minilock/internal/redisstr"
	"github.com/minilock/minilock/resp"
)

// Streams (t_stream.c): XADD, XRANGE, XREVRANGE, XLEN, XDEL, XTRIM and
// XSETID here; consumer groups and XREAD in streamgroup.go.

var (
	errInvalidStreamID = resp.NewError("Invalid stream ID specified as stream command argument")
	errXAddZero        = resp.NewError("The ID specified in XADD must be greater than 0-0")
	errXAddSmaller     = resp.NewError("The ID specified in XADD is equal or smaller than the target stream top item")
	errXAddExhausted   = resp.NewError("The stream has exhausted the last possible ID, unable to add more items")
	errXAddTooLarge    = resp.NewError("Elements are too large to be stored")
)

// streamOf finds key's stream: nil when missing, errWrongType for another
// type.
func (k *Keyspace) streamOf(c *Ctx, key []byte, read bool) (*streamValue, *object, uint32, error) {
	o, i, err := k.objectOf(c, key, kindStream, read)
	if o == nil || err != nil {
		return nil, nil, 0, err
	}
	return o.v.(*streamValue), o, i, nil
}

// groupOf finds the stream at key and its consumer group, looked up for
// reading as the group commands do; g is nil when either is missing.
func (k *Keyspace) groupOf(c *Ctx, key, group []byte) (*streamValue, *object, *streamCG, error) {
	s, o, _, err := k.streamOf(c, key, true)
	if err != nil || s == nil {
		return s, o, nil, err
	}
	g, _ := s.group(group)
	return s, o, g, nil
}

// errNoGroup is the NOGROUP error of a command whose key or group is
// missing.
func errNoGroup(key, group []byte) error {
	return noGroupErr("No such key '" + redisstr.CString(key) + "' or consumer group '" + redisstr.CString(group) + "'")
}

// recount brings the memory count up to o's size without telling
// watchers: a stream change Redis does not signal (XSETID, XREADGROUP).
func (k *Keyspace) recount(c *Ctx, o *object) {
	n := o.v.size()
	k.dbs[c.DB].account(n - o.counted)
	o.counted = n
}

// string2ull is util.c's: string2ll for a non-negative value, else what
// strtoull accepts in full (spaces, a sign, leading zeros; a minus
// negates), no overflow.
func string2ull(s []byte) (uint64, bool) {
	if n, ok := redisstr.ParseInt(s); ok {
		return uint64(n), n >= 0
	}
	i := 0
	for i < len(s) && (s[i] == ' ' || (s[i] >= '\t' && s[i] <= '\r')) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	if i == len(s) {
		return 0, false
	}
	var v uint64
	for ; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if v > (math.MaxUint64-d)/10 {
			return 0, false
		}
		v = v*10 + d
	}
	if neg {
		v = -v
	}
	return v, true
}

// parseStreamID is streamGenericParseIDOrReply: <ms>-<seq>, <ms> (seq
// missingSeq), "-" and "+" unless strict, and, when seqGiven is not nil,
// <ms>-* (which clears *seqGiven).
func parseStreamID(b []byte, missingSeq uint64, strict bool, seqGiven *bool) (streamID, error) {
	if len(b) > 127 {
		return streamID{}, errInvalidStreamID
	}
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i] // Redis reads a C string
	}
	if strict && len(b) == 1 && (b[0] == '-' || b[0] == '+') {
		return streamID{}, errInvalidStreamID
	}
	if seqGiven != nil {
		*seqGiven = true
	}
	if len(b) == 1 && b[0] == '-' {
		return streamID{}, nil
	}
	if len(b) == 1 && b[0] == '+' {
		return maxStreamID, nil
	}
	msPart, seqPart, dash := bytes.Cut(b, []byte{'-'})
	ms, ok := string2ull(msPart)
	if !ok {
		return streamID{}, errInvalidStreamID
	}
	seq := missingSeq
	if dash {
		if seqGiven != nil && len(seqPart) == 1 && seqPart[0] == '*' {
			seq, *seqGiven = 0, false
		} else if seq, ok = string2ull(seqPart); !ok {
			return streamID{}, errInvalidStreamID
		}
	}
	return streamID{ms, seq}, nil
}

// parseIntervalID is streamParseIntervalIDOrReply: a "(" prefix makes the
// bound exclusive (and the ID strict).
func parseIntervalID(b []byte, missingSeq uint64) (streamID, bool, error) {
	if len(b) > 1 && b[0] == '(' {
		id, err := parseStreamID(b[1:], missingSeq, true, nil)
		return id, true, err
	}
	id, err := parseStreamID(b, missingSeq, false, nil)
	return id, false, err
}

// xaddArgs is what XADD's options say beside trimming.
type xaddArgs struct {
	trimArgs
	id         streamID
	idGiven    bool
	seqGiven   bool
	noMkStream bool
}

// parseAddOrTrim is streamParseAddOrTrimArgsOrReply: it returns the
// position of XADD's ID.
func (k *Keyspace) parseAddOrTrim(args [][]byte, a *xaddArgs, xadd bool) (int, error) {
	i := 2
	limitGiven := false
	for ; i < len(args); i++ {
		more := len(args) - 1 - i
		opt := args[i]
		switch {
		case xadd && len(opt) >= 1 && opt[0] == '*' && (len(opt) == 1 || opt[1] == 0):
			return k.finishTrimArgs(a, i, limitGiven, xadd)
		case redisstr.Option(opt, "maxlen") && more > 0, redisstr.Option(opt, "minid") && more > 0:
			if a.strategy != trimNone {
				return 0, resp.NewError("syntax error, MAXLEN and MINID options at the same time are not compatible")
			}
			a.approx = false
			next := args[i+1]
			if more >= 2 && len(next) >= 1 && next[0] == '~' && (len(next) == 1 || next[1] == 0) {
				a.approx = true
				i++
			} else if more >= 2 && len(next) >= 1 && next[0] == '=' && (len(next) == 1 || next[1] == 0) {
				i++
			}
			if opt[1] == 'a' || opt[1] == 'A' {
				n, err := intArg(args[i+1])
				if err != nil {
					return 0, err
				}
				if n < 0 {
					return 0, resp.NewError("The MAXLEN argument must be >= 0.")
				}
				a.maxLen, a.strategy = n, trimMaxLen
			} else {
				id, err := parseStreamID(args[i+1], 0, true, nil)
				if err != nil {
					return 0, err
				}
				a.minID, a.strategy = id, trimMinID
			}
			i++
			a.argIdx = i
		case redisstr.Option(opt, "limit") && more > 0:
			n, err := intArg(args[i+1])
			if err != nil {
				return 0, err
			}
			if n < 0 {
				return 0, resp.NewError("The LIMIT argument must be >= 0.")
			}
			a.limit, limitGiven = n, true
			i++
		case xadd && redisstr.Option(opt, "nomkstream"):
			a.noMkStream = true
		case xadd:
			id, err := parseStreamID(opt, 0, true, &a.seqGiven)
			if err != nil {
				return 0, err
			}
			a.id, a.idGiven = id, true
			return k.finishTrimArgs(a, i, limitGiven, xadd)
		default:
			return 0, resp.ErrSyntax
		}
	}
	return k.finishTrimArgs(a, i, limitGiven, xadd)
}

func (k *Keyspace) finishTrimArgs(a *xaddArgs, i int, limitGiven, xadd bool) (int, error) {
	if a.limit != 0 && a.strategy == trimNone {
		return 0, resp.NewError("syntax error, LIMIT cannot be used without specifying a trimming strategy")
	}
	if !xadd && a.strategy == trimNone {
		return 0, resp.NewError("syntax error, XTRIM must be called with a trimming strategy")
	}
	if limitGiven {
		if !a.approx {
			return 0, resp.NewError("syntax error, LIMIT cannot be used without the special ~ option")
		}
	} else if a.approx {
		a.limit = 100 * int64(k.enc.StreamNodeMaxEntries)
		if a.limit <= 0 {
			a.limit = 10000
		}
		if a.limit > 1000000 {
			a.limit = 1000000
		}
	} else {
		a.limit = 0
	}
	return i, nil
}

// XADD key [NOMKSTREAM] [MAXLEN|MINID [=|~] threshold [LIMIT count]] *|id field value [field value ...]
func CmdXAdd(k *Keyspace, c *Ctx, args [][]byte) error {
	var a xaddArgs
	idPos, err := k.parseAddOrTrim(args, &a, true)
	if err != nil {
		return err
	}
	fieldPos := idPos + 1
	if n := len(args) - fieldPos; n < 2 || n%2 == 1 {
		return resp.ErrWrongArgs("xadd")
	}
	if a.idGiven && a.seqGiven && a.id.isZero() {
		return errXAddZero
	}
	s, o, i, err := k.streamOf(c, args[1], false)
	if err != nil {
		return err
	}
	if s == nil {
		if a.noMkStream {
			c.W.Null()
			return nil
		}
		s = &streamValue{}
		o, i = k.create(c, args[1], kindStream, s)
		k.recount(c, o)
	}
	if s.lastID == maxStreamID {
		return errXAddExhausted
	}
	pairs := args[fieldPos:]
	var id streamID
	switch {
	case !a.idGiven:
		// streamNextID: the clock, or one past the last ID when the clock
		// is behind it.
		ms := uint64(c.Now)
		if c.Now > 0 && ms > s.lastID.ms {
			id = streamID{ms, 0}
		} else {
			id = s.lastID
			id.incr()
		}
	case a.seqGiven:
		id = a.id
	case s.lastID.ms == a.id.ms:
		if s.lastID.seq == math.MaxUint64 {
			// streamAppendItem fails here without setting errno, so
			// xaddCommand's check for EDOM misses and it reports size.
			return errXAddTooLarge
		}
		id = streamID{s.lastID.ms, s.lastID.seq + 1}
	default:
		id = a.id
	}
	if id.cmp(s.lastID) <= 0 {
		return errXAddSmaller
	}
	total := 0
	for _, p := range pairs {
		total += len(p)
	}
	if total > streamListpackMax {
		return errXAddTooLarge
	}
	s.appendEntry(id, pairs, k.enc.StreamNodeMaxBytes, k.enc.StreamNodeMaxEntries)
	var buf [48]byte
	c.W.Bulk(id.appendTo(buf[:0]))
	k.changed(c, args[1], i, o)
	k.notify(NotifyStream, "xadd", args[1], c.DB)
	if a.strategy != trimNone {
		// A trim that deletes nothing may still drop a node its exact
		// trims emptied: the count follows, though nobody is told.
		trimmed := s.trim(&a.trimArgs)
		k.recount(c, o)
		if trimmed > 0 {
			k.notify(NotifyStream, "xtrim", args[1], c.DB)
		}
	}
	k.signalReady(c.DB, args[1], kindStream)
	return nil
}

// writeEntry replies [id, [field, value ...]].
func writeEntry(w *resp.Writer, n *streamNode, e *sentry) {
	w.Array(2)
	var buf [48]byte
	w.Bulk(e.id.appendTo(buf[:0]))
	w.Array(e.nf * 2)
	same := e.flags&streamSameFields != 0
	moff := 0
	if same {
		_, moff = readUvarint(n.b, 0)
	}
	p := e.data
	for j := 0; j < e.nf; j++ {
		var field, val []byte
		if same {
			field, moff = readStr(n.b, moff)
		} else {
			field, p = readStr(n.b, p)
		}
		val, p = readStr(n.b, p)
		w.Bulk(field)
		w.Bulk(val)
	}
}

// XRANGE key start end [COUNT count], XREVRANGE key end start [COUNT count]
func CmdXRange(k *Keyspace, c *Ctx, args [][]byte) error    { return k.xrange(c, args, false) }
func CmdXRevRange(k *Keyspace, c *Ctx, args [][]byte) error { return k.xrange(c, args, true) }

func (k *Keyspace) xrange(c *Ctx, args [][]byte, rev bool) error {
	startArg, endArg := args[2], args[3]
	if rev {
		startArg, endArg = endArg, startArg
	}
	start, ex, err := parseIntervalID(startArg, 0)
	if err != nil {
		return err
	}
	if ex && !start.incr() {
		return resp.NewError("invalid start ID for the interval")
	}
	end, ex, err := parseIntervalID(endArg, math.MaxUint64)
	if err != nil {
		return err
	}
	if ex && !end.decr() {
		return resp.NewError("invalid end ID for the interval")
	}
	count := int64(-1)
	for j := 4; j < len(args); j++ {
		if redisstr.Option(args[j], "count") && j+1 < len(args) {
			n, err := intArg(args[j+1])
			if err != nil {
				return err
			}
			count = max(n, 0)
			j++
		} else {
			return resp.ErrSyntax
		}
	}
	s, _, _, err := k.streamOf(c, args[1], true)
	if err != nil {
		return err
	}
	if s == nil {
		c.W.Array(0)
		return nil
	}
	if count == 0 {
		c.W.NullArray()
		return nil
	}
	k.replyRange(c.W, s, start, end, count, rev)
	return nil
}

// replyRange replies with the live entries from start to end, at most
// count of them (all when count < 0).
func (k *Keyspace) replyRange(w *resp.Writer, s *streamValue, start, end streamID, count int64, rev bool) {
	type hit struct {
		n *streamNode
		e sentry
	}
	hits := make([]hit, 0, min(max(count, 0), 64))
	s.each(start, end, rev, func(n *streamNode, e sentry) bool {
		hits = append(hits, hit{n, e})
		return count < 0 || int64(len(hits)) < count
	})
	w.Array(len(hits))
	for j := range hits {
		writeEntry(w, hits[j].n, &hits[j].e)
	}
}

// XLEN key
func CmdXLen(k *Keyspace, c *Ctx, args [][]byte) error {
	s, _, _, err := k.streamOf(c, args[1], true)
	if err != nil {
		return err
	}
	if s == nil {
		c.W.Int(0)
		return nil
	}
	c.W.Int(int64(s.length))
	return nil
}

// XDEL key id [id ...]
func CmdXDel(k *Keyspace, c *Ctx, args [][]byte) error {
	s, o, i, err := k.streamOf(c, args[1], false)
	if err != nil {
		return err
	}
	if s == nil {
		c.W.Int(0)
		return nil
	}
	ids := make([]streamID, len(args)-2)
	for j := range ids {
		if ids[j], err = parseStreamID(args[j+2], 0, true, nil); err != nil {
			return err
		}
	}
	deleted, firstGone := 0, false
	for _, id := range ids {
		if s.deleteID(id) {
			if id == s.firstID {
				firstGone = true
			}
			if id.cmp(s.maxDeleted) > 0 {
				s.maxDeleted = id
			}
			deleted++
		}
	}
	if deleted > 0 {
		if s.length == 0 {
			s.firstID = streamID{}
		} else if firstGone {
			s.firstID = s.edge(true)
		}
		k.changed(c, args[1], i, o)
		k.notify(NotifyStream, "xdel", args[1], c.DB)
	}
	c.W.Int(int64(deleted))
	return nil
}

// XTRIM key MAXLEN|MINID [=|~] threshold [LIMIT count]
func CmdXTrim(k *Keyspace, c *Ctx, args [][]byte) error {
	var a xaddArgs
	if _, err := k.parseAddOrTrim(args, &a, false); err != nil {
		return err
	}
	s, o, i, err := k.streamOf(c, args[1], false)
	if err != nil {
		return err
	}
	if s == nil {
		c.W.Int(0)
		return nil
	}
	deleted := s.trim(&a.trimArgs)
	if deleted > 0 {
		k.notify(NotifyStream, "xtrim", args[1], c.DB)
		k.changed(c, args[1], i, o)
	} else {
		k.recount(c, o) // an emptied node may have gone (see XADD)
	}
	c.W.Int(deleted)
	return nil
}

// XSETID key last-id [ENTRIESADDED entries-added] [MAXDELETEDID max-deleted-id]
func CmdXSetID(k *Keyspace, c *Ctx, args [][]byte) error {
	id, err := parseStreamID(args[2], 0, true, nil)
	if err != nil {
		return err
	}
	entriesAdded := int64(-1)
	var maxDel streamID
	for j := 3; j < len(args); j += 2 {
		more := len(args) - 1 - j
		switch {
		case redisstr.Option(args[j], "entriesadded") && more > 0:
			if entriesAdded, err = intArg(args[j+1]); err != nil {
				return err
			}
			if entriesAdded < 0 {
				return resp.NewError("entries_added must be positive")
			}
		case redisstr.Option(args[j], "maxdeletedid") && more > 0:
			if maxDel, err = parseStreamID(args[j+1], 0, true, nil); err != nil {
				return err
			}
			if id.cmp(maxDel) < 0 {
				return resp.NewError("The ID specified in XSETID is smaller than the provided max_deleted_entry_id")
			}
		default:
			return resp.ErrSyntax
		}
	}
	s, o, _, err := k.streamOf(c, args[1], false)
	if err != nil {
		return err
	}
	if s == nil {
		return errNoKey
	}
	if s.length > 0 {
		if id.cmp(s.edge(false)) < 0 {
			return resp.NewError("The ID specified in XSETID is smaller than the target stream top item")
		}
		if entriesAdded != -1 && s.length > uint64(entriesAdded) {
			return resp.NewError("The entries_added specified in XSETID is smaller than the target stream length")
		}
	}
	s.lastID = id
	if entriesAdded != -1 {
		s.entriesAdded = uint64(entriesAdded)
	}
	if !maxDel.isZero() {
		s.maxDeleted = maxDel
	}
	k.recount(c, o)
	c.W.OK()
	k.notify(NotifyStream, "xsetid", args[1], c.DB)
	return nil
}
