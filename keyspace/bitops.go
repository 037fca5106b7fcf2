package keyspace

import (
	"encoding/binary"
	"math"
	"math/bits"

	"github.com/minilock/minilock/internal/redisstr"
	"github.com/minilock/minilock/resp"
)

// The bitmap commands (bitops.c): a string read as bits, bit 0 the most
// significant bit of the first byte. Writes grow the string with zero
// bytes and change it in place.

var (
	errBitOffset    = resp.NewError("bit offset is not an integer or out of range")
	errBitValue     = resp.NewError("bit is not an integer or out of range")
	errBitArg       = resp.NewError("The bit argument must be 1 or 0.")
	errBitopNot     = resp.NewError("BITOP NOT must be called with a single source key.")
	errBitfieldType = resp.NewError("Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.")
	errOverflowType = resp.NewError("Invalid OVERFLOW type specified")
	errBitfieldRO   = resp.NewError("BITFIELD_RO only supports the GET subcommand")
)

// bitOffset parses a bit offset (getBitOffsetFromArgument). With width > 0
// (BITFIELD) "#n" means n times width; the product wraps as Redis's long
// long multiplication does on the machines it runs on. An offset whose
// byte lies at or past proto-max-bulk-len is refused.
func (k *Keyspace) bitOffset(arg []byte, width int) (uint64, error) {
	hash := width > 0 && len(arg) > 0 && arg[0] == '#'
	if hash {
		arg = arg[1:]
	}
	n, ok := redisstr.ParseInt(arg)
	if !ok {
		return 0, errBitOffset
	}
	if hash {
		n *= int64(width)
	}
	if n < 0 || n>>3 >= k.maxLen {
		return 0, errBitOffset
	}
	return uint64(n), nil
}

// bitTarget is lookupStringForBitCommand: the string in key, created or
// padded with zero bytes so that bit maxbit exists, and whether that
// created or grew it. Creating the key is the "new" event, not a change
// WATCH sees: the command signals that itself once it has changed a bit.
func (k *Keyspace) bitTarget(c *Ctx, key []byte, maxbit uint64) ([]byte, bool, error) {
	n := maxbit>>3 + 1
	if n > maxArray-uint64(len(key))-binary.MaxVarintLen64 {
		// proto-max-bulk-len set past what an entry can hold (4 GiB).
		return nil, false, errBitOffset
	}
	e, i, ok, err := k.findString(c, key)
	if err != nil {
		return nil, false, err
	}
	d := &k.dbs[c.DB]
	if !ok {
		i = d.insertZero(key, int(n))
		k.born(c.DB, i, c.Now)
		k.notify(NotifyNew, "new", key, c.DB)
		return d.slots[i].val(), true, nil
	}
	old := len(e.val())
	v := d.growZero(i, int(n))
	return v, len(v) != old, nil
}

// SETBIT key offset value: the bit's old value.
func CmdSetBit(k *Keyspace, c *Ctx, args [][]byte) error {
	off, err := k.bitOffset(args[2], 0)
	if err != nil {
		return err
	}
	on, ok := redisstr.ParseInt(args[3])
	if !ok || on&^1 != 0 {
		return errBitValue
	}
	v, dirty, err := k.bitTarget(c, args[1], off)
	if err != nil {
		return err
	}
	byteAt, mask := off>>3, byte(1)<<(7-off&7)
	old := v[byteAt]&mask != 0
	if dirty || old != (on == 1) {
		v[byteAt] = v[byteAt]&^mask | byte(on)<<(7-off&7)
		k.touch(c.DB, args[1])
		k.notify(NotifyString, "setbit", args[1], c.DB)
	}
	c.W.Int(b2i(old))
	return nil
}

// GETBIT key offset
func CmdGetBit(k *Keyspace, c *Ctx, args [][]byte) error {
	off, err := k.bitOffset(args[2], 0)
	if err != nil {
		return err
	}
	e, _, ok, err := k.readString(c, args[1])
	if err != nil {
		return err
	}
	var bit bool
	if ok {
		if v := e.val(); off>>3 < uint64(len(v)) {
			bit = v[off>>3]&(1<<(7-off&7)) != 0
		}
	}
	c.W.Int(b2i(bit))
	return nil
}

// popcount counts the bits set in p.
func popcount(p []byte) int64 {
	var n int
	for len(p) >= 8 {
		n += bits.OnesCount64(binary.LittleEndian.Uint64(p))
		p = p[8:]
	}
	for _, b := range p {
		n += bits.OnesCount8(b)
	}
	return int64(n)
}

// bitpos is redisBitpos: the position of the first bit of p equal to bit,
// reading p as followed by zero bytes. No 1 bit is -1; no 0 bit within p is
// len(p)*8, the first bit of the padding.
func bitpos(p []byte, bit int64) int64 {
	skip8, skip := uint64(0), byte(0)
	if bit == 0 {
		skip8, skip = math.MaxUint64, 0xff
	}
	i := 0
	for i+8 <= len(p) && binary.LittleEndian.Uint64(p[i:]) == skip8 {
		i += 8
	}
	for i < len(p) && p[i] == skip {
		i++
	}
	if i == len(p) {
		if bit == 1 {
			return -1
		}
		return int64(len(p)) * 8
	}
	b := p[i]
	if bit == 0 {
		b = ^b
	}
	return int64(i)*8 + int64(bits.LeadingZeros8(b))
}

// bitUnit parses BITCOUNT's and BITPOS's BIT|BYTE.
func bitUnit(arg []byte) (isBit bool, err error) {
	switch {
	case redisstr.Option(arg, "bit"):
		return true, nil
	case redisstr.Option(arg, "byte"):
		return false, nil
	}
	return false, resp.ErrSyntax
}

// edgeMasks are the bits of the first and last byte outside a range of
// bits from start to end (bitcountCommand's first_byte_neg_mask and
// last_byte_neg_mask).
func edgeMasks(start, end int64) (first, last byte) {
	return ^byte(1<<(8-start&7) - 1), byte(1<<(7-end&7) - 1)
}

// BITCOUNT key [start end [BYTE|BIT]]. A missing key is 0 before any
// argument is read, as Redis looks the key up first.
func CmdBitCount(k *Keyspace, c *Ctx, args [][]byte) error {
	e, _, ok, err := k.readString(c, args[1])
	if err != nil {
		return err
	}
	if !ok {
		c.W.Int(0)
		return nil
	}
	p := e.val()
	var start, end int64
	var firstMask, lastMask byte
	switch len(args) {
	case 4, 5:
		total := int64(len(p))
		if start, err = intArg(args[2]); err != nil {
			return err
		}
		if end, err = intArg(args[3]); err != nil {
			return err
		}
		if start < 0 && end < 0 && start > end {
			c.W.Int(0)
			return nil
		}
		isBit := false
		if len(args) == 5 {
			if isBit, err = bitUnit(args[4]); err != nil {
				return err
			}
		}
		if isBit {
			total <<= 3
		}
		start, end = clampRange(start, end, total)
		if isBit && start <= end {
			firstMask, lastMask = edgeMasks(start, end)
			start >>= 3
			end >>= 3
		}
	case 2:
		start, end = 0, int64(len(p))-1
	default:
		return resp.ErrSyntax
	}
	if start > end {
		c.W.Int(0)
		return nil
	}
	n := popcount(p[start : end+1])
	n -= int64(bits.OnesCount8(p[start]&firstMask) + bits.OnesCount8(p[end]&lastMask))
	c.W.Int(n)
	return nil
}

// clampRange turns negative indexes from the end into positions and clamps
// both to [0, total-1] (an end of -1 for an empty string).
func clampRange(start, end, total int64) (int64, int64) {
	if start < 0 {
		start += total
	}
	if end < 0 {
		end += total
	}
	start, end = max(start, 0), max(end, 0)
	if end >= total {
		end = total - 1
	}
	return start, end
}

// BITPOS key bit [start [end [BYTE|BIT]]]. Without an end, the string
// reads as followed by zero bits, so looking for 0 in all ones finds the
// bit after it; with an end given, it does not (-1).
func CmdBitPos(k *Keyspace, c *Ctx, args [][]byte) error {
	bit, err := intArg(args[2])
	if err != nil {
		return err
	}
	if bit != 0 && bit != 1 {
		return errBitArg
	}
	e, _, ok, err := k.readString(c, args[1])
	if err != nil {
		return err
	}
	if !ok {
		c.W.Int(-bit) // all zeros: the first 0 is bit 0, there is no 1
		return nil
	}
	p := e.val()
	var start, end int64
	var firstMask, lastMask byte
	endGiven := false
	switch len(args) {
	case 4, 5, 6:
		total := int64(len(p))
		if start, err = intArg(args[3]); err != nil {
			return err
		}
		isBit := false
		if len(args) == 6 {
			if isBit, err = bitUnit(args[5]); err != nil {
				return err
			}
		}
		switch {
		case len(args) >= 5:
			if end, err = intArg(args[4]); err != nil {
				return err
			}
			endGiven = true
		case isBit:
			end = total<<3 + 7
		default:
			end = total - 1
		}
		if isBit {
			total <<= 3
		}
		start, end = clampRange(start, end, total)
		if isBit && start <= end {
			firstMask, lastMask = edgeMasks(start, end)
			start >>= 3
			end >>= 3
		}
	case 3:
		start, end = 0, int64(len(p))-1
	default:
		return resp.ErrSyntax
	}
	if start > end {
		c.W.Int(-1) // an empty range holds neither a 0 nor a 1
		return nil
	}
	pos, start, n := bitposRange(p, bit, start, end, firstMask, lastMask)
	if endGiven && bit == 0 && pos == n<<3 {
		c.W.Int(-1)
		return nil
	}
	if pos != -1 {
		pos += start << 3
	}
	c.W.Int(pos)
	return nil
}

// bitposRange is bitposCommand's search of bytes start to end, the bits of
// the first and last byte in the masks left out. It returns the position
// found relative to the start it ends at, that start, and the bytes left
// from it, as Redis computes the reply from them.
func bitposRange(p []byte, bit, start, end int64, firstMask, lastMask byte) (pos, at, n int64) {
	// outside sets a byte's masked bits to the value not looked for.
	outside := func(b, mask byte) byte {
		if bit == 1 {
			return b &^ mask
		}
		return b | mask
	}
	n = end - start + 1
	if firstMask != 0 {
		b := outside(p[start], firstMask)
		if lastMask != 0 && n == 1 {
			b = outside(b, lastMask)
		}
		pos = bitpos([]byte{b}, bit)
		if n == 1 || (pos != -1 && pos != 8) {
			return pos, start, n
		}
		start++
		n--
	}
	cur := n
	if lastMask != 0 {
		cur--
	}
	if cur > 0 {
		pos = bitpos(p[start:start+cur], bit)
		if n == cur || (pos != -1 && pos != cur<<3) {
			return pos, start, n
		}
		start += cur
		n -= cur
	}
	return bitpos([]byte{outside(p[end], lastMask)}, bit), start, n
}

// BITOP AND|OR|XOR|NOT destkey key [key ...]: the length of the result,
// the longest source (missing keys are empty strings, shorter ones are
// padded with zeros). An empty result deletes destkey.
func CmdBitOp(k *Keyspace, c *Ctx, args [][]byte) error {
	var op byte
	switch {
	case redisstr.Option(args[1], "and"):
		op = '&'
	case redisstr.Option(args[1], "or"):
		op = '|'
	case redisstr.Option(args[1], "xor"):
		op = '^'
	case redisstr.Option(args[1], "not"):
		op = '~'
	default:
		return resp.ErrSyntax
	}
	if op == '~' && len(args) != 4 {
		return errBitopNot
	}
	srcs := make([][]byte, len(args)-3)
	maxLen := 0
	for j, key := range args[3:] {
		e, _, ok, err := k.readString(c, key)
		if err != nil {
			return err
		}
		if ok {
			srcs[j] = e.val()
			maxLen = max(maxLen, len(srcs[j]))
		}
	}
	dest := args[2]
	if maxLen == 0 {
		if k.del(c, dest) {
			k.notify(NotifyGeneric, "del", dest, c.DB)
		}
		c.W.Int(0)
		return nil
	}
	kv, off := newKVZero(dest, maxLen)
	res := kv[off:]
	copy(res, srcs[0])
	switch op {
	case '~':
		notBytes(res)
	case '&':
		for _, s := range srcs[1:] {
			n := min(len(s), len(res))
			andBytes(res[:n], s[:n])
			clear(res[n:])
		}
	case '|':
		for _, s := range srcs[1:] {
			orBytes(res[:len(s)], s)
		}
	default:
		for _, s := range srcs[1:] {
			xorBytes(res[:len(s)], s)
		}
	}
	k.putKV(c, dest, kv)
	k.notify(NotifyString, "set", dest, c.DB)
	c.W.Int(int64(maxLen))
	return nil
}

// andBytes, orBytes and xorBytes combine src into dst (of the same
// length) eight bytes at a time; notBytes inverts p.
func andBytes(dst, src []byte) {
	i := 0
	for ; i+8 <= len(dst); i += 8 {
		binary.LittleEndian.PutUint64(dst[i:], binary.LittleEndian.Uint64(dst[i:])&binary.LittleEndian.Uint64(src[i:]))
	}
	for ; i < len(dst); i++ {
		dst[i] &= src[i]
	}
}

func orBytes(dst, src []byte) {
	i := 0
	for ; i+8 <= len(dst); i += 8 {
		binary.LittleEndian.PutUint64(dst[i:], binary.LittleEndian.Uint64(dst[i:])|binary.LittleEndian.Uint64(src[i:]))
	}
	for ; i < len(dst); i++ {
		dst[i] |= src[i]
	}
}

func xorBytes(dst, src []byte) {
	i := 0
	for ; i+8 <= len(dst); i += 8 {
		binary.LittleEndian.PutUint64(dst[i:], binary.LittleEndian.Uint64(dst[i:])^binary.LittleEndian.Uint64(src[i:]))
	}
	for ; i < len(dst); i++ {
		dst[i] ^= src[i]
	}
}

func notBytes(p []byte) {
	i := 0
	for ; i+8 <= len(p); i += 8 {
		binary.LittleEndian.PutUint64(p[i:], ^binary.LittleEndian.Uint64(p[i:]))
	}
	for ; i < len(p); i++ {
		p[i] = ^p[i]
	}
}

// The overflow rules of BITFIELD's SET and INCRBY.
const (
	ovWrap = iota
	ovSat
	ovFail
)

// bitfieldOp is one GET, SET or INCRBY of a BITFIELD.
type bitfieldOp struct {
	offset uint64
	arg    int64 // SET's value, INCRBY's increment
	write  bool
	incr   bool
	signed bool
	width  uint64
	ov     int
}

// bitfieldType parses i1..i64 or u1..u63 (getBitfieldTypeFromArgument,
// which reads the digits as a C string: up to a NUL byte).
func bitfieldType(arg []byte) (signed bool, width uint64, err error) {
	s := redisstr.CString(arg)
	if s == "" || (s[0] != 'i' && s[0] != 'u') {
		return false, 0, errBitfieldType
	}
	signed = s[0] == 'i'
	n, ok := redisstr.ParseInt([]byte(s[1:]))
	if !ok || n < 1 || (signed && n > 64) || (!signed && n > 63) {
		return false, 0, errBitfieldType
	}
	return signed, uint64(n), nil
}

// getBits reads width bits at offset as an unsigned number; bytes past the
// end of p read as zeros.
func getBits(p []byte, offset, width uint64) uint64 {
	var v uint64
	for j := uint64(0); j < width; j++ {
		o := offset + j
		var b byte
		if o>>3 < uint64(len(p)) {
			b = p[o>>3]
		}
		v = v<<1 | uint64(b>>(7-o&7)&1)
	}
	return v
}

// setBits writes the low width bits of v at offset.
func setBits(p []byte, offset, width, v uint64) {
	for j := uint64(0); j < width; j++ {
		o := offset + j
		bit := byte(v>>(width-1-j)) & 1
		mask := byte(1) << (7 - o&7)
		p[o>>3] = p[o>>3]&^mask | bit<<(7-o&7)
	}
}

// signExtend reads the low width bits of v as a two's complement number.
func signExtend(v, width uint64) int64 {
	if width < 64 && v&(1<<(width-1)) != 0 {
		v |= math.MaxUint64 << width
	}
	return int64(v)
}

// unsignedOverflow is checkUnsignedBitfieldOverflow: whether value plus
// incr leaves width bits (1 above, -1 below, 0 not), and the value the
// overflow rule ov stores instead.
func unsignedOverflow(value uint64, incr int64, width uint64, ov int) (int, uint64) {
	maxv := uint64(1)<<width - 1
	maxIncr := int64(maxv - value)
	minIncr := -int64(value)
	wrap := (value + uint64(incr)) &^ (math.MaxUint64 << width)
	switch {
	case value > maxv || (incr > 0 && incr > maxIncr):
		if ov == ovSat {
			return 1, maxv
		}
		return 1, wrap
	case incr < 0 && incr < minIncr:
		if ov == ovSat {
			return -1, 0
		}
		return -1, wrap
	}
	return 0, 0
}

// signedOverflow is checkSignedBitfieldOverflow, for signed fields.
func signedOverflow(value, incr int64, width uint64, ov int) (int, int64) {
	maxv := int64(math.MaxInt64)
	if width != 64 {
		maxv = 1<<(width-1) - 1
	}
	minv := -maxv - 1
	maxIncr := int64(uint64(maxv) - uint64(value))
	minIncr := minv - value
	c := uint64(value) + uint64(incr)
	if width < 64 {
		if c&(1<<(width-1)) != 0 {
			c |= math.MaxUint64 << width
		} else {
			c &^= math.MaxUint64 << width
		}
	}
	wrap := int64(c)
	switch {
	case value > maxv || (width != 64 && incr > maxIncr) || (value >= 0 && incr > 0 && incr > maxIncr):
		if ov == ovSat {
			return 1, maxv
		}
		return 1, wrap
	case value < minv || (width != 64 && incr < minIncr) || (value < 0 && incr < 0 && incr < minIncr):
		if ov == ovSat {
			return -1, minv
		}
		return -1, wrap
	}
	return 0, 0
}

// BITFIELD key [GET type offset | SET type offset value |
// INCRBY type offset increment | OVERFLOW WRAP|SAT|FAIL] ...
func CmdBitField(k *Keyspace, c *Ctx, args [][]byte) error {
	return k.bitfield(c, args, false)
}

// BITFIELD_RO key [GET type offset ...]
func CmdBitFieldRO(k *Keyspace, c *Ctx, args [][]byte) error {
	return k.bitfield(c, args, true)
}

// bitfield is bitfieldGeneric: every operation is parsed (and any error
// answered) before the key is read or written; then each runs in order.
func (k *Keyspace) bitfield(c *Ctx, args [][]byte, readOnly bool) error {
	var ops []bitfieldOp
	ov := ovWrap
	writes := false
	var highest uint64
	for j := 2; j < len(args); j++ {
		rem := len(args) - j - 1
		var op bitfieldOp
		switch a := args[j]; {
		case redisstr.Option(a, "get") && rem >= 2:
		case redisstr.Option(a, "set") && rem >= 3:
			op.write = true
		case redisstr.Option(a, "incrby") && rem >= 3:
			op.write, op.incr = true, true
		case redisstr.Option(a, "overflow") && rem >= 1:
			j++
			switch t := args[j]; {
			case redisstr.Option(t, "wrap"):
				ov = ovWrap
			case redisstr.Option(t, "sat"):
				ov = ovSat
			case redisstr.Option(t, "fail"):
				ov = ovFail
			default:
				return errOverflowType
			}
			continue
		default:
			return resp.ErrSyntax
		}
		var err error
		if op.signed, op.width, err = bitfieldType(args[j+1]); err != nil {
			return err
		}
		if op.offset, err = k.bitOffset(args[j+2], int(op.width)); err != nil {
			return err
		}
		if op.write {
			writes = true
			highest = max(highest, op.offset+op.width-1)
			if op.arg, err = intArg(args[j+3]); err != nil {
				return err
			}
			j++
		}
		op.ov = ov
		ops = append(ops, op)
		j += 2
	}
	var p []byte
	dirty := false
	if !writes {
		e, _, ok, err := k.readString(c, args[1])
		if err != nil {
			return err
		}
		if ok {
			p = e.val()
		}
	} else {
		if readOnly {
			return errBitfieldRO
		}
		var err error
		if p, dirty, err = k.bitTarget(c, args[1], highest); err != nil {
			return err
		}
	}
	c.W.Array(len(ops))
	changes := 0
	for _, op := range ops {
		old := getBits(p, op.offset, op.width)
		if !op.write {
			if op.signed {
				c.W.Int(signExtend(old, op.width))
			} else {
				c.W.Int(int64(old))
			}
			continue
		}
		var stored uint64
		var reply int64
		var over int
		if op.signed {
			oldv := signExtend(old, op.width)
			var nv, wrapped int64
			if op.incr {
				over, wrapped = signedOverflow(oldv, op.arg, op.width, op.ov)
				nv = oldv + op.arg
				if over != 0 {
					nv = wrapped
				}
				reply = nv
			} else {
				nv = op.arg
				if over, wrapped = signedOverflow(nv, 0, op.width, op.ov); over != 0 {
					nv = wrapped
				}
				reply = oldv
			}
			stored = uint64(nv)
		} else {
			var nv, wrapped uint64
			if op.incr {
				nv = old + uint64(op.arg)
				if over, wrapped = unsignedOverflow(old, op.arg, op.width, op.ov); over != 0 {
					nv = wrapped
				}
				reply = int64(nv)
			} else {
				nv = uint64(op.arg)
				if over, wrapped = unsignedOverflow(nv, 0, op.width, op.ov); over != 0 {
					nv = wrapped
				}
				reply = int64(old)
			}
			stored = nv
		}
		if over != 0 && op.ov == ovFail {
			c.W.Null()
			continue
		}
		c.W.Int(reply)
		setBits(p, op.offset, op.width, stored)
		if dirty || getBits(p, op.offset, op.width) != old {
			changes++
		}
	}
	if changes > 0 {
		k.touch(c.DB, args[1])
		k.notify(NotifyString, "setbit", args[1], c.DB)
	}
	return nil
}
