package server

import (
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"github.com/minilock/minilock/internal/redisstr"
	"github.com/minilock/minilock/resp"
	"github.com/minilock/minilock/server/internal/edge"
)

// CLIENT subcommands for operators (networking.c:clientCommand): LIST,
// INFO, KILL, PAUSE, UNPAUSE, REPLY, NO-EVICT, GETREDIR, TRACKINGINFO,
// HELP. CLIENT TRACKING and CACHING are not there: minilock has no
// client-side caching, and answers them as Redis answers an unknown
// subcommand.

var errClientID = resp.NewError("Invalid client ID")

// connFD returns the socket's file descriptor, for CLIENT LIST's fd=; -1
// when the connection has none.
func connFD(c interface {
	SyscallConn() (syscall.RawConn, error)
}) int {
	rc, err := c.SyscallConn()
	if err != nil {
		return -1
	}
	fd := -1
	rc.Control(func(f uintptr) { fd = int(f) })
	return fd
}

// clientType is a client's class for CLIENT LIST TYPE and CLIENT KILL
// TYPE: normal, master, replica or pubsub; ok is false for an unknown
// name. minilock has no masters or replicas.
func clientType(name []byte) (string, bool) {
	switch {
	case redisstr.Option(name, "normal"):
		return "normal", true
	case redisstr.Option(name, "master"):
		return "master", true
	case redisstr.Option(name, "replica"), redisstr.Option(name, "slave"):
		return "replica", true
	case redisstr.Option(name, "pubsub"):
		return "pubsub", true
	}
	return "", false
}

// typeOf is c's class (getClientType).
func (c *client) typeOf() string {
	// A MONITOR client is flagged a replica in Redis, but getClientType
	// counts it as normal.
	if c.inSubscribedMode() {
		return "pubsub"
	}
	return "normal"
}

// CLIENT LIST [TYPE NORMAL|MASTER|REPLICA|PUBSUB] | [ID id ...]
func cmdClientList(x *call, args [][]byte) error {
	typ := ""
	switch {
	case len(args) == 2:
	case len(args) > 3 && redisstr.Option(args[2], "id"):
		return clientListIDs(x, args[3:])
	case len(args) == 4 && redisstr.Option(args[2], "type"):
		t, ok := clientType(args[3])
		if !ok {
			return resp.NewError("Unknown client type '" + redisstr.CString(args[3]) + "'")
		}
		typ = t
	default:
		return resp.ErrSyntax
	}
	var b strings.Builder
	for _, c := range x.s.clients.snapshot() {
		if typ == "" || c.typeOf() == typ {
			b.WriteString(x.s.clientLine(c, x))
			b.WriteByte('\n')
		}
	}
	x.W.Verbatim("txt", b.String())
	return nil
}

// clientListIDs answers CLIENT LIST ID: the clients named, in the order
// given (a repeated id is listed again), unknown ids left out.
func clientListIDs(x *call, ids [][]byte) error {
	byID := map[int64]*client{}
	for _, c := range x.s.clients.snapshot() {
		byID[c.id] = c
	}
	var b strings.Builder
	for _, a := range ids {
		id, ok := redisstr.ParseInt(a)
		if !ok {
			return errClientID
		}
		if c := byID[id]; c != nil {
			b.WriteString(x.s.clientLine(c, x))
			b.WriteByte('\n')
		}
	}
	x.W.Verbatim("txt", b.String())
	return nil
}

// CLIENT INFO
func cmdClientInfo(x *call, args [][]byte) error {
	x.W.Verbatim("txt", x.s.clientLine(x.c, x)+"\n")
	return nil
}

// clientFlags are CLIENT LIST's flags= letters, in networking.c's order.
func (c *client) flags() string {
	var f []byte
	if c.monitor {
		f = append(f, 'O')
	}
	if c.inSubscribedMode() {
		f = append(f, 'P')
	}
	if c.multi != nil {
		f = append(f, 'x')
	}
	if c.parked != nil {
		f = append(f, 'b')
	}
	f = c.track.letters(f)
	if c.CloseNow {
		f = append(f, 'c')
	}
	if c.noEvict {
		f = append(f, 'e')
	}
	if len(f) == 0 {
		return "N"
	}
	return string(f)
}

// clientStructSize is what a client and its socket cost before their
// buffers.
const clientStructSize = int64(unsafe.Sizeof(client{}) + unsafe.Sizeof(edge.Conn{}))

// clientLine formats c as a CLIENT LIST line, with Redis 7.0's fields in
// its order. Sizes are minilock's own: the reply buffer a connection keeps
// (rbs), the bytes of the command being run (argv-mem, only for the client
// running one, as in Redis), what a transaction has queued (multi-mem).
// Replies are written as they are made, so there is never an output list
// (obl, oll, omem 0), and a command is parsed in place from the read
// buffer, so no query buffer is reported (qbuf 0).
func (s *Server) clientLine(c *client, x *call) string {
	now := time.Now()
	db, cmd := c.db, c.lastCmd
	if c == x.c {
		db = x.DB // a SELECT earlier in a transaction is not in c.db yet
	}
	if cmd == "" {
		cmd = "NULL"
	}
	multi, multiMem := -1, int64(0)
	if c.multi != nil {
		multi = len(c.multi.cmds)
		for _, q := range c.multi.cmds {
			multiMem += int64(unsafe.Sizeof(q)) + int64(len(q.args))*int64(unsafe.Sizeof(q.args[0]))
			for _, a := range q.args {
				multiMem += int64(len(a))
			}
		}
	}
	var argvMem int64
	if c == x.c && c.Next < len(c.Batch) {
		for _, a := range c.Batch[c.Next].Args {
			argvMem += int64(len(a))
		}
	}
	rbs, held := c.ReplyCap.Load(), c.HeldMem.Load()
	if c == x.c {
		// Its buffers are the owner's while its command runs.
		rbs = int64(cap(c.W.B))
	}
	totMem := clientStructSize + held + argvMem + multiMem
	var b strings.Builder
	b.Grow(320)
	field := func(name, v string) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(name)
		b.WriteByte('=')
		b.WriteString(v)
	}
	i := func(n int64) string { return strconv.FormatInt(n, 10) }
	field("id", i(c.id))
	field("addr", c.Addr)
	field("laddr", c.LAddr)
	field("fd", i(int64(c.FD)))
	field("name", c.name)
	field("age", i(int64(now.Sub(c.born).Seconds())))
	field("idle", i(int64(now.Sub(c.lastAt).Seconds())))
	field("flags", c.flags())
	field("db", i(int64(db)))
	field("sub", i(int64(len(c.pubsub.channels))))
	field("psub", i(int64(len(c.pubsub.patterns))))
	field("ssub", i(int64(len(c.pubsub.shard))))
	field("multi", i(int64(multi)))
	field("qbuf", "0")
	field("qbuf-free", "0")
	field("argv-mem", i(argvMem))
	field("multi-mem", i(multiMem))
	field("rbs", i(rbs))
	field("rbp", i(c.ReplyPeak.Load()))
	field("obl", "0")
	field("oll", "0")
	field("omem", "0")
	field("tot-mem", i(totMem))
	field("events", "r")
	field("cmd", cmd)
	field("user", "default")
	field("redir", i(c.track.redir()))
	field("resp", i(int64(c.W.Proto)))
	return b.String()
}

// clientsMemory is mem_clients_normal: what the connected clients hold.
func (s *Server) clientsMemory() int64 {
	var n int64
	for _, c := range s.clients.snapshot() {
		n += clientStructSize + c.HeldMem.Load()
	}
	return n
}

// CLIENT NO-EVICT ON|OFF: minilock evicts no client; the flag shows in
// CLIENT LIST (e).
func cmdClientNoEvict(x *call, args [][]byte) error {
	switch {
	case redisstr.Option(args[2], "on"):
		x.c.noEvict = true
	case redisstr.Option(args[2], "off"):
		x.c.noEvict = false
	default:
		return resp.ErrSyntax
	}
	x.W.OK()
	return nil
}

var (
	errNoSuchClient = resp.NewError("No such client")
	errClientIDKill = resp.NewError("client-id should be greater than 0")
)

// CLIENT KILL ip:port | CLIENT KILL [ID id] [TYPE type] [USER user]
// [ADDR ip:port] [LADDR ip:port] [SKIPME yes|no] ...
func cmdClientKill(x *call, args [][]byte) error {
	var (
		id                int64
		typ, addr, laddr  string
		skipMe            = true
		oldForm           = len(args) == 3
		idSet, typSet     bool
		addrSet, laddrSet bool
	)
	if oldForm {
		addr, addrSet, skipMe = string(args[2]), true, false
	} else {
		if len(args)%2 != 0 {
			return resp.ErrSyntax
		}
		for j := 2; j < len(args); j += 2 {
			opt, v := args[j], args[j+1]
			switch {
			case redisstr.Option(opt, "id"):
				n, ok := redisstr.ParseInt(v)
				if !ok || n <= 0 {
					return errClientIDKill
				}
				id, idSet = n, true
			case redisstr.Option(opt, "type"):
				t, ok := clientType(v)
				if !ok {
					return resp.NewError("Unknown client type '" + redisstr.CString(v) + "'")
				}
				typ, typSet = t, true
			case redisstr.Option(opt, "addr"):
				addr, addrSet = string(v), true
			case redisstr.Option(opt, "laddr"):
				laddr, laddrSet = string(v), true
			case redisstr.Option(opt, "user"):
				// Every connection is the default user's, authenticated
				// or not: it is the only user.
				if string(v) != "default" {
					return resp.NewError("No such user '" + redisstr.CString(v) + "'")
				}
			case redisstr.Option(opt, "skipme"):
				switch {
				case redisstr.Option(v, "yes"):
					skipMe = true
				case redisstr.Option(v, "no"):
					skipMe = false
				default:
					return resp.ErrSyntax
				}
			default:
				return resp.ErrSyntax
			}
		}
	}
	killed := 0
	for _, c := range x.s.clients.snapshot() {
		switch {
		case idSet && c.id != id,
			typSet && c.typeOf() != typ,
			addrSet && c.Addr != addr,
			laddrSet && c.LAddr != laddr,
			skipMe && c == x.c:
			continue
		}
		killed++
		if c == x.c {
			// Closed once this reply is out (CLIENT_CLOSE_AFTER_REPLY).
			c.CloseNow = true
			continue
		}
		c.Killed.Store(true)
		c.Guard.Close()
	}
	if oldForm {
		if killed == 0 {
			return errNoSuchClient
		}
		x.W.OK()
		return nil
	}
	x.W.Int(int64(killed))
	return nil
}

// CLIENT REPLY ON|OFF|SKIP: OFF and SKIP are not answered; SKIP drops
// the next command's reply (see client.Run).
func cmdClientReply(x *call, args [][]byte) error {
	switch {
	case redisstr.Option(args[2], "on"):
		// ON ends SKIP too, and its own +OK is sent.
		x.c.quietStop()
		x.c.replyOff, x.c.replySkip = false, false
		x.W.OK()
		return nil
	case redisstr.Option(args[2], "off"):
		x.c.replyOff = true
		x.c.quietStart()
	case redisstr.Option(args[2], "skip"):
		if !x.c.replyOff {
			x.c.replySkipNext = true
		}
	default:
		return resp.ErrSyntax
	}
	return errNoReply
}

var (
	errPauseTimeout = resp.NewError("timeout is not an integer or out of range")
	errPauseNeg     = resp.NewError("timeout is negative")
	errPauseMode    = resp.NewError("CLIENT PAUSE mode must be WRITE or ALL")
)

// pauseState is CLIENT PAUSE's: until when, and whether all commands or
// only writes wait. Owner goroutine.
type pauseState struct {
	until time.Time
	all   bool
	// over is closed when the pause ends early (CLIENT UNPAUSE, or a new
	// pause replacing it); waiting connections also wake at until.
	over chan struct{}
}

// CLIENT PAUSE timeout [WRITE|ALL]
func cmdClientPause(x *call, args [][]byte) error {
	ms, ok := redisstr.ParseInt(args[2])
	if !ok {
		return errPauseTimeout
	}
	if ms < 0 {
		return errPauseNeg
	}
	all := true
	if len(args) == 4 {
		switch {
		case redisstr.Option(args[3], "write"):
			all = false
		case redisstr.Option(args[3], "all"):
		default:
			return errPauseMode
		}
	} else if len(args) > 4 {
		return errSubSyntax(args)
	}
	p := &x.s.ops.pause
	until := time.Now().Add(time.Duration(min(ms, int64(1<<62)/int64(time.Millisecond))) * time.Millisecond)
	// As pauseClients does, a pause never shortens one in force; its
	// mode is the new one.
	if p.active() && until.Before(p.until) {
		until = p.until
	}
	p.end()
	p.until, p.all, p.over = until, all, make(chan struct{})
	x.W.OK()
	return nil
}

// CLIENT UNPAUSE
func cmdClientUnpause(x *call, args [][]byte) error {
	x.s.ops.pause.end()
	x.W.OK()
	return nil
}

func (p *pauseState) active() bool { return p.over != nil && time.Now().Before(p.until) }

// end ends the pause, waking the waiting connections.
func (p *pauseState) end() {
	if p.over != nil {
		close(p.over)
	}
	*p = pauseState{}
}

// pausedFor reports whether args must wait for the pause to end, and the
// channel and time to wait for. As processCommand does, an ALL pause holds
// every command, a WRITE pause the ones that may write: writes, EVAL and
// its kind, and EXEC of a transaction holding any.
func (s *Server) pausedFor(c *client, args [][]byte) (bool, chan struct{}, time.Time) {
	p := &s.ops.pause
	if p.over == nil {
		return false, nil, time.Time{}
	}
	if !p.active() {
		p.end()
		return false, nil, time.Time{}
	}
	if c.monitor {
		return false, nil, time.Time{}
	}
	if !p.all {
		cmd, err := lookup(args)
		if err != nil || !mayWrite(c, cmd) {
			return false, nil, time.Time{}
		}
	}
	return true, p.over, p.until
}

func mayWrite(c *client, cmd *command) bool {
	if cmd.flags&(fWrite|fMayReplicate) != 0 {
		return true
	}
	if cmd.name == "exec" && c.multi != nil {
		for _, q := range c.multi.cmds {
			if q.cmd.flags&(fWrite|fMayReplicate) != 0 {
				return true
			}
		}
	}
	return false
}

// CLIENT HELP
func cmdClientHelp(x *call, args [][]byte) error {
	return writeHelp(x, "CLIENT",
		"CACHING (YES|NO)",
		"    Enable/disable tracking of the keys for next command in OPTIN/OPTOUT modes.",
		"GETREDIR",
		"    Return the client ID we are redirecting to when tracking is enabled.",
		"GETNAME",
		"    Return the name of the current connection.",
		"ID",
		"    Return the ID of the current connection.",
		"INFO",
		"    Return information about the current client connection.",
		"KILL <ip:port>",
		"    Kill connection made from <ip:port>.",
		"KILL <option> <value> [<option> <value> [...]]",
		"    Kill connections. Options are:",
		"    * ADDR (<ip:port>|<unixsocket>:0)",
		"      Kill connections made from the specified address",
		"    * LADDR (<ip:port>|<unixsocket>:0)",
		"      Kill connections made to specified local address",
		"    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
		"      Kill connections by type.",
		"    * USER <username>",
		"      Kill connections authenticated by <username>.",
		"    * SKIPME (YES|NO)",
		"      Skip killing current connection (default: yes).",
		"LIST [options ...]",
		"    Return information about client connections. Options:",
		"    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
		"      Return clients of specified type.",
		"UNPAUSE",
		"    Stop the current client pause, resuming traffic.",
		"PAUSE <timeout> [WRITE|ALL]",
		"    Suspend all, or just write, clients for <timeout> milliseconds.",
		"REPLY (ON|OFF|SKIP)",
		"    Control the replies sent to the current connection.",
		"SETNAME <name>",
		"    Assign the name <name> to the current connection.",
		"UNBLOCK <clientid> [TIMEOUT|ERROR]",
		"    Unblock the specified blocked client.",
		"TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]",
		"         [OPTIN] [OPTOUT] [NOLOOP]",
		"    Control server assisted client side caching.",
		"TRACKINGINFO",
		"    Report tracking status for the current connection.",
		"NO-EVICT (ON|OFF)",
		"    Protect current client connection from eviction.")
}
