package diff_test

// redis-cli's operator modes (--stat, --latency, --bigkeys, --memkeys,
// --scan) run against minilock and against redis-server holding the same
// keys, and print the same thing: what they compute from INFO, SCAN, TYPE,
// STRLEN and the like exactly, and sizes from MEMORY USAGE (each server's
// own) masked.

import (
	"context"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// requireCLI returns the path of redis-cli, skipping the test without it
// (failing it under CI=true, as redistest.Require does).
func requireCLI(t *testing.T, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err == nil {
		return path
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is not on PATH and CI=true", name)
	}
	t.Skipf("%s is not on PATH", name)
	return ""
}

// runCLI runs redis-cli against addr with args for at most d, and returns
// what it printed; a run cut short by d is not an error (--stat runs until
// stopped).
func runCLI(t *testing.T, addr string, d time.Duration, args ...string) string {
	t.Helper()
	host, port, _ := strings.Cut(addr, ":")
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	// stdbuf: redis-cli buffers --stat's lines when its output is a pipe.
	all := append([]string{"-o0", requireCLI(t, "redis-cli"), "-h", host, "-p", port}, args...)
	cmd := exec.CommandContext(ctx, requireCLI(t, "stdbuf"), all...)
	out, err := cmd.CombinedOutput()
	if err != nil && ctx.Err() == nil {
		t.Fatalf("redis-cli %q against %s: %v\n%s", args, addr, err, out)
	}
	return string(out)
}

// cliData is loaded into both servers: one key of each type and lock keys
// of distinct sizes, so the biggest key of each type is the same on both.
var cliData = [][]string{
	{"SET", "lock:a", "token-1", "PX", "60000"},
	{"SET", "lock:b", strings.Repeat("t", 40), "PX", "60000"},
	{"SET", "big", strings.Repeat("x", 3000)},
	{"HSET", "h", "f1", "v1", "f2", "v2", "f3", "v3"},
	{"RPUSH", "l", "a", "b"},
	{"SADD", "s", "a", "b", "c", "d"},
	{"ZADD", "z", "1", "a"},
}

func TestRedisCLITools(t *testing.T) {
	requireCLI(t, "redis-cli")
	requireCLI(t, "stdbuf")
	p := newPair(t, "")
	for i := range p.ends {
		e := &p.ends[i]
		for _, c := range cliData {
			if _, err := e.admin.Do(c...); err != nil {
				t.Fatalf("%s: %q: %v", e.name, c, err)
			}
		}
	}
	digits := regexp.MustCompile(`[0-9]+(\.[0-9]+)?[KMG]?`)
	for _, tc := range []struct {
		name string
		args []string
		d    time.Duration
		norm func(string) string
	}{
		// The summary, from TYPE and the length commands: exact.
		{"bigkeys", []string{"--bigkeys"}, 20 * time.Second, func(s string) string {
			_, summary, _ := strings.Cut(s, "-------- summary -------")
			return summary
		}},
		// The same from MEMORY USAGE: each server's bytes are its own.
		{"memkeys", []string{"--memkeys"}, 20 * time.Second, func(s string) string {
			_, summary, _ := strings.Cut(s, "-------- summary -------")
			lines := strings.Split(summary, "\n")
			for i, l := range lines {
				if strings.Contains(l, " bytes") && !strings.HasPrefix(l, "Total key length") {
					name, _, _ := strings.Cut(l, " has ")
					lines[i] = digits.ReplaceAllString(name, "N") + " has N bytes"
					if !strings.HasPrefix(l, "Biggest") {
						lines[i] = digits.ReplaceAllString(l, "N")
					}
				}
			}
			return strings.Join(lines, "\n")
		}},
		{"scan", []string{"--scan"}, 20 * time.Second, func(s string) string {
			lines := strings.Fields(s)
			slices.Sort(lines)
			return strings.Join(lines, "\n")
		}},
		{"scan pattern", []string{"--scan", "--pattern", "lock:*"}, 20 * time.Second, func(s string) string {
			lines := strings.Fields(s)
			slices.Sort(lines)
			return strings.Join(lines, "\n")
		}},
		// --stat: the header, the key and client counts, and the
		// requests each INFO adds, exactly; memory and the running
		// totals masked.
		{"stat", []string{"--stat", "-i", "0.2"}, 1500 * time.Millisecond, func(s string) string {
			lines := strings.Split(s, "\n")
			var out []string
			for i, l := range lines {
				f := strings.Fields(l)
				if i < 2 || len(f) < 6 {
					out = append(out, strings.TrimRight(l, " "))
					continue
				}
				if len(out) >= 4 {
					break // the run's length is the timer's: two rows
				}
				out = append(out, strings.Join([]string{f[0], "<mem>", f[2], f[3], "<requests>", f[5], "<connections>"}, " "))
			}
			return strings.Join(out, "\n")
		}},
		// --latency: min, max, average and samples of PING round trips.
		{"latency", []string{"--latency", "-i", "0.1"}, 1 * time.Second, func(s string) string {
			f := strings.Fields(s)
			if len(f) != 4 {
				return "unexpected: " + s
			}
			for _, v := range f {
				if _, err := strconv.ParseFloat(v, 64); err != nil {
					return "unexpected: " + s
				}
			}
			return "4 figures"
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got [2]string
			for i := range p.ends {
				got[i] = tc.norm(runCLI(t, p.ends[i].addr, tc.d, tc.args...))
			}
			t.Logf("minilock, normalized:\n%s", got[1])
			if got[0] != got[1] {
				t.Errorf("redis-cli %s\n--- redis-server:\n%s\n--- minilock:\n%s", strings.Join(tc.args, " "), got[0], got[1])
			}
			if strings.TrimSpace(got[0]) == "" {
				t.Errorf("redis-cli %s printed nothing to compare", strings.Join(tc.args, " "))
			}
		})
	}
}
