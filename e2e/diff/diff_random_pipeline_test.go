package diff_test

// Generated pipelines: each round is one connection's mix of pub/sub
// (SUBSCRIBE/PSUBSCRIBE/UNSUBSCRIBE, PUBLISH to itself and to the others),
// blocking pops, MULTI/EXEC/DISCARD, scripts that publish, CLIENT REPLY,
// HELLO 2/3 switches, RESET and plain commands, sent as one write (or
// split at random byte offsets) and read back as one byte stream per
// connection, compared byte for byte with redis-server. Any "internal
// error" in minilock's output fails the case wherever it appears.
//
//	go test -run TestDiffRandomPipeline ./e2e/diff -diff.seed=N -diff.pipeline.cases=2000
//
// What makes it deterministic on a loaded machine: only one round is in
// flight at a time. A round ends with a sentinel (SUBSCRIBE and UNSUBSCRIBE
// of a channel nobody else uses), whose frames are pub/sub frames and so
// come back in every state a connection can be in (RESP2 subscribed mode,
// CLIENT REPLY OFF or SKIP); the round is over when its UNSUBSCRIBE frame
// is read. Output for other connections (messages, keyspace events) is
// produced while the round runs and read with their next round, so every
// stream holds the same bytes in the same order on both servers. Blocking
// pops either wait on keys nothing creates with a short timeout (BRPOP,
// BZPOPMAX, BLMPOP: they time out by themselves) or wait forever (BLPOP,
// BLMOVE, BZPOPMIN); when CLIENT LIST shows the round's connection parked
// in one of the latter, the harness serves it, with a one-command push on a
// connection of its own or with a generated round of another connection
// that holds the push (a wake-up in the middle of someone else's batch).
// Both are single writes run to their sentinel before the woken pipeline
// is read on.

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"net"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/minilock/minilock/internal/redistest"
	"github.com/minilock/minilock/server"
)

var pipelineCaseCount = flag.Int("diff.pipeline.cases", 300, "cases TestDiffRandomPipeline generates")

// TestDiffRandomPipeline runs generated pipelined cases against
// redis-server and minilock on both edges (epoll and goroutine per
// connection). Case i has seed
// -diff.seed + i; the seed is logged, and a failing case names its own.
func TestDiffRandomPipeline(t *testing.T) {
	redistest.Require(t)
	seed := *diffSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	n := *pipelineCaseCount
	if testing.Short() {
		n = min(n, 60)
	}
	t.Logf("seeds %d..%d (rerun one with -diff.seed=<seed> -diff.pipeline.cases=1)", seed, seed+uint64(n)-1)
	rs := redistest.Start(t)
	targets := []*pipeTarget{{name: "redis", addr: rs.Addr}}
	for _, edge := range []struct {
		name string
		loop bool
	}{{"minilock epoll", true}, {"minilock goroutine", false}} {
		ms, err := server.Start(server.Config{EventLoop: edge.loop})
		if err != nil {
			t.Fatalf("%s: %v", edge.name, err)
		}
		t.Cleanup(func() { ms.Close() })
		targets = append(targets, &pipeTarget{name: edge.name, addr: ms.Addr()})
	}
	for _, tg := range targets {
		tg.admin = redistest.Dial(t, tg.addr)
	}
	for i := range n {
		s := seed + uint64(i)
		pc := genPipeCase(rand.New(rand.NewPCG(s, s)))
		t.Run(fmt.Sprintf("seed %d", s), func(t *testing.T) {
			var want []pipeChunk
			for j, tg := range targets {
				got := tg.run(t, pc)
				if j == 0 {
					want = got
					continue
				}
				comparePipe(t, s, tg.name, pc, want, got)
			}
		})
	}
}

// pipeCase is one generated scenario.
type pipeCase struct {
	conns  int
	notify bool // keyspace notifications on (KEA) for the case
	rounds []pipeRound
}

// pipeRound is what one connection sends in one go.
type pipeRound struct {
	conn   int
	cmds   [][]string
	splits []int // byte offsets the write is split at; none: one write
	// serves are generated rounds, on other connections, that push to the
	// key a parked pipeline of this round waits on, tried in order; once
	// they are used up the harness pushes itself.
	serves []pipeRound
}

// The keys and channels the generator draws from. Patterns never match
// the sentinel's channel or the keyspace channels (those are subscribed
// by name or by the "__key*" pattern only).
var (
	pipeChannels = []string{"ch1", "ch2", "cx"}
	pipePatterns = []string{"ch*", "c?", "c[hx]*"}
	pipeNotify   = []string{"__keyspace@0__:bl", "__keyevent@0__:set", "__keyevent@0__:lpush", "__keyevent@0__:lpop", "__keyspace@0__:k"}
)

// syncChannel is the sentinel's channel; syncFrame the tail of its
// UNSUBSCRIBE frame, in RESP2 and RESP3 alike.
const (
	syncChannel = "__sync"
	syncFrame   = "$11\r\nunsubscribe\r\n$6\r\n__sync\r\n"
)

func genPipeCase(r *rand.Rand) pipeCase {
	pc := pipeCase{conns: 2 + r.IntN(3), notify: r.IntN(3) == 0}
	if pc.notify {
		pc.conns++ // connection 0 listens to the keyspace events
	}
	for range 3 + r.IntN(6) {
		x := r.IntN(pc.conns)
		rd := genRound(r, pc, x, true)
		// A serve round is another connection's; with one connection
		// only the harness serves.
		for range r.IntN(3) {
			z := r.IntN(pc.conns)
			if z == x || pc.notify && z == 0 {
				continue
			}
			sv := genRound(r, pc, z, false)
			push := []string{"RPUSH", "bl", fmt.Sprintf("w%d", r.IntN(100))}
			if r.IntN(3) == 0 {
				push = []string{"ZADD", "bz", "1", fmt.Sprintf("w%d", r.IntN(100))}
			}
			at := r.IntN(len(sv.cmds) + 1)
			sv.cmds = append(sv.cmds[:at], append([][]string{push}, sv.cmds[at:]...)...)
			// One write: the woken pipeline goes on only after the whole
			// batch that woke it (on both servers), not between its parts.
			sv.splits = nil
			rd.serves = append(rd.serves, sv)
		}
		pc.rounds = append(pc.rounds, rd)
	}
	return pc
}

// genRound makes one round for connection x: one to twelve commands, and
// some of them MULTI blocks, always closed by EXEC or DISCARD (the
// sentinel must not be queued). Serve rounds have no blocking pops: a
// wake-up must not wait on another one.
//
// With keyspace events on, connection 0 alone listens to them, and sends
// no command that writes: where Redis writes a command's reply and its
// events to the client that sent it is each command's own order (LPUSH
// replies first, SET notifies first), a keyspace matter the hand-written
// cases check one command at a time, not this generator's.
func genRound(r *rand.Rand, pc pipeCase, x int, blocking bool) pipeRound {
	rd := pipeRound{conn: x}
	gen := func() []string {
		if pc.notify && x == 0 {
			return genListenerCmd(r)
		}
		return genCmd(r, pc, blocking)
	}
	for range 1 + r.IntN(12) {
		if r.IntN(8) == 0 {
			rd.cmds = append(rd.cmds, []string{"MULTI"})
			for range r.IntN(4) {
				rd.cmds = append(rd.cmds, gen())
			}
			rd.cmds = append(rd.cmds, []string{[]string{"EXEC", "EXEC", "DISCARD"}[r.IntN(3)]})
			continue
		}
		rd.cmds = append(rd.cmds, gen())
	}
	if r.IntN(4) == 0 {
		n := len(encodeCmds(rd.cmds))
		for range 1 + r.IntN(3) {
			rd.splits = append(rd.splits, 1+r.IntN(n))
		}
	}
	return rd
}

// genListenerCmd is a command of the keyspace events' listener.
func genListenerCmd(r *rand.Rand) []string {
	switch r.IntN(8) {
	case 0, 1:
		return []string{"SUBSCRIBE", pipeNotify[r.IntN(len(pipeNotify))], pipeChannels[r.IntN(len(pipeChannels))]}
	case 2:
		return []string{"PSUBSCRIBE", "__key*__:*"}
	case 3:
		return []string{"UNSUBSCRIBE", pipeNotify[r.IntN(len(pipeNotify))]}
	case 4:
		return []string{[]string{"UNSUBSCRIBE", "PUNSUBSCRIBE"}[r.IntN(2)]}
	case 5:
		return []string{"HELLO", []string{"2", "3"}[r.IntN(2)]}
	case 6:
		return []string{"CLIENT", "REPLY", []string{"ON", "OFF", "SKIP"}[r.IntN(3)]}
	}
	return []string{"PING"}
}

func genCmd(r *rand.Rand, pc pipeCase, blocking bool) []string {
	ch := func() string { return pipeChannels[r.IntN(len(pipeChannels))] }
	pat := func() string { return pipePatterns[r.IntN(len(pipePatterns))] }
	msg := fmt.Sprintf("m%d", r.IntN(1000))
	switch n := r.IntN(30); {
	case n < 4:
		out := []string{"SUBSCRIBE", ch()}
		if r.IntN(3) == 0 {
			out = append(out, ch())
		}
		return out
	case n < 5:
		return []string{"PSUBSCRIBE", pat()}
	case n < 7:
		if r.IntN(2) == 0 {
			return []string{"UNSUBSCRIBE"}
		}
		return []string{"UNSUBSCRIBE", ch()}
	case n < 8:
		if r.IntN(2) == 0 {
			return []string{"PUNSUBSCRIBE"}
		}
		return []string{"PUNSUBSCRIBE", pat()}
	case n < 11:
		return []string{"PUBLISH", ch(), msg}
	case n < 12:
		// Shard channels: a namespace of their own, refused in MULTI.
		switch r.IntN(3) {
		case 0:
			return []string{"SSUBSCRIBE", ch()}
		case 1:
			return []string{"SUNSUBSCRIBE"}
		}
		return []string{"SPUBLISH", ch(), msg}
	case n < 13:
		return []string{"EVAL", "redis.call('publish', ARGV[1], ARGV[2]) return redis.call('incr', KEYS[1])", "1", "n", ch(), msg}
	case n < 14:
		return []string{"EVAL", "redis.call('publish', ARGV[1], ARGV[2]) return redis.error_reply('E after publish')", "0", ch(), msg}
	case n < 16:
		return []string{"CLIENT", "REPLY", []string{"ON", "ON", "OFF", "SKIP"}[r.IntN(4)]}
	case n < 17:
		return []string{"HELLO", []string{"2", "3"}[r.IntN(2)]}
	case n < 18 && r.IntN(3) == 0:
		return []string{"RESET"}
	case n < 20 && blocking:
		switch r.IntN(6) {
		case 0:
			return []string{"BLPOP", "bl", "0"}
		case 1:
			return []string{"BLMOVE", "bl", "l2", "LEFT", "RIGHT", "0"}
		case 2:
			return []string{"BZPOPMIN", "bz", "0"}
		case 3:
			return []string{"BRPOP", "tl", "0.01"}
		case 4:
			return []string{"BZPOPMAX", "tz", "0.01"}
		}
		return []string{"BLMPOP", "0.01", "1", "tl", "LEFT"}
	}
	plain := [][]string{
		{"SET", "k", msg}, {"GET", "k"}, {"INCR", "n"}, {"DEL", "k"}, {"LPUSH", "bl", msg}, {"RPUSH", "l2", msg},
		{"LPOP", "bl"}, {"LRANGE", "bl", "0", "-1"}, {"LLEN", "l2"}, {"ZADD", "bz", "2", msg}, {"ZPOPMIN", "bz"},
		{"SET", "bl", "str"}, {"DEL", "bl", "bz"}, {"PING"}, {"PING", msg}, {"ECHO", msg}, {"EXISTS", "k", "bl"},
		{"PUBSUB", "NUMSUB", "ch1", "ch2"}, {"GETDEL", "k"}, {"EXPIRE", "k", "100"},
	}
	return plain[r.IntN(len(plain))]
}

func encodeCmds(cmds [][]string) []byte {
	var b []byte
	for _, c := range cmds {
		b = append(b, redistest.Encode(c...)...)
	}
	return b
}

func (rd pipeRound) String() string {
	var parts []string
	for _, c := range rd.cmds {
		parts = append(parts, strings.Join(c, " "))
	}
	s := fmt.Sprintf("conn %d: %s", rd.conn, strings.Join(parts, "; "))
	if len(rd.splits) > 0 {
		s += fmt.Sprintf(" (split at %v)", rd.splits)
	}
	return s
}

// pipeTarget is one server the cases run on.
type pipeTarget struct {
	name  string
	addr  string
	admin *redistest.Conn
}

// pipeChunk is what one stream gave for one step of a case.
type pipeChunk struct {
	label string
	b     []byte
	err   string
}

// pipeConn is a connection read as a raw byte stream: a reply cut short
// (an EXEC array whose elements CLIENT REPLY OFF dropped, as Redis does)
// must not throw a RESP parser out of step with the sentinel.
type pipeConn struct {
	nc  net.Conn
	buf []byte
}

// untilSync reads until the buffer holds the sentinel's UNSUBSCRIBE
// frame, waiting at most d, and returns the bytes up to its end; ok is
// false when it has not come yet (what came is kept for the next call).
func (pc *pipeConn) untilSync(d time.Duration) (out []byte, ok bool, err error) {
	deadline := time.Now().Add(d)
	for {
		if i := bytes.Index(pc.buf, []byte(syncFrame+":")); i >= 0 {
			if j := bytes.Index(pc.buf[i+len(syncFrame):], []byte("\r\n")); j >= 0 {
				end := i + len(syncFrame) + j + 2
				out = append([]byte(nil), pc.buf[:end]...)
				pc.buf = pc.buf[end:]
				return out, true, nil
			}
		}
		pc.nc.SetReadDeadline(deadline)
		var chunk [16 << 10]byte
		n, err := pc.nc.Read(chunk[:])
		pc.buf = append(pc.buf, chunk[:n]...)
		if err != nil {
			if ne, isNet := err.(net.Error); isNet && ne.Timeout() {
				return nil, false, nil
			}
			return append([]byte(nil), pc.buf...), false, err
		}
	}
}

// pipeRun is one case running on one target.
type pipeRun struct {
	t       *testing.T
	tg      *pipeTarget
	conns   []*pipeConn
	ids     []string // CLIENT ID of each of conns
	harness *redistest.Conn
	out     []pipeChunk
	failed  bool
}

// pipeDeadline bounds the wait for one round's sentinel, parked time
// included: generous, for -race on a loaded machine.
const pipeDeadline = 20 * time.Second

func (tg *pipeTarget) run(t *testing.T, pc pipeCase) []pipeChunk {
	t.Helper()
	for _, c := range [][]string{{"FLUSHALL"}, {"CONFIG", "SET", "notify-keyspace-events", ""}} {
		if b, err := tg.admin.Do(c...); err != nil || string(b) != "+OK\r\n" {
			t.Fatalf("%s: %q: %q %v", tg.name, c, b, err)
		}
	}
	if pc.notify {
		tg.admin.Do("CONFIG", "SET", "notify-keyspace-events", "KEA")
	}
	pr := &pipeRun{t: t, tg: tg, harness: redistest.Dial(t, tg.addr)}
	for range pc.conns {
		c := redistest.Dial(t, tg.addr)
		id, err := c.Do("CLIENT", "ID")
		if err != nil || len(id) < 4 || id[0] != ':' {
			t.Fatalf("%s: CLIENT ID: %q %v", tg.name, id, err)
		}
		pr.conns = append(pr.conns, &pipeConn{nc: c.NetConn()})
		pr.ids = append(pr.ids, string(id[1:len(id)-2]))
	}
	for i, rd := range pc.rounds {
		if pr.failed {
			break
		}
		pr.round(fmt.Sprintf("round %d", i+1), rd)
	}
	// What the rounds left for each connection (messages from the
	// others), up to one last sentinel.
	for x := 0; x < pc.conns && !pr.failed; x++ {
		pr.round(fmt.Sprintf("final read of conn %d", x), pipeRound{conn: x})
	}
	for _, c := range pr.conns {
		c.nc.Close()
	}
	pr.harness.Close()
	return pr.out
}

// round sends rd and reads its connection up to the sentinel, serving the
// pipeline whenever it is parked for good.
func (pr *pipeRun) round(label string, rd pipeRound) {
	c := pr.conns[rd.conn]
	b := append(encodeCmds(rd.cmds), encodeCmds([][]string{{"SUBSCRIBE", syncChannel}, {"UNSUBSCRIBE", syncChannel}})...)
	from := 0
	c.nc.SetWriteDeadline(time.Now().Add(pipeDeadline))
	for _, at := range sortedSplits(rd.splits) {
		if at > from && at < len(b) {
			c.nc.Write(b[from:at])
			from = at
			time.Sleep(time.Millisecond) // let the server read (and run) a part
		}
	}
	if _, err := c.nc.Write(b[from:]); err != nil {
		pr.fail(label, nil, "send failed: "+err.Error())
		return
	}
	serves := rd.serves
	deadline := time.Now().Add(pipeDeadline)
	for {
		got, ok, err := c.untilSync(20 * time.Millisecond)
		if ok {
			pr.out = append(pr.out, pipeChunk{label: label + " (" + rd.String() + ")", b: got})
			return
		}
		if err != nil || time.Now().After(deadline) {
			why := "no sentinel within " + pipeDeadline.String()
			if err != nil {
				why = "read failed: " + err.Error()
			}
			pr.fail(label+" ("+rd.String()+")", append(got, c.buf...), why)
			return
		}
		kind := pr.parkedForGood(pr.ids[rd.conn])
		if kind == "" {
			continue
		}
		// Parked on bl or bz for good: serve it.
		if len(serves) > 0 {
			sv := serves[0]
			serves = serves[1:]
			pr.round(label+" serve", sv)
		} else {
			// In a transaction with a DEL: a serve round may have left a
			// string at the key (the pop waits on, as Redis's does).
			key, push := "bl", []string{"RPUSH", "bl", "served"}
			if strings.HasPrefix(kind, "bz") {
				key, push = "bz", []string{"ZADD", "bz", "1", "served"}
			}
			pr.harness.Timeout = 0
			var reply []byte
			e := ""
			for _, c := range [][]string{{"MULTI"}, {"DEL", key}, push, {"EXEC"}} {
				b, err := pr.harness.Do(c...)
				reply = append(reply, b...)
				if err != nil {
					e = readErr(err)
					break
				}
			}
			pr.out = append(pr.out, pipeChunk{label: label + " harness " + strings.Join(push, " "), b: reply, err: e})
		}
		if pr.failed {
			return
		}
	}
}

// parkedForGood returns the command client id is parked in without a
// timeout (blpop, blmove, bzpopmin), or "". Only the connection whose
// round is being read counts: while a serve round runs, the pipeline it
// is meant to wake is parked too, and must be left to it.
func (pr *pipeRun) parkedForGood(id string) string {
	list, err := pr.tg.admin.Do("CLIENT", "LIST")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(list), "\n") {
		var flags, cmd string
		if !strings.HasPrefix(line, "id="+id+" ") {
			continue
		}
		for _, f := range strings.Fields(line) {
			if v, ok := strings.CutPrefix(f, "flags="); ok {
				flags = v
			}
			if v, ok := strings.CutPrefix(f, "cmd="); ok {
				cmd = v
			}
		}
		if strings.Contains(flags, "b") && (cmd == "blpop" || cmd == "blmove" || cmd == "bzpopmin") {
			return cmd
		}
	}
	return ""
}

func (pr *pipeRun) fail(label string, b []byte, why string) {
	pr.out = append(pr.out, pipeChunk{label: label, b: b, err: why})
	pr.failed = true
}

func sortedSplits(s []int) []int {
	out := append([]int(nil), s...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// comparePipe fails the case at the first chunk where got differs from
// want (HELLO's client ids masked), and wherever got holds an internal
// error.
func comparePipe(t *testing.T, seed uint64, name string, pc pipeCase, want, got []pipeChunk) {
	t.Helper()
	for _, ch := range got {
		if bytes.Contains(ch.b, []byte("internal error")) {
			t.Errorf("seed %d, %s: %s: internal error in the output: %s", seed, name, ch.label, clip(ch.b, nil))
			return
		}
	}
	for i := 0; i < max(len(want), len(got)); i++ {
		var w, g pipeChunk
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		if w.err != "" {
			t.Errorf("seed %d: redis-server: %s: %s (have %s): the harness is wrong", seed, w.label, w.err, clip(w.b, nil))
			return
		}
		wb, gb := pipeNormal(w.b), pipeNormal(g.b)
		if w.label != g.label || !bytes.Equal(wb, gb) || g.err != "" {
			t.Errorf("seed %d, %s differs at %s\n   redis:    %s %s\n   %s: %s %s (%s)\n   case: %s",
				seed, name, w.label, clip(wb, gb), w.err, name, clip(gb, wb), g.err, g.label, describePipe(pc))
			return
		}
	}
}

func describePipe(pc pipeCase) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d connections, notify %v", pc.conns, pc.notify)
	for i, rd := range pc.rounds {
		fmt.Fprintf(&b, "\n     round %d %s", i+1, rd)
		for _, sv := range rd.serves {
			fmt.Fprintf(&b, "\n       serve %s", sv)
		}
	}
	return b.String()
}

// pipeNormal masks what legitimately differs in a stream: HELLO's client
// ids, and the order of (P)UNSUBSCRIBE's frames and of one message's
// pmessage frames, which Redis takes from hash tables seeded at random
// when it starts (minilock's orders are stable: sorted, and in the order
// the patterns were first subscribed).
func pipeNormal(b []byte) []byte {
	return sortRuns(sortRuns(streamIDs.apply(b), unsubscribeFrame, 12), pmessageFrame, -1)
}

// pmessageFrame is one pmessage push; its second group is what two frames
// of one PUBLISH share (channel and message).
var pmessageFrame = regexp.MustCompile(`[*>]4\r\n\$8\r\npmessage\r\n\$[0-9]+\r\n([^\r]*)\r\n(\$[0-9]+\r\n[^\r]*\r\n\$[0-9]+\r\n[^\r]*\r\n)`)

// sortRuns sorts, in each run of adjacent frames that re matches and that
// share their group 2 (or, with prefix >= 0, their first prefix bytes),
// the first group's values, leaving the rest of each frame in place.
func sortRuns(b []byte, re *regexp.Regexp, prefix int) []byte {
	ms := re.FindAllSubmatchIndex(b, -1)
	out := append([]byte(nil), b...)
	same := func(m, n []int) bool {
		if prefix >= 0 {
			return bytes.Equal(b[m[0]:m[0]+prefix], b[n[0]:n[0]+prefix])
		}
		return bytes.Equal(b[m[4]:m[5]], b[n[4]:n[5]])
	}
	for i := 0; i < len(ms); {
		j := i + 1
		for j < len(ms) && ms[j][0] == ms[j-1][1] && same(ms[j], ms[i]) {
			j++
		}
		if j-i > 1 {
			var names [][]byte
			for _, m := range ms[i:j] {
				names = append(names, b[m[2]:m[3]])
			}
			slices.SortFunc(names, bytes.Compare)
			var run []byte
			for k, m := range ms[i:j] {
				name := b[m[2]:m[3]]
				head := b[m[0] : m[2]-len(fmt.Sprint(len(name)))-3]
				run = append(run, head...)
				run = append(run, fmt.Sprintf("$%d\r\n%s\r\n", len(names[k]), names[k])...)
				run = append(run, b[m[3]+2:m[1]]...)
			}
			copy(out[ms[i][0]:], run) // same length: a permutation
		}
		i = j
	}
	return out
}

// unsubscribeFrame is one frame of an UNSUBSCRIBE, PUNSUBSCRIBE or
// SUNSUBSCRIBE, RESP2 or RESP3.
var unsubscribeFrame = regexp.MustCompile(`[*>]3\r\n\$1[12]\r\n[ps]?unsubscribe\r\n\$[0-9]+\r\n([^\r]*)\r\n:[0-9]+\r\n`)
