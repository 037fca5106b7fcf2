package lstrlib

import (
	"errors"
	"strings"
	"sync"
)

// MaxCaptures is LUA_MAXCAPTURES: captures one pattern may open.
const MaxCaptures = 32

// MaxDepth bounds the matcher's backtracking frames: the nesting of
// pattern items that C's match() would recurse into. Redis dies past about
// 175,000 (see the package doc); a frame is frameBytes, so the deepest
// match holds about 8 MiB, charged to the script.
const MaxDepth = 200_000

// pollEvery is how many matcher steps pass between two polls of
// Env.Stopped.
const pollEvery = 1024

// Env is what the matcher asks of the running script.
type Env interface {
	// Alloc is told, before a buffer grows, of the n bytes it will hold;
	// false when the script may not have them.
	Alloc(n int) bool
	// Stopped is the error that ends the script once it has been stopped
	// (SCRIPT KILL), nil while it may go on.
	Stopped() error
}

// Error is what lstrlib.c raises with luaL_error: the message, without the
// position luaL_error prepends.
type Error string

func (e Error) Error() string { return string(e) }

// ErrNoMemory is returned when Env.Alloc refused an allocation.
var ErrNoMemory = errors.New("not enough memory")

// ErrTooComplex is returned past MaxDepth nested frames.
const ErrTooComplex = Error("pattern too complex")

const (
	capUnfinished = -1
	capPosition   = -2
)

type capture struct{ init, len int }

// Frame kinds: each is one of C's recursive calls to match() that still
// has work to do when the inner match returns.
const (
	fStartCapture = iota // start_capture: on failure, drop the capture
	fEndCapture          // end_capture: on failure, reopen capture i
	fOptional            // '?': on failure, go on without the item
	fMaxExpand           // max_expand: on failure, one repetition fewer
	fMinExpand           // min_expand: on failure, one repetition more
)

type frame struct {
	kind     uint8
	s, p, ep int
	i        int // the capture (fEndCapture) or the repetitions (fMaxExpand)
}

const frameBytes = 40

// firstStack is how many frames a matcher's stack starts with.
const firstStack = 16

// Matcher is lstrlib.c's MatchState: a subject, a pattern and the
// captures of the last match.
type Matcher struct {
	src     string
	pat     string // cut at its first NUL: the C code sees a C string
	level   int    // captures, finished or not
	capture [MaxCaptures]capture
	stack   []frame // all its slots: top says how many are in use
	top     int
	env     Env
	steps   int
	err     error
	out     Buffer // GsubTo's result, in the pooled matcher rather than a new Buffer
	// first is what a match's first byte must be (see NextStart):
	// firstUnknown until NextStart looks, firstAny when it cannot say,
	// a byte, or firstClass (a %class, in class).
	first int
	class uint16
}

// skipStarts turns NextStart on; the tests turn it off to compare with
// trying every position, as lstrlib.c does.
var skipStarts = true

const (
	firstUnknown = -1
	firstAny     = -2
	firstClass   = -3
)

// NewMatcher returns a matcher of pattern pat (from its first byte; the
// caller strips an anchoring '^') against subject src.
func NewMatcher(env Env, src, pat string) *Matcher {
	if i := strings.IndexByte(pat, 0); i >= 0 {
		pat = pat[:i]
	}
	m, _ := matchers.Get().(*Matcher)
	if m == nil {
		m = new(Matcher)
	}
	// Field by field: the captures past level are never read (every
	// reader checks level first), and zeroing them is half of a short
	// find's cost.
	m.src, m.pat, m.env = src, pat, env
	m.level, m.top, m.steps, m.err = 0, 0, 0, nil
	m.first = firstUnknown
	return m
}

// matchers holds the matchers given back by Release: a Matcher is about a
// kilobyte (its captures and first stack), allocated by every find, match
// and gsub before.
var matchers sync.Pool

// Release gives m back for a later NewMatcher; m must not be used after.
// A stack grown past its first size is dropped with it.
func (m *Matcher) Release() {
	if len(m.stack) > firstStack {
		m.stack = nil
	}
	// What the pool must not keep alive: the subject, the pattern and
	// the script's Env (GsubTo keeps a short buffer).
	m.src, m.pat, m.env, m.err = "", "", nil, nil
	m.out.env = nil
	matchers.Put(m)
}

// Anchored reports whether pattern p starts with '^' (and returns the rest),
// as str_find_aux and str_gsub check it.
func Anchored(p string) (string, bool) {
	if len(p) > 0 && p[0] == '^' {
		return p[1:], true
	}
	return p, false
}

// pc is *p: the pattern's byte at i, NUL past its end.
func (m *Matcher) pc(i int) byte {
	if i < len(m.pat) {
		return m.pat[i]
	}
	return 0
}

// sc is *s: the subject's byte at i, NUL at its end (Lua strings end in a
// NUL the matcher may read).
func (m *Matcher) sc(i int) byte {
	if i < len(m.src) {
		return m.src[i]
	}
	return 0
}

func (m *Matcher) fail(err error) int {
	if m.err == nil {
		m.err = err
	}
	return -1
}

// poll counts a step and, every pollEvery steps, reports whether the
// script was stopped.
func (m *Matcher) poll() bool {
	if m.steps++; m.steps%pollEvery != 0 {
		return false
	}
	return m.stopped()
}

// stopped asks Env now; loops that take no steps (counting repetitions,
// balancing) call it every 64 KiB of subject.
func (m *Matcher) stopped() bool {
	if err := m.env.Stopped(); err != nil {
		m.fail(err)
		return true
	}
	return false
}

// push writes a frame's fields straight into its slot: a frame built
// apart and copied in was read back before its bytes had all been stored
// (a stalled store-to-load forward, a quarter of a short gsub's time).
// A frame holds no pointers: no write barrier either.
func (m *Matcher) push(kind uint8, s, p, ep, i int) bool {
	if m.top == len(m.stack) && !m.grow() {
		return false
	}
	f := &m.stack[m.top]
	f.kind, f.s, f.p, f.ep, f.i = kind, s, p, ep, i
	m.top++
	return true
}

// grow makes room for one more frame, charged to the script, or fails
// with ErrTooComplex past MaxDepth.
func (m *Matcher) grow() bool {
	if m.top >= MaxDepth {
		m.fail(ErrTooComplex)
		return false
	}
	n := min(2*len(m.stack)+firstStack, MaxDepth)
	if !m.env.Alloc(n * frameBytes) {
		m.fail(ErrNoMemory)
		return false
	}
	s := make([]frame, n)
	copy(s, m.stack[:m.top])
	m.stack = s
	return true
}

// Match is match(ms, s, p) from a fresh start (ms->level = 0): the end of
// the match of the pattern from p at subject position s, or -1.
func (m *Matcher) Match(s, p int) (int, error) {
	m.level = 0
	m.top = 0
	r := m.run(s, p)
	if m.err != nil {
		return -1, m.err
	}
	return r, nil
}

// run is match() with its recursion turned into m.stack: it descends
// (C's calls, and its gotos for tail calls) until a result is known, then
// hands that result back to the frames, which may descend again.
func (m *Matcher) run(s, p int) int {
	var r int
loop:
	for {
	descend:
		for {
			if m.poll() {
				return -1
			}
			switch m.pc(p) {
			case '(':
				if m.level >= MaxCaptures {
					return m.fail(Error("too many captures"))
				}
				what, next := capUnfinished, p+1
				if m.pc(p+1) == ')' {
					what, next = capPosition, p+2
				}
				m.capture[m.level] = capture{s, what}
				m.level++
				if !m.push(fStartCapture, 0, 0, 0, 0) {
					return -1
				}
				p = next
				continue
			case ')':
				l := m.captureToClose()
				if l < 0 {
					return -1
				}
				m.capture[l].len = s - m.capture[l].init
				if !m.push(fEndCapture, 0, 0, 0, l) {
					return -1
				}
				p++
				continue
			case 0:
				r = s
				break descend
			case '$':
				if m.pc(p+1) == 0 {
					r = -1
					if s == len(m.src) {
						r = s
					}
					break descend
				}
			case '%':
				switch c := m.pc(p + 1); {
				case c == 'b':
					if s = m.matchBalance(s, p+2); s < 0 {
						r = -1
						break descend
					}
					p += 4
					continue
				case c == 'f':
					p += 2
					if m.pc(p) != '[' {
						return m.fail(Error("missing '[' after '%f' in pattern"))
					}
					ep := m.classEnd(p)
					if ep < 0 {
						return -1
					}
					var prev byte
					if s > 0 {
						prev = m.src[s-1]
					}
					if m.matchBracketClass(prev, p, ep-1) || !m.matchBracketClass(m.sc(s), p, ep-1) {
						r = -1
						break descend
					}
					p = ep
					continue
				case isDigit(c):
					if s = m.matchCapture(s, c); s < 0 {
						r = -1
						break descend
					}
					p += 2
					continue
				}
			}
			// A single-character class and what repeats it.
			ep := m.classEnd(p)
			if ep < 0 {
				return -1
			}
			ok := s < len(m.src) && m.singleMatch(m.src[s], p, ep)
			switch m.pc(ep) {
			case '?':
				if ok {
					if !m.push(fOptional, s, 0, ep, 0) {
						return -1
					}
					s++
				}
				p = ep + 1
			case '*':
				if s = m.maxExpand(s, p, ep); s < 0 {
					return -1
				}
				p = ep + 1
			case '+':
				if !ok {
					r = -1
					break descend
				}
				if s = m.maxExpand(s+1, p, ep); s < 0 {
					return -1
				}
				p = ep + 1
			case '-':
				if !m.push(fMinExpand, s, p, ep, 0) {
					return -1
				}
				p = ep + 1
			default:
				if !ok {
					r = -1
					break descend
				}
				s++
				p = ep
			}
		}
		// Hand r back to the frames.
		for {
			n := m.top
			if n == 0 {
				return r
			}
			f := &m.stack[n-1]
			switch f.kind {
			case fStartCapture:
				if r < 0 {
					m.level--
				}
			case fEndCapture:
				if r < 0 {
					m.capture[f.i].len = capUnfinished
				}
			case fOptional:
				if r < 0 {
					s, p = f.s, f.ep+1
					m.top = n - 1
					continue loop
				}
			case fMaxExpand:
				if r < 0 && f.i > 0 {
					f.i--
					s, p = f.s+f.i, f.ep+1
					continue loop
				}
			case fMinExpand:
				if r < 0 && f.s < len(m.src) && m.singleMatch(m.src[f.s], f.p, f.ep) {
					f.s++
					s, p = f.s, f.ep+1
					continue loop
				}
			}
			m.top = n - 1
		}
	}
}

// maxExpand counts the repetitions of the item at p from s, pushes the
// frame that will give them back one by one, and returns where the rest
// of the pattern is tried first (-1 on error).
func (m *Matcher) maxExpand(s, p, ep int) int {
	i := 0
	if c := m.pc(p); c != '%' && c != '[' && c != '.' || c == '%' && classBits[m.pc(p+1)] != 0 {
		// A literal or a %class: the item decoded once, not per byte.
		k, neg := uint16(0), false
		if c == '%' {
			k = classBits[m.pc(p+1)]
			neg = k&negated != 0
		}
		for s+i < len(m.src) {
			if d := m.src[s+i]; k == 0 && d != c || k != 0 && (inClass[d]&k != 0) == neg {
				break
			}
			i++
			if i%(64<<10) == 0 && m.stopped() {
				return -1
			}
		}
	} else {
		for s+i < len(m.src) && m.singleMatch(m.src[s+i], p, ep) {
			i++
			if i%(64<<10) == 0 && m.stopped() {
				return -1
			}
		}
	}
	if !m.push(fMaxExpand, s, 0, ep, i) {
		return -1
	}
	return s + i
}

// captureToClose is capture_to_close: the innermost open capture, or -1
// with "invalid pattern capture".
func (m *Matcher) captureToClose() int {
	for l := m.level - 1; l >= 0; l-- {
		if m.capture[l].len == capUnfinished {
			return l
		}
	}
	return m.fail(Error("invalid pattern capture"))
}

// classEnd is classend: where the single-character class at p ends, or -1
// with a malformed-pattern error.
func (m *Matcher) classEnd(p int) int {
	c := m.pc(p)
	p++
	switch c {
	case '%':
		if m.pc(p) == 0 {
			return m.fail(Error("malformed pattern (ends with '%')"))
		}
		return p + 1
	case '[':
		if m.pc(p) == '^' {
			p++
		}
		for { // look for a ']'; the first byte is never it
			if m.pc(p) == 0 {
				return m.fail(Error("malformed pattern (missing ']')"))
			}
			c := m.pc(p)
			p++
			if c == '%' && m.pc(p) != 0 {
				p++ // skip escapes (e.g. '%]')
			}
			if m.pc(p) == ']' {
				return p + 1
			}
		}
	}
	return p
}

// singleMatch is singlematch: whether byte c matches the class at p
// (ending before ep).
func (m *Matcher) singleMatch(c byte, p, ep int) bool {
	switch pc := m.pc(p); pc {
	case '.':
		return true
	case '%':
		return matchClass(c, m.pc(p+1))
	case '[':
		return m.matchBracketClass(c, p, ep-1)
	default:
		return pc == c
	}
}

// matchBracketClass is matchbracketclass: the set from p ('[') to ec (']').
func (m *Matcher) matchBracketClass(c byte, p, ec int) bool {
	sig := true
	if m.pc(p+1) == '^' {
		sig = false
		p++
	}
	for {
		p++
		if p >= ec {
			return !sig
		}
		switch {
		case m.pc(p) == '%':
			p++
			if matchClass(c, m.pc(p)) {
				return sig
			}
		case m.pc(p+1) == '-' && p+2 < ec:
			p += 2
			if m.pc(p-2) <= c && c <= m.pc(p) {
				return sig
			}
		case m.pc(p) == c:
			return sig
		}
	}
}

// matchBalance is matchbalance (%bxy at p): the end of the balanced
// string at s, or -1.
func (m *Matcher) matchBalance(s, p int) int {
	if m.pc(p) == 0 || m.pc(p+1) == 0 {
		return m.fail(Error("unbalanced pattern"))
	}
	if m.sc(s) != m.pc(p) {
		return -1
	}
	b, e := m.pc(p), m.pc(p+1)
	cont := 1
	for s++; s < len(m.src); s++ {
		if s%(64<<10) == 0 && m.stopped() {
			return -1
		}
		switch m.src[s] {
		case e:
			if cont--; cont == 0 {
				return s + 1
			}
		case b:
			cont++
		}
	}
	return -1
}

// matchCapture is match_capture (%1-%9 at s): -1 when the text differs or
// the capture index is invalid (with the error).
func (m *Matcher) matchCapture(s int, c byte) int {
	l := int(c) - '1'
	if l < 0 || l >= m.level || m.capture[l].len == capUnfinished {
		return m.fail(Error("invalid capture index"))
	}
	cp := m.capture[l]
	// A position capture's length is CAP_POSITION, which C compares as a
	// huge size_t: it never matches.
	if cp.len < 0 || len(m.src)-s < cp.len || m.src[cp.init:cp.init+cp.len] != m.src[s:s+cp.len] {
		return -1
	}
	return s + cp.len
}

// Capture is the value of push_onecapture(i) for the match [s, e): text,
// or a position when pos is true. wholeOK is C's s != NULL (find passes
// NULL: no whole match stands for capture 0).
func (m *Matcher) Capture(i, s, e int) (text string, pos int, isPos bool, err error) {
	if i >= m.level {
		if i == 0 {
			return m.src[s:e], 0, false, nil
		}
		return "", 0, false, Error("invalid capture index")
	}
	cp := m.capture[i]
	switch cp.len {
	case capUnfinished:
		return "", 0, false, Error("unfinished capture")
	case capPosition:
		return "", cp.init + 1, true, nil
	}
	return m.src[cp.init : cp.init+cp.len], 0, false, nil
}

// NumCaptures is push_captures' count: the captures of the last match, or
// 1 (the whole match) when there are none and whole is true.
func (m *Matcher) NumCaptures(whole bool) int {
	if m.level == 0 && whole {
		return 1
	}
	return m.level
}

// Find is str_find_aux's search from init (0-based, already clamped to
// [0, len(src)]): the first match's start and end, or start -1. The
// pattern's '^' was stripped by the caller, which passes anchor.
func (m *Matcher) Find(init int, anchor bool) (start, end int, err error) {
	for s1 := init; ; s1++ {
		if !anchor {
			s1 = m.NextStart(s1)
		}
		e, err := m.Match(s1, 0)
		if err != nil {
			return -1, -1, err
		}
		if e >= 0 {
			return s1, e, nil
		}
		if s1 >= len(m.src) || anchor {
			return -1, -1, nil
		}
	}
}

// NextStart returns the first position from s at which a match can start,
// going by the pattern's first item (after any opening captures): where
// that item is a single byte or a %class that must match once or more
// (no '?', '*' or '-' after it), a match at any other position fails on
// it at once, as match() would there, without an error or any other
// effect. s itself otherwise, and len(src) when no byte from s can
// start a match (a match at len(src) then fails too). A long scan polls
// Env.Stopped; a stop is then the next Match's error.
func (m *Matcher) NextStart(s int) int {
	if m.first == firstUnknown {
		m.first = firstAny
		if skipStarts {
			m.first = m.firstItem()
		}
	}
	switch {
	case m.first == firstAny:
		return s
	case m.first >= 0:
		for s < len(m.src) {
			end := min(len(m.src), s+64<<10)
			if i := strings.IndexByte(m.src[s:end], byte(m.first)); i >= 0 {
				return s + i
			}
			s = end
			if m.stopped() {
				return s
			}
		}
		return s
	}
	k, neg := m.class, m.class&negated != 0
	for ; s < len(m.src); s++ {
		if (inClass[m.src[s]]&k != 0) != neg {
			return s
		}
		if s%(64<<10) == 0 && s > 0 && m.stopped() {
			return s
		}
	}
	return s
}

// firstItem is NextStart's look at the pattern: the byte (or firstClass,
// with m.class) that a match's first byte must be, or firstAny.
func (m *Matcher) firstItem() int {
	p := 0
	for m.pc(p) == '(' && m.pc(p+1) != ')' {
		p++
	}
	if p >= MaxCaptures {
		return firstAny // "too many captures" is match()'s to raise
	}
	c := m.pc(p)
	ep := p + 1
	if c == '%' {
		ep++
	}
	switch m.pc(ep) {
	case '?', '*', '-':
		return firstAny // the item may match nothing
	}
	switch c {
	case 0, '(', ')', '[', '.', '$':
		return firstAny
	case '%':
		d := m.pc(p + 1)
		if d == 0 || d == 'b' || d == 'f' || isDigit(d) {
			return firstAny
		}
		if k := classBits[d]; k != 0 {
			m.class = k
			return firstClass
		}
		return int(d) // an escaped byte: itself
	}
	return int(c)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// The C locale's <ctype.h>, which is what Redis's Lua runs under (Redis
// sets only LC_COLLATE).

func isAlpha(c byte) bool  { return isUpper(c) || isLower(c) }
func isUpper(c byte) bool  { return 'A' <= c && c <= 'Z' }
func isLower(c byte) bool  { return 'a' <= c && c <= 'z' }
func isAlnum(c byte) bool  { return isAlpha(c) || isDigit(c) }
func isCntrl(c byte) bool  { return c < 32 || c == 127 }
func isSpace(c byte) bool  { return c == ' ' || ('\t' <= c && c <= '\r') }
func isPunct(c byte) bool  { return c > 32 && c < 127 && !isAlnum(c) }
func isXDigit(c byte) bool { return isDigit(c) || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F') }

// ToLower is the C locale's tolower.
func ToLower(c byte) byte {
	if isUpper(c) {
		return c + 'a' - 'A'
	}
	return c
}

// ToUpper is the C locale's toupper.
func ToUpper(c byte) byte {
	if isLower(c) {
		return c - ('a' - 'A')
	}
	return c
}

// matchClass is match_class: byte c against %cl, from two tables
// (classBits, inClass) that the C locale's <ctype.h> above fills; the
// switch it replaces was a tenth of a short gsub.
func matchClass(c, cl byte) bool {
	k := classBits[cl]
	if k == 0 {
		return cl == c
	}
	return (inClass[c]&k != 0) != (k&negated != 0)
}

// negated marks an upper-case class letter in classBits: the complement.
const negated = 1 << 15

// classLetters are match_class's letters, each a bit of inClass.
const classLetters = "acdlpsuwxz"

// classBits[cl] is the bit of class letter cl (with negated for an
// upper-case one), 0 when cl names no class (%cl then matches cl itself);
// inClass[c] has the bit of every class byte c belongs to.
var classBits, inClass = func() (bits, in [256]uint16) {
	is := [...]func(byte) bool{isAlpha, isCntrl, isDigit, isLower, isPunct, isSpace, isUpper, isAlnum, isXDigit, func(c byte) bool { return c == 0 }}
	for k, l := range []byte(classLetters) {
		bits[l] = 1 << k
		bits[ToUpper(l)] = 1<<k | negated
		for c := range 256 {
			if is[k](byte(c)) {
				in[c] |= 1 << k
			}
		}
	}
	return bits, in
}()

// SetEnv replaces the matcher's Env (an iterator's matcher outlives the
// call that made it).
func (m *Matcher) SetEnv(env Env) { m.env = env }
