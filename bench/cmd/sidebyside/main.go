// Command sidebyside benchmarks minilock against redis-server and miniredis
// on this machine: it builds minilock (and a bench-only miniredis server),
// starts every server on a free loopback port, and measures them in
// interleaved rounds (A B C A B C ...), reporting medians.
//
//	go run ./bench/cmd/sidebyside [mode] [flags]
//
// Modes:
//
//	sidebyside   (default) redis-benchmark workloads, a go-redis lock cycle,
//	             memory with 1M lock keys, embedded start+close
//	manyclients  10,000 idle connections while 100 clients run lock cycles
//	types        the sidebyside table for data-type commands: a semaphore
//	             script, HINCRBY, ZADD, ZRANGEBYSCORE, LPUSH/RPOP, SADD
//	lua          the sidebyside table for the Lua benchmark set
//	             (bench/luashapes): every shape as EVALSHA and as FCALL,
//	             its reply checked against Want on every server first
//	wakeups      release-to-acquire latency with 100 BLPOP waiters, PUBLISH
//	             to 1 and 1,000 subscribers, RSS per idle subscriber
//	audit        the cost audit: every command that walks a collection or
//	             the keyspace, at 1,000,000 elements, minilock's time per
//	             call beside redis-server's (docs/cost-audit.md)
//	profile      minilock only, through bench/cmd/profserver: CPU and
//	             allocation profiles, allocations, GC, syscalls and context
//	             switches per command, for each workload
//
// The report (markdown) goes to stdout and, with -out, to a file. Progress
// goes to stderr.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

type options struct {
	rounds      int
	n           int
	clients     int
	cycles      int
	keys        int
	quick       bool
	out         string
	servers     string
	minilock    string
	baseline    string
	miniredis   string
	profserver  string
	redisServer string
	redisBench  string
	release     string
	memory      bool
	types       bool // the data-type workloads instead of the lock ones
	lua         bool // the Lua benchmark set instead of the lock workloads
	embedded    bool
	// ratioTo names the server the ratio columns divide by; empty: the
	// first server divided by each of the others.
	ratioTo string

	idle     int
	active   int
	duration time.Duration

	profSeconds int
	profDir     string

	elements int           // audit: elements per collection
	settle   time.Duration // audit: rest before each row
	only     string        // audit: only the groups whose name contains this
}

func main() {
	args := os.Args[1:]
	mode := "sidebyside"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		mode, args = args[0], args[1:]
	}
	var o options
	fs := flag.NewFlagSet(mode, flag.ExitOnError)
	fs.IntVar(&o.rounds, "rounds", 5, "interleaved rounds; the report shows medians")
	fs.IntVar(&o.n, "n", 100000, "requests per redis-benchmark run")
	fs.IntVar(&o.clients, "c", 50, "redis-benchmark connections and go-redis goroutines")
	fs.IntVar(&o.cycles, "cycles", 50000, "go-redis lock cycles per run")
	fs.IntVar(&o.keys, "keys", 1000000, "lock keys loaded for the memory measurement")
	fs.BoolVar(&o.quick, "quick", false, "try it out: 1 round, -n 20000, -cycles 5000, -keys 100000, manyclients -idle 1000 -duration 3s (flags given explicitly win)")
	fs.StringVar(&o.out, "out", "", "also write the report (markdown) to this file")
	fs.StringVar(&o.servers, "servers", "", "servers to measure, in round order (default minilock,redis,miniredis; manyclients: minilock,redis)")
	fs.StringVar(&o.minilock, "minilock", "", "minilock binary (default: go build ./cmd/minilock)")
	fs.StringVar(&o.baseline, "baseline", "", "another minilock binary, measured as the server minilock-baseline: a build from before a change, for before/after in one run")
	fs.StringVar(&o.miniredis, "miniredis", "", "bench miniredis binary (default: go build ./bench/cmd/miniredis)")
	fs.StringVar(&o.profserver, "profserver", "", "profiling minilock binary (default: go build ./bench/cmd/profserver)")
	fs.StringVar(&o.redisServer, "redis-server", "redis-server", "redis-server binary")
	fs.StringVar(&o.redisBench, "redis-benchmark", "redis-benchmark", "redis-benchmark binary")
	fs.StringVar(&o.release, "release", "auto", "lock release in the go-redis cycles: evalsha, del, or auto (evalsha where every server runs the script, else del)")
	fs.BoolVar(&o.memory, "memory", true, "measure idle RSS, RSS with -keys lock keys, and their load time; audit: the memory of big replies (LRANGE of 5N, HRANDFIELD -3N WITHVALUES, a slow pattern subscriber under N publishes)")
	fs.BoolVar(&o.embedded, "embedded", true, "run the embedded start+close Go benchmark (go test ./server)")
	fs.IntVar(&o.idle, "idle", 10000, "manyclients: idle connections held open")
	fs.IntVar(&o.active, "active", 100, "manyclients: go-redis goroutines running lock cycles")
	fs.DurationVar(&o.duration, "duration", 10*time.Second, "manyclients: how long the lock cycles run per round")
	fs.IntVar(&o.profSeconds, "profile-seconds", 8, "profile: seconds of CPU profile per workload")
	fs.StringVar(&o.profDir, "profile-dir", "", "profile: where to keep the profiles (default: a new temp dir)")
	fs.IntVar(&o.elements, "elements", 1000000, "audit: elements per collection (keys, list elements, fields, members; functions: a hundredth of it)")
	fs.DurationVar(&o.settle, "settle", 500*time.Millisecond, "audit: rest before each row, so the row before's garbage is not counted against it")
	fs.StringVar(&o.only, "only", "", "audit: only the groups whose name contains this (keyspace, list, hash, set, sorted, functions; memory: none, the reply memory only)")
	fs.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: sidebyside [sidebyside|ceiling|types|lua|manyclients|wakeups|profile|audit] [flags]\n")
		fs.PrintDefaults()
	}
	fs.Parse(args)
	if o.quick {
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		quick := map[string]func(){
			"rounds":          func() { o.rounds = 1 },
			"n":               func() { o.n = 20000 },
			"cycles":          func() { o.cycles = 5000 },
			"keys":            func() { o.keys = 100000 },
			"idle":            func() { o.idle = 1000 },
			"duration":        func() { o.duration = 3 * time.Second },
			"profile-seconds": func() { o.profSeconds = 3 },
		}
		for name, f := range quick {
			if !set[name] {
				f()
			}
		}
	}
	if mode == "ceiling" {
		// The side-by-side workloads against the no-work servers of
		// bench/cmd/ceiling, every server divided by redis-server.
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		if !set["memory"] {
			o.memory = false
		}
		if !set["embedded"] {
			o.embedded = false
		}
		if o.servers == "" {
			o.servers = "redis,minilock,minilock-1p,ceiling-epoll,ceiling-goroutine,ceiling-handoff"
		}
		o.ratioTo = "redis"
		mode = "sidebyside"
	}
	if mode == "types" || mode == "lua" {
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		if !set["memory"] {
			o.memory = false
		}
		if !set["embedded"] {
			o.embedded = false
		}
		o.types = mode == "types"
		o.lua = mode == "lua"
		if o.lua {
			// miniredis has no FCALL; scripts are a quarter of -n
			// already (requests), and some shapes take 100 µs.
			if !set["servers"] {
				o.servers = "minilock,redis"
			}
			if !set["n"] && !o.quick {
				o.n = 40000
			}
			if !set["rounds"] && !o.quick {
				o.rounds = 3
			}
		}
		mode = "sidebyside"
	}
	if o.servers == "" {
		o.servers = "minilock,redis,miniredis"
		if mode == "manyclients" || mode == "wakeups" || mode == "audit" {
			o.servers = "minilock,redis"
		}
	}

	var err error
	switch mode {
	case "sidebyside":
		err = sideBySide(&o)
	case "manyclients":
		err = manyClients(&o)
	case "profile":
		err = profile(&o)
	case "wakeups":
		err = wakeups(&o)
	case "audit":
		if !explicit(fs, "rounds") {
			o.rounds = 3
		}
		err = audit(&o)
	default:
		fs.Usage()
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "sidebyside:", err)
		os.Exit(1)
	}
}

// explicit reports whether flag name was given on the command line.
func explicit(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, time.Now().Format("15:04:05 ")+format+"\n", args...)
}

// moduleRoot is the directory of minilock's go.mod.
func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", fmt.Errorf("run from inside the minilock module")
	}
	return filepath.Dir(mod), nil
}

// build compiles pkg (relative to the module root) into dir and returns the
// binary's path, unless bin is already given. GOFLAGS from the environment
// apply (an -overlay, say).
func build(bin, dir, pkg string) (string, error) {
	if bin != "" {
		return bin, nil
	}
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	out := filepath.Join(dir, filepath.Base(pkg))
	logf("go build %s", pkg)
	cmd := exec.Command("go", "build", "-o", out, "./"+pkg)
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %v\n%s", pkg, err, b)
	}
	return out, nil
}

// kinds builds what is needed and returns the servers named in o.servers.
func kinds(o *options, dir string) ([]kind, error) {
	var ks []kind
	for _, name := range strings.Split(o.servers, ",") {
		name = strings.TrimSpace(name)
		switch name {
		case "minilock", "minilock-1p", "minilock-epoll", "minilock-goroutine":
			bin, err := build(o.minilock, dir, "cmd/minilock")
			if err != nil {
				return nil, err
			}
			k := minilockKind(bin)
			if name == "minilock-1p" {
				// The Go scheduler on one thread, as redis-server's
				// event loop runs on one.
				k.name, k.env = name, []string{"GOMAXPROCS=1"}
			}
			if edge, ok := strings.CutPrefix(name, "minilock-"); ok && edge != "1p" {
				// One network edge or the other, whatever the harness's
				// own MINILOCK_EDGE says.
				k.name, k.env = name, []string{"MINILOCK_EDGE=" + edge}
			}
			ks = append(ks, k)
		case "minilock-baseline":
			if o.baseline == "" {
				return nil, fmt.Errorf("minilock-baseline: name its binary with -baseline (e.g. git worktree add /tmp/base <rev> && go build -o /tmp/base/minilock ./cmd/minilock there)")
			}
			k := minilockKind(o.baseline)
			k.name = name
			ks = append(ks, k)
		case "redis":
			if _, err := exec.LookPath(o.redisServer); err != nil {
				return nil, fmt.Errorf("redis-server: %w (apt-get install -y redis-server)", err)
			}
			ks = append(ks, redisKind(o.redisServer))
		case "miniredis":
			bin, err := build(o.miniredis, dir, "bench/cmd/miniredis")
			if err != nil {
				return nil, err
			}
			ks = append(ks, miniredisKind(bin))
		case "ceiling-goroutine", "ceiling-handoff", "ceiling-epoll":
			bin, err := build("", dir, "bench/cmd/ceiling")
			if err != nil {
				return nil, err
			}
			ks = append(ks, ceilingKind(bin, strings.TrimPrefix(name, "ceiling-")))
		default:
			return nil, fmt.Errorf("unknown server %q (minilock, minilock-1p, minilock-epoll, minilock-goroutine, minilock-baseline, redis, miniredis, ceiling-goroutine, ceiling-handoff, ceiling-epoll)", name)
		}
	}
	return ks, nil
}

// machine describes where the run happened, for the report's header.
func machine() string {
	cpu := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "model name"); ok {
				cpu = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), ":"))
				break
			}
		}
	}
	gover, _ := exec.Command("go", "env", "GOVERSION").Output()
	return fmt.Sprintf("%s, %d CPUs, %s", cpu, numCPU(), strings.TrimSpace(string(gover)))
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// report collects the markdown output.
type report struct{ strings.Builder }

func (r *report) line(format string, args ...any) { fmt.Fprintf(r, format+"\n", args...) }

// finish prints the report and writes it to o.out if set.
func (r *report) finish(o *options) error {
	fmt.Print(r.String())
	if o.out != "" {
		if err := os.WriteFile(o.out, []byte(r.String()), 0o644); err != nil {
			return err
		}
		logf("report written to %s", o.out)
	}
	return nil
}
