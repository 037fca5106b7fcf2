package miniredis

import "time"

// The direct accessors: read and change the data without a client. Each
// writer runs the command it stands for on the server, so it notifies
// keyspace events, wakes blocked clients and breaks WATCHes as that
// command would. The Miniredis methods act on the database Select chose.

// Keys returns all keys, sorted.
func (m *Miniredis) Keys() []string { return m.sel().Keys() }

// Keys returns all keys, sorted.
func (db *RedisDB) Keys() []string { return db.d().Keys() }

// FlushAll removes every key of every database.
func (m *Miniredis) FlushAll() { m.srv.FlushAll() }

// FlushDB removes every key of the selected database.
func (m *Miniredis) FlushDB() { m.sel().FlushDB() }

// FlushDB removes every key of the database.
func (db *RedisDB) FlushDB() { db.d().FlushDB() }

// Get returns the string at k: ErrKeyNotFound if there is none,
// ErrWrongType if k holds another type.
func (m *Miniredis) Get(k string) (string, error) { return m.sel().Get(k) }

// Get returns the string at k.
func (db *RedisDB) Get(k string) (string, error) {
	if v, ok := db.d().Get(k); ok {
		return v, nil
	}
	if db.Exists(k) {
		return "", ErrWrongType
	}
	return "", ErrKeyNotFound
}

// Set sets k to the string v, as SET k v: whatever k held, and its TTL,
// is gone (miniredis keeps the TTL; Redis does not).
func (m *Miniredis) Set(k, v string) error { return m.sel().Set(k, v) }

// Set sets k to the string v, as SET k v.
func (db *RedisDB) Set(k, v string) error {
	db.d().Set(k, v, 0)
	return nil
}

// Incr adds delta to the integer at k, as INCRBY.
func (m *Miniredis) Incr(k string, delta int) (int, error) { return m.sel().Incr(k, delta) }

// Incr adds delta to the integer at k, as INCRBY.
func (db *RedisDB) Incr(k string, delta int) (int, error) {
	n, err := db.d().Incr(k, int64(delta))
	return int(n), translate(err)
}

// IncrByFloat adds delta to the number at k, as INCRBYFLOAT.
func (m *Miniredis) IncrByFloat(k string, delta float64) (float64, error) {
	return m.Incrfloat(k, delta)
}

// Incrfloat adds delta to the number at k, as INCRBYFLOAT.
func (m *Miniredis) Incrfloat(k string, delta float64) (float64, error) {
	return m.sel().Incrfloat(k, delta)
}

// Incrfloat adds delta to the number at k, as INCRBYFLOAT.
func (db *RedisDB) Incrfloat(k string, delta float64) (float64, error) {
	f, err := db.d().IncrByFloat(k, delta)
	return f, translate(err)
}

// List returns the list at k, as LRANGE k 0 -1.
func (m *Miniredis) List(k string) ([]string, error) { return m.sel().List(k) }

// List returns the list at k, as LRANGE k 0 -1.
func (db *RedisDB) List(k string) ([]string, error) {
	l, err := db.d().List(k)
	return l, translate(err)
}

// Lpush prepends v to the list at k and returns its length.
func (m *Miniredis) Lpush(k, v string) (int, error) { return m.sel().Lpush(k, v) }

// Lpush prepends v to the list at k and returns its length.
func (db *RedisDB) Lpush(k, v string) (int, error) {
	n, err := db.d().LPush(k, v)
	return n, translate(err)
}

// Lpop removes and returns the first element of the list at k.
func (m *Miniredis) Lpop(k string) (string, error) { return m.sel().Lpop(k) }

// Lpop removes and returns the first element of the list at k.
func (db *RedisDB) Lpop(k string) (string, error) {
	v, err := db.d().LPop(k)
	return v, translate(err)
}

// RPush appends values to the list at k (RPUSH) and returns its length.
func (m *Miniredis) RPush(k string, v ...string) (int, error) { return m.Push(k, v...) }

// Push appends values to the list at k (RPUSH) and returns its length.
func (m *Miniredis) Push(k string, v ...string) (int, error) { return m.sel().Push(k, v...) }

// Push appends values to the list at k (RPUSH) and returns its length.
func (db *RedisDB) Push(k string, v ...string) (int, error) {
	n, err := db.d().RPush(k, v...)
	return n, translate(err)
}

// RPop removes and returns the last element of the list at k.
func (m *Miniredis) RPop(k string) (string, error) { return m.Pop(k) }

// Pop removes and returns the last element of the list at k (RPOP).
func (m *Miniredis) Pop(k string) (string, error) { return m.sel().Pop(k) }

// Pop removes and returns the last element of the list at k (RPOP).
func (db *RedisDB) Pop(k string) (string, error) {
	v, err := db.d().RPop(k)
	return v, translate(err)
}

// SAdd adds members to the set at k and returns how many are new.
func (m *Miniredis) SAdd(k string, elems ...string) (int, error) { return m.SetAdd(k, elems...) }

// SetAdd adds members to the set at k and returns how many are new.
func (m *Miniredis) SetAdd(k string, elems ...string) (int, error) {
	return m.sel().SetAdd(k, elems...)
}

// SetAdd adds members to the set at k and returns how many are new.
func (db *RedisDB) SetAdd(k string, elems ...string) (int, error) {
	n, err := db.d().SAdd(k, elems...)
	return n, translate(err)
}

// SMembers returns the members of the set at k, sorted.
func (m *Miniredis) SMembers(k string) ([]string, error) { return m.Members(k) }

// Members returns the members of the set at k, sorted.
func (m *Miniredis) Members(k string) ([]string, error) { return m.sel().Members(k) }

// Members returns the members of the set at k, sorted.
func (db *RedisDB) Members(k string) ([]string, error) {
	l, err := db.d().SMembers(k)
	return l, translate(err)
}

// SIsMember reports whether v is in the set at k.
func (m *Miniredis) SIsMember(k, v string) (bool, error) { return m.IsMember(k, v) }

// IsMember reports whether v is in the set at k.
func (m *Miniredis) IsMember(k, v string) (bool, error) { return m.sel().IsMember(k, v) }

// IsMember reports whether v is in the set at k.
func (db *RedisDB) IsMember(k, v string) (bool, error) {
	ok, err := db.d().SIsMember(k, v)
	return ok, translate(err)
}

// SRem removes members from the set at k and returns how many there were.
func (m *Miniredis) SRem(k string, fields ...string) (int, error) { return m.sel().SRem(k, fields...) }

// SRem removes members from the set at k and returns how many there were.
func (db *RedisDB) SRem(k string, fields ...string) (int, error) {
	if !db.Exists(k) {
		return 0, ErrKeyNotFound
	}
	n, err := db.d().SRem(k, fields...)
	return n, translate(err)
}

// SCard returns the number of members of the set at k (0 if none).
func (m *Miniredis) SCard(key string) (int, error) { return m.sel().SCard(key) }

// SCard returns the number of members of the set at k (0 if none).
func (db *RedisDB) SCard(key string) (int, error) {
	l, err := db.Members(key)
	if err == ErrKeyNotFound {
		return 0, nil
	}
	return len(l), err
}

// SRandMember returns a random member of the set at key, "" if none.
func (m *Miniredis) SRandMember(key string) (string, error) { return m.sel().SRandMember(key) }

// SRandMember returns a random member of the set at key, "" if none.
func (db *RedisDB) SRandMember(key string) (string, error) {
	v, err := db.d().SRandMember(key)
	if err = translate(err); err == ErrKeyNotFound {
		return "", nil
	}
	return v, err
}

// HKeys returns the fields of the hash at k, sorted.
func (m *Miniredis) HKeys(k string) ([]string, error) { return m.sel().HKeys(k) }

// HKeys returns the fields of the hash at k, sorted.
func (db *RedisDB) HKeys(key string) ([]string, error) {
	l, err := db.d().HKeys(key)
	return l, translate(err)
}

// Del deletes k and reports whether it existed.
func (m *Miniredis) Del(k string) bool { return m.sel().Del(k) }

// Del deletes k and reports whether it existed.
func (db *RedisDB) Del(k string) bool { return db.d().Del(k) }

// Unlink is Del.
func (m *Miniredis) Unlink(k string) bool { return m.Del(k) }

// Unlink is Del.
func (db *RedisDB) Unlink(k string) bool { return db.Del(k) }

// TTL returns k's time to live: 0 when it has none.
func (m *Miniredis) TTL(k string) time.Duration { return m.sel().TTL(k) }

// TTL returns k's time to live: 0 when it has none.
func (db *RedisDB) TTL(k string) time.Duration {
	ttl, _ := db.d().TTL(k)
	return ttl
}

// SetTTL gives k a time to live, as PEXPIRE: it expires when the clock
// (real time, FastForward, SetTime) passes it. A ttl <= 0 deletes k.
func (m *Miniredis) SetTTL(k string, ttl time.Duration) { m.sel().SetTTL(k, ttl) }

// SetTTL gives k a time to live, as PEXPIRE.
func (db *RedisDB) SetTTL(k string, ttl time.Duration) { db.d().Expire(k, ttl) }

// Type returns k's type ("string", "hash", "list", "set", "zset"), or ""
// for a missing key.
func (m *Miniredis) Type(k string) string { return m.sel().Type(k) }

// Type returns k's type, or "" for a missing key.
func (db *RedisDB) Type(k string) string {
	if t := db.d().Type(k); t != "none" {
		return t
	}
	return ""
}

// Exists reports whether k exists.
func (m *Miniredis) Exists(k string) bool { return m.sel().Exists(k) }

// Exists reports whether k exists.
func (db *RedisDB) Exists(k string) bool { return db.d().Type(k) != "none" }

// HGet returns field f of the hash at k; "" if either is missing or k
// holds another type.
func (m *Miniredis) HGet(k, f string) string { return m.sel().HGet(k, f) }

// HGet returns field f of the hash at k; "" if either is missing.
func (db *RedisDB) HGet(k, f string) string {
	v, _ := db.d().HGet(k, f)
	return v
}

// HSet sets fields of the hash at k: HSet(k, "f1", "v1", "f2", "v2"). As
// in miniredis, a key of another type is replaced.
func (m *Miniredis) HSet(k string, fv ...string) { m.sel().HSet(k, fv...) }

// HSet sets fields of the hash at k, replacing a key of another type.
func (db *RedisDB) HSet(k string, fv ...string) {
	if t := db.Type(k); t != "" && t != "hash" {
		db.Del(k)
	}
	db.d().HSet(k, fv...)
}

// HDel deletes field f of the hash at k.
func (m *Miniredis) HDel(k, f string) { m.sel().HDel(k, f) }

// HDel deletes field f of the hash at k.
func (db *RedisDB) HDel(k, f string) { db.d().HDel(k, f) }

// HIncrBy adds delta to an integer field, as HINCRBY.
func (m *Miniredis) HIncrBy(k, f string, delta int) (int, error) { return m.HIncr(k, f, delta) }

// HIncr adds delta to an integer field, as HINCRBY.
func (m *Miniredis) HIncr(k, f string, delta int) (int, error) { return m.sel().HIncr(k, f, delta) }

// HIncr adds delta to an integer field, as HINCRBY.
func (db *RedisDB) HIncr(k, f string, delta int) (int, error) {
	n, err := db.d().HIncrBy(k, f, int64(delta))
	return int(n), translate(err)
}

// HIncrByFloat adds delta to a numeric field, as HINCRBYFLOAT.
func (m *Miniredis) HIncrByFloat(k, f string, delta float64) (float64, error) {
	return m.HIncrfloat(k, f, delta)
}

// HIncrfloat adds delta to a numeric field, as HINCRBYFLOAT.
func (m *Miniredis) HIncrfloat(k, f string, delta float64) (float64, error) {
	return m.sel().HIncrfloat(k, f, delta)
}

// HIncrfloat adds delta to a numeric field, as HINCRBYFLOAT.
func (db *RedisDB) HIncrfloat(k, f string, delta float64) (float64, error) {
	v, err := db.d().HIncrByFloat(k, f, delta)
	return v, translate(err)
}

// ZAdd adds member with score to the sorted set at k (or moves it) and
// reports whether it is new.
func (m *Miniredis) ZAdd(k string, score float64, member string) (bool, error) {
	return m.sel().ZAdd(k, score, member)
}

// ZAdd adds member with score to the sorted set at k.
func (db *RedisDB) ZAdd(k string, score float64, member string) (bool, error) {
	ok, err := db.d().ZAdd(k, score, member)
	return ok, translate(err)
}

// ZMembers returns the members of the sorted set at k, by score.
func (m *Miniredis) ZMembers(k string) ([]string, error) { return m.sel().ZMembers(k) }

// ZMembers returns the members of the sorted set at k, by score.
func (db *RedisDB) ZMembers(k string) ([]string, error) {
	l, err := db.d().ZMembers(k)
	return l, translate(err)
}

// SortedSet returns the sorted set at k as a map of member to score.
func (m *Miniredis) SortedSet(k string) (map[string]float64, error) { return m.sel().SortedSet(k) }

// SortedSet returns the sorted set at k as a map of member to score.
func (db *RedisDB) SortedSet(k string) (map[string]float64, error) {
	z, err := db.d().ZRangeWithScores(k, 0, -1)
	if err != nil {
		return nil, translate(err)
	}
	out := make(map[string]float64, len(z))
	for _, m := range z {
		out[m.Member] = m.Score
	}
	return out, nil
}

// ZRem removes member from the sorted set at k and reports whether it was
// there.
func (m *Miniredis) ZRem(k, member string) (bool, error) { return m.sel().ZRem(k, member) }

// ZRem removes member from the sorted set at k.
func (db *RedisDB) ZRem(k, member string) (bool, error) {
	if !db.Exists(k) {
		return false, ErrKeyNotFound
	}
	n, err := db.d().ZRem(k, member)
	return n == 1, translate(err)
}

// ZScore returns member's score (0 for a missing member).
func (m *Miniredis) ZScore(k, member string) (float64, error) { return m.sel().ZScore(k, member) }

// ZScore returns member's score (0 for a missing member).
func (db *RedisDB) ZScore(k, member string) (float64, error) {
	s, err := db.ZMScore(k, []string{member})
	if err != nil {
		return 0, err
	}
	return s[0], nil
}

// ZMScore returns the members' scores (0 for a missing one).
func (m *Miniredis) ZMScore(k string, members ...string) ([]float64, error) {
	return m.sel().ZMScore(k, members)
}

// ZMScore returns the members' scores (0 for a missing one).
func (db *RedisDB) ZMScore(k string, members []string) ([]float64, error) {
	z, err := db.SortedSet(k)
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(members))
	for i, m := range members {
		out[i] = z[m]
	}
	return out, nil
}

// Copy copies src in database srcDB to dest in destDB, replacing dest
// (COPY src dest DB destDB REPLACE); ErrKeyNotFound if src is missing.
func (m *Miniredis) Copy(srcDB int, src string, destDB int, dest string) error {
	ok, err := m.srv.DB(srcDB).Copy(src, destDB, dest)
	if err == nil && !ok {
		return ErrKeyNotFound
	}
	return translate(err)
}
