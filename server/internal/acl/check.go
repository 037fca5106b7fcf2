package acl

import (
	"github.com/minilock/minilock/internal/cmdspec"
	"github.com/minilock/minilock/keyspace"
)

// Result is the outcome of a permission check, ordered as acl.c's
// ACL_DENIED_* values are (a selector's later denial wins only when it is
// "more relevant").
type Result int

const (
	OK Result = iota
	DeniedCmd
	DeniedKey
	DeniedAuth
	DeniedChannel
)

// Channel is a channel argument of a pub/sub command.
type Channel struct {
	Pos       int
	Pattern   bool // PSUBSCRIBE's: matched against the rules literally
	Subscribe bool // SUBSCRIBE or PUBLISH (UNSUBSCRIBE is never refused)
}

// Args are a command call's arguments and, found only when a selector
// restricts keys, its keys (once for all the selectors). Keys is a buffer
// the keys are appended to, which a caller may keep from call to call.
type Args struct {
	Argv     [][]byte
	Keys     []cmdspec.KeyRef
	keysDone bool
}

func (a *Args) keyRefs(c *Command) []cmdspec.KeyRef {
	if !a.keysDone && c.KeysOf != nil {
		a.Keys, a.keysDone = c.KeysOf(a.Keys[:0], a.Argv), true
	}
	return a.Keys
}

// Check is ACLCheckAllUserCommandPerm: OK if one of u's selectors allows
// the call, else the most relevant denial and the position of the
// argument it is about.
func (u *User) Check(c *Command, a *Args) (Result, int) {
	if u.Unrestricted {
		return OK, 0
	}
	relevant, lastIdx := DeniedCmd, 0
	for _, s := range u.Selectors {
		r, idx := s.check(c, a)
		if r == OK {
			return OK, 0
		}
		if r > relevant || r == relevant && idx > lastIdx {
			relevant, lastIdx = r, idx
		}
	}
	return relevant, lastIdx
}

// check is ACLSelectorCheckCmd.
func (s *Selector) check(c *Command, a *Args) (Result, int) {
	if !s.allCommands && !c.NoAuth && !s.bit(c.ID) {
		fa := s.firstArgs[c.ID]
		if len(a.Argv) < 2 || fa == nil {
			return DeniedCmd, 0
		}
		idx := 1
		if c.Parent != nil {
			idx = 2
		}
		ok := false
		for _, arg := range fa {
			if idx < len(a.Argv) && equalFold(arg, a.Argv[idx]) {
				ok = true
				break
			}
		}
		if !ok {
			return DeniedCmd, 0
		}
	}
	if !s.allKeys {
		for _, k := range a.keyRefs(c) {
			if !s.keyOK(a.Argv[k.Pos], k.Flags) {
				return DeniedKey, k.Pos
			}
		}
	}
	if !s.allChannels && c.ChannelsOf != nil {
		for _, ch := range c.ChannelsOf(a.Argv) {
			if !ch.Subscribe {
				continue
			}
			if !channelOK(s.Channels, a.Argv[ch.Pos], ch.Pattern) {
				return DeniedChannel, ch.Pos
			}
		}
	}
	return OK, 0
}

func equalFold(s string, b []byte) bool {
	if len(s) != len(b) {
		return false
	}
	for i := 0; i < len(s); i++ {
		x, y := s[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// keyPerm is the permission a key spec's flags need.
func keyPerm(f cmdspec.KeyFlags) int {
	p := 0
	if f&cmdspec.KeyAccess != 0 {
		p |= PermRead
	}
	if f&(cmdspec.KeyInsert|cmdspec.KeyDelete|cmdspec.KeyUpdate) != 0 {
		p |= PermWrite
	}
	return p
}

// keyOK is ACLSelectorCheckKey.
func (s *Selector) keyOK(key []byte, f cmdspec.KeyFlags) bool {
	if s.allKeys {
		return true
	}
	need := keyPerm(f)
	for _, p := range s.Keys {
		if p.Perm&need != need {
			continue
		}
		if keyspace.Match(p.pat, string(key)) {
			return true
		}
	}
	return false
}

// channelOK is ACLCheckChannelAgainstList: a pattern subscription must be
// one of the rules literally; a channel must match one.
func channelOK(rules []string, ch []byte, pattern bool) bool {
	for _, r := range rules {
		if pattern && r == string(ch) || !pattern && keyspace.Match([]byte(r), string(ch)) {
			return true
		}
	}
	return false
}

// ChannelAllowed is ACLUserCheckChannelPerm.
func (u *User) ChannelAllowed(ch string, pattern bool) bool {
	for _, s := range u.Selectors {
		if s.allChannels || channelOK(s.Channels, []byte(ch), pattern) {
			return true
		}
	}
	return false
}

// AllChannels reports whether one of u's selectors allows every channel.
func (u *User) AllChannels() bool {
	for _, s := range u.Selectors {
		if s.allChannels {
			return true
		}
	}
	return false
}

// LosesChannels is the test of ACLKillPubsubClientsIfNeeded: whether
// going from u to next takes a channel rule away, and if so the rules
// next keeps (against which the subscriptions are then checked).
func (u *User) LosesChannels(next *User) (bool, []string) {
	if next.AllChannels() {
		return false, nil
	}
	var upcoming []string
	for _, s := range next.Selectors {
		upcoming = append(upcoming, s.Channels...)
	}
	for _, s := range u.Selectors {
		if s.allChannels {
			return true, upcoming
		}
		for _, c := range s.Channels {
			found := false
			for _, n := range upcoming {
				found = found || n == c
			}
			if !found {
				return true, upcoming
			}
		}
	}
	return false, nil
}

// ChannelInRules is ACLCheckChannelAgainstList for the kill check.
func ChannelInRules(rules []string, ch string, pattern bool) bool {
	return channelOK(rules, []byte(ch), pattern)
}
