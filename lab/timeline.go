package lab

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// Kind says what an Event is.
type Kind int

const (
	// Command is a client's command to minilock and the reply it got.
	Command Kind = iota
	// Write is a client's write to the protected storage and its answer.
	Write
	// Note is something that happens without a message: time passing, a
	// pause, a crash, a lease running out, the lock key expiring.
	Note
	// Push is what the server sends a client unasked, at the instant it
	// sends it: a pub/sub message, or the late reply to a blocking command
	// (Text names the command, Reply is what it answered).
	Push
)

// Actors that are not clients.
const (
	Server  = "minilock"
	Storage = "storage"
	Nobody  = "" // time passing
)

// Event is one row of a timeline.
type Event struct {
	At    time.Duration // simulated time since the scenario started
	Actor string        // a client's name, Server, Storage or Nobody
	Kind  Kind
	Text  string // the command as sent, the write, or the note
	Reply string // the reply as received (Command, Write)
	// Accepted is set on a Write the storage accepted.
	Accepted bool

	// The state right after the event, for the verdict and the picture.

	// Holders are the clients that believe they hold the lock, sorted.
	Holders []string
	// Waiters are the clients waiting for the lock, sorted: parked in a
	// blocking command, or listening for a release message.
	Waiters []string
	// Lock is the lock key on the server.
	Lock LockState
}

// LockState is the lock key on the server, read directly (not through a
// client, so reading it changes nothing).
type LockState struct {
	Held    bool
	Value   string
	Owner   string // the client whose command gave the key its value
	Expires bool   // the key has a TTL
}

// Seconds formats a simulated time as the timeline shows it: t=+10.001s.
func Seconds(d time.Duration) string {
	return fmt.Sprintf("t=+%.3fs", d.Seconds())
}

// printTimeline writes the events as aligned columns: time, actor, command,
// reply; the row where v happened is marked.
func printTimeline(w io.Writer, events []Event, v Verdict) {
	actorW, textW := len("client"), len("command")
	for _, e := range events {
		actorW = max(actorW, len(e.Actor))
		switch {
		case e.Kind == Push && len(e.Text)+3 <= 56:
			textW = max(textW, len(e.Text)+3)
		case e.Kind != Note && len(e.Text) <= 56:
			textW = max(textW, len(e.Text))
		}
	}
	timeW := len(Seconds(events[len(events)-1].At))
	fmt.Fprintf(w, "  %-*s  %-*s  %-*s  %s\n", timeW, "time", actorW, "client", textW, "command", "reply")
	for i, e := range events {
		actor, text := e.Actor, e.Text
		if actor == Nobody {
			actor = "·"
		}
		line := fmt.Sprintf("  %-*s  %-*s  ", timeW, Seconds(e.At), actorW, actor)
		switch e.Kind {
		case Note:
			line += "(" + text + ")"
		case Push:
			line += fmt.Sprintf("%-*s  %s", textW, "<- "+text, e.Reply)
		default:
			line += fmt.Sprintf("%-*s  %s", textW, text, e.Reply)
		}
		if i == v.Index {
			line += "   <-- " + v.Short()
		}
		fmt.Fprintln(w, strings.TrimRight(line, " "))
	}
}

// formatArgs writes a command as redis-cli would echo it: arguments
// separated by spaces, quoted when they need to be.
func formatArgs(args []any) string {
	parts := make([]string, len(args))
	for i, a := range args {
		s := fmt.Sprint(a)
		if s == "" || strings.ContainsAny(s, " \"'\\\t\r\n") {
			s = strconv.Quote(s)
		}
		parts[i] = s
	}
	return strings.Join(parts, " ")
}

// formatReply writes a reply as redis-cli would: OK, "bulk", (integer) 1,
// (nil), (error) ERR ...
func formatReply(val any, err error) string {
	var rerr redis.Error
	switch {
	case errors.Is(err, redis.Nil):
		return "(nil)"
	case errors.As(err, &rerr):
		return "(error) " + rerr.Error()
	case err != nil:
		return "(error) " + err.Error()
	}
	switch v := val.(type) {
	case nil:
		return "(nil)"
	case string:
		if v == "OK" || v == "QUEUED" {
			return v // status replies; no lock value here is spelled so
		}
		return strconv.Quote(v)
	case int64:
		return "(integer) " + strconv.FormatInt(v, 10)
	case []any:
		if len(v) == 0 {
			return "(empty array)"
		}
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = fmt.Sprintf("%d) %s", i+1, formatNested(x))
		}
		return strings.Join(parts, " ")
	case map[any]any:
		// A RESP3 map (XREAD's, XREADGROUP's), in key order.
		var parts []string
		for k, x := range v {
			parts = append(parts, formatReply(k, nil)+" => "+formatNested(x))
		}
		slices.Sort(parts)
		return "{" + strings.Join(parts, ", ") + "}"
	case error:
		return "(error) " + v.Error()
	}
	return fmt.Sprint(val)
}

// formatNested is formatReply for an element of an aggregate: a
// non-empty array inside brackets, so that where it ends shows.
func formatNested(x any) string {
	if a, ok := x.([]any); ok && len(a) > 0 {
		return "[" + formatReply(a, nil) + "]"
	}
	return formatReply(x, nil)
}

// recorder is a go-redis hook that puts each command a client sends, and
// the reply it gets, on the lab's timeline.
type recorder struct{ c *Client }

func (h recorder) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h recorder) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if !handshake(cmd) && ctx.Value(offTimeline{}) == nil {
			h.c.lab.command(h.c, formatArgs(cmd.Args()), replyOf(cmd, err), transportErr(err))
		}
		return err
	}
}

// ProcessPipelineHook records a MULTI ... EXEC block row by row, as the
// server answered it: OK, QUEUED for each command, then EXEC's array.
func (h recorder) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		err := next(ctx, cmds)
		if len(cmds) == 0 || handshake(cmds[0]) {
			return err
		}
		tx := len(cmds) >= 2 && cmds[0].Name() == "multi" && cmds[len(cmds)-1].Name() == "exec"
		if !tx {
			for _, cmd := range cmds {
				h.c.lab.command(h.c, formatArgs(cmd.Args()), replyOf(cmd, cmd.Err()), transportErr(cmd.Err()))
			}
			return err
		}
		queued := cmds[1 : len(cmds)-1]
		// go-redis reads the QUEUED replies into MULTI's command, so its
		// value says nothing; past this point MULTI answered OK.
		h.c.lab.queued(h.c, "MULTI", "OK")
		for _, cmd := range queued {
			h.c.lab.queued(h.c, formatArgs(cmd.Args()), "QUEUED")
		}
		// go-redis hands EXEC's array out to the queued commands.
		exec := make([]string, len(queued))
		for i, cmd := range queued {
			if errors.Is(cmd.Err(), redis.TxFailedErr) {
				exec = nil // a WATCHed key changed: EXEC answered nil
				break
			}
			exec[i] = fmt.Sprintf("%d) %s", i+1, replyOf(cmd, cmd.Err()))
		}
		reply := "(nil)"
		if exec != nil {
			reply = strings.Join(exec, " ")
		}
		h.c.lab.command(h.c, "EXEC", reply, transportErr(err))
		return err
	}
}

// handshake reports whether go-redis sent cmd on its own while connecting.
func handshake(cmd redis.Cmder) bool {
	switch cmd.Name() {
	case "hello", "client", "auth", "select":
		return true
	}
	return false
}

// replyOf formats cmd's reply. err is the error the command returned: the
// hook runs before go-redis stores it in cmd.
func replyOf(cmd redis.Cmder, err error) string {
	if err == nil {
		err = cmd.Err()
	}
	switch c := cmd.(type) {
	case *redis.Cmd:
		return formatReply(c.Val(), err)
	case *redis.StatusCmd:
		return formatReply(c.Val(), err) // WATCH, UNWATCH from go-redis's Watch
	}
	return formatReply(nil, err)
}

// transportErr keeps the errors that mean the connection failed, as opposed
// to an error reply from the server or an aborted transaction.
func transportErr(err error) error {
	var rerr redis.Error
	if err == nil || errors.Is(err, redis.Nil) || errors.Is(err, redis.TxFailedErr) || errors.As(err, &rerr) {
		return nil
	}
	return err
}
