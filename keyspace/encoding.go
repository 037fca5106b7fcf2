package keyspace

// Encodings are the thresholds at which a small collection, kept packed in
// one allocation (internal/pack, as Redis's listpack), converts to its
// large form: Redis's hash-max-listpack-entries and -value,
// zset-max-listpack-entries and -value, set-max-intset-entries and
// list-max-listpack-size, with Redis 7.0's defaults. CONFIG SET changes
// them; as in Redis, a collection already converted stays large.
type Encodings struct {
	HashMaxListpackEntries int
	HashMaxListpackValue   int
	ZSetMaxListpackEntries int
	ZSetMaxListpackValue   int
	SetMaxIntsetEntries    int
	// ListMaxListpackSize is a list chunk's limit: negative for bytes
	// (-1: 4 KiB, -2: 8 KiB ... -5: 64 KiB), positive for entries.
	ListMaxListpackSize int
	// StreamNodeMaxBytes and StreamNodeMaxEntries bound a stream's node
	// (stream-node-max-bytes, stream-node-max-entries; 0: no bound).
	StreamNodeMaxBytes   int
	StreamNodeMaxEntries int
	// HLLSparseMaxBytes is hll-sparse-max-bytes: a sparse HyperLogLog
	// that would grow past it turns dense.
	HLLSparseMaxBytes int
}

// DefaultEncodings are Redis 7.0's defaults.
func DefaultEncodings() Encodings {
	return Encodings{
		HashMaxListpackEntries: 512,
		HashMaxListpackValue:   64,
		ZSetMaxListpackEntries: 128,
		ZSetMaxListpackValue:   64,
		SetMaxIntsetEntries:    512,
		ListMaxListpackSize:    -2,
		StreamNodeMaxBytes:     4096,
		StreamNodeMaxEntries:   100,
		HLLSparseMaxBytes:      3000,
	}
}

// SetEncodings makes e the thresholds for collections that grow from now
// on. Owner goroutine only.
func (k *Keyspace) SetEncodings(e Encodings) { k.enc = e }

// Encodings returns the current thresholds. Owner goroutine only.
func (k *Keyspace) Encodings() Encodings { return k.enc }
