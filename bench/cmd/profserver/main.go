// Command profserver is minilock's server embedded in a process that also
// serves net/http/pprof and a few runtime counters, so `sidebyside profile`
// can profile the real network path without a flag in cmd/minilock.
//
//	profserver --port 6379 --pprof 127.0.0.1:6060 [--maxclients 10000] [--event-loop epoll|goroutine]
//
// It serves from the edge the binary uses by default (the epoll loop on
// Linux, server.Config.EventLoop), or the one --event-loop names;
// MINILOCK_EDGE in the environment wins over both, as in the binary
// (server.EdgeFromEnv).
// GET /stats on the pprof address returns JSON counters from runtime/metrics.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	_ "net/http/pprof"
	"os"
	"os/signal"
	"runtime"
	"runtime/metrics"
	"syscall"

	"github.com/minilock/minilock/server"
)

func main() {
	port := flag.Int("port", 6379, "RESP port on 127.0.0.1")
	pprofAddr := flag.String("pprof", "127.0.0.1:6060", "address of net/http/pprof and /stats")
	maxClients := flag.Int("maxclients", 0, "server.Config.MaxClients (0: the default)")
	edge := "goroutine"
	if runtime.GOOS == "linux" {
		edge = "epoll"
	}
	flag.StringVar(&edge, "event-loop", edge, "network edge: epoll (Linux) or goroutine; MINILOCK_EDGE wins")
	flag.Parse()
	if edge != "epoll" && edge != "goroutine" {
		fmt.Fprintf(os.Stderr, "profserver: --event-loop %q: epoll or goroutine\n", edge)
		os.Exit(2)
	}

	cfg := server.Config{
		Addrs:      []string{fmt.Sprintf("127.0.0.1:%d", *port)},
		MaxClients: *maxClients,
		EventLoop:  edge == "epoll",
	}
	server.EdgeFromEnv(&cfg)
	s, err := server.Start(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "profserver:", err)
		os.Exit(1)
	}
	http.HandleFunc("/stats", stats)
	go func() {
		if err := http.ListenAndServe(*pprofAddr, nil); err != nil {
			fmt.Fprintln(os.Stderr, "profserver: pprof:", err)
			os.Exit(1)
		}
	}()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	<-sig
	s.Close()
}

// counters are the runtime/metrics the profile report uses. Histograms are
// reported as their total count.
var counters = []string{
	"/gc/cycles/total:gc-cycles",
	"/gc/heap/allocs:objects",
	"/gc/heap/allocs:bytes",
	"/sched/latencies:seconds", // sampled: one in 8 goroutine schedules
	"/sched/goroutines-created:goroutines",
	"/sched/goroutines:goroutines",
	"/sched/threads/total:threads",
	"/sched/pauses/total/gc:seconds",
}

func stats(w http.ResponseWriter, r *http.Request) {
	samples := make([]metrics.Sample, len(counters))
	for i, name := range counters {
		samples[i].Name = name
	}
	metrics.Read(samples)
	out := map[string]float64{}
	for _, s := range samples {
		switch s.Value.Kind() {
		case metrics.KindUint64:
			out[s.Name] = float64(s.Value.Uint64())
		case metrics.KindFloat64:
			out[s.Name] = s.Value.Float64()
		case metrics.KindFloat64Histogram:
			var n uint64
			for _, c := range s.Value.Float64Histogram().Counts {
				n += c
			}
			out[s.Name] = float64(n)
		}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(out)
}
