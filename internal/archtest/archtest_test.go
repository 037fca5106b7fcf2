// Package archtest checks the shape of the house (docs/architecture.md): imports
// run one way, cmd -> lab -> server -> {luaeval, keyspace, server/internal/edge}
// -> {resp, expiry}, with the few shared helpers below; keyspace is
// passive (no goroutine machinery); and only luaeval/internal/seam reaches
// into gopher-lua's internals.
package archtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const module = "github.com/minilock/minilock"

// layers orders minilock's packages: a package may import only packages of
// a lower layer (a larger number), or its own internal packages. Packages
// not listed (bench/..., e2e/..., test helpers) are programs and suites at
// the top and may import anything.
var layers = map[string]int{
	"cmd/minilock":             0,
	"internal/gencommands":     0,
	"internal/genconfig":       0,
	"lab":                      1, // drives an embedded server
	"internal/redistest":       1,
	"miniredis":                1, // miniredis's API over server's embedding API
	"server":                   2,
	"luaeval":                  3,
	"keyspace":                 3,
	"doctor":                   3, // the lock doctor: plain command records in, findings out; nothing of the server
	"server/internal/edge":     3, // the network edge and the owner loop: nothing of the commands or the data
	"internal/cmdargs":         4, // arguments both keyspace and server parse
	"internal/cmdspec":         4, // Redis's command metadata: types, COMMAND INFO/DOCS replies, key specs
	"luaeval/internal/seam":    4, // below the rest of luaeval: all use it
	"luaeval/internal/lstrlib": 4, // the matcher and format, below the string table (lstrlib/strlib)
	"luaeval/internal/lauxlib": 5, // below the seam: its hooks use it
	"resp":                     5,
	"expiry":                   5,
	"internal/redisstr":        6,
	"internal/cmath":           6, // C's math as glibc computes it: Lua's math library and pow, geo distances without cgo
	"internal/lockscripts":     6,
	"internal/timeline":        6, // the timeline picture the lab and the doctor draw
	"internal/rdbfmt":          6, // RDB strings, LZF, CRC64: FUNCTION DUMP/RESTORE (luaeval) and the tests that build payloads
}

type goPackage struct {
	ImportPath string
	Imports    []string
	GoFiles    []string
	Dir        string
}

func listPackages(t *testing.T) []goPackage {
	t.Helper()
	cmd := exec.Command("go", "list", "-json", module+"/...")
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []goPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p goPackage
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		p.ImportPath = strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 10 {
		t.Fatalf("go list found only %d packages", len(pkgs))
	}
	return pkgs
}

// layerOf is a package's layer: its own, or that of the closest package
// whose internal/ it lives in (luaeval/internal/lstrlib is part of
// luaeval, server/internal/edge has a layer of its own).
func layerOf(path string) (int, bool) {
	if l, ok := layers[path]; ok {
		return l, true
	}
	if i := strings.LastIndex(path, "/internal/"); i > 0 {
		return layerOf(path[:i])
	}
	return 0, false
}

func TestImportsRunOneWay(t *testing.T) {
	for _, v := range importViolations(listPackages(t)) {
		t.Error(v)
	}
}

// importViolations lists the imports of pkgs that do not run down the
// layers.
func importViolations(pkgs []goPackage) []string {
	var bad []string
	for _, p := range pkgs {
		from, ok := layerOf(p.ImportPath)
		if !ok {
			continue
		}
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, module+"/") {
				continue
			}
			imp = strings.TrimPrefix(imp, module+"/")
			if strings.HasPrefix(imp, p.ImportPath+"/internal/") {
				continue // a package's own parts
			}
			to, ok := layerOf(imp)
			if !ok {
				bad = append(bad, fmt.Sprintf("%s imports %s, which has no place in the layers", p.ImportPath, imp))
				continue
			}
			if to <= from {
				bad = append(bad, fmt.Sprintf("%s (layer %d) imports %s (layer %d): imports must run down the layers", p.ImportPath, from, imp, to))
			}
		}
	}
	return bad
}

// The edge hands batches to the command layer and writes what comes
// back; it must know nothing of the commands, the data or Lua, not even
// through another package.
func TestEdgeKnowsNoCommands(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", module+"/server/internal/edge")
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list -deps found only %d packages", len(deps))
	}
	for _, dep := range deps {
		for _, no := range []string{"server", "keyspace", "luaeval"} {
			if dep == module+"/"+no || strings.HasPrefix(dep, module+"/"+no+"/") && !strings.HasPrefix(dep, module+"/server/internal/edge") {
				t.Errorf("server/internal/edge depends on %s", dep)
			}
		}
	}
	// The layers say so too: an edge that imported any of them would
	// break TestImportsRunOneWay.
	for _, no := range []string{"server", "keyspace", "luaeval"} {
		p := goPackage{ImportPath: "server/internal/edge", Imports: []string{module + "/resp", module + "/" + no}}
		if v := importViolations([]goPackage{p}); len(v) != 1 {
			t.Errorf("an edge importing %s: violations %q, want one", no, v)
		}
	}
	if v := importViolations([]goPackage{{ImportPath: "server", Imports: []string{module + "/server/internal/edge"}}}); len(v) != 0 {
		t.Errorf("server importing its edge: %q", v)
	}
}

var linkname = regexp.MustCompile(`(?m)^//go:linkname\s+\S+\s+github\.com/yuin/gopher-lua`)

// Only the seam may use unsafe, reflect or go:linkname together with
// gopher-lua: anything else would break silently with another version.
func TestOnlyTheSeamReachesIntoGopherLua(t *testing.T) {
	for _, p := range listPackages(t) {
		if p.ImportPath == "luaeval/internal/seam" {
			continue
		}
		usesLua, usesUnsafe := false, false
		for _, imp := range p.Imports {
			switch {
			case strings.HasPrefix(imp, "github.com/yuin/gopher-lua"):
				usesLua = true
			case imp == "unsafe" || imp == "reflect":
				usesUnsafe = true
			}
		}
		if usesLua && usesUnsafe {
			t.Errorf("%s imports gopher-lua and unsafe or reflect: reach gopher-lua's internals through luaeval/internal/seam", p.ImportPath)
		}
		for _, f := range p.GoFiles {
			src, err := os.ReadFile(filepath.Join(p.Dir, f))
			if err != nil {
				t.Fatal(err)
			}
			if linkname.Match(src) {
				t.Errorf("%s: go:linkname into gopher-lua outside the seam", filepath.Join(p.ImportPath, f))
			}
		}
	}
}

// The binary must not link the testing package: the embedding API's
// helpers take server.TB, an interface of their own, for that reason.
// The miniredis package neither: a suite's non-test helpers import it, as
// they import miniredis's.
func TestBinaryLinksNoTesting(t *testing.T) {
	for _, pkg := range []string{"cmd/minilock", "miniredis"} {
		cmd := exec.Command("go", "list", "-deps", module+"/"+pkg)
		cmd.Dir = filepath.Join("..", "..")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list -deps: %v", err)
		}
		for _, dep := range strings.Fields(string(out)) {
			if dep == "testing" || strings.HasPrefix(dep, "testing/") {
				t.Errorf("%s links %s", pkg, dep)
			}
		}
	}
}

// passiveImports are the packages whose use means a package runs or waits
// for goroutines of its own. sync/atomic is not among them: keyspace keeps
// a counter other goroutines read.
var passiveImports = map[string]bool{"sync": true, "runtime": true, "os/signal": true}

// passiveTimeCalls are the functions of package time that wait or start a
// goroutine; time.Duration and time.Time are plain values.
var passiveTimeCalls = map[string]bool{"Sleep": true, "NewTimer": true, "NewTicker": true, "After": true, "AfterFunc": true, "Tick": true}

// keyspace is passive: data and the semantics of the data commands, run by
// the server's owner goroutine (server/internal/edge.Owner). It starts no
// goroutine, selects on no channel, has no channel, no lock and no timer.
func TestKeyspaceIsPassive(t *testing.T) {
	checked := 0
	for _, p := range listPackages(t) {
		if p.ImportPath != "keyspace" && !strings.HasPrefix(p.ImportPath, "keyspace/") {
			continue
		}
		for _, f := range p.GoFiles {
			path := filepath.Join(p.Dir, f)
			for _, bad := range goroutineMachinery(t, path) {
				t.Errorf("%s: %s: keyspace must stay passive (the owner loop is server/internal/edge's)", filepath.Join(p.ImportPath, f), bad)
			}
			checked++
		}
	}
	if checked < 10 {
		t.Fatalf("checked only %d files of keyspace", checked)
	}
}

// goroutineMachinery lists what in a Go file starts, waits for or
// synchronises with goroutines, with its position.
func goroutineMachinery(t *testing.T, path string) []string {
	t.Helper()
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	add := func(n ast.Node, what string) {
		found = append(found, fset.Position(n.Pos()).String()+": "+what)
	}
	timeName := ""
	for _, imp := range file.Imports {
		name := strings.Trim(imp.Path.Value, `"`)
		if passiveImports[name] {
			add(imp, "imports "+name)
		}
		if name == "time" {
			timeName = "time"
			if imp.Name != nil {
				timeName = imp.Name.Name
			}
		}
	}
	ast.Inspect(file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.GoStmt:
			add(n, "go statement")
		case *ast.SelectStmt:
			add(n, "select")
		case *ast.ChanType:
			add(n, "channel type")
		case *ast.SendStmt:
			add(n, "channel send")
		case *ast.SelectorExpr:
			if id, ok := n.X.(*ast.Ident); ok && timeName != "" && id.Name == timeName && passiveTimeCalls[n.Sel.Name] {
				add(n, "time."+n.Sel.Name)
			}
		}
		return true
	})
	return found
}

// The check finds what it looks for: the owner loop, which keyspace held
// before it became passive, fails it on every count.
func TestGoroutineMachineryIsFound(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "loop.go")
	src := `package keyspace

import (
	"sync"
	tm "time"
)

type K struct {
	mu   sync.Mutex
	jobs chan func()
}

func (k *K) run() {
	timer := tm.NewTimer(tm.Hour)
	go func() { k.jobs <- nil }()
	select {
	case j := <-k.jobs:
		j()
	case <-timer.C:
	}
}
`
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(goroutineMachinery(t, path), "\n")
	for _, want := range []string{"imports sync", "channel type", "time.NewTimer", "go statement", "channel send", "select"} {
		if !strings.Contains(got, want) {
			t.Errorf("not found: %s; found:\n%s", want, got)
		}
	}
}
