package keyspace

// Values in Redis 7.0's RDB encoding (rdb.c: rdbSaveObject, rdbLoadObject),
// for DUMP and RESTORE, the RDB file and snapshots. What persistence calls:
//
//   - (*Keyspace).EachRDB(db, now, f) walks a database's live keys, giving
//     each key, its Value and its deadline (Unix ms, 0 for none);
//     (*Keyspace).ValueOf(db, key, now) is one key's.
//   - AppendRDBKey(w, b, key, v, expireAt) appends one key as an RDB file
//     holds it ([EXPIRETIME_MS ms] type key value, rdbSaveKeyValuePair);
//     AppendRDBValue(w, b, v) is the type and value alone (a DUMP payload
//     before its footer). w is an RDBWriter, one per save: it holds the
//     LZF table and rdbcompression's setting.
//   - ReadRDBValue(r, t, enc) reads one value of RDB type t from an
//     rdbfmt.Reader (rdbLoadObject with deep sanitization), allocating
//     nothing the payload only claims; any corruption is ErrBadRDB, an
//     empty collection ErrEmptyRDB (a file's loader skips it). A string
//     Value may share the reader's bytes until it is put.
//   - (*Keyspace).PutRDB(db, key, v, expireAt) adds a key read so, replacing
//     any value it had, with no keyspace event (loading a file); RESTORE
//     goes through CmdRestore.
//   - Whole files (rdbfile.go): (*Keyspace).WriteRDBFile(w, f, now) streams
//     the dataset as SAVE writes it (aux fields and function records in
//     f), (*Keyspace).LoadRDB(b, now, checksum) loads one (RDB versions
//     1-10), returning its aux fields and function records.
//
// A Value holds a key's data without its key; Clone copies it, so a
// snapshot can keep what a write is about to change.

import (
	"encoding/binary"
	"errors"
	"math"
	"strconv"

	"github.com/minilock/minilock/internal/rdbfmt"
)

// RDB object types (rdb.h), the first byte of a DUMP payload.
const (
	RDBTypeString           = 0
	RDBTypeList             = 1
	RDBTypeSet              = 2
	RDBTypeZSet             = 3
	RDBTypeHash             = 4
	RDBTypeZSet2            = 5
	RDBTypeModule           = 6
	RDBTypeModule2          = 7
	RDBTypeHashZipmap       = 9
	RDBTypeListZiplist      = 10
	RDBTypeSetIntset        = 11
	RDBTypeZSetZiplist      = 12
	RDBTypeHashZiplist      = 13
	RDBTypeListQuicklist    = 14
	RDBTypeStreamListpacks  = 15
	RDBTypeHashListpack     = 16
	RDBTypeZSetListpack     = 17
	RDBTypeListQuicklist2   = 18
	RDBTypeStreamListpacks2 = 19
)

// RDB opcodes of a file (rdb.h).
const (
	RDBOpFunction2    = 245
	RDBOpModuleAux    = 247
	RDBOpIdle         = 248
	RDBOpFreq         = 249
	RDBOpAux          = 250
	RDBOpResizeDB     = 251
	RDBOpExpireTimeMS = 252
	RDBOpExpireTime   = 253
	RDBOpSelectDB     = 254
	RDBOpEOF          = 255
)

// ErrBadRDB is returned for a payload that is not a valid RDB value
// (RESTORE answers "Bad data format").
var ErrBadRDB = errors.New("bad RDB data")

// Value is a key's data without its key: a string's bytes or an object.
type Value struct {
	str []byte
	obj *object
}

// Clone is a deep copy of v.
func (v Value) Clone() Value {
	if v.obj == nil {
		return Value{str: append([]byte{}, v.str...)}
	}
	c := v.obj.v.clone()
	return Value{obj: &object{kind: v.obj.kind, v: c, counted: c.size()}}
}

// RDBWriter encodes values, on one goroutine at a time; it holds the LZF
// compressor's 256 KiB table, so a save keeps one for all its strings.
type RDBWriter struct{ enc rdbfmt.Encoder }

// NewRDBWriter returns a writer; compress is rdbcompression.
func NewRDBWriter(compress bool) *RDBWriter {
	w := &RDBWriter{}
	w.enc.Plain = !compress
	return w
}

// String appends s as rdbSaveRawString does.
func (w *RDBWriter) String(b, s []byte) []byte { return w.enc.AppendString(b, s) }

// EachRDB calls f for every live key of database db, with its value and
// deadline (0: none), until f returns false. The key and value alias the
// keyspace: f must not keep them past a change to it. Owner goroutine
// only.
func (k *Keyspace) EachRDB(db int, now int64, f func(key []byte, v Value, expireAt int64) bool) {
	d := &k.dbs[db]
	for i := range d.slots {
		e := &d.slots[i]
		if !e.live() || e.expired(now) {
			continue
		}
		v := Value{obj: e.obj}
		if e.obj == nil {
			v.str = e.val()
		}
		if !f(readOnly(e.key()), v, e.expireAt) {
			return
		}
	}
}

// ValueOf returns key's value and deadline in database db, judged at now,
// without touching it (no hit, no event).
func (k *Keyspace) ValueOf(db int, key []byte, now int64) (Value, int64, bool) {
	d := &k.dbs[db]
	i, ok := d.lookup(key)
	if !ok || d.slots[i].expired(now) {
		return Value{}, 0, false
	}
	e := &d.slots[i]
	if e.obj == nil {
		return Value{str: e.val()}, e.expireAt, true
	}
	return Value{obj: e.obj}, e.expireAt, true
}

// PutRDB sets key in database db to v (read by ReadRDBValue, not shared)
// with deadline expireAt (0: none), replacing whatever it held, with no
// keyspace event: the RDB loader's dbAdd.
func (k *Keyspace) PutRDB(db int, key []byte, v Value, expireAt int64) {
	d := &k.dbs[db]
	if i, ok := d.lookup(key); ok {
		k.remove(db, i)
	}
	k.putValue(db, key, v, expireAt)
}

// putValue adds key, absent from db, holding v.
func (k *Keyspace) putValue(db int, key []byte, v Value, expireAt int64) uint32 {
	d := &k.dbs[db]
	i := d.insert(key, v.str)
	k.born(db, i, k.Now())
	if v.obj != nil {
		v.obj.counted = v.obj.v.size()
		d.slots[i].obj = v.obj
		d.account(v.obj.counted)
		k.signalReady(db, key, v.obj.kind)
	}
	if expireAt != 0 {
		k.setExpire(db, i, expireAt)
	}
	return i
}

// AppendRDBKey appends key as an RDB file holds it (rdbSaveKeyValuePair
// without LRU/LFU): its deadline if it has one, then its type, name and
// value.
func AppendRDBKey(w *RDBWriter, b []byte, key []byte, v Value, expireAt int64) []byte {
	if expireAt != 0 {
		b = append(b, RDBOpExpireTimeMS)
		b = binary.LittleEndian.AppendUint64(b, uint64(expireAt))
	}
	t := rdbType(v)
	b = append(b, t)
	b = w.String(b, key)
	return appendRDBBody(w, b, t, v)
}

// AppendRDBValue appends v's type and encoding (rdbSaveObjectType,
// rdbSaveObject): a DUMP payload without its footer.
func AppendRDBValue(w *RDBWriter, b []byte, v Value) []byte {
	t := rdbType(v)
	return appendRDBBody(w, append(b, t), t, v)
}

// rdbType is rdbSaveObjectType: the type byte for v's current encoding.
func rdbType(v Value) byte {
	if v.obj == nil {
		return RDBTypeString
	}
	switch x := v.obj.v.(type) {
	case *listValue:
		return RDBTypeListQuicklist2
	case *setValue:
		if x.big == nil {
			return RDBTypeSetIntset
		}
		return RDBTypeSet
	case *zsetValue:
		if x.tree == nil {
			return RDBTypeZSetListpack
		}
		return RDBTypeZSet2
	case *hashValue:
		if x.big == nil {
			return RDBTypeHashListpack
		}
		return RDBTypeHash
	}
	return RDBTypeStreamListpacks2
}

func appendRDBBody(w *RDBWriter, b []byte, t byte, v Value) []byte {
	switch t {
	case RDBTypeString:
		return w.String(b, v.str)
	case RDBTypeListQuicklist2:
		return appendRDBList(w, b, v.obj.v.(*listValue))
	case RDBTypeSetIntset:
		return w.String(b, intsetBlob(&v.obj.v.(*setValue).ints))
	case RDBTypeSet:
		s := v.obj.v.(*setValue)
		b = rdbfmt.AppendLen(b, uint64(s.len()))
		s.each(func(m []byte) bool { b = w.String(b, m); return true })
		return b
	case RDBTypeZSetListpack:
		z := v.obj.v.(*zsetValue)
		var lp listpack
		var sbuf [32]byte
		z.each(0, z.len()-1, false, func(m []byte, s float64) bool {
			lp.add(m)
			lp.add(d2string(sbuf[:0], s))
			return true
		})
		return w.String(b, lp.bytes())
	case RDBTypeZSet2:
		// From the greatest to the smallest, as Redis walks its skiplist
		// from the tail, so a loader inserts each at the head.
		z := v.obj.v.(*zsetValue)
		b = rdbfmt.AppendLen(b, uint64(z.len()))
		z.each(0, z.len()-1, true, func(m []byte, s float64) bool {
			b = w.String(b, m)
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(s))
			return true
		})
		return b
	case RDBTypeHashListpack:
		h := v.obj.v.(*hashValue)
		var lp listpack
		h.each(func(f, val []byte) bool { lp.add(f); lp.add(val); return true })
		return w.String(b, lp.bytes())
	case RDBTypeHash:
		h := v.obj.v.(*hashValue)
		b = rdbfmt.AppendLen(b, uint64(h.len()))
		h.each(func(f, val []byte) bool { b = w.String(w.String(b, f), val); return true })
		return b
	}
	return appendRDBStream(w, b, v.obj.v.(*streamValue))
}

// d2string is util.c's d2string, the text a sorted set's listpack keeps a
// score as: integers in (-2^52, 2^52) as integers, the rest as %.17g.
func d2string(b []byte, f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return append(b, "inf"...)
	case math.IsInf(f, -1):
		return append(b, "-inf"...)
	case f == 0:
		if math.Signbit(f) {
			return append(b, "-0"...)
		}
		return append(b, '0')
	case f > -4503599627370495 && f < 4503599627370496 && f == math.Trunc(f):
		return strconv.AppendInt(b, int64(f), 10)
	}
	return strconv.AppendFloat(b, f, 'g', 17, 64)
}
