package edge

import (
	"bytes"
	"errors"
	"io"
	"math"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/tidwall/redcon"

	"github.com/minilock/minilock/internal/redisstr"
	"github.com/minilock/minilock/resp"
)

// The frame guard is the request parser: each request byte is parsed once,
// here. It parses exactly as Redis 7.0 networking.c does, enforcing Redis's
// limits before it trusts a length, and copies each complete command into
// its output as canonical multibulk while noting where every argument lies
// in it; the server then takes the arguments as windows on that buffer
// without parsing again.
//
// redcon's parser is not used for requests: v1.6.2 trusts RESP length
// headers (a 28-byte frame panics inside it, *2147483647 makes it loop on
// every read) and splits inline commands differently from Redis, and it
// was a second parse of bytes the guard had already checked. redcon keeps
// its role as the commands' type (redcon.Command) and the tests' client.

// Redis's request-parsing constants (server.h, networking.c).
const (
	protoIOBufLen      = 16 << 10  // PROTO_IOBUF_LEN: the most one socket read takes
	protoInlineMaxSize = 64 << 10  // PROTO_INLINE_MAX_SIZE: longest line without its end
	protoMbulkBigArg   = 32 << 10  // PROTO_MBULK_BIG_ARG: such bulks are read on their own
	DefaultMaxBulkLen  = 512 << 20 // proto-max-bulk-len
	DefaultMaxQueryLen = 1 << 30   // client-query-buffer-limit
	unauthMaxCount     = 10        // larger multibulk counts need AUTH first
	unauthMaxBulkLen   = 16384     // and so do larger bulks

	// keepBufCap bounds the buffers an idle connection keeps, so that one
	// big command does not pin its memory for the life of the connection.
	keepBufCap = 64 << 10
	// keepSpans bounds the argument offsets an idle connection keeps
	// (8 bytes each) after a big pipeline.
	keepSpans = 8192

	// idleRead is what a connection with nothing pending reads into: a
	// buffer inside the guard, big enough for a pipeline of 16 lock
	// commands. The 16 KiB buffers come from a pool only once bytes arrive
	// and go back when they are used up, so 10,000 idle connections do not
	// hold 10,000 of them (Redis frees idle query buffers likewise).
	idleRead = 2 << 10
	poolCap  = 2 * protoIOBufLen
)

// bufPool holds the guard's working buffers. It stores array pointers,
// which go into an interface without an allocation (a *[]byte would need a
// new slice header per Put, that is per request).
var bufPool = sync.Pool{New: func() any { return new([poolCap]byte) }}

func getBuf() []byte { return bufPool.Get().(*[poolCap]byte)[:0] }

// putBuf returns b to the pool if it came from there.
func putBuf(b []byte) {
	if cap(b) == poolCap {
		bufPool.Put((*[poolCap]byte)(b[:poolCap]))
	}
}

// Limits are Redis's limits on request frames (zero values mean Redis's defaults).
type Limits struct {
	MaxBulkLen  int64 // proto-max-bulk-len; 512 MiB when 0
	MaxQueryLen int64 // client-query-buffer-limit; 1 GiB when 0: one command larger than this closes the connection without a reply, as Redis closes a client whose query buffer passes the limit

	// Unlike Redis, MaxQueryLen bounds the whole command being read (plus
	// any input not parsed yet), because the guard holds all of it; Redis's
	// query buffer holds one argument at a time, so Redis accepts a command
	// whose arguments add up to more than the limit.
}

// LiveLimits are the Limits every connection of a server reads while
// CONFIG SET may change them (proto-max-bulk-len and
// client-query-buffer-limit are run-time settings in Redis): each
// connection's goroutine loads them at every check, so a new value applies
// from the connection's next read, as Redis's next processInputBuffer reads
// server.proto_max_bulk_len. A nil *LiveLimits reads as Redis's defaults.
//
// They carry tcp-keepalive too, which Redis applies to each connection it
// accepts (createClient): a new value applies to the connections accepted
// after it.
type LiveLimits struct{ bulk, query, keepAlive atomic.Int64 }

// DefaultTCPKeepAlive is tcp-keepalive's default, in seconds.
const DefaultTCPKeepAlive = 300

// NewLiveLimits returns live limits starting at l, with tcp-keepalive's
// default.
func NewLiveLimits(l Limits) *LiveLimits {
	ll := new(LiveLimits)
	ll.Set(l)
	ll.keepAlive.Store(DefaultTCPKeepAlive)
	return ll
}

// SetKeepAlive changes tcp-keepalive, in seconds (0: off).
func (l *LiveLimits) SetKeepAlive(sec int64) { l.keepAlive.Store(sec) }

// KeepAlive returns tcp-keepalive, in seconds.
func (l *LiveLimits) KeepAlive() int64 {
	if l == nil {
		return DefaultTCPKeepAlive
	}
	return l.keepAlive.Load()
}

// Set changes the limits; zero fields mean Redis's defaults.
func (l *LiveLimits) Set(x Limits) {
	if x.MaxBulkLen <= 0 {
		x.MaxBulkLen = DefaultMaxBulkLen
	}
	if x.MaxQueryLen <= 0 {
		x.MaxQueryLen = DefaultMaxQueryLen
	}
	l.bulk.Store(x.MaxBulkLen)
	l.query.Store(x.MaxQueryLen)
}

// Load returns the limits now in force.
func (l *LiveLimits) Load() Limits {
	return Limits{MaxBulkLen: l.maxBulkLen(), MaxQueryLen: l.maxQueryLen()}
}

func (l *LiveLimits) maxBulkLen() int64 {
	if l == nil {
		return DefaultMaxBulkLen
	}
	return l.bulk.Load()
}

func (l *LiveLimits) maxQueryLen() int64 {
	if l == nil {
		return DefaultMaxQueryLen
	}
	return l.query.Load()
}

// A ProtocolError is a request Redis answers with "-ERR Protocol error: ..."
// before it closes the connection.
type ProtocolError struct{ msg string }

func (e *ProtocolError) Error() string { return "Protocol error: " + e.msg }

var (
	errTooBigMbulkCount = &ProtocolError{"too big mbulk count string"}
	errInvalidMbulkLen  = &ProtocolError{"invalid multibulk length"}
	errUnauthMbulkLen   = &ProtocolError{"unauthenticated multibulk length"}
	errTooBigBulkCount  = &ProtocolError{"too big bulk count string"}
	errInvalidBulkLen   = &ProtocolError{"invalid bulk length"}
	errUnauthBulkLen    = &ProtocolError{"unauthenticated bulk length"}
	errTooBigInline     = &ProtocolError{"too big inline request"}
	errUnbalancedQuotes = &ProtocolError{"unbalanced quotes in request"}
)

// errQueryBufferLimit ends a connection whose command in progress passes
// Limits.MaxQueryLen. Redis closes such a client without a reply.
var errQueryBufferLimit = errors.New("closing client that reached max query buffer length")

type parseState uint8

const (
	stRequest    parseState = iota // before the first byte of a request
	stCount                        // in the *<count> line
	stBulkHeader                   // in a $<len> line
	stBulkData                     // in a bulk's payload or the two bytes after it
	stInline                       // in an inline request line
)

// Guard is a net.Conn whose Read returns only complete canonical
// commands. Commands and Read run on the connection's goroutine (ServeConn);
// Write and the deadlines pass through to the socket.
type Guard struct {
	net.Conn
	lim         *LiveLimits // shared with every connection of the listener
	authPending atomic.Bool
	// ErrOut, when set, takes the protocol error's reply instead of the
	// socket: a connection whose output goes through a feed (goroutine
	// edge) must have it queued after the replies before it, not written
	// past them. Set on the owner during the connection's batch, read by
	// its goroutine after.
	ErrOut func([]byte)

	in      []byte // bytes read from Conn; in[inPos:] are not parsed yet
	inPos   int
	scanned int  // bytes after inPos already searched for the line end
	nul     bool // the search met a NUL: like strchr, Redis never finds this line's end

	state    parseState
	args     int64 // bulks still to come in this multibulk
	bulkLen  int64
	dataLeft int64 // payload bytes still to come in this bulk
	skip     int   // bytes after the payload that Redis skips without checking

	out     []byte // out[outR:outDone] are complete commands not yet returned; out[outDone:] is the one being parsed
	outR    int
	outDone int
	// spans holds the start and end offset in out of every argument there,
	// the command being parsed included; ends holds, for each complete
	// command, the index in spans after its last argument; ends[cmdR:] are
	// the commands Commands has not returned yet.
	spans []int
	ends  []int
	cmdR  int

	small [idleRead]byte // what an idle connection reads into
	carry int            // bytes of Redis's current 16 KiB read already taken by the idle read

	argBuf  []byte // scratch for splitting inline lines
	argEnds []int

	// qbuf, qfree and qmem are what the guard holds of the request
	// stream, published for CLIENT LIST (QueryBuffer), which the owner
	// runs while the connection's goroutine reads.
	qbuf, qfree, qmem atomic.Int64

	perr    error // the error found after the commands still in out
	err     error // perr, once it has been returned: Read keeps returning it
	readErr error // from Conn.Read, returned once the data that came with it is used
}

// NewGuard guards c with fixed limits lim.
func NewGuard(c net.Conn, lim Limits) *Guard {
	return &Guard{Conn: c, lim: NewLiveLimits(lim)}
}

// NewLiveGuard guards c with limits that may change while it serves (nil:
// Redis's defaults).
func NewLiveGuard(c net.Conn, lim *LiveLimits) *Guard {
	return &Guard{Conn: c, lim: lim}
}

// SetAuthPending tells the guard whether the connection must still
// authenticate (a password is set and AUTH has not succeeded). The server
// calls it at accept and after AUTH, HELLO AUTH and RESET, possibly from
// another goroutine while the connection's goroutine waits for its commands
// to run: that wait orders it before the next Read, and the atomic keeps
// the race detector, and any future caller, safe.
func (g *Guard) SetAuthPending(pending bool) { g.authPending.Store(pending) }

// ProtocolError returns the protocol error that ended the connection, or
// nil. Call it from the connection's goroutine, after Read has failed. A nil
// guard (a connection served without one) has none.
func (g *Guard) ProtocolError() error {
	if g == nil {
		return nil
	}
	return g.err
}

// Requests is what one Commands call returns: complete commands, and
// where each of their arguments lies. Its slices are windows on the
// guard's buffers, valid until the next call.
type Requests struct {
	buf   []byte // the guard's output; arguments are windows on it
	N     int    // bytes of canonical multibulk the commands take
	spans []int  // start and end offset in buf of each argument
	ends  []int  // for each command, the index after its last argument in the guard's spans
	base  int    // the index in the guard's spans of spans[0]
}

// Commands returns the complete commands read so far, reading from the
// socket until there is at least one. What it returns stays valid until the
// next call, which reuses the buffers: the connection's goroutine runs and
// answers them all before it asks again. Do not mix it with Read.
//
// Redis runs the commands before a bad frame and then replies with the
// protocol error, so the guard returns those commands first; the next
// call, finding nothing left to return, writes the error to the socket and
// fails, and the connection closes.
func (g *Guard) Commands() (Requests, error) {
	if err := g.ready(); err != nil {
		return Requests{}, err
	}
	return g.take(), nil
}

// take returns the complete commands not returned yet; there is one at
// least.
func (g *Guard) take() Requests {
	from := 0
	if g.cmdR > 0 {
		from = g.ends[g.cmdR-1]
	}
	r := Requests{
		buf:   g.out[:g.outDone],
		N:     g.outDone - g.outR,
		spans: g.spans[from:g.ends[len(g.ends)-1]],
		ends:  g.ends[g.cmdR:],
		base:  from,
	}
	g.outR, g.cmdR = g.outDone, len(g.ends)
	g.publish()
	return r
}

// publish records the figures QueryBuffer returns: the request bytes held
// and not handed over yet (complete commands not returned, the one being
// parsed, as canonical multibulk, and the input not parsed yet), the room
// the next read has in the read buffer (fill moves the unparsed input to
// its front), and
// what the guard's buffers take beyond the Guard itself (the read buffer
// when it is not the inline idle one, the command buffer and the argument
// offsets). Connection goroutine (or whoever holds the guard).
func (g *Guard) publish() {
	unparsed := len(g.in) - g.inPos
	g.qbuf.Store(int64(len(g.out) - g.outR + unparsed))
	g.qfree.Store(int64(cap(g.in) - unparsed))
	mem := cap(g.out) + int(unsafe.Sizeof(0))*(cap(g.spans)+cap(g.ends))
	if cap(g.in) > 0 && unsafe.SliceData(g.in[:1]) != &g.small[0] {
		mem += cap(g.in)
	}
	g.qmem.Store(int64(mem))
}

// QueryBuffer returns, from any goroutine, the request bytes the guard
// holds and has not handed over (CLIENT LIST's qbuf adds the batch being
// served), the room in its read buffer (qbuf-free)
// and the memory its buffers take beyond the Guard struct, as of its last
// read or hand-over. A nil guard holds nothing.
func (g *Guard) QueryBuffer() (used, free, mem int64) {
	if g == nil {
		return 0, 0, 0
	}
	return g.qbuf.Load(), g.qfree.Load(), g.qmem.Load()
}

// Args appends the arguments of r's commands to args and the commands,
// windows on args, to batch. Each argument's capacity ends where it does,
// so a command that appends to one cannot overwrite the next.
func (r Requests) Args(batch []redcon.Command, args [][]byte) ([]redcon.Command, [][]byte) {
	i := 0 // index in r.spans
	for _, end := range r.ends {
		from := len(args)
		for ; i < end-r.base; i += 2 {
			s, e := r.spans[i], r.spans[i+1]
			args = append(args, r.buf[s:e:e])
		}
		batch = append(batch, redcon.Command{Args: args[from:len(args):len(args)]})
	}
	return batch, args
}

// Read is Commands as an io.Reader, copying as many bytes as fit in p and
// keeping the rest for the next call. The server uses Commands; Read keeps
// Guard a net.Conn whose reads all pass the guard (the embedded
// Conn's Read would bypass it), and the guard's tests read through it.
func (g *Guard) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if err := g.ready(); err != nil {
		return 0, err
	}
	n := copy(p, g.out[g.outR:g.outDone])
	g.outR += n
	return n, nil
}

// ready parses and reads until a complete command is waiting in out, or
// returns the error that ends the connection.
func (g *Guard) ready() error {
	for g.outR == g.outDone {
		if g.err != nil {
			return g.err
		}
		if g.perr != nil {
			g.err = g.perr
			g.reply(g.perr)
			return g.err
		}
		g.compactOut()
		g.parse()
		if g.outR < g.outDone || g.perr != nil {
			continue
		}
		if g.readErr != nil {
			err := g.readErr
			g.readErr = nil
			return err
		}
		g.fill()
	}
	return nil
}

// Held returns the complete commands the guard holds and has not returned,
// parsing what it has buffered, without reading the socket and without
// answering a protocol error (the next Commands call does that, from the
// connection's goroutine). The goroutine edge's owner calls it, while the
// connection's goroutine waits for it, to go on after a RESET or an AUTH
// that stopped the parse (see parse).
func (g *Guard) Held() (Requests, bool) {
	if g.err == nil && g.perr == nil && g.outR == g.outDone {
		g.parse()
	}
	if g.outR == g.outDone {
		return Requests{}, false
	}
	return g.take(), true
}

// ErrWouldBlock is what a non-blocking Conn's Read returns when the socket
// has nothing to read: the event loop's connections (eventloop_linux.go).
var ErrWouldBlock = errors.New("read would block")

// TryCommands is Commands for the event loop, which must never wait: it
// returns the complete commands already buffered, or parses what one
// non-blocking read of the socket brings (when read is set; the loop reads
// once per readiness event, as Redis's readQueryFromClient does), or
// returns nothing until the socket is readable again. Every limit applies
// as in Commands, and a protocol error is answered (through Conn.Write) and
// returned once the commands before it have been taken.
func (g *Guard) TryCommands(read bool) (Requests, bool, error) {
	for g.outR == g.outDone {
		if g.err != nil {
			return Requests{}, false, g.err
		}
		if g.perr != nil {
			g.err = g.perr
			g.reply(g.perr)
			return Requests{}, false, g.err
		}
		g.compactOut()
		g.parse()
		if g.outR < g.outDone || g.perr != nil {
			continue
		}
		if err := g.readErr; err != nil {
			g.readErr = nil
			if err == ErrWouldBlock {
				return Requests{}, false, nil
			}
			return Requests{}, false, err
		}
		if !read {
			return Requests{}, false, nil
		}
		read = false
		g.fill()
	}
	return g.take(), true, nil
}

// Release gives the pooled buffers back once everything returned has been
// served and nothing is pending, as fill does before a read that may wait
// long: the event loop calls it when a connection goes back to waiting
// for input, so 10,000 idle connections hold no 32 KiB buffers.
func (g *Guard) Release() {
	if g.outR != g.outDone || g.perr != nil {
		return
	}
	g.compactOut()
	if len(g.out) == 0 {
		putBuf(g.out)
		g.out = nil
	}
	if g.inPos == len(g.in) && cap(g.in) == poolCap {
		putBuf(g.in)
		g.in, g.inPos = g.small[:0], 0
	}
	g.publish()
}

// reply writes Redis's reply to a protocol error. Redis turns CR and LF in
// an error message into spaces (addReplyErrorFormat).
func (g *Guard) reply(err error) {
	var pe *ProtocolError
	if !errors.As(err, &pe) {
		return
	}
	msg := strings.NewReplacer("\r", " ", "\n", " ").Replace(pe.Error())
	if g.ErrOut != nil {
		g.ErrOut([]byte("-ERR " + msg + "\r\n"))
		return
	}
	g.Conn.Write([]byte("-ERR " + msg + "\r\n")) // the connection closes next: a write error changes nothing
}

// compactOut moves the command being parsed to the front of out once
// everything before it has been returned.
func (g *Guard) compactOut() {
	if g.outR > 0 {
		n := copy(g.out, g.out[g.outDone:])
		g.out = g.out[:n]
		// The command being parsed keeps its arguments' offsets, moved
		// with it.
		done := 0
		if len(g.ends) > 0 {
			done = g.ends[len(g.ends)-1]
		}
		n = copy(g.spans, g.spans[done:])
		g.spans = g.spans[:n]
		for i := range g.spans {
			g.spans[i] -= g.outDone
		}
		g.ends, g.cmdR = g.ends[:0], 0
		g.outR, g.outDone = 0, 0
	}
	if len(g.out) == 0 && cap(g.out) > keepBufCap {
		g.out = nil
	}
	if len(g.spans) == 0 && cap(g.spans) > keepSpans {
		g.spans, g.ends = nil, nil
	}
}

// fill reads once from Conn, like one readQueryFromClient: 16 KiB at most,
// and never past the end of a big bulk, which Redis reads on its own.
func (g *Guard) fill() {
	want := protoIOBufLen
	if g.state == stBulkData && g.bulkLen >= protoMbulkBigArg {
		want = int(min(g.dataLeft+int64(g.skip), protoIOBufLen))
	}
	unparsed := copy(g.in, g.in[g.inPos:]) // at most one partial line
	g.in, g.inPos = g.in[:unparsed], 0
	if unparsed == 0 && len(g.out) == 0 {
		// Nothing pending: this read may wait a long time.
		putBuf(g.in)
		putBuf(g.out)
		g.in, g.out = g.small[:0], nil
		want = min(want, idleRead)
		g.publish() // idle while the read waits
	} else if g.carry > 0 {
		// The idle read filled the small buffer, so more was probably
		// waiting: read only the rest of Redis's 16 KiB, keeping the
		// boundaries where its 64 KiB line-length checks fall.
		want = min(want, protoIOBufLen-g.carry)
	}
	g.carry = 0
	if cap(g.in)-unparsed < want {
		var in []byte
		if need := max(unparsed+want, 2*cap(g.in)); need <= poolCap {
			in = getBuf()[:unparsed]
		} else {
			in = make([]byte, unparsed, need)
		}
		copy(in, g.in)
		putBuf(g.in)
		g.in = in
	}

	var n int
	var err error
	for range 100 { // as bufio does, give up on a Conn that keeps returning nothing
		n, err = g.Conn.Read(g.in[unparsed : unparsed+want])
		if n > 0 || err != nil {
			break
		}
	}
	if n == 0 && err == nil {
		err = io.ErrNoProgress
	}
	g.in = g.in[:unparsed+n]
	g.readErr = err
	if want == idleRead && n == idleRead {
		g.carry = n
	}

	if int64(len(g.out)-g.outDone)+int64(len(g.in)) > g.lim.maxQueryLen() {
		g.fail(errQueryBufferLimit)
	}
	g.publish()
}

// fail drops the command being parsed and records why the connection ends.
func (g *Guard) fail(err error) {
	g.out = g.out[:g.outDone]
	g.spans = g.spans[:0]
	if len(g.ends) > 0 {
		g.spans = g.spans[:g.ends[len(g.ends)-1]]
	}
	g.perr = err
}

// parse turns buffered input into canonical commands, as processInputBuffer
// does. It stops when it needs more input, at a protocol error, and after a
// command whose successors must wait until it has run: while auth is
// pending (AUTH may lift the limits) and after RESET (it may bring them back).
func (g *Guard) parse() {
	if g.out == nil && g.inPos < len(g.in) {
		g.out = getBuf()
	}
	for g.perr == nil && g.inPos < len(g.in) {
		switch g.state {
		case stRequest:
			g.state = stInline
			if g.in[g.inPos] == '*' {
				g.state = stCount
			}

		case stCount:
			line, ok := g.line('\r', errTooBigMbulkCount)
			if !ok {
				return
			}
			n, ok := redisstr.ParseInt(line[1 : len(line)-1])
			switch {
			case !ok || n > math.MaxInt32:
				g.fail(errInvalidMbulkLen)
			case n > unauthMaxCount && g.authPending.Load():
				g.fail(errUnauthMbulkLen)
			case n <= 0:
				g.state = stRequest // Redis ignores empty and negative counts
			default:
				g.args = n
				g.state = stBulkHeader
				g.out = appendLine(g.out, line)
			}

		case stBulkHeader:
			line, ok := g.line('\r', errTooBigBulkCount)
			if !ok {
				return
			}
			if line[0] != '$' {
				g.fail(&ProtocolError{"expected '$', got '" + string(line[:1]) + "'"})
				return
			}
			n, ok := redisstr.ParseInt(line[1 : len(line)-1])
			switch {
			case !ok || n < 0 || n > g.lim.maxBulkLen():
				g.fail(errInvalidBulkLen)
			case n > unauthMaxBulkLen && g.authPending.Load():
				g.fail(errUnauthBulkLen)
			default:
				g.bulkLen, g.dataLeft, g.skip = n, n, 2
				g.state = stBulkData
				g.out = appendLine(g.out, line)
				g.spans = append(g.spans, len(g.out))
			}

		case stBulkData:
			n := int(min(int64(len(g.in)-g.inPos), g.dataLeft))
			if cap(g.out)-len(g.out) < n {
				// append grows a big slice by a quarter, copying a big
				// bulk many times over: double, as far as the bulk goes.
				grow := int64(max(n, len(g.out)))
				g.out = slices.Grow(g.out, int(min(grow, g.dataLeft+2)))
			}
			g.out = append(g.out, g.in[g.inPos:g.inPos+n]...)
			g.inPos += n
			g.dataLeft -= int64(n)
			if g.dataLeft > 0 {
				return
			}
			n = min(len(g.in)-g.inPos, g.skip)
			g.inPos += n
			g.skip -= n
			if g.skip > 0 {
				return
			}
			g.spans = append(g.spans, len(g.out))
			g.out = append(g.out, "\r\n"...)
			if g.args--; g.args > 0 {
				g.state = stBulkHeader
			} else if !g.finish() {
				return
			}

		case stInline:
			line, ok := g.line('\n', errTooBigInline)
			if !ok {
				return
			}
			line = line[:len(line)-1]
			if len(line) > 0 && line[len(line)-1] == '\r' {
				line = line[:len(line)-1]
			}
			g.state = stRequest
			g.argBuf, g.argEnds, ok = redisstr.SplitInto(g.argBuf[:0], g.argEnds[:0], line)
			if !ok {
				g.fail(errUnbalancedQuotes)
				return
			}
			if len(g.argEnds) == 0 {
				continue // Redis ignores empty lines
			}
			g.out = resp.AppendHeader(g.out, '*', int64(len(g.argEnds)))
			start := 0
			for _, end := range g.argEnds {
				g.out = resp.AppendHeader(g.out, '$', int64(end-start))
				g.spans = append(g.spans, len(g.out))
				g.out = append(g.out, g.argBuf[start:end]...)
				g.spans = append(g.spans, len(g.out))
				g.out = append(g.out, "\r\n"...)
				start = end
			}
			if !g.finish() {
				return
			}
		}
	}
}

// finish marks the command at the end of out complete and reports whether
// the next one may be parsed before it runs.
func (g *Guard) finish() bool {
	cmd := g.out[g.outDone:]
	g.outDone = len(g.out)
	g.ends = append(g.ends, len(g.spans))
	g.state = stRequest
	isReset := len(cmd) == 15 && bytes.EqualFold(cmd, []byte("*1\r\n$5\r\nreset\r\n"))
	return !g.authPending.Load() && !isReset
}

// line finds the end of the line that starts at inPos, searching only bytes
// it has not searched before, and consumes the line. sep is '\r' for
// multibulk headers, where Redis also needs (and skips unchecked) the byte
// after it, and '\n' for inline requests. The line is returned with its sep.
// More than PROTO_INLINE_MAX_SIZE bytes buffered without the end fail with tooBig.
func (g *Guard) line(sep byte, tooBig error) ([]byte, bool) {
	start := g.inPos
	end := -1
	if !g.nul {
		// A plain loop: lines are a few bytes long, too short for IndexByte.
		b := g.in[start+g.scanned:]
		i := 0
		for i < len(b) && b[i] != sep && b[i] != 0 {
			i++
		}
		g.scanned += i
		switch {
		case i == len(b):
		case b[i] == 0:
			g.nul = true
		default:
			end = start + g.scanned
		}
	}
	if end < 0 {
		if len(g.in)-start > protoInlineMaxSize {
			g.fail(tooBig)
		}
		return nil, false
	}
	next := end + 1
	if sep == '\r' {
		if next == len(g.in) {
			return nil, false
		}
		next++
	}
	g.inPos, g.scanned, g.nul = next, 0, false
	return g.in[start : end+1], true
}

// appendLine appends a header line that string2ll accepted, and so is
// already canonical, ending it with the LF that Redis did not check.
func appendLine(b, line []byte) []byte {
	b = append(b, line...)
	return append(b, '\n')
}
