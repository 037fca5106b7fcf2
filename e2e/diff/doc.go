// Package diff is the differential suite: every case is sent as raw RESP to
// minilock and to a real redis-server 7.0 started by the test, and the raw
// replies must be byte-identical; a difference is a bug in minilock unless
// docs/differences.md lists it as deliberate. Cases are tables, one file per
// topic (diff_strings_test.go, diff_script_test.go ...), plus seeded random
// cases (diff_random_test.go).
//
//	go test -run TestDiff -v ./e2e/diff | grep cases   # how many cases ran
//	go test -run 'TestDiff/strings/set_nx' ./e2e/diff  # one case
package diff
