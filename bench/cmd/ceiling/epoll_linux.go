//go:build linux

package main

import (
	"net"
	"runtime"
	"syscall"
)

// serveEpoll runs redis-server's shape: one loop waits on every connection
// with epoll, reads what is ready, answers it and writes the replies, all on
// this goroutine. A reply the socket does not take at once is dropped with
// the connection: the benchmarks never fill a socket buffer.
func serveEpoll(ln net.Listener) error {
	f, err := ln.(*net.TCPListener).File()
	if err != nil {
		return err
	}
	defer runtime.KeepAlive(f) // its finalizer would close lfd
	lfd := int(f.Fd())
	if err := syscall.SetNonblock(lfd, true); err != nil {
		return err
	}
	ep, err := syscall.EpollCreate1(0)
	if err != nil {
		return err
	}
	add := func(fd int) error {
		return syscall.EpollCtl(ep, syscall.EPOLL_CTL_ADD, fd, &syscall.EpollEvent{Events: syscall.EPOLLIN, Fd: int32(fd)})
	}
	if err := add(lfd); err != nil {
		return err
	}
	bufs := map[int][]byte{}
	closeFD := func(fd int) {
		delete(bufs, fd)
		syscall.Close(fd) // also leaves the epoll set
	}
	events := make([]syscall.EpollEvent, 128)
	var b batch
	for {
		n, err := syscall.EpollWait(ep, events, -1)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		for _, ev := range events[:n] {
			fd := int(ev.Fd)
			if fd == lfd {
				nfd, _, err := syscall.Accept4(lfd, syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC)
				if err != nil {
					continue
				}
				syscall.SetsockoptInt(nfd, syscall.IPPROTO_TCP, syscall.TCP_NODELAY, 1)
				if add(nfd) != nil {
					syscall.Close(nfd)
					continue
				}
				bufs[nfd] = make([]byte, 0, 16<<10)
				continue
			}
			buf := bufs[fd]
			if len(buf) == cap(buf) {
				buf = append(buf, 0)[:len(buf)]
			}
			r, err := syscall.Read(fd, buf[len(buf):cap(buf)])
			if err == syscall.EAGAIN {
				continue
			}
			if r <= 0 {
				closeFD(fd)
				continue
			}
			b.in = buf[:len(buf)+r]
			b.answer()
			if w, err := syscall.Write(fd, b.out); b.err != nil || err != nil || w < len(b.out) {
				closeFD(fd)
				continue
			}
			bufs[fd] = buf[:copy(buf, b.in[b.used:])]
		}
	}
}
