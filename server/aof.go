package server

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/minilock/minilock/internal/rdbfmt"
	"github.com/minilock/minilock/keyspace"
	"github.com/minilock/minilock/luaeval"
	"github.com/minilock/minilock/resp"
	"github.com/minilock/minilock/server/internal/edge"
)

// The append-only file in Redis 7.0's multi-part layout (aof.c): a
// directory (appenddirname) holding a base file (an RDB file when
// aof-use-rdb-preamble is yes, else commands), incremental files of
// commands, and the manifest that lists them. docs/persistence.md has the
// design. What is written is what Redis propagates:
//
//   - a write command as it was sent, with SELECT when the database
//     changes, and its relative times made absolute (SET EX/PX/EXAT and
//     SETEX/PSETEX as SET ... PXAT, EXPIRE and the like as PEXPIREAT,
//     GETEX as PEXPIREAT/PERSIST);
//   - a key that expired as DEL, before the command that found it;
//   - a transaction wrapped in MULTI/EXEC;
//   - a script, and a command whose replay would not give the same data
//     (SPOP, INCRBYFLOAT, XADD *, the blocking pops, XREADGROUP ...), as
//     its effects: each key it changed as DEL or as RESTORE ... REPLACE
//     ABSTTL with its new value (Redis 7.0 replicates effects too; it
//     writes each effect as a command, minilock as the key's new value).
//
// The buffer is written at the end of each batch of commands, before
// their replies go out; with appendfsync always it is also fsynced then,
// so no reply acknowledges a write that is not on disk.

// aofState is the AOF's state. Owner goroutine, except what fsyncLoop
// touches under mu.
type aofState struct {
	on      bool // appendonly yes and the files open
	dir     string
	name    string // appendfilename
	base    aofFile
	incr    []aofFile // the last one is open for appending
	history []aofFile
	f       *os.File // the open incremental file
	buf     []byte   // propagated, not yet written
	db      int      // the database the file has selected; -1 at a new file
	fsync   string   // appendfsync

	depth   int          // nesting of s.run
	touched []aofKey     // keys changed by the command running
	inExec  bool         // propagating the commands of an EXEC
	wrapped bool         // MULTI written for the EXEC running
	flushed map[int]bool // databases a script emptied

	mu        sync.Mutex // guards f, size and synced: fsyncLoop reads them
	dirty     bool       // written since the last fsync (everysec)
	size      int64      // bytes written to f
	synced    int64      // of them, those an fsync put on disk (PowerLoss)
	stop      chan struct{}
	lastErr   error
	rewriting bool
	rewrites  int64
	rewriteOK bool
	lastRwSec int64
	rwStart   int64
	started   bool // Start has loaded the data: CONFIG SET appendonly acts
}

func init() {
	liveParams["appendonly"] = liveParam{
		get: func(s *Server) string { return cmpEmpty(s.ops.params["appendonly"], "no") },
		set: func(s *Server, v string) error {
			s.ops.params["appendonly"] = v
			if !s.aof.started {
				return nil // Start loads or creates the AOF
			}
			if v == "yes" {
				return s.startAOF(s.ks.Now())
			}
			s.stopAOF()
			return nil
		},
	}
	liveParams["appendfsync"] = liveParam{
		get: func(s *Server) string { return cmpEmpty(s.ops.params["appendfsync"], "everysec") },
		set: func(s *Server, v string) error {
			s.ops.params["appendfsync"] = v
			s.aof.fsync = v
			return nil
		},
	}
}

// BGREWRITEAOF (aof.c:bgrewriteaofCommand).
func cmdBgRewriteAof(x *call, args [][]byte) error {
	s := x.s
	a := &s.aof
	switch {
	case s.persist.bg != nil && s.persist.bg.aof:
		return errAOFRewriteRunning
	case s.persist.bg != nil || x.inExec:
		a.rewriting = true
		x.W.Status("Background append only file rewriting scheduled")
		return nil
	}
	if err := s.startRewrite(x.Now); err != nil {
		return err
	}
	s.log.Info("Background append only file rewriting started")
	x.W.Status("Background append only file rewriting started")
	return nil
}

type aofFile struct {
	name string
	seq  int
	typ  byte // 'b', 'i', 'h'
}

type aofKey struct {
	db  int
	key string
}

var (
	errAOFRewriteRunning = resp.NewError("Background append only file rewriting already in progress")
	errAOFBgSaveRunning  = resp.NewError("Another child process is active (AOF?): can't BGSAVE right now. Use BGSAVE SCHEDULE in order to schedule a BGSAVE whenever possible.")
)

// aofTracker is the keyspace's Tracker while the AOF is on.
type aofTracker struct{ s *Server }

func (t aofTracker) Touched(db int, key string) {
	a := &t.s.aof
	a.touched = append(a.touched, aofKey{db, key})
}

func (t aofTracker) Expired(db int, key string) {
	t.s.aofEmit(db, []byte("DEL"), []byte(key))
}

func (t aofTracker) Flushed(db int) {
	a := &t.s.aof
	if a.flushed == nil {
		a.flushed = map[int]bool{}
	}
	a.flushed[db] = true
}

// aofEmit appends one command run in database db.
func (s *Server) aofEmit(db int, args ...[]byte) {
	a := &s.aof
	if !a.on {
		return
	}
	if a.inExec && !a.wrapped {
		a.wrapped = true
		a.buf = appendCommand(a.buf, []byte("MULTI"))
	}
	if db != a.db {
		a.buf = appendCommand(a.buf, []byte("SELECT"), []byte(strconv.Itoa(db)))
		a.db = db
	}
	a.buf = appendCommand(a.buf, args...)
}

// aofBefore is called as s.run starts a command while the AOF is on.
func (s *Server) aofBefore(cmd *command) {
	a := &s.aof
	if a.depth == 0 && (len(a.touched) > 0 || len(a.flushed) > 0) {
		// Keys changed outside any command since the last one (a blocked
		// client served, a key evicted): their effects first.
		s.aofEffects(s.ks.Now())
	}
	if a.depth == 0 || a.depth == 1 && a.inExec {
		a.touched = a.touched[:0]
		clear(a.flushed)
	}
	if a.depth == 0 && cmd.name == "exec" {
		a.inExec = true
	}
	a.depth++
}

// aofAfter is called as s.run ends a command: a top-level command, or one
// inside EXEC, is propagated.
func (s *Server) aofAfter(x *call, cmd *command, args [][]byte) {
	a := &s.aof
	if !a.on || a.depth <= 0 {
		a.depth = 0 // the AOF was turned on or off under this command
		return
	}
	a.depth--
	top := a.depth == 0
	inExec := a.depth == 1 && a.inExec
	if !top && !inExec {
		return // a script's call: the script propagates its effects
	}
	if cmd.name == "exec" {
		if a.wrapped {
			a.buf = appendCommand(a.buf, []byte("EXEC"))
		}
		a.inExec, a.wrapped = false, false
		return
	}
	if cmd.name == "multi" || cmd.name == "select" {
		return
	}
	if len(a.touched) == 0 && len(a.flushed) == 0 && !aofKeyless[cmd.name] {
		return // changed nothing: not propagated
	}
	if aofKeyless[cmd.name] && cmd.flags&fWrite == 0 && cmd.flags&fMayReplicate == 0 {
		return
	}
	s.aofPropagate(x, cmd, args)
	a.touched = a.touched[:0]
	clear(a.flushed)
}

// aofKeyless are the write commands that change no key yet are written:
// the function library.
var aofKeyless = map[string]bool{"swapdb": true, "function|load": true, "function|delete": true, "function|flush": true, "function|restore": true}

// aofEffects are the commands written as their effects: their replay
// would not give the same data (randomness, the clock, blocking, a
// consumer group's state), or they run scripts.
var aofEffects = map[string]bool{
	"eval": true, "evalsha": true, "eval_ro": true, "evalsha_ro": true, "fcall": true, "fcall_ro": true,
	"spop": true, "incrbyfloat": true, "hincrbyfloat": true, "xadd": true, "xreadgroup": true,
	"xautoclaim": true, "xclaim": true, "blpop": true, "brpop": true, "brpoplpush": true, "blmove": true,
	"blmpop": true, "bzpopmin": true, "bzpopmax": true, "bzmpop": true, "restore": true, "restore-asking": true,
	"getex": true, "pfcount": true,
}

// aofPropagate writes the command x ran as Redis propagates it.
func (s *Server) aofPropagate(x *call, cmd *command, args [][]byte) {
	db := x.DB
	switch cmd.name {
	case "set", "setex", "psetex":
		if out, ok := s.aofSetAbs(db, cmd.name, args); ok {
			s.aofEmit(db, out...)
			return
		}
	case "expire", "pexpire", "expireat", "pexpireat":
		key := args[1]
		if _, _, ok, deadline := s.ks.Peek(db, string(key), x.Now, 0); ok && deadline != 0 {
			s.aofEmit(db, []byte("PEXPIREAT"), key, []byte(strconv.FormatInt(deadline, 10)))
		} else {
			s.aofEmit(db, []byte("DEL"), key)
		}
		return
	}
	if !aofEffects[cmd.name] {
		s.aofEmit(db, args...)
		return
	}
	s.aofEffects(x.Now)
}

// aofSetAbs rewrites SET with a relative or second expiry, SETEX and PSETEX
// as SET key value PXAT ms (t_string.c:setGenericCommand in 7.0).
func (s *Server) aofSetAbs(db int, name string, args [][]byte) ([][]byte, bool) {
	var key, val []byte
	var rest [][]byte
	switch name {
	case "setex", "psetex":
		key, val = args[1], args[3]
	default:
		key, val = args[1], args[2]
		rel := false
		for i := 3; i < len(args); i++ {
			switch strings.ToLower(string(args[i])) {
			case "ex", "px", "exat":
				rel = true
				i++
				continue
			case "pxat":
				i++
			}
			rest = append(rest, args[i])
			if strings.EqualFold(string(args[i]), "pxat") {
				rest = append(rest, args[i+1])
			}
		}
		if !rel {
			return nil, false
		}
	}
	_, _, ok, deadline := s.ks.Peek(db, string(key), s.ks.Now(), 0)
	if !ok || deadline == 0 {
		return nil, false
	}
	out := [][]byte{[]byte("SET"), key, val}
	for _, r := range rest {
		if !strings.EqualFold(string(r), "get") {
			out = append(out, r)
		}
	}
	return append(out, []byte("PXAT"), []byte(strconv.FormatInt(deadline, 10))), true
}

// aofEffects writes the keys the command changed as their new values,
// wrapped in MULTI/EXEC when there is more than one (a script is atomic).
func (s *Server) aofEffects(now int64) {
	a := &s.aof
	seen := map[aofKey]bool{}
	var keys []aofKey
	for _, k := range a.touched {
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	n := len(keys) + len(a.flushed)
	wrap := n > 1 && !a.inExec
	if wrap {
		a.buf = appendCommand(a.buf, []byte("MULTI"))
	}
	for db := range a.flushed {
		s.aofEmit(db, []byte("FLUSHDB"))
	}
	w := keyspace.NewRDBWriter(false)
	for _, k := range keys {
		v, deadline, ok := s.ks.ValueOf(k.db, []byte(k.key), now)
		if !ok {
			s.aofEmit(k.db, []byte("DEL"), []byte(k.key))
			continue
		}
		payload := rdbfmt.AppendFooter(keyspace.AppendRDBValue(w, nil, v))
		s.aofEmit(k.db, []byte("RESTORE"), []byte(k.key), []byte(strconv.FormatInt(deadline, 10)), payload, []byte("REPLACE"), []byte("ABSTTL"))
	}
	if wrap {
		a.buf = appendCommand(a.buf, []byte("EXEC"))
	}
}

// aofFlush writes what the batch propagated and, with appendfsync
// always, fsyncs it: called before the batch's replies go out.
func (s *Server) aofFlush() {
	a := &s.aof
	// Keys changed outside any command (a blocked client served, a
	// script killed): their effects.
	if a.on && a.depth == 0 && (len(a.touched) > 0 || len(a.flushed) > 0) {
		s.aofEffects(s.ks.Now())
		a.touched = a.touched[:0]
		clear(a.flushed)
	}
	if !a.on || len(a.buf) == 0 {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	n, err := a.f.Write(a.buf)
	a.size += int64(n)
	if err == nil && a.fsync == "always" {
		if err = a.f.Sync(); err == nil {
			a.synced = a.size
		}
	}
	a.dirty = true
	if err != nil {
		if a.lastErr == nil {
			s.log.Warn("Error writing to the AOF file", "err", err)
		}
		a.lastErr = err
		return // kept: written again at the next flush
	}
	a.lastErr = nil
	a.buf = a.buf[:0]
}

// fsyncLoop fsyncs the AOF once a second (appendfsync everysec).
func (s *Server) fsyncLoop(f *os.File, stop chan struct{}) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	a := &s.aof
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		a.mu.Lock()
		if a.dirty && a.f == f {
			if f.Sync() == nil {
				a.synced = a.size
			}
			a.dirty = false
		}
		f = a.f
		a.mu.Unlock()
	}
}

// The manifest (aof.c:getAppendOnlyFileManifestAsString).

func (a *aofState) manifestText() string {
	var b strings.Builder
	line := func(f aofFile) {
		fmt.Fprintf(&b, "file %s seq %d type %c\n", f.name, f.seq, f.typ)
	}
	if a.base.name != "" {
		line(a.base)
	}
	for _, f := range a.history {
		line(f)
	}
	for _, f := range a.incr {
		line(f)
	}
	return b.String()
}

func parseManifest(text string) (base aofFile, incr, hist []aofFile, err error) {
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || l[0] == '#' {
			continue
		}
		f := strings.Fields(l)
		var af aofFile
		for i := 0; i+1 < len(f); i += 2 {
			switch f[i] {
			case "file":
				af.name = f[i+1]
			case "seq":
				af.seq, _ = strconv.Atoi(f[i+1])
			case "type":
				af.typ = f[i+1][0]
			}
		}
		if af.name == "" || strings.ContainsAny(af.name, "/\\") {
			return base, nil, nil, fmt.Errorf("Invalid AOF manifest file format: %q", l)
		}
		switch af.typ {
		case 'b':
			base = af
		case 'i':
			incr = append(incr, af)
		case 'h':
			hist = append(hist, af)
		default:
			return base, nil, nil, fmt.Errorf("Unknown AOF file type %q", l)
		}
	}
	return base, incr, hist, nil
}

// writeManifest replaces the manifest (temp file, fsync, rename).
func (a *aofState) writeManifest() error {
	path := filepath.Join(a.dir, a.name+".manifest")
	tmp := filepath.Join(a.dir, "temp-"+a.name+".manifest")
	if err := writeFileSynced(tmp, []byte(a.manifestText())); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	if d, err := os.Open(a.dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// aofDir is where the AOF lives.
func (s *Server) aofDir() string {
	return filepath.Join(s.cfg.Dir, s.param("appenddirname"))
}

// openIncr opens a new incremental file with the next sequence number and
// makes it the one written. Owner goroutine.
func (s *Server) openIncr() error {
	a := &s.aof
	seq := 1
	if n := len(a.incr); n > 0 {
		seq = a.incr[n-1].seq + 1
	}
	name := fmt.Sprintf("%s.%d.incr.aof", a.name, seq)
	f, err := os.OpenFile(filepath.Join(a.dir, name), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	s.aofFlush()
	a.mu.Lock()
	old := a.f
	a.f, a.size, a.synced = f, 0, 0
	a.mu.Unlock()
	if old != nil {
		old.Sync()
		old.Close()
	}
	a.incr = append(a.incr, aofFile{name: name, seq: seq, typ: 'i'})
	a.db = -1
	if a.base.name != "" {
		// The manifest names the new file at once, so a crash before the
		// rewrite ends loads it too (openNewIncrAofForAppend). A first
		// rewrite has no base yet: its manifest comes when it ends.
		return a.writeManifest()
	}
	return nil
}

// startAOF turns the AOF on at run time (CONFIG SET appendonly yes): a new
// incremental file takes the writes from now on and a rewrite writes the
// base from a snapshot of now; the manifest names them once the base is
// complete (startAppendOnly).
func (s *Server) startAOF(now int64) error {
	a := &s.aof
	if a.on {
		return nil
	}
	a.name, a.dir, a.fsync = s.param("appendfilename"), s.aofDir(), s.param("appendfsync")
	if err := os.MkdirAll(a.dir, 0o755); err != nil {
		return err
	}
	a.base, a.incr, a.history = aofFile{}, nil, nil
	if text, err := os.ReadFile(filepath.Join(a.dir, a.name+".manifest")); err == nil {
		// Files of an earlier run: their sequence numbers go on.
		a.base, a.incr, a.history, _ = parseManifest(string(text))
		a.history = append(a.history, a.incr...)
	}
	a.on = true
	s.ks.SetTracker(aofTracker{s})
	if err := s.openIncr(); err != nil {
		s.stopAOF()
		return err
	}
	a.stop = make(chan struct{})
	go s.fsyncLoop(a.f, a.stop)
	return s.startRewrite(now)
}

// createAOF makes the AOF of an empty server at Start: its base, written
// now, an incremental file and the manifest ("Creating AOF base file ...
// on server start").
func (s *Server) createAOF() error {
	a := &s.aof
	if err := os.MkdirAll(a.dir, 0o755); err != nil {
		return err
	}
	ext := "rdb"
	if s.param("aof-use-rdb-preamble") != "yes" {
		ext = "aof"
	}
	base := aofFile{name: fmt.Sprintf("%s.1.base.%s", a.name, ext), seq: 1, typ: 'b'}
	if _, err := s.snapshotSync(s.ks.Now(), filepath.Join(a.dir, base.name), true); err != nil {
		return err
	}
	s.log.Info("Creating AOF base file " + base.name + " on server start")
	a.base, a.incr, a.history = base, nil, nil
	a.on = true
	s.ks.SetTracker(aofTracker{s})
	if err := s.openIncr(); err != nil {
		return err
	}
	s.log.Info("Creating AOF incr file " + a.incr[0].name + " on server start")
	a.stop = make(chan struct{})
	go s.fsyncLoop(a.f, a.stop)
	return nil
}

// stopAOF turns it off (CONFIG SET appendonly no): the files stay.
func (s *Server) stopAOF() {
	a := &s.aof
	if !a.on {
		return
	}
	s.aofFlush()
	if s.persist.bg != nil && s.persist.bg.aof {
		s.abortBgSave()
	}
	a.on = false
	s.ks.SetTracker(nil)
	if a.stop != nil {
		close(a.stop)
		a.stop = nil
	}
	a.mu.Lock()
	if a.f != nil {
		a.f.Sync()
		a.f.Close()
		a.f = nil
	}
	a.mu.Unlock()
}

// startRewrite is BGREWRITEAOF: a snapshot of now becomes the new base,
// and a new incremental file takes the writes from now on; the manifest
// switches to them when the base is on disk, and the older files go.
func (s *Server) startRewrite(now int64) error {
	a := &s.aof
	if s.persist.bg != nil {
		if s.persist.bg.aof {
			return errAOFRewriteRunning
		}
		a.rewriting = true // scheduled: the cron starts it after the BGSAVE
		return nil
	}
	if a.on {
		if err := s.openIncr(); err != nil {
			return err
		}
	} else {
		// appendonly no: the directory gets a base alone, the data as of
		// now, and the AOF stays off.
		a.name, a.dir = s.param("appendfilename"), s.aofDir()
		if err := os.MkdirAll(a.dir, 0o755); err != nil {
			return err
		}
		if text, err := os.ReadFile(filepath.Join(a.dir, a.name+".manifest")); err == nil {
			a.base, a.incr, a.history, _ = parseManifest(string(text))
		}
		a.history = append(a.history, a.incr...)
		a.incr = nil
	}
	seq := a.base.seq + 1
	ext := "rdb"
	if s.param("aof-use-rdb-preamble") != "yes" {
		ext = "aof"
	}
	name := fmt.Sprintf("%s.%d.base.%s", a.name, seq, ext)
	if err := s.startSnapshotWrite(now, filepath.Join(a.dir, name), true); err != nil {
		return err
	}
	s.persist.bg.newBase = aofFile{name: name, seq: seq, typ: 'b'}
	s.persist.bg.keepIncr = max(len(a.incr)-1, 0) // the incremental file just opened, and later ones
	a.rewriting = false
	a.rwStart = now
	return nil
}

// rewriteDone is the end of a rewrite (backgroundRewriteDoneHandler).
func (s *Server) rewriteDone(b *bgSave, err error, now int64) {
	a := &s.aof
	a.lastRwSec = (now - a.rwStart) / 1000
	if err != nil {
		a.rewriteOK = false
		s.log.Warn("Background AOF rewrite failed", "err", err)
		return
	}
	old := append([]aofFile{a.base}, a.history...)
	old = append(old, a.incr[:b.keepIncr]...)
	a.base, a.history, a.incr = b.newBase, nil, a.incr[b.keepIncr:]
	if err := a.writeManifest(); err != nil {
		a.rewriteOK = false
		s.log.Warn("Background AOF rewrite: writing the manifest failed", "err", err)
		return
	}
	for _, f := range old {
		if f.name != "" {
			os.Remove(filepath.Join(a.dir, f.name))
		}
	}
	a.rewriteOK = true
	a.rewrites++
	s.log.Info("Background AOF rewrite finished successfully")
}

// loadAOF loads the AOF at Start when appendonly is yes, and opens it for
// appending; without one it creates it (loadDataFromDisk,
// aofOpenIfNeededOnServerStart).
func (s *Server) loadAOF() error {
	a := &s.aof
	a.name, a.dir, a.fsync = s.param("appendfilename"), s.aofDir(), s.param("appendfsync")
	text, err := os.ReadFile(filepath.Join(a.dir, a.name+".manifest"))
	if errors.Is(err, os.ErrNotExist) {
		return s.createAOF()
	}
	if err != nil {
		return err
	}
	base, incr, hist, err := parseManifest(string(text))
	if err != nil {
		return err
	}
	start := time.Now()
	if base.name != "" {
		if err := s.loadAOFFile(filepath.Join(a.dir, base.name), false); err != nil {
			return err
		}
	}
	for i, f := range incr {
		if err := s.loadAOFFile(filepath.Join(a.dir, f.name), i == len(incr)-1); err != nil {
			return err
		}
	}
	s.log.Info("DB loaded from append only file", "seconds", time.Since(start).Seconds())
	a.base, a.incr, a.history = base, incr, hist
	a.on = true
	s.ks.SetTracker(aofTracker{s})
	if len(incr) == 0 {
		if err := s.openIncr(); err != nil {
			return err
		}
		if err := a.writeManifest(); err != nil {
			return err
		}
	} else {
		f, err := os.OpenFile(filepath.Join(a.dir, incr[len(incr)-1].name), os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return err
		}
		a.mu.Lock()
		a.f = f
		if st, err := f.Stat(); err == nil {
			a.size, a.synced = st.Size(), st.Size()
		}
		a.mu.Unlock()
	}
	a.db = -1
	a.stop = make(chan struct{})
	go s.fsyncLoop(a.f, a.stop)
	return nil
}

// loadAOFFile loads one file of the AOF: an RDB file (a base with the
// preamble) or commands. In the last file a command cut short (a crash
// mid-write) is dropped and the file truncated before it when
// aof-load-truncated is yes, as Redis does; anywhere else it is an error.
func (s *Server) loadAOFFile(path string, last bool) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if bytes.HasPrefix(b, []byte("REDIS")) {
		info, err := s.ks.LoadRDB(b, s.ks.Now(), s.param("rdbchecksum") == "yes")
		if err == nil && len(info.Functions) > 0 {
			err = s.lua.FunctionRestore(rdbfmt.AppendFooter(info.Functions), luaeval.RestoreAppend)
		}
		if err != nil {
			return fmt.Errorf("loading %s: %w", path, err)
		}
		return nil
	}
	c := &client{srv: s, authed: true, Conn: &edge.Conn{}}
	var w resp.Writer
	x := &call{s: s, c: c, loading: true}
	r := bufio.NewReader(bytes.NewReader(b))
	good, inMulti := 0, -1 // offset after the last complete command; where an open MULTI began
	var queued [][][]byte
	for {
		args, n, err := readAOFCommand(r)
		if err != nil {
			if errors.Is(err, errAOFEnd) {
				break
			}
			if !last || !errors.Is(err, errAOFTruncated) || s.param("aof-load-truncated") != "yes" {
				return fmt.Errorf("Bad file format reading the append only file %s at offset %d: %v", filepath.Base(path), good, err)
			}
			cut := good
			if inMulti >= 0 {
				cut = inMulti // Redis reverts an incomplete transaction
			}
			s.log.Warn(fmt.Sprintf("!!! Warning: short read while loading the AOF file %s!!!", filepath.Base(path)))
			s.log.Warn(fmt.Sprintf("AOF %s loaded anyway because aof-load-truncated is enabled", filepath.Base(path)))
			return os.Truncate(path, int64(cut))
		}
		start := good
		good += n
		name := strings.ToLower(string(args[0]))
		switch name {
		case "multi":
			inMulti, queued = start, queued[:0]
			continue
		case "exec":
			for _, q := range queued {
				s.aofReplay(x, &w, q)
			}
			inMulti, queued = -1, nil
			continue
		}
		if inMulti >= 0 {
			queued = append(queued, args)
			continue
		}
		s.aofReplay(x, &w, args)
	}
	if inMulti >= 0 {
		if !last || s.param("aof-load-truncated") != "yes" {
			return fmt.Errorf("Revert incomplete MULTI/EXEC transaction in AOF file %s", filepath.Base(path))
		}
		s.log.Warn("Revert incomplete MULTI/EXEC transaction in AOF file " + filepath.Base(path))
		return os.Truncate(path, int64(inMulti))
	}
	return nil
}

// aofReplay runs one command of the file.
func (s *Server) aofReplay(x *call, w *resp.Writer, args [][]byte) {
	cmd, err := lookup(args)
	if err != nil || cmd == nil {
		s.log.Warn("Unknown command reading the append only file", "cmd", string(args[0]))
		return
	}
	w.Reset()
	x.Ctx = keyspace.Ctx{W: w, DB: x.DB, Now: s.ks.Now()}
	x.loading = true
	if cmd.name == "select" {
		if n, err := strconv.Atoi(string(args[1])); err == nil && n >= 0 && n < s.ks.Databases() {
			x.DB = n
		}
		return
	}
	db := x.DB
	s.run(x, cmd, args)
	x.DB = db
}

var (
	errAOFEnd       = errors.New("end of file")
	errAOFTruncated = errors.New("unexpected end of file")
)

// readAOFCommand reads one multibulk command and its size in bytes.
func readAOFCommand(r *bufio.Reader) ([][]byte, int, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		if len(line) == 0 {
			return nil, 0, errAOFEnd
		}
		return nil, 0, errAOFTruncated
	}
	n := len(line)
	if len(line) < 4 || line[0] != '*' || !strings.HasSuffix(line, "\r\n") {
		return nil, 0, errors.New("expected a multibulk")
	}
	argc, err := strconv.Atoi(line[1 : len(line)-2])
	if err != nil || argc < 1 || argc > 1<<20 {
		return nil, 0, errors.New("bad argument count")
	}
	args := make([][]byte, 0, min(argc, 64))
	for range argc {
		line, err := r.ReadString('\n')
		if err != nil {
			return nil, 0, errAOFTruncated
		}
		n += len(line)
		if len(line) < 4 || line[0] != '$' || !strings.HasSuffix(line, "\r\n") {
			return nil, 0, errors.New("expected a bulk string")
		}
		size, err := strconv.Atoi(line[1 : len(line)-2])
		if err != nil || size < 0 || size > 512<<20 {
			return nil, 0, errors.New("bad bulk length")
		}
		b := make([]byte, size+2)
		if _, err := io.ReadFull(r, b); err != nil {
			return nil, 0, errAOFTruncated
		}
		if b[size] != '\r' || b[size+1] != '\n' {
			return nil, 0, errors.New("bulk string not ended by CRLF")
		}
		n += size + 2
		args = append(args, b[:size])
	}
	return args, n, nil
}

// aofInfo is INFO persistence's part while the AOF is on.
func (s *Server) aofInfo() [][2]string {
	a := &s.aof
	size := func(f aofFile) int64 {
		if st, err := os.Stat(filepath.Join(a.dir, f.name)); err == nil {
			return st.Size()
		}
		return 0
	}
	baseSize := size(a.base)
	cur := baseSize
	for _, f := range a.history {
		cur += size(f)
	}
	for _, f := range a.incr {
		cur += size(f)
	}
	return [][2]string{
		{"aof_current_size", itoa(cur)},
		{"aof_base_size", itoa(baseSize)},
		{"aof_pending_rewrite", boolDigit(a.rewriting)},
		{"aof_buffer_length", itoa(int64(len(a.buf)))},
		{"aof_pending_bio_fsync", "0"},
		{"aof_delayed_fsync", "0"},
	}
}

// writeFileSynced writes b to path and fsyncs it.
func writeFileSynced(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
