package server

import (
	"fmt"

	"github.com/minilock/minilock/keyspace"
	"github.com/minilock/minilock/resp"
)

// The embedding API's streams and HyperLogLogs. As for the other types
// (embed_types.go), a writer runs the command it stands for, so it
// notifies, wakes blocked readers (an XAdd serves a waiting XREAD) and
// touches WATCH as that command does.

// StreamEntry is one entry of a stream: its ID and its fields and values,
// in the order XADD gave them.
type StreamEntry struct {
	ID     string
	Values []string
}

// XAdd adds an entry to the stream at key, as XADD key id field value
// [field value ...]: id "*" (or "") lets the server choose it. It returns
// the entry's ID, or XADD's error.
func (d DB) XAdd(key, id string, fieldValues ...string) (string, error) {
	if id == "" {
		id = "*"
	}
	return replyBulk(d.exec(keyspace.CmdXAdd, append([]string{"xadd", key, id}, fieldValues...)...))
}

// Stream returns the entries of the stream at key, oldest first, as
// XRANGE key - + does: none for a missing key, ErrWrongType for another
// type.
func (d DB) Stream(key string) ([]StreamEntry, error) {
	b, err := d.exec(keyspace.CmdXRange, "xrange", key, "-", "+")
	if err != nil {
		return nil, err
	}
	entries, err := parseEntries(b)
	if err != nil {
		return nil, fmt.Errorf("server: XRANGE reply %.100q: %w", b, err)
	}
	return entries, nil
}

// parseEntries reads XRANGE's reply: an array of [id, [field, value ...]].
func parseEntries(b []byte) ([]StreamEntry, error) {
	next := func(kind byte) (resp.Item, error) {
		it, rest, err := resp.Next(b)
		if err != nil {
			return it, err
		}
		if it.Kind != kind {
			return it, resp.ErrMalformed
		}
		b = rest
		return it, nil
	}
	n, err := next('*')
	if err != nil {
		return nil, err
	}
	entries := make([]StreamEntry, 0, n.Int)
	for range n.Int {
		if _, err := next('*'); err != nil {
			return nil, err
		}
		id, err := next('$')
		if err != nil {
			return nil, err
		}
		fv, err := next('*')
		if err != nil {
			return nil, err
		}
		e := StreamEntry{ID: string(id.Data), Values: make([]string, 0, fv.Int)}
		for range fv.Int {
			v, err := next('$')
			if err != nil {
				return nil, err
			}
			e.Values = append(e.Values, string(v.Data))
		}
		entries = append(entries, e)
	}
	return entries, nil
}

// PfAdd adds elements to the HyperLogLog at key, as PFADD: 1 if its
// estimate changed, 0 if not.
func (d DB) PfAdd(key string, elems ...string) (int, error) {
	n, err := replyInt(d.exec(keyspace.CmdPFAdd, withKey("pfadd", key, elems...)...))
	return int(n), err
}

// PfCount is PFCOUNT of keys: the estimated number of distinct elements
// added to one HyperLogLog, or to the union of several.
func (d DB) PfCount(keys ...string) (int, error) {
	n, err := replyInt(d.exec(keyspace.CmdPFCount, append([]string{"pfcount"}, keys...)...))
	return int(n), err
}

// PfMerge is PFMERGE dest keys...: dest becomes the union of the
// HyperLogLogs at dest and keys.
func (d DB) PfMerge(dest string, keys ...string) error {
	_, err := d.exec(keyspace.CmdPFMerge, withKey("pfmerge", dest, keys...)...)
	return err
}

// XAdd is DB.XAdd in the selected database.
func (s *Server) XAdd(key, id string, fieldValues ...string) (string, error) {
	return s.sel().XAdd(key, id, fieldValues...)
}

// Stream is DB.Stream in the selected database.
func (s *Server) Stream(key string) ([]StreamEntry, error) { return s.sel().Stream(key) }

// PfAdd is DB.PfAdd in the selected database.
func (s *Server) PfAdd(key string, elems ...string) (int, error) {
	return s.sel().PfAdd(key, elems...)
}

// PfCount is DB.PfCount in the selected database.
func (s *Server) PfCount(keys ...string) (int, error) { return s.sel().PfCount(keys...) }

// PfMerge is DB.PfMerge in the selected database.
func (s *Server) PfMerge(dest string, keys ...string) error { return s.sel().PfMerge(dest, keys...) }
