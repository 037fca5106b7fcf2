// Package seam is minilock's one reach into gopher-lua's unexported
// internals. No other package in minilock may touch them
// (internal/archtest enforces it); everything here is written against
// gopher-lua v1.1.2 and checked against the build at start-up.
//
// # The hooks
//
// Each hook exists because gopher-lua's exported API cannot give Lua 5.1's
// behaviour, or a bound on what a script can make it do:
//
//   - OP_CONCAT (concat.go). Replaces the VM's handler for `..`. Lua 5.1
//     turns numbers into text with "%.14g" (gopher-lua uses Go's shortest
//     form: 'x'..10/3, 'v='..1e15 differ), and the whole result is built in
//     one allocation that must be charged to the script before it happens.
//     Without it: number formatting differs from Redis, and a doubling loop
//     reaches gigabytes between two samples of the memory watchdog.
//   - Arithmetic (arith.go): OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD,
//     OP_POW and OP_UNM on numbers and numeric strings. Lua 5.1 reads
//     strings with strtod ("1e500" is inf, " 0x1A " is 26) and takes the
//     remainder as a - floor(a/b)*b; gopher-lua refuses overflowing
//     strings and uses fmod. Without it: such strings fail where Redis
//     computes, and remainders differ in the last digits and NaN signs.
//   - OP_FORPREP (forprep.go). Lua 5.1 checks a numeric for's initial
//     value, limit and step before the loop, converting strings to
//     numbers (`for i = '1', '3'` runs); gopher-lua refuses strings and
//     checks the limit only at the first iteration. Without it: such
//     loops fail where Redis runs them.
//   - Tables (table.go, tableops.go). gopher-lua's LTable grows its array
//     to any integer key below 2^26 (t[60000000] = 1 allocates a
//     gigabyte), walks trailing nils for `#`, honours __len, and iterates
//     in insertion order. table.go keeps Lua 5.1's layout (ltable.c: an
//     array part sized at rehash, hash nodes placed by Lua's hashes) in
//     the LTable's own fields, with luaH_getn and luaH_next over it; the
//     VM's NEWTABLE, SETLIST, GETTABLE (number keys), SETTABLE,
//     SETTABLEKS and LEN go through it, charging every resize to the
//     script first. Without it: allocations sized by a key, quadratic
//     stacks, and borders and iteration orders that differ from Redis's
//     (redis.setresp(3) maps come back in another order).
//   - Frame program counter (frame.go). Lua 5.1 names the variable in type
//     errors ("attempt to index local 'x' (a nil value)"); the instruction
//     being run is only in the unexported callFrame.Pc. Without it: the
//     shorter message without the variable's name.
//   - Function prototypes (proto.go). gopher-lua's VM reads global names
//     from the unexported FunctionProto.stringConstants; minilock's own
//     compiler must fill it. Without it: that compiler cannot be used and
//     gopher-lua's compiler (quadratic, recursive) compiles instead, behind
//     stricter size and nesting limits.
//   - Call stacks (costack.go): OP_CALL and OP_TAILCALL, and NewThread.
//     gopher-lua allocates a thread's whole call stack up front (160 KB
//     for 2,000 frames; its growing kind preallocates a slot per frame
//     and cannot report overflow) and builds a whole global state for
//     every coroutine only to drop it. NewThread makes a thread as Lua
//     5.1 does (about 2 KB), and the hooks grow its call stack before
//     each call, stopping it at Lua's limit with "stack overflow".
//     Without it: 3,000 suspended coroutines exhausted the memory limit
//     that Redis runs 20,000 of in 30 MB.
//   - Metamethods as C calls (ccalls.go): OP_GETTABLEKS, OP_SELF, OP_EQ,
//     OP_LT, OP_LE, OP_TFORLOOP, and the metamethod calls of the hooks
//     above. Lua 5.1 calls a metamethod (and the generic for's iterator)
//     through luaD_call, counted against LUAI_MAXCCALLS and not to be
//     yielded across. Without it: a recursive __index function recursed
//     20,000 levels deep in Go and ended with "stack overflow" where
//     Redis says "C stack overflow" after 200, and a yield inside a
//     metamethod was let through.
//   - Registers (frame.go). The hooks above read and write the running
//     function's registers as the VM's own handlers do.
//
// # The check
//
// Before any hook is used, Enabled checks that the gopher-lua in the build
// is v1.1.2 as a module (not replaced), and that the layout of every
// internal struct read here (LTable, LState, registry, callFrame, Debug,
// FunctionProto, and the growing call stack with its segments) is the one
// mirrored in mirror.go and costack.go, field by field. If
// either differs, or the environment sets MINILOCK_GOPHERLUA_HOOKS=off, no
// hook is installed: gopher-lua runs as shipped, and minilock keeps its
// limits through the safe paths (the memory watchdog, the kill flag polled
// between instructions, stricter compile limits), with the differences
// from Lua 5.1 that gopher-lua has. Why tells the reason, and the engine
// logs it.
package seam

import (
	"os"
	"runtime/debug"
	"sync"

	"github.com/minilock/minilock/luaeval/internal/lauxlib"
)

// Version is the gopher-lua release the hooks were written for.
const Version = "v1.1.2"

const modulePath = "github.com/yuin/gopher-lua"

var (
	checkOnce sync.Once
	enabled   bool
	why       string
)

// Enabled reports whether the hooks can be used with the gopher-lua in this
// build, and installs them the first time it is called with a yes.
func Enabled() bool {
	checkOnce.Do(func() {
		why = check()
		enabled = why == ""
		if enabled {
			install()
		}
	})
	return enabled
}

// Why says why the hooks are off ("" when they are on).
func Why() string {
	Enabled()
	return why
}

func check() string {
	if v := os.Getenv("MINILOCK_GOPHERLUA_HOOKS"); v == "off" {
		return "MINILOCK_GOPHERLUA_HOOKS=off"
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			if m.Path != modulePath {
				continue
			}
			if m.Replace != nil {
				return modulePath + " is replaced by " + m.Replace.Path + " " + m.Replace.Version + "; the hooks were written for " + Version
			}
			if m.Version != Version {
				return modulePath + " is " + m.Version + "; the hooks were written for " + Version
			}
		}
	}
	if msg := checkLayout(); msg != "" {
		return msg
	}
	return checkGrowStack()
}

// install puts every VM hook in place (see the package doc).
func install() {
	lauxlib.NumberBox = NumberIn
	installConcat()
	installForPrep()
	installArith()
	installTables()
	installCallStacks()
	installCCalls()
}
