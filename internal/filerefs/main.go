// Command filerefs counts the references between the files of one Go
// package: file A refers to file B when A uses a package-level name that B
// declares. A reference runs back up when it closes a cycle (B refers back
// to A, directly or through other files): a package whose files can be
// read bottom to top has none. Issue 23's closing note reports the count
// for server/ before and after the edge moved out.
//
//	go run ./internal/filerefs ./server [-v]
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	verbose := flag.Bool("v", false, "list the references that run back up")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: filerefs [-v] <package dir>")
		os.Exit(2)
	}
	edges, err := fileRefs(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "filerefs:", err)
		os.Exit(1)
	}
	back := cyclic(edges)
	fmt.Printf("%d file-to-file references, %d of them run back up (inside a cycle)\n", len(edges), len(back))
	if *verbose {
		for _, e := range back {
			fmt.Printf("  %s -> %s\n", e[0], e[1])
		}
	}
}

// fileRefs type-checks the package's non-test files in dir and returns the
// pairs (user file, declaring file), sorted.
func fileRefs(dir string) ([][2]string, error) {
	fset := token.NewFileSet()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	var files []*ast.File
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, n, nil, 0)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil), Error: func(error) {}}
	pkg, _ := conf.Check(dir, fset, files, info)
	if pkg == nil {
		return nil, fmt.Errorf("type-checking %s failed", dir)
	}
	seen := map[[2]string]bool{}
	add := func(use token.Pos, obj types.Object) {
		if obj == nil || obj.Pkg() != pkg || !obj.Pos().IsValid() {
			return
		}
		from := filepath.Base(fset.File(use).Name())
		to := filepath.Base(fset.File(obj.Pos()).Name())
		if from != to && strings.HasSuffix(to, ".go") {
			seen[[2]string{from, to}] = true
		}
	}
	for id, obj := range info.Uses {
		// Package-level names only: a local variable lives in its file.
		if obj.Parent() == pkg.Scope() {
			add(id.Pos(), obj)
		}
	}
	for sel, s := range info.Selections {
		// Methods and fields: x.method() uses the file that declares it.
		add(sel.Sel.Pos(), s.Obj())
	}
	var edges [][2]string
	for e := range seen {
		edges = append(edges, e)
	}
	sort.Slice(edges, func(i, j int) bool {
		return edges[i][0] < edges[j][0] || edges[i][0] == edges[j][0] && edges[i][1] < edges[j][1]
	})
	return edges, nil
}

// cyclic returns the edges whose two ends lie in one strongly connected
// component: those that some path leads back over.
func cyclic(edges [][2]string) [][2]string {
	next := map[string][]string{}
	for _, e := range edges {
		next[e[0]] = append(next[e[0]], e[1])
	}
	reach := func(from, to string) bool {
		seen := map[string]bool{from: true}
		stack := []string{from}
		for len(stack) > 0 {
			n := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if n == to {
				return true
			}
			for _, m := range next[n] {
				if !seen[m] {
					seen[m] = true
					stack = append(stack, m)
				}
			}
		}
		return false
	}
	var back [][2]string
	for _, e := range edges {
		if reach(e[1], e[0]) {
			back = append(back, e)
		}
	}
	return back
}
