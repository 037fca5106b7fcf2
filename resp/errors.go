package resp

import (
	"errors"
	"strings"

	"github.com/minilock/minilock/internal/redisstr"
)

// Error is an error that has a Redis reply of its own: Code is the first word
// of the reply ("ERR", "WRONGTYPE", "NOSCRIPT" ...), Msg the rest.
//
// Packages return these (usually one of the values below, possibly wrapped
// with fmt.Errorf("...: %w")); Text turns any error into the reply text, and
// that is the only place where Redis's wording is assembled.
type Error struct {
	Code string
	Msg  string
}

func (e *Error) Error() string { return e.Code + " " + e.Msg }

// NewError returns an ERR-coded error with the message msg.
func NewError(msg string) *Error { return &Error{Code: "ERR", Msg: msg} }

// Errors shared by many commands. Their texts are Redis 7.0's
// (server.c:createSharedObjects, object.c, t_string.c).
var (
	// ErrSyntax is returned when options are unknown or conflict.
	ErrSyntax = NewError("syntax error")
	// ErrNotInteger is returned when an argument is not a 64-bit integer.
	ErrNotInteger = NewError("value is not an integer or out of range")
	// ErrNotFloat is returned when an argument is not a valid float.
	ErrNotFloat = NewError("value is not a valid float")
	// ErrOverflow is returned when INCR and friends would overflow.
	ErrOverflow = NewError("increment or decrement would overflow")
	// ErrWrongType is returned when a key holds a value of another type.
	ErrWrongType = &Error{"WRONGTYPE", "Operation against a key holding the wrong kind of value"}
	// ErrNoAuth is returned when a command needs a connection that has
	// authenticated.
	ErrNoAuth = &Error{"NOAUTH", "Authentication required."}
	// ErrWrongPass is returned when AUTH's credentials do not match.
	ErrWrongPass = &Error{"WRONGPASS", "invalid username-password pair or user is disabled."}
	// ErrBusy is returned while a script has run past busy-reply-threshold.
	ErrBusy = &Error{"BUSY", "Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE."}
	// ErrNoScript is returned by EVALSHA for an unknown SHA1.
	ErrNoScript = &Error{"NOSCRIPT", "No matching script. Please use EVAL."}
	// ErrDBIndex is returned when SELECT names a database that does not exist.
	ErrDBIndex = NewError("DB index is out of range")
)

// Text returns the reply text (without the leading '-') for err: the code and
// message of the *Error it wraps, or "ERR " and its message for any other
// error. An error whose message already starts with a code, as Lua's
// error_reply produces, can be given as an *Error with an empty Msg.
func Text(err error) string {
	var re *Error
	if errors.As(err, &re) {
		if re.Msg == "" {
			return re.Code
		}
		return re.Code + " " + re.Msg
	}
	return "ERR " + err.Error()
}

// ErrWrongArgs is the arity error for the command whose lower-case full name
// is name ("set", "script|load").
func ErrWrongArgs(name string) *Error {
	return NewError("wrong number of arguments for '" + name + "' command")
}

// ErrInvalidExpire is the error for an expire time that is not positive or
// that overflows, in the command cmd ("set", "expire" ...).
func ErrInvalidExpire(cmd string) *Error {
	return NewError("invalid expire time in '" + strings.ToLower(cmd) + "' command")
}

// ErrUnknownCommand is Redis's reply for a command name it does not know:
// each argument is quoted and followed by a space, the argument text stops
// growing once it reaches 128 bytes, and CR/LF become spaces when the reply
// is written (server.c:commandCheckExistence).
func ErrUnknownCommand(name []byte, args [][]byte) *Error {
	var list []byte
	for _, a := range args {
		if len(list) >= 128 {
			break
		}
		list = append(list, '\'')
		list = append(list, cstr(a, 128-len(list)+1)...)
		list = append(list, "' "...)
	}
	return NewError("unknown command '" + cstr(name, 128) + "', with args beginning with: " + string(list))
}

// ErrUnknownSubcommand is Redis's reply for an unknown subcommand of a
// container command such as SCRIPT or CLIENT.
func ErrUnknownSubcommand(cmd []byte, sub []byte) *Error {
	return NewError("unknown subcommand '" + cstr(sub, 128) + "'. Try " + strings.ToUpper(cstr(cmd, len(cmd))) + " HELP.")
}

// cstr returns b as C's printf("%.*s") prints it: at most max bytes, and
// nothing from the first NUL on.
func cstr(b []byte, max int) string {
	s := redisstr.CString(b)
	if len(s) > max {
		s = s[:max]
	}
	return s
}
