package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/minilock/minilock/doctor"
	"github.com/minilock/minilock/lab"
)

const labUsage = `usage: minilock lab [--svg DIR] [--doctor] list | all | <scenario> ...

Replays lock races and their fixes against an embedded minilock, on a
manual clock, and judges each run. --svg writes DIR/<scenario>.svg.
--doctor runs the lock doctor on the server too and prints what it found
(docs/doctor.md).
`

// runLab is `minilock lab`: see package lab. It exits 1 if a scenario's
// verdict is not the one it expects, 2 on a usage error.
func runLab(args []string, stdout, stderr io.Writer) int {
	var svgDir string
	var names []string
	withDoctor := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--svg" || a == "-svg":
			if i+1 == len(args) {
				fmt.Fprint(stderr, labUsage)
				return 2
			}
			i++
			svgDir = args[i]
		case strings.HasPrefix(a, "--svg=") || strings.HasPrefix(a, "-svg="):
			_, svgDir, _ = strings.Cut(a, "=")
		case a == "--doctor" || a == "-doctor":
			withDoctor = true
		case a == "-h" || a == "--help" || a == "help":
			fmt.Fprint(stdout, labUsage)
			return 0
		case strings.HasPrefix(a, "-"):
			fmt.Fprintf(stderr, "minilock lab: unknown flag %s\n%s", a, labUsage)
			return 2
		default:
			names = append(names, a)
		}
	}
	if len(names) == 0 || (len(names) == 1 && names[0] == "list") {
		lab.List(stdout)
		return 0
	}

	var run []*lab.Scenario
	for _, name := range names {
		if name == "all" {
			run = append(run, lab.Scenarios()...)
			continue
		}
		sc, ok := lab.Lookup(name)
		if !ok {
			fmt.Fprintf(stderr, "minilock lab: no scenario %q; `minilock lab list` shows them\n", name)
			return 2
		}
		run = append(run, sc)
	}
	if svgDir != "" {
		if err := os.MkdirAll(svgDir, 0o755); err != nil {
			fmt.Fprintf(stderr, "minilock lab: %v\n", err)
			return 1
		}
	}

	status, unexpected := 0, 0
	for i, sc := range run {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		var r *lab.Result
		var findings []doctor.Finding
		var err error
		if withDoctor {
			r, findings, err = lab.RunWithDoctor(sc)
		} else {
			r, err = lab.Run(sc)
		}
		if err != nil {
			fmt.Fprintf(stderr, "minilock lab: %v\n", err)
			status = 1
			continue
		}
		lab.Print(stdout, r)
		if withDoctor {
			fmt.Fprintln(stdout)
			doctor.Report(stdout, findings, 0)
		}
		if !r.AsExpected() {
			unexpected++
			status = 1
		}
		if svgDir != "" {
			path := filepath.Join(svgDir, sc.Name+".svg")
			if err := os.WriteFile(path, lab.SVG(r), 0o644); err != nil {
				fmt.Fprintf(stderr, "minilock lab: %v\n", err)
				status = 1
			}
		}
	}
	if len(run) > 1 {
		fmt.Fprintf(stdout, "\n%d scenarios, %d with an unexpected verdict\n", len(run), unexpected)
	}
	return status
}
