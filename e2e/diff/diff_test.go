package diff_test

// The differential suite: every case is sent as raw RESP to minilock and to
// a real redis-server 7 started by the test, and the raw replies must be
// byte-identical. A difference is a bug in minilock unless
// docs/differences.md lists it as deliberate.
//
//	go test -run TestDiff -v ./e2e/diff | grep cases      # how many cases ran
//	go test -run 'TestDiff/strings/set_nx' ./e2e/diff     # one case
//
// The case tables live in diff_*_test.go, one file per topic. A case is a
// list of steps; a step is a command (cmd, c) or raw bytes (raw), sent on one
// of the case's connections, and the replies it reads (one by default) are
// compared byte for byte. Replies that legitimately differ in value get a
// named normalizer on that step, applied to both sides alike.

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/minilock/minilock/internal/redistest"
	"github.com/minilock/minilock/resp"
	"github.com/minilock/minilock/server"
)

// diffPassword is requirepass on the servers of cases marked auth.
const diffPassword = "s3cret"

// diffCase is one scenario, run on fresh connections to both servers after
// FLUSHALL and SCRIPT FLUSH.
type diffCase struct {
	name  string
	auth  bool // run on the pair with requirepass set
	steps []step
	// slow: a reply may take up to slowTimeout, not redistest's
	// DefaultTimeout (a command over a 512 MiB value, under -race).
	slow bool
}

// slowTimeout bounds each reply of a slow case.
const slowTimeout = time.Minute

// slowly marks dc slow.
func (dc diffCase) slowly() diffCase { dc.slow = true; return dc }

// tc is a case on the servers without a password.
func tc(name string, steps ...step) diffCase { return diffCase{name: name, steps: steps} }

// tcAuth is a case on the servers with requirepass diffPassword; its
// connections start unauthenticated.
func tcAuth(name string, steps ...step) diffCase {
	return diffCase{name: name, auth: true, steps: steps}
}

// readMode says what a step reads back.
type readMode int

const (
	readReplies readMode = iota // step.replies complete replies
	readEOF                     // everything until the server closes the connection
	// readAmidPushes reads step.replies replies and the invalidation
	// messages among them (RESP3 pushes, RESP2 __redis__:invalidate
	// messages), all compared in their order.
	readAmidPushes
	// readPushes sends CLIENT ID and reads the messages the connection was
	// sent before its reply, which is left out (ids differ): whatever the
	// server had queued for it by then.
	readPushes
)

// isPush reports whether a frame is a message rather than a reply.
func isPush(b []byte) bool {
	return len(b) > 0 && b[0] == '>' || bytes.HasPrefix(b, []byte("*3\r\n$7\r\nmessage\r\n"))
}

// drain reads the messages waiting on connection i (readPushes).
func drain(i int) step {
	return step{conn: i, label: "drain messages", send: redistest.Encode("CLIENT", "ID"), mode: readPushes}
}

// amidPushes reads the step's replies and the messages among them.
func (s step) amidPushes() step { s.mode = readAmidPushes; return s }

// step is one request and what it reads back.
type step struct {
	conn    int      // which of the case's connections (0, 1, ...)
	label   string   // how the step is printed
	args    []string // the command, when the step is one (cmd, c)
	send    []byte
	mode    readMode
	replies int
	norm    *normalizer
	scan    []string      // non-nil: a full SCAN iteration with these options
	pause   time.Duration // non-zero: sleep, send nothing
	park    bool          // a blocking command: wait until the server has it parked
	// ids: an argument "@N" stands for connection N's client id on each
	// server (CLIENT TRACKING REDIRECT), asked when the connection opens.
	ids bool
}

// cmd is a command given as its exact arguments, sent as multibulk.
func cmd(args ...string) step {
	return step{label: fmt.Sprintf("%q", args), args: args, send: redistest.Encode(args...), replies: 1}
}

// c is a command written as space-separated words: c("SET k v NX").
func c(line string) step { return cmd(strings.Fields(line)...) }

// raw sends b as it is and reads one reply.
func raw(b string) step { return step{label: fmt.Sprintf("raw %q", b), send: []byte(b), replies: 1} }

// scanAll runs SCAN with opts from cursor 0 until the cursor comes back 0 and
// compares the sorted set of keys collected: cursors are not comparable
// (deliberate), the keys a full iteration returns are. An error reply on the
// first call is compared as it is.
func scanAll(opts ...string) step {
	return step{label: fmt.Sprintf("full SCAN %q", opts), scan: append([]string{}, opts...)}
}

// pause sleeps; for the few cases that must let a key expire.
func pause(d time.Duration) step { return step{label: "sleep " + d.String(), pause: d} }

// withIDs is cmd whose "@N" arguments are connection N's client id.
func withIDs(args ...string) step { s := cmd(args...); s.ids = true; return s }

// on sends the step on connection i of the case.
func (s step) on(i int) step { s.conn = i; return s }

// expect reads n replies instead of one (pipelined requests; 0 for none).
func (s step) expect(n int) step { s.replies = n; return s }

// eof reads until the server closes the connection: protocol errors, QUIT.
func (s step) eof() step { s.mode = readEOF; return s }

// with applies the normalizer to both replies before comparing them.
func (s step) with(n *normalizer) step { s.norm = n; return s }

// caseGroup is one topic's table.
type caseGroup struct {
	name  string
	cases []diffCase
}

func diffGroups() []caseGroup {
	return []caseGroup{
		{"strings", stringCases},
		{"keys", keyCases},
		{"expire", expireCases},
		{"conn", connCases},
		{"multi", multiCases},
		{"protocol", protocolCases},
		{"script", scriptCases},
		{"function", functionCases},
		{"hash", hashCases},
		{"set", setCases},
		{"zset", zsetCases},
		{"list", listCases},
		{"stream", streamCases},
		{"keytypes", keyTypeCases},
		{"config", configEncodingCases},
		{"pubsub", pubsubCases},
		{"tracking", trackingCases},
		{"pipeline", pipelineCases},
		{"notify", notifyCases},
		{"blocking", blockingCases},
		{"maxmemory", oomCases},
		{"eviction", evictCases},
		{"slowlog", slowlogCases},
		{"info", infoCases},
		{"config params", configCases},
		{"client ops", clientOpsCases},
		{"memory latency", memLatencyCases},
		{"object", objectCases},
		{"command keys", commandKeysCases},
		{"persistence", persistenceCases},
		{"dump", append(dumpCases, dumpDirectCases...)},
		{"memory stats", memoryStatsCases},
		{"strings via", allVia(stringCases)},
		{"expire via", allVia(expireCases)},
		{"keytypes via", allVia(keyTypeCases)},
		{"hash via", allVia(hashCases)},
		{"set via", allVia(setCases)},
		{"zset via", allVia(zsetCases)},
		{"list via", allVia(listCases)},
		{"stream via", allVia(streamCases)},
		{"dump via", allVia(dumpCases)},
	}
}

// TestDiff runs every case against redis-server and minilock.
func TestDiff(t *testing.T) {
	redistest.Require(t)
	groups := diffGroups()
	checkCaseNames(t, groups)
	pairs := map[bool]*pair{
		false: newPair(t, ""),
		true:  newPair(t, diffPassword),
	}
	total := 0
	var counts []string
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			for _, dc := range g.cases {
				t.Run(dc.name, func(t *testing.T) { pairs[dc.auth].run(t, dc) })
			}
		})
		total += len(g.cases)
		counts = append(counts, fmt.Sprintf("%s=%d", g.name, len(g.cases)))
	}
	t.Logf("differential: %d cases (%s)", total, strings.Join(counts, " "))
}

// TestDiffCaseTables checks the tables themselves, without servers.
func TestDiffCaseTables(t *testing.T) {
	checkCaseNames(t, diffGroups())
}

func checkCaseNames(t *testing.T, groups []caseGroup) {
	t.Helper()
	seen := map[string]bool{}
	for _, g := range groups {
		for _, dc := range g.cases {
			id := g.name + "/" + dc.name
			if seen[id] {
				t.Errorf("duplicate case name %s", id)
			}
			seen[id] = true
			if len(dc.steps) == 0 {
				t.Errorf("case %s has no steps", id)
			}
		}
	}
}

// endpoint is one server of a pair.
type endpoint struct {
	name  string // "redis" or "minilock"
	addr  string
	admin *redistest.Conn // authenticated; resets the data between cases
}

// pair is a redis-server and a minilock configured alike.
type pair struct {
	password string
	ends     [2]endpoint
}

func newPair(t *testing.T, password string) *pair {
	t.Helper()
	var extra []string
	if password != "" {
		extra = []string{"--requirepass", password}
	}
	rs := redistest.Start(t, extra...)
	ms := server.RunT(t, server.Config{Password: password})
	p := &pair{password: password, ends: [2]endpoint{
		{name: "redis", addr: rs.Addr},
		{name: "minilock", addr: ms.Addr()},
	}}
	for i := range p.ends {
		e := &p.ends[i]
		e.admin = redistest.Dial(t, e.addr)
		if password != "" {
			mustOK(t, e, "AUTH", password)
		}
	}
	return p
}

func mustOK(t *testing.T, e *endpoint, args ...string) {
	t.Helper()
	got, err := e.admin.Do(args...)
	if err != nil || string(got) != "+OK\r\n" {
		t.Fatalf("%s: %q = %q, %v", e.name, args, got, err)
	}
}

// blockedClients is INFO's blocked_clients, read on e's admin connection.
func blockedClients(t *testing.T, e *endpoint) int {
	t.Helper()
	info, err := e.admin.Do("INFO", "clients")
	if err != nil {
		t.Fatalf("%s: INFO clients: %v", e.name, err)
	}
	_, rest, ok := bytes.Cut(info, []byte("blocked_clients:"))
	if !ok {
		t.Fatalf("%s: INFO clients without blocked_clients: %q", e.name, info)
	}
	n := 0
	for _, ch := range rest {
		if ch < '0' || ch > '9' {
			break
		}
		n = n*10 + int(ch-'0')
	}
	return n
}

// waitBlocked waits up to 2 s for e to count n blocked clients, so that
// the next step, sent on another connection, cannot overtake a parked
// command (the order in which clients park decides who is served first).
// A command that did not block is left to the steps that read its reply.
func waitBlocked(t *testing.T, e *endpoint, n int) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if blockedClients(t, e) >= n {
			return
		}
	}
}

// outcome is what one server answered to a step.
type outcome struct {
	reply []byte
	err   string // "" or a description of a failed read
}

// show formats o for a failure message, next to other: a long reply is
// clipped around the first byte where the two differ.
func (o outcome) show(other outcome) string {
	s := clip(o.reply, other.reply)
	if o.err != "" {
		s += " (" + o.err + ")"
	}
	return s
}

// clipAt is the longest reply a failure message prints whole.
const clipAt = 300

func clip(b, other []byte) string {
	if len(b) <= clipAt {
		return fmt.Sprintf("%q", b)
	}
	d := firstDiff(b, other, 0)
	if i, j := bytes.IndexByte(b, '\n'), bytes.IndexByte(other, '\n'); d < i && i == j {
		// Only the length headers differ so far: show where the
		// bodies part.
		d = firstDiff(b, other, i+1)
	}
	from := max(d-clipAt/2, 0)
	to := min(from+clipAt, len(b))
	return fmt.Sprintf("%d bytes, first difference at %d: …%q…", len(b), d, b[from:to])
}

// firstDiff returns the first index from on where a and b differ.
func firstDiff(a, b []byte, from int) int {
	d := from
	for d < len(a) && d < len(b) && a[d] == b[d] {
		d++
	}
	return d
}

func clipLabel(l string) string {
	if len(l) <= clipAt {
		return l
	}
	return fmt.Sprintf("%s… (%d bytes)", l[:clipAt], len(l))
}

// eofTimeout bounds the wait for a server to close the connection after a
// protocol error: Redis closes at once.
const eofTimeout = 2 * time.Second

// run runs one case on fresh connections.
func (p *pair) run(t *testing.T, dc diffCase) {
	for i := range p.ends {
		mustOK(t, &p.ends[i], "FLUSHALL")
		mustOK(t, &p.ends[i], "SCRIPT", "FLUSH")
	}
	conns := map[int][2]*redistest.Conn{}
	ids := map[int][2]string{}
	needIDs := slices.ContainsFunc(dc.steps, func(st step) bool { return st.ids })
	conn := func(i int) [2]*redistest.Conn {
		if cs, ok := conns[i]; ok {
			return cs
		}
		var cs [2]*redistest.Conn
		for j := range p.ends {
			cs[j] = redistest.Dial(t, p.ends[j].addr)
			if dc.slow {
				cs[j].Timeout = slowTimeout
			}
		}
		if needIDs {
			var id [2]string
			for j := range cs {
				b, err := cs[j].Do("CLIENT", "ID")
				if err != nil || len(b) < 4 || b[0] != ':' {
					t.Fatalf("%s: CLIENT ID = %q, %v", p.ends[j].name, b, err)
				}
				id[j] = string(b[1 : len(b)-2])
			}
			ids[i] = id
		}
		conns[i] = cs
		return cs
	}
	for n, st := range dc.steps {
		if st.pause > 0 {
			time.Sleep(st.pause)
			continue
		}
		cs := conn(st.conn)
		var got [2]outcome
		if st.ids {
			// Every connection the step names opens first, in order.
			for _, a := range st.args {
				if n, err := strconv.Atoi(strings.TrimPrefix(a, "@")); err == nil && strings.HasPrefix(a, "@") {
					conn(n)
				}
			}
		}
		for j := range p.ends {
			st := st
			if st.ids {
				args := slices.Clone(st.args)
				for k, a := range args {
					if n, err := strconv.Atoi(strings.TrimPrefix(a, "@")); err == nil && strings.HasPrefix(a, "@") {
						args[k] = ids[n][j]
					}
				}
				st.send = redistest.Encode(args...)
			}
			before := 0
			if st.park {
				before = blockedClients(t, &p.ends[j])
			}
			got[j] = exchange(cs[j], st)
			if st.park {
				waitBlocked(t, &p.ends[j], before+1)
			}
			if st.norm != nil && got[j].err == "" {
				got[j].reply = st.norm.apply(got[j].reply)
			}
		}
		if got[0].err != "" {
			// The case itself is wrong: it waits for something Redis
			// does not send.
			t.Errorf("case %s, step %d on conn %d: %s: redis-server does not answer as the case expects: %s",
				dc.name, n+1, st.conn, clipLabel(st.label), got[0].show(got[1]))
			return
		}
		if !bytes.Equal(got[0].reply, got[1].reply) || got[0].err != got[1].err {
			normName := ""
			if st.norm != nil {
				normName = " (normalized: " + st.norm.name + ")"
			}
			t.Errorf("case %s, step %d on conn %d: %s%s\n   redis:    %s\n   minilock: %s",
				dc.name, n+1, st.conn, clipLabel(st.label), normName, got[0].show(got[1]), got[1].show(got[0]))
			if got[1].err != "" {
				return // the connections are out of step; later steps would only add noise
			}
		}
	}
}

// exchange sends a step on one connection and reads what it asks for.
func exchange(c *redistest.Conn, st step) outcome {
	if st.scan != nil {
		return scanIteration(c, st.scan)
	}
	if err := c.Send(st.send); err != nil {
		return outcome{err: "send failed"}
	}
	if st.mode == readEOF {
		c.Timeout = eofTimeout
		b, err := c.ReadUntilEOF()
		if err != nil {
			return outcome{reply: b, err: "still open after " + eofTimeout.String()}
		}
		return outcome{reply: b}
	}
	if st.mode == readPushes || st.mode == readAmidPushes {
		return readMessages(c, st)
	}
	var out []byte
	for range st.replies {
		b, err := c.ReadReply()
		out = append(out, b...)
		if err != nil {
			return outcome{reply: out, err: readErr(err)}
		}
	}
	if extra := c.Buffered(); len(extra) > 0 {
		return outcome{reply: out, err: fmt.Sprintf("unexpected extra bytes %q", extra)}
	}
	return outcome{reply: out}
}

// readMessages reads for the modes readPushes and readAmidPushes.
func readMessages(c *redistest.Conn, st step) outcome {
	var out []byte
	for n := 0; ; {
		if st.mode == readAmidPushes && n == st.replies {
			return outcome{reply: out}
		}
		b, err := c.ReadReply()
		if err != nil {
			return outcome{reply: out, err: readErr(err)}
		}
		if !isPush(b) {
			n++
			if st.mode == readPushes {
				if b[0] != ':' && b[0] != '-' {
					return outcome{reply: out, err: fmt.Sprintf("CLIENT ID answered %q", b)}
				}
				return outcome{reply: out}
			}
		}
		out = append(out, b...)
	}
}

// readErr describes a failed read without addresses or timings, so that
// the same failure on both servers compares equal.
func readErr(err error) string {
	var ne net.Error
	switch {
	case errors.Is(err, redistest.ErrClosed):
		return "connection closed"
	case errors.As(err, &ne) && ne.Timeout():
		return "no complete reply before the read deadline"
	}
	return "read failed: " + err.Error()
}

// scanIteration runs a full SCAN iteration and returns the keys it found,
// sorted, as an array reply.
func scanIteration(c *redistest.Conn, opts []string) outcome {
	var keys [][]byte
	cursor := "0"
	for calls := 0; ; calls++ {
		if calls > 100000 {
			return outcome{err: "SCAN did not finish"}
		}
		b, err := c.Do(append([]string{"SCAN", cursor}, opts...)...)
		if err != nil {
			return outcome{reply: b, err: readErr(err)}
		}
		if b[0] == '-' {
			if calls == 0 {
				return outcome{reply: b}
			}
			return outcome{reply: b, err: "SCAN failed mid-iteration"}
		}
		elems, ok := arrayElems(b)
		if !ok || len(elems) != 2 {
			return outcome{reply: b, err: "SCAN reply is not a two-element array"}
		}
		it, _, err := resp.Next(elems[0])
		if err != nil || it.Kind != '$' {
			return outcome{reply: b, err: "SCAN cursor is not a bulk string"}
		}
		cursor = string(it.Data)
		found, ok := arrayElems(elems[1])
		if !ok {
			return outcome{reply: b, err: "SCAN keys are not an array"}
		}
		keys = append(keys, found...)
		if cursor == "0" {
			break
		}
	}
	slices.SortFunc(keys, bytes.Compare)
	keys = slices.CompactFunc(keys, bytes.Equal) // SCAN may return a key twice
	out := []byte("*" + strconv.Itoa(len(keys)) + "\r\n")
	for _, k := range keys {
		out = append(out, k...)
	}
	return outcome{reply: out}
}

// normalizer rewrites a reply that legitimately differs in value between the
// servers (ids, clocks, unordered collections) into a comparable form. Each
// is named and attached to the steps that need it; a reply it does not
// recognise is left as it is, so the comparison then fails visibly.
type normalizer struct {
	name string
	f    func(b []byte) ([]byte, bool)
}

func (n *normalizer) apply(b []byte) []byte {
	if out, ok := n.f(b); ok {
		return out
	}
	return b
}

var (
	// avgTTL masks INFO keyspace's avg_ttl values: Redis's estimate,
	// updated when the active expiry cycle (ten times a second) samples a
	// database, so whether one is there yet depends on when the cycle
	// ran (TestDiffSort's swapdb case failed on it in CI: 99950 against 0).
	avgTTL = &normalizer{"avg_ttl masked", func(b []byte) ([]byte, bool) {
		i := bytes.Index(b, []byte("\r\n"))
		if len(b) == 0 || b[0] != '$' || i < 0 || !bytes.HasSuffix(b, []byte("\r\n")) || len(b) < i+4 {
			return nil, false
		}
		var body []byte
		for _, line := range strings.SplitAfter(string(b[i+2:len(b)-2]), "\n") {
			if j := strings.Index(line, ",avg_ttl="); j >= 0 {
				line = line[:j] + ",avg_ttl=<n>" + line[strings.IndexAny(line[j+1:], "\r\n,")+j+1:]
			}
			body = append(body, line...)
		}
		return fmt.Appendf(nil, "$%d\r\n%s\r\n", len(body), body), true
	}}

	// sorted orders the elements of an array or set: KEYS with several
	// matches, whose order follows each server's hash table.
	sorted = &normalizer{"elements sorted", func(b []byte) ([]byte, bool) {
		it, _, _ := resp.Next(b)
		elems, ok := aggregateElems(b)
		if !ok {
			return nil, false
		}
		slices.SortFunc(elems, bytes.Compare)
		return joinElems(it, elems), true
	}}

	// sortedPairs orders the key/value pairs of a map (or of a RESP2 flat
	// array of pairs): CONFIG GET of several settings, which Redis answers
	// in its dict's order.
	sortedPairs = &normalizer{"pairs sorted", func(b []byte) ([]byte, bool) {
		it, _, _ := resp.Next(b)
		elems, ok := aggregateElems(b)
		if !ok || len(elems)%2 != 0 {
			return nil, false
		}
		pairs := make([][]byte, 0, len(elems)/2)
		for i := 0; i < len(elems); i += 2 {
			pairs = append(pairs, slices.Concat(elems[i], elems[i+1]))
		}
		slices.SortFunc(pairs, bytes.Compare)
		return slices.Concat(headerOf(it), slices.Concat(pairs...)), true
	}}

	// helloID replaces the value after "id" in HELLO's reply: client ids
	// count connections, and the servers have seen different numbers.
	helloID = &normalizer{"HELLO id", func(b []byte) ([]byte, bool) {
		it, _, _ := resp.Next(b)
		elems, ok := aggregateElems(b)
		if !ok {
			return nil, false
		}
		for i := 0; i+1 < len(elems); i += 2 {
			if string(elems[i]) == "$2\r\nid\r\n" && elems[i+1][0] == ':' {
				elems[i+1] = []byte(":<id>\r\n")
				return joinElems(it, elems), true
			}
		}
		return nil, false
	}}

	// clientID replaces CLIENT ID's positive integer.
	clientID = &normalizer{"client id", func(b []byte) ([]byte, bool) {
		it, rest, err := resp.Next(b)
		if err != nil || it.Kind != ':' || it.Int <= 0 || len(rest) != 0 {
			return nil, false
		}
		return []byte(":<id>\r\n"), true
	}}

	// timeShape checks TIME's shape (two bulk strings: Unix seconds within
	// a minute of the test's clock, microseconds below a million) and
	// replaces the values.
	timeShape = &normalizer{"TIME shape", func(b []byte) ([]byte, bool) {
		elems, ok := aggregateElems(b)
		if !ok || len(elems) != 2 || b[0] != '*' {
			return nil, false
		}
		sec, ok1 := bulkInt(elems[0])
		usec, ok2 := bulkInt(elems[1])
		if !ok1 || !ok2 || usec < 0 || usec > 999999 || abs(sec-time.Now().Unix()) > 60 {
			return nil, false
		}
		return []byte("*2\r\n<seconds>\r\n<microseconds>\r\n"), true
	}}

	// clientFields masks the values of CLIENT INFO / CLIENT LIST fields
	// that describe the socket, buffers and timing (id, addr, fd, age,
	// qbuf ...) and keeps the ones with meaning (name, db, flags, multi,
	// cmd, user, resp ...). Field names and their order are compared.
	clientFields = &normalizer{"CLIENT fields", func(b []byte) ([]byte, bool) {
		it, rest, err := resp.Next(b)
		if err != nil || (it.Kind != '$' && it.Kind != '=') || len(rest) != 0 {
			return nil, false
		}
		prefix, text := []byte{}, it.Data
		if it.Kind == '=' {
			prefix, text = text[:4], text[4:]
		}
		lines := strings.Split(string(text), "\n")
		for i, line := range lines {
			fields := strings.Split(line, " ")
			for j, f := range fields {
				name, _, ok := strings.Cut(f, "=")
				if ok && !clientFieldsKept[name] {
					fields[j] = name + "=*"
				}
			}
			lines[i] = strings.Join(fields, " ")
		}
		body := slices.Concat(prefix, []byte(strings.Join(lines, "\n")))
		out := append([]byte{it.Kind}, strconv.Itoa(len(body))...)
		return slices.Concat(out, []byte("\r\n"), body, []byte("\r\n")), true
	}}

	// subcommandsSorted orders the subcommand entries of COMMAND INFO
	// replies (an entry's tenth element): Redis lists them in the order of
	// a hash table seeded at random when the server starts.
	subcommandsSorted = &normalizer{"subcommands sorted", func(b []byte) ([]byte, bool) {
		top, _, _ := resp.Next(b)
		entries, ok := aggregateElems(b)
		if !ok {
			return nil, false
		}
		for i, e := range entries {
			eh, _, _ := resp.Next(e)
			fields, ok := aggregateElems(e)
			if !ok || len(fields) != 10 {
				continue
			}
			fields[9] = sorted.apply(fields[9])
			entries[i] = joinElems(eh, fields)
		}
		return joinElems(top, entries), true
	}}

	// docsSubcommandsSorted orders the "subcommands" map of COMMAND DOCS
	// replies, for the same reason.
	docsSubcommandsSorted = &normalizer{"docs subcommands sorted", func(b []byte) ([]byte, bool) {
		top, _, _ := resp.Next(b)
		elems, ok := aggregateElems(b)
		if !ok || len(elems)%2 != 0 {
			return nil, false
		}
		for i := 1; i < len(elems); i += 2 {
			dh, _, _ := resp.Next(elems[i])
			fields, ok := aggregateElems(elems[i])
			if !ok {
				continue
			}
			for j := 0; j+1 < len(fields); j += 2 {
				if string(fields[j]) == "$11\r\nsubcommands\r\n" {
					fields[j+1] = sortedPairs.apply(fields[j+1])
				}
			}
			elems[i] = joinElems(dh, fields)
		}
		return joinElems(top, elems), true
	}}

	// msToSec rounds a PTTL reply to whole seconds, as TTL does: the
	// servers read their clocks a few milliseconds apart. -1 and -2 stay.
	msToSec = &normalizer{"PTTL in seconds", func(b []byte) ([]byte, bool) {
		it, rest, err := resp.Next(b)
		if err != nil || it.Kind != ':' || it.Int < 0 || len(rest) != 0 {
			return nil, false
		}
		return []byte(":" + strconv.FormatInt((it.Int+500)/1000, 10) + "s\r\n"), true
	}}
)

// clientFieldsKept are the CLIENT LIST fields whose values must match.
var clientFieldsKept = map[string]bool{
	"name": true, "flags": true, "db": true, "sub": true, "psub": true, "ssub": true,
	"multi": true, "cmd": true, "user": true, "redir": true, "resp": true,
}

// aggregateElems splits an array, set or map reply into its elements (a
// map's keys and values alternate), each a complete reply.
func aggregateElems(b []byte) ([][]byte, bool) {
	it, rest, err := resp.Next(b)
	if err != nil {
		return nil, false
	}
	n := it.Int
	switch it.Kind {
	case '*', '~':
	case '%':
		n *= 2
	default:
		return nil, false
	}
	elems := make([][]byte, 0, n)
	for range n {
		after, err := resp.Skip(rest)
		if err != nil {
			return nil, false
		}
		elems = append(elems, rest[:len(rest)-len(after)])
		rest = after
	}
	return elems, len(rest) == 0
}

// arrayElems is aggregateElems for arrays and sets only.
func arrayElems(b []byte) ([][]byte, bool) {
	if len(b) == 0 || b[0] == '%' {
		return nil, false
	}
	return aggregateElems(b)
}

func headerOf(it resp.Item) []byte {
	return []byte(string(it.Kind) + strconv.FormatInt(it.Int, 10) + "\r\n")
}

func joinElems(it resp.Item, elems [][]byte) []byte {
	return slices.Concat(headerOf(it), slices.Concat(elems...))
}

func bulkInt(b []byte) (int64, bool) {
	it, _, err := resp.Next(b)
	if err != nil || it.Kind != '$' {
		return 0, false
	}
	n, err := strconv.ParseInt(string(it.Data), 10, 64)
	return n, err == nil
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

// TestAvgTTLMask: the two servers' INFO keyspace, one with an avg_ttl
// estimate and one without, compare equal after the mask, and nothing
// else in the section is masked.
func TestAvgTTLMask(t *testing.T) {
	a, ok1 := avgTTL.f([]byte("$80\r\n# Keyspace\r\ndb0:keys=2,expires=0,avg_ttl=0\r\ndb1:keys=3,expires=1,avg_ttl=99950\r\n\r\n"))
	b, ok2 := avgTTL.f([]byte("$76\r\n# Keyspace\r\ndb0:keys=2,expires=0,avg_ttl=0\r\ndb1:keys=3,expires=1,avg_ttl=0\r\n\r\n"))
	want := "$80\r\n# Keyspace\r\ndb0:keys=2,expires=0,avg_ttl=<n>\r\ndb1:keys=3,expires=1,avg_ttl=<n>\r\n\r\n"
	if !ok1 || !ok2 || string(a) != want || string(b) != want {
		t.Fatalf("masked:\n%q\n%q\nwant %q", a, b, want)
	}
	if c, _ := avgTTL.f([]byte("$44\r\n# Keyspace\r\ndb1:keys=4,expires=1,avg_ttl=7\r\n\r\n")); string(c) != "$46\r\n# Keyspace\r\ndb1:keys=4,expires=1,avg_ttl=<n>\r\n\r\n" {
		t.Fatalf("masked %q", c)
	}
}
