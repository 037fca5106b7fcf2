package server

import (
	"fmt"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/minilock/minilock/internal/redistest"
)

// CONFIG SET tcp-keepalive applies to the connections accepted after it,
// with anetKeepAlive's options (idle, idle/3, 3 probes), and 0 leaves them
// without keepalive; read from the server's own socket, whose descriptor
// CLIENT INFO names.
func TestTCPKeepAliveLive(t *testing.T) {
	for _, loop := range []bool{false, true} {
		t.Run(fmt.Sprintf("event loop %v", loop), func(t *testing.T) {
			s := RunT(t, Config{EventLoop: loop})
			admin := redistest.Dial(t, s.Addr())
			sockopt := func(level, opt int) int {
				t.Helper()
				c := redistest.Dial(t, s.Addr())
				var fd int
				for _, f := range strings.Fields(do(t, c, "CLIENT", "INFO")) {
					if v, ok := strings.CutPrefix(f, "fd="); ok {
						fmt.Sscan(v, &fd)
					}
				}
				if fd <= 0 {
					t.Fatal("no fd in CLIENT INFO")
				}
				v, err := unix.GetsockoptInt(fd, level, opt)
				if err != nil {
					t.Fatalf("getsockopt on fd %d: %v", fd, err)
				}
				return v
			}
			if got := do(t, admin, "CONFIG", "GET", "tcp-keepalive"); got != "*2\r\n$13\r\ntcp-keepalive\r\n$3\r\n300\r\n" {
				t.Fatalf("default: %q", got)
			}
			if v := sockopt(unix.IPPROTO_TCP, unix.TCP_KEEPIDLE); v != 300 {
				t.Errorf("default TCP_KEEPIDLE %d", v)
			}
			do(t, admin, "CONFIG", "SET", "tcp-keepalive", "7")
			for _, o := range []struct {
				level, opt, want int
				name             string
			}{
				{unix.SOL_SOCKET, unix.SO_KEEPALIVE, 1, "SO_KEEPALIVE"},
				{unix.IPPROTO_TCP, unix.TCP_KEEPIDLE, 7, "TCP_KEEPIDLE"},
				{unix.IPPROTO_TCP, unix.TCP_KEEPINTVL, 2, "TCP_KEEPINTVL"},
				{unix.IPPROTO_TCP, unix.TCP_KEEPCNT, 3, "TCP_KEEPCNT"},
			} {
				if v := sockopt(o.level, o.opt); v != o.want {
					t.Errorf("%s = %d, want %d", o.name, v, o.want)
				}
			}
			do(t, admin, "CONFIG", "SET", "tcp-keepalive", "0")
			if v := sockopt(unix.SOL_SOCKET, unix.SO_KEEPALIVE); v != 0 {
				t.Errorf("tcp-keepalive 0: SO_KEEPALIVE %d", v)
			}
		})
	}
}
