package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"sort"
	"strconv"
)

// tableNames reads the names of the top-level commands in the
// commandTable of the Go file at path: the rows' name fields. A
// container's subcommands need no listing: Redis's entry for the
// container carries all of them.
func tableNames(path string) ([]string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		return nil, err
	}
	var names []string
	ast.Inspect(f, func(n ast.Node) bool {
		spec, ok := n.(*ast.ValueSpec)
		if !ok || len(spec.Names) != 1 || spec.Names[0].Name != "commandTable" || len(spec.Values) != 1 {
			return true
		}
		lit, ok := spec.Values[0].(*ast.CompositeLit)
		if !ok {
			return false
		}
		for _, row := range lit.Elts {
			if name, ok := rowName(row); ok {
				names = append(names, name)
			}
		}
		return false
	})
	if len(names) == 0 {
		return nil, fmt.Errorf("%s: no commandTable rows with a name", path)
	}
	sort.Strings(names)
	return names, nil
}

// rowName is the string of a row's name field.
func rowName(row ast.Expr) (string, bool) {
	if u, ok := row.(*ast.UnaryExpr); ok { // &command{...}
		row = u.X
	}
	lit, ok := row.(*ast.CompositeLit)
	if !ok {
		return "", false
	}
	for _, e := range lit.Elts {
		kv, ok := e.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		if key, ok := kv.Key.(*ast.Ident); !ok || key.Name != "name" {
			continue
		}
		if v, ok := kv.Value.(*ast.BasicLit); ok && v.Kind == token.STRING {
			s, err := strconv.Unquote(v.Value)
			return s, err == nil
		}
	}
	return "", false
}
