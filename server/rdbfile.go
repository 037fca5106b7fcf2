package server

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/minilock/minilock/internal/rdbfmt"
	"github.com/minilock/minilock/keyspace"
	"github.com/minilock/minilock/luaeval"
)

// The RDB file: dir/dbfilename, written by SAVE and loaded at Start, in
// Redis 7.0's format (keyspace/rdbfile.go), so a dump.rdb moves both ways
// between minilock and redis-server.

// rdbPath is where the RDB file lives. Owner goroutine.
func (s *Server) rdbPath() string {
	return filepath.Join(s.cfg.Dir, s.param("dbfilename"))
}

// rdbFile is what the file holds besides the keys: the aux fields Redis
// writes (rdbSaveInfoAuxFields, no replication) and the function
// libraries. Owner goroutine.
func (s *Server) rdbFile() *keyspace.RDBFile {
	fns := s.lua.FunctionDump()
	return &keyspace.RDBFile{
		Aux: [][2]string{
			{"redis-ver", Version},
			{"redis-bits", "64"},
			{"ctime", strconv.FormatInt(time.Now().Unix(), 10)},
			{"used-mem", strconv.FormatUint(s.usedMemory(), 10)},
			{"aof-base", "0"},
		},
		Functions: fns[:len(fns)-10], // the records, without DUMP's footer
		Compress:  s.param("rdbcompression") == "yes",
		Checksum:  s.param("rdbchecksum") == "yes",
	}
}

// saveRDB is rdbSave: the file is written under a temporary name in the
// same directory, synced, then renamed over the old one, so a crash
// leaves the old file or the new, never half of one. Owner goroutine.
func (s *Server) saveRDB() error {
	path := s.rdbPath()
	tmp := filepath.Join(filepath.Dir(path), fmt.Sprintf("temp-%d.rdb", os.Getpid()))
	err := s.writeRDB(tmp)
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		s.log.Warn("Failed saving the DB", "err", err)
		return err
	}
	s.log.Info("DB saved on disk", "path", path)
	return nil
}

func (s *Server) writeRDB(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	err = s.ks.WriteRDBFile(f, s.rdbFile(), s.ks.Now())
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// loadRDB loads dir/dbfilename at Start, when Config.Dir is set and the
// file exists (Redis starts empty without one). A file it cannot load
// stops the start, as it stops redis-server. Owner goroutine.
func (s *Server) loadRDB() error {
	if s.cfg.Dir == "" {
		return nil
	}
	path := s.rdbPath()
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("loading %s: %w", path, err)
	}
	start := time.Now()
	info, err := s.ks.LoadRDB(b, s.ks.Now(), s.param("rdbchecksum") == "yes")
	if err == nil && len(info.Functions) > 0 {
		err = s.lua.FunctionRestore(rdbfmt.AppendFooter(info.Functions), luaeval.RestoreAppend)
	}
	if err != nil {
		return fmt.Errorf("loading %s: %w", path, err)
	}
	s.log.Info("DB loaded from disk", "path", path, "keys", info.Keys, "expired", info.Expired,
		"seconds", time.Since(start).Seconds())
	// The file's bytes and what loading made on the way are garbage now:
	// give them back before serving, so the loaded server's RSS is its
	// data's, as a freshly started Redis's is.
	debug.FreeOSMemory()
	return nil
}
