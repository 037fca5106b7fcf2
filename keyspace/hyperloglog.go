package keyspace

import (
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/minilock/minilock/internal/redisstr"
	"github.com/minilock/minilock/keyspace/internal/hll"
	"github.com/minilock/minilock/resp"
)

// HyperLogLog (hyperloglog.c): the value is a plain string whose bytes are
// Redis's, built and read by keyspace/internal/hll.

var (
	// errNotHLL is isHLLObjectOrReply's reply for a string that is not one.
	errNotHLL = &resp.Error{Code: "WRONGTYPE", Msg: "Key is not a valid HyperLogLog string value."}
	// errHLLCorrupt is for a sparse value whose opcodes do not add up.
	errHLLCorrupt = &resp.Error{Code: "INVALIDOBJ", Msg: "Corrupted HLL object detected"}
	errPFNoKey    = resp.NewError("The specified key does not exist")
)

// hllOf checks a found entry as isHLLObjectOrReply does and returns a copy
// of its bytes to work on.
func hllOf(e *entry) ([]byte, error) {
	if e.obj != nil {
		return nil, errWrongType
	}
	v := e.val()
	if !hll.Valid(v) {
		return nil, errNotHLL
	}
	// Room for a sparse value to grow by an opcode split or two without
	// moving.
	b := make([]byte, len(v), len(v)+8)
	copy(b, v)
	return b, nil
}

// PFADD key [element ...]: 1 when a register changed (or the key was
// made), else 0.
func CmdPFAdd(k *Keyspace, c *Ctx, args [][]byte) error {
	key := args[1]
	e, i, found := k.find(c, key)
	var b []byte
	updated := 0
	if found {
		var err error
		if b, err = hllOf(e); err != nil {
			return err
		}
	} else {
		b = hll.NewSparse()
		updated++
	}
	for _, ele := range args[2:] {
		var r int
		b, r = hll.Add(b, ele, int64(k.enc.HLLSparseMaxBytes))
		switch r {
		case 1:
			updated++
		case -1:
			// Redis changed its value in place up to here, and says
			// nothing to WATCH or the notifications.
			if found {
				k.dbs[c.DB].setVal(i, b)
			}
			return errHLLCorrupt
		}
	}
	if updated > 0 {
		hll.Invalidate(b)
		k.put(c, i, found, key, b, true)
		k.notify(NotifyString, "pfadd", key, c.DB)
		c.W.Int(1)
		return nil
	}
	c.W.Int(0)
	return nil
}

// PFCOUNT key [key ...]: one key's cached or fresh cardinality (written
// back into its header, as Redis does), or the union's.
func CmdPFCount(k *Keyspace, c *Ctx, args [][]byte) error {
	if len(args) > 2 {
		var max [hll.Registers]uint8
		for _, key := range args[1:] {
			e, _, ok := k.read(c, key)
			if !ok {
				continue
			}
			b, err := hllOf(e)
			if err != nil {
				return err
			}
			if !hll.Merge(&max, b) {
				return errHLLCorrupt
			}
		}
		c.W.Int(int64(hll.CountRaw(&max)))
		return nil
	}
	e, i, ok := k.read(c, args[1])
	if !ok {
		c.W.Int(0)
		return nil
	}
	b, err := hllOf(e)
	if err != nil {
		return err
	}
	card, valid := hll.Cached(b)
	if !valid {
		if card, valid = hll.Count(b); !valid {
			return errHLLCorrupt
		}
		k.snapTouch(c.DB, i) // b is the key's own bytes
		hll.SetCached(b, card)
		k.put(c, i, true, args[1], b, true)
	}
	c.W.Int(int64(card))
	return nil
}

// PFMERGE destkey [sourcekey ...]: the destination (a source too) gets
// every register's maximum; it turns dense when any source is.
func CmdPFMerge(k *Keyspace, c *Ctx, args [][]byte) error {
	var max [hll.Registers]uint8
	dense := false
	for _, key := range args[1:] {
		e, _, ok := k.read(c, key)
		if !ok {
			continue
		}
		b, err := hllOf(e)
		if err != nil {
			return err
		}
		dense = dense || hll.Encoding(b) == hll.Dense
		if !hll.Merge(&max, b) {
			return errHLLCorrupt
		}
	}
	key := args[1]
	e, i, found := k.find(c, key)
	var b []byte
	if found {
		b, _ = hllOf(e) // checked above, as a source
	} else {
		b = hll.NewSparse()
	}
	if dense {
		var ok bool
		if b, ok = hll.SparseToDense(b); !ok {
			return errHLLCorrupt
		}
	}
	for j, m := range max {
		if m == 0 {
			continue
		}
		if hll.Encoding(b) == hll.Dense {
			hll.DenseSet(b[hll.HdrSize:], j, m)
		} else {
			b, _ = hll.SparseSet(b, j, m, int64(k.enc.HLLSparseMaxBytes))
		}
	}
	hll.Invalidate(b)
	k.put(c, i, found, key, b, true)
	// Redis fires pfadd for a merge: in theory a mass add.
	k.notify(NotifyString, "pfadd", key, c.DB)
	c.W.OK()
	return nil
}

// PFDEBUG GETREG|DECODE|ENCODING|TODENSE key. GETREG and TODENSE leave a
// sparse value dense, without telling WATCH, as Redis does.
func CmdPFDebug(k *Keyspace, c *Ctx, args [][]byte) error {
	e, i, ok := k.find(c, args[2])
	if !ok {
		return errPFNoKey
	}
	b, err := hllOf(e)
	if err != nil {
		return err
	}
	// Redis compares and prints the subcommand as a C string.
	sub := redisstr.CString(args[1])
	toDense := func() (bool, error) {
		if hll.Encoding(b) == hll.Dense {
			return false, nil
		}
		d, ok := hll.SparseToDense(b)
		if !ok {
			return false, errHLLCorrupt
		}
		b = d
		k.dbs[c.DB].setVal(i, b)
		return true, nil
	}
	switch {
	case equalFold([]byte(sub), "getreg"):
		if _, err := toDense(); err != nil {
			return err
		}
		c.W.Array(hll.Registers)
		for j := range hll.Registers {
			c.W.Int(int64(hll.DenseGet(b[hll.HdrSize:], j)))
		}
	case equalFold([]byte(sub), "decode"):
		if hll.Encoding(b) != hll.Sparse {
			return resp.NewError("HLL encoding is not sparse")
		}
		c.W.BulkString(hll.Decode(b))
	case equalFold([]byte(sub), "encoding"):
		c.W.Status([]string{"dense", "sparse"}[hll.Encoding(b)])
	case equalFold([]byte(sub), "todense"):
		conv, err := toDense()
		if err != nil {
			return err
		}
		c.W.Int(map[bool]int64{false: 0, true: 1}[conv])
	default:
		return resp.NewError("Unknown PFDEBUG subcommand '" + sub + "'")
	}
	return nil
}

// PFSELFTEST: Redis's own check of the register packing and of the
// estimator's error, dense and sparse side by side (ten million adds).
func CmdPFSelfTest(k *Keyspace, c *Ctx, args [][]byte) error {
	dense := make([]byte, hll.DenseSize)
	regs := dense[hll.HdrSize:]
	var want [hll.Registers]uint8
	for range 1000 {
		for j := range want {
			want[j] = uint8(rand.IntN(64))
			hll.SetRegister(regs, j, want[j])
		}
		for j, w := range want {
			if v := hll.DenseGet(regs, j); v != w {
				return &resp.Error{Code: "TESTFAILED", Msg: "Register " + strconv.Itoa(j) + " should be " +
					strconv.Itoa(int(w)) + " but is " + strconv.Itoa(int(v))}
			}
		}
	}
	clear(regs)
	sparse := hll.NewSparse()
	relerr := 1.04 / 128 // 1.04/sqrt(registers)
	checkpoint := int64(1)
	seed := rand.Uint64()
	var ele [8]byte
	for j := int64(1); j <= 10_000_000; j++ {
		x := uint64(j) ^ seed
		for n := range ele {
			ele[n] = byte(x >> (8 * n))
		}
		idx, count := hll.PatLen(ele[:])
		hll.DenseSet(regs, idx, count)
		sparse, _ = hll.Add(sparse, ele[:], int64(k.enc.HLLSparseMaxBytes))
		if j != checkpoint {
			continue
		}
		if j < int64(k.enc.HLLSparseMaxBytes/2) && hll.Encoding(sparse) != hll.Sparse {
			return &resp.Error{Code: "TESTFAILED", Msg: "sparse encoding not used"}
		}
		dc, _ := hll.Count(dense)
		if sc, _ := hll.Count(sparse); dc != sc {
			return &resp.Error{Code: "TESTFAILED", Msg: "dense/sparse disagree"}
		}
		abserr := checkpoint - int64(dc)
		maxerr := int64(math.Ceil(relerr * 6 * float64(checkpoint)))
		if j == 10 {
			maxerr = 1
		}
		if abserr < 0 {
			abserr = -abserr
		}
		if abserr > maxerr {
			return &resp.Error{Code: "TESTFAILED", Msg: "Too big error. card:" + strconv.FormatInt(checkpoint, 10) +
				" abserr:" + strconv.FormatInt(abserr, 10)}
		}
		checkpoint *= 10
	}
	c.W.OK()
	return nil
}
