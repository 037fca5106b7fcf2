package server

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/minilock/minilock/internal/rdbfmt"
	"github.com/minilock/minilock/internal/redisstr"
	"github.com/minilock/minilock/keyspace"
	"github.com/minilock/minilock/resp"
)

// BGSAVE without fork (docs/persistence.md). The owner takes a snapshot
// of the keyspace by copy-on-write (keyspace/snapshot.go) and, between
// commands, hands its keys in bounded batches to a goroutine that encodes
// and writes the RDB file; it never waits for that goroutine. The save
// points start such saves as Redis's serverCron does.

// persistState is what BGSAVE, LASTSAVE, the save points and INFO
// persistence keep. Owner goroutine only.
type persistState struct {
	bg        *bgSave // the save running, nil when none
	scheduled bool    // BGSAVE inside MULTI/EXEC: started by the cron

	lastSave   int64 // Unix s of the last successful save (LASTSAVE)
	lastFailed bool  // the last background save failed (rdb_last_bgsave_status)
	lastTry    int64 // Unix ms the last background save began
	lastSecs   int64 // rdb_last_bgsave_time_sec, -1 before any
	saves      int64 // rdb_saves
	lastCow    int64 // rdb_last_cow_size: the copies the last save made
	saved      int64 // keyspace Changes() covered by the last save
}

// bgSave is a background save in progress.
type bgSave struct {
	items   chan []keyspace.SnapshotItem // owner -> writer; closed when all are sent
	result  chan error                   // writer -> owner, once
	start   int64                        // Unix ms it began
	changes int64                        // keyspace Changes() when it began
	fed     bool                         // every item sent, or the writer stopped
	abort   chan struct{}                // closed to stop the writer
	tmp     string                       // the file being written

	// An AOF rewrite's: the base it writes, and the index in aof.incr of
	// the first incremental file that stays after it.
	aof      bool
	newBase  aofFile
	keepIncr int
}

// bgStepBytes bounds one step of the snapshot on the owner: about 100 µs
// of copying, so that a command waits at most that long behind it.
const bgStepBytes = 64 << 10

// bgQueue is how many steps may wait for the writer: the memory in flight
// is at most bgQueue*bgStepBytes beside the copies of changed keys.
const bgQueue = 8

// bgRetryDelay is CONFIG_BGSAVE_RETRY_DELAY: after a failed save the save
// points wait this long before they try again.
const bgRetryDelay = 5000

var (
	errBgSaveRunning = resp.NewError("Background save already in progress")
	// errMisconf refuses writes (and PING) while the last save failed with
	// stop-writes-on-bgsave-error set (server.c:writeCommandsGetDiskErrorMessage).
	errMisconf = &resp.Error{Code: "MISCONF", Msg: "Redis is configured to save RDB snapshots, but it's currently unable to persist to disk. Commands that may modify the data set are disabled, because this instance is configured to report errors during writes if RDB snapshotting fails (stop-writes-on-bgsave-error option). Please check the Redis logs for details about the RDB error."}
)

func (p *persistState) init(now int64) {
	p.lastSave = now / 1000
	p.lastSecs = -1
}

// savePoints parses the save parameter: pairs of seconds and changes.
func (s *Server) savePoints() [][2]int64 {
	f := strings.Fields(s.param("save"))
	var out [][2]int64
	for i := 0; i+1 < len(f); i += 2 {
		sec, _ := strconv.ParseInt(f[i], 10, 64)
		n, _ := strconv.ParseInt(f[i+1], 10, 64)
		out = append(out, [2]int64{sec, n})
	}
	return out
}

// writesRefused is writeCommandsDeniedByDiskError for RDB: the last
// background save failed, save points are set and
// stop-writes-on-bgsave-error is yes.
func (s *Server) writesRefused() bool {
	return s.persist.lastFailed && s.param("stop-writes-on-bgsave-error") == "yes" && len(s.savePoints()) > 0
}

// startBgSave begins a background save to the RDB file (rdbSaveBackground).
func (s *Server) startBgSave(now int64) error {
	if b := s.persist.bg; b != nil {
		if b.aof {
			return errAOFBgSaveRunning
		}
		return errBgSaveRunning
	}
	return s.startSnapshotWrite(now, s.rdbPath(), false)
}

// startSnapshotWrite begins writing a snapshot of now to path: the RDB
// file, or an AOF base (aof).
func (s *Server) startSnapshotWrite(now int64, path string, aof bool) error {
	sizes, ok := s.ks.BeginSnapshot()
	if !ok {
		return errBgSaveRunning
	}
	b := &bgSave{
		aof:     aof,
		items:   make(chan []keyspace.SnapshotItem, bgQueue),
		result:  make(chan error, 1),
		abort:   make(chan struct{}),
		start:   now,
		changes: s.ks.Changes(),
		tmp:     filepath.Join(filepath.Dir(path), fmt.Sprintf("temp-%d.rdb", os.Getpid())),
	}
	if aof {
		b.tmp = filepath.Join(filepath.Dir(path), fmt.Sprintf("temp-rewriteaof-bg-%d.aof", os.Getpid()))
	}
	funcs := s.lua.FunctionDump()
	funcs = funcs[:max(len(funcs)-10, 0)] // FUNCTION DUMP's records, without its footer
	w := rdbFileWriter{
		compress:  s.param("rdbcompression") == "yes",
		checksum:  s.param("rdbchecksum") == "yes",
		sizes:     sizes,
		functions: funcs,
		now:       now,
		usedMem:   int64(s.usedMemory()),
		aofBase:   aof,
		commands:  aof && s.param("aof-use-rdb-preamble") != "yes",
	}
	s.persist.bg = b
	if !aof {
		s.persist.lastTry = now
		s.persist.saves++
	}
	go func() {
		b.result <- w.writeFile(b.tmp, path, b.items, b.abort)
		for range b.items { // a writer that failed early lets the owner finish sending
		}
	}()
	return nil
}

// bgSaveTick is the owner's share of a background save, between commands:
// one bounded step of the snapshot while the writer has room for it, the
// save's end once the writer reports, and the save points' check. It
// reports whether it has more to do at once.
func (s *Server) bgSaveTick(now int64) (more bool) {
	p := &s.persist
	b := p.bg
	if b == nil {
		if s.aof.rewriting {
			s.startRewrite(now) // scheduled behind a BGSAVE
		}
		s.checkSavePoints(now)
		return false
	}
	select {
	case err := <-b.result:
		if !b.fed { // the writer failed before the end
			s.ks.EndSnapshot()
			close(b.items)
		}
		s.bgSaveDone(err, now)
		return false
	default:
	}
	if b.fed || len(b.items) == cap(b.items) {
		return false
	}
	batch, done := s.ks.SnapshotStep(nil, bgStepBytes)
	b.items <- batch // never blocks: only the owner sends, and there is room
	if done {
		p.lastCow = s.ks.SnapshotProgress().CowPeak
		s.ks.EndSnapshot()
		close(b.items)
		b.fed = true
	}
	return !done
}

// bgSaveDone records the end of a background save
// (backgroundSaveDoneHandlerDisk).
func (s *Server) bgSaveDone(err error, now int64) {
	p := &s.persist
	b := p.bg
	p.bg = nil
	if b.aof {
		s.rewriteDone(b, err, now)
		return
	}
	p.lastSecs = (now - b.start) / 1000
	if err != nil {
		p.lastFailed = true
		s.log.Warn("Background saving error", "err", err)
		return
	}
	p.lastFailed = false
	p.lastSave = now / 1000
	p.saved = b.changes
	s.log.Info("Background saving terminated with success")
}

// abortBgSave stops a background save (killRDBChild): the writer drains
// what it was given and removes its temporary file. Owner goroutine.
func (s *Server) abortBgSave() {
	b := s.persist.bg
	if b == nil {
		return
	}
	s.persist.bg = nil
	s.ks.EndSnapshot()
	close(b.abort)
	if !b.fed {
		close(b.items)
	}
	<-b.result
	s.log.Info("Background saving aborted")
}

// checkSavePoints starts a background save when a save point is due
// (serverCron): enough changes in enough seconds, and, after a failure, the
// retry delay passed. A BGSAVE scheduled inside a transaction starts too.
func (s *Server) checkSavePoints(now int64) {
	p := &s.persist
	if p.scheduled {
		p.scheduled = false
		if s.startBgSave(now) == nil {
			s.log.Info("Background saving started")
		}
		return
	}
	changes := s.ks.Changes() - p.saved
	if changes == 0 {
		return
	}
	for _, sp := range s.savePoints() {
		if changes >= sp[1] && now/1000-p.lastSave > sp[0] && (!p.lastFailed || now-p.lastTry > bgRetryDelay) {
			s.log.Info(fmt.Sprintf("%d changes in %d seconds. Saving...", sp[1], sp[0]))
			if s.startBgSave(now) == nil {
				s.log.Info("Background saving started")
			}
			return
		}
	}
}

// bgSaveNext is when the owner must look again: at once while a save runs
// (it polls the writer each millisecond), within 100 ms while save points
// may fall due (serverCron's hz 10).
func (s *Server) bgSaveNext(now int64) (int64, bool) {
	switch {
	case s.persist.bg != nil:
		return now + 1, true
	case s.persist.scheduled, s.aof.rewriting:
		return now, true
	case s.ks.Changes() != s.persist.saved && s.param("save") != "":
		return now + 100, true
	}
	return 0, false
}

// rdbFileWriter writes an RDB file from a snapshot's items, off the owner.
type rdbFileWriter struct {
	compress, checksum bool
	sizes              []keyspace.DBInfo
	functions          []byte // RDB_OPCODE_FUNCTION2 records
	now                int64  // Unix ms the snapshot is as of
	usedMem            int64
	aofBase            bool // an AOF base: aof-base is 1
	commands           bool // an AOF base without the RDB preamble: commands
}

// errAborted ends a save that was stopped before its last item.
var errAborted = errors.New("background save aborted")

// writeFile writes the file to tmp, then renames it to path once it is
// complete and on disk (rdbSave's temp file, fsync and rename). Closing
// abort stops it, the file unfinished and removed.
func (w *rdbFileWriter) writeFile(tmp, path string, items <-chan []keyspace.SnapshotItem, abort <-chan struct{}) (err error) {
	f, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("Failed opening the temp RDB file %s (in server root dir %s) for saving: %w", filepath.Base(tmp), filepath.Dir(tmp), err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	bw := bufio.NewWriterSize(f, 256<<10)
	var crc uint64
	out := func(b []byte) error {
		if w.checksum {
			crc = rdbfmt.CRC64(crc, b)
		}
		_, err := bw.Write(b)
		return err
	}
	rw := keyspace.NewRDBWriter(w.compress)
	var buf []byte
	if w.commands {
		w.checksum = false
		if len(w.functions) > 0 {
			buf = appendCommand(buf, []byte("FUNCTION"), []byte("RESTORE"), rdbfmt.AppendFooter(w.functions))
		}
	} else {
		buf = w.header(rw, nil)
	}
	cur, selected := -1, make([]bool, len(w.sizes))
	for batch := range items {
		select {
		case <-abort:
			return errAborted
		default:
		}
		for i := range batch {
			it := &batch[i]
			if at := it.ExpireAt(); at != 0 && at < w.now {
				continue // expired when the snapshot began, as SAVE skips it
			}
			if w.commands {
				// rewriteAppendOnlyFileRio writes each type's own commands;
				// minilock writes each key as RESTORE of its value.
				if it.DB != cur {
					cur = it.DB
					buf = appendCommand(buf, []byte("SELECT"), []byte(strconv.Itoa(cur)))
				}
				payload := rdbfmt.AppendFooter(it.AppendRDBValue(rw, nil))
				buf = appendCommand(buf, []byte("RESTORE"), []byte(it.Key()), []byte(strconv.FormatInt(it.ExpireAt(), 10)), payload, []byte("REPLACE"), []byte("ABSTTL"))
			} else if it.DB != cur {
				cur = it.DB
				buf = append(buf, keyspace.RDBOpSelectDB)
				buf = rdbfmt.AppendLen(buf, uint64(cur))
				if !selected[cur] {
					selected[cur] = true
					buf = append(buf, keyspace.RDBOpResizeDB)
					buf = rdbfmt.AppendLen(buf, uint64(w.sizes[cur].Keys))
					buf = rdbfmt.AppendLen(buf, uint64(w.sizes[cur].Expires))
				}
			}
			if !w.commands {
				buf = it.AppendRDB(rw, buf)
			}
			if len(buf) >= 64<<10 {
				if err := out(buf); err != nil {
					return err
				}
				buf = buf[:0]
			}
		}
	}
	select {
	case <-abort:
		return errAborted
	default:
	}
	if !w.commands {
		buf = append(buf, keyspace.RDBOpEOF)
	}
	if err := out(buf); err != nil {
		return err
	}
	// The checksum is written as is, not part of itself; 0 when
	// rdbchecksum is no, which loaders take for "not checked".
	if !w.commands {
		if _, err := bw.Write(binary.LittleEndian.AppendUint64(nil, crc)); err != nil {
			return err
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		d.Sync() // the rename itself on disk
		d.Close()
	}
	return nil
}

// header is the file's start: the magic and version, the aux fields
// Redis 7.0 writes (rdbSaveInfoAuxFields) and the functions.
func (w *rdbFileWriter) header(rw *keyspace.RDBWriter, b []byte) []byte {
	b = append(b, "REDIS"...)
	b = append(b, fmt.Sprintf("%04d", rdbfmt.Version)...)
	aux := func(k, v string) {
		b = append(b, keyspace.RDBOpAux)
		b = rw.String(b, []byte(k))
		b = rw.String(b, []byte(v))
	}
	aux("redis-ver", Version)
	aux("redis-bits", "64")
	aux("ctime", strconv.FormatInt(w.now/1000, 10))
	aux("used-mem", strconv.FormatInt(w.usedMem, 10))
	aux("aof-base", boolDigit(w.aofBase))
	return append(b, w.functions...)
}

// bgSaveElapsed is rdb_current_bgsave_time_sec.
func (s *Server) bgSaveElapsed(now int64) int64 {
	if s.persist.bg == nil {
		return -1
	}
	return (now - s.persist.bg.start) / 1000
}

// saveSync writes the RDB file with the owner waiting for it (rdbSave:
// SHUTDOWN, SIGTERM). The snapshot machinery is the same; nothing else
// runs meanwhile, so no key changes under it. A background save running
// is aborted first, as Redis kills its child.
func (s *Server) saveSync(now int64) error {
	s.abortBgSave()
	b, err := s.snapshotSync(now, s.rdbPath(), false)
	if err != nil {
		s.persist.lastFailed = true
		return err
	}
	s.persist.savedSync(now, b.changes)
	s.log.Info("DB saved on disk")
	return nil
}

// snapshotSync writes a snapshot of now to path with the owner waiting.
// No background save may run.
func (s *Server) snapshotSync(now int64, path string, aof bool) (*bgSave, error) {
	if err := s.startSnapshotWrite(now, path, aof); err != nil {
		return nil, err
	}
	b := s.persist.bg
	s.persist.bg = nil
	for !b.fed {
		batch, done := s.ks.SnapshotStep(nil, bgStepBytes)
		select {
		case b.items <- batch:
		case err := <-b.result: // the writer stopped early
			s.ks.EndSnapshot()
			close(b.items)
			return nil, err
		}
		if done {
			s.ks.EndSnapshot()
			close(b.items)
			b.fed = true
		}
	}
	return b, <-b.result
}

// savedSync records a successful synchronous save (SAVE, SHUTDOWN's)
// covering the changes counted so far, as rdbSave does.
func (p *persistState) savedSync(now, changes int64) {
	p.lastFailed = false
	p.lastSave = now / 1000
	p.saved = changes
}

// boolDigit is INFO's 1 or 0.
func boolDigit(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// okErr is INFO's status words.
func okErr(ok bool) string {
	if ok {
		return "ok"
	}
	return "err"
}

// errShutdownSave refuses a SHUTDOWN whose final save failed.
var errShutdownSave = resp.NewError("Errors trying to SHUTDOWN. Check logs.")

// saveForShutdown is prepareForShutdown's persistence part: a background
// save is aborted, and the final save is written when save points are set
// (or SAVE asked for it) unless NOSAVE. A failed save stops the shutdown
// unless FORCE. Owner goroutine.
func (s *Server) saveForShutdown(now int64, save, nosave, force bool) error {
	s.abortBgSave()
	if nosave || !save && len(s.savePoints()) == 0 {
		return nil
	}
	s.log.Info("Saving the final RDB snapshot before exiting.")
	if err := s.saveSync(now); err != nil {
		s.log.Warn("Error trying to save the DB, can't exit.", "err", err)
		if !force {
			s.log.Warn("Errors trying to shut down the server. Check the logs for more information.")
			return errShutdownSave
		}
	}
	return nil
}

// hasForce reports whether SHUTDOWN's arguments hold FORCE.
func hasForce(args [][]byte) bool {
	for _, a := range args[1:] {
		if redisstr.Option(a, "force") {
			return true
		}
	}
	return false
}

// FLUSHALL [ASYNC|SYNC]: after emptying the databases, a background save
// is aborted and, with save points set, the empty dataset is saved at once
// (flushAllDataAndResetRDB), so that a restart does not bring the keys
// back.
func cmdFlushAll(x *call, args [][]byte) error {
	if err := flushing(keyspace.CmdFlushAll)(x, args); err != nil {
		return err
	}
	s := x.s
	s.abortBgSave()
	if len(s.savePoints()) > 0 {
		if err := s.saveSync(x.Now); err != nil {
			s.log.Warn("FLUSHALL: saving the empty dataset failed", "err", err)
		}
	}
	return nil
}

// Shutdown stops the server as SIGTERM stops redis-server: the final save
// first when save points are set; then Close. A failed save leaves the
// server running and returns the error, as Redis refuses to exit then.
func (s *Server) Shutdown() error {
	// A script running holds the owner: it is stopped first, as Close
	// stops it (its writes so far stay, and are saved).
	s.lua.KillForShutdown()
	var err error
	if derr := s.owner.Do(func() { err = s.saveForShutdown(s.ks.Now(), false, false, false) }); derr != nil {
		return derr
	}
	if err != nil {
		return err
	}
	return s.Close()
}
