package server

import (
	"crypto/subtle"
	"strconv"

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
	pw := s.password()
	if pw == "" {
		return true
	}
	return subtle.ConstantTimeCompare(pass, []byte(pw)) == 1
}

// AUTH [username] password
func cmdAuth(x *call, args [][]byte) error {
	if len(args) > 3 {
		return resp.ErrSyntax
	}
	user, pass := []byte("default"), args[1]
	if len(args) == 2 {
		if x.s.password() == "" {
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
		x.c.W.Proto = int(proto)
	}
	w := x.W
	w.Map(7)
	w.BulkString("server")
	w.BulkString("redis")
	w.BulkString("version")
	w.BulkString(Version)
	w.BulkString("proto")
	w.Int(int64(x.c.W.Proto))
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
	x.c.CloseNow = true
	x.W.OK()
	return nil
}

// RESET: back to a fresh connection's state (database 0, RESP2, no name,
// no transaction or watches, not monitoring, replies on, and
// unauthenticated again if a password is set).
func cmdReset(x *call, args [][]byte) error {
	c := x.c
	if c.monitor {
		x.s.removeMonitor(c)
	}
	x.s.unsubscribeAll(c)
	if c.track.on() {
		x.s.disableTracking(c)
	}
	x.discard()
	x.DB = 0
	c.W.Proto = 2
	c.name = ""
	c.setAuthed(x.s.password() == "")
	// clearClientConnectionState clears CLIENT REPLY OFF and a pending
	// SKIP, so RESET's own reply is sent, unless a SKIP drops it.
	c.replyOff, c.replySkipNext = false, false
	if !c.replySkip {
		c.quietStop()
	}
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

// itoa is strconv.Itoa for int64.
func itoa(n int64) string { return strconv.FormatInt(n, 10) }
