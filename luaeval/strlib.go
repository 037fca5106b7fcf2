package luaeval

import (
	"math"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/minilock/minilock/luaeval/internal/lauxlib"
)

// stringLib replaces the gopher-lua string functions whose behaviour differs
// from Lua 5.1 or that could take unbounded memory in one call.
func (sb *sandbox) stringLib(t *lua.LTable) {
	sb.set(t, map[string]lua.LGFunction{
		"format": sb.strFormat,
		"rep":    sb.strRep,
		"dump":   strDump,
		"len":    func(L *lua.LState) int { L.Push(lua.LNumber(len(lauxlib.CheckString(L, 1)))); return 1 },
	})
}

func (sb *sandbox) strRep(L *lua.LState) int {
	s := lauxlib.CheckString(L, 1)
	n := lauxlib.CheckInt(L, 2)
	if n <= 0 || len(s) == 0 {
		L.Push(lua.LString(""))
		return 1
	}
	if int64(len(s))*int64(n) > int64(sb.e.cfg.MaxStringBytes) {
		L.Error(lua.LString(lauxlib.ErrNoMemory), 0)
	}
	L.Push(lua.LString(strings.Repeat(s, n)))
	return 1
}

// strDump returns a stand-in for Lua bytecode: Redis refuses to load binary
// chunks, so all a script can do with it is fail to load it, which ours does
// with the same message.
func strDump(L *lua.LState) int {
	f := L.CheckFunction(1)
	if f.IsG {
		L.RaiseError("unable to dump given function")
	}
	L.Push(lua.LString("\x1bLuaQ\x00\x01\x04\x08\x04\x08\x00"))
	return 1
}

// strFormat is lstrlib.c:str_format: C printf conversions with Lua 5.1's
// limits (two-digit width and precision, so one item is at most ~512 bytes).
func (sb *sandbox) strFormat(L *lua.LState) int {
	top := L.GetTop()
	fs := lauxlib.CheckString(L, 1)
	arg := 1
	var b []byte
	for i := 0; i < len(fs); {
		c := fs[i]
		if c != '%' {
			b = append(b, c)
			i++
			continue
		}
		i++
		if i < len(fs) && fs[i] == '%' {
			b = append(b, '%')
			i++
			continue
		}
		// scanformat
		start := i
		for i < len(fs) && strings.IndexByte("-+ #0", fs[i]) >= 0 {
			i++
		}
		if i-start >= len("-+ #0")+1 {
			L.RaiseError("invalid format (repeated flags)")
		}
		flags := fs[start:i]
		width, prec := -1, -1
		wstart := i
		for k := 0; k < 2 && i < len(fs) && isDigit(fs[i]); k++ {
			i++
		}
		if i > wstart {
			width, _ = strconv.Atoi(fs[wstart:i])
		}
		if i < len(fs) && fs[i] == '.' {
			i++
			pstart := i
			for k := 0; k < 2 && i < len(fs) && isDigit(fs[i]); k++ {
				i++
			}
			prec, _ = strconv.Atoi("0" + fs[pstart:i])
		}
		if i < len(fs) && isDigit(fs[i]) {
			L.RaiseError("invalid format (width or precision too long)")
		}
		arg++
		if arg > top {
			lauxlib.ArgError(L, arg, "no value")
		}
		var conv byte
		if i < len(fs) {
			conv = fs[i]
			i++
		}
		spec := fmtSpec{flags: flags, width: width, prec: prec}
		switch conv {
		case 'c':
			b = spec.pad(b, string([]byte{byte(lauxlib.ToInteger(lauxlib.CheckNumber(L, arg)))}), false)
		case 'd', 'i':
			b = spec.formatInt(b, lauxlib.ToInteger(lauxlib.CheckNumber(L, arg)), 'd')
		case 'o', 'u', 'x', 'X':
			b = spec.formatUint(b, uint64(lauxlib.ToInteger(lauxlib.CheckNumber(L, arg))), conv)
		case 'e', 'E', 'f', 'g', 'G':
			b = spec.formatFloat(b, lauxlib.CheckNumber(L, arg), conv)
		case 'q':
			b = addQuoted(b, lauxlib.CheckString(L, arg))
		case 's':
			s := lauxlib.CheckString(L, arg)
			if prec < 0 && len(s) >= 100 {
				b = append(b, s...) // lstrlib keeps long strings whole
			} else {
				if prec >= 0 && len(s) > prec {
					s = s[:prec]
				}
				b = spec.pad(b, s, false)
			}
		default:
			L.RaiseError("invalid option '%%%c' to 'format'", conv)
		}
		if len(b) > sb.e.cfg.MaxStringBytes {
			L.Error(lua.LString(lauxlib.ErrNoMemory), 0)
		}
	}
	L.Push(lua.LString(b))
	return 1
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

type fmtSpec struct {
	flags       string
	width, prec int
}

func (f fmtSpec) has(c byte) bool { return strings.IndexByte(f.flags, c) >= 0 }

// pad right- or left-justifies s in the field width; zero pads numbers
// after their sign when asked.
func (f fmtSpec) pad(b []byte, s string, numeric bool) []byte {
	n := f.width - len(s)
	if n <= 0 {
		return append(b, s...)
	}
	if f.has('-') {
		b = append(b, s...)
		return append(b, strings.Repeat(" ", n)...)
	}
	if numeric && f.has('0') {
		sign := ""
		if len(s) > 0 && (s[0] == '-' || s[0] == '+' || s[0] == ' ') {
			sign, s = s[:1], s[1:]
		}
		if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
			sign, s = sign+s[:2], s[2:]
		}
		b = append(b, sign...)
		b = append(b, strings.Repeat("0", n)...)
		return append(b, s...)
	}
	b = append(b, strings.Repeat(" ", n)...)
	return append(b, s...)
}

func (f fmtSpec) formatInt(b []byte, v int64, _ byte) []byte {
	var digits string
	if v < 0 {
		digits = strconv.FormatUint(uint64(-v), 10)
		if v == math.MinInt64 {
			digits = "9223372036854775808"
		}
	} else {
		digits = strconv.FormatInt(v, 10)
	}
	if f.prec >= 0 {
		if f.prec == 0 && v == 0 {
			digits = ""
		}
		for len(digits) < f.prec {
			digits = "0" + digits
		}
	}
	sign := ""
	switch {
	case v < 0:
		sign = "-"
	case f.has('+'):
		sign = "+"
	case f.has(' '):
		sign = " "
	}
	g := f
	if f.prec >= 0 {
		g.flags = strings.ReplaceAll(g.flags, "0", "") // C ignores 0 with a precision
	}
	return g.pad(b, sign+digits, true)
}

func (f fmtSpec) formatUint(b []byte, v uint64, conv byte) []byte {
	var digits string
	switch conv {
	case 'o':
		digits = strconv.FormatUint(v, 8)
	case 'x':
		digits = strconv.FormatUint(v, 16)
	case 'X':
		digits = strings.ToUpper(strconv.FormatUint(v, 16))
	default:
		digits = strconv.FormatUint(v, 10)
	}
	if f.prec >= 0 {
		if f.prec == 0 && v == 0 {
			digits = ""
		}
		for len(digits) < f.prec {
			digits = "0" + digits
		}
	}
	if f.has('#') {
		switch {
		case conv == 'o' && !strings.HasPrefix(digits, "0"):
			digits = "0" + digits
		case conv == 'x' && v != 0:
			digits = "0x" + digits
		case conv == 'X' && v != 0:
			digits = "0X" + digits
		}
	}
	g := f
	if f.prec >= 0 {
		g.flags = strings.ReplaceAll(g.flags, "0", "")
	}
	return g.pad(b, digits, true)
}

func (f fmtSpec) formatFloat(b []byte, v float64, conv byte) []byte {
	if s, ok := lauxlib.NonFinite(v); ok && s != "-0" {
		if s[0] != '-' {
			if f.has('+') {
				s = "+" + s
			} else if f.has(' ') {
				s = " " + s
			}
		}
		if conv == 'E' || conv == 'G' {
			s = strings.ToUpper(s)
		}
		g := f
		g.flags = strings.ReplaceAll(g.flags, "0", "")
		return g.pad(b, s, false)
	}
	prec := f.prec
	if prec < 0 {
		prec = 6
	}
	var s string
	switch conv {
	case 'e', 'E':
		s = strconv.FormatFloat(v, 'e', prec, 64)
	case 'f':
		s = strconv.FormatFloat(v, 'f', prec, 64)
	case 'g', 'G':
		if prec == 0 {
			prec = 1
		}
		s = formatG(v, prec, f.has('#'))
	}
	if conv == 'E' || conv == 'G' {
		s = strings.ToUpper(s)
	}
	if f.has('#') && prec == 0 && (conv == 'e' || conv == 'E' || conv == 'f') && !strings.Contains(s, ".") {
		if k := strings.IndexAny(s, "eE"); k >= 0 {
			s = s[:k] + "." + s[k:]
		} else {
			s += "."
		}
	}
	if !strings.HasPrefix(s, "-") {
		if f.has('+') {
			s = "+" + s
		} else if f.has(' ') {
			s = " " + s
		}
	}
	return f.pad(b, s, true)
}

// formatG is C's %.<prec>g: %e when the exponent is < -4 or >= prec, %f
// otherwise, trailing zeros removed unless '#'.
func formatG(v float64, prec int, alt bool) string {
	e := strconv.FormatFloat(v, 'e', prec-1, 64)
	k := strings.IndexByte(e, 'e')
	exp, _ := strconv.Atoi(e[k+1:])
	var s string
	if exp < -4 || exp >= prec {
		mant := e[:k]
		if !alt {
			mant = trimZeros(mant)
		}
		s = mant + e[k:]
	} else {
		s = strconv.FormatFloat(v, 'f', prec-1-exp, 64)
		if !alt {
			s = trimZeros(s)
		}
	}
	return s
}

func trimZeros(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// addQuoted is lstrlib.c:addquoted (%q).
func addQuoted(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\', '\n':
			b = append(b, '\\', c)
		case '\r':
			b = append(b, '\\', 'r')
		case 0:
			b = append(b, '\\', '0', '0', '0')
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}

// tableLib replaces gopher-lua's table functions with Lua 5.1's semantics,
// refuses writes into protected tables and keeps long loops killable.
func (sb *sandbox) tableLib(t *lua.LTable) {
	sb.set(t, map[string]lua.LGFunction{
		"insert":   sb.tabInsert,
		"remove":   sb.tabRemove,
		"concat":   sb.tabConcat,
		"maxn":     tabMaxn,
		"setn":     func(L *lua.LState) int { L.RaiseError("'setn' is obsolete"); return 0 },
		"foreach":  tabForeach,
		"foreachi": tabForeachi,
		"getn":     func(L *lua.LState) int { L.Push(lua.LNumber(L.CheckTable(1).Len())); return 1 },
	})
}

// writable raises Lua's readonly error for a protected table.
func (sb *sandbox) writable(L *lua.LState, t *lua.LTable) {
	if sb.isProtected(t) {
		L.Error(lua.LString("Attempt to modify a readonly table"), 0)
	}
}

// pollKill lets a long loop inside one builtin notice SCRIPT KILL.
func (sb *sandbox) pollKill(L *lua.LState, i int) {
	if i&4095 == 0 && sb.e.ctl.killed() {
		L.RaiseError("%s", errScriptKilled.Error())
	}
}

func (sb *sandbox) tabInsert(L *lua.LState) int {
	t := L.CheckTable(1)
	e := t.Len() + 1
	var pos int
	switch L.GetTop() {
	case 2:
		pos = e
	case 3:
		pos = lauxlib.CheckInt(L, 2)
		if pos > e {
			e = pos
		}
		for i := e; i > pos; i-- {
			sb.writable(L, t)
			sb.pollKill(L, i)
			t.RawSetInt(i, t.RawGetInt(i-1))
		}
	default:
		L.RaiseError("wrong number of arguments to 'insert'")
	}
	sb.writable(L, t)
	v := L.Get(L.GetTop())
	t.RawSetInt(pos, v)
	return 0
}

func (sb *sandbox) tabRemove(L *lua.LState) int {
	t := L.CheckTable(1)
	e := t.Len()
	pos := lauxlib.OptInt(L, 2, e)
	if !(1 <= pos && pos <= e) {
		return 0
	}
	sb.writable(L, t)
	v := t.RawGetInt(pos)
	for ; pos < e; pos++ {
		sb.pollKill(L, pos)
		t.RawSetInt(pos, t.RawGetInt(pos+1))
	}
	t.RawSetInt(e, lua.LNil)
	L.Push(v)
	return 1
}

func (sb *sandbox) tabConcat(L *lua.LState) int {
	t := L.CheckTable(1)
	sep := ""
	if L.Get(2) != lua.LNil {
		sep = lauxlib.CheckString(L, 2)
	}
	i := lauxlib.OptInt(L, 3, 1)
	var last int
	if L.Get(4) == lua.LNil {
		last = t.Len()
	} else {
		last = lauxlib.CheckInt(L, 4)
	}
	item := func(k int) string {
		switch v := t.RawGetInt(k).(type) {
		case lua.LString:
			return string(v)
		case lua.LNumber:
			return lauxlib.FormatNumber(float64(v))
		default:
			L.RaiseError("invalid value (%s) at index %d in table for 'concat'", v.Type().String(), k)
		}
		return ""
	}
	// The length is summed first, so the limit acts before anything is
	// allocated and the result is allocated once: a buffer grown step by
	// step to MaxStringBytes leaves about three times that in garbage.
	n := 0
	for k := i; k <= last; k++ {
		sb.pollKill(L, k)
		n += len(item(k))
		if k != last {
			n += len(sep)
		}
		if n > sb.e.cfg.MaxStringBytes {
			L.Error(lua.LString(lauxlib.ErrNoMemory), 0)
		}
	}
	var b strings.Builder
	b.Grow(n)
	for k := i; k <= last; k++ {
		b.WriteString(item(k))
		if k != last {
			b.WriteString(sep)
		}
	}
	L.Push(lua.LString(b.String()))
	return 1
}

// tabMaxn is the largest positive numeric key (ltablib.c:maxn).
func tabMaxn(L *lua.LState) int {
	t := L.CheckTable(1)
	maxv := 0.0
	for k, _ := t.Next(lua.LNil); k != lua.LNil; k, _ = t.Next(k) {
		if n, ok := k.(lua.LNumber); ok && float64(n) > maxv {
			maxv = float64(n)
		}
	}
	L.Push(lua.LNumber(maxv))
	return 1
}

func tabForeach(L *lua.LState) int {
	t := L.CheckTable(1)
	f := L.CheckFunction(2)
	for k, v := t.Next(lua.LNil); k != lua.LNil; k, v = t.Next(k) {
		L.Push(f)
		L.Push(k)
		L.Push(v)
		L.Call(2, 1)
		if r := L.Get(-1); r != lua.LNil {
			return 1
		}
		L.Pop(1)
	}
	return 0
}

func tabForeachi(L *lua.LState) int {
	t := L.CheckTable(1)
	f := L.CheckFunction(2)
	n := t.Len()
	for i := 1; i <= n; i++ {
		L.Push(f)
		L.Push(lua.LNumber(i))
		L.Push(t.RawGetInt(i))
		L.Call(2, 1)
		if r := L.Get(-1); r != lua.LNil {
			return 1
		}
		L.Pop(1)
	}
	return 0
}
