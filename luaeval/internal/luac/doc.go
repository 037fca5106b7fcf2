// Package luac compiles Lua 5.1 source straight to gopher-lua prototypes:
// a Go port of Lua 5.1.5's lexer, parser and code generator (llex.c,
// lparser.c, lcode.c, as Redis 7.0.15 ships them in deps/lua), emitting
// the bytecode gopher-lua v1.1.2's VM runs.
//
// # Why not gopher-lua's compiler
//
// gopher-lua parses into a syntax tree (goyacc) and compiles it by
// recursion. On hostile input that is unsafe and on large input wrong: its
// compile time is quadratic (a sum of 8,000 terms takes 0.65 s), a table
// constructor keeps only its first 25,550 items, and a left-nested chain of
// a few megabytes (f()()()..., a one-line sum) overflows Go's stack, which
// kills the process. Lua 5.1 compiles in one pass with no tree: a chain is
// a loop, every recursion goes through a syntax level, and there are at
// most 200 of those. This package does the same, so compile time and
// memory are linear in the source's size, and every compile error reads as
// Redis's ("user_script:1: '=' expected near 'x'").
//
// # Lua 5.1's limits, with Lua's messages
//
//   - 200 syntax levels (LUAI_MAXCCALLS): "chunk has too many syntax
//     levels"; counted from Options.CallDepth, as Lua counts from the C
//     calls already open.
//   - 200 active locals per function: "main function has more than 200
//     local variables", "function at line N has more than 200 ...".
//   - 60 upvalues per function: "function at line N has more than 60
//     upvalues".
//   - Variables on the left of one assignment: 200 less the syntax levels
//     in use ("... variables in assignment").
//   - 250 registers per function: "function or expression too complex".
//   - Jumps of at most 131,071 instructions: "control structure too long".
//   - 262,143 constants and 262,143 nested functions per function:
//     "constant table overflow" (no position: Lua raises it as a run-time
//     error, and Redis compiles from C).
//   - 32,767 local variable declarations per function: "too many local
//     variables" (the same).
//
// # What gopher-lua's VM gets
//
// gopher-lua's instruction set is Lua 5.1's with four more opcodes
// (MOVEN, GETTABLEKS, SETTABLEKS, NOP) and different numbers; its
// encoding is Lua's. The code is Lua 5.1's instruction for instruction,
// except that a table read or write with a string constant key is
// OP_GETTABLEKS / OP_SETTABLEKS, as gopher-lua's own compiler emits it
// (the VM's fast path; the engine's specialize.go and varinfo.go read
// those patterns). The semantics gopher-lua's VM gives each instruction
// (TFORLOOP followed by its jump, FORPREP/FORLOOP, CLOSURE's MOVE and
// GETUPVAL pseudo-instructions, SETLIST with C=0 and the block number in
// the next word, LOADNIL's range, the B=0 and C=0 counts of CALL,
// TAILCALL, RETURN and VARARG, TEST/TESTSET) are Lua's, with two
// exceptions below. NEWTABLE's B and C
// are Lua's "floating point byte" sizes (luaO_int2fb).
//
// Two of the VM's semantics differ from Lua's where Lua's code relies on
// them, and the code generator allows for both: OP_VARARG with B > 0 sets
// the stack top to its last register and clears every register above, so
// a single '...' stored below the stack top is loaded into a free
// register and moved (one MOVE more than Lua, only there); OP_TAILCALL
// moves the callee's frame one register short, so NumUsedRegisters is
// Lua's maxstacksize plus a spare register for it to leave behind.
//
// Prototypes carry what gopher-lua's runtime reads: NumUsedRegisters
// (maxstacksize + 1), IsVarArg (Lua's VARARG_* bits, which are gopher-lua's:
// a vararg function has Lua 5.1's implicit 'arg' local), line numbers per
// instruction (Lua's), locals with Lua's [startpc, endpc) ranges, upvalue
// names, and DbgCalls: one entry per CALL, TAILCALL and TFORLOOP with the
// name ldebug.c's getfuncname gives the called function ("insert",
// "(for generator)", "?"), which gopher-lua uses in "bad argument #1 to
// 'insert'". gopher-lua's VM reads global names and string keys from the
// unexported FunctionProto.stringConstants; Compile fills it through
// seam.SetStringConstants.
//
// # Without the hooks
//
// When seam.Enabled is false, stringConstants cannot be filled and the
// prototypes cannot run. Compile then still compiles the source, so that
// errors are Lua's, measures its Shape, and returns ErrNoHooks; the caller
// compiles with gopher-lua. gopher-lua's compiler is only safe on small,
// shallow sources, so before that Compile refuses, with an *Error that
// says which, a source past FallbackLimits:
//
//   - longer than 256 KiB;
//   - nested deeper than 500, counting each syntax level and each link of
//     a chain (operators, calls and indexing, elseifs);
//   - a table constructor of more than 10,000 items;
//   - a function with more than 2,000 constants.
//
// Within them gopher-lua's compiler takes under a second (2 cores), time
// in which a compile cannot be interrupted.
//
// # The lexer
//
// llex.c as it is, quirks included: a NUL byte is a token of its own and
// errors near it name no token; check_next's strchr takes a NUL byte as a
// match ("1\0" is the number 1). One difference from Redis 7.0.15's
// deps/lua: a "[[" inside a long string is text, not the error "nesting of
// [[...]] is deprecated", because the redis-server minilock is checked
// against (the distribution's 7.0.15 build) accepts it.
//
// # Interrupts
//
// Options.Interrupt is called every Options.InterruptEvery tokens and its
// error ends the compile: loadstring polls the script's budget with it
// (SCRIPT KILL, SHUTDOWN NOSAVE, the memory watchdog), and the engine can
// do the same for EVAL, as compiling counts as running a script.
package luac
