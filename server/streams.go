package server

import (
	"github.com/minilock/minilock/keyspace"
	"github.com/minilock/minilock/resp"
)

// XREAD and XREADGROUP with BLOCK: keyspace.XRead parses and serves what it
// can; a read that must wait is parked here like a blocking pop, on the
// same FIFO queues and deadlines, and served by serveReady once a command
// (or MULTI, or script) that grew, emptied of its group, deleted or
// overwrote one of its streams has completed (blocked.c's
// serveClientsBlockedOnStreamKey and unblockDeletedStreamReadgroupClients).

// XREAD [COUNT count] [BLOCK milliseconds] STREAMS key [key ...] id [id ...]
// XREADGROUP GROUP group consumer [COUNT count] [BLOCK milliseconds] [NOACK] STREAMS key [key ...] id [id ...]
func cmdXRead(x *call, args [][]byte) error {
	r, err := x.s.ks.XRead(&x.Ctx, args, x.script != nil, deniesBlocking(x))
	if err != nil || r == nil {
		return err
	}
	return x.s.blockFor(x, &parked{name: lowerName(args[0]), keys: r.Keys, xread: r}, r.Timeout)
}

// serveStreamParked serves p, an XREAD or XREADGROUP parked on key, if key
// now has something for it; an XREADGROUP whose key is no longer a stream
// is answered with an error.
func (s *Server) serveStreamParked(p *parked, key []byte) {
	ctx := keyspace.Ctx{W: &p.c.bw, DB: p.db, Now: s.ks.Now()}
	p.c.bw.Proto = p.c.W.Proto
	served, isStream := s.ks.ServeStreamReader(&ctx, p.xread, key)
	switch {
	case served:
		s.blocking.unpark(p)
		s.blocking.wake(p, func(*resp.Writer) {})
	case !isStream && p.xread.Group():
		s.blocking.unpark(p)
		s.blocking.wake(p, func(w *resp.Writer) { w.Err(keyspace.ErrStreamGone()) })
	}
}
