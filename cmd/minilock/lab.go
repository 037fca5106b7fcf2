package main

import (
	"fmt"
	"io"
)

// runLab is `minilock lab`: see package lab. (Placeholder until the lab lands.)
func runLab(args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "minilock lab: not available yet")
	return 2
}
