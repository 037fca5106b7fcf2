package stackcap

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// outside are the packages beyond luaeval/ whose tests run scripts in
// their own process: the server's (FuzzEval) and the hostile battery's.
var outside = []string{"server", "e2e/reliability"}

// uncapped are the luaeval packages with tests that drive no script and no
// script's data: they need no cap.
var uncapped = map[string]string{
	"luaeval/internal/seam": "gopher-lua's table and call-stack internals, driven by Go",
}

// TestCappedPackages: every package of the scripting engine that has tests
// (and the two outside it) caps its stack in its TestMain, so a new
// library port cannot join without the cap.
func TestCappedPackages(t *testing.T) {
	root := filepath.Join("..", "..")
	dirs := append([]string(nil), outside...)
	err := filepath.WalkDir(filepath.Join(root, "luaeval"), func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if tests, _ := filepath.Glob(filepath.Join(path, "*_test.go")); len(tests) > 0 && uncapped[filepath.ToSlash(rel)] == "" {
			dirs = append(dirs, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 10 {
		t.Fatalf("found only %v", dirs)
	}
	for _, dir := range dirs {
		tests, _ := filepath.Glob(filepath.Join(root, dir, "*_test.go"))
		capped := false
		for _, f := range tests {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			capped = capped || strings.Contains(string(b), "stackcap.Main(m)") && strings.Contains(string(b), "stackcap.Check(t)")
		}
		if !capped {
			t.Errorf("%s: no test file calls stackcap.Main from TestMain and stackcap.Check from a test", dir)
		}
	}
}
