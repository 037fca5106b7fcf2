package keyspace

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/minilock/minilock/internal/redistest"
	"github.com/minilock/minilock/resp"
)

// The differential test of keyspace notifications: a seeded random
// sequence of data commands of every type runs against a real redis-server,
// whose events a PSUBSCRIBE '__key*__:*' connection captures, and against
// a Keyspace whose notifier records them. After each command both event
// streams, written as the messages notify.c would publish, must be equal,
// in order.
//
//	go test -run TestNotifyDiff -v ./keyspace -notify.seed=42 -notify.n=5000

var (
	notifySeed = flag.Uint64("notify.seed", 1, "seed of TestNotifyDiff's command sequence (0: a new one, printed)")
	notifyN    = flag.Int("notify.n", 3000, "commands per notify-keyspace-events setting in TestNotifyDiff")
)

// notifyFlagSets are the notify-keyspace-events values the test runs under.
var notifyFlagSets = []string{"KEA", "KEAmn", "Kg$lshzx", "Enm", "KExd", "AKm"}

// recorder collects the events a Keyspace reports.
type recorder struct {
	mu     sync.Mutex
	events []string // messages as published: channel + " " + message
	flags  NotifyClass
}

func (r *recorder) record(db int, event string, key []byte, class NotifyClass) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, publishedAs(r.flags, db, event, string(key))...)
}

func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	ev := r.events
	r.events = nil
	return ev
}

// publishedAs is what notify.c publishes for one event: on the keyspace
// channel, then on the keyevent channel.
func publishedAs(flags NotifyClass, db int, event, key string) []string {
	var out []string
	if flags&NotifyKeyspace != 0 {
		out = append(out, fmt.Sprintf("__keyspace@%d__:%s %s", db, key, event))
	}
	if flags&NotifyKeyevent != 0 {
		out = append(out, fmt.Sprintf("__keyevent@%d__:%s %s", db, event, key))
	}
	return out
}

// notifyRedis is the redis-server side: a connection for commands and one
// subscribed to every notification channel.
type notifyRedis struct {
	t        *testing.T
	cmd, sub *redistest.Conn
	marks    int
}

const markChannel = "__keymark__:"

func newNotifyRedis(t *testing.T, addr, flags string) *notifyRedis {
	r := &notifyRedis{t: t, cmd: redistest.Dial(t, addr), sub: redistest.Dial(t, addr)}
	for _, args := range [][]string{{"FLUSHALL"}, {"SELECT", "0"}, {"CONFIG", "SET", "notify-keyspace-events", flags}, {"CONFIG", "RESETSTAT"}} {
		if got := r.cmd.MustDo(args...); got != "+OK\r\n" {
			t.Fatalf("redis %q: %q", args, got)
		}
	}
	r.sub.MustDo("PSUBSCRIBE", "__key*__:*")
	return r
}

// do sends one command and returns its reply and the events it caused,
// which end at a marker published after it.
func (r *notifyRedis) do(args ...string) (string, []string) {
	r.marks++
	mark := markChannel + strconv.Itoa(r.marks)
	r.cmd.MustSend(append(redistest.Encode(args...), redistest.Encode("PUBLISH", mark, "m")...))
	reply := r.cmd.MustReply()
	r.cmd.MustReply()
	return reply, r.until(func(ch string) bool { return ch == mark })
}

// expiredUntil waits until Redis has expired n keys in all (INFO's
// expired_keys), or gives up after a while, and returns the events
// published meanwhile.
func (r *notifyRedis) expiredUntil(n int64) []string {
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		info := r.cmd.MustDo("INFO", "stats")
		i := strings.Index(info, "expired_keys:")
		if i < 0 {
			r.t.Fatalf("no expired_keys in INFO: %q", info)
		}
		v := info[i+len("expired_keys:"):]
		v = v[:strings.IndexByte(v, '\r')]
		if got, _ := strconv.ParseInt(v, 10, 64); got >= n {
			break
		}
		time.Sleep(2 * time.Millisecond)
	}
	_, ev := r.do("PING")
	return ev
}

// until reads notifications until stop accepts a channel, and returns the
// ones before it.
func (r *notifyRedis) until(stop func(channel string) bool) []string {
	var out []string
	for {
		channel, msg := r.next()
		if stop(channel) {
			return out
		}
		out = append(out, channel+" "+msg)
	}
}

// next reads one pmessage: its channel and message.
func (r *notifyRedis) next() (string, string) {
	b, err := r.sub.ReadReply()
	if err != nil {
		r.t.Fatalf("reading notifications: %v (%q)", err, b)
	}
	return r.parse(b)
}

func (r *notifyRedis) parse(b []byte) (string, string) {
	var parts []string
	it, rest, err := resp.Next(b)
	if err != nil || it.Kind != '*' || it.Int != 4 {
		r.t.Fatalf("not a pmessage: %q", b)
	}
	for range 4 {
		if it, rest, err = resp.Next(rest); err != nil || it.Kind != '$' {
			r.t.Fatalf("not a pmessage: %q", b)
		}
		parts = append(parts, string(it.Data))
	}
	return parts[2], parts[3]
}

// nstep is one generated command. soon marks a command that makes a key
// expire at once: a tick follows it, and the expired events of the two are
// compared as a set, since Redis's active expiry picks keys in its own
// order. noReply marks a command whose reply may differ (random picks,
// times, orders of unordered collections).
type nstep struct {
	args    []string
	soon    bool
	noReply bool
	db      int // -1, or the database a SELECT chose
}

func TestNotifyDiff(t *testing.T) {
	srv := redistest.Start(t, "--hz", "100")
	seed := *notifySeed
	if seed == 0 {
		seed = rand.Uint64()
	}
	t.Logf("seed %d (rerun with -notify.seed=%d)", seed, seed)
	for fi, flags := range notifyFlagSets {
		t.Run(flags, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, uint64(fi)))
			steps := genNotifySteps(rng, *notifyN)
			runNotifyDiff(t, srv.Addr, flags, steps)
		})
	}
}

func runNotifyDiff(t *testing.T, addr, flagText string, steps []nstep) {
	flags, err := ParseNotifyFlags(flagText)
	if err != nil {
		t.Fatal(err)
	}
	h := newKSTest(t)
	h.clock.SetTime(time.Now())
	rec := &recorder{flags: flags}
	h.k.SetNotify(flags, rec.record)
	r := newNotifyRedis(t, addr, flagText)
	mismatches, events := 0, 0
	var history []string
	for n := 0; n < len(steps); n++ {
		st := steps[n]
		if st.db >= 0 {
			r.do(st.args...)
			h.db = st.db
			continue
		}
		want, wantEv := r.do(st.args...)
		got := h.run(st.args...)
		gotEv := rec.take()
		label := fmt.Sprintf("%q", st.args)
		if st.soon {
			// The tick: time passes on both sides until the key is gone.
			h.advance(time.Second)
			gotEv = append(gotEv, rec.take()...)
			expired := h.k.Stats().Expired
			wantEv = append(wantEv, r.expiredUntil(expired)...)
			gotEv, wantEv = expiredAsSet(gotEv), expiredAsSet(wantEv)
			label += " + tick"
		}
		history = append(history, label)
		events += len(wantEv)
		if !st.noReply && got != want {
			mismatches++
			t.Errorf("step %d %s: reply %q, redis %q", n, label, got, want)
		}
		if !slices.Equal(gotEv, wantEv) {
			mismatches++
			t.Errorf("step %d %s:\n  minilock %q\n  redis    %q\n  after %s", n, label, gotEv, wantEv, strings.Join(lastN(history, 8), " "))
		}
		if mismatches > 10 {
			t.Fatal("too many mismatches")
		}
	}
	t.Logf("%s: %d commands, %d published messages compared, %d mismatches", flagText, len(steps), events, mismatches)
}

func lastN(s []string, n int) []string { return s[max(0, len(s)-n):] }

func countExpired(ev []string) int {
	n := 0
	for _, e := range ev {
		if strings.HasSuffix(e, " expired") || strings.Contains(e, "__:expired ") {
			n++
		}
	}
	return n
}

// expiredAsSet keeps the other events in order and sorts the expired ones
// at the end.
func expiredAsSet(ev []string) []string {
	var rest, exp []string
	for _, e := range ev {
		if countExpired([]string{e}) > 0 {
			exp = append(exp, e)
		} else {
			rest = append(rest, e)
		}
	}
	slices.Sort(exp)
	return append(rest, exp...)
}
