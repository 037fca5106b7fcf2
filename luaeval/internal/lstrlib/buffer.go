package lstrlib

import (
	"strconv"
	"strings"
	"unsafe"
)

// Buffer is luaL_Buffer: bytes appended one piece at a time, charged to
// the script (Env.Alloc) before the buffer grows.
type Buffer struct {
	env Env
	b   []byte
	// charged is the capacity Env.Alloc has allowed: a buffer reused
	// from an earlier Gsub (cap(b) above charged) asks for each growth
	// as a new one would, so the script's limits see the same requests.
	charged int
}

// NewBuffer returns an empty buffer charged to env.
func NewBuffer(env Env) *Buffer { return &Buffer{env: env} }

// grow makes room for n more bytes: twice the capacity when the script may
// have it, else the most it may have (found by bisection: Env.Alloc only
// asks), so that a buffer near the limit is not copied whole for every
// piece added. ErrNoMemory when not even len+n is allowed.
func (b *Buffer) grow(n int) error {
	need := len(b.b) + n
	if need <= b.charged {
		return nil
	}
	if need < len(b.b) { // overflow
		return ErrNoMemory
	}
	c := max(2*b.charged, need, 64)
	if !b.env.Alloc(c) {
		if !b.env.Alloc(need) {
			return ErrNoMemory
		}
		lo, hi := need, c // Alloc(lo) is allowed, Alloc(hi) is not
		for hi-lo > 1 {   // exactly: a buffer left short of the limit would be copied for every write that follows
			if mid := lo + (hi-lo)/2; b.env.Alloc(mid) {
				lo = mid
			} else {
				hi = mid
			}
		}
		c = lo
	}
	b.charged = c
	if c > cap(b.b) {
		nb := make([]byte, len(b.b), c)
		copy(nb, b.b)
		b.b = nb
	}
	return nil
}

// WriteString appends s.
func (b *Buffer) WriteString(s string) error {
	if len(b.b)+len(s) > b.charged { // grow's own first test, without its call
		if err := b.grow(len(s)); err != nil {
			return err
		}
	}
	b.b = append(b.b, s...)
	return nil
}

// WriteByte appends c.
func (b *Buffer) WriteByte(c byte) error {
	if len(b.b) >= b.charged {
		if err := b.grow(1); err != nil {
			return err
		}
	}
	b.b = append(b.b, c)
	return nil
}

// Owned returns b as a string without copying it: b must not change
// afterwards (string.rep's result, built once).
func Owned(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// Len is the number of bytes written.
func (b *Buffer) Len() int { return len(b.b) }

// String returns the contents without copying them; the buffer must not be
// written afterwards.
func (b *Buffer) String() string {
	if len(b.b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b.b), len(b.b))
}

// AddString is add_s: repl, with %0 replaced by the match [s, e), %1-%9 by
// its captures, and % before any other byte standing for that byte (a
// final % for the NUL that ends the C string).
func (m *Matcher) AddString(b *Buffer, repl string, s, e int) error {
	for i := 0; i < len(repl); {
		// The text up to the next '%' in one write.
		j := strings.IndexByte(repl[i:], '%')
		if j < 0 {
			return b.WriteString(repl[i:])
		}
		if err := b.WriteString(repl[i : i+j]); err != nil {
			return err
		}
		i += j + 1
		var d byte
		if i < len(repl) {
			d = repl[i]
		}
		i++
		var err error
		switch {
		case !isDigit(d):
			err = b.WriteByte(d)
		case d == '0':
			err = b.WriteString(m.src[s:e])
		default:
			text, pos, isPos, cerr := m.Capture(int(d-'1'), s, e)
			if cerr != nil {
				return cerr
			}
			if isPos {
				text = strconv.Itoa(pos)
			}
			err = b.WriteString(text)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Gsub is str_gsub's loop: at most maxS matches of pat (a leading '^'
// anchors it) in src, each replaced by what add (add_value) appends to b
// for the match [s, e). It returns the result and the number of matches.
func Gsub(env Env, src, pat string, maxS int, add func(m *Matcher, b *Buffer, s, e int) error) (string, int, error) {
	var res string
	n, err := GsubTo(env, src, pat, maxS, add, func(b []byte, _ bool) { res = string(b) })
	return res, n, err
}

// keepOut is the largest result buffer a pooled matcher keeps for the
// next GsubTo.
const keepOut = 4 << 10

// GsubTo is Gsub giving the result to keep. A short result's bytes are
// the pooled matcher's buffer, reused by later calls: keep must copy what
// it keeps (a short result then costs the caller's one copy rather than a
// buffer of its own as well). A longer one's (owned true) are keep's to
// keep: copying it would double what the script holds.
func GsubTo(env Env, src, pat string, maxS int, add func(m *Matcher, b *Buffer, s, e int) error, keep func(b []byte, owned bool)) (int, error) {
	p, anchor := Anchored(pat)
	m := NewMatcher(env, src, p)
	// Not given back on an error: add may have run Lua that failed.
	b := &m.out
	b.env, b.b, b.charged = env, b.b[:0], 0
	n, s := 0, 0
loop:
	for n < maxS {
		if !anchor {
			// Where the match cannot start, the bytes are copied as
			// they are, as a failed match copies them one by one.
			if next := m.NextStart(s); next > s {
				if err := b.WriteString(src[s:next]); err != nil {
					return 0, err
				}
				s = next
			}
		}
		e, err := m.Match(s, 0)
		if err != nil {
			return 0, err
		}
		if e >= 0 {
			n++
			if err := add(m, b, s, e); err != nil {
				return 0, err
			}
		}
		switch {
		case e > s: // a non-empty match: skip it
			s = e
		case s < len(src):
			if err := b.WriteByte(src[s]); err != nil {
				return 0, err
			}
			s++
		default:
			break loop
		}
		if anchor {
			break
		}
	}
	if err := b.WriteString(src[s:]); err != nil {
		return 0, err
	}
	if cap(b.b) > keepOut {
		keep(b.b, true)
		b.b = nil
	} else {
		keep(b.b, false)
	}
	m.Release()
	return n, nil
}
