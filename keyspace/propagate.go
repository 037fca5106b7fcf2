package keyspace

// The append-only file's view of the keyspace: which keys each command
// changed, and which keys expired (Redis propagates those as DEL). The
// server sets a Tracker while the AOF is on; it is called on the owner,
// synchronously, as the change happens.

// Tracker hears of changes to keys.
type Tracker interface {
	// Touched is called after key in database db changed or was deleted
	// (signalModifiedKey).
	Touched(db int, key string)
	// Expired is called after key was deleted because its deadline passed
	// (lazily or actively), instead of Touched.
	Expired(db int, key string)
	// Flushed is called before database db is emptied.
	Flushed(db int)
}

// SetTracker sets t (nil: none).
func (k *Keyspace) SetTracker(t Tracker) { k.tracker = t }

func (k *Keyspace) tracked(dbi int, key string) {
	if k.tracker != nil && !k.expiring {
		k.tracker.Touched(dbi, key)
	}
}
