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
// to RESP2). Only multibulk requests are understood.
//
//	ceiling --mode goroutine|handoff|epoll --port 7001
package main

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"strconv"
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
				b.out = answerAll(b.out, b.in, &b.args)
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

// batch is what one read brought in, answered on the owner in handoff mode.
type batch struct {
	in   []byte // complete commands
	out  []byte
	args [][]byte
	done chan struct{}
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
				buf = buf[:len(buf)+n]
				complete, err := completeCommands(buf)
				if err != nil {
					return
				}
				b.in, b.out = buf[:complete], b.out[:0]
				if owner != nil {
					owner <- b
					<-b.done
				} else {
					b.out = answerAll(b.out, b.in, &b.args)
				}
				if _, err := c.Write(b.out); err != nil {
					return
				}
				buf = buf[:copy(buf, buf[complete:])]
			}
		}()
	}
}

var errProtocol = errors.New("protocol error")

// completeCommands returns how many bytes of buf hold complete commands.
func completeCommands(buf []byte) (int, error) {
	done := 0
	for {
		n, _, err := next(buf[done:], nil)
		if n == 0 || err != nil {
			return done, err
		}
		done += n
	}
}

// next parses one multibulk command from buf into args: the bytes it took,
// 0 when the command is not complete yet.
func next(buf []byte, args [][]byte) (int, [][]byte, error) {
	args = args[:0]
	line := func(i int, kind byte) (int64, int, bool, error) {
		if i >= len(buf) {
			return 0, 0, false, nil
		}
		if buf[i] != kind {
			return 0, 0, false, errProtocol
		}
		end := bytes.Index(buf[i:], []byte("\r\n"))
		if end < 0 {
			return 0, 0, false, nil
		}
		v, err := strconv.ParseInt(string(buf[i+1:i+end]), 10, 64)
		if err != nil || v < 0 || v > 1<<20 {
			return 0, 0, false, errProtocol
		}
		return v, i + end + 2, true, nil
	}
	count, i, ok, err := line(0, '*')
	if !ok {
		return 0, args, err
	}
	for range count {
		var size int64
		if size, i, ok, err = line(i, '$'); !ok {
			return 0, args, err
		}
		if int64(len(buf)-i) < size+2 {
			return 0, args, nil
		}
		args = append(args, buf[i:i+int(size)])
		i += int(size) + 2
	}
	return i, args, nil
}

// answerAll appends the reply to each complete command in in.
func answerAll(out, in []byte, args *[][]byte) []byte {
	for len(in) > 0 {
		n, a, _ := next(in, *args)
		*args = a
		out = answer(out, a)
		in = in[n:]
	}
	return out
}

func answer(out []byte, args [][]byte) []byte {
	if len(args) == 0 {
		return append(out, "-ERR empty command\r\n"...)
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
