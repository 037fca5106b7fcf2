//go:build !linux

package main

import (
	"errors"
	"net"
)

func serveEpoll(net.Listener) error { return errors.New("the epoll mode needs Linux") }
