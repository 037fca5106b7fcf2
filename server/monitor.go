package server

import (
	"strconv"
	"time"

	"github.com/minilock/minilock/resp"
)

// MONITOR streams every command the server runs, in the order the owner
// goroutine runs them, as Redis 7.0 prints them (replication.c:
// replicationFeedMonitors):
//
//	+1700000000.123456 [0 127.0.0.1:50000] "SET" "lock" "tok" "NX" "PX" "30000"
//	+1700000000.123501 [0 lua] "get" "lock"
//
// The second line is a command a script ran: a script's commands appear as
// one uninterrupted block, which is what makes its atomicity visible.

var errMonitorDenied = resp.NewError("MONITOR isn't allowed for DENY BLOCKING client")

// MONITOR
func cmdMonitor(x *call, args [][]byte) error {
	c := x.c
	if x.inExec {
		return errMonitorDenied
	}
	if c.monitor {
		return errNoReply // Redis ignores a repeated MONITOR without a reply
	}
	c.monitor = true
	c.StartFeed(monitorLimit, 0, 0)
	x.s.monitors = append(x.s.monitors, c)
	x.W.OK()
	return nil
}

// removeMonitor stops c's feed. Owner goroutine only.
func (s *Server) removeMonitor(c *client) {
	for i, m := range s.monitors {
		if m == c {
			s.monitors = append(s.monitors[:i], s.monitors[i+1:]...)
			break
		}
	}
	c.monitor = false
}

// feedMonitors sends the command x ran to every monitor. Owner goroutine
// only; free when nobody monitors.
func (s *Server) feedMonitors(x *call, args [][]byte) {
	if len(s.monitors) == 0 {
		return
	}
	now := time.Now()
	line := make([]byte, 0, 64)
	line = strconv.AppendInt(line, now.Unix(), 10)
	line = append(line, '.')
	usec := strconv.AppendInt(nil, int64(now.Nanosecond()/1000), 10)
	for range 6 - len(usec) {
		line = append(line, '0')
	}
	line = append(line, usec...)
	line = append(line, " ["...)
	line = strconv.AppendInt(line, int64(x.DB), 10)
	line = append(line, ' ')
	if x.script != nil {
		line = append(line, "lua"...)
	} else {
		line = append(line, x.c.Addr...)
	}
	line = append(line, "] "...)
	redact := redacted(args)
	for i, a := range args {
		if i > 0 {
			line = append(line, ' ')
		}
		if redact(i) {
			a = []byte("(redacted)")
		}
		line = appendRepr(line, a)
	}
	// A status reply (appendRepr left no CR or LF in the line to blank).
	var w resp.Writer
	w.Status(string(line))
	for _, m := range s.monitors {
		m.deliver(w.B, false)
	}
}

// redacted says which arguments MONITOR hides: passwords given to AUTH and
// to HELLO's AUTH option (acl.c and networking.c redact them).
func redacted(args [][]byte) func(int) bool {
	name := string(args[0])
	switch {
	case equalFold(name, "auth"):
		return func(i int) bool { return i > 0 }
	case equalFold(name, "hello"):
		hidden := map[int]bool{}
		for j := 2; j+2 < len(args); j++ {
			if equalFold(string(args[j]), "auth") {
				hidden[j+1], hidden[j+2] = true, true
				j += 2
			} else if equalFold(string(args[j]), "setname") {
				j++
			}
		}
		return func(i int) bool { return hidden[i] }
	}
	return func(int) bool { return false }
}

func equalFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// appendRepr quotes a as Redis's sdscatrepr: backslash escapes for quote,
// backslash and control characters, \xHH for other unprintable bytes.
func appendRepr(b, a []byte) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for _, ch := range a {
		switch ch {
		case '\\', '"':
			b = append(b, '\\', ch)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		case '\a':
			b = append(b, '\\', 'a')
		case '\b':
			b = append(b, '\\', 'b')
		default:
			if ch >= 0x20 && ch <= 0x7e {
				b = append(b, ch)
			} else {
				b = append(b, '\\', 'x', hex[ch>>4], hex[ch&0xf])
			}
		}
	}
	return append(b, '"')
}
