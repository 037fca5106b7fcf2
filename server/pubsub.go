package server

import (
	"slices"

	"github.com/minilock/minilock/keyspace"
	"github.com/minilock/minilock/resp"
)

// Pub/sub as Redis 7.0's pubsub.c, standalone: channels, patterns and the
// sharded channels (SSUBSCRIBE/SPUBLISH, which on a single server behave
// as a namespace of their own that patterns do not see).
//
// How a message travels: PUBLISH runs on the owner like every command; it
// finds the subscribers in the server's tables (owner-only state, so no
// locks) and appends the message frame to each subscriber's feed
// (edge/feed.go), which its own goroutine writes to the socket; a publisher
// subscribed itself gets its frame in its reply buffer, among its replies
// (deliver). The publisher
// never waits for a subscriber: one that reads too slowly passes its feed's
// limits (Redis's client-output-buffer-limit pubsub 32mb 8mb 60) and is
// disconnected. A subscriber gets its feed when it first subscribes, and
// from then on its replies travel the same way, so a reply and the
// messages around it arrive in the order the owner produced them.

// pubsubState is the server's side: who listens where. Owner goroutine only.
type pubsubState struct {
	channels map[string][]*client // SUBSCRIBE, in subscription order
	patterns map[string][]*client // PSUBSCRIBE
	shard    map[string][]*client // SSUBSCRIBE
	// patternOrder keeps the patterns in the order they were first
	// subscribed, so a message matching several reaches a client in a
	// stable order. (Redis walks a hash table: its order is arbitrary.)
	// A pattern nobody holds any more stays in it until the next
	// compaction (ordered says what is in it), so leaving is O(1).
	patternOrder []patternRef
	ordered      map[string]bool
	// scratch builds message frames; a feed copies what it is given, so
	// one buffer serves every PUBLISH without an allocation each.
	scratch resp.Writer
	taps    []*Tap // the embedding API's observers (tap.go)
}

// patternRef is a pattern with its bytes, as Match takes them, made once.
type patternRef struct {
	name string
	b    []byte
}

// subscriptions is a client's side. Sets, so that a client subscribing to
// a million channels in one command costs a million map operations, not a
// million squared; a bare UNSUBSCRIBE answers in sorted order (Redis: its
// hash table's).
type subscriptions struct {
	channels, patterns, shard map[string]struct{}
}

func (p *subscriptions) count() int { return len(p.channels) + len(p.patterns) + len(p.shard) }

// inSubscribedMode is Redis's CLIENT_PUBSUB flag: the client holds at least
// one subscription.
func (c *client) inSubscribedMode() bool { return c.pubsub.count() > 0 }

// A kind is one of the three namespaces with the frames Redis uses for it.
type kind struct {
	subscribe, unsubscribe, message string
	shard                           bool
}

var (
	kindChannel = kind{"subscribe", "unsubscribe", "message", false}
	kindShard   = kind{"ssubscribe", "sunsubscribe", "smessage", true}
)

func (s *Server) table(k kind) map[string][]*client {
	if k.shard {
		return s.pubsub.shard
	}
	return s.pubsub.channels
}

func (c *client) mine(k kind) *map[string]struct{} {
	if k.shard {
		return &c.pubsub.shard
	}
	return &c.pubsub.channels
}

// add puts name in the set *m (made on first use) and reports whether it
// was new.
func add(m *map[string]struct{}, name string) bool {
	if _, ok := (*m)[name]; ok {
		return false
	}
	if *m == nil {
		*m = map[string]struct{}{}
	}
	(*m)[name] = struct{}{}
	return true
}

// sortedKeys is a set's members, sorted.
func sortedKeys(m map[string]struct{}) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// countFor is the count a (un)subscribe frame carries: channels and
// patterns together, or shard channels alone (clientSubscriptionsCount,
// clientShardSubscriptionsCount).
func (c *client) countFor(k kind) int {
	if k.shard {
		return len(c.pubsub.shard)
	}
	return len(c.pubsub.channels) + len(c.pubsub.patterns)
}

// frame writes the header of a pub/sub frame of n elements: an array in
// RESP2, a push in RESP3.
func frame(w *resp.Writer, n int) {
	if w.RESP3() {
		w.B = resp.AppendHeader(w.B, '>', int64(n))
	} else {
		w.Array(n)
	}
}

func (s *Server) subscribe(x *call, k kind, names [][]byte) {
	c := x.c
	if c.Feed == nil {
		c.StartFeed(s.pubsubLimits()) // parsed once per subscriber
	}
	table, mine := s.table(k), c.mine(k)
	for _, name := range names {
		ch := string(name)
		if add(mine, ch) {
			table[ch] = append(table[ch], c)
		}
		from := c.pushStart(x.W)
		frame(x.W, 3)
		x.W.BulkString(k.subscribe)
		x.W.Bulk(name)
		x.W.Int(int64(c.countFor(k)))
		c.markPush(x.W, from)
	}
}

// unsubscribe drops c from the channels named, or from all of its channels
// when names is empty; w, when not nil, receives Redis's frames.
func (s *Server) unsubscribe(c *client, w *resp.Writer, k kind, names []string) {
	mine := *c.mine(k)
	all := len(names) == 0
	if all {
		names = sortedKeys(mine)
	}
	for _, ch := range names {
		if _, ok := mine[ch]; ok {
			delete(mine, ch)
			s.drop(s.table(k), ch, c)
		}
		if w != nil {
			from := c.pushStart(w)
			frame(w, 3)
			w.BulkString(k.unsubscribe)
			w.BulkString(ch)
			w.Int(int64(c.countFor(k)))
			c.markPush(w, from)
		}
	}
	if all && len(names) == 0 && w != nil {
		from := c.pushStart(w)
		frame(w, 3)
		w.BulkString(k.unsubscribe)
		w.Null()
		w.Int(int64(c.countFor(k)))
		c.markPush(w, from)
	}
}

// drop removes c from table[name], and the entry once nobody is left (so
// that subscribing to millions of channels and leaving frees them).
func (s *Server) drop(table map[string][]*client, name string, c *client) {
	list := table[name]
	if i := slices.Index(list, c); i >= 0 {
		list = slices.Delete(list, i, i+1)
	}
	if len(list) == 0 {
		delete(table, name)
		return
	}
	table[name] = list
}

func (s *Server) psubscribe(x *call, names [][]byte) {
	c := x.c
	if c.Feed == nil {
		c.StartFeed(s.pubsubLimits()) // parsed once per subscriber
	}
	for _, name := range names {
		pat := string(name)
		if add(&c.pubsub.patterns, pat) {
			if !s.pubsub.ordered[pat] {
				s.pubsub.ordered[pat] = true
				s.pubsub.patternOrder = append(s.pubsub.patternOrder, patternRef{pat, []byte(pat)})
			}
			s.pubsub.patterns[pat] = append(s.pubsub.patterns[pat], c)
		}
		from := c.pushStart(x.W)
		frame(x.W, 3)
		x.W.BulkString("psubscribe")
		x.W.Bulk(name)
		x.W.Int(int64(c.countFor(kindChannel)))
		c.markPush(x.W, from)
	}
}

func (s *Server) punsubscribe(c *client, w *resp.Writer, names []string) {
	all := len(names) == 0
	if all {
		names = sortedKeys(c.pubsub.patterns)
	}
	for _, pat := range names {
		if _, ok := c.pubsub.patterns[pat]; ok {
			delete(c.pubsub.patterns, pat)
			s.drop(s.pubsub.patterns, pat, c)
			s.compactPatterns()
		}
		if w != nil {
			from := c.pushStart(w)
			frame(w, 3)
			w.BulkString("punsubscribe")
			w.BulkString(pat)
			w.Int(int64(c.countFor(kindChannel)))
			c.markPush(w, from)
		}
	}
	if all && len(names) == 0 && w != nil {
		from := c.pushStart(w)
		frame(w, 3)
		w.BulkString("punsubscribe")
		w.Null()
		w.Int(int64(c.countFor(kindChannel)))
		c.markPush(w, from)
	}
}

// compactPatterns drops the patterns nobody holds from patternOrder once
// they are half of it.
func (s *Server) compactPatterns() {
	p := &s.pubsub
	if len(p.patternOrder) < 2*len(p.patterns)+16 {
		return
	}
	p.patternOrder = slices.DeleteFunc(p.patternOrder, func(pat patternRef) bool {
		if _, ok := p.patterns[pat.name]; ok {
			return false
		}
		delete(p.ordered, pat.name)
		return true
	})
}

// unsubscribeAll forgets every subscription of c, silently (a closed or
// RESET connection). Owner goroutine only.
func (s *Server) unsubscribeAll(c *client) {
	s.unsubscribe(c, nil, kindChannel, nil)
	s.unsubscribe(c, nil, kindShard, nil)
	s.punsubscribe(c, nil, nil)
}

// publish delivers message to channel's subscribers and to the clients
// whose patterns match it, and returns how many received it. Owner
// goroutine only; it never waits on a socket.
func (s *Server) publish(channel, message []byte) int {
	return s.publishKind(kindChannel, channel, message)
}

func (s *Server) publishKind(k kind, channel, message []byte) int {
	if len(s.pubsub.taps) > 0 {
		s.tapMessage(channel, message, k.shard)
	}
	n := 0
	w := &s.pubsub.scratch
	for _, c := range s.table(k)[string(channel)] {
		w.B, w.Proto = w.B[:0], c.W.Proto
		frame(w, 3)
		w.BulkString(k.message)
		w.Bulk(channel)
		w.Bulk(message)
		c.deliver(w.B, true)
		n++
	}
	if k.shard || len(s.pubsub.patternOrder) == 0 {
		return n
	}
	ch := string(channel) // once, not once per pattern
	for _, pat := range s.pubsub.patternOrder {
		subs := s.pubsub.patterns[pat.name]
		if len(subs) == 0 || !keyspace.Match(pat.b, ch) {
			continue
		}
		for _, c := range subs {
			w.B, w.Proto = w.B[:0], c.W.Proto
			frame(w, 4)
			w.BulkString("pmessage")
			w.BulkString(pat.name)
			w.Bulk(channel)
			w.Bulk(message)
			c.deliver(w.B, true)
			n++
		}
	}
	return n
}

// deliver queues output the owner produces for c unasked: a pub/sub frame
// (push), or a MONITOR line. Owner goroutine only; c has a feed.
//
// If c's own batch is running (a client that publishes to itself,
// directly, from a script or in EXEC, a monitor seeing its own command),
// the frame goes into c's reply buffer where the running command has got
// to, as into Redis's one output buffer per client: after the replies
// before it, inside an EXEC's array, before a PUBLISH's count. Nothing is
// moved out of the buffer while a command writes to it: offsets into it
// (where a reply began, what CLIENT REPLY OFF drops) stay valid.
//
// A MONITOR line is a reply to Redis, and CLIENT REPLY OFF or SKIP drops
// it; pub/sub frames are CLIENT_PUSHING output and are never dropped.
func (c *client) deliver(b []byte, push bool) {
	if !push && (c.replyOff || c.replySkip) {
		return
	}
	if !c.onOwner {
		c.Feed.Push(b)
		return
	}
	if !c.Feed.Admits(c.W.Len() - c.Sent + len(b)) {
		return
	}
	from := len(c.W.B)
	c.W.B = append(c.W.B, b...)
	if push {
		c.pushed = append(c.pushed, span{from, len(c.W.B)})
		c.pin()
	}
}

// SUBSCRIBE channel [channel ...]
func cmdSubscribe(x *call, args [][]byte) error {
	// Scripts may not (noscript); MULTI may, as Redis keeps allowing it.
	x.s.subscribe(x, kindChannel, args[1:])
	return nil
}

// SSUBSCRIBE shardchannel [shardchannel ...]: unlike SUBSCRIBE, refused
// inside MULTI too.
func cmdSSubscribe(x *call, args [][]byte) error {
	if x.inExec {
		return resp.NewError("SSUBSCRIBE isn't allowed for a DENY BLOCKING client")
	}
	x.s.subscribe(x, kindShard, args[1:])
	return nil
}

// PSUBSCRIBE pattern [pattern ...]
func cmdPSubscribe(x *call, args [][]byte) error {
	x.s.psubscribe(x, args[1:])
	return nil
}

// UNSUBSCRIBE [channel ...]
func cmdUnsubscribe(x *call, args [][]byte) error {
	x.s.unsubscribe(x.c, x.W, kindChannel, strs(args[1:]))
	return nil
}

// SUNSUBSCRIBE [shardchannel ...]
func cmdSUnsubscribe(x *call, args [][]byte) error {
	x.s.unsubscribe(x.c, x.W, kindShard, strs(args[1:]))
	return nil
}

// PUNSUBSCRIBE [pattern ...]
func cmdPUnsubscribe(x *call, args [][]byte) error {
	x.s.punsubscribe(x.c, x.W, strs(args[1:]))
	return nil
}

// PUBLISH channel message
func cmdPublish(x *call, args [][]byte) error {
	x.W.Int(int64(x.s.publish(args[1], args[2])))
	return nil
}

// SPUBLISH shardchannel message
func cmdSPublish(x *call, args [][]byte) error {
	x.W.Int(int64(x.s.publishKind(kindShard, args[1], args[2])))
	return nil
}

// PUBSUB CHANNELS [pattern] and PUBSUB SHARDCHANNELS [pattern]
func cmdPubsubChannels(x *call, args [][]byte) error {
	if len(args) > 3 {
		return resp.NewError("unknown subcommand or wrong number of arguments for '" + string(args[1]) + "'. Try PUBSUB HELP.")
	}
	table := x.s.pubsub.channels
	if !equalFold(string(args[1]), "channels") {
		table = x.s.pubsub.shard
	}
	names := make([]string, 0, len(table))
	for name := range table {
		if len(args) < 3 || keyspace.Match(args[2], name) {
			names = append(names, name)
		}
	}
	slices.Sort(names) // Redis's order is its hash table's; ours is stable
	x.W.Array(len(names))
	for _, n := range names {
		x.W.BulkString(n)
	}
	return nil
}

// PUBSUB NUMSUB [channel ...] and PUBSUB SHARDNUMSUB [shardchannel ...]
func cmdPubsubNumSub(x *call, args [][]byte) error {
	table := x.s.pubsub.channels
	if equalFold(string(args[1]), "shardnumsub") {
		table = x.s.pubsub.shard
	}
	x.W.Array(2 * (len(args) - 2))
	for _, ch := range args[2:] {
		x.W.Bulk(ch)
		x.W.Int(int64(len(table[string(ch)])))
	}
	return nil
}

// PUBSUB NUMPAT
func cmdPubsubNumPat(x *call, args [][]byte) error {
	x.W.Int(int64(len(x.s.pubsub.patterns)))
	return nil
}

// PUBSUB HELP
func cmdPubsubHelp(x *call, args [][]byte) error {
	return writeHelp(x, "PUBSUB",
		"CHANNELS [<pattern>]",
		"    Return the currently active channels matching a <pattern> (default: '*').",
		"NUMPAT",
		"    Return number of subscriptions to patterns.",
		"NUMSUB [<channel> ...]",
		"    Return the number of subscribers for the specified channels, excluding",
		"    pattern subscriptions(default: no channels).",
		"SHARDCHANNELS [<pattern>]",
		"    Return the currently active shard level channels matching a <pattern> (default: '*').",
		"SHARDNUMSUB [<shardchannel> ...]",
		"    Return the number of subscribers for the specified shard level channel(s)")
}

func strs(args [][]byte) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = string(a)
	}
	return out
}

// errPubsubContext is the refusal of a RESP2 client in subscribed mode
// (server.c:processCommand).
func errPubsubContext(name string) error {
	return resp.NewError("Can't execute '" + name + "': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context")
}

// allowedWhileSubscribed lists what a RESP2 client may send in subscribed
// mode.
func allowedWhileSubscribed(cmd *command) bool {
	switch cmd.name {
	case "ping", "subscribe", "ssubscribe", "unsubscribe", "sunsubscribe",
		"psubscribe", "punsubscribe", "quit", "reset":
		return true
	}
	return false
}
