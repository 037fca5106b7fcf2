package luaeval

import (
	"sync"

	lua "github.com/yuin/gopher-lua"

	"github.com/minilock/minilock/luaeval/internal/lauxlib"
	"github.com/minilock/minilock/luaeval/internal/luac"
	"github.com/minilock/minilock/luaeval/internal/seam"
)

// coroutineLib is Lua 5.1's coroutine library (lbaselib.c) on gopher-lua's
// threads: create and wrap build threads with stacks that grow (see
// seam.NewThread) and the run's own context; resume, wrap and yield give Lua 5.1's messages
// and refuse what Lua 5.1 refuses (yielding from the main script or across
// a pcall, a metamethod or any other C boundary).
func (sb *sandbox) coroutineLib(t *lua.LTable) {
	origCreate := t.RawGetString("create").(*lua.LFunction)
	origResume := t.RawGetString("resume").(*lua.LFunction).GFunction
	origYield := t.RawGetString("yield").(*lua.LFunction).GFunction
	create := func(L *lua.LState) *lua.LState {
		fn := L.Get(1)
		if f, ok := fn.(*lua.LFunction); !ok || f.IsG {
			lauxlib.ArgError(L, 1, "Lua function expected")
		}
		// seam.NewThread makes a thread whose call stack grows from
		// one segment up to coFreshCalls frames, with a value stack of
		// coRegInitial slots that grows: what Lua 5.1 allocates for a
		// coroutine, about 2 KB, with the run's own context.
		if co := seam.NewThread(L, sb.coStart(L, fn.(*lua.LFunction)), lua.Options{
			CallStackSize:    coFreshCalls,
			RegistrySize:     coRegInitial,
			RegistryGrowStep: coRegInitial,
			RegistryMaxSize:  regMax,
		}); co != nil {
			return co
		}
		// Without the hooks: gopher-lua's thread, with a fixed call
		// stack of coFixedCalls frames allocated whole.
		saved := L.Options
		L.Options = lua.Options{CallStackSize: coFixedCalls, RegistrySize: 256, RegistryGrowStep: 256, RegistryMaxSize: regMax}
		// NewThread would derive the thread's context from L's with
		// context.WithCancel, whose cancel can run after the run has ended
		// and then panics (see runCtx). Without a context it derives none,
		// and the thread is given the run's context itself: a kill reaches
		// it with nothing to cancel.
		ctx := L.RemoveContext()
		defer func() {
			L.Options = saved
			L.SetContext(ctx)
		}()
		L.Push(origCreate)
		L.Push(fn)
		L.Call(1, 1)
		co := L.Get(-1).(*lua.LState)
		L.Pop(1)
		co.SetContext(ctx)
		return co
	}
	// resume is luaB_auxresume: it resumes co with the nargs values on top
	// of L's stack and leaves in their place co's results (true) or its
	// error (false). co's status is checked first, then gopher-lua's
	// resume runs it.
	resume := func(L *lua.LState, co *lua.LState, nargs int) (ok bool) {
		if st := L.Status(co); st != "suspended" {
			L.Pop(nargs)
			L.Push(lua.LString("cannot resume " + st + " coroutine"))
			return false
		}
		// lua_setlevel and lua_resume: co counts its C calls on from
		// L's, one deeper; at the limit it is not resumed (and stays
		// suspended).
		b := lauxlib.Of(L)
		from := b.CCalls(L).N
		if from >= lauxlib.MaxCCalls {
			// resume_error leaves co's stack at its base: a coroutine
			// that never ran loses its function there, and is dead.
			if !seam.Started(co) {
				co.Dead = true
			}
			L.Pop(nargs)
			L.Push(lua.LString("C stack overflow"))
			return false
		}
		cc := b.CCalls(co)
		*cc = lauxlib.CCount{N: from + 1, Base: from + 1}
		base := L.GetTop() - nargs
		L.Insert(co, base+1)
		n := origResume(L)
		results := L.GetTop() - n
		ok = L.Get(results+1) == lua.LTrue
		if !ok {
			msg := L.Get(results + 2)
			if s, isStr := msg.(lua.LString); isStr {
				msg = lua.LString(translateRuntime(string(s)))
			}
			L.SetTop(base)
			L.Push(msg)
			return false
		}
		// Keep the results only.
		vals := make([]lua.LValue, n-1)
		for i := range vals {
			vals[i] = L.Get(results + 2 + i)
		}
		L.SetTop(base)
		for _, v := range vals {
			L.Push(v)
		}
		return true
	}
	sb.set(t, map[string]lua.LGFunction{
		"create": func(L *lua.LState) int {
			L.Push(create(L))
			return 1
		},
		"resume": func(L *lua.LState) int {
			co, ok := L.Get(1).(*lua.LState)
			if !ok {
				lauxlib.ArgError(L, 1, "coroutine expected")
			}
			L.Remove(1)
			if !resume(L, co, L.GetTop()) {
				L.Insert(lua.LFalse, L.GetTop())
				return 2
			}
			L.Insert(lua.LTrue, 1)
			return L.GetTop()
		},
		"wrap": func(L *lua.LState) int {
			co := create(L)
			L.Push(L.NewClosure(func(L *lua.LState) int {
				co := L.Get(lua.UpvalueIndex(1)).(*lua.LState)
				if !resume(L, co, L.GetTop()) {
					// luaB_auxwrap: a string error gets the caller's
					// position in front, and propagates. minilock's
					// memory error stays as it is everywhere else.
					msg := L.Get(-1)
					switch msg.(type) {
					case lua.LString, lua.LNumber:
						if msg != lua.LString(lauxlib.ErrNoMemory) {
							msg = lua.LString(lauxlib.Where(L, 1) + lauxlib.ToString(msg))
						}
					}
					L.Error(msg, 0)
				}
				return L.GetTop()
			}, co))
			return 1
		},
		"yield": func(L *lua.LState) int {
			// lua_yield: only a coroutine that is not inside a C boundary
			// since it was resumed may yield; the main script is called
			// through one (lua_pcall).
			if L.Parent == nil || lauxlib.InC(L) {
				L.Error(lua.LString("attempt to yield across metamethod/C-call boundary"), 0)
			}
			return origYield(L)
		},
		"status": func(L *lua.LState) int {
			co, ok := L.Get(1).(*lua.LState)
			if !ok {
				lauxlib.ArgError(L, 1, "coroutine expected")
			}
			L.Push(lua.LString(L.Status(co)))
			return 1
		},
	})
}

// coStartSrc is the function a coroutine starts in: it sets the thread's
// panic function (coPanic) and tail-calls the coroutine's own function, so
// that no frame or level is added. gopher-lua's resume sets a thread's
// panic function as it first runs it, so it cannot be set before.
const coStartSrc = "local f, init return function(...) init() return f(...) end"

// coStartProto is coStartSrc's inner function, compiled once for every
// sandbox: seam.SetTransparent knows one prototype.
var coStartProto = sync.OnceValue(func() *lua.FunctionProto {
	p, err := compileChunk([]byte(coStartSrc), "=coroutine", luac.Options{})
	if err != nil {
		panic("luaeval: the coroutine trampoline does not compile: " + err.Error())
	}
	seam.SetTransparent(p.FunctionPrototypes[0])
	return p.FunctionPrototypes[0]
})

// coStart returns the function a new coroutine of fn starts in (see
// coStartSrc).
func (sb *sandbox) coStart(L *lua.LState, fn *lua.LFunction) *lua.LFunction {
	p := coStartProto()
	if sb.coInit == nil {
		sb.coInit = L.NewFunction(func(L *lua.LState) int {
			L.Panic = sb.coPanic
			return 0
		})
	}
	start := L.NewFunctionFromProto(p)
	for i, name := range p.DbgUpvalues {
		uv := &lua.Upvalue{}
		uv.Close()
		if name == "f" {
			uv.SetValue(fn)
		} else {
			uv.SetValue(sb.coInit)
		}
		start.Upvalues[i] = uv
	}
	return start
}

// coPanic is a coroutine's panic function, called where an error is
// raised, its frames intact: the error gets Lua 5.1's wording with the
// variable's name, as pcallRun and runScript give it on the main thread
// (the coroutine's frames are gone by the time resume sees the error).
// It then unwinds as gopher-lua's own (panicWithoutTraceback) does.
func (sb *sandbox) coPanic(L *lua.LState) {
	obj := sb.nameVariables(L, goArgError(L, L.Get(-1)), 0)
	panic(&lua.ApiError{Type: lua.ApiErrorRun, Object: obj})
}
