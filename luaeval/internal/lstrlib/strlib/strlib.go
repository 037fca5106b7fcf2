// Package strlib is Lua 5.1's string table as scripts see it (lstrlib.c's
// library functions: byte, char, find, format, gmatch, gsub, len, lower,
// match, rep, reverse, sub, upper and dump's stand-in), over gopher-lua. It
// turns Lua arguments into calls of the pattern matcher and format of
// luaeval/internal/lstrlib, which know nothing of gopher-lua, and adds the
// position to their errors as luaL_error does.
package strlib

import (
	"errors"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/minilock/minilock/luaeval/internal/lauxlib"
	"github.com/minilock/minilock/luaeval/internal/lstrlib"
	"github.com/minilock/minilock/luaeval/internal/seam"
)

// Open fills t, gopher-lua's string table in L, with Lua 5.1's string
// library (lstrlib.c) as Redis ships it: every function of gopher-lua's is
// replaced.
func Open(L *lua.LState, t *lua.LTable) {
	gmatch := L.NewFunction(strGmatch)
	t.RawSetString("gmatch", gmatch)
	t.RawSetString("gfind", gmatch) // LUA_COMPAT_GFIND: the same function
	for k, f := range map[string]lua.LGFunction{
		"byte":    strByte,
		"char":    strChar,
		"dump":    strDump,
		"find":    func(L *lua.LState) int { return strFindAux(L, true) },
		"format":  strFormat,
		"gsub":    strGsub,
		"len":     func(L *lua.LState) int { L.Push(lauxlib.Number(L, len(lauxlib.CheckString(L, 1)))); return 1 },
		"lower":   func(L *lua.LState) int { return strMap(L, &lowerTab) },
		"match":   func(L *lua.LState) int { return strFindAux(L, false) },
		"rep":     strRep,
		"reverse": strReverse,
		"sub":     strSub,
		"upper":   func(L *lua.LState) int { return strMap(L, &upperTab) },
	} {
		t.RawSetString(k, L.NewFunction(f))
	}
}

// raiseStr raises what the matcher or format returned: their luaL_error
// messages with the position, the memory error and the kill error as the
// engine raises them.
func raiseStr(L *lua.LState, err error) {
	var le lstrlib.Error
	switch {
	case errors.As(err, &le):
		lauxlib.Error(L, string(le))
	case errors.Is(err, lstrlib.ErrNoMemory):
		lauxlib.NoMemory(L)
	default:
		L.RaiseError("%s", err.Error())
	}
}

// posrelat turns a relative string position (negative: from the end)
// into an absolute one, 0 for one before the start.
func posrelat(pos int64, n int) int64 {
	if pos < 0 {
		pos += int64(n) + 1
	}
	if pos >= 0 {
		return pos
	}
	return 0
}

func strSub(L *lua.LState) int {
	s := lauxlib.CheckString(L, 1)
	start := posrelat(lauxlib.CheckInteger(L, 2), len(s))
	end := posrelat(lauxlib.OptInteger(L, 3, -1), len(s))
	if start < 1 {
		start = 1
	}
	if end > int64(len(s)) {
		end = int64(len(s))
	}
	if start > end {
		L.Push(lua.LString(""))
		return 1
	}
	L.Push(lua.LString(s[start-1 : end]))
	return 1
}

func strReverse(L *lua.LState) int {
	s := lauxlib.CheckString(L, 1)
	lauxlib.Alloc(L, len(s))
	b := make([]byte, len(s))
	for i := range len(s) {
		b[len(s)-1-i] = s[i]
	}
	L.Push(lua.LString(b))
	return 1
}

// strMap is str_lower and str_upper: each byte through the C locale's
// tolower or toupper (bytes past ASCII stay as they are), read from tab.
func strMap(L *lua.LState, tab *[256]byte) int {
	s := lauxlib.CheckString(L, 1)
	lauxlib.Alloc(L, len(s))
	// The string and its bytes in one allocation (a []byte, then its
	// string's copy and that string's box, were three).
	v, b := seam.NewString(len(s))
	for i := 0; i < len(s); {
		if i > 0 {
			lauxlib.Poll(L) // every MiB
		}
		end := min(len(s), i+1<<20)
		for ; i < end; i++ {
			b[i] = tab[s[i]]
		}
	}
	L.Push(v)
	return 1
}

// lowerTab and upperTab are tolower and toupper of every byte.
var lowerTab, upperTab = func() (lo, up [256]byte) {
	for c := range 256 {
		lo[c], up[c] = lstrlib.ToLower(byte(c)), lstrlib.ToUpper(byte(c))
	}
	return lo, up
}()

// strRep is str_rep. The copies are made by doubling what is already
// there, so a long result takes a few large copies (each a poll apart),
// not one append per repetition.
func strRep(L *lua.LState) int {
	s := lauxlib.CheckString(L, 1)
	n := lauxlib.CheckInt(L, 2)
	if n <= 0 || len(s) == 0 {
		L.Push(lua.LString(""))
		return 1
	}
	total := int64(len(s)) * int64(n)
	if total > int64(^uint(0)>>1) {
		lauxlib.NoMemory(L)
	}
	lauxlib.Alloc(L, int(total))
	b := make([]byte, total)
	done := copy(b, s)
	for done < len(b) {
		lauxlib.Poll(L)
		done += copy(b[done:], b[:min(done, 8<<20)])
	}
	L.Push(lua.LString(lstrlib.Owned(b)))
	return 1
}

func strByte(L *lua.LState) int {
	// The common call, string.byte(s, i) of a string and a number: one
	// byte or none, each argument fetched once (CheckString and
	// OptInteger fetch each again, a fifth of a loop's string.byte). What
	// the general path below computes for it: pose is posi, so the byte
	// at posi when 1 <= posi <= #s, else nothing; two arguments leave the
	// stack far from MaxCStack.
	if L.GetTop() == 2 {
		if s, ok := L.Get(1).(lua.LString); ok {
			if i, ok := L.Get(2).(lua.LNumber); ok {
				posi := posrelat(lauxlib.ToInteger(float64(i)), len(s))
				if posi < 1 || posi > int64(len(s)) {
					return 0
				}
				L.Push(lauxlib.Number(L, s[posi-1]))
				return 1
			}
		}
	}
	s := lauxlib.CheckString(L, 1)
	posi := posrelat(lauxlib.OptInteger(L, 2, 1), len(s))
	pose := posrelat(lauxlib.OptInteger(L, 3, posi), len(s))
	if posi <= 0 {
		posi = 1
	}
	if pose > int64(len(s)) {
		pose = int64(len(s))
	}
	if posi > pose {
		return 0
	}
	n := int(int32(pose - posi + 1))
	if posi+int64(n) <= pose {
		lauxlib.Error(L, "string slice too long")
	}
	lauxlib.CheckStack(L, n, "string slice too long")
	for i := 0; i < n; i++ {
		L.Push(lauxlib.Number(L, s[posi-1+int64(i)]))
	}
	return n
}

func strChar(L *lua.LState) int {
	n := L.GetTop()
	b := make([]byte, 0, n)
	for i := 1; i <= n; i++ {
		c := lauxlib.CheckInt(L, i)
		if c != int(byte(c)) {
			lauxlib.ArgError(L, i, "invalid value")
		}
		b = append(b, byte(c))
	}
	L.Push(lua.LString(b))
	return 1
}

// strDump returns a stand-in for Lua bytecode: Redis refuses to load binary
// chunks, so all a script can do with it is fail to load it, which ours does
// with the same message.
func strDump(L *lua.LState) int {
	f := L.CheckFunction(1)
	if f.IsG {
		lauxlib.Error(L, "unable to dump given function")
	}
	L.Push(lua.LString("\x1bLuaQ\x00\x01\x04\x08\x04\x08\x00"))
	return 1
}

// noSpecials is str_find_aux's strpbrk(p, SPECIALS) == NULL: no magic
// character before p's first NUL.
func noSpecials(p string) bool {
	if i := strings.IndexByte(p, 0); i >= 0 {
		p = p[:i]
	}
	return !strings.ContainsAny(p, "^$*+?.([%-")
}

// strFindAux is str_find_aux: string.find (find) and string.match.
func strFindAux(L *lua.LState, find bool) int {
	s := lauxlib.CheckString(L, 1)
	p := lauxlib.CheckString(L, 2)
	init := posrelat(lauxlib.OptInteger(L, 3, 1), len(s)) - 1
	if init < 0 {
		init = 0
	} else if init > int64(len(s)) {
		init = int64(len(s))
	}
	if find && (lua.LVAsBool(L.Get(4)) || noSpecials(p)) {
		if k := strings.Index(s[init:], p); k >= 0 {
			L.Push(lauxlib.Number(L, init+int64(k)+1))
			L.Push(lauxlib.Number(L, init+int64(k+len(p))))
			return 2
		}
	} else {
		pat, anchor := lstrlib.Anchored(p)
		m := lstrlib.NewMatcher(lauxlib.Of(L), s, pat)
		start, end, err := m.Find(int(init), anchor)
		if err != nil {
			raiseStr(L, err)
		}
		if start >= 0 {
			n := 0
			if find {
				L.Push(lauxlib.Number(L, start+1))
				L.Push(lauxlib.Number(L, end))
				n = pushCaptures(L, m, -1, -1, false) + 2
			} else {
				n = pushCaptures(L, m, start, end, true)
			}
			m.Release()
			return n
		}
		m.Release()
	}
	L.Push(lua.LNil)
	return 1
}

// pushCaptures is push_captures: the captures of m's last match [s, e),
// or the whole match when there are none and whole is true.
func pushCaptures(L *lua.LState, m *lstrlib.Matcher, s, e int, whole bool) int {
	n := m.NumCaptures(whole)
	lauxlib.CheckStack(L, n, "too many captures")
	for i := 0; i < n; i++ {
		L.Push(oneCapture(L, m, i, s, e))
	}
	return n
}

// oneCapture is push_onecapture's value.
func oneCapture(L *lua.LState, m *lstrlib.Matcher, i, s, e int) lua.LValue {
	text, pos, isPos, err := m.Capture(i, s, e)
	if err != nil {
		raiseStr(L, err)
	}
	if isPos {
		return lua.LNumber(pos)
	}
	return lua.LString(text)
}

// strGmatch is gmatch: an iterator over the matches of a pattern, which
// here is never anchored ('^' is an ordinary character, as in Lua 5.1).
func strGmatch(L *lua.LState) int {
	s := lauxlib.CheckString(L, 1)
	p := lauxlib.CheckString(L, 2)
	m := lstrlib.NewMatcher(lauxlib.Of(L), s, p)
	start := 0
	L.Push(L.NewFunction(func(L *lua.LState) int {
		m.SetEnv(lauxlib.Of(L))
		for src := start; src <= len(s); src++ {
			src = m.NextStart(src)
			e, err := m.Match(src, 0)
			if err != nil {
				raiseStr(L, err)
			}
			if e >= 0 {
				start = e
				if e == src {
					start++ // an empty match: go on at least one byte
				}
				return pushCaptures(L, m, src, e, true)
			}
		}
		return 0
	}))
	return 1
}

// strGsub is str_gsub.
func strGsub(L *lua.LState) int {
	src := lauxlib.CheckString(L, 1)
	p := lauxlib.CheckString(L, 2)
	repl := L.Get(3)
	maxS := lauxlib.OptInt(L, 4, len(src)+1)
	var add func(m *lstrlib.Matcher, b *lstrlib.Buffer, s, e int) error
	switch r := repl.(type) {
	case lua.LString, lua.LNumber:
		text := lauxlib.ToString(r)
		add = func(m *lstrlib.Matcher, b *lstrlib.Buffer, s, e int) error {
			return m.AddString(b, text, s, e)
		}
	case *lua.LFunction:
		add = func(m *lstrlib.Matcher, b *lstrlib.Buffer, s, e int) error {
			L.Push(r)
			callC(L, pushCaptures(L, m, s, e, true))
			v := L.Get(-1)
			L.Pop(1)
			return addValue(L, b, v, src[s:e])
		}
	case *lua.LTable:
		add = func(m *lstrlib.Matcher, b *lstrlib.Buffer, s, e int) error {
			return addValue(L, b, seam.GetTable(L, r, oneCapture(L, m, 0, s, e)), src[s:e])
		}
	default:
		lauxlib.ArgError(L, 3, "string/function/table expected")
	}
	var res lua.LValue
	n, err := lstrlib.GsubTo(lauxlib.Of(L), src, p, maxS, add, func(b []byte, owned bool) {
		if owned {
			res = lua.LString(lstrlib.Owned(b))
			return
		}
		// Copied out of the matcher's buffer into the string's own
		// block: one allocation for the result.
		v, dst := seam.NewString(len(b))
		copy(dst, b)
		res = v
	})
	if err != nil {
		raiseStr(L, err)
	}
	L.Push(res)
	L.Push(lauxlib.Number(L, n))
	return 2
}

// callC is lua_call(L, nargs, 1) from a C function: one C boundary deeper.
func callC(L *lua.LState, nargs int) {
	defer lauxlib.LeaveC(L)
	lauxlib.EnterC(L)
	L.Call(nargs, 1)
}

// addValue is the end of add_value: a function's or table's answer v
// replaces the match (text) unless it is false or nil.
func addValue(L *lua.LState, b *lstrlib.Buffer, v lua.LValue, text string) error {
	switch x := v.(type) {
	case lua.LString:
		return b.WriteString(string(x))
	case lua.LNumber:
		return b.WriteString(lauxlib.ToString(x))
	}
	if !lua.LVAsBool(v) {
		return b.WriteString(text)
	}
	return lstrlib.Error("invalid replacement value (a " + v.Type().String() + ")")
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// strFormat is str_format.
func strFormat(L *lua.LState) int {
	top := L.GetTop()
	fs := lauxlib.CheckString(L, 1)
	budget := lauxlib.Of(L)
	arg := 1
	// Most results are short: built on the stack, copied once into the
	// string.
	var buf [128]byte
	b := buf[:0]
	for i := 0; i < len(fs); {
		if fs[i] != '%' {
			// The text up to the next item in one append.
			j := strings.IndexByte(fs[i:], '%')
			if j < 0 {
				j = len(fs) - i
			}
			b = append(b, fs[i:i+j]...)
			i += j
			continue
		}
		i++
		if i < len(fs) && fs[i] == '%' {
			b = append(b, '%')
			i++
			continue
		}
		if arg++; arg > top {
			lauxlib.ArgError(L, arg, "no value")
		}
		var sp lstrlib.Spec
		if i < len(fs) && isLetter(fs[i]) {
			// A bare conversion ("%s", "%d"): no flag, width or
			// precision to scan (a letter is none of them), what
			// ScanFormat returns for it.
			sp = lstrlib.Spec{Width: -1, Prec: -1, Conv: fs[i]}
			i++
		} else {
			var next int
			var err error
			if sp, next, err = lstrlib.ScanFormat(fs, i); err != nil {
				raiseStr(L, err)
			}
			i = next
		}
		switch sp.Conv {
		case 'c':
			b = sp.AppendChar(b, lauxlib.CheckNumber(L, arg))
		case 'd', 'i':
			b = sp.AppendInt(b, lauxlib.CheckNumber(L, arg))
		case 'o', 'u', 'x', 'X':
			b = sp.AppendUint(b, lauxlib.CheckNumber(L, arg))
		case 'e', 'E', 'f', 'g', 'G':
			b = sp.AppendFloat(b, lauxlib.CheckNumber(L, arg))
		case 'q':
			s := lauxlib.CheckString(L, arg)
			if !budget.Alloc(len(b) + 2*len(s) + 2) {
				lauxlib.NoMemory(L)
			}
			b = lstrlib.AppendQuoted(b, s)
		case 's':
			s := lauxlib.CheckString(L, arg)
			if sp.Prec < 0 && len(s) >= 100 {
				if !budget.Alloc(len(b) + len(s)) {
					lauxlib.NoMemory(L)
				}
				b = append(b, s...) // too long to format: kept whole
			} else {
				b = sp.AppendString(b, s)
			}
		default:
			raiseStr(L, lstrlib.InvalidOption(sp.Conv))
		}
		if len(b) > 1<<16 && !budget.Alloc(len(b)) {
			lauxlib.NoMemory(L)
		}
	}
	v, dst := seam.NewString(len(b))
	copy(dst, b)
	L.Push(v)
	return 1
}
