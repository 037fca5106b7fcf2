package keyspace

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/minilock/minilock/internal/rdbfmt"
)

// Whole RDB files (rdb.c: rdbSaveRio, rdbLoadRioWithLoadingCtx).

// RDBFile says what goes into a file besides the keys.
type RDBFile struct {
	// Aux are the AUX fields, in order (Redis: redis-ver, redis-bits,
	// ctime, used-mem, aof-base).
	Aux [][2]string
	// Functions are the function libraries as FUNCTION DUMP writes them
	// (RDB_OPCODE_FUNCTION2 records), without the payload's footer.
	Functions []byte
	// Compress is rdbcompression, Checksum rdbchecksum (off: the file
	// ends with eight zero bytes, which a loader does not check).
	Compress, Checksum bool
}

// AppendRDBFile appends the whole dataset as an RDB file (rdbSaveRio):
// the magic, f's aux fields and functions, each non-empty database
// (SELECTDB, RESIZEDB, its live keys), EOF and the CRC64 of all that.
// Owner goroutine only.
func (k *Keyspace) AppendRDBFile(b []byte, f *RDBFile, now int64) []byte {
	var out bytes.Buffer
	k.WriteRDBFile(&out, f, now) // a bytes.Buffer does not fail
	return append(b, out.Bytes()...)
}

// WriteRDBFile is AppendRDBFile to w, a megabyte at a time, so a save
// holds one chunk of the file in memory, not all of it.
func (k *Keyspace) WriteRDBFile(w io.Writer, f *RDBFile, now int64) error {
	const chunk = 1 << 20
	enc := NewRDBWriter(f.Compress)
	b := make([]byte, 0, chunk+chunk/4)
	crc := uint64(0)
	var err error
	flush := func(min int) {
		if len(b) < min || err != nil {
			return
		}
		if f.Checksum {
			crc = rdbfmt.CRC64(crc, b)
		}
		_, err = w.Write(b)
		b = b[:0]
	}
	b = append(b, "REDIS0010"...)
	for _, a := range f.Aux {
		b = append(b, RDBOpAux)
		b = enc.String(b, []byte(a[0]))
		b = enc.String(b, []byte(a[1]))
	}
	b = append(b, f.Functions...)
	for db := range k.dbs {
		d := &k.dbs[db]
		if d.size() == 0 {
			continue
		}
		b = append(b, RDBOpSelectDB)
		b = rdbfmt.AppendLen(b, uint64(db))
		b = append(b, RDBOpResizeDB)
		b = rdbfmt.AppendLen(b, uint64(d.size()))
		b = rdbfmt.AppendLen(b, uint64(d.expires))
		k.EachRDB(db, now, func(key []byte, v Value, expireAt int64) bool {
			b = AppendRDBKey(enc, b, key, v, expireAt)
			flush(chunk)
			return err == nil
		})
	}
	b = append(b, RDBOpEOF)
	flush(0)
	if err != nil {
		return err
	}
	_, err = w.Write(binary.LittleEndian.AppendUint64(b[:0], crc))
	return err
}

// RDBLoad is what LoadRDB found besides the keys.
type RDBLoad struct {
	Version int
	Aux     map[string]string
	// Functions are the function records (RDB_OPCODE_FUNCTION2 and its
	// code), in FUNCTION DUMP's form without the footer.
	Functions []byte
	Keys      int // loaded
	Expired   int // skipped: their deadline had passed
	Empty     int // skipped: empty collections (Redis's empty_keys_skipped)
}

// LoadRDB loads an RDB file, of version 1 to 10 (rdbLoadRio as a master
// loads: keys whose deadline has passed are skipped), into the keyspace,
// which the caller has made empty. checksum is rdbchecksum: the file's
// CRC64, when it has one, is checked. Every length is checked against
// the bytes left. Owner goroutine only.
func (k *Keyspace) LoadRDB(b []byte, now int64, checksum bool) (RDBLoad, error) {
	var info RDBLoad
	if len(b) < 9 || string(b[:5]) != "REDIS" {
		return info, errors.New("Wrong signature trying to load DB from file")
	}
	ver, err := strconv.Atoi(string(b[5:9]))
	if err != nil || ver < 1 || ver > rdbfmt.Version {
		return info, fmt.Errorf("Can't handle RDB format version %s", b[5:9])
	}
	info.Version = ver
	info.Aux = map[string]string{}
	r := &rdbfmt.Reader{B: b, Pos: 9}
	bad := func(what string) error {
		return fmt.Errorf("Short read or corrupt RDB at offset %d: %s", r.Pos, what)
	}
	db := 0
	expireAt := int64(0)
	for {
		t, ok := r.Byte()
		if !ok {
			return info, bad("unexpected end of file")
		}
		switch t {
		case RDBOpExpireTime:
			s, ok := r.Take(4)
			if !ok {
				return info, bad("expire time")
			}
			expireAt = int64(int32(binary.LittleEndian.Uint32(s))) * 1000
			continue
		case RDBOpExpireTimeMS:
			s, ok := r.Take(8)
			if !ok {
				return info, bad("expire time")
			}
			expireAt = int64(binary.LittleEndian.Uint64(s))
			continue
		case RDBOpFreq:
			if _, ok := r.Byte(); !ok {
				return info, bad("LFU frequency")
			}
			continue
		case RDBOpIdle:
			if _, _, ok := r.Len(); !ok {
				return info, bad("LRU idle time")
			}
			continue
		case RDBOpEOF:
			if ver >= 5 {
				end := r.Pos
				s, ok := r.Take(8)
				if !ok {
					return info, bad("checksum")
				}
				if want := binary.LittleEndian.Uint64(s); checksum && want != 0 && want != rdbfmt.CRC64(0, b[:end]) {
					return info, errors.New("Wrong RDB checksum")
				}
			}
			return info, nil
		case RDBOpSelectDB:
			n, _, ok := r.Len()
			if !ok {
				return info, bad("database number")
			}
			if n >= uint64(len(k.dbs)) {
				return info, fmt.Errorf("FATAL: Data file was created with a Redis server configured to handle more than %d databases. Exiting", len(k.dbs))
			}
			db = int(n)
			continue
		case RDBOpResizeDB:
			_, _, ok1 := r.Len()
			_, _, ok2 := r.Len()
			if !ok1 || !ok2 {
				return info, bad("resize db")
			}
			continue
		case RDBOpAux:
			key, ok1 := r.String()
			val, ok2 := r.String()
			if !ok1 || !ok2 {
				return info, bad("aux field")
			}
			info.Aux[string(key)] = string(val)
			continue
		case RDBOpModuleAux:
			return info, errors.New("The RDB file contains AUX module data I can't load: no matching module")
		case rdbfmt.OpFunction:
			return info, errors.New("Pre-release function format not supported.")
		case RDBOpFunction2:
			start := r.Pos - 1
			if _, ok := r.String(); !ok {
				return info, bad("function library")
			}
			info.Functions = append(info.Functions, b[start:r.Pos]...)
			continue
		}
		key, ok := r.String()
		if !ok {
			return info, bad("key")
		}
		v, err := ReadRDBValue(r, t, k.enc)
		if errors.Is(err, ErrEmptyRDB) {
			info.Empty++
			expireAt = 0
			continue
		}
		if err != nil {
			return info, fmt.Errorf("Bad data format: key %q of RDB type %d at offset %d", key, t, r.Pos)
		}
		if expireAt != 0 && expireAt < now {
			info.Expired++
		} else {
			if _, dup := k.dbs[db].lookup(key); dup {
				return info, fmt.Errorf("Duplicated key %q found in RDB file", key)
			}
			k.putValue(db, key, v, expireAt)
			info.Keys++
		}
		expireAt = 0
	}
}
