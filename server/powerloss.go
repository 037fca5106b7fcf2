package server

import (
	"os"
)

// PowerLoss restarts the server as a machine that lost its power comes
// back: every connection drops, and the data is what the disk held, not
// what the server had in memory. With the AOF on, that is the AOF up to
// its last fsync: every acknowledged write with appendfsync always, up to
// about a second less with everysec, and with no only what an fsync of
// its own (a rewrite) put there, as the kernel's write-back is not
// modelled. With the AOF off it is the RDB file of the last save. It is
// for the lab and for tests of what a crash costs; Restart keeps the data.
//
// PowerLoss must not run concurrently with Close or Restart.
func (s *Server) PowerLoss() error {
	return s.relisten(nil, nil, func() {
		s.owner.Do(func() {
			s.abortBgSave()
			a := &s.aof
			wasOn := a.on
			if wasOn {
				a.mu.Lock()
				path, synced := a.f.Name(), a.synced
				a.mu.Unlock()
				a.buf = a.buf[:0] // never written
				s.stopAOF()
				os.Truncate(path, synced) // what the page cache held is gone
			}
			s.ks.SetTracker(nil)
			s.ks.FlushAll()
			s.lua.FunctionFlush()
			s.lua.Flush()
			var err error
			if wasOn {
				err = s.loadAOF()
			} else {
				err = s.loadRDB()
			}
			if err != nil {
				s.log.Error("power loss: loading the data from disk", "err", err)
			}
			s.writableAt = s.ks.Now() + s.cfg.RestartDelay.Milliseconds()
		})
	})
}
