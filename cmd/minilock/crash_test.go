package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/minilock/minilock/internal/redistest"
)

// crashLoad runs writers against addr until stop closes or their
// connection breaks (the crash), and returns what was acknowledged: per
// writer, the last sequence number whose SET was answered and when, and the
// locks whose SET NX was answered OK.
type ackLog struct {
	mu    sync.Mutex
	seq   map[string]int64     // key -> last acknowledged value
	at    map[string][]ackTime // key -> acknowledged values with their time
	locks map[string]string    // lock key -> token
}

type ackTime struct {
	seq int64
	at  time.Time
}

func crashLoad(t *testing.T, addr string, writers int, round int, stop <-chan struct{}) *ackLog {
	log := &ackLog{seq: map[string]int64{}, at: map[string][]ackTime{}, locks: map[string]string{}}
	var wg sync.WaitGroup
	for w := range writers {
		c, err := redistest.DialAddr(addr)
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Close()
			key := fmt.Sprintf("counter:%d", w)
			for n := int64(1); ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				v := strconv.FormatInt(int64(round)<<32|n, 10)
				// A counter and a lock per step: both must survive once
				// answered.
				if r, err := c.Do("SET", key, v); err != nil || string(r) != "+OK\r\n" {
					return
				}
				log.mu.Lock()
				log.seq[key] = int64(round)<<32 | n
				log.at[key] = append(log.at[key], ackTime{int64(round)<<32 | n, time.Now()})
				log.mu.Unlock()
				lock := fmt.Sprintf("lock:%d:%d:%d", round, w, n)
				token := "token-" + v
				if r, err := c.Do("SET", lock, token, "NX", "PX", "600000"); err != nil || string(r) != "+OK\r\n" {
					return
				}
				log.mu.Lock()
				log.locks[lock] = token
				log.mu.Unlock()
			}
		}()
	}
	t.Cleanup(wg.Wait)
	return log
}

// TestCrashAppendfsyncAlways kills minilock with SIGKILL at seeded random
// moments under a write load, three times in a row on the same AOF, and
// checks after each restart that every write it acknowledged is there:
// each counter at least at its last acknowledged value, each lock
// acknowledged still held by its token (a second SET NX fails).
func TestCrashAppendfsyncAlways(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("CRASH_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	t.Logf("seed %d (CRASH_SEED=%d to repeat)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 29))
	dir := t.TempDir()
	args := []string{"--dir", dir, "--appendonly", "yes", "--appendfsync", "always", "--save", ""}
	for round := 1; round <= 3; round++ {
		p := startMinilock(t, args...)
		stop := make(chan struct{})
		acks := crashLoad(t, p.addr, 4, round, stop)
		time.Sleep(time.Duration(100+rng.IntN(400)) * time.Millisecond)
		p.signal(syscall.SIGKILL)
		p.wait(time.Now(), 10*time.Second)
		close(stop)

		p2 := startMinilock(t, args...)
		c := redistest.Dial(t, p2.addr)
		acks.mu.Lock()
		if len(acks.locks) == 0 {
			t.Fatalf("round %d: no write was acknowledged before the kill", round)
		}
		for key, want := range acks.seq {
			r := c.MustDo("GET", key)
			got, _ := strconv.ParseInt(trimBulk(r), 10, 64)
			if got < want {
				t.Errorf("round %d: %s = %q after the crash, but %d was acknowledged", round, key, r, want)
			}
		}
		for lock, token := range acks.locks {
			if r := c.MustDo("GET", lock); trimBulk(r) != token {
				t.Errorf("round %d: lock %s = %q after the crash, acknowledged to %s", round, lock, r, token)
			}
			if r := c.MustDo("SET", lock, "intruder", "NX", "PX", "600000"); r != "$-1\r\n" {
				t.Errorf("round %d: lock %s granted twice after the crash: %q", round, lock, r)
			}
		}
		t.Logf("round %d: %d locks and %d counters acknowledged before SIGKILL, all there after the restart", round, len(acks.locks), len(acks.seq))
		acks.mu.Unlock()
		p2.signal(syscall.SIGKILL)
		p2.wait(time.Now(), 10*time.Second)
	}
}

// TestCrashAppendfsyncEverysec: with everysec a crash loses at most about
// the last second of acknowledged writes.
func TestCrashAppendfsyncEverysec(t *testing.T) {
	dir := t.TempDir()
	args := []string{"--dir", dir, "--appendonly", "yes", "--appendfsync", "everysec", "--save", ""}
	p := startMinilock(t, args...)
	stop := make(chan struct{})
	acks := crashLoad(t, p.addr, 2, 1, stop)
	time.Sleep(2500 * time.Millisecond)
	killed := time.Now()
	p.signal(syscall.SIGKILL)
	p.wait(killed, 10*time.Second)
	close(stop)

	p2 := startMinilock(t, args...)
	c := redistest.Dial(t, p2.addr)
	acks.mu.Lock()
	defer acks.mu.Unlock()
	for key, list := range acks.at {
		got, _ := strconv.ParseInt(trimBulk(c.MustDo("GET", key)), 10, 64)
		for _, a := range list {
			// Acknowledged more than 1.5 s before the kill: fsynced by the
			// once-a-second fsync since.
			if killed.Sub(a.at) > 1500*time.Millisecond && got < a.seq {
				t.Errorf("%s = %d after the crash: %d was acknowledged %v before it", key, got, a.seq, killed.Sub(a.at).Round(time.Millisecond))
				break
			}
		}
	}
}

// TestTornAOFRecord: a crash in the middle of writing a command leaves it
// cut short at the end of the last file. As Redis, minilock loads the rest
// and truncates the file with aof-load-truncated yes (the default), and
// refuses to start with no.
func TestTornAOFRecord(t *testing.T) {
	dir := t.TempDir()
	args := []string{"--dir", dir, "--appendonly", "yes", "--appendfsync", "always", "--save", ""}
	p := startMinilock(t, args...)
	c := redistest.Dial(t, p.addr)
	c.MustDo("SET", "lock:a", "token", "PX", "600000")
	p.signal(syscall.SIGKILL)
	p.wait(time.Now(), 10*time.Second)

	incr := filepath.Join(dir, "appendonlydir", "appendonly.aof.1.incr.aof")
	whole, err := os.ReadFile(incr)
	if err != nil {
		t.Fatal(err)
	}
	torn := append(whole, "*3\r\n$3\r\nSET\r\n$6\r\nlock:b\r\n$5\r\ntok"...)
	os.WriteFile(incr, torn, 0o644)

	refused := startMinilockFails(t, append(args, "--aof-load-truncated", "no")...)
	if refused == 0 {
		t.Errorf("aof-load-truncated no: minilock started on a torn AOF")
	}
	p2 := startMinilock(t, args...)
	c2 := redistest.Dial(t, p2.addr)
	if r := c2.MustDo("GET", "lock:a"); r != "$5\r\ntoken\r\n" {
		t.Errorf("GET lock:a = %q", r)
	}
	if r := c2.MustDo("EXISTS", "lock:b"); r != ":0\r\n" {
		t.Errorf("the torn SET was applied: EXISTS = %q", r)
	}
	if b, _ := os.ReadFile(incr); len(b) != len(whole) {
		t.Errorf("the file is %d bytes after loading, want it truncated to %d", len(b), len(whole))
	}
}

// startMinilockFails runs the binary expecting it not to start, and returns
// its exit code.
func startMinilockFails(t *testing.T, extra ...string) int {
	t.Helper()
	args := append([]string{"--port", "0", "--bind", "127.0.0.1"}, extra...)
	cmd := exec.Command(binPath, args...)
	cmd.Dir = t.TempDir()
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
		return cmd.ProcessState.ExitCode()
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-done
		return 0
	}
}

func trimBulk(r string) string {
	if strings.HasPrefix(r, "$") && strings.HasSuffix(r, "\r\n") {
		if i := strings.Index(r, "\r\n"); i+2 <= len(r)-2 {
			return r[i+2 : len(r)-2]
		}
	}
	return r
}
