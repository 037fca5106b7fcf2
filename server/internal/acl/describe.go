package acl

import (
	"strings"

	"github.com/minilock/minilock/internal/cmdspec"
)

// CommandRules is ACLDescribeSelectorCommandRules: the shortest rules
// Redis 7.0 finds that rebuild s's commands, "+@all" or "-@all" first,
// then the categories that cover most, then single commands. Redis lists
// the single commands in its command dict's (seeded, random) order; here
// they come in name order.
func (s *Selector) CommandRules() string {
	var b strings.Builder
	future := s.t.n // the bit only +@all sets
	additive := !s.bit(future)
	fake := newSelector(s.t, false)
	if additive {
		b.WriteString("-@all ")
	} else {
		b.WriteString("+@all ")
		_ = fake.Apply("+@all")
	}
	temp := newSelector(s.t, false)
	copy(temp.allowed, s.allowed)
	applied := make([]bool, len(cmdspec.ACLNames))
	for {
		best, mindiff, maxsame := -1, int(^uint(0)>>1), 0
		for j, cat := range cmdspec.ACLNames {
			if applied[j] {
				continue
			}
			on, off := 0, 0
			s.t.Walk(func(c *Command) {
				if c.Cats&cat.Bit != 0 {
					if temp.bit(c.ID) {
						on++
					} else {
						off++
					}
				}
			})
			diff, same := on, off
			if additive {
				diff, same = off, on
			}
			if same > diff && (diff < mindiff || diff == mindiff && same > maxsame) {
				best, mindiff, maxsame = j, diff, same
			}
		}
		if best < 0 {
			break
		}
		cat := cmdspec.ACLNames[best]
		fake.category(cat.Bit, additive)
		temp.category(cat.Bit, !additive)
		if additive {
			b.WriteString("+@")
		} else {
			b.WriteString("-@")
		}
		b.WriteString(cat.Name)
		b.WriteByte(' ')
		applied[best] = true
	}
	var single func(cs []*Command)
	single = func(cs []*Command) {
		for _, c := range cs {
			user, f := s.bit(c.ID), fake.bit(c.ID)
			if user != f {
				if user {
					b.WriteByte('+')
				} else {
					b.WriteByte('-')
				}
				b.WriteString(c.Name)
				b.WriteByte(' ')
				fake.change(c, user)
			}
			single(c.Subs)
			if !user {
				for _, a := range s.firstArgs[c.ID] {
					b.WriteString("+" + c.Name + "|" + a + " ")
				}
			}
		}
	}
	single(s.t.top)
	return strings.TrimSuffix(b.String(), " ")
}

// KeysRule is GETUSER's "keys": "~*" or the patterns.
func (s *Selector) KeysRule() string {
	if s.allKeys {
		return "~*"
	}
	parts := make([]string, len(s.Keys))
	for i, k := range s.Keys {
		parts[i] = k.String()
	}
	return strings.Join(parts, " ")
}

// ChannelsRule is GETUSER's "channels": "&*" or the patterns.
func (s *Selector) ChannelsRule() string {
	if s.allChannels {
		return "&*"
	}
	parts := make([]string, len(s.Channels))
	for i, c := range s.Channels {
		parts[i] = "&" + c
	}
	return strings.Join(parts, " ")
}

// describe is ACLDescribeSelector.
func (s *Selector) describe() string {
	var b strings.Builder
	if s.allKeys {
		b.WriteString("~* ")
	} else {
		for _, k := range s.Keys {
			b.WriteString(k.String() + " ")
		}
	}
	if s.allChannels {
		b.WriteString("&* ")
	} else {
		b.WriteString("resetchannels ")
		for _, c := range s.Channels {
			b.WriteString("&" + c + " ")
		}
	}
	b.WriteString(s.CommandRules())
	return b.String()
}

// Describe is ACLDescribeUser: u's rules as ACL LIST and ACL SAVE write
// them.
func (u *User) Describe() string {
	if u.desc != "" {
		return u.desc
	}
	var b strings.Builder
	for _, n := range u.FlagNames() {
		b.WriteString(n + " ")
	}
	for _, p := range u.Passwords {
		b.WriteString("#" + p + " ")
	}
	for _, s := range u.Selectors {
		if s.root {
			b.WriteString(s.describe())
		} else {
			b.WriteString(" (" + s.describe() + ")")
		}
	}
	u.desc = b.String()
	return u.desc
}
