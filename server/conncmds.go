package server

import (
	"crypto/subtle"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/minilock/minilock/internal/redisstr"
	"github.com/minilock/minilock/resp"
)

// Connection commands: what a client's handshake and session use
// (server.c, networking.c, acl.c, db.c).

// PING [message]
func cmdPing(x *call, args [][]byte) error {
	if len(args) > 2 {
		return resp.ErrWrongArgs("ping")
	}
	if x.script == nil && x.c.inSubscribedMode() && !x.W.RESP3() {
		// A RESP2 subscriber gets a frame like the messages around it.
		x.W.Array(2)
		x.W.BulkString("pong")
		if len(args) == 2 {
			x.W.Bulk(args[1])
		} else {
			x.W.BulkString("")
		}
		return nil
	}
	if len(args) == 2 {
		x.W.Bulk(args[1])
		return nil
	}
	x.W.Status("PONG")
	return nil
}

// ECHO message
func cmdEcho(x *call, args [][]byte) error {
	x.W.Bulk(args[1])
	return nil
}

var (
	errAuthNoPassword = resp.NewError("AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?")
	errHelloProto     = resp.NewError("Protocol version is not an integer or out of range")
	errNoProto        = &resp.Error{Code: "NOPROTO", Msg: "unsupported protocol version"}
	errHelloNoAuth    = &resp.Error{Code: "NOAUTH", Msg: "HELLO must be called with the client already authenticated, otherwise the HELLO AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time"}
	errClientName     = resp.NewError("Client names cannot contain spaces, newlines or special characters.")
)

// authenticate checks a username and password as Redis's default user
// checks them: with no requirepass it accepts any password ("nopass").
func (s *Server) authenticate(user, pass []byte) bool {
	if string(user) != "default" {
		return false
	}
	if s.cfg.Password == "" {
		return true
	}
	return subtle.ConstantTimeCompare(pass, []byte(s.cfg.Password)) == 1
}

// AUTH [username] password
func cmdAuth(x *call, args [][]byte) error {
	if len(args) > 3 {
		return resp.ErrSyntax
	}
	user, pass := []byte("default"), args[1]
	if len(args) == 2 {
		if x.s.cfg.Password == "" {
			return errAuthNoPassword
		}
	} else {
		user, pass = args[1], args[2]
	}
	if !x.s.authenticate(user, pass) {
		return resp.ErrWrongPass
	}
	x.c.setAuthed(true)
	x.W.OK()
	return nil
}

// HELLO [protover [AUTH username password] [SETNAME name]]
func cmdHello(x *call, args [][]byte) error {
	var proto int64
	next := 1
	if len(args) >= 2 {
		var ok bool
		if proto, ok = redisstr.ParseInt(args[1]); !ok {
			return errHelloProto
		}
		if proto < 2 || proto > 3 {
			return errNoProto
		}
		next = 2
	}
	var user, pass, name []byte
	for j := next; j < len(args); j++ {
		more := len(args) - 1 - j
		switch {
		case redisstr.Option(args[j], "auth") && more >= 2:
			user, pass = args[j+1], args[j+2]
			j += 2
		case redisstr.Option(args[j], "setname") && more >= 1:
			// The name is checked as the options are read, before
			// AUTH (networking.c:helloCommand).
			name = args[j+1]
			if err := validName(name); err != nil {
				return err
			}
			j++
		default:
			return resp.NewError("Syntax error in HELLO option '" + redisstr.CString(args[j]) + "'")
		}
	}
	if user != nil {
		if !x.s.authenticate(user, pass) {
			return resp.ErrWrongPass
		}
		x.c.setAuthed(true)
	}
	if !x.c.authed {
		return errHelloNoAuth
	}
	if name != nil {
		x.c.name = string(name)
	}
	if proto != 0 {
		x.c.w.Proto = int(proto)
	}
	w := x.W
	w.Map(7)
	w.BulkString("server")
	w.BulkString("redis")
	w.BulkString("version")
	w.BulkString(Version)
	w.BulkString("proto")
	w.Int(int64(x.c.w.Proto))
	w.BulkString("id")
	w.Int(x.c.id)
	w.BulkString("mode")
	w.BulkString("standalone")
	w.BulkString("role")
	w.BulkString("master")
	w.BulkString("modules")
	w.Array(0)
	return nil
}

// setName sets the client name; an empty name removes it.
func (c *client) setName(name []byte) error {
	if err := validName(name); err != nil {
		return err
	}
	c.name = string(name)
	return nil
}

// validName checks a client name as Redis's validateClientName does:
// printable ASCII without spaces.
func validName(name []byte) error {
	for _, ch := range name {
		if ch < '!' || ch > '~' {
			return errClientName
		}
	}
	return nil
}

var errSelectRange = resp.NewError("value is out of range, value must between -2147483648 and 2147483647")

// SELECT index
func cmdSelect(x *call, args [][]byte) error {
	n, ok := redisstr.ParseInt(args[1])
	if !ok {
		return resp.ErrNotInteger
	}
	if n < -1<<31 || n > 1<<31-1 {
		return errSelectRange
	}
	if n < 0 || n >= int64(x.s.ks.Databases()) {
		return resp.ErrDBIndex
	}
	x.DB = int(n)
	x.W.OK()
	return nil
}

// QUIT: +OK, then the connection closes once the reply is out.
func cmdQuit(x *call, args [][]byte) error {
	x.c.closeNow = true
	x.W.OK()
	return nil
}

// RESET: back to a fresh connection's state (database 0, RESP2, no name,
// no transaction or watches, not monitoring, and unauthenticated again if a
// password is set).
func cmdReset(x *call, args [][]byte) error {
	c := x.c
	if c.monitor {
		x.s.removeMonitor(c)
	}
	x.s.unsubscribeAll(c)
	x.discard()
	x.DB = 0
	c.w.Proto = 2
	c.name = ""
	c.setAuthed(x.s.cfg.Password == "")
	x.W.Status("RESET")
	return nil
}

// CLIENT ID
func cmdClientID(x *call, args [][]byte) error {
	x.W.Int(x.c.id)
	return nil
}

// CLIENT GETNAME
func cmdClientGetName(x *call, args [][]byte) error {
	if x.c.name == "" {
		x.W.Null()
		return nil
	}
	x.W.BulkString(x.c.name)
	return nil
}

// CLIENT SETNAME name
func cmdClientSetName(x *call, args [][]byte) error {
	if err := x.c.setName(args[2]); err != nil {
		return err
	}
	x.W.OK()
	return nil
}

var errClientID = resp.NewError("Invalid client ID")

// CLIENT LIST [TYPE NORMAL|MASTER|REPLICA|PUBSUB] | [ID id ...]
func cmdClientList(x *call, args [][]byte) error {
	normal := true
	switch {
	case len(args) == 2:
	case len(args) > 3 && redisstr.Option(args[2], "id"):
		return clientListIDs(x, args[3:])
	case len(args) == 4 && redisstr.Option(args[2], "type"):
		switch {
		case redisstr.Option(args[3], "normal"):
		case redisstr.Option(args[3], "master"), redisstr.Option(args[3], "replica"),
			redisstr.Option(args[3], "slave"), redisstr.Option(args[3], "pubsub"):
			normal = false
		default:
			return resp.NewError("Unknown client type '" + redisstr.CString(args[3]) + "'")
		}
	default:
		return resp.ErrSyntax
	}
	var b strings.Builder
	if normal {
		for _, c := range x.s.clients.snapshot() {
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

// clientLine formats c as a CLIENT LIST line, with Redis's fields. Sizes
// minilock does not track the same way read 0.
func (s *Server) clientLine(c *client, x *call) string {
	now := time.Now()
	db, cmd := c.db, c.lastCmd
	if c == x.c {
		db = x.DB // a SELECT earlier in a transaction is not in c.db yet
	}
	if cmd == "" {
		cmd = "NULL"
	}
	flags := "N"
	switch {
	case c.monitor:
		flags = "O"
	case c.multi != nil:
		flags = "x"
	}
	multi := -1
	if c.multi != nil {
		multi = len(c.multi.cmds)
	}
	return fmt.Sprintf("id=%d addr=%s laddr=%s fd=%d name=%s age=%d idle=%d flags=%s db=%d sub=0 psub=0 ssub=0 multi=%d qbuf=0 qbuf-free=0 argv-mem=0 multi-mem=0 rbs=0 rbp=0 obl=0 oll=0 omem=0 tot-mem=0 events=r cmd=%s user=default redir=-1 resp=%d",
		c.id, c.addr, c.laddr, c.id, c.name, int(now.Sub(c.born).Seconds()), int(now.Sub(c.lastAt).Seconds()),
		flags, db, multi, cmd, c.w.Proto)
}

// CLIENT NO-EVICT ON|OFF: accepted; minilock evicts no client.
func cmdClientOnOff(x *call, args [][]byte) error {
	if !redisstr.Option(args[2], "on") && !redisstr.Option(args[2], "off") {
		return resp.ErrSyntax
	}
	x.W.OK()
	return nil
}

// CLIENT HELP
func cmdClientHelp(x *call, args [][]byte) error {
	lines := []string{
		"CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
		"GETNAME", "    Return the name of the current connection.",
		"ID", "    Return the ID of the current connection.",
		"INFO", "    Return information about the current client connection.",
		"LIST [options ...]", "    Return information about client connections.",
		"SETNAME <name>", "    Assign the name <name> to the current connection.",
		"NO-EVICT (ON|OFF)", "    Protect current client connection from eviction.",
		"HELP", "    Prints this help.",
	}
	x.W.Array(len(lines))
	for _, l := range lines {
		x.W.Status(l)
	}
	return nil
}

// itoa is strconv.Itoa for int64.
func itoa(n int64) string { return strconv.FormatInt(n, 10) }
