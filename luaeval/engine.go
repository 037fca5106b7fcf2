// Package luaeval runs Redis 7.0 scripts (EVAL, EVALSHA, SCRIPT) on gopher-lua.
//
// One Engine owns one sandboxed Lua state and the script cache. Everything
// except Kill, KillForShutdown and BusyChan runs on the keyspace owner
// goroutine, exactly like Redis runs scripts on its main thread: a script is
// atomic because nothing else touches the keyspace while it runs.
//
// The replies, error texts and sandbox follow Redis 7.0.15 (eval.c, script.c,
// script_lua.c); where gopher-lua cannot match Lua 5.1 byte for byte the
// difference is listed in docs/differences.md.
//
// This package is the engine: the sandbox (sandbox.go, baselib.go,
// coroutine.go, method.go), the script cache and compile path (cache.go,
// compile.go, shebang.go, specialize.go, native.go), running a script
// within its limits (run.go, control.go: busy, SCRIPT KILL, the memory
// watchdog), Redis 7.0 functions (function.go: FUNCTION LOAD's libraries
// on a Lua state of their own, FCALL; functiondump.go: FUNCTION DUMP and
// RESTORE), redis.* (redislib.go) and the conversions between Lua values,
// replies and Redis's error texts (toresp.go, fromresp.go, errors.go,
// varinfo.go). What it builds on
// lives under internal/: the Lua 5.1 library ports it installs (lstrlib and
// its string table lstrlib/strlib, ltablib, lmathlib, lbit, lstruct,
// lcjson, lcmsgpack), what they share (lauxlib), the Lua 5.1 compiler
// (luac), and seam, the one package that reaches into gopher-lua's
// internals.
package luaeval

import (
	"bytes"
	"sync"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/minilock/minilock/internal/redisstr"
	"github.com/minilock/minilock/luaeval/internal/lauxlib"
	"github.com/minilock/minilock/luaeval/internal/lmathlib"
	"github.com/minilock/minilock/luaeval/internal/seam"
	"github.com/minilock/minilock/resp"
)

// Host runs the commands a script calls; the server implements it, on the
// keyspace owner goroutine. Call looks the command up, checks arity, refuses
// commands Redis forbids in scripts and, when readOnly, write commands (each
// with Redis's message, written as an error reply into w), runs the command
// on the script's database at the script's frozen time, and appends exactly
// one reply to w, in protocol w.Proto (2 or 3 — the engine sets w.Proto to
// what the script chose with redis.setresp before each call). It returns true
// when the command is a write command that was accepted to run (then SCRIPT
// KILL answers UNKILLABLE).
//
// args (and the bytes they point to) belong to the engine and are reused
// after Call returns: Call must copy what it keeps and must not write into
// them.
type Host interface {
	Call(args [][]byte, readOnly bool, w *resp.Writer) (write bool)
}

// CommandChecker is optionally implemented by a Host for
// redis.acl_check_cmd: Known reports whether args[0] names a command, and
// Permitted whether the script's user may run args. A Host without it
// makes acl_check_cmd answer true for every command.
type CommandChecker interface {
	Known(args [][]byte) bool
	Permitted(args [][]byte) bool
}

// Config holds the engine's limits. The zero value is usable.
type Config struct {
	// BusyThreshold is busy-reply-threshold (lua-time-limit): once a script
	// has run this long, BusyChan is closed. 5 s when 0.
	BusyThreshold time.Duration
	// Log receives redis.log lines (LOG_DEBUG=0 .. LOG_WARNING=3) and the
	// engine's own warnings (at LOG_WARNING). nil discards them. It is
	// called on the owner goroutine, except for warnings from the watchdog.
	Log func(level int, msg string)
	// ScriptCacheBytes bounds what the script cache may hold (compiled
	// scripts, counted as ScriptCacheUsed counts them). Like Redis 7.0 the
	// cache keeps every script until SCRIPT FLUSH; past this bound a new
	// script is refused with an error, and loaded ones stay. 512 MiB when 0;
	// negative for no bound.
	ScriptCacheBytes int64
	// MemoryLimit is how far a running script may grow the Go heap (live
	// and not yet collected objects) before it is stopped with
	// "not enough memory". 256 MiB when 0; negative disables the check.
	// What the script writes to the data is not counted (see DataBytes):
	// the limit is the Lua heap's, minilock's own protection, and a script
	// is never cut in the middle for the data it writes.
	MemoryLimit int64
	// DataBytes, when set, reports how many bytes the data holds (any
	// goroutine). The watchdog subtracts its growth during a run from the
	// heap's growth, so that keys a script writes are not charged to its
	// Lua memory.
	DataBytes func() int64
	// MaxStringBytes caps a single string built in one step (`..`,
	// string.rep, string.format, table.concat, cjson.encode, load), so no
	// single step can allocate without bound before the watchdog looks: it
	// fails with "not enough memory" first. Lua's own limit is the memory.
	// 128 MiB when 0.
	MaxStringBytes int
	// MaxReplyBytes caps the reply a script returns; past it the script
	// (which has run) is answered "not enough memory for the script's
	// reply". A small table can stand for a reply of any size (one string
	// or table referenced many times); Redis builds it whole. Building a
	// reply takes about three times its size in heap, so the default keeps
	// it within the default MemoryLimit. 64 MiB when 0.
	MaxReplyBytes int
	// WhileBusy, when set, is called on the owner goroutine between Lua
	// instructions (every busyServeEvery of them) while a script runs past
	// BusyThreshold: the server's event loop answers other clients from it,
	// as Redis's processEventsWhileBlocked does from the Lua hook. It must
	// not run a script or touch the data; it may call Kill.
	WhileBusy func()
}

const (
	defaultBusyThreshold  = 5 * time.Second
	defaultScriptCache    = 512 << 20
	defaultMemoryLimit    = 256 << 20
	defaultMaxStringBytes = 128 << 20
	defaultMaxReplyBytes  = 64 << 20
)

// Engine is the scripting engine: a sandboxed Lua state, the script cache and
// the watchdog that implements BUSY, SCRIPT KILL and the memory limit.
type Engine struct {
	cfg Config

	sb    *sandbox // made by the first script run (see sandbox)
	cache scriptCache
	fn    functions // FUNCTION LOAD's libraries and their Lua state (function.go)

	// run is the state of the script being run; valid while running.
	run runState

	ctl control
	rng lmathlib.Rand // math.random's generator, shared by all scripts

	// scratch buffers reused across runs and calls (owner goroutine only).
	callW resp.Writer
	argv  [][]byte
	// interned holds the running script's first KEYS and ARGV strings
	// (see noteArgs).
	interned []lua.LValue
	// replyStrs are short strings of earlier replies, given again for
	// the same bytes (internedBulk).
	replyStrs *lauxlib.Interner // made by the first reply that needs it
	argBuf    []byte
	offs      []int
	closeMu   sync.Once
}

// runState is what the redis.* functions need to know about the running
// script.
type runState struct {
	sha      [40]byte
	host     Host
	readOnly bool
	resp     int // protocol chosen with redis.setresp (2 by default)
	active   bool
}

// New returns an Engine with the limits in cfg.
func New(cfg Config) *Engine {
	if cfg.BusyThreshold <= 0 {
		cfg.BusyThreshold = defaultBusyThreshold
	}
	if cfg.ScriptCacheBytes == 0 {
		cfg.ScriptCacheBytes = defaultScriptCache
	}
	if cfg.MemoryLimit == 0 {
		cfg.MemoryLimit = defaultMemoryLimit
	}
	if cfg.MaxStringBytes <= 0 {
		cfg.MaxStringBytes = defaultMaxStringBytes
	}
	if cfg.MaxReplyBytes <= 0 {
		cfg.MaxReplyBytes = defaultMaxReplyBytes
	}
	e := &Engine{cfg: cfg, rng: lmathlib.NewRand()}
	if !seam.Enabled() {
		e.log(3, "Lua runs without minilock's gopher-lua hooks ("+seam.Why()+"): scripts keep their limits, with gopher-lua's differences from Lua 5.1")
	}
	e.cache.init(cfg.ScriptCacheBytes)
	e.ctl.init(e)
	go e.ctl.monitor()
	return e
}

// sandbox returns the Lua state, made on first use: building it (the
// libraries, the read-only proxies) is most of what starting a server
// costs, and a server embedded in a test may never run a script. Owner
// goroutine only.
func (e *Engine) sandbox() *sandbox {
	if e.sb == nil {
		e.sb = newSandbox(e)
	}
	return e.sb
}

// Close stops the watchdog and releases the Lua state. The Engine must not be
// used afterwards.
func (e *Engine) Close() {
	e.closeMu.Do(func() {
		e.ctl.stop()
		if e.sb != nil {
			e.sb.L.Close()
		}
		if e.fn.sb != nil {
			e.fn.sb.L.Close()
		}
		e.cache.flush()
	})
}

// Eval runs EVAL (EVAL_RO when readOnly). args are the command's arguments
// after its name: script numkeys [key ...] [arg ...]. It appends the reply to
// w (w.Proto is the caller's protocol, 2 or 3) and returns nil, or returns
// the error to reply with and writes nothing.
func (e *Engine) Eval(w *resp.Writer, args [][]byte, readOnly bool, h Host) error {
	if len(args) < 2 {
		return resp.ErrWrongArgs(evalName(readOnly, false))
	}
	nkeys, err := numKeys(args)
	if err != nil {
		return err
	}
	sha := sha1Hex(args[0])
	if s := e.cache.get(sha[:]); s != nil {
		return e.exec(w, s, args[2:2+nkeys], args[2+nkeys:], readOnly, h, false)
	}
	// A new script: compiling it is part of running it (BUSY, SCRIPT KILL
	// and the memory watchdog apply from here), so the run starts now.
	e.ctl.begin(false)
	s, err := e.compile(args[0], sha)
	if err != nil {
		e.ctl.end()
		return err
	}
	return e.exec(w, s, args[2:2+nkeys], args[2+nkeys:], readOnly, h, true)
}

// EvalSHA runs EVALSHA (EVALSHA_RO when readOnly); see Eval. An unknown SHA1
// (in any letter case) gets NOSCRIPT.
func (e *Engine) EvalSHA(w *resp.Writer, args [][]byte, readOnly bool, h Host) error {
	if len(args) < 2 {
		return resp.ErrWrongArgs(evalName(readOnly, true))
	}
	if len(args[0]) != 40 {
		// No SHA1 has another length: evalShaCommand answers before
		// numkeys is even parsed.
		return resp.ErrNoScript
	}
	nkeys, err := numKeys(args)
	if err != nil {
		return err
	}
	s := e.cache.get(args[0])
	if s == nil {
		return resp.ErrNoScript
	}
	return e.exec(w, s, args[2:2+nkeys], args[2+nkeys:], readOnly, h, false)
}

// ScriptOOM reads an EVAL's (sha false) or EVALSHA's script flags as
// Redis does before running it (eval.c:evalGetCommandFlags): deny is set
// for a script with a shebang that declares neither allow-oom nor
// no-writes, which out of memory is refused before it runs
// (scriptFlagsToCmdFlags gives it denyoom); allow for one that declares
// allow-oom, whose commands then run out of memory too. A script without
// a shebang, an unknown SHA1 or a bad shebang is neither: its commands
// are judged as it runs. args are the command's arguments after its name.
func (e *Engine) ScriptOOM(args [][]byte, sha bool) (deny, allow bool) {
	flags, ok := e.scriptFlags(args, sha)
	if !ok {
		return false, false
	}
	return flags&(flagAllowOOM|flagNoWrites) == 0, flags&flagAllowOOM != 0
}

// ScriptWrites reads an EVAL's or EVALSHA's script flags as ScriptOOM does
// and reports whether the script is a write command to Redis before it
// runs: one with a shebang that does not declare no-writes
// (scriptFlagsToCmdFlags gives it CMD_WRITE). A script without a shebang
// is judged by the commands it calls.
func (e *Engine) ScriptWrites(args [][]byte, sha bool) bool {
	flags, ok := e.scriptFlags(args, sha)
	return ok && flags&flagNoWrites == 0
}

// scriptFlags returns the shebang flags of the script args name (its body,
// or with sha its SHA1); ok is false without a readable shebang.
func (e *Engine) scriptFlags(args [][]byte, sha bool) (flags int, ok bool) {
	if len(args) == 0 {
		return 0, false
	}
	if sha {
		s := e.cache.get(args[0])
		if len(args[0]) != 40 || s == nil || !s.shebang {
			return 0, false
		}
		return boolFlag(s.noWrites, flagNoWrites) | boolFlag(s.allowOOM, flagAllowOOM), true
	}
	// The shebang is in the body: no hashing to find the script.
	if !bytes.HasPrefix(args[0], []byte("#!")) {
		return 0, false
	}
	f, _, err := parseShebang(args[0])
	if err != nil {
		return 0, false
	}
	return f, true
}

func boolFlag(b bool, f int) int {
	if b {
		return f
	}
	return 0
}

// Load is SCRIPT LOAD: it compiles body, caches it and returns its lower-case
// SHA1 in hex.
func (e *Engine) Load(body []byte) (string, error) {
	sha := sha1Hex(body)
	if e.cache.get(sha[:]) == nil {
		// Compiling counts as running a script (see Eval).
		e.ctl.begin(false)
		_, err := e.compile(body, sha)
		e.ctl.end()
		if err != nil {
			return "", err
		}
	}
	return string(sha[:]), nil
}

// Exists is SCRIPT EXISTS for one SHA1 (the lookup ignores letter case).
func (e *Engine) Exists(sha []byte) bool {
	k, ok := shaKey(sha)
	return ok && e.cache.m[k] != nil
}

// ScriptCacheUsed reports the script cache's size: how many scripts it
// holds and its estimate of their bytes (INFO's number_of_cached_scripts
// and used_memory_scripts_eval). Owner goroutine only.
func (e *Engine) ScriptCacheUsed() (scripts int, bytes int64) {
	return e.cache.len(), e.cache.bytes
}

// Flush is SCRIPT FLUSH: it empties the cache so the compiled scripts can be
// collected. Redis also makes a new Lua state, whose call limit starts
// where a fresh one's does (see luaFreshCalls).
func (e *Engine) Flush() {
	e.cache.flush()
	if e.sb != nil {
		e.sb.overflowed = false
		seam.SetCallLimit(e.sb.L, luaFreshCalls)
	}
}

// Kill is SCRIPT KILL, callable from any goroutine. It returns nil when the
// running script will stop (its caller then gets Redis's "Script killed by
// user with SCRIPT KILL..." error), or the *resp.Error with Redis's exact
// NOTBUSY or UNKILLABLE reply. It stops a script whether or not it has
// already run for BusyThreshold; the server only offers SCRIPT KILL to
// clients that were answered BUSY, as Redis does.
func (e *Engine) Kill() error { return e.ctl.killKind(false) }

// KillForShutdown stops the running script even if it has written (SHUTDOWN
// NOSAVE). It does nothing when no script runs.
func (e *Engine) KillForShutdown() { _ = e.ctl.kill(true) }

// BusyChan returns a channel that is closed while a script has been running
// longer than BusyThreshold (it is already closed if one is busy now).
// Connection goroutines select on it so they stop waiting for the owner and
// answer -BUSY themselves. After the busy script ends, later calls return a
// fresh open channel.
func (e *Engine) BusyChan() <-chan struct{} { return e.ctl.busyChan() }

// SetBusyThreshold changes busy-reply-threshold (CONFIG SET), from any
// goroutine: a script already running becomes busy once it has run for the
// new threshold. Zero makes every script busy at the monitor's next tick.
func (e *Engine) SetBusyThreshold(d time.Duration) { e.ctl.threshold.Store(int64(max(d, 0))) }

// BusyThreshold returns busy-reply-threshold.
func (e *Engine) BusyThreshold() time.Duration { return time.Duration(e.ctl.threshold.Load()) }

// Running reports whether a script is executing (any goroutine).
func (e *Engine) Running() bool { return e.ctl.state.Load() != stIdle }

func evalName(ro, sha bool) string {
	switch {
	case ro && sha:
		return "evalsha_ro"
	case sha:
		return "evalsha"
	case ro:
		return "eval_ro"
	}
	return "eval"
}

// numKeys parses and checks EVAL's numkeys the way eval.c:evalGenericCommand
// does, before the script is looked up or compiled.
func numKeys(args [][]byte) (int, error) {
	n, ok := redisstr.ParseInt(args[1])
	if !ok {
		return 0, resp.ErrNotInteger
	}
	if n > int64(len(args)-2) {
		return 0, resp.NewError("Number of keys can't be greater than number of args")
	}
	if n < 0 {
		return 0, resp.NewError("Number of keys can't be negative")
	}
	return int(n), nil
}

// log sends a line to Config.Log when one is set.
func (e *Engine) log(level int, msg string) {
	if e.cfg.Log != nil {
		e.cfg.Log(level, msg)
	}
}
