// Package doctor is minilock's lock doctor: it reads the commands a server
// runs, one Record at a time, in the order the server ran them, and flags
// the lock recipes that are unsafe, each with its evidence (the commands,
// the clients that sent them and the server's clock), as docs/doctor.md
// describes hazard by hazard.
//
// It knows nothing of the server: the server hands it plain records and a
// Probe to read a key, on the goroutine that runs the commands, and asks
// for the findings. Everything it keeps is bounded (Config).
package doctor

import (
	"bytes"
	"strconv"
	"strings"
	"time"
)

// Record is one command the server ran, as the doctor needs it. The slices
// and strings need only be valid during the Doctor.See call: what the
// doctor keeps, it copies.
type Record struct {
	// At is the server's clock when the command ran, in Unix milliseconds
	// (a script's or a transaction's commands share their start).
	At int64
	// Mono is real time, monotonic, when the command ran: spinning is
	// judged by it, so that a test on a standing manual clock is not taken
	// for a client that never waits.
	Mono time.Duration
	// Client is the connection's id (CLIENT ID), Name its CLIENT SETNAME
	// name and Addr its address.
	Client int64
	Name   string
	Addr   string
	DB     int
	// Args is the command as sent, its name first.
	Args [][]byte
	// Keys are the positions in Args of the command's keys (by its key
	// specs).
	Keys []int
	// Reply is the reply the command wrote, as RESP (the first value is
	// read).
	Reply []byte
	// Inner is set for a command a script ran (redis.call) or EXEC ran:
	// it belongs to the next record that is not Inner, its container.
	Inner bool
	// Write is set for a command flagged write.
	Write bool
}

// MaxValue is how much of a value the doctor reads and keeps: lock tokens
// are short, and a huge value a client sends must not be copied again and
// again. Values longer than this are compared by their first MaxValue
// bytes; a Probe need return no more.
const MaxValue = 1024

// value clips v to MaxValue.
func value(v string) string { return v[:min(len(v), MaxValue)] }

// name is the command's lower-case name.
func (r *Record) name() string {
	if len(r.Args) == 0 {
		return ""
	}
	return strings.ToLower(string(r.Args[0]))
}

// arg is argument i, clipped to MaxValue.
func (r *Record) arg(i int) string {
	if i < len(r.Args) {
		return string(r.Args[i][:min(len(r.Args[i]), MaxValue)])
	}
	return ""
}

// hasKey reports whether key is one of r's keys.
func (r *Record) hasKey(key string) bool {
	for _, p := range r.Keys {
		if p < len(r.Args) && string(r.Args[p]) == key {
			return true
		}
	}
	return false
}

// option reports whether one of r's arguments from i on is opt (any case).
func (r *Record) option(i int, opt string) bool {
	for ; i < len(r.Args); i++ {
		if bytes.EqualFold(r.Args[i], []byte(opt)) {
			return true
		}
	}
	return false
}

// carries reports whether one of r's arguments is v (a token handed to a
// script, say).
func (r *Record) carries(v string) bool {
	for _, a := range r.Args[1:] {
		if string(a[:min(len(a), MaxValue)]) == v {
			return true
		}
	}
	return false
}

// reply is the first value of a RESP reply, as far as the doctor reads it.
type reply struct {
	kind byte   // '+', '-', ':', '$', '*', or '_' for any null
	str  string // status, error, bulk
	n    int64  // integer, or an array's length
}

func parseReply(b []byte) reply {
	if len(b) < 3 {
		return reply{kind: '-'}
	}
	end := strings.Index(string(b), "\r\n")
	if end < 0 {
		return reply{kind: '-'}
	}
	line := string(b[1:end])
	switch b[0] {
	case '+', '-':
		return reply{kind: b[0], str: line}
	case ':':
		n, _ := strconv.ParseInt(line, 10, 64)
		return reply{kind: ':', n: n}
	case '$', '*', '%', '~', '>':
		n, _ := strconv.ParseInt(line, 10, 64)
		if n < 0 {
			return reply{kind: '_'}
		}
		if b[0] != '$' {
			return reply{kind: '*', n: n}
		}
		// A reply the doctor kept was clipped (copyRecord): read what is
		// there, up to MaxValue.
		rest := b[end+2:]
		return reply{kind: '$', str: string(rest[:min(n, int64(len(rest)), MaxValue)])}
	case '_':
		return reply{kind: '_'}
	case '#':
		if line == "t" {
			return reply{kind: ':', n: 1}
		}
		return reply{kind: ':', n: 0}
	}
	return reply{kind: '-'}
}

// text writes the reply as redis-cli would: OK, "bulk", (integer) 1, (nil),
// (error) ..., (array of n).
func (p reply) text() string {
	switch p.kind {
	case '+':
		return p.str
	case '-':
		return "(error) " + p.str
	case ':':
		return "(integer) " + strconv.FormatInt(p.n, 10)
	case '$':
		return strconv.Quote(clip(p.str, 40))
	case '*':
		return "(" + strconv.FormatInt(p.n, 10) + " replies)"
	}
	return "(nil)"
}

// formatArgs writes a command as redis-cli would echo it, each argument
// clipped so a huge one cannot swell the report.
func formatArgs(args [][]byte) string {
	var b strings.Builder
	for i, a := range args {
		if i == 8 {
			b.WriteString(" …")
			break
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		s := string(a[:min(len(a), 64)])
		if len(a) > 64 {
			s = s[:63] + "…"
		}
		if i == 0 {
			s = strings.ToUpper(s)
		}
		if s == "" || strings.ContainsAny(s, " \"'\\\t\r\n") {
			s = strconv.Quote(s)
		}
		b.WriteString(s)
	}
	return b.String()
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}

// who names the connection as the report shows it: its CLIENT SETNAME
// name, or "id=<n>".
func who(r *Record) string {
	if r.Name != "" {
		return r.Name
	}
	return "id=" + strconv.FormatInt(r.Client, 10)
}
