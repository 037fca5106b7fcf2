package luac

import (
	"strconv"
	"strings"

	"github.com/minilock/minilock/luaeval/internal/lauxlib"
)

// The lexer: llex.c. Tokens are single bytes (their value) or the
// constants below, in llex.h's order.

const firstReserved = 257

const (
	tkAnd = firstReserved + iota
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
	// other terminal symbols
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
	m := make(map[string]int, tkWhile-firstReserved+1)
	for i := tkAnd; i <= tkWhile; i++ {
		m[tokenNames[i-firstReserved]] = i
	}
	return m
}()

const eoz = -1 // end of input (lzio.h's EOZ)

// token is a token and its semantic value (llex.h's Token and SemInfo).
type token struct {
	tok int
	s   string  // tkName, tkString
	r   float64 // tkNumber
}

// next is llex.c's next(ls): read the following byte into current.
func (ls *lexState) next() {
	if ls.pos < len(ls.src) {
		ls.current = int(ls.src[ls.pos])
		ls.pos++
	} else {
		ls.current = eoz
	}
}

func (ls *lexState) currIsNewline() bool { return ls.current == '\n' || ls.current == '\r' }

// save appends c to the token buffer. The buffer is what error messages
// quote ("near '...'"), exactly as Lua's is.
func (ls *lexState) save(c int) { ls.buff = append(ls.buff, byte(c)) }

func (ls *lexState) saveAndNext() {
	ls.save(ls.current)
	ls.next()
}

// The C library's <ctype.h> classes in the "C" locale, which Redis keeps
// for LC_CTYPE.
func isDigit(c int) bool { return c >= '0' && c <= '9' }
func isAlpha(c int) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isAlnum(c int) bool { return isAlpha(c) || isDigit(c) }
func isSpace(c int) bool { return c == ' ' || c >= '\t' && c <= '\r' }
func isCntrl(c int) bool { return c >= 0 && c < 32 || c == 127 }

// token2str is luaX_token2str.
func token2str(tok int) string {
	if tok < firstReserved {
		if isCntrl(tok) {
			return "char(" + strconv.Itoa(tok) + ")"
		}
		return string([]byte{byte(tok)})
	}
	return tokenNames[tok-firstReserved]
}

// txtToken is llex.c's txtToken: names, strings and numbers are quoted
// from the token buffer as C sees it (up to its first NUL byte).
func (ls *lexState) txtToken(tok int) string {
	switch tok {
	case tkName, tkString, tkNumber:
		b := ls.buff
		if i := strings.IndexByte(string(b), 0); i >= 0 {
			b = b[:i]
		}
		return string(b)
	}
	return token2str(tok)
}

// lexError is luaX_lexerror: "chunk:line: msg near 'token'"; token 0 (a NUL
// byte in the source, or no token) leaves out the "near" part, as in C.
func (ls *lexState) lexError(msg string, tok int) {
	m := ls.source + ":" + strconv.Itoa(ls.linenumber) + ": " + msg
	if tok != 0 {
		m += " near '" + ls.txtToken(tok) + "'"
	}
	panic(&Error{Msg: m})
}

// syntaxError is luaX_syntaxerror.
func (ls *lexState) syntaxError(msg string) { ls.lexError(msg, ls.t.tok) }

// runError is luaG_runerror raised while compiling: no position (Redis
// compiles from C), as for "constant table overflow".
func (ls *lexState) runError(msg string) { panic(&Error{Msg: msg}) }

func (ls *lexState) inclinenumber() {
	old := ls.current
	ls.next() // skip '\n' or '\r'
	if ls.currIsNewline() && ls.current != old {
		ls.next() // skip "\n\r" or "\r\n"
	}
	ls.linenumber++
	if ls.linenumber >= maxInt {
		ls.syntaxError("chunk has too many lines")
	}
}

// checkNext is llex.c's check_next, strchr and all: a NUL byte matches
// any set (strchr finds the set's terminator).
func (ls *lexState) checkNext(set string) bool {
	c := ls.current
	if c == eoz || c != 0 && strings.IndexByte(set, byte(c)) < 0 {
		return false
	}
	ls.saveAndNext()
	return true
}

// readNumeral is read_numeral; the value is luaO_str2d's.
func (ls *lexState) readNumeral(t *token) {
	for {
		ls.saveAndNext()
		if !isDigit(ls.current) && ls.current != '.' {
			break
		}
	}
	if ls.checkNext("Ee") { // 'E'?
		ls.checkNext("+-") // optional exponent sign
	}
	for isAlnum(ls.current) || ls.current == '_' {
		ls.saveAndNext()
	}
	ls.save(0)
	r, ok := str2d(ls.buff)
	if !ok {
		ls.lexError("malformed number", tkNumber)
	}
	t.r = r
}

// str2d is lobject.c:luaO_str2d on a C string: strtod, then strtoul for a
// hexadecimal constant, then only white space may follow.
func str2d(b []byte) (float64, bool) {
	s := string(b)
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	n, r := lauxlib.ScanNumber(s)
	if n == 0 {
		return 0, false
	}
	rest := s[n:]
	if rest != "" && (rest[0] == 'x' || rest[0] == 'X') {
		// strtod stopped at the 'x' of a "0x" without digits; strtoul
		// stops there too.
		return 0, false
	}
	return r, strings.TrimLeft(rest, " \t\n\v\f\r") == ""
}

// skipSep is skip_sep: the level of a long bracket, or -(level)-1 when the
// brackets do not match.
func (ls *lexState) skipSep() int {
	count := 0
	s := ls.current
	ls.saveAndNext()
	for ls.current == '=' {
		ls.saveAndNext()
		count++
	}
	if ls.current == s {
		return count
	}
	return -count - 1
}

// readLongString is read_long_string; t is nil for a long comment.
func (ls *lexState) readLongString(t *token, sep int) {
	ls.saveAndNext() // skip 2nd '['
	if ls.currIsNewline() {
		ls.inclinenumber() // string starts with a newline: skip it
	}
	for {
		switch ls.current {
		case eoz:
			if t != nil {
				ls.lexError("unfinished long string", tkEOS)
			}
			ls.lexError("unfinished long comment", tkEOS)
		case '[':
			// LUA_COMPAT_LSTR: Redis 7.0.15's deps/lua raises "nesting of
			// [[...]] is deprecated" here, but the redis-server minilock is
			// checked against (the distribution's 7.0.15) accepts a nested
			// "[[" as text, and so does minilock.
			if ls.skipSep() == sep {
				ls.saveAndNext() // skip 2nd '['
			}
		case ']':
			if ls.skipSep() == sep {
				ls.saveAndNext() // skip 2nd ']'
				if t != nil {
					t.s = string(ls.buff[2+sep : len(ls.buff)-(2+sep)])
				}
				return
			}
		case '\n', '\r':
			ls.save('\n')
			ls.inclinenumber()
			if t == nil {
				ls.buff = ls.buff[:0] // avoid wasting space
			}
		default:
			if t != nil {
				ls.saveAndNext()
			} else {
				ls.next()
			}
		}
	}
}

// readString is read_string.
func (ls *lexState) readString(del int, t *token) {
	ls.saveAndNext()
	for ls.current != del {
		switch ls.current {
		case eoz:
			ls.lexError("unfinished string", tkEOS)
		case '\n', '\r':
			ls.lexError("unfinished string", tkString)
		case '\\':
			var c int
			ls.next() // do not save the '\'
			switch ls.current {
			case 'a':
				c = '\a'
			case 'b':
				c = '\b'
			case 'f':
				c = '\f'
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			case 't':
				c = '\t'
			case 'v':
				c = '\v'
			case '\n', '\r':
				ls.save('\n')
				ls.inclinenumber()
				continue
			case eoz:
				continue // raises an error next loop
			default:
				if !isDigit(ls.current) {
					ls.saveAndNext() // handles \\, \", \', and \?
				} else { // \xxx
					c = 0
					for i := 0; ; {
						c = 10*c + (ls.current - '0')
						ls.next()
						i++
						if i >= 3 || !isDigit(ls.current) {
							break
						}
					}
					if c > 255 {
						ls.lexError("escape sequence too large", tkString)
					}
					ls.save(c)
				}
				continue
			}
			ls.save(c)
			ls.next()
		default:
			ls.saveAndNext()
		}
	}
	ls.saveAndNext() // skip delimiter
	t.s = string(ls.buff[1 : len(ls.buff)-1])
}

// llex reads the next token into t.
func (ls *lexState) llex(t *token) int {
	ls.buff = ls.buff[:0]
	for {
		switch c := ls.current; c {
		case '\n', '\r':
			ls.inclinenumber()
			continue
		case '-':
			ls.next()
			if ls.current != '-' {
				return '-'
			}
			// a comment
			ls.next()
			if ls.current == '[' {
				sep := ls.skipSep()
				ls.buff = ls.buff[:0] // skipSep may dirty the buffer
				if sep >= 0 {
					ls.readLongString(nil, sep) // long comment
					ls.buff = ls.buff[:0]
					continue
				}
			}
			// a short comment
			for !ls.currIsNewline() && ls.current != eoz {
				ls.next()
			}
			continue
		case '[':
			sep := ls.skipSep()
			if sep >= 0 {
				ls.readLongString(t, sep)
				return tkString
			} else if sep == -1 {
				return '['
			}
			ls.lexError("invalid long string delimiter", tkString)
		case '=':
			ls.next()
			if ls.current != '=' {
				return '='
			}
			ls.next()
			return tkEq
		case '<':
			ls.next()
			if ls.current != '=' {
				return '<'
			}
			ls.next()
			return tkLE
		case '>':
			ls.next()
			if ls.current != '=' {
				return '>'
			}
			ls.next()
			return tkGE
		case '~':
			ls.next()
			if ls.current != '=' {
				return '~'
			}
			ls.next()
			return tkNE
		case '"', '\'':
			ls.readString(c, t)
			return tkString
		case '.':
			ls.saveAndNext()
			if ls.checkNext(".") {
				if ls.checkNext(".") {
					return tkDots // ...
				}
				return tkConcat // ..
			} else if !isDigit(ls.current) {
				return '.'
			}
			ls.readNumeral(t)
			return tkNumber
		case eoz:
			return tkEOS
		default:
			if isSpace(c) {
				ls.next()
				continue
			} else if isDigit(c) {
				ls.readNumeral(t)
				return tkNumber
			} else if isAlpha(c) || c == '_' {
				// identifier or reserved word
				for {
					ls.saveAndNext()
					if !isAlnum(ls.current) && ls.current != '_' {
						break
					}
				}
				if r, ok := reserved[string(ls.buff)]; ok {
					return r
				}
				t.s = ls.intern(ls.buff)
				return tkName
			}
			ls.next()
			return c // single-char tokens (+ - / ...)
		}
	}
}

// intern returns b as a string, one copy per distinct name.
func (ls *lexState) intern(b []byte) string {
	if s, ok := ls.names[string(b)]; ok {
		return s
	}
	s := string(b)
	ls.names[s] = s
	return s
}

// luaXNext is luaX_next. Every interruptEvery tokens it asks the caller
// whether to go on.
func (ls *lexState) luaXNext() {
	ls.lastline = ls.linenumber
	if ls.ahead.tok != tkEOS { // a look-ahead token?
		ls.t = ls.ahead
		ls.ahead.tok = tkEOS
	} else {
		ls.t.tok = ls.llex(&ls.t)
	}
	ls.ntokens++
	if ls.ntokens >= ls.pollAt {
		ls.poll()
	}
}

// lookahead is luaX_lookahead.
func (ls *lexState) lookahead() {
	ls.ahead.tok = ls.llex(&ls.ahead)
}
