package luaeval

import (
	"testing"

	"github.com/minilock/minilock/internal/redistest"
)

// The expected replies in this package's tables are Redis 7.0.15's.
// TestTablesAgainstRedis starts a redis-server of its own and checks every
// table entry against it, byte for byte; without redis-server on PATH it is
// skipped, except under CI=true, where it fails (redistest.Require).

// redisConn is a raw connection to that server.
type redisConn struct{ c *redistest.Conn }

func dialRedis(t *testing.T) *redisConn {
	return &redisConn{redistest.Dial(t, redistest.Start(t).Addr)}
}

func (rc *redisConn) do(t *testing.T, args ...string) string {
	t.Helper()
	got, err := rc.c.Do(args...)
	if err != nil {
		t.Fatalf("%q: %v", args, err)
	}
	return string(got)
}
