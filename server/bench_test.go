package server

import (
	"bytes"
	"io"
	"net"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/tidwall/redcon"

	"github.com/minilock/minilock/bench/luashapes"
	"github.com/minilock/minilock/server/internal/edge"
)

// Benchmarks of the server: embedded start and close, one command through
// dispatch (lookup, checks, the command, MONITOR feed), a batch through the
// hand-off to the keyspace onOwner as a connection makes it, and the whole
// path over loopback TCP.
//
//	go test -run '^$' -bench . -benchmem ./server

// benchStartClose measures start followed by close, and reports the median
// of single iterations as p50-ns besides the mean.
func benchStartClose(b *testing.B, start func() (stop func(), err error)) {
	b.ReportAllocs()
	lat := make([]time.Duration, 0, b.N)
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		stop, err := start()
		if err != nil {
			b.Fatal(err)
		}
		stop()
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "p50-ns")
}

func BenchmarkEmbeddedStartClose(b *testing.B) {
	b.Run("minilock", func(b *testing.B) {
		benchStartClose(b, func() (func(), error) {
			s, err := Start(Config{})
			if err != nil {
				return nil, err
			}
			return func() { s.Close() }, nil
		})
	})
	b.Run("miniredis", func(b *testing.B) {
		benchStartClose(b, func() (func(), error) {
			m, err := miniredis.Run()
			if err != nil {
				return nil, err
			}
			return m.Close, nil
		})
	})
}

// benchReleaseScript is the lock recipe's compare-and-delete.
const benchReleaseScript = `if redis.call("get",KEYS[1]) == ARGV[1] then return redis.call("del",KEYS[1]) else return 0 end`

func benchArgs(w ...string) [][]byte {
	out := make([][]byte, len(w))
	for i, s := range w {
		out[i] = []byte(s)
	}
	return out
}

// benchClient is a connection's state without a connection: what execute
// and serveBatch need.
func benchClient(s *Server) *client {
	// A guard with no socket: runBatch asks it for commands it holds
	// past the batch (takeHeld), and it has none.
	c := &client{srv: s, id: s.nextID.Add(1) - 1, authed: true, user: s.acl.def, born: time.Now(), Conn: &edge.Conn{Done: make(chan struct{}, 1), Guard: edge.NewGuard(nil, edge.Limits{})}}
	c.W.Proto = 2
	return c
}

// onOwner runs f on the keyspace onOwner and returns the replies it wrote to c.
func onOwner(s *Server, c *client, f func()) string {
	var out string
	s.owner.Do(func() {
		c.W.B = c.W.B[:0]
		f()
		out = string(c.W.B)
		c.W.B = c.W.B[:0]
	})
	return out
}

// benchScriptSHA loads script (the release script when empty), or skips
// the benchmark when the server cannot run scripts (luaeval not built in).
func benchScriptSHA(b *testing.B, s *Server, c *client, script string) string {
	if script == "" {
		script = benchReleaseScript
	}
	reply := onOwner(s, c, func() { s.execute(c, benchArgs("script", "load", script)) })
	if !bytes.HasPrefix([]byte(reply), []byte("$40\r\n")) {
		b.Skipf("scripts unavailable: SCRIPT LOAD answered %q", reply)
	}
	return reply[5:45]
}

const benchKeys = 1 << 16

// dispatchCase is one command benchmark through Server.execute.
type dispatchCase struct {
	script string     // loaded as $SHA; the release script when empty
	setup  []string   // run once per key (%s is the key), untimed
	cmds   [][]string // run in order per op (%s is the key; $SHA the script)
	want   string     // replies of an op, checked on the first and last
	doctor bool       // with the lock doctor on (Config.Doctor)
	// track: another client has CLIENT TRACKING on (trackOther: the
	// modified hook runs on every write), or the client itself does
	// (trackSelf: its reads fill the table, its writes empty it; RESP2
	// without REDIRECT, so no message is written).
	track int
}

const (
	trackNone = iota
	trackOther
	trackSelf
)

// benchExpand builds the argument vectors of template for every key.
func benchExpand(template []string, sha string) [][][]byte {
	out := make([][][]byte, benchKeys)
	for i := range out {
		key := "lock:" + strconv.Itoa(i)
		w := make([]string, len(template))
		for j, t := range template {
			switch t {
			case "%s":
				w[j] = key
			case "$SHA":
				w[j] = sha
			default:
				w[j] = t
			}
		}
		out[i] = benchArgs(w...)
	}
	return out
}

// benchDispatch runs b.N ops on the owner in one Do: the cost of
// dispatch and the commands alone, without the hand-off.
func benchDispatch(b *testing.B, dc dispatchCase) {
	var cfg Config
	if dc.doctor {
		cfg.Doctor = &DoctorConfig{}
	}
	s, err := Start(cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	c := benchClient(s)
	sha := ""
	if slices.ContainsFunc(dc.cmds, func(w []string) bool { return slices.Contains(w, "$SHA") }) {
		sha = benchScriptSHA(b, s, c, dc.script)
	}
	var setup [][][]byte
	if dc.setup != nil {
		setup = benchExpand(dc.setup, sha)
	}
	cmds := make([][][][]byte, len(dc.cmds))
	for i, t := range dc.cmds {
		cmds[i] = benchExpand(t, sha)
	}
	onOwner(s, c, func() {
		switch dc.track {
		case trackOther:
			s.enableTracking(benchClient(s), 0, 0, nil)
		case trackSelf:
			s.enableTracking(c, 0, 0, nil)
		}
		for _, args := range setup {
			s.execute(c, args)
		}
	})
	var first, last string
	b.ReportAllocs()
	b.ResetTimer()
	s.owner.Do(func() {
		for i := 0; i < b.N; i++ {
			j := i % benchKeys
			c.W.B = c.W.B[:0]
			for _, cmd := range cmds {
				s.execute(c, cmd[j])
			}
			if i == 0 {
				first = string(c.W.B)
			}
		}
		last = string(c.W.B)
	})
	b.StopTimer()
	if first != dc.want || last != dc.want {
		b.Fatalf("replies %q (first) %q (last), want %q", first, last, dc.want)
	}
}

var (
	benchSET     = []string{"set", "%s", "xxx"}
	benchGET     = []string{"get", "%s"}
	benchDEL     = []string{"del", "%s"}
	benchAcquire = []string{"set", "%s", "tok", "NX", "PX", "30000"}
	benchRelease = []string{"evalsha", "$SHA", "1", "%s", "tok"}
)

func BenchmarkDispatch_GET(b *testing.B) {
	benchDispatch(b, dispatchCase{setup: benchSET, cmds: [][]string{benchGET}, want: "$3\r\nxxx\r\n"})
}

func BenchmarkDispatch_SET(b *testing.B) {
	benchDispatch(b, dispatchCase{setup: benchSET, cmds: [][]string{benchSET}, want: "+OK\r\n"})
}

// The cost of client-side caching: a write while another client tracks
// (the hook looks the key up in the tracking table), and a tracking
// client's own GET (remembered) and SET (invalidated) cycle.
func BenchmarkDispatch_SET_tracking_other(b *testing.B) {
	benchDispatch(b, dispatchCase{setup: benchSET, cmds: [][]string{benchSET}, want: "+OK\r\n", track: trackOther})
}

func BenchmarkDispatch_GET_SET_tracking_self(b *testing.B) {
	benchDispatch(b, dispatchCase{setup: benchSET, cmds: [][]string{benchGET, benchSET}, want: "$3\r\nxxx\r\n+OK\r\n", track: trackSelf})
}

func BenchmarkDispatch_GET_SET(b *testing.B) {
	benchDispatch(b, dispatchCase{setup: benchSET, cmds: [][]string{benchGET, benchSET}, want: "$3\r\nxxx\r\n+OK\r\n"})
}

func BenchmarkDispatch_SET_NX_PX_held(b *testing.B) {
	benchDispatch(b, dispatchCase{setup: benchAcquire, cmds: [][]string{benchAcquire}, want: "$-1\r\n"})
}

func BenchmarkDispatch_DEL_miss(b *testing.B) {
	benchDispatch(b, dispatchCase{cmds: [][]string{benchDEL}, want: ":0\r\n"})
}

// A lock taken and released with DEL: two commands per op.
func BenchmarkDispatch_LockCycle_DEL(b *testing.B) {
	benchDispatch(b, dispatchCase{cmds: [][]string{benchAcquire, benchDEL}, want: "+OK\r\n:1\r\n"})
}

// EVALSHA of the compare-and-delete on a missing key: the script runs GET
// and returns 0.
func BenchmarkDispatch_EVALSHA_release_miss(b *testing.B) {
	benchDispatch(b, dispatchCase{cmds: [][]string{benchRelease}, want: ":0\r\n"})
}

// A lock taken and released by the script (GET and DEL inside): two
// commands per op.
func BenchmarkDispatch_LockCycle_EVALSHA(b *testing.B) {
	benchDispatch(b, dispatchCase{cmds: [][]string{benchAcquire, benchRelease}, want: "+OK\r\n:1\r\n"})
}

// The same lock cycles with the lock doctor watching: what it costs when
// on (off, it is one nil check per command).
func BenchmarkDispatch_LockCycle_DEL_doctor(b *testing.B) {
	benchDispatch(b, dispatchCase{cmds: [][]string{benchAcquire, benchDEL}, want: "+OK\r\n:1\r\n", doctor: true})
}

func BenchmarkDispatch_LockCycle_EVALSHA_doctor(b *testing.B) {
	benchDispatch(b, dispatchCase{cmds: [][]string{benchAcquire, benchRelease}, want: "+OK\r\n:1\r\n", doctor: true})
}

// benchSemaphoreScript is bench/run.sh types' semaphore acquire: drop
// expired holders, count, join if there is room.
const benchSemaphoreScript = `redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[4])
  return 1
end
return 0`

// The semaphore acquire on a full semaphore of 5 holders, as the types
// bench reaches after its first few thousand requests: ZREMRANGEBYSCORE
// removes nothing, ZCARD says 5, the script returns 0.
func BenchmarkDispatch_EVALSHA_semaphore_full(b *testing.B) {
	benchDispatch(b, dispatchCase{
		script: benchSemaphoreScript,
		setup:  []string{"zadd", "%s", "10", "a", "20", "b", "30", "c", "40", "d", "50", "e"},
		cmds:   [][]string{{"evalsha", "$SHA", "1", "%s", "0", "5", "123", "holder:123"}},
		want:   ":0\r\n",
	})
}

// benchBatch measures what a connection does per round trip once redcon
// has parsed the pipeline: serveBatch hands the batch to the onOwner and
// waits on the client's reusable done channel. clients > 1 runs that many
// connections at once.
func benchBatch(b *testing.B, template []string, setup []string, pipeline, clients int, want string) {
	s, err := Start(Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	args := benchExpand(template, "")
	if setup != nil {
		c := benchClient(s)
		onOwner(s, c, func() {
			for _, a := range benchExpand(setup, "") {
				s.execute(c, a)
			}
		})
	}
	wantAll := bytes.Repeat([]byte(want), pipeline)
	run := func(c *client, n func() bool) bool {
		for i := 0; n(); i++ {
			c.Batch = c.Batch[:0]
			for p := range pipeline {
				c.Batch = append(c.Batch, redcon.Command{Args: args[(i*pipeline+p)%benchKeys]})
			}
			c.W.B = c.W.B[:0]
			c.Next = 0
			s.serveBatch(c)
			if !bytes.Equal(c.W.B, wantAll) {
				b.Errorf("replies %q, want %q", c.W.B, wantAll)
				return false
			}
		}
		return true
	}
	b.ReportAllocs()
	b.ResetTimer()
	if clients == 1 {
		c := benchClient(s)
		i := 0
		run(c, func() bool { i++; return i <= b.N })
	} else {
		b.SetParallelism(max(1, clients/runtime.GOMAXPROCS(0)))
		b.RunParallel(func(pb *testing.PB) {
			run(benchClient(s), pb.Next)
		})
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*pipeline), "ns/cmd")
}

func BenchmarkBatch_GET_P1(b *testing.B)  { benchBatch(b, benchGET, benchSET, 1, 1, "$3\r\nxxx\r\n") }
func BenchmarkBatch_GET_P16(b *testing.B) { benchBatch(b, benchGET, benchSET, 16, 1, "$3\r\nxxx\r\n") }
func BenchmarkBatch_GET_P1_50clients(b *testing.B) {
	benchBatch(b, benchGET, benchSET, 1, 50, "$3\r\nxxx\r\n")
}
func BenchmarkBatch_GET_P16_50clients(b *testing.B) {
	benchBatch(b, benchGET, benchSET, 16, 50, "$3\r\nxxx\r\n")
}

// benchTCP measures round trips over loopback with a raw RESP client:
// pipeline commands per round trip, from clients connections at once. The
// replies have a fixed size, so the client reads them without parsing.
func benchTCP(b *testing.B, template, setup []string, pipeline, clients int, want string) {
	s, err := Start(Config{MaxClients: clients + 10})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	sha := ""
	if slices.Contains(template, "$SHA") {
		sha = benchScriptSHA(b, s, benchClient(s), "")
	}
	if setup != nil {
		c := benchClient(s)
		onOwner(s, c, func() {
			for _, a := range benchExpand(setup, sha) {
				s.execute(c, a)
			}
		})
	}
	// Requests for a round trip each, encoded up front.
	var reqs [][]byte
	args := benchExpand(template, sha)
	for i := 0; i < 256; i++ {
		var req []byte
		for p := range pipeline {
			a := args[(i*pipeline+p)%benchKeys]
			req = append(req, '*')
			req = strconv.AppendInt(req, int64(len(a)), 10)
			req = append(req, "\r\n"...)
			for _, w := range a {
				req = append(req, '$')
				req = strconv.AppendInt(req, int64(len(w)), 10)
				req = append(req, "\r\n"...)
				req = append(req, w...)
				req = append(req, "\r\n"...)
			}
		}
		reqs = append(reqs, req)
	}
	wantAll := bytes.Repeat([]byte(want), pipeline)
	roundTrips := func(n func() bool) {
		conn, err := net.Dial("tcp", s.Addr())
		if err != nil {
			b.Error(err)
			return
		}
		defer conn.Close()
		reply := make([]byte, len(wantAll))
		for i := 0; n(); i++ {
			if _, err := conn.Write(reqs[i%len(reqs)]); err != nil {
				b.Error(err)
				return
			}
			if _, err := io.ReadFull(conn, reply); err != nil {
				b.Error(err)
				return
			}
			if !bytes.Equal(reply, wantAll) {
				b.Errorf("replies %q, want %q", reply, wantAll)
				return
			}
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	if clients == 1 {
		i := 0
		roundTrips(func() bool { i++; return i <= b.N })
	} else {
		b.SetParallelism(max(1, clients/runtime.GOMAXPROCS(0)))
		b.RunParallel(func(pb *testing.PB) { roundTrips(pb.Next) })
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*pipeline), "ns/cmd")
}

func BenchmarkTCP_GET_P1(b *testing.B)  { benchTCP(b, benchGET, benchSET, 1, 1, "$3\r\nxxx\r\n") }
func BenchmarkTCP_GET_P16(b *testing.B) { benchTCP(b, benchGET, benchSET, 16, 1, "$3\r\nxxx\r\n") }
func BenchmarkTCP_SET_P1_50clients(b *testing.B) {
	benchTCP(b, benchSET, nil, 1, 50, "+OK\r\n")
}
func BenchmarkTCP_SET_P16_50clients(b *testing.B) {
	benchTCP(b, benchSET, nil, 16, 50, "+OK\r\n")
}
func BenchmarkTCP_acquire_P16_50clients(b *testing.B) {
	benchTCP(b, benchAcquire, benchAcquire, 16, 50, "$-1\r\n")
}
func BenchmarkTCP_EVALSHA_release_P16_50clients(b *testing.B) {
	benchTCP(b, benchRelease, nil, 16, 50, ":0\r\n")
}

// The ACL check beside dispatch: the default user (every permission, the
// flag's fast path) and a user limited to key patterns and categories, as
// a per-service user is. benchACL reports both for one command.
func benchACL(b *testing.B, rules []string, cmds [][]string, want string) {
	s, err := Start(Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	c := benchClient(s)
	if rules != nil {
		s.owner.Do(func() {
			if err := s.setUser(nil, "svc", rules); err != nil {
				b.Fatal(err)
			}
			c.user = s.acl.users["svc"]
		})
	}
	expanded := make([][][][]byte, len(cmds))
	for i, t := range cmds {
		expanded[i] = benchExpand(t, "")
	}
	onOwner(s, c, func() {
		for _, args := range benchExpand(benchSET, "") {
			s.execute(c, args)
		}
	})
	var last string
	b.ReportAllocs()
	b.ResetTimer()
	s.owner.Do(func() {
		for i := 0; i < b.N; i++ {
			j := i % benchKeys
			c.W.B = c.W.B[:0]
			for _, cmd := range expanded {
				s.execute(c, cmd[j])
			}
		}
		last = string(c.W.B)
	})
	b.StopTimer()
	if last != want {
		b.Fatalf("reply %q, want %q", last, want)
	}
}

var benchRestricted = []string{"on", "nopass", "~lock:*", "~session:*", "%R~cfg:*", "+@all", "-@dangerous", "-@admin"}

func BenchmarkACL_GET_default(b *testing.B) {
	benchACL(b, nil, [][]string{benchGET}, "$3\r\nxxx\r\n")
}

func BenchmarkACL_GET_restricted(b *testing.B) {
	benchACL(b, benchRestricted, [][]string{benchGET}, "$3\r\nxxx\r\n")
}

func BenchmarkACL_SET_default(b *testing.B) {
	benchACL(b, nil, [][]string{benchSET}, "+OK\r\n")
}

func BenchmarkACL_SET_restricted(b *testing.B) {
	benchACL(b, benchRestricted, [][]string{benchSET}, "+OK\r\n")
}

// The job queue shape of bench/luashapes (cjson.decode, INCR, HSET,
// LPUSH, LLEN, RPOP, HGETALL, DEL, cjson.encode) through dispatch: what
// its eight redis.call cost in the server (command lookup, checks,
// timing and stats, the reply written and converted back into Lua)
// beside the script's own work. One queue key, as the shape's benchmark.
func BenchmarkDispatch_EVALSHA_queue(b *testing.B) {
	i := slices.IndexFunc(luashapes.Shapes, func(s luashapes.Shape) bool { return s.Name == "queue" })
	q := luashapes.Shapes[i]
	benchDispatch(b, dispatchCase{
		script: q.Body,
		cmds:   [][]string{append([]string{"evalsha", "$SHA", "1", q.Keys[0]}, q.Args...)},
		want:   "$" + strconv.Itoa(len(q.Want)) + "\r\n" + q.Want + "\r\n",
	})
}
