// Package resp encodes Redis replies (RESP2 and RESP3) and reads them back.
//
// Every reply minilock sends is produced by a Writer: commands append to it
// without knowing about sockets, tests compare its bytes, and the Lua engine
// reads a command's reply back with Next, exactly as Redis hands a command's
// output buffer to its own Lua glue.
package resp

import (
	"math"
	"strconv"
	"strings"
)

// Writer appends replies to B in the encoding Proto selects: 2 (the default
// when Proto is 0 or 2) or 3. The zero Writer writes RESP2.
//
// A Writer with SpillAt set (a connection's) moves B into Spilled each time
// an element takes B past SpillAt, and goes on in a fresh B: a big reply
// (LRANGE of millions of elements) is then held in pieces of about SpillAt
// bytes, as Redis holds its replies in 16 KiB blocks, where one growing
// buffer held up to three times its size at once (each growth copies it,
// and the old copies wait for the collector). The bytes are Spilled's in
// order, then B's; Len, Truncate and From count them all.
type Writer struct {
	B     []byte
	Proto int

	SpillAt int      // 0: never spill, B holds everything
	Spilled [][]byte // full pieces, before B
	spilled int      // bytes in Spilled
}

// Len is the bytes written: Spilled's and B's.
func (w *Writer) Len() int { return w.spilled + len(w.B) }

// Truncate drops what was written after the first n bytes (n <= Len):
// a command's reply that ends in an error, or that CLIENT REPLY drops.
func (w *Writer) Truncate(n int) {
	for n < w.spilled {
		last := w.Spilled[len(w.Spilled)-1]
		w.Spilled[len(w.Spilled)-1] = nil
		w.Spilled = w.Spilled[:len(w.Spilled)-1]
		w.spilled -= len(last)
		w.B = last
	}
	w.B = w.B[:n-w.spilled]
}

// From returns the bytes from offset n (n <= Len) to the end of the piece
// holding them: all of them unless the writer spilled since n.
func (w *Writer) From(n int) []byte {
	off := n
	for _, p := range w.Spilled {
		if off < len(p) {
			return p[off:]
		}
		off -= len(p)
	}
	return w.B[off:]
}

// DropSpilled forgets the first piece of Spilled, written out.
func (w *Writer) DropSpilled() {
	w.spilled -= len(w.Spilled[0])
	w.Spilled[0] = nil
	w.Spilled = w.Spilled[1:]
	if len(w.Spilled) == 0 {
		w.Spilled = nil
	}
}

// Reset forgets everything written; B keeps its array.
func (w *Writer) Reset() {
	clear(w.Spilled)
	w.Spilled, w.spilled, w.B = nil, 0, w.B[:0]
}

// spill moves B into Spilled once it has passed SpillAt. The elements of
// a reply call it, so a piece ends between two of them.
func (w *Writer) spill() {
	if w.SpillAt == 0 || len(w.B) < w.SpillAt {
		return
	}
	w.Spilled = append(w.Spilled, w.B)
	w.spilled += len(w.B)
	// A quarter more than SpillAt: the element that passes it usually
	// fits, so a piece is rarely copied to grow.
	w.B = make([]byte, 0, w.SpillAt+w.SpillAt/4)
}

// RESP3 reports whether the writer encodes RESP3.
func (w *Writer) RESP3() bool { return w.Proto == 3 }

// OK appends +OK.
func (w *Writer) OK() { w.B = append(w.B, "+OK\r\n"...) }

// Status appends a simple string. CR and LF would break the framing, so they
// become spaces, as Redis does for Lua status replies.
func (w *Writer) Status(s string) {
	w.B = append(w.B, '+')
	w.B = appendLine(w.B, s)
}

// Error appends an error reply. msg starts with its code ("ERR syntax
// error", "WRONGTYPE ..."). Callers inside minilock use Err, which produces
// that text from an error value.
func (w *Writer) Error(msg string) {
	w.B = append(w.B, '-')
	w.B = appendLine(w.B, msg)
}

// Err appends the Redis error reply for err (see Text).
func (w *Writer) Err(err error) { w.Error(Text(err)) }

// Int appends an integer reply.
func (w *Writer) Int(n int64) {
	w.B = append(w.B, ':')
	w.B = strconv.AppendInt(w.B, n, 10)
	w.B = append(w.B, '\r', '\n')
	w.spill()
}

// Bulk appends a bulk string.
func (w *Writer) Bulk(b []byte) {
	w.B = AppendHeader(w.B, '$', int64(len(b)))
	w.B = append(w.B, b...)
	w.B = append(w.B, '\r', '\n')
	w.spill()
}

// BulkString appends a bulk string.
func (w *Writer) BulkString(s string) {
	w.B = AppendHeader(w.B, '$', int64(len(s)))
	w.B = append(w.B, s...)
	w.B = append(w.B, '\r', '\n')
	w.spill()
}

// Null appends the null bulk string: $-1 in RESP2, _ in RESP3.
func (w *Writer) Null() {
	if w.RESP3() {
		w.B = append(w.B, "_\r\n"...)
		return
	}
	w.B = append(w.B, "$-1\r\n"...)
}

// NullArray appends the null array: *-1 in RESP2, _ in RESP3.
func (w *Writer) NullArray() {
	if w.RESP3() {
		w.B = append(w.B, "_\r\n"...)
		return
	}
	w.B = append(w.B, "*-1\r\n"...)
}

// Array appends an array header; n elements must follow.
func (w *Writer) Array(n int) { w.B = AppendHeader(w.B, '*', int64(n)) }

// Map appends a map header; n key/value pairs must follow. RESP2 has no maps,
// so it becomes a flat array of 2n elements, as Redis sends it.
func (w *Writer) Map(n int) {
	if w.RESP3() {
		w.B = AppendHeader(w.B, '%', int64(n))
		return
	}
	w.B = AppendHeader(w.B, '*', int64(2*n))
}

// Set appends a set header (an array in RESP2); n elements must follow.
func (w *Writer) Set(n int) {
	if w.RESP3() {
		w.B = AppendHeader(w.B, '~', int64(n))
		return
	}
	w.B = AppendHeader(w.B, '*', int64(n))
}

// Bool appends a RESP3 boolean; RESP2 has none, so Redis sends :1 or :0.
func (w *Writer) Bool(b bool) {
	switch {
	case w.RESP3() && b:
		w.B = append(w.B, "#t\r\n"...)
	case w.RESP3():
		w.B = append(w.B, "#f\r\n"...)
	case b:
		w.B = append(w.B, ":1\r\n"...)
	default:
		w.B = append(w.B, ":0\r\n"...)
	}
}

// Double appends a double: ",<%.17g>" in RESP3, a bulk string in RESP2
// (networking.c:addReplyDouble).
func (w *Writer) Double(f float64) {
	var buf [32]byte
	s := FormatDouble(buf[:0], f)
	if w.RESP3() {
		w.B = append(w.B, ',')
		w.B = append(w.B, s...)
		w.B = append(w.B, '\r', '\n')
		w.spill()
		return
	}
	w.Bulk(s)
}

// BigNumber appends a RESP3 big number, or a bulk string in RESP2.
func (w *Writer) BigNumber(s string) {
	if w.RESP3() {
		w.B = append(w.B, '(')
		w.B = appendLine(w.B, s)
		return
	}
	w.BulkString(s)
}

// Verbatim appends a RESP3 verbatim string with a three-letter format
// ("txt"), or a plain bulk string in RESP2. Like addReplyVerbatim it
// copies exactly three bytes of format, as a C string: a longer one is
// cut, a shorter one (or one with a NUL) padded with spaces.
func (w *Writer) Verbatim(format, s string) {
	if !w.RESP3() {
		w.BulkString(s)
		return
	}
	w.B = AppendHeader(w.B, '=', int64(len(s))+4)
	if i := strings.IndexByte(format, 0); i >= 0 {
		format = format[:i]
	}
	w.B = append(w.B, (format + "   ")[:3]...)
	w.B = append(w.B, ':')
	w.B = append(w.B, s...)
	w.B = append(w.B, '\r', '\n')
}

// FormatDouble appends f as glibc's printf("%.17g") does, which is how
// Redis writes doubles in replies and how scripts' numbers become command
// arguments: "inf", "-inf", and "nan" or "-nan" by the NaN's sign bit
// (0/0 on x86 is negative).
func FormatDouble(b []byte, f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return append(b, "inf"...)
	case math.IsInf(f, -1):
		return append(b, "-inf"...)
	case math.IsNaN(f):
		if math.Signbit(f) {
			return append(b, "-nan"...)
		}
		return append(b, "nan"...)
	case f == 0 && math.Signbit(f):
		return append(b, "-0"...)
	case f == math.Trunc(f) && math.Abs(f) < 1e15:
		return strconv.AppendInt(b, int64(f), 10) // the common case, faster
	}
	return strconv.AppendFloat(b, f, 'g', 17, 64)
}

// AppendHeader appends a RESP header: kind ('*', '$', ':' ...), n, CRLF.
func AppendHeader(b []byte, kind byte, n int64) []byte {
	b = append(b, kind)
	b = strconv.AppendInt(b, n, 10)
	return append(b, '\r', '\n')
}

// appendLine appends s and CRLF, with any CR or LF inside s turned into a
// space so a message can never split the reply stream.
func appendLine(b []byte, s string) []byte {
	start := len(b)
	b = append(b, s...)
	for i := start; i < len(b); i++ {
		if b[i] == '\r' || b[i] == '\n' {
			b[i] = ' '
		}
	}
	return append(b, '\r', '\n')
}
