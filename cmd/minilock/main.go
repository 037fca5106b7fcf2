// Command minilock is a Redis-protocol lock server: a drop-in stand-in for
// redis-server for the commands distributed-lock recipes use.
//
//	minilock [/path/to/redis.conf] [--port 6379] [--bind 127.0.0.1 ::1]
//	         [--requirepass pw] [--databases 16] [--maxclients 10000]
//	         [--timeout 0] [--busy-reply-threshold 5000] [--loglevel notice]
//	minilock lab [--svg DIR] [list | all | <scenario> ...]
package main

import (
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/minilock/minilock/server"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	if len(args) > 0 {
		switch args[0] {
		case "-v", "--version":
			fmt.Printf("minilock (Redis %s compatible)\n", server.Version)
			return 0
		case "-h", "--help":
			fmt.Fprint(os.Stderr, usage)
			return 0
		case "lab":
			return runLab(args[1:], os.Stdout, os.Stderr)
		}
	}
	opts := defaults()
	file, text := argsToConfig(args)
	if file != "" {
		f, err := os.Open(file)
		if err != nil {
			fmt.Fprintf(os.Stderr, "minilock: %v\n", err)
			return 1
		}
		err = opts.parseConfig(f)
		f.Close()
		if err != nil {
			fmt.Fprintf(os.Stderr, "minilock: %s: %v\n", file, err)
			return 1
		}
	}
	if err := opts.parseConfig(strings.NewReader(text)); err != nil {
		fmt.Fprintf(os.Stderr, "minilock: arguments: %v\n", err)
		return 1
	}

	level := new(slog.LevelVar) // CONFIG SET loglevel changes it
	level.Set(opts.logLevel)
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	if os.Getenv("GOGC") == "" {
		// A lock server's heap is mostly its keys; Go's default leaves as
		// much again free before collecting. Half that keeps RSS with a
		// million lock keys at or below redis-server's (see
		// docs/performance.md) for a few percent more CPU spent collecting.
		debug.SetGCPercent(50)
		// While the data are small, a heap floor keeps collections
		// from coming every megabyte; an idle server gives its garbage
		// back (gc.go).
		stop := make(chan struct{})
		defer close(stop)
		keepHeapFloor(50, stop)
		go releaseWhenIdle(stop)
	}
	cfg := opts.server
	if file != "" {
		if abs, err := filepath.Abs(file); err == nil {
			file = abs // CONFIG REWRITE writes it whatever the working directory
		}
		cfg.ConfigFile = file
	}
	cfg.Addrs = opts.addrs()
	cfg.Logger = log
	cfg.LogLevel = level
	requested := make(chan struct{}, 1)
	cfg.OnShutdown = func() { requested <- struct{}{} }
	// As redis-server (server.c:setupSignalHandlers, initServer): SIGHUP
	// (a closed terminal, a supervisor's reload) and SIGPIPE (stderr's
	// reader gone, a log line written to it) do not end the process; SIGINT
	// and SIGTERM shut it down gracefully. Set before the server starts: a
	// signal sent as soon as it is ready must find them in place.
	signal.Ignore(syscall.SIGHUP, syscall.SIGPIPE)
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	server.EdgeFromEnv(&cfg)
	s, err := server.Start(cfg)
	if err != nil {
		log.Error("cannot start", "err", err)
		return 1
	}
	log.Info("minilock ready to accept connections", "redis_version", server.Version, "addrs", strings.Join(s.Addrs(), " "), "pid", os.Getpid())

	select {
	case got := <-sig:
		log.Info("received signal, shutting down", "signal", got.String())
		// As redis-server on SIGTERM: the final save when save points are
		// set; if it fails the server goes on (a second signal ends it).
		go func() {
			if err := s.Shutdown(); err != nil {
				log.Error("Errors trying to shut down the server. Check the logs for more information.", "err", err)
			}
		}()
	case <-requested: // SHUTDOWN: the server is closing itself
	}
	// Close stops accepting, lets the replies in flight go out (for at most
	// 5 s), then closes every connection. A second signal, or a close that
	// overruns shutdownTimeout (a script that will not stop), ends the
	// process at once.
	select {
	case <-s.Done():
	case again := <-sig:
		log.Warn("received a second signal, exiting now", "signal", again.String())
		return 1
	case <-time.After(shutdownTimeout):
		log.Error("shutdown did not finish in time, exiting now", "timeout", shutdownTimeout.String())
		return 1
	}
	log.Info("minilock is now ready to exit, bye bye...")
	return 0
}

// shutdownTimeout bounds a graceful shutdown: the server gives replies in
// flight 5 s, and the rest takes milliseconds.
const shutdownTimeout = 15 * time.Second

const usage = `Usage: minilock [/path/to/redis.conf] [options]
       minilock -v or --version
       minilock -h or --help

Options are redis.conf directives written as --name value:
  --port 6379                  TCP port (0: any free port)
  --bind 127.0.0.1 -::1        addresses to listen on ('-': optional)
  --requirepass <password>     require AUTH
  --databases 16               number of databases
  --maxclients 10000           concurrent connections
  --timeout 0                  close idle clients after N seconds (0: never)
  --busy-reply-threshold 5000  ms a script runs before others get -BUSY
  --protected-mode yes         refuse non-loopback clients when no password is set
  --restart-delay 0            ms after start during which writes are refused
  --event-loop epoll           epoll (the default on Linux): the owner goroutine
                               serves the sockets; goroutine: one per connection
                               (env MINILOCK_EDGE=epoll|goroutine wins)
  --loglevel notice            debug, verbose, notice, warning, nothing
  --doctor yes                 the lock doctor: log each unsafe lock recipe the
                               clients use (docs/doctor.md); DOCTOR REPORT lists them

Examples:
  minilock
  minilock --port 7777 --requirepass secret
`
