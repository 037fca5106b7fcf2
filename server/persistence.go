package server

import (
	"github.com/minilock/minilock/internal/redisstr"
	"github.com/minilock/minilock/resp"
)

// Persistence commands: the RDB file (SAVE, BGSAVE, LASTSAVE). BGSAVE runs
// without fork, by a copy-on-write snapshot (bgsave.go,
// docs/persistence.md).

// LASTSAVE: the Unix time of the last successful save (the start time
// before any).
func cmdLastSave(x *call, args [][]byte) error {
	x.W.Int(x.s.persist.lastSave)
	return nil
}

// SAVE writes the RDB file (rdbfile.go) on the owner, as Redis's SAVE
// blocks its one thread.
func cmdSave(x *call, args [][]byte) error {
	if x.s.persist.bg != nil {
		return errBgSaveRunning
	}
	if err := x.s.saveRDB(); err != nil {
		return resp.NewError("")
	}
	x.s.persist.savedSync(x.Now, x.s.ks.Changes())
	x.W.Status("OK")
	return nil
}

// BGSAVE [SCHEDULE] (rdb.c:bgsaveCommand). Inside MULTI/EXEC it is
// scheduled, as Redis schedules it there, and the owner's cron starts it
// after the transaction.
func cmdBgSave(x *call, args [][]byte) error {
	if len(args) > 2 || len(args) == 2 && !redisstr.Option(args[1], "schedule") {
		return resp.ErrSyntax
	}
	s := x.s
	switch {
	case s.persist.bg != nil:
		return errBgSaveRunning
	case x.inExec:
		s.persist.scheduled = true
		x.W.Status("Background saving scheduled")
		return nil
	}
	if err := s.startBgSave(x.Now); err != nil {
		return err
	}
	s.log.Info("Background saving started")
	x.W.Status("Background saving started")
	return nil
}
