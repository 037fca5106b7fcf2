package keyspace

import (
	"math"

	"github.com/minilock/minilock/internal/redisstr"
	"github.com/minilock/minilock/resp"
)

var (
	errLCSNotStrings = resp.NewError("The specified keys must contain string values")
	errLCSLenIdx     = resp.NewError("If you want both the length and indexes, please just use IDX.")
	errLCSTooLong    = resp.NewError("String too long for LCS")
	errLCSMemory     = resp.NewError("Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len")
)

// LCS key1 key2 [LEN] [IDX] [MINMATCHLEN len] [WITHMATCHLEN]: the longest
// common subsequence of two strings (t_string.c:lcsCommand), missing keys
// read as empty strings.
//
// Redis keeps the whole table of LCS lengths, 4 bytes a cell, and refuses
// when that would pass proto-max-bulk-len; the same limit holds here, but
// the walk back needs only which neighbour of a cell is longer, one bit a
// cell, so the transient memory is a 32nd of Redis's (16 MB at most).
func CmdLCS(k *Keyspace, c *Ctx, args [][]byte) error {
	ea, _, oka := k.read(c, args[1])
	eb, _, okb := k.read(c, args[2])
	if (oka && ea.obj != nil) || (okb && eb.obj != nil) {
		return errLCSNotStrings
	}
	var a, b []byte
	if oka {
		a = ea.val()
	}
	if okb {
		b = eb.val()
	}
	var getLen, getIdx, withLen bool
	var minLen int64
	for j := 3; j < len(args); j++ {
		switch opt := args[j]; {
		case redisstr.Option(opt, "idx"):
			getIdx = true
		case redisstr.Option(opt, "len"):
			getLen = true
		case redisstr.Option(opt, "withmatchlen"):
			withLen = true
		case redisstr.Option(opt, "minmatchlen") && j+1 < len(args):
			n, err := intArg(args[j+1])
			if err != nil {
				return err
			}
			minLen = max(n, 0)
			j++
		default:
			return resp.ErrSyntax
		}
	}
	if getLen && getIdx {
		return errLCSLenIdx
	}
	if uint64(len(a)) >= math.MaxUint32-1 || uint64(len(b)) >= math.MaxUint32-1 {
		return errLCSTooLong
	}
	if cells := (uint64(len(a)) + 1) * (uint64(len(b)) + 1); cells > math.MaxInt64/4 || int64(cells*4) > k.maxLen {
		return errLCSMemory
	}
	length, upLonger := lcsTable(a, b)
	if getLen {
		c.W.Int(int64(length))
		return nil
	}
	ranges, result := lcsWalk(a, b, length, upLonger, getIdx, minLen)
	if !getIdx {
		c.W.Bulk(result)
		return nil
	}
	c.W.Map(2)
	c.W.BulkString("matches")
	c.W.Array(len(ranges))
	for _, r := range ranges {
		if withLen {
			c.W.Array(3)
		} else {
			c.W.Array(2)
		}
		c.W.Array(2)
		c.W.Int(int64(r.aStart))
		c.W.Int(int64(r.aEnd))
		c.W.Array(2)
		c.W.Int(int64(r.bStart))
		c.W.Int(int64(r.bEnd))
		if withLen {
			c.W.Int(int64(r.aEnd - r.aStart + 1))
		}
	}
	c.W.BulkString("len")
	c.W.Int(int64(length))
	return nil
}

// lcsTable fills Redis's table of LCS(i, j), the length of the LCS of
// a[:i] and b[:j], a row at a time, and keeps of each cell only the bit
// the walk back reads: whether LCS(i-1, j) > LCS(i, j-1), at bit
// (i-1)*len(b) + j-1. It returns LCS(len(a), len(b)) too.
func lcsTable(a, b []byte) (uint32, []uint64) {
	n := len(b)
	upLonger := make([]uint64, (len(a)*n+63)/64)
	prev := make([]uint32, n+1)
	cur := make([]uint32, n+1)
	for i := 1; i <= len(a); i++ {
		ai := a[i-1]
		base := (i - 1) * n
		for j := 1; j <= n; j++ {
			if ai == b[j-1] {
				cur[j] = prev[j-1] + 1
				continue
			}
			up, left := prev[j], cur[j-1]
			if up > left {
				cur[j] = up
				bit := base + j - 1
				upLonger[bit>>6] |= 1 << (bit & 63)
			} else {
				cur[j] = left
			}
		}
		prev, cur = cur, prev
	}
	return prev[n], upLonger
}

// lcsRange is one run of matching bytes, a[aStart..aEnd] equal to
// b[bStart..bEnd].
type lcsRange struct{ aStart, aEnd, bStart, bEnd uint32 }

// lcsWalk walks the table back from its last cell as lcsCommand does,
// building the LCS and, with idx, the runs of at least minLen bytes in the
// order Redis emits them (from the ends of the strings backwards).
func lcsWalk(a, b []byte, length uint32, upLonger []uint64, idx bool, minLen int64) ([]lcsRange, []byte) {
	result := make([]byte, length)
	var ranges []lcsRange
	alen, blen := uint32(len(a)), uint32(len(b))
	aStart, aEnd, bStart, bEnd := alen, uint32(0), uint32(0), uint32(0) // aStart == alen: no run yet
	at := length
	for i, j := alen, blen; i > 0 && j > 0; {
		emit := false
		if a[i-1] == b[j-1] {
			result[at-1] = a[i-1]
			if aStart == alen {
				aStart, aEnd, bStart, bEnd = i-1, i-1, j-1, j-1
			} else if aStart == i && bStart == j {
				aStart--
				bStart--
			} else {
				emit = true
			}
			if aStart == 0 || bStart == 0 {
				emit = true
			}
			at--
			i--
			j--
		} else {
			bit := uint64(i-1)*uint64(blen) + uint64(j-1)
			if upLonger[bit>>6]&(1<<(bit&63)) != 0 {
				i--
			} else {
				j--
			}
			if aStart != alen {
				emit = true
			}
		}
		if emit {
			if idx && (minLen == 0 || int64(aEnd-aStart+1) >= minLen) {
				ranges = append(ranges, lcsRange{aStart, aEnd, bStart, bEnd})
			}
			aStart = alen
		}
	}
	return ranges, result
}
