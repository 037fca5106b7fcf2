package edge

import "golang.org/x/sys/unix"

// keepAliveFD applies tcp-keepalive sec to a socket the event loop
// accepted (accept4 leaves keepalive off).
func keepAliveFD(fd int, sec int64) {
	if sec <= 0 {
		return
	}
	unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_KEEPALIVE, 1)
	unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_KEEPIDLE, int(sec))
	unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_KEEPINTVL, int(max(sec/3, 1)))
	unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_KEEPCNT, 3)
}
