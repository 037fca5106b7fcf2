package server

import (
	"github.com/minilock/minilock/internal/redisstr"
	"github.com/minilock/minilock/resp"
)

// Persistence commands. minilock keeps its data in memory only: LASTSAVE
// answers as a Redis that never saved (its start time, as INFO's
// rdb_last_save_time), and SAVE and BGSAVE, after Redis's own argument
// checks, are refused with an error that says so rather than answering
// +OK for a file that was never written (docs/differences.md).

// errNoPersistence is the reply to SAVE and BGSAVE.
var errNoPersistence = resp.NewError("minilock keeps no data on disk (no RDB, no AOF): SAVE and BGSAVE are not supported")

// LASTSAVE
func cmdLastSave(x *call, args [][]byte) error {
	x.W.Int(x.s.start.Unix())
	return nil
}

// SAVE writes the RDB file (rdbfile.go) on the owner, as Redis's SAVE
// blocks its one thread.
func cmdSave(x *call, args [][]byte) error {
	if err := x.s.saveRDB(); err != nil {
		return resp.NewError("")
	}
	x.W.Status("OK")
	return nil
}

// BGSAVE [SCHEDULE]
func cmdBgSave(x *call, args [][]byte) error {
	if len(args) > 2 || len(args) == 2 && !redisstr.Option(args[1], "schedule") {
		return resp.ErrSyntax
	}
	return errNoPersistence
}
