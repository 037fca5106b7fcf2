package luaeval

import (
	"fmt"
	"strings"

	"github.com/minilock/minilock/luaeval/internal/lauxlib"
)

// checkSyntax reports the first syntax error Lua 5.1 would report for src,
// worded as Lua 5.1 words it ("user_script:1: '<eof>' expected near
// 'error'"), or nil. It ports the error paths of llex.c and lparser.c: the
// same tokens, the same grammar walk, the same limits (200 nesting levels,
// 200 locals per function). It builds no code; gopher-lua compiles the
// source afterwards. This is what makes compile errors byte-identical to
// Redis, and makes Lua 5.2 syntax that gopher-lua accepts (goto, labels) an
// error as in Redis.
func checkSyntax(src []byte, chunk string) (err error) {
	ls := &lexState{src: src, chunk: chunk, line: 1}
	defer func() {
		if r := recover(); r != nil {
			se, ok := r.(*syntaxError)
			if !ok {
				panic(r)
			}
			err = se
		}
	}()
	ls.next() // read first token
	fs := &funcState{vararg: true}
	ls.fs = fs
	ls.chunk_()
	ls.check(tkEOS)
	return nil
}

// Tokens: single characters are their byte value; the rest follow.
const (
	tkAnd = 257 + iota
	tkBreak
	tkDo
	tkElse
	tkElseif
	tkEnd
	tkFalse
	tkFor
	tkFunction
	tkIf
	tkIn
	tkLocal
	tkNil
	tkNot
	tkOr
	tkRepeat
	tkReturn
	tkThen
	tkTrue
	tkUntil
	tkWhile
	tkConcat
	tkDots
	tkEq
	tkGE
	tkLE
	tkNE
	tkNumber
	tkName
	tkString
	tkEOS
)

var tokenNames = [...]string{
	"and", "break", "do", "else", "elseif",
	"end", "false", "for", "function", "if",
	"in", "local", "nil", "not", "or", "repeat",
	"return", "then", "true", "until", "while",
	"..", "...", "==", ">=", "<=", "~=",
	"<number>", "<name>", "<string>", "<eof>",
}

var reserved = func() map[string]int {
	m := map[string]int{}
	for i := tkAnd; i <= tkWhile; i++ {
		m[tokenNames[i-tkAnd]] = i
	}
	return m
}()

const (
	maxSyntaxLevels = 200 // LUAI_MAXCCALLS
	maxVars         = 200 // LUAI_MAXVARS
)

type token struct {
	tok  int
	text string // raw text for names, strings and numbers (txtToken)
}

type funcState struct {
	prev    *funcState
	vararg  bool
	nactvar int
	blocks  []blockInfo
	line    int // line defined (0 for the main chunk)
}

type blockInfo struct {
	loop    bool
	nactvar int
}

type lexState struct {
	src      []byte
	pos      int
	chunk    string
	line     int
	lastline int
	t        token
	ahead    token
	hasAhead bool
	buf      []byte
	fs       *funcState
	level    int
}

func (ls *lexState) cur() int {
	if ls.pos < len(ls.src) {
		return int(ls.src[ls.pos])
	}
	return -1
}

func (ls *lexState) advance() { ls.pos++ }

func (ls *lexState) saveNext() {
	ls.buf = append(ls.buf, ls.src[ls.pos])
	ls.pos++
}

func token2str(tok int) string {
	if tok < 257 {
		if tok < 32 || tok == 127 {
			return fmt.Sprintf("char(%d)", tok)
		}
		return string([]byte{byte(tok)})
	}
	return tokenNames[tok-tkAnd]
}

func (ls *lexState) txtToken(t token) string {
	switch t.tok {
	case tkName, tkString, tkNumber:
		return t.text
	}
	return token2str(t.tok)
}

// lexError is luaX_lexerror: "chunk:line: msg near 'token'".
func (ls *lexState) lexError(msg string, t *token) {
	m := fmt.Sprintf("%s:%d: %s", ls.chunk, ls.line, msg)
	if t != nil {
		m += " near '" + ls.txtToken(*t) + "'"
	}
	panic(&syntaxError{msg: m})
}

func (ls *lexState) syntaxError(msg string) { ls.lexError(msg, &ls.t) }

func (ls *lexState) errorExpected(tok int) {
	ls.syntaxError("'" + token2str(tok) + "' expected")
}

func (ls *lexState) next() {
	ls.lastline = ls.line
	if ls.hasAhead {
		ls.t = ls.ahead
		ls.hasAhead = false
		return
	}
	ls.t = ls.lex()
}

func (ls *lexState) lookahead() token {
	if !ls.hasAhead {
		ls.ahead = ls.lex()
		ls.hasAhead = true
	}
	return ls.ahead
}

func isNewline(c int) bool { return c == '\n' || c == '\r' }

func isAlpha(c int) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isDigitC(c int) bool { return c >= '0' && c <= '9' }

func (ls *lexState) incLine() {
	old := ls.cur()
	ls.advance()
	if isNewline(ls.cur()) && ls.cur() != old {
		ls.advance()
	}
	ls.line++
}

// skipSep counts the '=' of a long bracket; see llex.c.
func (ls *lexState) skipSep() int {
	count := 0
	s := ls.cur()
	ls.saveNext()
	for ls.cur() == '=' {
		ls.saveNext()
		count++
	}
	if ls.cur() == s {
		return count
	}
	return -count - 1
}

func (ls *lexState) readLongString(isString bool, sep int) string {
	ls.saveNext() // skip 2nd '['
	if isNewline(ls.cur()) {
		ls.incLine()
	}
	for {
		switch c := ls.cur(); {
		case c == -1:
			msg := "unfinished long comment"
			if isString {
				msg = "unfinished long string"
			}
			ls.lexError(msg, &token{tok: tkEOS})
		case c == '[':
			if ls.skipSep() == sep {
				ls.saveNext()
				if sep == 0 {
					ls.lexError("nesting of [[...]] is deprecated", &token{tok: '['})
				}
			}
		case c == ']':
			if ls.skipSep() == sep {
				ls.saveNext()
				return string(ls.buf)
			}
		case isNewline(c):
			ls.buf = append(ls.buf, '\n')
			ls.incLine()
		default:
			ls.saveNext()
		}
	}
}

func (ls *lexState) readString(del int) string {
	ls.saveNext()
	for ls.cur() != del {
		switch c := ls.cur(); {
		case c == -1:
			ls.lexError("unfinished string", &token{tok: tkEOS})
		case isNewline(c):
			ls.lexError("unfinished string", &token{tok: tkString, text: string(ls.buf)})
		case c == '\\':
			ls.advance()
			switch e := ls.cur(); {
			case e == 'a', e == 'b', e == 'f', e == 'n', e == 'r', e == 't', e == 'v':
				ls.buf = append(ls.buf, "\a\b\f\n\r\t\v"[strings.IndexByte("abfnrtv", byte(e))])
				ls.advance()
			case isNewline(e):
				ls.buf = append(ls.buf, '\n')
				ls.incLine()
			case e == -1:
				// raises at the top of the loop
			case isDigitC(e):
				v := 0
				for i := 0; i < 3 && isDigitC(ls.cur()); i++ {
					v = 10*v + ls.cur() - '0'
					ls.advance()
				}
				if v > 255 {
					ls.lexError("escape sequence too large", &token{tok: tkString, text: string(ls.buf)})
				}
				ls.buf = append(ls.buf, byte(v))
			default:
				ls.saveNext()
			}
		default:
			ls.saveNext()
		}
	}
	ls.saveNext()
	return string(ls.buf)
}

func (ls *lexState) readNumeral() string {
	for isDigitC(ls.cur()) || ls.cur() == '.' {
		ls.saveNext()
	}
	if c := ls.cur(); c == 'e' || c == 'E' {
		ls.saveNext()
		if c := ls.cur(); c == '+' || c == '-' {
			ls.saveNext()
		}
	}
	for c := ls.cur(); isAlpha(c) || isDigitC(c) || c == '_'; c = ls.cur() {
		ls.saveNext()
	}
	text := string(ls.buf)
	if _, ok := luaStr2d(text); !ok {
		ls.lexError("malformed number", &token{tok: tkNumber, text: text})
	}
	return text
}

// luaStr2d is lobject.c:luaO_str2d as the lexer uses it (strtod, then
// strtoul for a hex constant).
func luaStr2d(s string) (float64, bool) {
	n, f := lauxlib.ScanNumber(s)
	if n == 0 {
		return 0, false
	}
	rest := s[n:]
	if rest != "" && (rest[0] == 'x' || rest[0] == 'X') {
		// strtod stopped at the 'x' of "0x" with no digits after it.
		return 0, false
	}
	return f, strings.TrimRight(rest, " \t\n\r\v\f") == ""
}

func (ls *lexState) lex() token {
	ls.buf = ls.buf[:0]
	for {
		c := ls.cur()
		switch {
		case c == -1:
			return token{tok: tkEOS}
		case isNewline(c):
			ls.incLine()
		case c == '-':
			ls.advance()
			if ls.cur() != '-' {
				return token{tok: '-'}
			}
			ls.advance()
			if ls.cur() == '[' {
				sep := ls.skipSep()
				ls.buf = ls.buf[:0]
				if sep >= 0 {
					ls.readLongString(false, sep)
					ls.buf = ls.buf[:0]
					continue
				}
			}
			for ls.cur() != -1 && !isNewline(ls.cur()) {
				ls.advance()
			}
		case c == '[':
			sep := ls.skipSep()
			if sep >= 0 {
				return token{tok: tkString, text: ls.readLongString(true, sep)}
			}
			if sep == -1 {
				return token{tok: '['}
			}
			ls.lexError("invalid long string delimiter", &token{tok: tkString, text: string(ls.buf)})
		case c == '=':
			ls.advance()
			if ls.cur() != '=' {
				return token{tok: '='}
			}
			ls.advance()
			return token{tok: tkEq}
		case c == '<':
			ls.advance()
			if ls.cur() != '=' {
				return token{tok: '<'}
			}
			ls.advance()
			return token{tok: tkLE}
		case c == '>':
			ls.advance()
			if ls.cur() != '=' {
				return token{tok: '>'}
			}
			ls.advance()
			return token{tok: tkGE}
		case c == '~':
			ls.advance()
			if ls.cur() != '=' {
				return token{tok: '~'}
			}
			ls.advance()
			return token{tok: tkNE}
		case c == '"' || c == '\'':
			return token{tok: tkString, text: ls.readString(c)}
		case c == '.':
			ls.saveNext()
			if ls.cur() == '.' {
				ls.saveNext()
				if ls.cur() == '.' {
					ls.saveNext()
					return token{tok: tkDots}
				}
				return token{tok: tkConcat}
			}
			if !isDigitC(ls.cur()) {
				return token{tok: '.'}
			}
			return token{tok: tkNumber, text: ls.readNumeral()}
		case c == ' ' || c == '\t' || c == '\v' || c == '\f':
			ls.advance()
		case isDigitC(c):
			return token{tok: tkNumber, text: ls.readNumeral()}
		case isAlpha(c) || c == '_':
			for c := ls.cur(); isAlpha(c) || isDigitC(c) || c == '_'; c = ls.cur() {
				ls.saveNext()
			}
			s := string(ls.buf)
			if r, ok := reserved[s]; ok {
				return token{tok: r}
			}
			return token{tok: tkName, text: s}
		default:
			ls.advance()
			return token{tok: c}
		}
	}
}

// ---- parser (lparser.c), error paths only ----

func (ls *lexState) check(tok int) {
	if ls.t.tok != tok {
		ls.errorExpected(tok)
	}
}

func (ls *lexState) checkNext(tok int) {
	ls.check(tok)
	ls.next()
}

func (ls *lexState) testNext(tok int) bool {
	if ls.t.tok == tok {
		ls.next()
		return true
	}
	return false
}

func (ls *lexState) checkMatch(what, who, where int) {
	if !ls.testNext(what) {
		if where == ls.line {
			ls.errorExpected(what)
		}
		ls.syntaxError(fmt.Sprintf("'%s' expected (to close '%s' at line %d)", token2str(what), token2str(who), where))
	}
}

func (ls *lexState) checkName() {
	ls.check(tkName)
	ls.next()
}

func (ls *lexState) enterLevel() {
	ls.level++
	if ls.level > maxSyntaxLevels {
		ls.lexError("chunk has too many syntax levels", nil)
	}
}

func (ls *lexState) leaveLevel() { ls.level-- }

func blockFollow(tok int) bool {
	switch tok {
	case tkElse, tkElseif, tkEnd, tkUntil, tkEOS:
		return true
	}
	return false
}

func (ls *lexState) newLocals(n int) {
	fs := ls.fs
	if fs.nactvar+n > maxVars {
		where := "main function"
		if fs.line != 0 {
			where = fmt.Sprintf("function at line %d", fs.line)
		}
		ls.lexError(fmt.Sprintf("%s has more than %d local variables", where, maxVars), nil)
	}
}

func (ls *lexState) addLocals(n int) {
	ls.newLocals(n)
	ls.fs.nactvar += n
}

func (ls *lexState) enterBlock(loop bool) {
	ls.fs.blocks = append(ls.fs.blocks, blockInfo{loop: loop, nactvar: ls.fs.nactvar})
}

func (ls *lexState) leaveBlock() {
	fs := ls.fs
	b := fs.blocks[len(fs.blocks)-1]
	fs.blocks = fs.blocks[:len(fs.blocks)-1]
	fs.nactvar = b.nactvar
}

func (ls *lexState) chunk_() {
	ls.enterLevel()
	last := false
	for !last && !blockFollow(ls.t.tok) {
		last = ls.statement()
		ls.testNext(';')
	}
	ls.leaveLevel()
}

func (ls *lexState) block() {
	ls.enterBlock(false)
	ls.chunk_()
	ls.leaveBlock()
}

func (ls *lexState) statement() bool {
	line := ls.line
	switch ls.t.tok {
	case tkIf:
		ls.ifStat(line)
	case tkWhile:
		ls.next()
		ls.expr()
		ls.checkNext(tkDo)
		ls.loopBlock()
		ls.checkMatch(tkEnd, tkWhile, line)
	case tkDo:
		ls.next()
		ls.block()
		ls.checkMatch(tkEnd, tkDo, line)
	case tkFor:
		ls.forStat(line)
	case tkRepeat:
		ls.next()
		ls.enterBlock(true)
		ls.enterBlock(false)
		ls.chunk_()
		ls.checkMatch(tkUntil, tkRepeat, line)
		ls.expr()
		ls.leaveBlock()
		ls.leaveBlock()
	case tkFunction:
		ls.next()
		ls.checkName()
		for ls.t.tok == '.' {
			ls.next()
			ls.checkName()
		}
		if ls.t.tok == ':' {
			ls.next()
			ls.checkName()
			ls.body(true, line)
		} else {
			ls.body(false, line)
		}
	case tkLocal:
		ls.next()
		if ls.testNext(tkFunction) {
			ls.checkName()
			ls.addLocals(1)
			ls.body(false, line)
		} else {
			n := 0
			for {
				ls.checkName()
				n++
				ls.newLocals(n)
				if !ls.testNext(',') {
					break
				}
			}
			if ls.testNext('=') {
				ls.exprList()
			}
			ls.fs.nactvar += n
		}
	case tkReturn:
		ls.next()
		if !blockFollow(ls.t.tok) && ls.t.tok != ';' {
			ls.exprList()
		}
		return true
	case tkBreak:
		ls.next()
		inLoop := false
		for _, b := range ls.fs.blocks {
			if b.loop {
				inLoop = true
			}
		}
		if !inLoop {
			ls.syntaxError("no loop to break")
		}
		return true
	default:
		ls.exprStat()
	}
	return false
}

func (ls *lexState) loopBlock() {
	ls.enterBlock(true)
	ls.block()
	ls.leaveBlock()
}

func (ls *lexState) ifStat(line int) {
	ls.next()
	ls.expr()
	ls.checkNext(tkThen)
	ls.block()
	for ls.t.tok == tkElseif {
		ls.next()
		ls.expr()
		ls.checkNext(tkThen)
		ls.block()
	}
	if ls.t.tok == tkElse {
		ls.next()
		ls.block()
	}
	ls.checkMatch(tkEnd, tkIf, line)
}

func (ls *lexState) forStat(line int) {
	ls.enterBlock(true)
	ls.next()
	ls.checkName()
	switch ls.t.tok {
	case '=':
		ls.next()
		ls.expr()
		ls.checkNext(',')
		ls.expr()
		if ls.testNext(',') {
			ls.expr()
		}
		ls.addLocals(3) // (for index), (for limit), (for step)
		ls.forBody(1)
	case ',', tkIn:
		n := 1
		for ls.testNext(',') {
			ls.checkName()
			n++
		}
		ls.checkNext(tkIn)
		ls.exprList()
		ls.addLocals(3) // (for generator), (for state), (for control)
		ls.forBody(n)
	default:
		ls.syntaxError("'=' or 'in' expected")
	}
	ls.checkMatch(tkEnd, tkFor, line)
	ls.leaveBlock()
}

func (ls *lexState) forBody(nvars int) {
	ls.checkNext(tkDo)
	ls.enterBlock(false)
	ls.addLocals(nvars)
	ls.block()
	ls.leaveBlock()
}

func (ls *lexState) body(method bool, line int) {
	fs := &funcState{prev: ls.fs, line: line}
	ls.fs = fs
	if method {
		ls.addLocals(1) // self
	}
	ls.checkNext('(')
	if ls.t.tok != ')' {
		for {
			switch ls.t.tok {
			case tkName:
				ls.next()
				ls.addLocals(1)
			case tkDots:
				ls.next()
				fs.vararg = true
			default:
				ls.syntaxError("<name> or '...' expected")
			}
			if fs.vararg || !ls.testNext(',') {
				break
			}
		}
	}
	ls.checkNext(')')
	ls.chunk_()
	ls.checkMatch(tkEnd, tkFunction, line)
	ls.fs = fs.prev
}

func (ls *lexState) exprList() {
	ls.expr()
	for ls.testNext(',') {
		ls.expr()
	}
}

// Kinds of primary expressions, for exprStat.
const (
	expVar   = iota // assignable: name, field or index
	expCall         // a function call
	expParen        // (expr): a value, not assignable
)

// exprStat is a function call or an assignment.
func (ls *lexState) exprStat() {
	k := ls.primaryExp()
	if k == expCall {
		return
	}
	for {
		if k != expVar {
			ls.syntaxError("syntax error")
		}
		if !ls.testNext(',') {
			break
		}
		k = ls.primaryExp()
	}
	ls.checkNext('=')
	ls.exprList()
}

// primaryExp reads prefixexp { suffix } and says what kind it was.
func (ls *lexState) primaryExp() int {
	kind := expVar
	switch ls.t.tok {
	case '(':
		line := ls.line
		ls.next()
		ls.expr()
		ls.checkMatch(')', '(', line)
		kind = expParen
	case tkName:
		ls.next()
	default:
		ls.syntaxError("unexpected symbol")
	}
	for {
		switch ls.t.tok {
		case '.':
			ls.next()
			ls.checkName()
			kind = expVar
		case '[':
			ls.next()
			ls.expr()
			ls.checkNext(']')
			kind = expVar
		case ':':
			ls.next()
			ls.checkName()
			ls.funcArgs()
			kind = expCall
		case '(', tkString, '{':
			ls.funcArgs()
			kind = expCall
		default:
			return kind
		}
	}
}

func (ls *lexState) funcArgs() {
	line := ls.line
	switch ls.t.tok {
	case '(':
		if line != ls.lastline {
			ls.syntaxError("ambiguous syntax (function call x new statement)")
		}
		ls.next()
		if ls.t.tok != ')' {
			ls.exprList()
		}
		ls.checkMatch(')', '(', line)
	case '{':
		ls.constructor()
	case tkString:
		ls.next()
	default:
		ls.syntaxError("function arguments expected")
	}
}

func (ls *lexState) constructor() {
	line := ls.line
	ls.checkNext('{')
	for ls.t.tok != '}' {
		switch ls.t.tok {
		case tkName:
			if ls.lookahead().tok != '=' {
				ls.expr()
			} else {
				ls.next()
				ls.checkNext('=')
				ls.expr()
			}
		case '[':
			ls.next()
			ls.expr()
			ls.checkNext(']')
			ls.checkNext('=')
			ls.expr()
		default:
			ls.expr()
		}
		if !ls.testNext(',') && !ls.testNext(';') {
			break
		}
	}
	ls.checkMatch('}', '{', line)
}

func (ls *lexState) expr() { ls.subExpr(0) }

// binary operator priorities (left, right), lparser.c:priority.
func binaryPriority(tok int) (int, int, bool) {
	switch tok {
	case '+', '-':
		return 6, 6, true
	case '*', '/', '%':
		return 7, 7, true
	case '^':
		return 10, 9, true
	case tkConcat:
		return 5, 4, true
	case tkNE, tkEq, '<', tkLE, '>', tkGE:
		return 3, 3, true
	case tkAnd:
		return 2, 2, true
	case tkOr:
		return 1, 1, true
	}
	return 0, 0, false
}

const unaryPriority = 8

func (ls *lexState) subExpr(limit int) {
	ls.enterLevel()
	switch ls.t.tok {
	case tkNot, '-', '#':
		ls.next()
		ls.subExpr(unaryPriority)
	default:
		ls.simpleExp()
	}
	for {
		left, right, ok := binaryPriority(ls.t.tok)
		if !ok || left <= limit {
			break
		}
		ls.next()
		ls.subExpr(right)
	}
	ls.leaveLevel()
}

func (ls *lexState) simpleExp() {
	switch ls.t.tok {
	case tkNumber, tkString, tkNil, tkTrue, tkFalse:
		ls.next()
	case tkDots:
		if !ls.fs.vararg {
			ls.syntaxError("cannot use '...' outside a vararg function")
		}
		ls.next()
	case '{':
		ls.constructor()
	case tkFunction:
		line := ls.line
		ls.next()
		ls.body(false, line)
	default:
		ls.primaryExp()
	}
}
