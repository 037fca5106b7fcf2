package keyspace

import (
	"math"
	"slices"

	"github.com/minilock/minilock/resp"
)

// SWAPDB, as db.c's swapdbCommand and dbSwapDatabases: the data and the
// deadlines of two databases change places, while what clients hold on a
// database by its number stays with the number (their SELECT, their
// WATCHed keys, the keys they are blocked on), as in Redis, so a client
// watching a key sees its EXEC fail when the key's content changed, and a
// client blocked on a key the swap brought is served. Redis 7.0 sends no
// keyspace event for a swap.

var (
	errSwapFirst  = resp.NewError("invalid first DB index")
	errSwapSecond = resp.NewError("invalid second DB index")
)

// CmdSwapDB is SWAPDB index1 index2.
func CmdSwapDB(k *Keyspace, c *Ctx, args [][]byte) error {
	a, ok := swapIndex(args[1])
	if !ok {
		return errSwapFirst
	}
	b, ok := swapIndex(args[2])
	if !ok {
		return errSwapSecond
	}
	if !k.SwapDB(a, b, c.Now) {
		return resp.ErrDBIndex
	}
	c.W.OK()
	return nil
}

// swapIndex is getIntFromObjectOrReply: an integer in C int's range.
func swapIndex(b []byte) (int, bool) {
	n, err := intArg(b)
	if err != nil || n < math.MinInt32 || n > math.MaxInt32 {
		return 0, false
	}
	return int(n), true
}

// SwapDB swaps databases a and b at time now (Unix ms, for telling which
// watched keys are expired) and reports false when either does not exist.
// The caller serves the clients it made ready (TakeReady).
func (k *Keyspace) SwapDB(a, b int, now int64) bool {
	n := len(k.dbs)
	if a < 0 || a >= n || b < 0 || b >= n {
		return false
	}
	if a == b {
		return true
	}
	k.touchReplaced(a, b, now)
	k.touchReplaced(b, a, now)
	k.signalLostStreams(a, b)
	k.signalLostStreams(b, a)
	k.dbs[a], k.dbs[b] = k.dbs[b], k.dbs[a]
	k.snapSwapped(a, b)
	k.index.SwapDBs(a, b)
	k.signalPresent(a)
	k.signalPresent(b)
	return true
}

// awaitedIn lists the keys clients wait on in database dbi, in key order
// (Redis walks its blocking_keys dict; a fixed order makes who is served
// first reproducible).
func (k *Keyspace) awaitedIn(dbi int) []string {
	var keys []string
	for rk := range k.awaited {
		if rk.DB == dbi {
			keys = append(keys, rk.Key)
		}
	}
	slices.Sort(keys)
	return keys
}

// signalLostStreams tells the clients blocked on a stream of database dbi
// that the stream goes away: the database is emptied (with < 0) or replaced
// by database with, which holds no stream under that name
// (scanDatabaseForDeletedStreams). A parked XREADGROUP then gets its
// error.
func (k *Keyspace) signalLostStreams(dbi, with int) {
	if len(k.awaited) == 0 {
		return
	}
	d := &k.dbs[dbi]
	for _, key := range k.awaitedIn(dbi) {
		if i, ok := d.lookupString(key); !ok || d.slots[i].kindOf() != kindStream {
			continue
		}
		if with >= 0 {
			w := &k.dbs[with]
			if i, ok := w.lookupString(key); ok && w.slots[i].kindOf() == kindStream {
				continue
			}
		}
		k.signalReady(dbi, []byte(key), kindStream)
	}
}

// signalPresent marks ready every awaited key that database dbi holds
// (scanDatabaseForReadyKeys): after a swap a client may be waiting on a
// list that now exists. Whether it is of the right type, and not expired,
// is judged when the client is served.
func (k *Keyspace) signalPresent(dbi int) {
	if len(k.awaited) == 0 {
		return
	}
	d := &k.dbs[dbi]
	for _, key := range k.awaitedIn(dbi) {
		if i, ok := d.lookupString(key); ok {
			k.signalReady(dbi, []byte(key), d.slots[i].kindOf())
		}
	}
}
