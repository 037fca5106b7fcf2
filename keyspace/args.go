package keyspace

import (
	"strconv"

	"github.com/minilock/minilock/internal/redisstr"
	"github.com/minilock/minilock/resp"
)

// intArg parses an integer argument or returns Redis's error for it.
func intArg(b []byte) (int64, error) {
	n, ok := redisstr.ParseInt(b)
	if !ok {
		return 0, resp.ErrNotInteger
	}
	return n, nil
}

// appendInt formats n in base 10.
func appendInt(b []byte, n int64) []byte { return strconv.AppendInt(b, n, 10) }
