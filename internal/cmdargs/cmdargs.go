// Package cmdargs parses the command arguments that two packages read: the
// keyspace's commands (LMPOP, ZMPOP, LMOVE) and the server's blocking forms
// of them (BLMPOP, BZMPOP, BLMOVE), which parse their arguments before the
// keyspace is asked anything. Errors are Redis's replies.
package cmdargs

import (
	"github.com/minilock/minilock/internal/redisstr"
	"github.com/minilock/minilock/resp"
)

var (
	// ErrNumKeysPositive is the reply to a numkeys below 1.
	ErrNumKeysPositive = resp.NewError("numkeys should be greater than 0")
	// ErrCountPositive is the reply to a COUNT below 1.
	ErrCountPositive = resp.NewError("count should be greater than 0")
)

// EqualFold reports whether b, compared ASCII case-insensitively, is
// lower, which must be lower case.
func EqualFold(b []byte, lower string) bool {
	if len(b) != len(lower) {
		return false
	}
	for i := range b {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// Int parses an integer argument as string2ll does, or returns Redis's
// error for it.
func Int(b []byte) (int64, error) {
	n, ok := redisstr.ParseInt(b)
	if !ok {
		return 0, resp.ErrNotInteger
	}
	return n, nil
}

// MPop parses [B]LMPOP's and [B]ZMPOP's numkeys key ... <first> | <second>
// [COUNT n] from numkeys at args[at]: the keys, whether the second word
// (RIGHT, MAX) was given, and the count (1 when not given).
func MPop(args [][]byte, at int, first, second string) (keys [][]byte, isSecond bool, count int64, err error) {
	numkeys, err := Int(args[at])
	if err != nil || numkeys < 1 {
		return nil, false, 0, ErrNumKeysPositive
	}
	where := at + 1 + int(min(numkeys, int64(len(args))))
	if numkeys >= int64(len(args)) || where >= len(args) {
		return nil, false, 0, resp.ErrSyntax
	}
	switch {
	case EqualFold(args[where], first):
	case EqualFold(args[where], second):
		isSecond = true
	default:
		return nil, false, 0, resp.ErrSyntax
	}
	count = -1
	for j := where + 1; j < len(args); j++ {
		if count == -1 && EqualFold(args[j], "count") && j+1 < len(args) {
			j++
			n, err := Int(args[j])
			if err != nil || n < 1 {
				return nil, false, 0, ErrCountPositive
			}
			count = n
			continue
		}
		return nil, false, 0, resp.ErrSyntax
	}
	if count == -1 {
		count = 1
	}
	return args[at+1 : where], isSecond, count, nil
}

// ListEnd parses LEFT (true) or RIGHT, as LMOVE's and BLMOVE's wherefrom
// and whereto.
func ListEnd(b []byte) (front bool, err error) {
	switch {
	case EqualFold(b, "left"):
		return true, nil
	case EqualFold(b, "right"):
		return false, nil
	}
	return false, resp.ErrSyntax
}
