// Command ceiling is a Redis-protocol server that does no work: it answers
// each command with a fixed reply. Run side by side with minilock and
// redis-server (bench/run.sh ceiling), it shows what the network edge alone
// costs on this machine in each of three shapes:
//
//   - goroutine: a goroutine per connection reads, answers and writes, as
//     redcon serves;
//   - handoff: the same, but each batch is answered on one owner goroutine,
//     as minilock's keyspace does (one channel hand-off there and back);
//   - epoll: one goroutine runs an epoll loop over every connection, as
//     redis-server's event loop does (Linux only).
//
// The replies are what the side-by-side workloads need: +OK to SET, a
// 3-byte value to GET, :0 to EVALSHA, the SHA1 to SCRIPT LOAD, +PONG,
// and an unknown-command error to anything else (go-redis then falls back
// to RESP2). Requests are parsed with redcon.ReadNextCommand, as minilock
// parses them.
//
//	ceiling --mode goroutine|handoff|epoll --port 7001
package main

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"flag"
	"fmt"
	"net"
	"os"

	"github.com/tidwall/redcon"
)

func main() {
	mode := flag.String("mode", "goroutine", "goroutine, handoff or epoll")
	port := flag.Int("port", 7001, "TCP port on 127.0.0.1")
	flag.Parse()
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", *port))
	if err != nil {
		fmt.Fprintln(os.Stderr, "ceiling:", err)
		os.Exit(1)
	}
	switch *mode {
	case "goroutine":
		err = serveGoroutines(ln, nil)
	case "handoff":
		owner := make(chan *batch, 1024)
		go func() {
			for b := range owner {
				b.answer()
				b.done <- struct{}{}
			}
		}()
		err = serveGoroutines(ln, owner)
	case "epoll":
		err = serveEpoll(ln)
	default:
		err = fmt.Errorf("unknown mode %q", *mode)
	}
	fmt.Fprintln(os.Stderr, "ceiling:", err)
	os.Exit(1)
}

// batch is what one read brought in and what answers it; in handoff mode
// the owner answers it.
type batch struct {
	in   []byte // what was read: complete commands, then perhaps part of one
	out  []byte // the replies
	used int    // the bytes of in that complete commands took
	err  error  // a request that is not RESP
	args [][]byte
	done chan struct{}
}

// answer parses the complete commands at the start of b.in with redcon's
// parser, as minilock does, and appends a reply to each.
func (b *batch) answer() {
	b.out, b.used, b.err = b.out[:0], 0, nil
	for rest := b.in; len(rest) > 0; {
		ok, args, _, left, err := redcon.ReadNextCommand(rest, b.args[:0])
		if err != nil || !ok {
			b.err = err
			return
		}
		b.args = args
		b.out = reply(b.out, args)
		b.used += len(rest) - len(left)
		rest = left
	}
}

// serveGoroutines serves each connection on its own goroutine; with owner
// set, every read's commands are answered there instead.
func serveGoroutines(ln net.Listener, owner chan *batch) error {
	for {
		c, err := ln.Accept()
		if err != nil {
			return err
		}
		go func() {
			defer c.Close()
			buf := make([]byte, 0, 16<<10)
			b := &batch{done: make(chan struct{}, 1)}
			for {
				if len(buf) == cap(buf) {
					buf = append(buf, 0)[:len(buf)]
				}
				n, err := c.Read(buf[len(buf):cap(buf)])
				if err != nil {
					return
				}
				b.in = buf[:len(buf)+n]
				if owner != nil {
					owner <- b
					<-b.done
				} else {
					b.answer()
				}
				if b.err != nil {
					return
				}
				if _, err := c.Write(b.out); err != nil {
					return
				}
				buf = buf[:copy(buf, b.in[b.used:])]
			}
		}()
	}
}

// reply appends the fixed reply to args.
func reply(out []byte, args [][]byte) []byte {
	if len(args) == 0 {
		return out // *0: Redis ignores it
	}
	switch string(bytes.ToUpper(args[0])) {
	case "PING":
		return append(out, "+PONG\r\n"...)
	case "SET", "FLUSHALL":
		return append(out, "+OK\r\n"...)
	case "GET":
		return append(out, "$3\r\nxxx\r\n"...)
	case "EVALSHA":
		return append(out, ":0\r\n"...)
	case "SCRIPT":
		sum := sha1.Sum(args[len(args)-1])
		return append(out, "$40\r\n"+hex.EncodeToString(sum[:])+"\r\n"...)
	}
	return append(out, "-ERR unknown command\r\n"...)
}
