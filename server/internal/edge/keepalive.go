package edge

import (
	"net"
	"time"
)

// TCP keepalive on accepted connections, as Redis's createClient sets it
// when tcp-keepalive is not 0 (anet.c:anetKeepAlive): probes after sec
// idle seconds, every sec/3 (at least 1), 3 unanswered ones closing the
// connection. With 0 the connection has none, as in Redis (Go's Accept
// would otherwise turn on its own 15 s default).

// keepAliveConn applies tcp-keepalive sec to a connection the goroutine
// edge accepted (its TCP connection, under TLS too).
func keepAliveConn(c net.Conn, sec int64) {
	if u, ok := c.(interface{ NetConn() net.Conn }); ok {
		c = u.NetConn()
	}
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return
	}
	if sec <= 0 {
		tc.SetKeepAlive(false)
		return
	}
	tc.SetKeepAliveConfig(net.KeepAliveConfig{Enable: true, Idle: time.Duration(sec) * time.Second,
		Interval: time.Duration(max(sec/3, 1)) * time.Second, Count: 3})
}
