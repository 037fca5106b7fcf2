package server

import (
	"container/heap"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/minilock/minilock/internal/cmdargs"
	"github.com/minilock/minilock/keyspace"
	"github.com/minilock/minilock/resp"
)

// Blocking pops (BLPOP BRPOP BLMPOP BLMOVE BRPOPLPUSH BZPOPMIN BZPOPMAX
// BZMPOP) as Redis 7.0's blocked.c.
//
// How a wake-up travels: a blocking command that finds nothing parks its
// client here, on the owner, in a FIFO per awaited key, and its batch stops
// there; the connection's goroutine writes the replies before it and waits.
// When a command creates an awaited list or sorted set (keyspace.TakeReady),
// execute serves the parked clients once that command is complete (a MULTI
// or a script first runs to its end), in the order they blocked, each
// popping as if it had just run its command; the reply goes to the
// client's wake buffer (or its feed) and its goroutine, woken, sends it and
// goes on with the rest of its pipeline. Deadlines are kept by the owner
// (see dueWork) on the server's clock, so FastForward past a timeout
// answers the client at once. A client that disconnects while parked is
// noticed by a read its goroutine keeps open, and forgotten.

// parked is one blocked client and the command it waits to finish.
type parked struct {
	c        *client
	db       int
	keys     [][]byte               // copies: the request's bytes are reused
	deadline int64                  // Unix ms on the server's clock; 0: forever
	name     string                 // the command, lower case ("blmove")
	zset     bool                   // waits for a sorted set, not a list
	front    bool                   // pop at the head (or the minimum)
	toFront  bool                   // BLMOVE: push at the head
	dst      []byte                 // BLMOVE, BRPOPLPUSH
	count    int64                  // BLMPOP, BZMPOP
	xread    *keyspace.XReadRequest // XREAD, XREADGROUP
	done     bool                   // served, timed out or dropped
	quiet    bool                   // CLIENT REPLY OFF or SKIP: its answer is dropped
	index    int                    // in the deadline heap; -1 when not there
}

// blockingState is the owner's record of parked clients.
type blockingState struct {
	s      *Server
	byKey  map[keyspace.ReadyKey][]*parked
	timers deadlines
	parked int // clients parked now (INFO's blocked_clients)
}

// deadlines is a min-heap of parked clients by deadline.
type deadlines []*parked

func (h deadlines) Len() int           { return len(h) }
func (h deadlines) Less(i, j int) bool { return h[i].deadline < h[j].deadline }
func (h deadlines) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *deadlines) Push(x any) { p := x.(*parked); p.index = len(*h); *h = append(*h, p) }
func (h *deadlines) Pop() any {
	old := *h
	p := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	p.index = -1
	return p
}

// Next is the earliest deadline (see dueWork).
func (b *blockingState) Next() (int64, bool) {
	if len(b.timers) == 0 {
		return 0, false
	}
	return b.timers[0].deadline, true
}

// Fire answers the clients whose deadline has passed with their command's
// timeout reply (timedOut; dueWork; owner goroutine).
func (b *blockingState) Fire(now int64) {
	for len(b.timers) > 0 && b.timers[0].deadline < now {
		p := heap.Pop(&b.timers).(*parked)
		b.unpark(p)
		b.wake(p, p.timedOut)
	}
}

// timedOut writes what p's command answers when its timeout passes
// (replyToBlockedClientTimedOut): a null array, or for WAIT the replicas
// that acknowledged, none.
func (p *parked) timedOut(w *resp.Writer) {
	if p.name == "wait" {
		w.Int(0)
		return
	}
	w.NullArray()
}

// park registers x's client as waiting for p's keys.
func (b *blockingState) park(x *call, p *parked) {
	p.c, p.db, p.index = x.c, x.DB, -1
	// A key named twice is awaited once, as blockForKeys's dictAdd does:
	// BLPOP k k k ... must not queue the client a million times on k.
	seen := make(map[string]struct{}, len(p.keys))
	keys := p.keys[:0:0]
	for _, k := range p.keys {
		if _, dup := seen[string(k)]; dup {
			continue
		}
		seen[string(k)] = struct{}{}
		keys = append(keys, append([]byte(nil), k...))
		rk := keyspace.ReadyKey{DB: p.db, Key: string(k)}
		b.byKey[rk] = append(b.byKey[rk], p)
		b.s.ks.Await(p.db, rk.Key)
	}
	p.keys = keys
	p.dst = append([]byte(nil), p.dst...)
	if p.deadline != 0 {
		heap.Push(&b.timers, p)
	}
	x.c.parked = p
	if p.name != "migrate" { // MIGRATE waits on the network, not blocked as Redis counts it
		b.parked++
	}
}

// unpark removes p from every queue it is in.
func (b *blockingState) unpark(p *parked) {
	p.done = true
	if p.name != "migrate" {
		b.parked--
	}
	for _, k := range p.keys {
		rk := keyspace.ReadyKey{DB: p.db, Key: string(k)}
		q := b.byKey[rk]
		for i, o := range q {
			if o == p {
				q = append(q[:i:i], q[i+1:]...)
				break
			}
		}
		if len(q) == 0 {
			delete(b.byKey, rk)
		} else {
			b.byKey[rk] = q
		}
		b.s.ks.Unawait(p.db, rk.Key)
	}
	if p.index >= 0 {
		heap.Remove(&b.timers, p.index)
	}
}

// wake writes p's reply with reply and hands it to p's connection.
func (b *blockingState) wake(p *parked, reply func(w *resp.Writer)) {
	c := p.c
	c.parked = nil
	c.bw.Proto = c.W.Proto
	reply(&c.bw)
	if p.quiet {
		c.bw.B = c.bw.B[:0]
	}
	if c.Feed != nil {
		c.Feed.Push(c.bw.B)
		c.bw.B = c.bw.B[:0]
	}
	if c.OnLoop() {
		c.takeParked()
		c.Unparked() // the event loop resumes c's pipeline
		return
	}
	c.Wake <- struct{}{}
}

// serveReady serves the clients parked on keys that became ready, as
// handleClientsBlockedOnKeys: a list or sorted set created by the command
// that just completed. Owner goroutine only.
func (s *Server) serveReady() {
	for {
		ready := s.ks.TakeReady()
		if len(ready) == 0 {
			return
		}
		for _, rk := range ready {
			popsDone := false
			for _, p := range append([]*parked(nil), s.blocking.byKey[rk]...) {
				switch {
				case p.done:
				case p.xread != nil:
					// Every reader is looked at, as Redis walks the whole
					// queue of a stream key.
					s.serveStreamParked(p, []byte(rk.Key))
				case popsDone:
				case !s.serveParked(p, []byte(rk.Key)):
					popsDone = true // the key is gone (or of another type): the rest wait on
				}
			}
		}
	}
}

// serveParked pops for p from key, if key still holds what p waits for,
// and reports whether it did.
func (s *Server) serveParked(p *parked, key []byte) bool {
	ctx := keyspace.Ctx{W: &p.c.bw, DB: p.db, Now: s.ks.Now()}
	p.c.bw.Proto = p.c.W.Proto
	if i, err := s.ks.Awaitable(&ctx, [][]byte{key}, p.zset); err != nil || i < 0 {
		return false
	}
	s.blocking.unpark(p)
	var err error
	switch p.name {
	case "blpop", "brpop":
		s.ks.PopWithKey(&ctx, key, p.front)
	case "blmpop":
		err = s.ks.MPop(&ctx, [][]byte{key}, p.front, p.count)
	case "blmove", "brpoplpush":
		err = s.ks.Move(&ctx, key, p.dst, p.front, p.toFront)
	case "bzpopmin", "bzpopmax":
		err = s.ks.ZPopWithKey(&ctx, key, !p.front, -1, false)
	case "bzmpop":
		err = s.ks.ZPopWithKey(&ctx, key, !p.front, p.count, true)
	}
	if err != nil {
		p.c.bw.B = p.c.bw.B[:0]
		p.c.bw.Err(err) // BLMOVE to a key of another type: WRONGTYPE
	}
	s.blocking.wake(p, func(*resp.Writer) {})
	return true
}

// dropParked forgets c's parked command: CLIENT UNBLOCK, a disconnect.
// It reports whether c was parked. Owner goroutine only.
func (s *Server) dropParked(c *client) bool {
	p := c.parked
	if p == nil || p.done {
		return false
	}
	s.blocking.unpark(p)
	return true
}

// deniesBlocking: inside MULTI or a script a blocking
// command that finds nothing answers at once, as if it had timed out.
func deniesBlocking(x *call) bool { return x.script != nil || x.inExec }

// blockFor parks x's client for p, or, where blocking is denied, answers
// what a timeout would.
func (s *Server) blockFor(x *call, p *parked, timeout int64) error {
	if deniesBlocking(x) {
		if p.name == "blmove" || p.name == "brpoplpush" {
			x.W.Null()
		} else {
			x.W.NullArray()
		}
		return nil
	}
	if timeout > 0 {
		p.deadline = x.Now + timeout
		if p.deadline <= 0 {
			p.deadline = 0 // overflowed: Redis's timeout table never reaches it
		}
	}
	s.blocking.park(x, p)
	return errNoReply
}

// BLPOP key [key ...] timeout, BRPOP key [key ...] timeout
func cmdBLPop(x *call, args [][]byte) error    { return bpop(x, args, true) }
func cmdBRPop(x *call, args [][]byte) error    { return bpop(x, args, false) }
func cmdBZPopMin(x *call, args [][]byte) error { return bzpop(x, args, true) }
func cmdBZPopMax(x *call, args [][]byte) error { return bzpop(x, args, false) }

func bpop(x *call, args [][]byte, front bool) error {
	timeout, err := parseTimeout(args[len(args)-1])
	if err != nil {
		return err
	}
	keys := args[1 : len(args)-1]
	i, err := x.s.ks.Awaitable(&x.Ctx, keys, false)
	if err != nil {
		return err
	}
	if i >= 0 {
		x.s.ks.PopWithKey(&x.Ctx, keys[i], front)
		return nil
	}
	return x.s.blockFor(x, &parked{name: lowerName(args[0]), keys: keys, front: front}, timeout)
}

func bzpop(x *call, args [][]byte, min bool) error {
	timeout, err := parseTimeout(args[len(args)-1])
	if err != nil {
		return err
	}
	keys := args[1 : len(args)-1]
	i, err := x.s.ks.Awaitable(&x.Ctx, keys, true)
	if err != nil {
		return err
	}
	if i >= 0 {
		return x.s.ks.ZPopWithKey(&x.Ctx, keys[i], !min, -1, false)
	}
	return x.s.blockFor(x, &parked{name: lowerName(args[0]), keys: keys, zset: true, front: min}, timeout)
}

// BLMPOP timeout numkeys key [key ...] LEFT|RIGHT [COUNT count]
func cmdBLMPop(x *call, args [][]byte) error { return bmpop(x, args, false) }

// BZMPOP timeout numkeys key [key ...] MIN|MAX [COUNT count]
func cmdBZMPop(x *call, args [][]byte) error { return bmpop(x, args, true) }

func bmpop(x *call, args [][]byte, zset bool) error {
	keys, second, count, err := parseMPop(args, zset)
	if err != nil {
		return err
	}
	timeout, err := parseTimeout(args[1])
	if err != nil {
		return err
	}
	i, err := x.s.ks.Awaitable(&x.Ctx, keys, zset)
	if err != nil {
		return err
	}
	if i >= 0 {
		if zset {
			return x.s.ks.ZPopWithKey(&x.Ctx, keys[i], second, count, true)
		}
		return x.s.ks.MPop(&x.Ctx, keys[i:i+1], !second, count)
	}
	return x.s.blockFor(x, &parked{name: lowerName(args[0]), keys: keys, zset: zset, front: !second, count: count}, timeout)
}

// BLMOVE source destination LEFT|RIGHT LEFT|RIGHT timeout
func cmdBLMove(x *call, args [][]byte) error {
	from, err := cmdargs.ListEnd(args[3])
	if err != nil {
		return err
	}
	to, err := cmdargs.ListEnd(args[4])
	if err != nil {
		return err
	}
	return bmove(x, args[1], args[2], from, to, args[5], "blmove")
}

// BRPOPLPUSH source destination timeout
func cmdBRPopLPush(x *call, args [][]byte) error {
	return bmove(x, args[1], args[2], false, true, args[3], "brpoplpush")
}

func bmove(x *call, src, dst []byte, from, to bool, timeoutArg []byte, name string) error {
	timeout, err := parseTimeout(timeoutArg)
	if err != nil {
		return err
	}
	i, err := x.s.ks.Awaitable(&x.Ctx, [][]byte{src}, false)
	if err != nil {
		return err
	}
	if i >= 0 {
		return x.s.ks.Move(&x.Ctx, src, dst, from, to)
	}
	return x.s.blockFor(x, &parked{name: name, keys: [][]byte{src}, dst: dst, front: from, toFront: to}, timeout)
}

// CLIENT UNBLOCK client-id [TIMEOUT|ERROR]
func cmdClientUnblock(x *call, args [][]byte) error {
	id, err := strconv.ParseInt(string(args[2]), 10, 64)
	if err != nil {
		return resp.NewError("value is not an integer or out of range")
	}
	asError := false
	if len(args) == 4 {
		switch {
		case equalFold(string(args[3]), "timeout"):
		case equalFold(string(args[3]), "error"):
			asError = true
		default:
			return resp.NewError("CLIENT UNBLOCK reason should be TIMEOUT or ERROR")
		}
	} else if len(args) > 4 {
		return resp.NewError("unknown subcommand or wrong number of arguments for '" + string(args[1]) + "'. Try CLIENT HELP.")
	}
	var target *client
	for _, c := range x.s.clients.snapshot() {
		if c.id == id {
			target = c
		}
	}
	if target == nil || target.parked == nil || target.parked.name == "migrate" {
		x.W.Int(0)
		return nil
	}
	p := target.parked
	x.s.dropParked(target)
	x.s.blocking.wake(p, func(w *resp.Writer) {
		if asError {
			w.Err(&resp.Error{Code: "UNBLOCKED", Msg: "client unblocked via CLIENT UNBLOCK"})
		} else {
			p.timedOut(w)
		}
	})
	x.W.Int(1)
	return nil
}

func lowerName(b []byte) string { return strings.ToLower(string(b)) }

var (
	errTimeoutNotFloat = resp.NewError("timeout is not a float or out of range")
	errTimeoutNegative = resp.NewError("timeout is negative")
)

// parseTimeout reads a blocking command's timeout in seconds as Redis's
// getTimeoutFromObjectOrReply does, in a long double (strtold: 64 bits of
// mantissa, hexadecimal and "inf" accepted), rounded up to milliseconds,
// and returns milliseconds, 0 meaning forever. A value past the range of a
// long long converts, on the machines Redis runs on, to its minimum, which
// Redis then calls negative.
func parseTimeout(b []byte) (int64, error) {
	s := string(b)
	if s == "" || len(s) >= 5*1024 || s[0] == ' ' || (s[0] >= '\t' && s[0] <= '\r') || strings.ContainsRune(s, '_') {
		return 0, errTimeoutNotFloat
	}
	if len(s) <= 15 && strings.Trim(s, "0123456789") == "" {
		// Whole seconds, what clients send: exact without a long double.
		n, _ := strconv.ParseInt(s, 10, 64)
		return n * 1000, nil
	}
	word := strings.ToLower(strings.TrimLeft(s, "+-"))
	switch {
	case word == "inf" || word == "infinity":
		return 0, errTimeoutNegative
	case strings.HasPrefix(word, "nan") || strings.HasPrefix(word, "inf"):
		return 0, errTimeoutNotFloat
	}
	f, _, err := big.ParseFloat(s, 0, 64, big.ToNearestEven)
	if err != nil {
		return 0, errTimeoutNotFloat
	}
	if exp := f.MantExp(nil); f.Sign() != 0 && (exp > 16384 || exp < -16444) {
		return 0, errTimeoutNotFloat // past a long double: ERANGE
	}
	f.Mul(f, big.NewFloat(1000).SetPrec(64))
	ms, acc := f.Int64()
	if acc == big.Below { // f.Int64 truncates: round up
		ms++
	}
	switch {
	case f.Cmp(new(big.Float).SetInt64(math.MaxInt64)) >= 0 || f.Cmp(new(big.Float).SetInt64(math.MinInt64)) < 0:
		return 0, errTimeoutNegative
	case ms < 0:
		return 0, errTimeoutNegative
	}
	return ms, nil
}

// takeParked moves the answer of c's parked command to its replies,
// unless the feed has it already. On the owner (the event loop) or on c's
// goroutine once woken (netHandler.Answered).
func (c *client) takeParked() {
	if c.Feed == nil {
		c.W.B = append(c.W.B, c.bw.B...)
	}
	c.bw.B = c.bw.B[:0]
}

// parseMPop parses BLMPOP's (LEFT|RIGHT) or BZMPOP's (MIN|MAX, when zset)
// numkeys, keys, end and COUNT, after the timeout.
func parseMPop(args [][]byte, zset bool) ([][]byte, bool, int64, error) {
	if zset {
		return cmdargs.MPop(args, 2, "min", "max")
	}
	return cmdargs.MPop(args, 2, "left", "right")
}
