package server

import (
	"math"
	"strings"

	"github.com/minilock/minilock/resp"
)

// OBJECT (object.c:objectCommand). ENCODING and REFCOUNT answer what
// Redis 7.0 answers for the same data (keyspace.ObjectInfo); IDLETIME and
// FREQ read the access data eviction keeps (keyspace/evict.go), each only
// under the kind of policy that keeps it.

var (
	errNoLFU = resp.NewError("An LFU maxmemory policy is not selected, access frequency not tracked. " +
		"Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.")
	errLFU = resp.NewError("An LFU maxmemory policy is selected, idle time not tracked. " +
		"Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.")
)

// lfuPolicy reports whether maxmemory-policy is one of the LFU ones
// (MAXMEMORY_FLAG_LFU).
func (s *Server) lfuPolicy() bool { return s.ks.EvictConfig().Policy.LFU() }

// sharedIntegers reports whether Redis would hand out its shared integers
// 0..9999 for new values: not under an LRU or LFU policy with maxmemory
// set (MAXMEMORY_FLAG_NO_SHARED_INTEGERS).
func (s *Server) sharedIntegers() bool {
	p := s.param("maxmemory-policy")
	return s.maxMemory == 0 || !(strings.HasSuffix(p, "-lru") || strings.HasSuffix(p, "-lfu"))
}

// OBJECT ENCODING key
func cmdObjectEncoding(x *call, args [][]byte) error {
	info, ok := x.s.ks.ObjectInfo(&x.Ctx, args[2])
	if !ok {
		x.W.Null()
		return nil
	}
	x.W.BulkString(info.Encoding)
	return nil
}

// OBJECT REFCOUNT key: a shared integer answers OBJ_SHARED_REFCOUNT
// (INT_MAX), every other value 1.
func cmdObjectRefcount(x *call, args [][]byte) error {
	info, ok := x.s.ks.ObjectInfo(&x.Ctx, args[2])
	if !ok {
		x.W.Null()
		return nil
	}
	if info.SmallInt && x.s.sharedIntegers() {
		x.W.Int(math.MaxInt32)
		return nil
	}
	x.W.Int(1)
	return nil
}

// OBJECT IDLETIME key
func cmdObjectIdletime(x *call, args [][]byte) error {
	idle, ok := x.s.ks.IdleTime(&x.Ctx, args[2])
	switch {
	case !ok:
		x.W.Null()
	case x.s.lfuPolicy():
		return errLFU
	default:
		x.W.Int(idle)
	}
	return nil
}

// OBJECT FREQ key
func cmdObjectFreq(x *call, args [][]byte) error {
	freq, ok := x.s.ks.Freq(&x.Ctx, args[2])
	switch {
	case !ok:
		x.W.Null()
	case !x.s.lfuPolicy():
		return errNoLFU
	default:
		x.W.Int(freq)
	}
	return nil
}

// OBJECT HELP
func cmdObjectHelp(x *call, args [][]byte) error {
	return writeHelp(x, "OBJECT",
		"ENCODING <key>",
		"    Return the kind of internal representation used in order to store the value",
		"    associated with a <key>.",
		"FREQ <key>",
		"    Return the access frequency index of the <key>. The returned integer is",
		"    proportional to the logarithm of the recent access frequency of the key.",
		"IDLETIME <key>",
		"    Return the idle time of the <key>, that is the approximated number of",
		"    seconds elapsed since the last access to the key.",
		"REFCOUNT <key>",
		"    Return the number of references of the value associated with the specified",
		"    <key>.")
}
