// Package stackcap runs a package's tests with the Go stack capped low.
//
// A script is hostile input, and every recursion its source or data can
// drive (the compiler, cjson, cmsgpack, the reply conversions, nested calls
// through the VM) must be bounded far below Go's own limit: a goroutine
// that outgrows its maximum stack is a fatal error, not a panic, so no
// recover saves the server, and every client loses its connection. Go's
// default maximum is 1 GiB on 64-bit systems, so a bound that is merely
// "deep" can pass every test and still kill the process in production, or
// hold a gigabyte of stack while it works.
//
// The packages that run scripts call Main from their TestMain, so their
// tests, their recorded cases and their fuzzers' seed corpora (and, under
// go test -fuzz, the fuzzing workers, which run the same TestMain) all run
// with the stack capped at Max. A recursion that still depends on the
// default then fails the test run with "stack overflow" instead of passing.
package stackcap

import (
	"os"
	"runtime/debug"
	"testing"
)

// Max is the goroutine stack limit the capped packages' tests run with:
// 1/16 of Go's default. Of the recursions TestEveryRecursionBounded
// (luaeval) drives, the library ones (cjson, cmsgpack, the reply) fit in
// 8 MiB with the race detector; metamethods calling themselves through
// the VM need up to 32 MiB until calls nested in Go are bounded at Lua
// 5.1's 200.
const Max = 64 << 20

// Main caps the stack, then runs the tests: call it as
// func TestMain(m *testing.M) { stackcap.Main(m) }.
func Main(m *testing.M) {
	debug.SetMaxStack(Max)
	os.Exit(m.Run())
}

// Check fails t unless the stack is capped at Max, so a package's cap
// cannot go missing unnoticed (a TestMain deleted, or one that forgot to
// call Main).
func Check(t *testing.T) {
	t.Helper()
	if was := debug.SetMaxStack(Max); was != Max {
		debug.SetMaxStack(was)
		t.Fatalf("the test process's stack limit is %d bytes, want %d: its TestMain must call stackcap.Main", was, Max)
	}
}
