// Package luagen writes random Lua 5.1 programs from a seed, for the
// compiler's tests and fuzzers: valid programs that exercise every
// construct and end with a deterministic result, token-level mutations of
// them (compile errors, mostly), and deep or long sources of the shapes
// that break recursive compilers.
//
// A generated program runs in Redis's sandbox: it creates no globals, every
// loop is bounded, and its result is an array of strings (the value of
// each probe, through tostring), so Redis and minilock can be compared
// byte for byte. Operations whose results differ between C and Go in the
// last bit (fmod on fractions, pow of fractions) are avoided: the programs
// test the compiler, not the arithmetic.
package luagen

import (
	"math/rand"
	"strconv"
	"strings"
)

type kind int

const (
	kNum kind = iota // an integer-valued number
	kStr             // a string
	kAny             // nil, a boolean, a number or a string
	kTbl             // an array of integers (length 0..6)
	kFn              // a function of two numbers returning a number
	kObj             // a table with a field v (number) and methods get, add
)

type variable struct {
	name string
	k    kind
	n    int  // kTbl: its length (never changes: no holes, so # is exact)
	ro   bool // a loop counter: read, never assigned (every loop ends)
}

type gen struct {
	r       *rand.Rand
	b       strings.Builder
	indent  int
	scopes  [][]variable // innermost last
	fnDepth int          // nested function bodies
	loop    int          // loops enclosing the current point (in this function)
	vararg  bool         // current function is vararg
	nvars   int          // names issued
	probes  int
	budget  int // statements left
	locals  []int
	nfns    int
}

// Program returns a valid program of about size statements.
func Program(seed int64, size int) string {
	g := &gen{r: rand.New(rand.NewSource(seed)), budget: size, vararg: true}
	g.line("local R = {}")
	// gopher-lua's VM turns an arithmetic result of -0 into 0 (its small
	// number cache), Lua does not: S prints both as 0.
	g.line("local function S(v) local t = type(v) if t == 'table' or t == 'function' then return t end if v == 0 then return '0' end return tostring(v) end")
	g.push()
	g.locals = append(g.locals, 0)
	for g.budget > 0 {
		g.stmt()
	}
	g.probe(g.expr(kAny, 3))
	g.line("return R")
	return g.b.String()
}

func (g *gen) line(s string) {
	for i := 0; i < g.indent; i++ {
		g.b.WriteString("  ")
	}
	g.b.WriteString(s)
	g.b.WriteByte('\n')
}

func (g *gen) push() { g.scopes = append(g.scopes, nil) }
func (g *gen) pop() {
	g.locals[len(g.locals)-1] -= len(g.scopes[len(g.scopes)-1])
	g.scopes = g.scopes[:len(g.scopes)-1]
}
func (g *gen) intn(n int) int        { return g.r.Intn(n) }
func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

// declare adds a local to the innermost scope (Lua allows 200 per
// function; the generator stays far below).
func (g *gen) declare(k kind) string {
	name := g.newName(k)
	g.add(variable{name: name, k: k})
	return name
}

func (g *gen) counter() string {
	name := g.newName(kNum)
	g.add(variable{name: name, k: kNum, ro: true})
	return name
}

func (g *gen) newName(k kind) string {
	g.nvars++
	return [...]string{"n", "s", "a", "t", "f", "o"}[k] + strconv.Itoa(g.nvars)
}

func (g *gen) add(v variable) {
	g.scopes[len(g.scopes)-1] = append(g.scopes[len(g.scopes)-1], v)
	g.locals[len(g.locals)-1]++
}

func (g *gen) canDeclare(n int) bool { return g.locals[len(g.locals)-1]+n < 150 }

// pick returns a visible variable of kind k, or "".
func (g *gen) pick(k kind) string { return g.pickVar(k, true) }

// pickW returns a visible variable of kind k that may be assigned, or "".
func (g *gen) pickW(k kind) string { return g.pickVar(k, false) }

func (g *gen) pickVar(k kind, ro bool) string {
	var vs []string
	for _, sc := range g.scopes {
		for _, v := range sc {
			if v.k == k && (ro || !v.ro) {
				vs = append(vs, v.name)
			}
		}
	}
	if len(vs) == 0 {
		return ""
	}
	return vs[g.intn(len(vs))]
}

// pickTbl returns a visible table and its length, or "".
func (g *gen) pickTbl() (string, int) {
	var vs []variable
	for _, sc := range g.scopes {
		for _, v := range sc {
			if v.k == kTbl {
				vs = append(vs, v)
			}
		}
	}
	if len(vs) == 0 {
		return "", 0
	}
	v := vs[g.intn(len(vs))]
	return v.name, v.n
}

// probe records e's value in R (at most 40 values, however often the
// probe runs).
func (g *gen) probe(e string) {
	if g.probes >= 40 {
		return
	}
	g.probes++
	if g.fnDepth == 0 && g.loop == 0 && len(g.scopes) == 1 {
		g.line("R[#R+1] = S(" + e + ")")
		return
	}
	g.line("if #R < 40 then R[#R+1] = S(" + e + ") end")
}

func (g *gen) stmt() {
	g.budget--
	depth := len(g.scopes)
	n := g.intn(20)
	if depth > 6 && n < 12 {
		n += 8 // deep enough: simple statements
	}
	switch n {
	case 0, 1:
		g.ifStat()
	case 2:
		g.numFor()
	case 3:
		g.genFor()
	case 4:
		g.whileStat()
	case 5:
		g.repeatStat()
	case 6:
		g.doBlock()
	case 7:
		if g.fnDepth < 3 {
			g.localFunc()
		} else {
			g.probe(g.expr(kNum, 3))
		}
	case 8, 9:
		g.localStat()
	case 10, 11:
		g.assign()
	case 12:
		switch g.intn(6) {
		case 0:
			g.recFunc()
		case 1:
			g.nestedTable()
		case 2:
			g.conflict()
		case 3:
			g.loopClosures()
		case 4:
			g.earlyReturn()
		default:
			g.objStat()
		}
	case 13:
		if g.loop > 0 && g.chance(0.3) {
			g.line("if " + g.expr(kAny, 2) + " then break end")
		} else {
			g.probe(g.expr(kStr, 3))
		}
	default:
		g.probe(g.expr(kind(g.intn(3)), 4))
	}
}

func (g *gen) block(f func()) {
	g.indent++
	g.push()
	f()
	g.pop()
	g.indent--
}

func (g *gen) body(n int) {
	for i := 0; i < n && g.budget > 0; i++ {
		g.stmt()
	}
}

func (g *gen) ifStat() {
	g.line("if " + g.expr(kAny, 3) + " then")
	g.block(func() { g.body(1 + g.intn(3)) })
	for i := g.intn(3); i > 0; i-- {
		g.line("elseif " + g.expr(kAny, 3) + " then")
		g.block(func() { g.body(1 + g.intn(2)) })
	}
	if g.chance(0.5) {
		g.line("else")
		g.block(func() { g.body(1 + g.intn(2)) })
	}
	g.line("end")
}

func (g *gen) loopBody(f func()) {
	g.loop++
	g.block(f)
	g.loop--
}

func (g *gen) numFor() {
	from, to, step := g.intn(4)-1, g.intn(5), ""
	switch g.intn(4) {
	case 0:
		from, to, step = to+1, from, ", -1"
	case 1:
		step = ", 2"
	case 2:
		step = ", " + []string{"0.5", "1.5", "-0.5"}[g.intn(3)]
		if step == ", -0.5" {
			from, to = to, from
		}
	}
	g.loopBody(func() {
		// halves are exact in binary: C and Go agree on every operation
		v := g.declare(kNum)
		g.indent--
		g.line("for " + v + " = " + strconv.Itoa(from) + ", " + strconv.Itoa(to) + step + " do")
		g.indent++
		g.body(1 + g.intn(3))
	})
	g.line("end")
}

func (g *gen) genFor() {
	t, _ := g.pickTbl()
	if t == "" {
		t, _ = g.tableCons()
	}
	g.loopBody(func() {
		k := g.declare(kNum)
		v := g.declare(kNum)
		g.indent--
		// ipairs: next's order over a hash part is the table's own
		g.line("for " + k + ", " + v + " in ipairs(" + t + ") do")
		g.indent++
		g.body(1 + g.intn(3))
	})
	g.line("end")
}

func (g *gen) whileStat() {
	if !g.canDeclare(1) {
		return
	}
	c := g.counter()
	g.line("local " + c + " = 0")
	g.line("while " + c + " < " + strconv.Itoa(1+g.intn(4)) + " do")
	g.loopBody(func() {
		g.line(c + " = " + c + " + 1")
		g.body(1 + g.intn(3))
	})
	g.line("end")
}

func (g *gen) repeatStat() {
	if !g.canDeclare(1) {
		return
	}
	c := g.counter()
	g.line("local " + c + " = 0")
	g.line("repeat")
	var cond string
	g.loopBody(func() {
		g.line(c + " = " + c + " + 1")
		g.body(g.intn(3))
		// the condition sees the body's locals
		if x := g.pick(kNum); x != "" && g.chance(0.5) {
			cond = c + " >= 3 or " + x + " ~= " + x
		} else {
			cond = c + " >= " + strconv.Itoa(1+g.intn(3))
		}
		// until is inside the block in Lua: emit it before the scope closes
		g.indent--
		g.line("until " + cond)
		g.indent++
	})
}

func (g *gen) doBlock() {
	g.line("do")
	g.block(func() { g.body(1 + g.intn(3)) })
	g.line("end")
}

func (g *gen) params() []string {
	n := g.intn(3)
	ps := make([]string, n)
	for i := range ps {
		ps[i] = g.declare(kNum)
	}
	return ps
}

// funcBody writes a function's parameters and body (a new function state).
func (g *gen) funcBody(header string, vararg bool) {
	saveLoop, saveVararg := g.loop, g.vararg
	g.loop, g.vararg = 0, vararg
	g.fnDepth++
	g.locals = append(g.locals, 0)
	g.indent++
	g.push()
	ps := g.params()
	if vararg {
		ps = append(ps, "...")
	}
	g.indent--
	g.line(header + "(" + strings.Join(ps, ", ") + ")")
	g.indent++
	for i := 0; i < len(ps); i++ {
		if ps[i] != "..." {
			g.line(ps[i] + " = " + ps[i] + " or " + strconv.Itoa(g.intn(5)))
		}
	}
	if vararg && g.chance(0.7) {
		a, b := g.declare(kAny), g.declare(kAny)
		g.line("local " + a + ", " + b + " = ...")
	}
	g.body(1 + g.intn(3))
	g.line("return " + g.expr(kNum, 3))
	g.pop()
	g.indent--
	g.locals = g.locals[:len(g.locals)-1]
	g.fnDepth--
	g.loop, g.vararg = saveLoop, saveVararg
	g.line("end")
}

// localFunc declares a function; it becomes visible after its body, so
// no function calls itself (every program ends), and there are at most
// four (each may call the ones before it a few times).
func (g *gen) localFunc() {
	if !g.canDeclare(1) || g.nfns >= 4 {
		g.multRet()
		return
	}
	g.nfns++
	name := g.newName(kFn)
	if g.chance(0.6) {
		g.funcBody("local function "+name, g.chance(0.3))
	} else {
		g.funcBody("local "+name+" = function", g.chance(0.3))
	}
	g.add(variable{name: name, k: kFn})
	g.probe(g.call(name, 2))
}

// multRet exercises multiple results: adjusted to one, to many, in
// constructors, as the last argument.
func (g *gen) multRet() {
	if !g.canDeclare(4) {
		return
	}
	f := g.newName(kFn)
	vals := []string{g.expr(kNum, 1), g.expr(kStr, 1), g.expr(kNum, 1)}
	g.line("local function " + f + "(...) return " + strings.Join(vals[:1+g.intn(3)], ", ") + " end")
	switch g.intn(5) {
	case 0:
		a, b, c := g.declare(kAny), g.declare(kAny), g.declare(kAny)
		g.line("local " + a + ", " + b + ", " + c + " = " + f + "()")
	case 1:
		g.probe("select('#', " + f + "())")
	case 2:
		g.probe("select('#', " + f + "(), " + f + "())")
	case 3:
		g.probe("(" + f + "())")
	default:
		g.probe("#{" + f + "()}")
	}
}

func (g *gen) localStat() {
	n := 1 + g.intn(3)
	if !g.canDeclare(n) {
		return
	}
	kinds := make([]kind, n)
	for i := range kinds {
		kinds[i] = kind(g.intn(4))
	}
	exprs := make([]string, 0, n)
	m := n
	switch g.intn(5) {
	case 0:
		m = n - 1 // fewer values: the rest nil
	case 1:
		m = n + 1 // one value too many
	}
	for i := 0; i < m; i++ {
		k := kNum
		if i < n {
			k = kinds[i]
		}
		exprs = append(exprs, g.expr(k, 3))
	}
	// The names are visible after the statement: the values first.
	vars := make([]variable, n)
	for i := range vars {
		k := kinds[i]
		if i >= m {
			k = kAny // nil
		}
		vars[i] = variable{name: g.newName(k), k: k}
		if k == kTbl {
			exprs[i], vars[i].n = g.tableCons()
		}
	}
	names := make([]string, n)
	for i, v := range vars {
		g.add(v)
		names[i] = v.name
	}
	if len(exprs) == 0 {
		g.line("local " + strings.Join(names, ", "))
	} else {
		g.line("local " + strings.Join(names, ", ") + " = " + strings.Join(exprs, ", "))
	}
}

func (g *gen) assign() {
	var lhs, rhs []string
	for i := 1 + g.intn(3); i > 0; i-- {
		k := kind(g.intn(3))
		if v := g.pickW(k); v != "" {
			lhs = append(lhs, v)
			e := g.expr(k, 3)
			if k == kStr {
				e = "(" + e + "):sub(1, 12)" // no string doubles its way to gigabytes
			}
			rhs = append(rhs, e)
		} else if t, n := g.pickTbl(); n > 0 {
			lhs = append(lhs, t+"["+strconv.Itoa(1+g.intn(n))+"]")
			rhs = append(rhs, g.expr(kNum, 2))
		}
	}
	if len(lhs) == 0 {
		return
	}
	if len(lhs) == 2 && g.chance(0.3) {
		// a swap, when both have one kind
		if g.kindOf(lhs[0]) == g.kindOf(lhs[1]) {
			rhs = []string{lhs[1], lhs[0]}
		}
	}
	g.line(strings.Join(lhs, ", ") + " = " + strings.Join(rhs, ", "))
}

func (g *gen) kindOf(name string) kind {
	for _, sc := range g.scopes {
		for _, v := range sc {
			if v.name == name {
				return v.k
			}
		}
	}
	return -1
}

func (g *gen) objStat() {
	if !g.canDeclare(1) {
		return
	}
	v, tag := g.expr(kNum, 2), g.expr(kStr, 1)
	o := g.declare(kObj)
	g.line("local " + o + " = {v = " + v + ", tag = " + tag + "}")
	g.line("function " + o + ":get(x) return self.v + (x or 0) end")
	g.line("function " + o + ".add(self, x) self.v = self.v + x return self end")
	g.probe(o + ":add(" + g.expr(kNum, 2) + "):get(" + g.expr(kNum, 2) + ")")
}

func (g *gen) call(fn string, depth int) string {
	args := make([]string, g.intn(4))
	for i := range args {
		args[i] = g.expr(kNum, depth)
	}
	return fn + "(" + strings.Join(args, ", ") + ")"
}

func (g *gen) tableCons() (string, int) {
	var items []string
	n := g.intn(6)
	for i := 0; i < n; i++ {
		items = append(items, g.expr(kNum, 2))
	}
	sep := ", "
	if g.chance(0.2) {
		sep = "; "
	}
	s := "{" + strings.Join(items, sep)
	if n > 0 && g.chance(0.2) {
		s += sep
	}
	return s + "}", n
}

func (g *gen) numLit() string {
	n := g.intn(10)
	switch g.intn(8) {
	case 0:
		return "0x" + strconv.FormatInt(int64(n), 16)
	case 1:
		return strconv.Itoa(n) + ".0"
	case 2:
		return strconv.Itoa(n) + "e0"
	case 3:
		return strconv.Itoa(n*10) + "E-1"
	}
	return strconv.Itoa(n)
}

func (g *gen) strLit() string {
	words := []string{"", "a", "bc", "x y", "42", "é", "\\n", "\\065", "q\\\"q", "it's"}
	w := words[g.intn(len(words))]
	switch g.intn(6) {
	case 0:
		if strings.ContainsAny(w, "\\") {
			return "'" + strings.ReplaceAll(w, "'", "\\'") + "'"
		}
		return "[[" + w + "]]"
	case 1:
		if strings.ContainsAny(w, "\\") {
			return "\"" + w + "\""
		}
		return "[==[\n" + w + "]]]==]"
	case 2:
		return "'" + strings.ReplaceAll(w, "'", "\\'") + "'"
	}
	return "\"" + w + "\""
}

// expr returns an expression of kind k, nested at most depth deep.
func (g *gen) expr(k kind, depth int) string {
	if depth <= 0 {
		return g.leaf(k)
	}
	switch k {
	case kNum:
		switch g.intn(13) {
		case 0, 1:
			return g.leaf(k)
		case 2:
			e := g.expr(kNum, depth-1)
			if strings.HasPrefix(e, "-") {
				return "- " + e // not a comment
			}
			return "-" + e
		case 3:
			return "(" + g.expr(kNum, depth-1) + ")"
		case 4:
			e := g.expr(kStr, depth-1)
			if strings.Contains(e, " ") {
				e = "(" + e + ")" // # binds tighter than ..
			}
			return "#" + e
		case 5:
			if t, _ := g.pickTbl(); t != "" {
				return "#" + t
			}
			t, _ := g.tableCons()
			return "#" + t
		case 6:
			if f := g.pick(kFn); f != "" {
				return g.call(f, depth-1)
			}
			return "select('#', " + g.expr(kAny, depth-1) + ", " + g.expr(kNum, depth-1) + ")"
		case 7:
			if o := g.pick(kObj); o != "" {
				if g.chance(0.5) {
					return o + ":get(" + g.expr(kNum, depth-1) + ")"
				}
				return o + ".v"
			}
			return "(" + g.expr(kAny, depth-1) + " and 1 or 2)"
		case 8:
			// on literals only (folded): C's fmod-free formula and Go's
			// math.Mod part ways on huge values
			return "(" + g.numLit() + " % " + strconv.Itoa(1+g.intn(5)) + ")"
		case 9:
			// closures called on the spot, with upvalues
			arg := g.expr(kNum, depth-1)
			save := g.vararg
			g.vararg = false
			body := g.expr(kNum, depth-1)
			g.vararg = save
			return "(function(p) return p + " + body + " end)(" + arg + ")"
		case 10:
			if g.vararg {
				return "select('#', ...)"
			}
			return "(" + g.expr(kNum, depth-1) + " and " + g.expr(kNum, depth-1) + ")"
		case 11:
			if g.chance(0.5) {
				return g.expr(kNum, depth-1) + " / " + []string{"2", "4", "0.5"}[g.intn(3)]
			}
			return g.numLit() + " ^ " + strconv.Itoa(g.intn(3))
		default:
			ops := []string{"+", "-", "*", "+", "-"}
			return g.expr(kNum, depth-1) + " " + ops[g.intn(len(ops))] + " " + g.expr(kNum, depth-1)
		}
	case kStr:
		switch g.intn(7) {
		case 0, 1:
			return g.leaf(k)
		case 2:
			return g.expr(kStr, depth-1) + " .. " + g.expr(kStr, depth-1)
		case 3:
			// numbers become text through S: gopher-lua's VM turns an
			// arithmetic -0 into 0, which would show here
			return g.expr(kStr, depth-1) + " .. S(" + g.expr(kNum, depth-1) + ")"
		case 4:
			return "string.rep(" + g.expr(kStr, depth-1) + ", " + strconv.Itoa(g.intn(3)) + ")"
		case 5:
			return "(" + g.expr(kStr, depth-1) + "):rep(2)"
		default:
			if o := g.pick(kObj); o != "" {
				return o + ".tag"
			}
			return "S(" + g.expr(kNum, depth-1) + ")"
		}
	case kAny:
		switch g.intn(12) {
		case 0:
			return g.leaf(k)
		case 1:
			return g.expr(kNum, depth)
		case 2:
			return g.expr(kStr, depth)
		case 3:
			return "not " + paren(g.expr(kAny, depth-1))
		case 4:
			ops := []string{"<", "<=", ">", ">=", "==", "~="}
			return g.expr(kNum, depth-1) + " " + ops[g.intn(len(ops))] + " " + g.expr(kNum, depth-1)
		case 5:
			ops := []string{"<", "<=", "==", "~="}
			return g.expr(kStr, depth-1) + " " + ops[g.intn(len(ops))] + " " + g.expr(kStr, depth-1)
		case 6:
			return g.expr(kAny, depth-1) + " and " + g.expr(kAny, depth-1)
		case 7:
			return g.expr(kAny, depth-1) + " or " + g.expr(kAny, depth-1)
		case 8:
			return paren(g.expr(kAny, depth-1)) + " == " + paren(g.expr(kAny, depth-1))
		case 9:
			return "(" + g.expr(kAny, depth-1) + ")"
		case 10:
			if g.vararg {
				return "(...)"
			}
			return g.expr(kAny, depth-1) + " and " + g.expr(kAny, depth-1) + " or " + g.expr(kAny, depth-1)
		default:
			return g.expr(kAny, depth-1) + " and " + g.expr(kAny, depth-1) + " or " + g.expr(kAny, depth-1)
		}
	}
	return g.leaf(k)
}

// paren puts e in parentheses when it is more than one term, so an
// operator around it applies to all of it.
func paren(e string) string {
	if strings.Contains(e, " ") {
		return "(" + e + ")"
	}
	return e
}

func (g *gen) leaf(k kind) string {
	switch k {
	case kNum:
		if v := g.pick(kNum); v != "" && g.chance(0.6) {
			return v
		}
		return g.numLit()
	case kStr:
		if v := g.pick(kStr); v != "" && g.chance(0.5) {
			return v
		}
		return g.strLit()
	}
	switch g.intn(7) {
	case 0:
		return "nil"
	case 1:
		return "true"
	case 2:
		return "false"
	case 3:
		if v := g.pick(kAny); v != "" {
			return v
		}
	case 4:
		return g.leaf(kStr)
	}
	return g.leaf(kNum)
}

// Tokens splits src into rough Lua tokens (names, numbers, strings, long
// brackets, operators, white space and comments kept as their own tokens),
// enough for Mutate.
func Tokens(src string) []string {
	var out []string
	for i := 0; i < len(src); {
		j := i + 1
		c := src[i]
		switch {
		case c == '-' && strings.HasPrefix(src[i:], "--"):
			j = strings.IndexByte(src[i:], '\n')
			if j < 0 {
				j = len(src)
			} else {
				j += i
			}
		case c == '[' && (strings.HasPrefix(src[i:], "[[") || strings.HasPrefix(src[i:], "[=")):
			k := i + 1
			for k < len(src) && src[k] == '=' {
				k++
			}
			if k < len(src) && src[k] == '[' {
				closing := "]" + strings.Repeat("=", k-i-1) + "]"
				if e := strings.Index(src[k:], closing); e >= 0 {
					j = k + e + len(closing)
				} else {
					j = len(src)
				}
			}
		case c == '"' || c == '\'':
			for j < len(src) && src[j] != c && src[j] != '\n' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			if j < len(src) {
				j++
			}
		case isWord(c):
			for j < len(src) && (isWord(src[j]) || c >= '0' && c <= '9' && src[j] == '.') {
				j++
			}
		case c == ' ' || c == '\n' || c == '\t':
			for j < len(src) && (src[j] == ' ' || src[j] == '\n' || src[j] == '\t') {
				j++
			}
		default:
			for _, op := range []string{"...", "..", "==", "~=", "<=", ">="} {
				if strings.HasPrefix(src[i:], op) {
					j = i + len(op)
					break
				}
			}
		}
		if j > len(src) {
			j = len(src)
		}
		out = append(out, src[i:j])
		i = j
	}
	return out
}

func isWord(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// vocabulary is what Mutate inserts: every token class, and the pieces
// of the lexer's error paths.
var vocabulary = []string{
	"and", "break", "do", "else", "elseif", "end", "false", "for", "function",
	"if", "in", "local", "nil", "not", "or", "repeat", "return", "then", "true",
	"until", "while", "goto", "..", "...", "==", ">=", "<=", "~=", "=", "<", ">",
	"+", "-", "*", "/", "%", "^", "#", "(", ")", "{", "}", "[", "]", ";", ":",
	",", ".", "x", "self", "arg", "1", "0x", "1e", "3..2", "'s", "\"", "[[",
	"]]", "[=", "--[[", "\\", "@", "$", "!", "`", "?", "&", "|", "~", "\x00",
	"\x01", "\x7f", "\xc3\xa9", "'\\400'", "\n", "'a\nb'", "0x1p4", ".5",
}

// Mutate changes src a little at the token level: a token deleted,
// doubled, replaced, swapped with the next, or the source cut short. The
// result rarely compiles; it is meant for the compiler's error paths.
func Mutate(r *rand.Rand, src string) string {
	toks := Tokens(src)
	if len(toks) == 0 {
		return vocabulary[r.Intn(len(vocabulary))]
	}
	i := r.Intn(len(toks))
	switch r.Intn(6) {
	case 0:
		toks = append(toks[:i], toks[i+1:]...)
	case 1:
		toks = append(toks[:i+1], toks[i:]...)
	case 2:
		if i+1 < len(toks) {
			toks[i], toks[i+1] = toks[i+1], toks[i]
		}
	case 3:
		toks = toks[:i]
	default:
		toks[i] = vocabulary[r.Intn(len(vocabulary))]
	}
	return strings.Join(toks, "")
}

// Deep returns a source of one of the shapes that break recursive
// compilers, about n tokens long: chains (a+a+..., f()()..., a.b.c...,
// and/or, elseif, concatenation), nesting (parentheses, blocks, functions,
// unary operators, constructors), long constructors and long statement
// lists, or a mix. Many are errors (200 syntax levels); all must compile
// or fail quickly.
func Deep(r *rand.Rand, n int) string {
	rep := func(s string, k int) string { return strings.Repeat(s, k) }
	switch r.Intn(14) {
	case 0:
		return "local a = 1 return a" + rep("+a", n)
	case 1:
		return "local function f() return f end return f" + rep("()", n)
	case 2:
		return "local t = {} t.x = t return t" + rep(".x", n)
	case 3:
		return "local a = 1 return a" + rep(" and a or a", n/2)
	case 4:
		return "local a = 1 if a then" + rep(" elseif a then", n) + " end"
	case 5:
		return "return 'a'" + rep("..'a'", n)
	case 6:
		return "return " + rep("(", n) + "1" + rep(")", n)
	case 7:
		return rep("do ", n) + rep("end ", n)
	case 8:
		return "return " + rep("function() return ", n) + "1" + rep(" end", n)
	case 9:
		return "return " + rep("-", n) + "1"
	case 10:
		return "return " + rep("{", n) + rep("}", n)
	case 11:
		return "return {" + rep("1,", n) + "}"
	case 12:
		var b strings.Builder
		for i := 0; i < n; i++ {
			b.WriteString("local x" + strconv.Itoa(i%300) + " = " + strconv.Itoa(i) + "\n")
		}
		return b.String()
	}
	// a mix: a random walk over the shapes above
	var b strings.Builder
	closers := []string{}
	b.WriteString("local a, t = 1, {} ")
	for i := 0; i < n; i++ {
		switch r.Intn(8) {
		case 0:
			b.WriteString("do ")
			closers = append(closers, " end ")
		case 1:
			b.WriteString("local f = function() ")
			closers = append(closers, " end ")
		case 2:
			b.WriteString("t = {")
			closers = append(closers, "} ")
		case 3:
			b.WriteString("a = (")
			closers = append(closers, "a) ")
		case 4:
			if len(closers) > 0 {
				b.WriteString(closers[len(closers)-1])
				closers = closers[:len(closers)-1]
			}
		default:
			b.WriteString("a = a" + rep("+a", r.Intn(20)) + " ")
		}
	}
	for i := len(closers) - 1; i >= 0; i-- {
		b.WriteString(closers[i])
	}
	return b.String()
}

// recFunc: a local function that calls itself (as an upvalue), a bounded
// number of times.
func (g *gen) recFunc() {
	if !g.canDeclare(1) {
		return
	}
	f := g.newName(kFn)
	g.line("local function " + f + "(n, acc)")
	g.line("  if n <= 0 then return acc end")
	g.line("  return " + f + "(n - 1, acc + n * " + g.numLit() + ")")
	g.line("end")
	g.probe(f + "(" + strconv.Itoa(g.intn(6)) + ", 0)")
	if g.chance(0.5) {
		// not a tail call: the frames stack up
		g.probe("(" + f + "(" + strconv.Itoa(g.intn(6)) + ", 1)) + 1")
	}
}

// nestedTable: fields of fields, read and written through chains.
func (g *gen) nestedTable() {
	if !g.canDeclare(1) {
		return
	}
	cons := "{a = {b = {c = " + g.expr(kNum, 1) + "}}, [1] = {" + g.expr(kNum, 1) + ", " + g.expr(kNum, 1) + "}, s = " + g.expr(kStr, 1) + "}"
	t := g.newName(kAny)
	g.line("local " + t + " = " + cons)
	g.add(variable{name: t, k: kAny})
	switch g.intn(3) {
	case 0:
		g.line(t + ".a.b.c, " + t + "[1][2] = " + g.expr(kNum, 2) + ", " + t + ".a.b.c")
	case 1:
		g.line(t + "[1][1] = " + t + "[1][1] + " + t + "[1][2] * " + g.expr(kNum, 2))
	default:
		g.line(t + ".a[\"b\"].c = " + t + ".a.b.c .. ''")
	}
	g.probe("S(" + t + ".a.b.c) .. '/' .. S(" + t + "[1][1]) .. '/' .. S(" + t + "[1][2]) .. " + t + ".s")
}

// conflict: an assignment whose table index is assigned in the same
// statement (lparser.c's check_conflict).
func (g *gen) conflict() {
	if !g.canDeclare(2) {
		return
	}
	i, t := g.newName(kAny), g.newName(kAny)
	g.add(variable{name: i, k: kAny})
	g.add(variable{name: t, k: kAny})
	g.line("local " + i + ", " + t + " = 1, {0, 0, 0}")
	switch g.intn(3) {
	case 0:
		g.line(i + ", " + t + "[" + i + "] = " + i + " + 1, " + g.expr(kNum, 1))
	case 1:
		g.line(t + "[" + i + "], " + i + ", " + t + "[" + i + " + 1] = " + i + " + 10, 3, " + i)
	default:
		g.line(t + ", " + t + "[" + i + "] = {7, 8}, " + g.expr(kNum, 1))
	}
	g.probe("S(" + i + ") .. ':' .. S(" + t + "[1]) .. ',' .. S(" + t + "[2]) .. ',' .. S(" + t + "[3])")
}

// loopClosures: closures over loop variables and locals of the body, with
// a break leaving the loop early.
func (g *gen) loopClosures() {
	if !g.canDeclare(1) {
		return
	}
	fs := g.newName(kAny)
	g.add(variable{name: fs, k: kAny})
	g.line("local " + fs + " = {}")
	k := strconv.Itoa(1 + g.intn(4))
	switch g.intn(3) {
	case 0:
		g.line("for i = 1, 4 do local j = i * 2 " + fs + "[i] = function() j = j + 1 return i + j end if i == " + k + " then break end end")
	case 1:
		g.line("do local i = 0 while i < 4 do i = i + 1 local j = i " + fs + "[i] = function() return j * 10 end if i == " + k + " then break end end end")
	default:
		g.line("do local i = 0 repeat i = i + 1 local j = i " + fs + "[i] = function() return j + 100 end until j >= " + k + " end")
	}
	g.probe("#" + fs + " .. ':' .. " + fs + "[1]() .. ':' .. " + fs + "[#" + fs + "]() .. ':' .. " + fs + "[1]()")
}

// earlyReturn: a function that returns from the middle of its blocks.
func (g *gen) earlyReturn() {
	if !g.canDeclare(1) {
		return
	}
	f := g.newName(kFn)
	g.line("local function " + f + "(x)")
	g.line("  for i = 1, 3 do if i == x then return i * 10 end end")
	g.line("  do if x == 0 then return 'zero' end end")
	g.line("  while true do if x then return x, 'more' else break end end")
	g.line("  return")
	g.line("end")
	g.add(variable{name: f, k: kAny})
	g.probe("table.concat({" + f + "(" + strconv.Itoa(g.intn(5)) + ")}, ',')")
	g.probe("select('#', " + f + "(nil))")
}
