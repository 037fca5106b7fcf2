package resp

import (
	"bytes"
	"errors"
	"strconv"
)

// ErrIncomplete is returned by Next when b ends inside an element.
var ErrIncomplete = errors.New("resp: incomplete reply")

// ErrMalformed is returned by Next for bytes that are not RESP.
var ErrMalformed = errors.New("resp: malformed reply")

// Item is one element header read by Next.
//
// Kind is the RESP type byte: '+' status, '-' error, ':' integer, '$' bulk,
// '*' array, '%' map, '~' set, '_' null, '#' boolean, ',' double,
// '(' big number, '=' verbatim, '>' push. Null bulk strings and arrays of
// RESP2 ($-1, *-1) are reported as Kind '_'.
//
// For '+', '-', '$', ',', '(' and '=' Data is the payload (for '=' including
// the "txt:" prefix). For ':' and '#' Int holds the value (1 or 0 for
// booleans). For aggregates Int is the element count (pairs for maps); the
// elements follow in the input and are read with further calls to Next.
type Item struct {
	Kind byte
	Data []byte
	Int  int64
}

// Next reads one element header from b and returns it with the rest of b.
// Data aliases b.
func Next(b []byte) (Item, []byte, error) {
	if len(b) < 3 {
		return Item{}, b, ErrIncomplete
	}
	kind := b[0]
	nl := bytes.IndexByte(b, '\n')
	if nl < 0 {
		return Item{}, b, ErrIncomplete
	}
	if nl < 2 || b[nl-1] != '\r' {
		return Item{}, b, ErrMalformed
	}
	line, rest := b[1:nl-1], b[nl+1:]
	switch kind {
	case '+', '-', ',', '(':
		return Item{Kind: kind, Data: line}, rest, nil
	case '_':
		return Item{Kind: '_'}, rest, nil
	case '#':
		switch string(line) {
		case "t":
			return Item{Kind: '#', Int: 1}, rest, nil
		case "f":
			return Item{Kind: '#'}, rest, nil
		}
		return Item{}, b, ErrMalformed
	case ':', '*', '%', '~', '>', '$', '=':
		n, err := strconv.ParseInt(string(line), 10, 64)
		if err != nil {
			return Item{}, b, ErrMalformed
		}
		if n < 0 {
			if n == -1 && (kind == '$' || kind == '*') {
				return Item{Kind: '_'}, rest, nil
			}
			if kind != ':' {
				return Item{}, b, ErrMalformed
			}
		}
		if kind != '$' && kind != '=' {
			return Item{Kind: kind, Int: n}, rest, nil
		}
		if n > int64(len(rest))-2 { // not n+2 > len: n+2 may overflow
			return Item{}, b, ErrIncomplete
		}
		if rest[n] != '\r' || rest[n+1] != '\n' {
			return Item{}, b, ErrMalformed
		}
		return Item{Kind: kind, Data: rest[:n]}, rest[n+2:], nil
	}
	return Item{}, b, ErrMalformed
}

// Skip returns b without its first complete reply (nested elements
// included).
func Skip(b []byte) ([]byte, error) {
	pending := int64(1)
	for pending > 0 {
		it, rest, err := Next(b)
		if err != nil {
			return b, err
		}
		pending--
		if it.Int > int64(len(rest)) {
			// Every element takes at least 3 bytes: a count larger than
			// what is left cannot be complete (and cannot overflow).
			if it.Kind == '*' || it.Kind == '~' || it.Kind == '>' || it.Kind == '%' {
				return b, ErrIncomplete
			}
		}
		switch it.Kind {
		case '*', '~', '>':
			pending += it.Int
		case '%':
			pending += 2 * it.Int
		}
		b = rest
	}
	return b, nil
}
