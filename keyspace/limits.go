package keyspace

// SetMaxStringLen changes proto-max-bulk-len as the commands that grow a
// string check it (CONFIG SET proto-max-bulk-len: Redis's checkStringLength
// reads server.proto_max_bulk_len at each call). Owner goroutine.
func (k *Keyspace) SetMaxStringLen(n int64) {
	if n <= 0 {
		n = 512 << 20
	}
	k.maxLen = n
}
