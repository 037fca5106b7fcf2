package lab

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/minilock/minilock/expiry"
	"github.com/minilock/minilock/internal/timeline"
	"github.com/minilock/minilock/server"
)

// epoch is the simulated instant every scenario starts at. It is fixed so
// that timestamps written by the timestamp-lock recipes print the same on
// every run.
var epoch = time.Unix(1_700_000_000, 0)

// forever is the end of a lease the client cannot know: a lock without a
// TTL is held until released.
const forever time.Duration = -1

// Lab is one scenario's world: an embedded minilock on a manual clock, the
// clients that talk to it, the storage the lock protects, and the timeline
// of what happened.
type Lab struct {
	sc      *Scenario
	srv     *server.Server
	rng     *rand.Rand
	clients []*Client
	events  []Event
	leases  map[*Client]lease
	storage storage

	lock     LockState     // the lock key as last observed
	deadline time.Duration // when the key's TTL ends; forever without one

	waits  map[*Client]lease // who waits for the lock, until when by its own timer
	parked []*Blocked        // blocking commands the server has not answered, in order
	obs    *redis.Client     // the lab's own connection, off the timeline
	tap    *server.Tap       // every message published
	heard  int               // how many of tap's messages were delivered

	err error  // the first failure of the lab itself
	dir string // the AOF's directory, removed at the end
}

// lease is a client's belief that it holds the lock, and until when.
type lease struct {
	until time.Duration // simulated time it ends, or forever
	why   string        // why it ends then, for the note
}

func newLab(sc *Scenario, dc *server.DoctorConfig) (*Lab, error) {
	cfg := server.Config{Clock: expiry.NewManual(epoch), Doctor: dc, RestartDelay: sc.RestartDelay}
	var dir string
	if sc.AppendFsync != "" {
		d, err := os.MkdirTemp("", "minilock-lab-")
		if err != nil {
			return nil, err
		}
		dir = d
		cfg.Dir = dir
		cfg.Params = [][2]string{{"appendonly", "yes"}, {"appendfsync", sc.AppendFsync}}
	}
	srv, err := server.Start(cfg)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return &Lab{
		dir:      dir,
		sc:       sc,
		srv:      srv,
		rng:      rand.New(rand.NewPCG(1, 2)), // fixed seed: the same tokens every run
		leases:   make(map[*Client]lease),
		storage:  storage{fenced: sc.Fenced},
		deadline: forever,
		waits:    make(map[*Client]lease),
		obs:      redis.NewClient(&redis.Options{Addr: srv.Addr(), MaxRetries: -1}),
		tap:      srv.Tap("*"),
	}, nil
}

func (l *Lab) close() {
	for _, c := range l.clients {
		if c.sub != nil {
			c.sub.ps.Close()
		}
		c.rdb.Close()
	}
	l.obs.Close()
	l.srv.Close()
	if l.dir != "" {
		os.RemoveAll(l.dir)
	}
}

// PowerLoss takes the server down as a power cut would and brings it back
// on the same address with what its disk held (server.PowerLoss). The
// clients reconnect; what they believe they hold, they go on believing.
func (l *Lab) PowerLoss(why string) {
	l.add(Event{Actor: Server, Kind: Note, Text: "loses power and restarts: " + why})
	if err := l.srv.PowerLoss(); err != nil {
		l.fail(err)
		return
	}
	for _, c := range l.clients {
		c.rdb.Close()
		c.connect()
	}
}

// now is the simulated time since the scenario started.
func (l *Lab) now() time.Duration { return l.srv.Now().Sub(epoch) }

// token returns a random lock token, as a careful client would make one;
// the generator is seeded, so runs repeat.
func (l *Lab) token() string { return fmt.Sprintf("%08x", l.rng.Uint32()) }

// Client is one go-redis client in a scenario. Its commands and their
// replies go on the timeline as they happen.
type Client struct {
	Name   string
	lab    *Lab
	rdb    *redis.Client
	skew   time.Duration // how far this client's own clock runs ahead
	paused bool
	sub    *subscription // its pub/sub connection, once it subscribed
}

// client connects a new go-redis client called name.
func (l *Lab) client(name string) *Client {
	c := &Client{Name: name, lab: l}
	c.connect()
	l.clients = append(l.clients, c)
	return c
}

// connect gives c a new go-redis client on the server.
func (c *Client) connect() {
	l := c.lab
	c.rdb = redis.NewClient(&redis.Options{
		Addr: l.srv.Addr(),
		// Exactly the commands the scenario sends, each once: a retry
		// would be a second command on the timeline.
		MaxRetries: -1,
		// The connection carries the client's name (CLIENT SETNAME), so
		// that the lock doctor's report names A and B as the lab does.
		ClientName: c.Name,
	})
	c.rdb.AddHook(recorder{c})
}

// Do sends a command and returns its reply.
func (c *Client) Do(args ...any) Reply {
	cmd := c.rdb.Do(context.Background(), args...)
	return Reply{cmd.Val(), cmd.Err()}
}

// Tx sends the commands in one MULTI ... EXEC and returns their replies.
func (c *Client) Tx(cmds ...[]any) []Reply {
	return tx(c.rdb, cmds)
}

// Watch sends WATCH key, then runs f with a connection on which the watch
// holds, as go-redis's Client.Watch does.
func (c *Client) Watch(key string, f func(w Watched)) {
	err := c.rdb.Watch(context.Background(), func(t *redis.Tx) error {
		f(Watched{t})
		return nil
	}, key)
	if err := transportErr(err); err != nil && c.lab.err == nil {
		c.lab.err = err
	}
}

// Watched is the connection a WATCH holds on.
type Watched struct{ tx *redis.Tx }

// Do sends a command on the watched connection.
func (w Watched) Do(args ...any) Reply {
	cmd := w.tx.Do(context.Background(), args...)
	return Reply{cmd.Val(), cmd.Err()}
}

// Tx sends MULTI ... EXEC on the watched connection.
func (w Watched) Tx(cmds ...[]any) []Reply { return tx(w.tx, cmds) }

func tx(p interface {
	TxPipelined(context.Context, func(redis.Pipeliner) error) ([]redis.Cmder, error)
}, cmds [][]any) []Reply {
	ctx := context.Background()
	sent := make([]*redis.Cmd, len(cmds))
	p.TxPipelined(ctx, func(pipe redis.Pipeliner) error {
		for i, args := range cmds {
			sent[i] = pipe.Do(ctx, args...)
		}
		return nil
	})
	out := make([]Reply, len(sent))
	for i, cmd := range sent {
		out[i] = Reply{cmd.Val(), cmd.Err()}
	}
	return out
}

// Reply is what a command got back.
type Reply struct {
	val any
	err error
}

// OK reports a +OK reply.
func (r Reply) OK() bool { return r.err == nil && r.val == "OK" }

// Int returns an integer reply, or 0.
func (r Reply) Int() int64 {
	n, _ := r.val.(int64)
	return n
}

// Str returns a string reply, or "".
func (r Reply) Str() string {
	s, _ := r.val.(string)
	return s
}

// lock is the key of the scenario's lock.
func (c *Client) lock() string { return c.lab.sc.Key }

// Now reads the client's own clock, which runs skew ahead of the server's.
func (c *Client) Now() time.Time { return c.lab.srv.Now().Add(c.skew) }

// holds records that the client, from the reply it just got, believes it
// holds the lock for ttl (forever: until it releases it).
func (c *Client) holds(ttl time.Duration) {
	if ttl == forever {
		c.holdsUntil(forever, "")
		return
	}
	c.holdsUntil(c.lab.now()+ttl, fmt.Sprintf("its %v TTL ran out", ttl))
}

// holdsUntil records a belief that ends at the simulated time until.
func (c *Client) holdsUntil(until time.Duration, why string) {
	c.lab.leases[c] = lease{until, why}
	c.lab.restamp()
}

// released records that the client no longer believes it holds the lock.
func (c *Client) released() {
	delete(c.lab.leases, c)
	c.lab.restamp()
}

// Notes the picture recognises, to draw a crash or a paused lifeline.
const (
	crashNote  = timeline.CrashNote
	pauseNote  = timeline.PauseNote
	resumeNote = timeline.ResumeNote
)

// Crash closes the client's connection; whatever it held, it no longer
// believes anything.
func (c *Client) Crash(why string) {
	for _, b := range c.lab.parked {
		if b.c == c {
			// The server forgets a parked client only when it notices the
			// closed socket, which the lab cannot time.
			c.lab.fail(fmt.Errorf("%s crashes while parked in %s: not supported", c.Name, b.text))
		}
	}
	if c.sub != nil {
		c.sub.ps.Close()
		c.sub = nil
	}
	c.rdb.Close()
	delete(c.lab.leases, c)
	delete(c.lab.waits, c)
	c.Note(crashNote + " " + why)
}

// Pause stops the client (a GC pause, a stalled VM) until Resume; time
// passes with Wait.
func (c *Client) Pause(why string) {
	c.paused = true
	c.Note(pauseNote + ": " + why)
}

// Resume ends a pause.
func (c *Client) Resume() {
	c.paused = false
	c.Note(resumeNote + ", unaware of the pause")
}

// Note puts something the client does without a message on the timeline.
func (c *Client) Note(text string) { c.lab.add(Event{Actor: c.Name, Kind: Note, Text: text}) }

// Write sends data to the storage the lock protects, with a fencing token
// when token > 0.
func (c *Client) Write(data string, token int64) bool {
	ok, answer := c.lab.storage.write(token)
	text := fmt.Sprintf("write %q", data)
	if token > 0 {
		text += fmt.Sprintf(" token=%d", token)
	}
	c.lab.add(Event{Actor: c.Name, Kind: Write, Text: text, Reply: answer, Accepted: ok})
	return ok
}

// storage is the resource the lock protects, as in Kleppmann's example: it
// accepts every write, unless it is fenced, in which case it refuses a
// token lower than the highest it has seen.
type storage struct {
	fenced  bool
	highest int64
}

func (s *storage) write(token int64) (bool, string) {
	if s.fenced && token < s.highest {
		return false, fmt.Sprintf("refused: token %d < %d", token, s.highest)
	}
	s.highest = max(s.highest, token)
	return true, "ok"
}

// Wait lets d pass on the server's clock. It stops at every instant where
// something happens by itself, a client's lease running out, the lock key
// expiring, a waiter's timer running out or a blocked command timing out,
// so that each gets its own row at its own time.
func (l *Lab) Wait(d time.Duration, why string) {
	l.add(Event{Actor: Nobody, Kind: Note, Text: fmt.Sprintf("%v pass: %s", d, why)})
	l.advance(l.now()+d, nil)
}

// advance moves the clock to end, stopping where Wait stops; it returns
// early, at such an instant, once done reports true.
func (l *Lab) advance(end time.Duration, done func() bool) {
	for l.err == nil && (done == nil || !done()) {
		now := l.now()
		next := end
		soonest := func(t time.Duration) {
			if t != forever && t > now && t < next {
				next = t
			}
		}
		for _, ls := range l.leases {
			soonest(ls.until)
		}
		for _, w := range l.waits {
			soonest(w.until)
		}
		// A key expires, and a blocked command times out, once the clock is
		// past its deadline.
		if l.deadline != forever {
			soonest(l.deadline + time.Millisecond)
		}
		for _, b := range l.parked {
			if b.deadline != forever {
				soonest(b.deadline + time.Millisecond)
			}
		}
		l.srv.FastForward(next - now)
		l.endLeases()
		if was := l.lock; l.observe() && was.Held && !l.lock.Held {
			l.add(Event{Actor: Server, Kind: Note, Text: fmt.Sprintf("%s expires: its TTL ran out", l.sc.Key)})
		}
		l.endWaits()
		l.settle()
		if next >= end {
			return
		}
	}
}

// endLeases drops the beliefs whose time is up, each with a note.
func (l *Lab) endLeases() {
	now := l.now()
	for _, c := range l.clients {
		ls, ok := l.leases[c]
		if !ok || ls.until == forever || ls.until > now {
			continue
		}
		delete(l.leases, c)
		text := "no longer holds the lock: " + ls.why
		if c.paused {
			text += "; it is paused and does not know"
		}
		c.Note(text)
	}
}

// command puts a command and its reply on the timeline; the hook calls it.
// If the command changed the lock key, its client is now the key's owner.
func (l *Lab) command(c *Client, text, reply string, err error) {
	if err != nil && l.err == nil {
		l.err = fmt.Errorf("%s: %s: %w", c.Name, text, err)
	}
	if l.observe() && l.lock.Held && l.sc.Permits <= 1 {
		l.lock.Owner = c.Name
	}
	l.add(Event{Actor: c.Name, Kind: Command, Text: text, Reply: reply})
	l.settle()
}

// queued puts MULTI, or a command queued after it, on the timeline: the
// server has not run it yet, so the lock key is as it was.
func (l *Lab) queued(c *Client, text, reply string) {
	l.add(Event{Actor: c.Name, Kind: Command, Text: text, Reply: reply})
}

// observe reads the lock key on the server directly (no command, so no
// row) and reports whether its value or deadline changed.
func (l *Lab) observe() bool {
	val, held := l.srv.Get(l.sc.Key)
	ttl := l.srv.TTL(l.sc.Key)
	if l.sc.Permits > 1 {
		val, held, ttl = l.observeSet()
	}
	if l.sc.Group != "" {
		val, held, ttl = l.observePending()
	}
	deadline := forever
	switch {
	case held && ttl > 0:
		deadline = l.now() + ttl
	case held && val == l.lock.Value && l.deadline == l.now():
		// TTL reads 0 both for "no TTL" and for "expires at this very
		// instant"; an unchanged key whose deadline is now is the latter.
		deadline = l.deadline
	}
	changed := held != l.lock.Held || val != l.lock.Value || deadline != l.deadline
	owner := l.lock.Owner
	if !held {
		owner = ""
	}
	l.lock = LockState{Held: held, Value: val, Owner: owner, Expires: deadline != forever}
	l.deadline = deadline
	return changed
}

// add appends e with the time and the state after it.
func (l *Lab) add(e Event) {
	e.At = l.now()
	e.Holders = l.holders()
	e.Waiters = l.waiters()
	e.Lock = l.lock
	l.events = append(l.events, e)
}

// restamp updates the last event's holders and waiters after a client drew
// its conclusion from the reply on that row.
func (l *Lab) restamp() {
	if n := len(l.events); n > 0 {
		l.events[n-1].Holders = l.holders()
		l.events[n-1].Waiters = l.waiters()
	}
}

func (l *Lab) holders() []string {
	var names []string
	for c := range l.leases {
		names = append(names, c.Name)
	}
	slices.Sort(names)
	return names
}
