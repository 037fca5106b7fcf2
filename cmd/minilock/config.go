package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/minilock/minilock/keyspace"
	"github.com/minilock/minilock/server"
)

// options are the settings the binary takes, as redis-server takes them: a
// redis.conf-style file and/or --name value arguments.
type options struct {
	port     int
	binds    []string
	logLevel slog.Level
	server   server.Config
}

func defaults() options {
	return options{
		port:     6379,
		binds:    []string{"127.0.0.1", "-::1"},
		logLevel: slog.LevelInfo,
		// The binary serves from the epoll edge where there is one: one
		// request at a time it is 1.1-1.3x the goroutine edge
		// (docs/performance.md). Elsewhere the server ignores it.
		// dir is Redis's "./": dump.rdb in the working directory is
		// loaded at start and written by SAVE. The save points are
		// redis-server's when no config file sets them (an embedded server
		// has none and writes no file).
		server: server.Config{
			EventLoop: runtime.GOOS == "linux",
			Dir:       ".",
			Params:    [][2]string{{"save", "3600 1 300 100 60 10000"}},
		},
	}
}

// argsToConfig turns command-line arguments into config-file text the way
// redis-server does: an optional config file name first, then every
// "--name" starts a directive and the words after it are its arguments
// ("--bind 127.0.0.1 ::1" is "bind 127.0.0.1 ::1").
func argsToConfig(args []string) (file string, text string) {
	if len(args) > 0 && !strings.HasPrefix(args[0], "--") {
		file, args = args[0], args[1:]
	}
	var b strings.Builder
	for _, a := range args {
		if strings.HasPrefix(a, "--") {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(a[2:])
			continue
		}
		b.WriteByte(' ')
		b.WriteString(strconv.Quote(a))
	}
	return file, b.String()
}

// parseConfig applies config-file text to o. Unknown directives are an
// error, as in Redis; directives about persistence and the like, which
// minilock has no use for, are accepted and ignored so an existing
// redis.conf loads.
func (o *options) parseConfig(r io.Reader) error {
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		words, err := splitConfigLine(sc.Text())
		if err != nil {
			return fmt.Errorf("line %d: %w", line, err)
		}
		if len(words) == 0 || strings.HasPrefix(words[0], "#") {
			continue
		}
		if err := o.apply(strings.ToLower(words[0]), words[1:]); err != nil {
			return fmt.Errorf("line %d: %q: %w", line, sc.Text(), err)
		}
	}
	return sc.Err()
}

var errArgs = errors.New("Bad directive or wrong number of arguments")

// ignored lists directives of redis.conf that minilock accepts and
// ignores: it does not daemonize and logs to stderr.
var ignored = map[string]bool{
	"daemonize": true, "supervised": true,
	"pidfile": true, "logfile": true,
}

func (o *options) apply(name string, args []string) error {
	one := func() (string, error) {
		if len(args) != 1 {
			return "", errArgs
		}
		return args[0], nil
	}
	num := func() (int, error) {
		v, err := one()
		if err != nil {
			return 0, err
		}
		return strconv.Atoi(v)
	}
	var err error
	switch name {
	case "port":
		o.port, err = num()
		if err == nil && (o.port < 0 || o.port > 65535) {
			err = errors.New("Invalid port")
		}
	case "bind":
		if len(args) == 0 {
			return errArgs
		}
		o.binds = args
	case "requirepass":
		o.server.Password, err = one()
	case "user":
		// ACL users, checked when the server starts (ACL SETUSER's rules).
		if len(args) == 0 {
			return errArgs
		}
		o.server.Users = append(o.server.Users, args)
	case "databases":
		o.server.Databases, err = num()
		if err == nil && o.server.Databases < 1 {
			err = errors.New("Invalid number of databases")
		}
	case "maxclients":
		o.server.MaxClients, err = num()
		if err == nil && o.server.MaxClients < 1 {
			err = errors.New("Invalid max clients limit")
		}
	case "timeout":
		var s int
		s, err = num()
		o.server.IdleTimeout = time.Duration(s) * time.Second
	case "busy-reply-threshold", "lua-time-limit":
		var ms int
		ms, err = num()
		o.server.BusyThreshold = time.Duration(ms) * time.Millisecond
	case "protected-mode":
		var v string
		if v, err = one(); err == nil {
			switch strings.ToLower(v) {
			case "yes":
				o.server.DisableProtectedMode = false
			case "no":
				o.server.DisableProtectedMode = true
			default:
				err = errors.New("argument must be 'yes' or 'no'")
			}
		}
	case "event-loop": // minilock's own: which network edge serves the sockets
		var v string
		if v, err = one(); err == nil {
			switch strings.ToLower(v) {
			case "epoll":
				o.server.EventLoop = true
			case "goroutine":
				o.server.EventLoop = false
			default:
				err = errors.New("argument must be 'epoll' or 'goroutine'")
			}
		}
	case "doctor": // minilock's own: the lock doctor (docs/doctor.md)
		v := "yes" // "--doctor" alone turns it on
		if len(args) > 0 {
			v, err = one()
		}
		switch strings.ToLower(v) {
		case "yes":
			o.server.Doctor = &server.DoctorConfig{}
		case "no":
			o.server.Doctor = nil
		default:
			if err == nil {
				err = errors.New("argument must be 'yes' or 'no'")
			}
		}
	case "dir":
		o.server.Dir, err = one()
	case "restart-delay":
		var ms int
		ms, err = num()
		o.server.RestartDelay = time.Duration(ms) * time.Millisecond
	case "notify-keyspace-events":
		if o.server.NotifyKeyspaceEvents, err = one(); err == nil {
			_, err = keyspace.ParseNotifyFlags(o.server.NotifyKeyspaceEvents)
		}
	case "loglevel":
		var v string
		if v, err = one(); err == nil {
			o.logLevel, err = parseLogLevel(v)
		}
	default:
		if ignored[name] {
			return nil
		}
		// Any other parameter CONFIG GET knows is set as CONFIG SET
		// sets it, when the server starts.
		v := strings.Join(args, " ")
		if err := server.CheckParam(name, v); err != nil {
			return err
		}
		o.server.Params = append(o.server.Params, [2]string{name, v})
	}
	return err
}

func parseLogLevel(v string) (slog.Level, error) {
	switch strings.ToLower(v) {
	case "debug":
		return slog.LevelDebug, nil
	case "verbose", "notice":
		return slog.LevelInfo, nil
	case "warning":
		return slog.LevelWarn, nil
	case "nothing":
		return slog.LevelError + 1, nil
	}
	return 0, fmt.Errorf("Invalid loglevel %q", v)
}

// addrs returns the listen addresses: each bind address with the port; a
// leading '-' (optional address) is kept for server.Config.
func (o *options) addrs() []string {
	out := make([]string, len(o.binds))
	for i, b := range o.binds {
		opt := strings.HasPrefix(b, "-")
		a := net.JoinHostPort(strings.TrimPrefix(b, "-"), strconv.Itoa(o.port))
		if opt {
			a = "-" + a
		}
		out[i] = a
	}
	return out
}

// splitConfigLine splits a config line into words, honouring double and
// single quotes (a subset of Redis's sdssplitargs that covers config files).
func splitConfigLine(line string) ([]string, error) {
	var words []string
	line = strings.TrimSpace(line)
	for len(line) > 0 {
		switch line[0] {
		case '"':
			end := 1
			for end < len(line) && (line[end] != '"' || line[end-1] == '\\') {
				end++
			}
			if end == len(line) {
				return nil, errors.New("unbalanced quotes in configuration line")
			}
			w, err := strconv.Unquote(line[:end+1])
			if err != nil {
				return nil, err
			}
			words = append(words, w)
			line = line[end+1:]
		case '\'':
			end := strings.IndexByte(line[1:], '\'')
			if end < 0 {
				return nil, errors.New("unbalanced quotes in configuration line")
			}
			words = append(words, line[1:end+1])
			line = line[end+2:]
		default:
			end := strings.IndexAny(line, " \t")
			if end < 0 {
				end = len(line)
			}
			words = append(words, line[:end])
			line = line[end:]
		}
		line = strings.TrimLeft(line, " \t")
	}
	return words, nil
}
