package keyspace

import (
	"strconv"

	"github.com/minilock/minilock/internal/cmdargs"
)

// intArg parses an integer argument or returns Redis's error for it.
func intArg(b []byte) (int64, error) { return cmdargs.Int(b) }

// appendInt formats n in base 10.
func appendInt(b []byte, n int64) []byte { return strconv.AppendInt(b, n, 10) }
