package lab

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/minilock/minilock/internal/timeline"
)

// Waiting clients. A blocking command or a subscription is answered by the
// server whenever something happens (a push, a publish, a timeout), not
// when the client asks, so the lab cannot just read the reply after the
// command: after every command and every step of the clock, settle finds
// out what the server has sent since and puts it on the timeline at that
// instant. What it consults to know, off the timeline: the count of parked
// clients (INFO's blocked_clients, through the lab's own connection), the
// server's record of published messages (a Tap), and, for a subscriber, a
// PING on its connection, whose PONG comes after every message sent to it
// before.

// realWait bounds how long, in real time, the lab waits for a reply the
// server has already sent: a lab error past it, never a hang.
const realWait = 5 * time.Second

// blocksReply is the reply column of a command the server parked.
const blocksReply = timeline.BlocksReply

// offTimeline marks a context whose command the recorder leaves alone: the
// lab records a blocking command itself.
type offTimeline struct{}

// Blocked is a blocking command a client sent.
type Blocked struct {
	c        *Client
	text     string
	deadline time.Duration // when the server times it out, or forever
	got      chan Reply    // the goroutine that sent the command hands its reply here
	arrived  bool
	reply    Reply
}

// BLPop sends BLPOP key timeout (0: forever) and returns once the server
// has answered it or parked the client; while it is parked, the client
// waits for the lock. Await returns its reply.
func (c *Client) BLPop(key string, timeout time.Duration) *Blocked {
	l := c.lab
	args := []any{"BLPOP", key, strconv.FormatFloat(timeout.Seconds(), 'f', -1, 64)}
	b := &Blocked{c: c, text: formatArgs(args), deadline: forever, got: make(chan Reply, 1)}
	if timeout > 0 {
		b.deadline = l.now() + timeout
	}
	if l.err != nil {
		b.arrived = true
		return b
	}
	ctx := context.WithValue(context.Background(), offTimeline{}, true)
	go func() {
		cmd := c.rdb.Do(ctx, args...)
		b.got <- Reply{cmd.Val(), cmd.Err()}
	}()
	want := len(l.parked) + 1
	for start := time.Now(); ; time.Sleep(50 * time.Microsecond) {
		select {
		case r := <-b.got:
			b.arrived, b.reply = true, r
			l.command(c, b.text, formatReply(r.val, r.err), transportErr(r.err))
			return b
		default:
		}
		n, err := l.blockedClients()
		if err != nil || time.Since(start) > realWait {
			l.fail(fmt.Errorf("%s: %s was neither answered nor parked (%v)", c.Name, b.text, err))
			b.arrived = true
			return b
		}
		if n >= want {
			l.parked = append(l.parked, b)
			l.waits[c] = lease{until: forever}
			l.command(c, b.text, blocksReply, nil)
			return b
		}
	}
}

// Await lets time pass until the server answers b, and returns its reply.
// On nil (the client got the lock and did not block) it returns at once.
func (b *Blocked) Await() Reply {
	if b == nil {
		return Reply{}
	}
	l := b.c.lab
	if !b.arrived && b.deadline == forever && len(l.parked) > 0 {
		l.fail(fmt.Errorf("%s: %s would wait forever", b.c.Name, b.text))
	}
	if !b.arrived {
		l.advance(b.deadline+time.Millisecond, func() bool { return b.arrived })
	}
	if !b.arrived {
		l.fail(fmt.Errorf("%s: %s not answered after its timeout", b.c.Name, b.text))
	}
	return b.reply
}

// subscription is a client's pub/sub connection.
type subscription struct {
	ps    *redis.PubSub
	inbox []string // payloads delivered and not yet consumed
}

// Subscribe subscribes c to channel on a connection of its own (go-redis's
// PubSub), waiting for the server's confirmation: from its row on, every
// message published to channel reaches c.
func (c *Client) Subscribe(channel string) {
	ctx := context.Background()
	ps := c.rdb.Subscribe(ctx, channel)
	c.sub = &subscription{ps: ps}
	m, err := ps.ReceiveTimeout(ctx, realWait)
	reply := formatReply(nil, err)
	if s, ok := m.(*redis.Subscription); ok {
		reply = formatReply([]any{s.Kind, s.Channel, int64(s.Count)}, nil)
	}
	c.lab.command(c, formatArgs([]any{"SUBSCRIBE", channel}), reply, transportErr(err))
}

// waitUpTo records that c, which just found the lock taken, waits for it:
// for d at most by its own timer, or, with forever, until the server
// answers it. A message on its subscription ends the wait.
func (c *Client) waitUpTo(d time.Duration) {
	w := lease{until: forever}
	if d != forever {
		w = lease{c.lab.now() + d, fmt.Sprintf("its %v wait ran out", d)}
	}
	c.lab.waits[c] = w
	c.lab.restamp()
}

// AwaitMessage lets time pass until a message reaches c's subscription or
// c's wait runs out, and reports whether a message came.
func (c *Client) AwaitMessage() bool {
	l := c.lab
	if c.sub == nil {
		l.fail(fmt.Errorf("%s waits for a message without a subscription", c.Name))
		return false
	}
	if w, ok := l.waits[c]; ok && len(c.sub.inbox) == 0 {
		if w.until == forever {
			l.fail(fmt.Errorf("%s would wait forever for a message", c.Name))
			return false
		}
		l.advance(w.until, func() bool {
			_, waiting := l.waits[c]
			return len(c.sub.inbox) > 0 || !waiting
		})
	}
	got := len(c.sub.inbox) > 0
	c.sub.inbox = nil
	if _, ok := l.waits[c]; ok {
		delete(l.waits, c) // a message delivered before the wait began
		l.restamp()
	}
	return got
}

// endWaits ends the waits whose timer ran out, each with a note.
func (l *Lab) endWaits() {
	now := l.now()
	for _, c := range l.clients {
		w, ok := l.waits[c]
		if !ok || w.until == forever || w.until > now {
			continue
		}
		delete(l.waits, c)
		c.Note("stops waiting: " + w.why)
	}
}

func (l *Lab) waiters() []string {
	var names []string
	for c := range l.waits {
		names = append(names, c.Name)
	}
	slices.Sort(names)
	return names
}

// settle puts on the timeline what the server sent to waiting clients since
// the last look: messages to subscribers, then replies to parked commands.
func (l *Lab) settle() {
	if l.err == nil {
		l.deliverMessages()
	}
	if l.err == nil {
		l.deliverReplies()
	}
}

func (l *Lab) deliverMessages() {
	published := len(l.tap.Messages())
	if published == l.heard {
		return
	}
	l.heard = published
	ctx := context.Background()
	for _, c := range l.clients {
		if c.sub == nil {
			continue
		}
		if err := c.sub.ps.Ping(ctx); err != nil {
			l.fail(fmt.Errorf("%s: PING on its subscription: %w", c.Name, err))
			return
		}
		for pong := false; !pong; {
			m, err := c.sub.ps.ReceiveTimeout(ctx, realWait)
			if err != nil {
				l.fail(fmt.Errorf("%s: reading its subscription: %w", c.Name, err))
				return
			}
			switch m := m.(type) {
			case *redis.Pong:
				pong = true
			case *redis.Message:
				c.sub.inbox = append(c.sub.inbox, m.Payload)
				delete(l.waits, c) // a message wakes the waiter
				l.add(Event{Actor: c.Name, Kind: Push, Text: "message " + m.Channel, Reply: strconv.Quote(m.Payload)})
			}
		}
	}
}

func (l *Lab) deliverReplies() {
	if len(l.parked) == 0 {
		return
	}
	n, err := l.blockedClients()
	if err != nil {
		l.fail(err)
		return
	}
	answered := len(l.parked) - n
	if answered <= 0 {
		return
	}
	// The server has answered that many; their replies are on the way.
	for start, got := time.Now(), 0; got < answered; time.Sleep(50 * time.Microsecond) {
		for _, b := range l.parked {
			if b.arrived {
				continue
			}
			select {
			case b.reply = <-b.got:
				b.arrived = true
				got++
			default:
			}
		}
		if got < answered && time.Since(start) > realWait {
			l.fail(fmt.Errorf("the server answered %d parked commands, %d replies came", answered, got))
			return
		}
	}
	// In the order they blocked: the order the server serves them.
	var still []*Blocked
	for _, b := range l.parked {
		if !b.arrived {
			still = append(still, b)
			continue
		}
		delete(l.waits, b.c)
		if err := transportErr(b.reply.err); err != nil {
			l.fail(fmt.Errorf("%s: %s: %w", b.c.Name, b.text, err))
		}
		l.add(Event{Actor: b.c.Name, Kind: Push, Text: b.text, Reply: formatReply(b.reply.val, b.reply.err)})
	}
	l.parked = still
}

// blockedClients asks the server how many clients it has parked.
func (l *Lab) blockedClients() (int, error) {
	info, err := l.obs.Info(context.Background(), "clients").Result()
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "blocked_clients:"); ok {
			return strconv.Atoi(v)
		}
	}
	return 0, errors.New("INFO clients has no blocked_clients")
}

// observeSet reads a semaphore's sorted set: its members, in score order,
// and its TTL.
func (l *Lab) observeSet() (string, bool, time.Duration) {
	ctx := context.Background()
	members, err := l.obs.ZRange(ctx, l.sc.Key, 0, -1).Result()
	if err != nil {
		l.fail(err)
	}
	ms, err := l.obs.Do(ctx, "PTTL", l.sc.Key).Int64()
	if err != nil {
		l.fail(err)
	}
	return strings.Join(members, ","), len(members) > 0, max(time.Duration(ms)*time.Millisecond, 0)
}

// observePending reads a work queue's pending entries: which entry is
// pending for which consumer ("1700000000000-0 A,..."); no TTL.
func (l *Lab) observePending() (string, bool, time.Duration) {
	ctx := context.Background()
	pending, err := l.obs.XPendingExt(ctx, &redis.XPendingExtArgs{Stream: l.sc.Key, Group: l.sc.Group, Start: "-", End: "+", Count: 100}).Result()
	if err != nil && !strings.Contains(err.Error(), "NOGROUP") {
		l.fail(err)
	}
	var parts []string
	for _, p := range pending {
		parts = append(parts, p.ID+" "+p.Consumer)
	}
	return strings.Join(parts, ","), len(parts) > 0, 0
}

// fail records the lab's first failure.
func (l *Lab) fail(err error) {
	if l.err == nil {
		l.err = err
	}
}
