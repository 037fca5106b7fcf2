package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunLab(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		args       []string
		status     int
		stdout     string // a substring of what it prints
		stderr     string
		svgWritten string // a file expected in dir afterwards
	}{
		{args: []string{"list"}, stdout: "paused-holder"},
		{args: nil, stdout: "fencing"},
		{args: []string{"all"}, stdout: "24 scenarios, 0 with an unexpected verdict"},
		{args: []string{"subscribe-late"}, stdout: "verdict: B waited 24.999s for a free lock"},
		{args: []string{"fencing"}, stdout: "verdict: safe (as expected)"},
		{args: []string{"--svg", dir, "del-after-expiry"}, stdout: "two clients held the lock at t=+16.000s", svgWritten: "del-after-expiry.svg"},
		{args: []string{"setnx-expire", "--svg=" + dir}, stdout: "never freed", svgWritten: "setnx-expire.svg"},
		{args: []string{"no-such-race"}, status: 2, stderr: `no scenario "no-such-race"`},
		{args: []string{"--svg"}, status: 2, stderr: "usage"},
		{args: []string{"--doctor", "get-then-del"}, stdout: "1. get-then-del: check-then-delete release in two commands, without WATCH"},
		{args: []string{"--doctor", "lua-release"}, stdout: "minilock doctor: no lock hazards"},
		{args: []string{"--bogus", "all"}, status: 2, stderr: "unknown flag"},
	}
	for _, tt := range tests {
		name := strings.Join(tt.args, " ")
		if name == "" {
			name = "no arguments"
		}
		t.Run(name, func(t *testing.T) {
			var out, errs bytes.Buffer
			if got := runLab(tt.args, &out, &errs); got != tt.status {
				t.Fatalf("status %d, want %d\nstdout:\n%s\nstderr:\n%s", got, tt.status, out.String(), errs.String())
			}
			if !strings.Contains(out.String(), tt.stdout) {
				t.Errorf("stdout lacks %q:\n%s", tt.stdout, out.String())
			}
			if !strings.Contains(errs.String(), tt.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.stderr, errs.String())
			}
			if tt.svgWritten != "" {
				if _, err := os.Stat(filepath.Join(dir, tt.svgWritten)); err != nil {
					t.Error(err)
				}
			}
		})
	}
}
