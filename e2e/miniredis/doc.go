// Package miniredis runs real projects' test suites, written for
// github.com/alicebob/miniredis/v2, against minilock's miniredis package:
// each project's source comes from the Go module proxy (go mod download),
// is copied to a temporary directory, has its miniredis import switched to
// github.com/minilock/minilock/miniredis (one line per file, nothing else
// changed), a replace pointing at this repository, and runs its tests, one
// top-level test at a time so that one test's panic costs that test only.
//
// A test that fails and is not in the project's list of known failures,
// each with its reason, fails this suite; so does a suite that runs fewer
// tests or passes fewer than it did. Without the module proxy it skips,
// or fails when CI=true (CI has the proxy).
//
// To run them (the first run downloads the projects and their
// dependencies through the module proxy, a few minutes):
//
//	go test -count=1 -v ./e2e/miniredis/
package miniredis
