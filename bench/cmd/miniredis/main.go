// Command miniredis serves an in-memory miniredis (github.com/alicebob/miniredis)
// on a TCP port, as a reference point for the side-by-side benchmark. It is
// bench-only: nothing in minilock imports miniredis.
//
//	miniredis --port 6380 [--clockttl]
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/alicebob/miniredis/v2"
)

func main() {
	port := flag.Int("port", 6380, "TCP port on 127.0.0.1")
	clockTTL := flag.Bool("clockttl", false, "let TTLs run down with the wall clock (miniredis.ClockTTL); "+
		"off, keys only expire on FastForward, as in a typical test")
	flag.Parse()

	m := miniredis.NewMiniRedis()
	if *clockTTL {
		m.ClockTTL(true)
	}
	if err := m.StartAddr(fmt.Sprintf("127.0.0.1:%d", *port)); err != nil {
		fmt.Fprintln(os.Stderr, "miniredis:", err)
		os.Exit(1)
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	<-sig
	m.Close()
}
