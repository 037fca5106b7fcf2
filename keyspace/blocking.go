package keyspace

// What the blocking commands (BLPOP, BLMOVE, BZPOPMIN ...) need from the
// data: the server parks the clients and decides who is served; the
// keyspace tells it which awaited keys became ready and pops for it.
//
// A key is ready when a list or sorted set is created under a name some
// client waits on (Redis's signalKeyAsReady, called from dbAdd): a push to
// a list that already exists cannot be awaited, since nobody waits on a
// non-empty list. The server takes the ready keys after each top-level
// command (never inside one: a MULTI or a script runs to its end first)
// and serves the clients parked on them in the order they blocked.

// ReadyKey is a key that became a list or sorted set while clients waited.
type ReadyKey struct {
	DB  int
	Key string
}

// Await records that a client waits on key in database db (Unawait undoes
// it); only awaited keys are reported ready.
func (k *Keyspace) Await(db int, key string) {
	if k.awaited == nil {
		k.awaited = map[ReadyKey]int{}
	}
	k.awaited[ReadyKey{db, key}]++
}

// Unawait drops one Await of key.
func (k *Keyspace) Unawait(db int, key string) {
	rk := ReadyKey{db, key}
	if k.awaited[rk] <= 1 {
		delete(k.awaited, rk)
		return
	}
	k.awaited[rk]--
}

// TakeReady returns the keys that became ready since the last call, in the
// order they did, and forgets them.
func (k *Keyspace) TakeReady() []ReadyKey {
	r := k.ready
	k.ready = nil
	return r
}

// HasReady reports whether keys became ready since the last TakeReady.
// Owner goroutine only.
func (k *Keyspace) HasReady() bool { return len(k.ready) > 0 }

// signalReady is told that key was added to database dbi as an object of
// kind (Redis's signalKeyAsReady), or, for a stream, that it grew, lost a
// group, or was deleted or overwritten (parked XREADGROUPs then get an
// error). Free when nobody waits.
func (k *Keyspace) signalReady(dbi int, key []byte, kind Kind) {
	if len(k.awaited) == 0 || (kind != kindList && kind != kindZSet && kind != kindStream) {
		return
	}
	rk := ReadyKey{dbi, string(key)}
	if k.awaited[rk] == 0 {
		return
	}
	for _, r := range k.ready {
		if r == rk {
			return
		}
	}
	k.ready = append(k.ready, rk)
}

// Awaitable says what a blocking command found among its keys: the index
// of the first one holding a value of its type (a list, or a sorted set
// when zset), -1 when none does, or WRONGTYPE when a key of another type
// comes first (blockingPopGenericCommand's loop).
func (k *Keyspace) Awaitable(c *Ctx, keys [][]byte, zset bool) (int, error) {
	kind := kindList
	if zset {
		kind = kindZSet
	}
	for i, key := range keys {
		o, _, err := k.objectOf(c, key, kind, false)
		if err != nil {
			return -1, err
		}
		if o != nil {
			return i, nil
		}
	}
	return -1, nil
}

// PopWithKey pops one element from an end of the list at key and replies
// [key, element], as BLPOP and BRPOP do. It reports false, writing
// nothing, when key holds no list.
func (k *Keyspace) PopWithKey(c *Ctx, key []byte, front bool) bool {
	l, o, i, err := k.listOf(c, key, false)
	if err != nil || l == nil {
		return false
	}
	c.W.Array(2)
	c.W.Bulk(key)
	c.W.Bulk(l.pop(front))
	k.changedNotify(c, key, i, o, NotifyList, popEvent(front))
	return true
}

// ZPopWithKey pops from the sorted set at key as BZPOPMIN/BZPOPMAX
// ([key, member, score]) or, when multi, as BZMPOP ([key, [[member,
// score] ...]]) with up to count members.
func (k *Keyspace) ZPopWithKey(c *Ctx, key []byte, maxEnd bool, count int64, multi bool) error {
	if multi {
		return k.zpop(c, [][]byte{key}, maxEnd, count, true, true, true)
	}
	return k.zpop(c, [][]byte{key}, maxEnd, -1, true, false, false)
}
