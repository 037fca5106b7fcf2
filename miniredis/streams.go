package miniredis

import "github.com/minilock/minilock/server"

// StreamEntry is one entry of a stream: its ID and its fields and values.
type StreamEntry = server.StreamEntry

// XAdd adds an entry to the stream at k, as XADD k id values...: id "" or
// "*" lets the server choose it. It returns the entry's ID.
func (m *Miniredis) XAdd(k string, id string, values []string) (string, error) {
	return m.sel().XAdd(k, id, values)
}

// XAdd adds an entry to the stream at k.
func (db *RedisDB) XAdd(k string, id string, values []string) (string, error) {
	id, err := db.d().XAdd(k, id, values...)
	return id, translate(err)
}

// Stream returns the entries of the stream at k, oldest first; none for a
// missing key.
func (m *Miniredis) Stream(k string) ([]StreamEntry, error) { return m.sel().Stream(k) }

// Stream returns the entries of the stream at k, oldest first.
func (db *RedisDB) Stream(k string) ([]StreamEntry, error) {
	entries, err := db.d().Stream(k)
	if len(entries) == 0 {
		entries = nil // miniredis's answer for a missing key
	}
	return entries, translate(err)
}

// PfAdd adds elements to the HyperLogLog at k: 1 if its estimate changed.
// The value is Redis's own bytes, so GET and DUMP of it are Redis's too.
func (m *Miniredis) PfAdd(k string, elems ...string) (int, error) {
	return m.sel().HllAdd(k, elems...)
}

// HllAdd adds elements to the HyperLogLog at k.
func (db *RedisDB) HllAdd(k string, elems ...string) (int, error) {
	n, err := db.d().PfAdd(k, elems...)
	return n, translate(err)
}

// PfCount estimates the distinct elements added to the HyperLogLogs at
// keys (their union).
func (m *Miniredis) PfCount(keys ...string) (int, error) { return m.sel().HllCount(keys...) }

// HllCount estimates the distinct elements added to the HyperLogLogs at
// keys.
func (db *RedisDB) HllCount(keys ...string) (int, error) {
	n, err := db.d().PfCount(keys...)
	return n, translate(err)
}

// PfMerge makes destKey the union of the HyperLogLogs at destKey and
// sourceKeys.
func (m *Miniredis) PfMerge(destKey string, sourceKeys ...string) error {
	return m.sel().HllMerge(destKey, sourceKeys...)
}

// HllMerge makes destKey the union of the HyperLogLogs at destKey and
// sourceKeys.
func (db *RedisDB) HllMerge(destKey string, sourceKeys ...string) error {
	return translate(db.d().PfMerge(destKey, sourceKeys...))
}
