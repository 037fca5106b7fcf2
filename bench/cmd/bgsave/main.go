// Command bgsave measures a background save of many lock keys on a running
// server (minilock or redis-server, given by address): the worst and 99th
// percentile PING latency another client sees while the save runs under a
// write load, how long it takes, and the extra memory it costs (INFO's
// rdb_last_cow_size, and the server's resident memory growth when the pid
// is given).
//
//	go run ./bench/cmd/bgsave -addr 127.0.0.1:7770 -pid <pid> -keys 1000000
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:6379", "server address")
	keys := flag.Int("keys", 1_000_000, "lock keys to fill")
	pid := flag.Int("pid", 0, "server pid, to sample its resident memory")
	writes := flag.Int("writes", 20000, "overwrites per second during the save (0: none)")
	seed := flag.Uint64("seed", 1, "random seed of the write load")
	flag.Parse()
	if err := run(*addr, *keys, *pid, *writes, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "bgsave:", err)
		os.Exit(1)
	}
}

type conn struct {
	c net.Conn
	r *bufio.Reader
	w *bufio.Writer
}

func dial(addr string) (*conn, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	return &conn{c, bufio.NewReaderSize(c, 1<<16), bufio.NewWriterSize(c, 1<<16)}, nil
}

func (c *conn) send(args ...string) {
	fmt.Fprintf(c.w, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(c.w, "$%d\r\n%s\r\n", len(a), a)
	}
}

// reply reads one reply: a line, or a bulk string's line and body.
func (c *conn) reply() (string, error) {
	line, err := c.r.ReadString('\n')
	if err != nil {
		return "", err
	}
	if line[0] == '$' {
		n, _ := strconv.Atoi(strings.TrimSpace(line[1:]))
		if n < 0 {
			return "", nil
		}
		b := make([]byte, n+2)
		if _, err := io.ReadFull(c.r, b); err != nil {
			return "", err
		}
		return string(b[:n]), nil
	}
	return strings.TrimSpace(line), nil
}

func (c *conn) do(args ...string) (string, error) {
	c.send(args...)
	if err := c.w.Flush(); err != nil {
		return "", err
	}
	return c.reply()
}

func info(c *conn, field string) string {
	r, err := c.do("INFO", "persistence")
	if err != nil {
		return ""
	}
	for _, l := range strings.Split(r, "\r\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			return v
		}
	}
	return ""
}

func rss(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n << 10
		}
	}
	return 0
}

func run(addr string, keys, pid, writes int, seed uint64) error {
	c, err := dial(addr)
	if err != nil {
		return err
	}
	if _, err := c.do("FLUSHALL"); err != nil {
		return err
	}
	// Lock keys as a lock library writes them: a random token and a TTL.
	for i := 0; i < keys; {
		j := min(i+1000, keys)
		for ; i < j; i++ {
			c.send("SET", "lock:"+strconv.Itoa(i), fmt.Sprintf("%016x%016x", rand.Uint64(), rand.Uint64()), "PX", "3600000")
		}
		c.w.Flush()
		for range 1000 {
			if _, err := c.reply(); err != nil {
				return err
			}
		}
	}
	time.Sleep(500 * time.Millisecond)
	base := rss(pid)

	// The write load: overwrites of random lock keys, paced.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var written atomic.Int64
	if writes > 0 {
		wc, err := dial(addr)
		if err != nil {
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, 1))
			tick := time.NewTicker(10 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-stop:
					return
				case <-tick.C:
				}
				n := writes / 100
				for range n {
					wc.send("SET", "lock:"+strconv.Itoa(rng.IntN(keys)), fmt.Sprintf("%016x%016x", rng.Uint64(), rng.Uint64()), "PX", "3600000")
				}
				wc.w.Flush()
				for range n {
					wc.reply()
				}
				written.Add(int64(n))
			}
		}()
	}
	// The PING client: one request at a time, every latency kept.
	var lats []time.Duration
	var mu sync.Mutex
	pc, err := dial(addr)
	if err != nil {
		return err
	}
	pinging := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-pinging:
				return
			default:
			}
			t0 := time.Now()
			if _, err := pc.do("PING"); err != nil {
				return
			}
			d := time.Since(t0)
			mu.Lock()
			lats = append(lats, d)
			mu.Unlock()
			time.Sleep(100 * time.Microsecond)
		}
	}()
	time.Sleep(300 * time.Millisecond)
	mu.Lock()
	idle := slices.Clone(lats)
	lats = lats[:0]
	mu.Unlock()

	start := time.Now()
	r, err := c.do("BGSAVE")
	if err != nil || r != "+Background saving started" {
		return fmt.Errorf("BGSAVE: %q %v", r, err)
	}
	peak := base
	for info(c, "rdb_bgsave_in_progress") != "0" {
		peak = max(peak, rss(pid))
		time.Sleep(20 * time.Millisecond)
	}
	took := time.Since(start)
	close(pinging)
	close(stop)
	wg.Wait()
	mu.Lock()
	during := slices.Clone(lats)
	mu.Unlock()
	pct := func(l []time.Duration, p float64) time.Duration {
		if len(l) == 0 {
			return 0
		}
		slices.Sort(l)
		return l[min(len(l)-1, int(p*float64(len(l))))]
	}
	fmt.Printf("addr %s keys %d: save took %v; PING during the save: %d pings, max %v, p99 %v (idle before: max %v, p99 %v)\n",
		addr, keys, took.Round(time.Millisecond), len(during), pct(during, 1), pct(during, 0.99), pct(idle, 1), pct(idle, 0.99))
	fmt.Printf("  writes during the save: %d; rdb_last_cow_size %s; resident memory %d MiB before, peak %d MiB during (+%d MiB)\n",
		written.Load(), info(c, "rdb_last_cow_size"), base>>20, peak>>20, (peak-base)>>20)
	return nil
}
