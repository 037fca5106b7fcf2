package server

import (
	"math/bits"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/minilock/minilock/internal/redisstr"
	"github.com/minilock/minilock/keyspace"
	"github.com/minilock/minilock/resp"
)

// Client-side caching as Redis 7.0's tracking.c. A client turns it on with
// CLIENT TRACKING ON and then hears, as an invalidation message, of every
// change to a key it may hold in its cache:
//
//   - default mode: the keys of the read-only commands it ran are in the
//     tracking table (key -> client ids); the first change to such a key
//     sends each of them a message and forgets the key (it is read again,
//     and tracked again, by a client that wants it);
//   - OPTIN / OPTOUT: the same, but only for the command after CLIENT
//     CACHING YES (OPTIN), or all but the one after CLIENT CACHING NO;
//   - BCAST: every key that starts with one of its prefixes (all keys
//     without one), gathered while the owner serves a batch and sent as one
//     message per prefix once it is done (Redis's beforeSleep);
//   - NOLOOP: not about the keys the client changed itself.
//
// A message is a RESP3 push (>2 invalidate [keys]) on the client's own
// connection, or, with REDIRECT, goes to another client: a push if that
// one speaks RESP3, a message on __redis__:invalidate if it is subscribed
// in RESP2. FLUSHDB and FLUSHALL send every tracking client a null instead
// of keys. The table holds at most tracking-table-max-keys keys: past it,
// random keys are dropped with an invalidation, before the next command.
//
// The hook is the keyspace's modified function (its signalModifiedKey),
// set only while a client tracks or the table holds keys: with tracking
// off, a write pays one nil test. Everything here runs on the owner.

// Tracking flags, networking.c's CLIENT_TRACKING_*.
const (
	trackOn          = 1 << iota // CLIENT_TRACKING
	trackBrokenRedir             // the redirect client is gone (R)
	trackBcast                   // B
	trackOptin
	trackOptout
	trackCaching // CLIENT CACHING given for the next command
	trackNoloop
)

// clientTracking is a client's side of tracking.
type clientTracking struct {
	flags    uint8
	redirect int64    // REDIRECT's client id, 0 for none
	prefixes []string // BCAST's prefixes, sorted (Redis keeps them in a radix tree)
}

func (t *clientTracking) on() bool { return t.flags&trackOn != 0 }

// trackingState is the server's side. Owner goroutine only.
type trackingState struct {
	clients int // tracking_clients
	table   trackTable
	items   int     // tracking_total_items: the ids in table
	idBuf   []int64 // take's buffer for a key of one id
	// prefixes are the BCAST prefixes in use, each with its clients and
	// the keys changed since the last broadcast; order is their sorted
	// names (Redis walks them in a radix tree).
	prefixes map[string]*bcastState
	order    []string
	// cur is the client whose command is running (server.current_client),
	// inCall whether that command has started (Redis's fixed_time_expire:
	// a key it changes is invalidated for itself after its reply), by the
	// client id a change is made by for BCAST's NOLOOP (0: none, as
	// expiry; scriptWriter: a script's, which is nobody's).
	cur    *client
	inCall bool
	by     int64
	// outerCmd and outerArgs are the command a client runs (not one a
	// script runs for it): a script's reads track its declared keys.
	outerCmd  *command
	outerArgs [][]byte
	// pending are the invalidations for cur, sent after its command's
	// reply (trackingHandlePendingKeyInvalidations); a nil entry is a
	// flush's null.
	pending []*string
	// overLimit counts the consecutive times the table stayed above
	// tracking-table-max-keys after an eviction round (the effort grows
	// with it, as trackingLimitUsedSlots's timeout_counter).
	overLimit int
	// cronAt is when the owner next checks the table's limit while idle
	// (serverCron, 10 times a second, while a client tracks).
	cronAt  int64
	scratch []byte
	hooked  bool // the keyspace's modified hook is set
}

// scriptWriter stands for the Lua client that Redis runs a script's
// commands as: it is no connection, so NOLOOP never hides its changes.
const scriptWriter = -1

type bcastState struct {
	keys    map[string]int64 // changed key -> who changed it last
	clients []*client        // ordered by id
}

// leOrder is the order of Redis's radix tree of client ids: their
// little-endian bytes.
func leOrder(id int64) uint64 { return bits.ReverseBytes64(uint64(id)) }

// trackingHook sets or clears the keyspace's modified hook: it is needed
// while a client tracks, or keys remain in the table (Redis empties their
// entries as they change even after the last tracking client has gone).
func (s *Server) trackingHook() {
	t := &s.track
	need := t.clients > 0 || t.table.len() > 0
	if need == t.hooked {
		return
	}
	t.hooked = need
	if need {
		s.ks.SetModified(s.trackModified)
	} else {
		s.ks.SetModified(nil)
	}
}

// clientByID finds a connected client (networking.c:lookupClientByID).
func (s *Server) clientByID(id int64) *client {
	s.clients.mu.Lock()
	c := s.clients.m[id]
	s.clients.mu.Unlock()
	return c
}

// enableTracking is tracking.c:enableTracking.
func (s *Server) enableTracking(c *client, redirect int64, options uint8, prefixes []string) {
	t := &c.track
	if !t.on() {
		s.track.clients++
	}
	t.flags |= trackOn
	t.flags &^= trackBrokenRedir | trackBcast | trackOptin | trackOptout | trackNoloop
	t.redirect = redirect
	if s.track.prefixes == nil {
		s.track.prefixes = make(map[string]*bcastState)
	}
	if options&trackBcast != 0 {
		t.flags |= trackBcast
		if len(prefixes) == 0 {
			s.bcastAdd(c, "")
		}
		for _, p := range prefixes {
			s.bcastAdd(c, p)
		}
	}
	t.flags |= options & (trackOptin | trackOptout | trackNoloop)
	// The invalidations travel on c's feed (or its redirect's): Redis
	// bounds a normal client's output only if told to; here it is the
	// normal class's hard limit, or monitorLimit without one, so a client
	// that does not read cannot grow the server without bound.
	c.StartFeed(s.normalOutputLimit(), 0, 0)
	s.trackingHook()
}

// normalOutputLimit is client-output-buffer-limit's normal hard limit, or
// monitorLimit when it is 0 (unlimited).
func (s *Server) normalOutputLimit() int {
	f := strings.Fields(s.param("client-output-buffer-limit"))
	for i := 0; i+3 < len(f); i += 4 {
		if f[i] == "normal" {
			if h, err := strconv.ParseInt(f[i+1], 10, 64); err == nil && h > 0 {
				return int(h)
			}
		}
	}
	return monitorLimit
}

// bcastAdd is enableBcastTrackingForPrefix.
func (s *Server) bcastAdd(c *client, prefix string) {
	t := &s.track
	bs := t.prefixes[prefix]
	if bs == nil {
		bs = &bcastState{keys: map[string]int64{}}
		t.prefixes[prefix] = bs
		i, _ := slices.BinarySearch(t.order, prefix)
		t.order = slices.Insert(t.order, i, prefix)
	}
	i := sort.Search(len(bs.clients), func(i int) bool { return bs.clients[i].id >= c.id })
	if i < len(bs.clients) && bs.clients[i] == c {
		return
	}
	bs.clients = slices.Insert(bs.clients, i, c)
	j, found := slices.BinarySearch(c.track.prefixes, prefix)
	if !found {
		c.track.prefixes = slices.Insert(c.track.prefixes, j, prefix)
	}
}

// disableTracking is tracking.c:disableTracking: the client's ids stay in
// the table until their keys change (Redis removes them lazily).
func (s *Server) disableTracking(c *client) {
	t := &c.track
	if t.flags&trackBcast != 0 {
		for _, p := range t.prefixes {
			bs := s.track.prefixes[p]
			if bs == nil {
				continue
			}
			if i := slices.Index(bs.clients, c); i >= 0 {
				bs.clients = slices.Delete(bs.clients, i, i+1)
			}
			if len(bs.clients) == 0 {
				delete(s.track.prefixes, p)
				if i, ok := slices.BinarySearch(s.track.order, p); ok {
					s.track.order = slices.Delete(s.track.order, i, i+1)
				}
			}
		}
		t.prefixes = nil
	}
	if t.on() {
		s.track.clients--
		t.flags = 0
	}
	s.trackingHook()
}

// trackRemember is trackingRememberKeys, after a read-only command of
// caller's in default mode (or OPTIN/OPTOUT as CLIENT CACHING says).
func (s *Server) trackRemember(caller *client, cmd *command, args [][]byte) {
	f := caller.track.flags
	caching := f&trackCaching != 0
	if f&trackOptin != 0 && !caching || f&trackOptout != 0 && caching {
		return
	}
	if !cmd.spec.HasKeys() {
		return
	}
	keys, ok := cmd.spec.KeysBySpecs(args)
	if !ok {
		return
	}
	t := &s.track
	id := caller.id
	for _, k := range keys {
		if t.table.add(args[k.Pos], id) {
			t.items++
		}
	}
	s.trackingHook()
}

// trackModified is trackingInvalidateKey with bcast set: the keyspace's
// modified hook.
func (s *Server) trackModified(key []byte) { s.invalidateKey(key, true) }

// invalidateKey is tracking.c:trackingInvalidateKey.
func (s *Server) invalidateKey(key []byte, bcast bool) {
	t := &s.track
	if bcast && len(t.order) > 0 {
		s.rememberBcast(key)
	}
	ids, ok := t.table.take(key, t.idBuf)
	if !ok {
		return
	}
	if len(ids) == 1 {
		t.idBuf = ids[:0] // keys of one client cost no allocation
	}
	t.items -= len(ids)
	for _, id := range ids {
		target := s.clientByID(id)
		if target == nil || target.track.flags&trackOn == 0 || target.track.flags&trackBcast != 0 {
			continue
		}
		if target.track.flags&trackNoloop != 0 && target == t.cur {
			continue
		}
		if target == t.cur && t.inCall {
			k := string(key)
			t.pending = append(t.pending, &k)
			continue
		}
		s.sendTracking(target, key, nil)
	}
	s.trackingHook()
}

// rememberBcast is trackingRememberKeyToBroadcast.
func (s *Server) rememberBcast(key []byte) {
	t := &s.track
	for _, p := range t.order {
		if len(p) > len(key) || string(key[:len(p)]) != p {
			continue
		}
		bs := t.prefixes[p]
		bs.keys[string(key)] = t.by
	}
}

// trackPending sends the invalidations held for the client whose command
// just ended, after its reply (trackingHandlePendingKeyInvalidations).
func (s *Server) trackPending() {
	t := &s.track
	c := t.cur
	for i, k := range t.pending {
		t.pending[i] = nil
		if c == nil {
			continue
		}
		if k == nil {
			s.sendTracking(c, nil, nullFor(c))
		} else {
			s.sendTracking(c, []byte(*k), nil)
		}
	}
	t.pending = t.pending[:0]
}

// nullFor is the null a flush sends: in the protocol of the tracking
// client, even when its messages go to a client of the other protocol
// (Redis's shared.null[c->resp]).
func nullFor(c *client) []byte {
	if c.W.Proto > 2 {
		return []byte("_\r\n")
	}
	return []byte("$-1\r\n")
}

// trackFlushed is trackingInvalidateKeysOnFlush: every tracking client
// hears that all its keys are gone (a null), and the table is emptied.
func (s *Server) trackFlushed() {
	t := &s.track
	if t.clients > 0 {
		for _, c := range s.clients.snapshot() {
			if !c.track.on() {
				continue
			}
			if c == t.cur {
				t.pending = append(t.pending, nil)
			} else {
				s.sendTracking(c, nil, nullFor(c))
			}
		}
	}
	t.table.clear()
	t.items = 0
	s.trackingHook()
}

// sendTracking is tracking.c:sendTrackingMessage: key, or proto (RESP
// already encoded: BCAST's array of keys, a flush's null) as the message's
// value, to c or to the client it redirects to.
func (s *Server) sendTracking(c *client, key []byte, proto []byte) {
	w := &resp.Writer{B: s.track.scratch[:0]}
	defer func() { s.track.scratch = w.B }()
	redirected := false
	if c.track.redirect != 0 {
		r := s.clientByID(c.track.redirect)
		if r == nil {
			c.track.flags |= trackBrokenRedir
			if c.W.Proto > 2 {
				w.B = resp.AppendHeader(w.B, '>', 2)
				w.Proto = 3
				w.BulkString("tracking-redir-broken")
				w.Int(c.track.redirect)
				s.pushTracking(c, w.B)
			}
			return
		}
		c, redirected = r, true
	}
	w.Proto = c.W.Proto
	switch {
	case c.W.Proto > 2:
		w.B = resp.AppendHeader(w.B, '>', 2)
		w.BulkString("invalidate")
	case redirected && c.inSubscribedMode():
		w.Array(3)
		w.BulkString("message")
		w.BulkString("__redis__:invalidate")
	default:
		// RESP2 without a subscribed redirect: there is no way to tell.
		return
	}
	if proto != nil {
		w.B = append(w.B, proto...)
	} else {
		w.Array(1)
		w.Bulk(key)
	}
	s.pushTracking(c, w.B)
}

// pushTracking queues a message for c. A client that tracks or subscribes
// has a feed; a RESP3 redirect target that does neither gets one when that
// is safe (its batch is running, or the event loop serves it on this
// goroutine), and otherwise misses the message: see docs/differences.md.
func (s *Server) pushTracking(c *client, b []byte) {
	if c.Feed == nil {
		if !c.onOwner && !c.OnLoop() {
			return
		}
		c.StartFeed(s.normalOutputLimit(), 0, 0)
	}
	c.deliver(b, true)
}

// trackLimit is trackingLimitUsedSlots, before each command while a
// client tracks: past tracking-table-max-keys, random keys are dropped
// from the table, their clients told as if they had changed.
func (s *Server) trackLimit() {
	t := &s.track
	maxKeys, _ := strconv.ParseInt(s.param("tracking-table-max-keys"), 10, 64)
	if maxKeys <= 0 || int64(t.table.len()) <= maxKeys {
		t.overLimit = 0
		return
	}
	for effort := 100 * (t.overLimit + 1); effort > 0; effort-- {
		key, ok := t.table.any() // at random, as Redis's random walk
		if !ok {
			break
		}
		s.invalidateKey([]byte(key), false)
		if int64(t.table.len()) <= maxKeys {
			t.overLimit = 0
			return
		}
	}
	t.overLimit++
}

// trackBroadcast is trackingBroadcastInvalidationMessages: once a batch
// (or an expiry round) is done, each prefix's changed keys go to its
// clients as one message.
func (s *Server) trackBroadcast() {
	t := &s.track
	if t.clients == 0 {
		return
	}
	var proto []byte
	var keys []string
	for _, p := range t.order {
		bs := t.prefixes[p]
		if len(bs.keys) == 0 {
			continue
		}
		keys = keys[:0]
		for k := range bs.keys {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		proto = bcastReply(proto[:0], bs.keys, keys, 0)
		for _, c := range slices.Clone(bs.clients) {
			if c.track.flags&trackNoloop != 0 {
				if adhoc := bcastReply(nil, bs.keys, keys, c.id); adhoc != nil {
					s.sendTracking(c, nil, adhoc)
				}
				continue
			}
			s.sendTracking(c, nil, proto)
		}
		clear(bs.keys)
	}
}

// bcastReply is trackingBuildBroadcastReply: the array of keys, without
// those last changed by client id (NOLOOP), nil if that leaves none.
func bcastReply(b []byte, by map[string]int64, keys []string, id int64) []byte {
	n := 0
	for _, k := range keys {
		if id == 0 || by[k] != id {
			n++
		}
	}
	if n == 0 && id != 0 {
		return nil
	}
	b = resp.AppendHeader(b, '*', int64(n))
	for _, k := range keys {
		if id != 0 && by[k] == id {
			continue
		}
		b = resp.AppendHeader(b, '$', int64(len(k)))
		b = append(b, k...)
		b = append(b, "\r\n"...)
	}
	return b
}

// trackedRead is called after every command whose flags say read-only
// (call()'s trackingRememberKeys): the caller's keys are remembered if it
// tracks in default mode. Scripts' read-only forms are left out; a read
// inside a script counts instead, for the keys the script declared.
func (s *Server) trackedRead(x *call, cmd *command, args [][]byte) {
	c := x.c
	if c == nil || c.track.flags&(trackOn|trackBcast) != trackOn {
		return
	}
	if x.script != nil {
		// A read inside a script remembers the keys the script declared
		// (Redis remembers the caller's command's keys, and the caller's
		// command is the EVAL or FCALL).
		cmd, args = s.track.outerCmd, s.track.outerArgs
		if cmd == nil {
			return
		}
	} else {
		switch cmd.name {
		case "eval_ro", "evalsha_ro", "fcall_ro":
			return
		}
	}
	s.trackRemember(c, cmd, args)
}

// writer is who a change is made by, for BCAST's NOLOOP: the client, or
// no client when a script makes it.
func (x *call) writer() int64 {
	if x.script != nil {
		return scriptWriter
	}
	return x.c.id
}

// trackingAfter runs once c's command (EXEC, EVAL and all they ran
// included) is done: c's own invalidations follow its reply, and CLIENT
// CACHING's mark lasts for one command (or one transaction) only, unless
// that command was another CLIENT one (resetClient).
func (s *Server) trackingAfter(c *client) {
	t := &s.track
	t.inCall = false
	t.by = 0
	t.outerCmd, t.outerArgs = nil, nil
	if len(t.pending) > 0 {
		s.trackPending()
	}
	if c.track.flags&trackCaching != 0 && c.multi == nil &&
		c.lastCmd != "client" && !strings.HasPrefix(c.lastCmd, "client|") {
		c.track.flags &^= trackCaching
	}
}

// trackingFlags are CLIENT LIST's letters for tracking (t, R, B).
func (t *clientTracking) letters(f []byte) []byte {
	if t.flags&trackOn != 0 {
		f = append(f, 't')
	}
	if t.flags&trackBrokenRedir != 0 {
		f = append(f, 'R')
	}
	if t.flags&trackBcast != 0 {
		f = append(f, 'B')
	}
	return f
}

// redir is CLIENT LIST's redir= and GETREDIR: -1 without tracking.
func (t *clientTracking) redir() int64 {
	if t.on() {
		return t.redirect
	}
	return -1
}

var (
	errRedirectTwice   = resp.NewError("A client can only redirect to a single other client")
	errRedirectMissing = resp.NewError("The client ID you want redirect to does not exist")
	errPrefixNoBcast   = resp.NewError("PREFIX option requires BCAST mode to be enabled")
	errSwitchBcast     = resp.NewError("You can't switch BCAST mode on/off before disabling tracking for this client, and then re-enabling it with a different mode.")
	errOptBcast        = resp.NewError("OPTIN and OPTOUT are not compatible with BCAST")
	errOptinOptout     = resp.NewError("You can't specify both OPTIN mode and OPTOUT mode")
	errSwitchOpt       = resp.NewError("You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and then re-enabling it with a different mode.")
	errCachingNoTrack  = resp.NewError("CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or OPTOUT mode enabled")
	errCachingYes      = resp.NewError("CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.")
	errCachingNo       = resp.NewError("CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.")
)

// CLIENT TRACKING ON|OFF [REDIRECT id] [BCAST] [PREFIX p ...] [OPTIN]
// [OPTOUT] [NOLOOP], networking.c's checks in its order.
func cmdClientTracking(x *call, args [][]byte) error {
	c := x.c
	var redir int64
	var options uint8
	var prefixes []string
	for j := 3; j < len(args); j++ {
		more := j < len(args)-1
		a := args[j]
		switch {
		case strings.EqualFold(string(a), "redirect") && more:
			j++
			if redir != 0 {
				return errRedirectTwice
			}
			n, ok := redisstr.ParseInt(args[j])
			if !ok {
				return resp.ErrNotInteger
			}
			redir = n
			if x.s.clientByID(redir) == nil {
				return errRedirectMissing
			}
		case strings.EqualFold(string(a), "bcast"):
			options |= trackBcast
		case strings.EqualFold(string(a), "optin"):
			options |= trackOptin
		case strings.EqualFold(string(a), "optout"):
			options |= trackOptout
		case strings.EqualFold(string(a), "noloop"):
			options |= trackNoloop
		case strings.EqualFold(string(a), "prefix") && more:
			j++
			prefixes = append(prefixes, string(args[j]))
		default:
			return resp.ErrSyntax
		}
	}
	switch {
	case strings.EqualFold(string(args[2]), "on"):
		t := &c.track
		switch {
		case options&trackBcast == 0 && len(prefixes) > 0:
			return errPrefixNoBcast
		case t.on() && (t.flags&trackBcast != 0) != (options&trackBcast != 0):
			return errSwitchBcast
		case options&trackBcast != 0 && options&(trackOptin|trackOptout) != 0:
			return errOptBcast
		case options&trackOptin != 0 && options&trackOptout != 0:
			return errOptinOptout
		case options&trackOptin != 0 && t.flags&trackOptout != 0,
			options&trackOptout != 0 && t.flags&trackOptin != 0:
			return errSwitchOpt
		}
		if options&trackBcast != 0 {
			if err := prefixCollision(t.prefixes, prefixes); err != nil {
				return err
			}
		}
		x.s.enableTracking(c, redir, options, prefixes)
	case strings.EqualFold(string(args[2]), "off"):
		x.s.disableTracking(c)
	default:
		return resp.ErrSyntax
	}
	x.W.OK()
	return nil
}

// prefixCollision is checkPrefixCollisionsOrReply: two prefixes of which
// one starts the other would both invalidate the same keys. Redis, finding
// such a pair among the new prefixes past the first, sends the error and
// then enables tracking and sends +OK as well (two replies to one command);
// minilock sends the error alone and enables nothing (docs/differences.md).
func prefixCollision(have, add []string) error {
	overlap := func(a, b string) bool {
		n := min(len(a), len(b))
		return a[:n] == b[:n]
	}
	for i, p := range add {
		for _, h := range have {
			if overlap(h, p) {
				return resp.NewError("Prefix '" + replyText(p) + "' overlaps with an existing prefix '" +
					replyText(h) + "'. Prefixes for a single client must not overlap.")
			}
		}
		for _, q := range add[i+1:] {
			if overlap(p, q) {
				return resp.NewError("Prefix '" + replyText(p) + "' overlaps with another provided prefix '" +
					replyText(q) + "'. Prefixes for a single client must not overlap.")
			}
		}
	}
	return nil
}

// replyText is a client's bytes inside an error line: addReplyErrorFormat
// turns \r and \n into spaces, and %s stops at a NUL byte.
func replyText(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	return strings.Map(func(r rune) rune {
		if r == '\r' || r == '\n' {
			return ' '
		}
		return r
	}, s)
}

// CLIENT CACHING YES|NO
func cmdClientCaching(x *call, args [][]byte) error {
	t := &x.c.track
	if !t.on() {
		return errCachingNoTrack
	}
	switch {
	case strings.EqualFold(string(args[2]), "yes"):
		if t.flags&trackOptin == 0 {
			return errCachingYes
		}
	case strings.EqualFold(string(args[2]), "no"):
		if t.flags&trackOptout == 0 {
			return errCachingNo
		}
	default:
		return resp.ErrSyntax
	}
	t.flags |= trackCaching
	x.W.OK()
	return nil
}

// CLIENT GETREDIR
func cmdClientGetRedir(x *call, args [][]byte) error {
	x.W.Int(x.c.track.redir())
	return nil
}

// CLIENT TRACKINGINFO
func cmdClientTrackingInfo(x *call, args [][]byte) error {
	t := &x.c.track
	flags := []string{"off"}
	if t.on() {
		flags[0] = "on"
	}
	if t.flags&trackBcast != 0 {
		flags = append(flags, "bcast")
	}
	if t.flags&trackOptin != 0 {
		flags = append(flags, "optin")
		if t.flags&trackCaching != 0 {
			flags = append(flags, "caching-yes")
		}
	}
	if t.flags&trackOptout != 0 {
		flags = append(flags, "optout")
		if t.flags&trackCaching != 0 {
			flags = append(flags, "caching-no")
		}
	}
	if t.flags&trackNoloop != 0 {
		flags = append(flags, "noloop")
	}
	if t.flags&trackBrokenRedir != 0 {
		flags = append(flags, "broken_redirect")
	}
	x.W.Map(3)
	x.W.BulkString("flags")
	x.W.Set(len(flags))
	for _, f := range flags {
		x.W.BulkString(f)
	}
	x.W.BulkString("redirect")
	x.W.Int(t.redir())
	x.W.BulkString("prefixes")
	x.W.Array(len(t.prefixes))
	for _, p := range t.prefixes {
		x.W.BulkString(p)
	}
	return nil
}

// trackingTick is beforeSleep's part: BCAST's messages for what the batch
// or an expiry round changed.
func (s *Server) trackingTick() {
	if s.track.clients > 0 {
		s.trackBroadcast()
	}
}

// trackingCronPeriod is how often serverCron checks the table's limit
// (hz 10), so that a CONFIG SET lowering it applies while no command comes.
const trackingCronPeriod = 100

// trackingCron is serverCron's part, when the owner's clock says: the
// table's limit.
func (s *Server) trackingCron(now int64) {
	t := &s.track
	if t.clients == 0 || now < t.cronAt {
		return
	}
	t.cronAt = now + trackingCronPeriod
	s.trackLimit()
}

// trackingDue is when trackingCron is next due, while a client tracks.
func (s *Server) trackingDue() (int64, bool) {
	return s.track.cronAt, s.track.clients > 0
}

// flushing is a FLUSHDB or FLUSHALL that, once done, tells the tracking
// clients (db.c:signalFlushedDb).
func flushing(run func(k *keyspace.Keyspace, c *keyspace.Ctx, args [][]byte) error) func(x *call, args [][]byte) error {
	return func(x *call, args [][]byte) error {
		err := run(x.s.ks, &x.Ctx, args)
		if err == nil && x.s.track.hooked {
			x.s.trackFlushed()
		}
		return err
	}
}

// trackingRun is told of every command about to run while a client
// tracks: who makes its changes (BCAST's NOLOOP), and, for a client's own
// command, what a script it runs has declared.
func (s *Server) trackingRun(x *call, cmd *command, args [][]byte) {
	t := &s.track
	t.by = x.writer()
	if x.script == nil {
		t.outerCmd, t.outerArgs = cmd, args
	}
}

// trackTable is the tracking table: key -> the ids of the clients that may
// cache it. Most keys are cached by one client, so those are one map entry
// of one id (about 40 bytes less per key than a slice each); a key read
// by several moves to more, its ids ordered as Redis's radix tree of ids
// orders them (their bytes in memory, little-endian), so that a client
// that several others redirect to hears of them in Redis's order.
type trackTable struct {
	one  map[string]int64
	more map[string][]int64
}

func (tt *trackTable) len() int { return len(tt.one) + len(tt.more) }

// add records that client id may cache key, and reports whether it is
// new.
func (tt *trackTable) add(key []byte, id int64) bool {
	if tt.one == nil {
		tt.one = make(map[string]int64)
		tt.more = make(map[string][]int64)
	}
	if ids, ok := tt.more[string(key)]; ok {
		i := sort.Search(len(ids), func(i int) bool { return leOrder(ids[i]) >= leOrder(id) })
		if i < len(ids) && ids[i] == id {
			return false
		}
		tt.more[string(key)] = slices.Insert(ids, i, id)
		return true
	}
	first, ok := tt.one[string(key)]
	switch {
	case !ok:
		tt.one[string(key)] = id
	case first == id:
		return false
	default:
		delete(tt.one, string(key))
		ids := []int64{first, id}
		if leOrder(id) < leOrder(first) {
			ids[0], ids[1] = id, first
		}
		tt.more[string(key)] = ids
	}
	return true
}

// take removes key and returns its ids (buf may hold them).
func (tt *trackTable) take(key []byte, buf []int64) ([]int64, bool) {
	if id, ok := tt.one[string(key)]; ok {
		delete(tt.one, string(key))
		return append(buf[:0], id), true
	}
	if ids, ok := tt.more[string(key)]; ok {
		delete(tt.more, string(key))
		return ids, true
	}
	return nil, false
}

// any returns a key of the table, chosen as Go's map order does (at
// random), for the table's limit.
func (tt *trackTable) any() (string, bool) {
	if len(tt.more) > 0 && (len(tt.one) == 0 || rand.IntN(tt.len()) < len(tt.more)) {
		for k := range tt.more {
			return k, true
		}
	}
	for k := range tt.one {
		return k, true
	}
	return "", false
}

func (tt *trackTable) clear() {
	clear(tt.one)
	clear(tt.more)
}
