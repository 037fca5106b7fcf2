// Package lcmsgpack is the cmsgpack library (deps/lua/src/lua_cmsgpack.c,
// lua-cmsgpack 0.4.0 as Redis 7.0 ships it): pack, unpack, unpack_one and
// unpack_limit, with its encodings and its quirks. What a Redis user would not guess:
//
//   - A number is packed as an integer when it is one that fits int64, else
//     as a 32-bit float when (float)n == n, else as a double; 0.5 is a float.
//   - A table is an array when its keys are exactly 1..n (n < 2^31), else a
//     map in lua_next order; tables nested 16 deep are packed as nil.
//   - uint64 values past 2^63 unpack as negative numbers (the library
//     pushes them through lua_pushinteger).
//   - unpack_limit(s, 0) with no offset unpacks everything and returns no
//     offset; "Invalid request ... limit of %d" prints the input's length.
//
// Lua's stack is the library's only bound in Redis: every luaL_checkstack
// it makes is made here on a count of the slots Redis's C function would
// hold (its arguments, results and work slots, LUAI_MAXCSTACK in all), so
// the same inputs fail with the same "stack overflow (...)" errors. That
// count also bounds the decoder's recursion (about 8,000 levels for a
// payload of nested maps, 4,000 for arrays; CVE-2018-11218 was this
// recursion without a bound). A count from the payload never sizes an
// allocation: every item needs at least one byte of it.
package lcmsgpack

import (
	"encoding/binary"
	"fmt"
	"math"

	lua "github.com/yuin/gopher-lua"

	"github.com/minilock/minilock/luaeval/internal/lauxlib"
	"github.com/minilock/minilock/luaeval/internal/seam"
)

const mpMaxNesting = 16 // LUACMSGPACK_MAX_NESTING

// Host is what the library needs of the sandbox it is installed in.
type Host interface {
	// Real returns the table t stands for when t is a read-only proxy,
	// else t itself: pack walks what the script can read. A proxy always
	// has its metatable (setmetatable refuses proxies), so a table
	// without one is not asked about.
	Real(t *lua.LTable) *lua.LTable
	// MaxStringBytes is the longest string a script may build.
	MaxStringBytes() int
}

// Open fills t, a new table in L, with the cmsgpack module.
func Open(L *lua.LState, t *lua.LTable, h Host) {
	st := &mpScratch{}
	// luaopen_create's order (its cmds array, then the metadata), each
	// set as lua_setfield sets it into a new table, so pairs and pack walk
	// the module as Redis's Lua does.
	for _, f := range []struct {
		k string
		v lua.LValue
	}{
		{"pack", L.NewFunction(func(L *lua.LState) int { return mpPack(L, h, st) })},
		{"unpack", L.NewFunction(func(L *lua.LState) int { return mpUnpack(L, st) })},
		{"unpack_one", L.NewFunction(func(L *lua.LState) int { return mpUnpackOne(L, st) })},
		{"unpack_limit", L.NewFunction(func(L *lua.LState) int { return mpUnpackLimit(L, st) })},
		{"_NAME", lua.LString("cmsgpack")},
		{"_VERSION", lua.LString("lua-cmsgpack 0.4.0")},
		{"_COPYRIGHT", lua.LString("Copyright (C) 2012, Salvatore Sanfilippo")},
		{"_DESCRIPTION", lua.LString("MessagePack C implementation for Lua")},
	} {
		seam.RawSetString(L, t, f.k, f.v)
	}
}

// mpCheckStack is luaL_checkstack for a C function holding depth slots.
func mpCheckStack(L *lua.LState, depth, space int, msg string) {
	if depth+space > lauxlib.MaxCStack {
		mpRaise(L, "stack overflow (%s)", msg)
	}
}

// mpRaise is luaL_error: the message after the position of the calling
// Lua function, none when a Go function (pcall) called the library.
func mpRaise(L *lua.LState, format string, args ...any) {
	lauxlib.Error(L, fmt.Sprintf(format, args...))
}

// ---- pack ----

type mpEncoder struct {
	L     *lua.LState
	host  Host
	b     []byte
	max   int // MaxStringBytes: the packed string's bound
	steps int
}

// mpPack is mp_pack: every argument packed, the results concatenated.
func mpPack(L *lua.LState, h Host, st *mpScratch) int {
	nargs := L.GetTop()
	if nargs == 0 {
		lauxlib.ArgError(L, 0, "MessagePack pack needs input.")
	}
	if nargs+nargs > lauxlib.MaxCStack { // lua_checkstack(L, nargs)
		lauxlib.ArgError(L, 0, "Too many arguments for MessagePack pack.")
	}
	m := mpEncoder{L: L, host: h, max: h.MaxStringBytes(), b: st.buf[:0]}
	for i := 1; i <= nargs; i++ {
		// Each argument is copied to the top and its packed string left
		// there: nargs slots of arguments, i-1 of results, the copy.
		mpCheckStack(L, nargs+i-1, 1, "in function mp_check")
		m.encode(L.Get(i), 0, nargs+i)
	}
	lauxlib.Alloc(L, len(m.b))
	// One allocation for the string and its header, as cjson.encode's.
	v, dst := seam.NewString(len(m.b))
	copy(dst, m.b)
	L.Push(v)
	if cap(m.b) <= maxKeptBuf {
		st.buf = m.b
	}
	return 1
}

// grow makes room for n more bytes of output, within the string bound.
func (m *mpEncoder) grow(n int) {
	if n > m.max-len(m.b) {
		lauxlib.NoMemory(m.L)
	}
	if m.steps++; m.steps%lauxlib.PollEvery == 0 {
		lauxlib.Poll(m.L)
	}
}

// encode is mp_encode_lua_type for v, the top of a stack depth slots deep.
func (m *mpEncoder) encode(v lua.LValue, level, depth int) {
	switch x := v.(type) {
	case lua.LString:
		m.str(string(x))
	case lua.LBool:
		m.grow(1)
		if x {
			m.b = append(m.b, 0xc3)
		} else {
			m.b = append(m.b, 0xc2)
		}
	case lua.LNumber:
		m.number(float64(x))
	case *lua.LTable:
		if level == mpMaxNesting {
			m.grow(1)
			m.b = append(m.b, 0xc0)
			return
		}
		if x.Metatable != lua.LNil {
			x = m.host.Real(x)
		}
		m.table(x, level, depth)
	default: // nil, functions, userdata (cjson.null), threads
		m.grow(1)
		m.b = append(m.b, 0xc0)
	}
}

// str is mp_encode_bytes.
func (m *mpEncoder) str(s string) {
	n := len(s)
	m.grow(5 + n)
	switch {
	case n < 32:
		m.b = append(m.b, 0xa0|byte(n))
	case n <= 0xff:
		m.b = append(m.b, 0xd9, byte(n))
	case n <= 0xffff:
		m.b = binary.BigEndian.AppendUint16(append(m.b, 0xda), uint16(n))
	default:
		m.b = binary.BigEndian.AppendUint32(append(m.b, 0xdb), uint32(n))
	}
	m.b = append(m.b, s...)
}

// number is mp_encode_lua_number: IS_INT64_EQUIVALENT(n), as x86-64
// computes it ((int64_t)n == n, where out-of-range casts give INT64_MIN).
func (m *mpEncoder) number(n float64) {
	m.grow(9)
	if n >= -(1<<63) && n < 1<<63 && n == math.Trunc(n) {
		m.int(int64(n))
		return
	}
	// mp_encode_double: a float when nothing is lost (NaN never compares
	// equal, so it is always a double).
	if f := float32(n); float64(f) == n {
		m.b = binary.BigEndian.AppendUint32(append(m.b, 0xca), math.Float32bits(f))
		return
	}
	m.b = binary.BigEndian.AppendUint64(append(m.b, 0xcb), math.Float64bits(n))
}

// int is mp_encode_int.
func (m *mpEncoder) int(n int64) {
	b := m.b
	switch {
	case n >= 0 && n <= 127:
		b = append(b, byte(n))
	case n >= 0 && n <= 0xff:
		b = append(b, 0xcc, byte(n))
	case n >= 0 && n <= 0xffff:
		b = binary.BigEndian.AppendUint16(append(b, 0xcd), uint16(n))
	case n >= 0 && n <= 0xffffffff:
		b = binary.BigEndian.AppendUint32(append(b, 0xce), uint32(n))
	case n >= 0:
		b = binary.BigEndian.AppendUint64(append(b, 0xcf), uint64(n))
	case n >= -32:
		b = append(b, byte(n))
	case n >= -128:
		b = append(b, 0xd0, byte(n))
	case n >= -32768:
		b = binary.BigEndian.AppendUint16(append(b, 0xd1), uint16(n))
	case n >= -2147483648:
		b = binary.BigEndian.AppendUint32(append(b, 0xd2), uint32(n))
	default:
		b = binary.BigEndian.AppendUint64(append(b, 0xd3), uint64(n))
	}
	m.b = b
}

// header appends an array or map header (mp_encode_array, mp_encode_map):
// fix is 0x90 or 0x80, its 16- and 32-bit forms follow it.
func (m *mpEncoder) header(n int, fix, b16, b32 byte) {
	m.grow(5)
	switch {
	case n <= 15:
		m.b = append(m.b, fix|byte(n))
	case n <= 0xffff:
		m.b = binary.BigEndian.AppendUint16(append(m.b, b16), uint16(n))
	default:
		m.b = binary.BigEndian.AppendUint32(append(m.b, b32), uint32(n))
	}
}

// table is mp_encode_lua_table for t, the top of a stack depth slots deep.
func (m *mpEncoder) table(t *lua.LTable, level, depth int) {
	if n, ok := m.isArray(t, depth); ok {
		// mp_encode_lua_table_as_array: the keys are exactly 1..n, so
		// lua_objlen is n and lua_gettable finds every one.
		m.header(n, 0x90, 0xdc, 0xdd)
		mpCheckStack(m.L, depth, 1, "in function mp_encode_lua_table_as_array")
		for i := 1; i <= n; i++ {
			v := seam.GetInt(t, i)
			if v == lua.LNil { // an integer key in the hash part
				v = t.RawGetH(lua.LNumber(i))
			}
			m.encode(v, level+1, depth+1)
		}
		return
	}
	// mp_encode_lua_table_as_map: count, then key and value in lua_next
	// order (key copied above the key and value lua_next left).
	mpCheckStack(m.L, depth, 3, "in function mp_encode_lua_table_as_map")
	n := 0
	for range seam.Pairs(t) {
		if n++; n%lauxlib.PollEvery == 0 {
			lauxlib.Poll(m.L)
		}
	}
	m.header(n, 0x80, 0xde, 0xdf)
	for k, v := range seam.Pairs(t) {
		m.encode(k, level+1, depth+3)
		m.encode(v, level+1, depth+2)
	}
}

// isArray is table_is_an_array: every key a number n > 0 with (int)n == n
// (so below 2^31), and the largest key equal to their count.
func (m *mpEncoder) isArray(t *lua.LTable, depth int) (int, bool) {
	mpCheckStack(m.L, depth, 2, "in function table_is_an_array")
	count, max := 0, 0
	for k := range seam.Pairs(t) {
		n, ok := k.(lua.LNumber)
		if !ok || !(n > 0 && n <= math.MaxInt32 && float64(n) == math.Trunc(float64(n))) {
			return 0, false
		}
		if int(n) > max {
			max = int(n)
		}
		if count++; count%lauxlib.PollEvery == 0 {
			lauxlib.Poll(m.L)
		}
	}
	return count, max == count
}

// ---- unpack ----

// mpError is the cursor's error (MP_CUR_ERROR_EOF, MP_CUR_ERROR_BADFMT).
type mpError int

const (
	mpOK mpError = iota
	mpEOF
	mpBadFmt
)

// mpPending is how many bytes of small strings and tables the decoder
// makes between two charges to the script's budget; anything larger is
// charged before it is made.
const mpPending = 64 << 10

type mpDecoder struct {
	L       *lua.LState
	s       string
	pos     int
	err     mpError
	steps   int
	pending int
	st      *mpScratch
	// keys and vals hold the items of the collections being read, each
	// level above the one it descended from, until its table is made.
	keys, vals []lua.LValue
}

// mpScratch is what pack and unpack reuse from call to call (owner
// goroutine only): pack's buffer, unpack's stacks, the order that makes
// a map at once, and the short strings decoded before.
type mpScratch struct {
	buf        []byte // pack's output, copied into its string
	keys, vals []lua.LValue
	order      lauxlib.TableOrder
	intern     lauxlib.Interner
}

// maxKeptStack and maxKeptBuf bound the scratch kept between calls.
const (
	maxKeptStack = 1 << 12
	maxKeptBuf   = 1 << 16
)

// push puts v on the stack *st, charging the script for its growth.
func (d *mpDecoder) push(st *[]lua.LValue, v lua.LValue) { lauxlib.Push(d.L, st, v) }

// charge counts n bytes the decoder is about to allocate.
func (d *mpDecoder) charge(n int) {
	d.pending += n
	if d.pending >= mpPending {
		lauxlib.Alloc(d.L, d.pending)
		d.pending = 0
	}
	if d.steps++; d.steps%lauxlib.PollEvery == 0 {
		lauxlib.Poll(d.L)
	}
}

func (d *mpDecoder) need(n uint64) bool {
	if uint64(len(d.s)-d.pos) < n {
		d.err = mpEOF
		return false
	}
	return true
}

// bytes returns a copy of the n bytes at pos+skip (a string that does not
// pin the whole payload), or false at the end of the input.
func (d *mpDecoder) bytes(skip int, n uint64) (lua.LValue, bool) {
	if !d.need(uint64(skip) + n) {
		return nil, false
	}
	d.charge(int(n) + 16)
	start := d.pos + skip
	d.pos = start + int(n)
	return lauxlib.InternString(&d.st.intern, d.s[start:d.pos]), true
}

// decode is mp_decode_to_lua_type, its result to go where a stack depth
// slots deep would push it. It returns false with d.err set on bad input.
func (d *mpDecoder) decode(depth int) (lua.LValue, bool) {
	if !d.need(1) {
		return nil, false
	}
	mpCheckStack(d.L, depth, 1, "too many return values at once; use unpack_one or unpack_limit instead.")
	p := d.s[d.pos:]
	switch c := p[0]; c {
	case 0xcc:
		if !d.need(2) {
			return nil, false
		}
		d.pos += 2
		return lauxlib.Number(d.L, p[1]), true
	case 0xd0:
		if !d.need(2) {
			return nil, false
		}
		d.pos += 2
		return lauxlib.Number(d.L, int8(p[1])), true
	case 0xcd:
		if !d.need(3) {
			return nil, false
		}
		d.pos += 3
		return lauxlib.Number(d.L, mpU16(p)), true
	case 0xd1:
		if !d.need(3) {
			return nil, false
		}
		d.pos += 3
		return lauxlib.Number(d.L, int16(mpU16(p))), true
	case 0xce:
		if !d.need(5) {
			return nil, false
		}
		d.pos += 5
		return lauxlib.Number(d.L, mpU32(p)), true
	case 0xd2:
		if !d.need(5) {
			return nil, false
		}
		d.pos += 5
		return lauxlib.Number(d.L, int32(mpU32(p))), true
	case 0xcf, 0xd3:
		// uint64 goes through lua_pushinteger too: past 2^63 it is negative.
		if !d.need(9) {
			return nil, false
		}
		d.pos += 9
		return lauxlib.Number(d.L, int64(mpU64(p))), true
	case 0xc0:
		d.pos++
		return lua.LNil, true
	case 0xc3:
		d.pos++
		return lua.LTrue, true
	case 0xc2:
		d.pos++
		return lua.LFalse, true
	case 0xca:
		if !d.need(5) {
			return nil, false
		}
		d.pos += 5
		return lauxlib.Number(d.L, math.Float32frombits(mpU32(p))), true
	case 0xcb:
		if !d.need(9) {
			return nil, false
		}
		d.pos += 9
		return lauxlib.Number(d.L, math.Float64frombits(mpU64(p))), true
	case 0xd9:
		if !d.need(2) {
			return nil, false
		}
		return d.bytes(2, uint64(p[1]))
	case 0xda:
		if !d.need(3) {
			return nil, false
		}
		return d.bytes(3, uint64(mpU16(p)))
	case 0xdb:
		if !d.need(5) {
			return nil, false
		}
		return d.bytes(5, uint64(mpU32(p)))
	case 0xdc, 0xde:
		if !d.need(3) {
			return nil, false
		}
		d.pos += 3
		return d.collection(c == 0xde, int(mpU16(p)), depth)
	case 0xdd, 0xdf:
		if !d.need(5) {
			return nil, false
		}
		d.pos += 5
		return d.collection(c == 0xdf, int(mpU32(p)), depth)
	}
	switch c := p[0]; {
	case c&0x80 == 0: // positive fixnum
		d.pos++
		return lauxlib.Number(d.L, c), true
	case c&0xe0 == 0xe0: // negative fixnum
		d.pos++
		return lauxlib.Number(d.L, int8(c)), true
	case c&0xe0 == 0xa0: // fix raw
		return d.bytes(1, uint64(c&0x1f))
	case c&0xf0 == 0x90, c&0xf0 == 0x80: // fix array, fix map
		d.pos++
		return d.collection(c&0xf0 == 0x80, int(c&0xf), depth)
	}
	d.err = mpBadFmt // bin, ext, 0xc1
	return nil, false
}

// collection is mp_decode_to_lua_array and mp_decode_to_lua_hash: n items
// (or pairs) claimed by the header; each needs at least one byte more of
// the payload, so the table grows only as items are really there.
func (d *mpDecoder) collection(isMap bool, n int, depth int) (lua.LValue, bool) {
	// Redis's Lua makes the table with lua_newtable and fills it item by
	// item; the items are read first here and the table made once they
	// are all there, in the layout those inserts leave (so pairs and
	// pack see Lua's order): at once when that is known (see array and
	// hash), else by the same inserts. A header claiming 2^32 items
	// allocates nothing for them: each needs at least a byte more of the
	// payload.
	d.charge(112)
	depth++ // the new table
	kb, vb := len(d.keys), len(d.vals)
	defer func() {
		clear(d.keys[kb:])
		clear(d.vals[vb:])
		d.keys, d.vals = d.keys[:kb], d.vals[:vb]
	}()
	if !isMap {
		mpCheckStack(d.L, depth, 1, "in function mp_decode_to_lua_array")
		for i := 1; i <= n; i++ {
			v, ok := d.decode(depth + 1) // above the index pushed for it
			if !ok {
				return nil, false
			}
			d.charge(32)
			d.push(&d.vals, v)
		}
		return d.array(d.vals[vb:]), true
	}
	for i := 0; i < n; i++ {
		k, ok := d.decode(depth)
		if !ok {
			return nil, false
		}
		v, ok := d.decode(depth + 1)
		if !ok {
			return nil, false
		}
		// lua_settable's checks (luaG_runerror: no position), as each
		// pair is read.
		switch x := k.(type) {
		case *lua.LNilType:
			d.L.Error(lua.LString("table index is nil"), 0)
		case lua.LNumber:
			if x != x {
				d.L.Error(lua.LString("table index is NaN"), 0)
			}
		}
		d.charge(48)
		d.push(&d.keys, k)
		d.push(&d.vals, v)
	}
	return d.hash(d.keys[kb:], d.vals[vb:]), true
}

// array is the table lua_rawseti of 1, 2, 3 ... makes of vals: with no
// nil among them, an array part of the power of two at or above their
// count and no hash part.
func (d *mpDecoder) array(vals []lua.LValue) *lua.LTable {
	for _, v := range vals {
		if v == lua.LNil || len(vals) > lauxlib.MaxAtOnce { // one by one (see MaxAtOnce)
			t := seam.NewTable(d.L, 0, 0)
			for i, v := range vals {
				seam.RawSetInt(d.L, t, i+1, v)
			}
			return t
		}
	}
	return seam.ArrayTable(d.L, vals)
}

// hash is the table lua_settable of each pair makes: at once when the keys
// are distinct strings and no value is nil (seam.HashTable), else pair by
// pair.
func (d *mpDecoder) hash(keys, vals []lua.LValue) *lua.LTable {
	fast := len(keys) <= lauxlib.MaxAtOnce // else one by one (see MaxAtOnce)
	for _, v := range vals {
		if v == lua.LNil {
			fast = false
			break
		}
	}
	if fast {
		if t, ok := seam.HashTable(d.L, &d.st.order, keys, vals); ok {
			return t
		}
	}
	t := seam.NewTable(d.L, 0, 0)
	for i, k := range keys {
		seam.RawSet(d.L, t, k, vals[i])
	}
	return t
}

// mpUnpackFull is mp_unpack_full: limit values (all when limit and offset
// are both 0) from the string argument, starting at offset. Redis's C
// function holds depth stack slots when it starts decoding.
func mpUnpackFull(L *lua.LState, st *mpScratch, limit, offset int64, depth int) int {
	s := lauxlib.CheckString(L, 1)
	all := limit == 0 && offset == 0
	if offset < 0 || limit < 0 {
		// sic: the message gives the input's length as the limit.
		mpRaise(L, "Invalid request to unpack with offset of %d and limit of %d.", int32(offset), int32(len(s)))
	} else if uint64(offset) > uint64(len(s)) {
		mpRaise(L, "Start offset %d greater than input length %d.", int32(offset), int32(len(s)))
	}
	if all {
		limit = math.MaxInt32
	}
	d := mpDecoder{L: L, s: s, pos: int(offset), st: st, keys: st.keys[:0], vals: st.vals[:0]}
	var out []lua.LValue
	for cnt := int64(0); d.pos < len(s) && cnt < limit; cnt++ {
		v, ok := d.decode(depth + int(cnt))
		switch {
		case ok:
			out = append(out, v)
		case d.err == mpEOF:
			mpRaise(L, "Missing bytes in input.")
		default:
			mpRaise(L, "Bad data format in input.")
		}
	}
	if d.pending > 0 {
		lauxlib.Alloc(L, d.pending)
	}
	if cap(d.keys) <= maxKeptStack && cap(d.vals) <= maxKeptStack {
		st.keys, st.vals = d.keys, d.vals
	}
	if !all {
		mpCheckStack(L, depth+len(out), 1, "in function mp_unpack_full")
		next := lua.LNumber(d.pos)
		if d.pos == len(s) {
			next = -1
		}
		L.Push(next)
	}
	for _, v := range out {
		L.Push(v)
	}
	if all {
		return len(out)
	}
	return len(out) + 1
}

func mpUnpack(L *lua.LState, st *mpScratch) int {
	// The extra arguments stay on Redis's stack.
	return mpUnpackFull(L, st, 0, 0, max(L.GetTop(), 1))
}

func mpUnpackOne(L *lua.LState, st *mpScratch) int {
	offset := lauxlib.OptInteger(L, 2, 0)
	return mpUnpackFull(L, st, 1, offset, 1)
}

func mpUnpackLimit(L *lua.LState, st *mpScratch) int {
	limit := lauxlib.ToInteger(lauxlib.CheckNumber(L, 2))
	offset := lauxlib.OptInteger(L, 3, 0)
	return mpUnpackFull(L, st, limit, offset, 1)
}

// mpU16, mpU32 and mpU64 read the big-endian number after a header byte.
func mpU16(p string) uint16 { return uint16(p[1])<<8 | uint16(p[2]) }

func mpU32(p string) uint32 {
	return uint32(p[1])<<24 | uint32(p[2])<<16 | uint32(p[3])<<8 | uint32(p[4])
}

func mpU64(p string) uint64 { return uint64(mpU32(p))<<32 | uint64(mpU32(p[4:])) }
