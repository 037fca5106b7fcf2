package server

import (
	"errors"
	"net"
	"strings"

	"github.com/minilock/minilock/server/internal/edge"
)

// CONFIG SET port and bind (config.c:updatePort, updateBind): the server
// listens on the new addresses, and only once every one is bound stops
// listening on the old; the connections already established stay. A
// failure changes nothing.

var (
	errListenPort = errors.New("Unable to listen on this port")
	errBind       = errors.New("Failed to bind to specified addresses.")
)

// setListeners replaces the listeners in use (their serving is the
// caller's business) and returns the old ones.
func (s *Server) setListeners(lns []*edge.Listener) []*edge.Listener {
	s.lnMu.Lock()
	defer s.lnMu.Unlock()
	old := s.lns
	s.lns = lns
	return old
}

// bindHosts are the hosts the server listens on, as CONFIG SET bind takes
// them: the ones CONFIG SET bind gave, else those of the listeners.
func (s *Server) bindHosts() []string {
	if s.rt.bind != nil {
		return s.rt.bind
	}
	var hosts []string
	for _, a := range s.Addrs() {
		if h, _, err := net.SplitHostPort(a); err == nil {
			hosts = append(hosts, h)
		}
	}
	return hosts
}

// rebind listens on every host in hosts at port, as Redis's
// listenToPort: a host starting with "-" is optional (skipped when it
// cannot be bound), "*" is every IPv4 address and "::*" every IPv6 one;
// port "0" listens on nothing. When an address that is not optional
// fails, the new sockets are closed and fail is returned. Owner
// goroutine: the old listeners stop and the new ones start being served
// on another goroutine, as both wait for the owner on the event loop.
func (s *Server) rebind(hosts []string, port string, fail error) error {
	// A listener already on one of the addresses stays as it is (binding
	// it again would fail).
	kept := map[string]*edge.Listener{}
	for _, ln := range s.listeners() {
		kept[ln.Addr().String()] = ln
	}
	var lns, fresh []*edge.Listener
	if port != "0" {
		for _, h := range hosts {
			optional := strings.HasPrefix(h, "-")
			h = strings.TrimPrefix(h, "-")
			switch h {
			case "*":
				h = "0.0.0.0"
			case "::*":
				h = "::"
			}
			addr := net.JoinHostPort(h, port)
			if ln := kept[addr]; ln != nil {
				lns = append(lns, ln)
				delete(kept, addr)
				continue
			}
			nl, err := net.Listen("tcp", addr)
			if err != nil {
				if optional {
					continue
				}
				for _, ln := range fresh {
					ln.Listener.Close()
				}
				return fail
			}
			ln := edge.NewListener(nl, s.limits)
			lns, fresh = append(lns, ln), append(fresh, ln)
		}
	}
	s.setListeners(lns)
	go func() {
		for _, ln := range kept {
			ln.StopAccepting()
		}
		for _, ln := range fresh {
			s.serve(ln)
		}
	}()
	return nil
}
