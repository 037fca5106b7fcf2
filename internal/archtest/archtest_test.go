// Package archtest checks the shape of the house (docs/architecture.md): imports
// run one way, cmd -> lab -> server -> {edge, luaeval, keyspace} -> {resp,
// expiry}, with the few shared helpers below, and only
// luaeval/internal/seam reaches into gopher-lua's internals.
package archtest

import (
	"bytes"
	"encoding/json"
	"fmt"
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
	"server":                   2,
	"server/internal/edge":     3, // the network edge: knows nothing of commands, the data or Lua
	"luaeval":                  3,
	"keyspace":                 3,
	"internal/cmdargs":         4, // arguments both keyspace and server parse
	"internal/cmdspec":         4, // Redis's command metadata: types, COMMAND INFO/DOCS replies, key specs
	"luaeval/internal/seam":    4, // below the rest of luaeval: all use it
	"luaeval/internal/lstrlib": 4, // the matcher and format, below the string table (lstrlib/strlib)
	"luaeval/internal/lauxlib": 5, // below the seam: its hooks use it
	"resp":                     5,
	"expiry":                   5,
	"internal/redisstr":        6,
	"luaeval/internal/cmath":   6, // C's math as glibc computes it: lauxlib's pow uses it
	"internal/lockscripts":     6,
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
func TestBinaryLinksNoTesting(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", module+"/cmd/minilock")
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if dep == "testing" || strings.HasPrefix(dep, "testing/") {
			t.Errorf("cmd/minilock links %s", dep)
		}
	}
}
