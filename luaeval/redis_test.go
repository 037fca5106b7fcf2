package luaeval

import (
	"bufio"
	"net"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/minilock/minilock/resp"
)

// The expected replies in this package's tables are Redis 7.0.15's. Set
// LUAEVAL_REDIS=host:port (a disposable real redis-server 7.0.15, e.g.
// `redis-server --port 6399 --save ''`) and TestTablesAgainstRedis sends
// every case to it and checks the table, byte for byte. Without it the
// test is skipped; the tables themselves still run against the engine.

// redisConn is a minimal RESP client for that check.
type redisConn struct {
	c net.Conn
	r *bufio.Reader
}

func dialRedis(t *testing.T) *redisConn {
	addr := os.Getenv("LUAEVAL_REDIS")
	if addr == "" {
		t.Skip("LUAEVAL_REDIS not set: not comparing with a real Redis")
	}
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	t.Cleanup(func() { c.Close() })
	return &redisConn{c: c, r: bufio.NewReader(c)}
}

func (rc *redisConn) do(t *testing.T, args ...string) string {
	t.Helper()
	var b []byte
	b = append(b, '*')
	b = strconv.AppendInt(b, int64(len(args)), 10)
	b = append(b, "\r\n"...)
	for _, a := range args {
		b = append(b, '$')
		b = strconv.AppendInt(b, int64(len(a)), 10)
		b = append(b, "\r\n"...)
		b = append(b, a...)
		b = append(b, "\r\n"...)
	}
	rc.c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := rc.c.Write(b); err != nil {
		t.Fatal(err)
	}
	var got []byte
	for {
		line, err := rc.r.ReadBytes('\n')
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		got = append(got, line...)
		if _, err := resp.Skip(got); err == nil {
			return string(got)
		} else if err != resp.ErrIncomplete {
			t.Fatalf("bad reply %q", got)
		}
	}
}
