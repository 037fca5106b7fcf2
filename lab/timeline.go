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

	"github.com/minilock/minilock/internal/timeline"
)

// The timeline's rows and their parts are the timeline package's: the
// doctor draws the same picture.
type (
	Kind      = timeline.Kind
	Event     = timeline.Event
	LockState = timeline.LockState
)

// What an Event is (timeline.Kind).
const (
	Command = timeline.Command
	Write   = timeline.Write
	Note    = timeline.Note
	Push    = timeline.Push
)

// Actors that are not clients.
const (
	Server  = timeline.Server
	Storage = timeline.Storage
	Nobody  = timeline.Nobody
)

// Seconds formats a simulated time as the timeline shows it: t=+10.001s.
func Seconds(d time.Duration) string { return timeline.Seconds(d) }

// printTimeline writes the events as aligned columns: time, actor, command,
// reply; the row where v happened is marked.
func printTimeline(w io.Writer, events []Event, v Verdict) {
	timeline.Text(w, events, v.Index, v.Short())
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
