package cmdspec

import (
	"strings"

	"github.com/minilock/minilock/internal/redisstr"
)

// KeyRef is a key found in a command's arguments: its position (the
// command's name is 0) and its key spec's flags.
type KeyRef struct {
	Pos   int
	Flags KeyFlags
}

// HasKeys reports whether one of c's key specs names keys
// (db.c:doesCommandHaveKeys).
func (c *Command) HasKeys() bool {
	for i := range c.KeySpecs {
		if c.KeySpecs[i].Flags&KeyNotKey == 0 {
			return true
		}
	}
	return false
}

// KeysBySpecs is db.c's getKeysUsingKeySpecs: the keys argv (the command's
// name first) names, and false for arguments the specs cannot read (or an
// incomplete spec, which Redis then leaves to the command's own getkeys).
func (c *Command) KeysBySpecs(argv [][]byte) ([]KeyRef, bool) {
	return c.AppendKeysBySpecs(nil, argv)
}

// AppendKeysBySpecs is KeysBySpecs appending to keys (an ACL check reuses
// one buffer).
func (c *Command) AppendKeysBySpecs(keys []KeyRef, argv [][]byte) ([]KeyRef, bool) {
	argc := len(argv)
	for i := range c.KeySpecs {
		s := &c.KeySpecs[i]
		if s.Flags&KeyNotKey != 0 {
			continue
		}
		first := 0
		switch s.BeginSearch {
		case BeginIndex:
			first = s.Index
		case BeginKeyword:
			start, end := s.StartFrom, argc-1
			if s.StartFrom <= 0 {
				start, end = argc+s.StartFrom, 1
			}
			step := 1
			if start > end {
				step = -1
			}
			for i := start; i != end; i += step {
				if i >= argc || i < 1 {
					break
				}
				if strings.EqualFold(string(argv[i]), s.Keyword) {
					first = i + 1
					break
				}
			}
			if first == 0 {
				continue
			}
		default:
			return nil, false
		}
		var last int
		switch s.FindKeys {
		case FindRange:
			switch {
			case s.LastKey >= 0:
				last = first + s.LastKey
			case s.Limit == 0:
				last = argc + s.LastKey
			default:
				last = first + ((argc-first)/s.Limit + s.LastKey)
			}
		case FindKeynum:
			if first+s.KeyNumIdx >= argc {
				return nil, false
			}
			n, ok := redisstr.ParseInt(argv[first+s.KeyNumIdx])
			if !ok || n < 0 || n > int64(argc) {
				return nil, false
			}
			first += s.FirstKey
			last = first + int(n) - 1
		default:
			return nil, false
		}
		if last >= argc || last < first || first >= argc {
			return nil, false
		}
		step := max(s.KeyStep, 1) // never loop in place
		for i := first; i <= last; i += step {
			keys = append(keys, KeyRef{Pos: i, Flags: s.Flags})
		}
		if s.Flags&KeyIncomplete != 0 {
			return nil, false
		}
	}
	return keys, true
}
