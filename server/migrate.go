package server

import (
	"bufio"
	"errors"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/minilock/minilock/internal/cmdspec"
	"github.com/minilock/minilock/internal/redisstr"
	"github.com/minilock/minilock/keyspace"
	"github.com/minilock/minilock/resp"
)

// MIGRATE (cluster.c:migrateCommand). Redis does the whole transfer on its
// one thread, blocking every client for up to the timeout per read or
// write. minilock splits it: the keys are looked up and dumped on the
// owner, the network exchange runs on a goroutine of its own while the
// calling client waits parked (as a blocking command waits) and the owner
// serves everyone else, and the replies are applied back on the owner.
// Inside MULTI or a script, where a client cannot be parked, the exchange
// runs on the owner as in Redis.

var errMigrateKeys = resp.NewError("When using MIGRATE KEYS option, the key argument must be set to the empty string")

// migration is one MIGRATE in flight.
type migration struct {
	addr     string
	timeout  time.Duration
	db       int
	copy     bool
	keys     [][]byte // present keys, copied
	payloads [][]byte // their DUMP payloads, as sent
	auth     bool     // an AUTH goes first
	req      []byte   // AUTH, SELECT, one RESTORE per key

	// What came back (set by exchange).
	lines    []string // reply lines read, in order
	failed   string   // "connecting", "writing" or "reading"; "" when every reply came
	connFail bool
}

// MIGRATE host port key|"" destination-db timeout [COPY] [REPLACE]
// [AUTH password] [AUTH2 username password] [KEYS key [key ...]]
func cmdMigrate(x *call, args [][]byte) error {
	m := &migration{}
	var user, pass []byte
	replace := false
	first, n := 3, 1
	for j := 6; j < len(args); j++ {
		more := len(args) - 1 - j
		switch {
		case redisstr.Option(args[j], "copy"):
			m.copy = true
		case redisstr.Option(args[j], "replace"):
			replace = true
		case redisstr.Option(args[j], "auth"):
			if more < 1 {
				return resp.ErrSyntax
			}
			j++
			pass, m.auth = args[j], true
		case redisstr.Option(args[j], "auth2"):
			if more < 2 {
				return resp.ErrSyntax
			}
			user, pass, m.auth = args[j+1], args[j+2], true
			j += 2
		case redisstr.Option(args[j], "keys"):
			if len(args[3]) != 0 {
				return errMigrateKeys
			}
			first, n = j+1, len(args)-j-1
			j = len(args)
		default:
			return resp.ErrSyntax
		}
	}
	timeout, ok1 := redisstr.ParseInt(args[5])
	db, ok2 := redisstr.ParseInt(args[4])
	if !ok1 || !ok2 {
		return resp.ErrNotInteger
	}
	if timeout <= 0 {
		timeout = 1000
	}
	m.timeout = time.Duration(min(timeout, int64(time.Duration(1<<62)/time.Millisecond))) * time.Millisecond
	m.db = int(db)
	m.addr = net.JoinHostPort(string(args[1]), strconv.Itoa(atoi(args[2])))

	var ttls []int64
	for _, k := range args[first : first+n] {
		if p, ttl, ok := x.s.ks.MigrateDump(&x.Ctx, k); ok {
			m.keys = append(m.keys, append([]byte(nil), k...))
			m.payloads = append(m.payloads, p)
			ttls = append(ttls, ttl)
		}
	}
	if len(m.keys) == 0 {
		x.W.Status("NOKEY")
		return nil
	}
	if m.auth {
		if user != nil {
			m.req = appendCommand(m.req, []byte("AUTH"), user, pass)
		} else {
			m.req = appendCommand(m.req, []byte("AUTH"), pass)
		}
	}
	m.req = appendCommand(m.req, []byte("SELECT"), strconv.AppendInt(nil, db, 10))
	for i, k := range m.keys {
		a := [][]byte{[]byte("RESTORE"), k, strconv.AppendInt(nil, ttls[i], 10), m.payloads[i]}
		if replace {
			a = append(a, []byte("REPLACE"))
		}
		m.req = appendCommand(m.req, a...)
	}

	if deniesBlocking(x) {
		m.exchange()
		return x.s.finishMigrate(x.DB, m, x.W)
	}
	p := &parked{name: "migrate"}
	x.s.blocking.park(x, p)
	s, dbi := x.s, x.DB // x is the dispatcher's, reused once this returns
	go func() {
		m.exchange()
		s.owner.Do(func() {
			// The keys are dealt with even if the client has gone: the
			// target has them.
			var w resp.Writer
			err := s.finishMigrate(dbi, m, &w)
			if p.done {
				return
			}
			s.blocking.unpark(p)
			s.blocking.wake(p, func(out *resp.Writer) {
				if err != nil {
					out.Err(err)
					return
				}
				out.B = append(out.B, w.B...)
			})
		})
	}()
	return errNoReply
}

// atoi is C's atoi: the leading decimal digits, 0 without any.
func atoi(b []byte) int {
	s := strings.TrimLeft(string(b), " \t\n\v\f\r")
	end := 0
	if end < len(s) && (s[end] == '-' || s[end] == '+') {
		end++
	}
	for end < len(s) && s[end] >= '0' && s[end] <= '9' && end < 11 {
		end++
	}
	n, _ := strconv.Atoi(s[:end])
	return n
}

// exchange connects, sends the request and reads one reply line per
// command, each step bounded by the timeout, as Redis's connSync* calls
// are. It runs off the owner and touches nothing but m.
func (m *migration) exchange() {
	conn, err := net.DialTimeout("tcp", m.addr, m.timeout)
	if err != nil {
		// Redis connects without blocking and waits for the socket to turn
		// writable: only a timeout or an address it cannot resolve fails
		// the connect; a refused connection fails the first write.
		var dnsErr *net.DNSError
		var ne net.Error
		if errors.As(err, &dnsErr) || errors.As(err, &ne) && ne.Timeout() {
			m.failed, m.connFail = "connecting", true
		} else {
			m.failed = "writing"
		}
		return
	}
	defer conn.Close()
	for pos := 0; pos < len(m.req); {
		end := min(pos+64<<10, len(m.req))
		conn.SetWriteDeadline(time.Now().Add(m.timeout))
		if _, err := conn.Write(m.req[pos:end]); err != nil {
			m.failed = "writing"
			return
		}
		pos = end
	}
	rd := bufio.NewReaderSize(conn, 1024)
	want := len(m.keys) + 1
	if m.auth {
		want++
	}
	for len(m.lines) < want {
		conn.SetReadDeadline(time.Now().Add(m.timeout))
		line, err := readReplyLine(rd)
		if err != nil {
			m.failed = "reading"
			return
		}
		m.lines = append(m.lines, line)
	}
}

// readReplyLine is connSyncReadLine: a line without its CRLF, cut at 1023
// bytes.
func readReplyLine(rd *bufio.Reader) (string, error) {
	var b []byte
	for {
		part, err := rd.ReadSlice('\n')
		if len(b) < 1023 {
			b = append(b, part[:min(len(part), 1023-len(b))]...)
		}
		if err == nil {
			break
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return "", err
		}
	}
	return strings.TrimRight(string(b), "\r\n"), nil
}

// finishMigrate applies what the target answered, on the owner: every
// key it acknowledged leaves this database (unless COPY), and the reply
// is +OK, the target's first error, or Redis's IOERR.
func (s *Server) finishMigrate(db int, m *migration, w *resp.Writer) error {
	ioerr := func(what string) error {
		return &resp.Error{Code: "IOERR", Msg: "error or timeout " + what + " to target instance"}
	}
	if m.connFail {
		return &resp.Error{Code: "IOERR", Msg: "error or timeout connecting to the client"}
	}
	if m.failed == "writing" {
		return ioerr("writing")
	}
	pre := 1 // SELECT's reply
	if m.auth {
		pre++
	}
	if len(m.lines) < pre {
		return ioerr("reading")
	}
	var targetErr string
	for _, l := range m.lines[:pre] {
		if strings.HasPrefix(l, "-") && targetErr == "" {
			targetErr = l
		}
	}
	ctx := &keyspace.Ctx{W: &resp.Writer{}, DB: db, Now: s.ks.Now()}
	for j, l := range m.lines[pre:] {
		if targetErr != "" || strings.HasPrefix(l, "-") {
			if targetErr == "" {
				targetErr = l
			}
			continue
		}
		if !m.copy {
			s.ks.MigrateDelete(ctx, m.keys[j], m.payloads[j])
		}
	}
	if targetErr != "" {
		return resp.NewError("Target instance replied with error: " + targetErr[1:])
	}
	if m.failed != "" {
		return ioerr("reading")
	}
	w.Status("OK")
	return nil
}

// appendCommand appends a command as a RESP array of bulk strings.
func appendCommand(b []byte, args ...[]byte) []byte {
	b = resp.AppendHeader(b, '*', int64(len(args)))
	for _, a := range args {
		b = resp.AppendHeader(b, '$', int64(len(a)))
		b = append(append(b, a...), '\r', '\n')
	}
	return b
}

// migrateKeys is db.c's migrateGetKeys: the key argument, or with KEYS
// (and an empty key argument) the arguments after it, skipping the
// options' own arguments on the way.
func migrateKeys(argv [][]byte) []cmdspec.KeyRef {
	first, n := 3, 1
	for i := 6; i < len(argv); i++ {
		if redisstr.Option(argv[i], "keys") {
			if len(argv[3]) > 0 {
				n = 0 // a syntax error, left to MIGRATE itself
			} else {
				first, n = i+1, len(argv)-i-1
			}
			break
		}
		switch {
		case redisstr.Option(argv[i], "auth"):
			i++
		case redisstr.Option(argv[i], "auth2"):
			i += 2
		}
	}
	keys := make([]cmdspec.KeyRef, n)
	for i := range keys {
		keys[i] = cmdspec.KeyRef{Pos: first + i, Flags: cmdspec.KeyRW | cmdspec.KeyAccess | cmdspec.KeyDelete}
	}
	return keys
}
