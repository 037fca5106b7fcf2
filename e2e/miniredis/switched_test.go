package miniredis_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// project is a module whose tests use miniredis.
type project struct {
	name            string
	module, version string
	pkgs            []string // packages whose tests run, relative to the module
	// known are the tests expected to fail against minilock, each with
	// why: a command minilock does not have yet, or a test that relies
	// on a way miniredis differs from Redis.
	known map[string]string
	// minTests and minPass guard against a suite that silently shrinks.
	minTests, minPass int
}

var projects = []project{
	{
		name:   "go-zero",
		module: "github.com/zeromicro/go-zero", version: "v1.10.3",
		pkgs: []string{"core/limit", "core/stores/redis", "core/stores/kv", "core/stores/cache"},
		known: map[string]string{
			"core/stores/redis.TestNewRedis": "its cluster case sends CLUSTER SLOTS: miniredis fakes a one-node cluster; " +
				"Redis without cluster mode refuses it (ERR This instance has cluster support disabled), and so does minilock",
			"core/stores/redis.TestRedisXGroupSetID": "it expects XGROUP SETID to fail with miniredis's 'not supported'; " +
				"Redis (and minilock) answer OK",
			"core/stores/redis.TestRedis_GeoHash": "it expects GEOHASH of a missing key to fail, as miniredis's unknown command does; " +
				"Redis (and minilock) answer an array of nils",
		},
		minTests: 152, minPass: 149,
	},
	{
		name:   "mochi-mqtt",
		module: "github.com/mochi-mqtt/server/v2", version: "v2.7.9",
		pkgs:     []string{"hooks/storage/redis"},
		known:    map[string]string{},
		minTests: 57, minPass: 57,
	},
}

const miniredisImport = `"github.com/alicebob/miniredis/v2"`
const ourImport = `"github.com/minilock/minilock/miniredis"`

func TestSwitchedSuites(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range projects {
		t.Run(p.name, func(t *testing.T) { runProject(t, root, p) })
	}
}

// unavailable skips the test, or fails it under CI=true, where the module
// proxy is there and nothing may be missing.
func unavailable(t *testing.T, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s, and CI=true, so this is a failure", msg)
	}
	t.Skip(msg)
}

func runProject(t *testing.T, root string, p project) {
	dir := download(t, p.module+"@"+p.version)
	// MINILOCK_E2E_BASELINE=1 runs the projects as published, on
	// miniredis itself, to compare: its failures are only logged.
	baseline := os.Getenv("MINILOCK_E2E_BASELINE") == "1"
	src := workDir(t, p.name+"@"+p.version)
	switched := copySwitched(t, dir, src, !baseline)
	if switched == 0 {
		t.Fatalf("%s@%s: no file imports %s", p.module, p.version, miniredisImport)
	}
	if !baseline {
		gomod(t, src, "edit", "-require=github.com/minilock/minilock@v0.0.0", "-replace=github.com/minilock/minilock="+root)
	}

	var ran, passed int
	var unexpected, fixed []string
	for _, pkg := range p.pkgs {
		bin := filepath.Join(t.TempDir(), "pkg.test")
		build := exec.Command("go", "test", "-c", "-o", bin, "./"+pkg)
		build.Dir = src
		build.Env = goEnv()
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("%s: building the tests of %s: %v\n%s", p.module, pkg, err, out)
		}
		for _, name := range listTests(t, bin, filepath.Join(src, pkg)) {
			id := pkg + "." + name
			ok, tail := runOne(bin, filepath.Join(src, pkg), name)
			ran++
			reason, isKnown := p.known[id]
			switch {
			case baseline && !ok:
				t.Logf("fails on miniredis: %s", id)
			case baseline:
				passed++
			case ok:
				passed++
				if isKnown {
					fixed = append(fixed, id)
				}
			case isKnown:
				t.Logf("known failure %s: %s", id, reason)
			default:
				unexpected = append(unexpected, id+"\n"+tail)
			}
		}
	}
	on := "minilock"
	if baseline {
		on = "miniredis"
	}
	t.Logf("%s %s on %s: %d of %d tests pass (%d known failures on minilock), %d files import miniredis",
		p.module, p.version, on, passed, ran, len(p.known), switched)
	for _, id := range fixed {
		t.Logf("%s passes now: take it off the known failures (%s)", id, p.known[id])
	}
	for _, u := range unexpected {
		t.Errorf("unexpected failure: %s", u)
	}
	if !baseline && (ran < p.minTests || passed < p.minPass) {
		t.Errorf("%d tests ran and %d passed; want at least %d and %d", ran, passed, p.minTests, p.minPass)
	}
}

// goEnv is the environment of the go commands run on a project: module
// mode, no workspace, missing go.sum lines fetched from the proxy.
func goEnv() []string {
	return append(os.Environ(), "GOFLAGS="+strings.TrimSpace(os.Getenv("GOFLAGS")+" -mod=mod"), "GOWORK=off")
}

// download fetches module@version through the module proxy and returns
// its directory in the module cache.
func download(t *testing.T, modVersion string) string {
	cmd := exec.Command("go", "mod", "download", "-json", modVersion)
	cmd.Env = goEnv()
	out, err := cmd.Output()
	var info struct{ Dir, Error string }
	if jerr := json.Unmarshal(out, &info); err != nil || jerr != nil || info.Dir == "" {
		unavailable(t, "go mod download %s: %v %s", modVersion, err, info.Error)
	}
	return info.Dir
}

// workDir is where a project's switched copy is built: the same path on
// every run, so that Go's build cache, which keys a package's build on its
// files' paths too, serves the second run. It is emptied first.
func workDir(t *testing.T, name string) string {
	base, err := os.UserCacheDir()
	if err != nil {
		return filepath.Join(t.TempDir(), "src")
	}
	dir := filepath.Join(base, "minilock-e2e-miniredis", name)
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// copySwitched copies the module at from to to, writable, with the
// miniredis import switched in every Go file (if switch is set), and
// returns how many files import miniredis.
func copySwitched(t *testing.T, from, to string, switchImport bool) int {
	n := 0
	err := filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.HasSuffix(path, ".go") && bytes.Contains(b, []byte(miniredisImport)) {
			if switchImport {
				b = bytes.ReplaceAll(b, []byte(miniredisImport), []byte(ourImport))
			}
			n++
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func gomod(t *testing.T, dir string, args ...string) {
	cmd := exec.Command("go", append([]string{"mod"}, args...)...)
	cmd.Dir = dir
	cmd.Env = goEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go mod %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// listTests returns the top-level tests and examples of a test binary.
func listTests(t *testing.T, bin, dir string) []string {
	cmd := exec.Command(bin, "-test.list", ".")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s -test.list: %v", bin, err)
	}
	var names []string
	for _, l := range strings.Fields(string(out)) {
		if strings.HasPrefix(l, "Test") || strings.HasPrefix(l, "Example") {
			names = append(names, l)
		}
	}
	sort.Strings(names)
	return names
}

// runOne runs one top-level test and returns whether it passed and, if
// not, the end of its output.
func runOne(bin, dir, name string) (bool, string) {
	cmd := exec.Command(bin, "-test.run", "^"+name+"$", "-test.count", "1", "-test.timeout", "2m")
	cmd.Dir = dir
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err == nil && bytes.Contains(out, []byte("\nPASS")) || err == nil && bytes.HasPrefix(out, []byte("PASS")) {
		return true, ""
	}
	if len(out) > 3000 {
		out = out[len(out)-3000:]
	}
	return false, fmt.Sprintf("(%v after %v)\n%s", err, time.Since(start).Round(time.Millisecond), out)
}
