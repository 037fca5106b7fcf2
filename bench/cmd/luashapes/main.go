// Command luashapes prints bench/luashapes's shapes as JSON (name, body,
// the library and function name FCALL runs, keys, arguments, and redis's
// reply), for harnesses outside Go: bench/luacpu.py.
package main

import (
	"encoding/json"
	"os"

	"github.com/minilock/minilock/bench/luashapes"
)

func main() {
	type shape struct {
		Name, Body, Lib, Fn, Want string
		Keys, Args                []string
	}
	var out []shape
	for _, s := range luashapes.Shapes {
		out = append(out, shape{s.Name, s.Body, s.Library(), s.FuncName(), s.Want, s.Keys, s.Args})
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		os.Exit(1)
	}
}
