package keyspace

import (
	"github.com/minilock/minilock/internal/rdbfmt"
	"github.com/minilock/minilock/internal/redisstr"
	"github.com/minilock/minilock/resp"
)

// DUMP and RESTORE (cluster.c: dumpCommand, restoreCommand).

var (
	errDumpPayload = resp.NewError("DUMP payload version or checksum are wrong")
	errBadFormat   = resp.NewError("Bad data format")
	errBusyKey     = &resp.Error{Code: "BUSYKEY", Msg: "Target key name already exists."}
	errBadTTL      = resp.NewError("Invalid TTL value, must be >= 0")
	errBadIdle     = resp.NewError("Invalid IDLETIME value, must be >= 0")
	errBadFreq     = resp.NewError("Invalid FREQ value, must be >= 0 and <= 255")
)

// SetRDBCompression sets rdbcompression: whether DUMP (and what else
// encodes with RDBCompression) compresses strings with LZF. Owner
// goroutine only.
func (k *Keyspace) SetRDBCompression(on bool) { k.rdbRaw = !on }

// RDBCompression reports rdbcompression.
func (k *Keyspace) RDBCompression() bool { return !k.rdbRaw }

// dumpWriter is the writer DUMP and MIGRATE encode with, kept: a writer
// per DUMP would make a compressor table per DUMP.
func (k *Keyspace) dumpWriter() *RDBWriter {
	if k.dumper == nil {
		k.dumper = NewRDBWriter(true)
	}
	k.dumper.enc.Plain = k.rdbRaw
	return k.dumper
}

// DumpPayload is createDumpPayload: v's type and encoding, the RDB
// version and the CRC64 of all that.
func DumpPayload(w *RDBWriter, v Value) []byte {
	return rdbfmt.AppendFooter(AppendRDBValue(w, nil, v))
}

// DUMP key
func CmdDump(k *Keyspace, c *Ctx, args [][]byte) error {
	e, _, ok := k.read(c, args[1])
	if !ok {
		c.W.Null()
		return nil
	}
	v := Value{obj: e.obj}
	if e.obj == nil {
		v.str = e.val()
	}
	c.W.Bulk(DumpPayload(k.dumpWriter(), v))
	return nil
}

// LoadPayload checks a DUMP payload's footer and reads its value
// (verifyDumpPayload, rdbLoadObjectType, rdbLoadObject). Bytes between the
// value and the footer are ignored, as Redis ignores them.
func LoadPayload(p []byte, enc Encodings) (Value, error) {
	if _, ok := rdbfmt.Footer(p); !ok {
		return Value{}, errDumpPayload
	}
	// Redis reads the value from the whole payload: a value may run into
	// the footer's bytes and still load.
	r := &rdbfmt.Reader{B: p}
	t, ok := r.Byte()
	if !ok || t > RDBTypeStreamListpacks2 || t == 8 {
		return Value{}, errBadFormat
	}
	v, err := ReadRDBValue(r, t, enc)
	if err != nil {
		return Value{}, errBadFormat
	}
	return v, nil
}

// RESTORE key ttl serialized-value [REPLACE] [ABSTTL] [IDLETIME seconds]
// [FREQ frequency]; RESTORE-ASKING is the same command.
func CmdRestore(k *Keyspace, c *Ctx, args [][]byte) error {
	replace, absTTL := false, false
	idle, freq := int64(-1), int64(-1)
	for j := 4; j < len(args); j++ {
		more := len(args) - j - 1
		switch {
		case redisstr.Option(args[j], "replace"):
			replace = true
		case redisstr.Option(args[j], "absttl"):
			absTTL = true
		case redisstr.Option(args[j], "idletime") && more >= 1 && freq == -1:
			n, ok := redisstr.ParseInt(args[j+1])
			if !ok {
				return resp.ErrNotInteger
			}
			if n < 0 {
				return errBadIdle
			}
			idle = n
			j++
		case redisstr.Option(args[j], "freq") && more >= 1 && idle == -1:
			n, ok := redisstr.ParseInt(args[j+1])
			if !ok {
				return resp.ErrNotInteger
			}
			if n < 0 || n > 255 {
				return errBadFreq
			}
			freq = n
			j++
		default:
			return resp.ErrSyntax
		}
	}
	key := args[1]
	if !replace {
		if _, _, exists := k.find(c, key); exists {
			return errBusyKey
		}
	}
	ttl, ok := redisstr.ParseInt(args[2])
	if !ok {
		return resp.ErrNotInteger
	}
	if ttl < 0 {
		return errBadTTL
	}
	v, err := LoadPayload(args[3], k.enc)
	if err != nil {
		return err
	}
	deleted := replace && k.del(c, key)
	if ttl != 0 && !absTTL {
		ttl += c.Now // wraps as Redis's long long does: then in the past
	}
	if ttl != 0 && ttl <= c.Now {
		// checkAlreadyExpired: the key is not made; a replaced one is
		// deleted.
		if deleted {
			k.notify(NotifyGeneric, "del", key, c.DB)
		}
		c.W.Status("OK")
		return nil
	}
	i := k.putValue(c.DB, key, v, ttl)
	k.setAccessClock(c.DB, i, idle, freq, c.Now)
	k.touch(c.DB, key)
	k.notify(NotifyNew, "new", key, c.DB)
	k.notify(NotifyGeneric, "restore", key, c.DB)
	c.W.Status("OK")
	return nil
}

// MigrateDump is MIGRATE's look at one key (lookupKeyRead, then
// createDumpPayload): its DUMP payload and the TTL to restore it with
// (ms; 0: none). ok is false when the key is missing.
func (k *Keyspace) MigrateDump(c *Ctx, key []byte) (payload []byte, ttl int64, ok bool) {
	e, _, ok := k.read(c, key)
	if !ok {
		return nil, 0, false
	}
	if e.expireAt != 0 {
		ttl = max(e.expireAt-c.Now, 1)
	}
	v := Value{obj: e.obj}
	if e.obj == nil {
		v.str = e.val()
	}
	return DumpPayload(k.dumpWriter(), v), ttl, true
}

// MigrateDelete deletes key after the target acknowledged it, as MIGRATE
// without COPY does (with its "del" event), unless the key changed while
// the transfer ran: minilock keeps serving other clients meanwhile (Redis
// blocks), and a value written since is newer than the copy sent, so it
// stays. payload is what was sent. It reports whether it deleted.
func (k *Keyspace) MigrateDelete(c *Ctx, key, payload []byte) bool {
	e, i, ok := k.find(c, key)
	if !ok {
		return false
	}
	v := Value{obj: e.obj}
	if e.obj == nil {
		v.str = e.val()
	}
	if string(DumpPayload(k.dumpWriter(), v)) != string(payload) {
		return false
	}
	k.remove(c.DB, i)
	k.notify(NotifyGeneric, "del", key, c.DB)
	return true
}
