// Package acl is Redis 7.0's ACL users (acl.c): rules parsed as ACL SETUSER
// reads them, the rule strings ACL LIST and ACL GETUSER render, and the
// permission checks processCommand, EXEC and scripts make. It knows the
// commands only as the Table the server builds from its one command table;
// it never reads a socket or a key.
package acl

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"sort"
	"strings"

	"github.com/minilock/minilock/internal/cmdspec"
)

// Command is one command or subcommand as the ACL rules see it.
type Command struct {
	ID     int
	Name   string // full lower-case name: "get", "client|kill"
	Cats   cmdspec.ACL
	NoAuth bool // CMD_NO_AUTH: every user may run it
	// KeysOf and ChannelsOf find the keys and the channels a call names
	// (nil: it names none).
	KeysOf     func(dst []cmdspec.KeyRef, argv [][]byte) []cmdspec.KeyRef
	ChannelsOf func(argv [][]byte) []Channel
	Parent     *Command
	Subs       []*Command // sorted by name
	subs       map[string]*Command
}

// Table is every command Redis 7.0.15 has, so that rules name the same
// commands and categories count the same members as in Redis.
type Table struct {
	top   []*Command // sorted by name
	byTop map[string]*Command
	n     int // ids handed out; id n is the "future commands" bit
}

// NewTable builds a table from top-level commands (their Subs filled in).
func NewTable(cmds []*Command) *Table {
	t := &Table{byTop: map[string]*Command{}}
	sort.Slice(cmds, func(i, j int) bool { return cmds[i].Name < cmds[j].Name })
	for _, c := range cmds {
		c.ID = t.n
		t.n++
		t.top = append(t.top, c)
		t.byTop[c.Name] = c
		sort.Slice(c.Subs, func(i, j int) bool { return c.Subs[i].Name < c.Subs[j].Name })
		c.subs = map[string]*Command{}
		for _, s := range c.Subs {
			s.ID = t.n
			t.n++
			s.Parent = c
			c.subs[s.Name[strings.IndexByte(s.Name, '|')+1:]] = s
		}
	}
	return t
}

// Lookup finds "cmd" or "cmd|sub" (acl.c:ACLLookupCommand).
func (t *Table) Lookup(name string) *Command {
	name = strings.ToLower(name)
	top, sub, ok := strings.Cut(name, "|")
	c := t.byTop[top]
	if c == nil || !ok {
		return c
	}
	if c.subs == nil || strings.Contains(sub, "|") {
		return nil
	}
	return c.subs[sub]
}

// Walk calls f for every command, each container followed by its
// subcommands.
func (t *Table) Walk(f func(*Command)) {
	for _, c := range t.top {
		f(c)
		for _, s := range c.Subs {
			f(s)
		}
	}
}

func (t *Table) words() int { return (t.n + 1 + 63) / 64 }

// Category finds a category by name, case-insensitively; 0 if none.
func Category(name string) cmdspec.ACL {
	for _, n := range cmdspec.ACLNames {
		if strings.EqualFold(n.Name, name) {
			return n.Bit
		}
	}
	return 0
}

// Key permissions of a key pattern (%R~, %W~, %RW~ and ~).
const (
	PermRead  = 1
	PermWrite = 2
	PermAll   = PermRead | PermWrite
)

// KeyPattern is one ~ or %..~ rule.
type KeyPattern struct {
	Pattern string
	Perm    int
	pat     []byte // Pattern, for matching without a conversion each time
}

func (p KeyPattern) String() string {
	switch p.Perm {
	case PermRead:
		return "%R~" + p.Pattern
	case PermWrite:
		return "%W~" + p.Pattern
	}
	return "~" + p.Pattern
}

// Selector is a set of command, key and channel permissions: a user's root
// one and those of its "(...)" selectors.
type Selector struct {
	root                              bool
	allKeys, allChannels, allCommands bool
	allowed                           []uint64
	firstArgs                         map[int][]string
	Keys                              []KeyPattern
	Channels                          []string
	t                                 *Table
}

func newSelector(t *Table, root bool) *Selector {
	return &Selector{t: t, root: root, allowed: make([]uint64, t.words())}
}

func (s *Selector) clone() *Selector {
	d := *s
	d.allowed = append([]uint64(nil), s.allowed...)
	d.Keys = append([]KeyPattern(nil), s.Keys...)
	d.Channels = append([]string(nil), s.Channels...)
	if s.firstArgs != nil {
		d.firstArgs = map[int][]string{}
		for k, v := range s.firstArgs {
			d.firstArgs[k] = append([]string(nil), v...)
		}
	}
	return &d
}

func (s *Selector) bit(id int) bool { return s.allowed[id/64]&(1<<(id%64)) != 0 }

func (s *Selector) setBit(id int, v bool) {
	if v {
		s.allowed[id/64] |= 1 << (id % 64)
	} else {
		s.allowed[id/64] &^= 1 << (id % 64)
		s.allCommands = false
	}
}

// change is ACLChangeSelectorPerm: the command and all its subcommands.
func (s *Selector) change(c *Command, allow bool) {
	s.setBit(c.ID, allow)
	delete(s.firstArgs, c.ID)
	for _, sub := range c.Subs {
		s.setBit(sub.ID, allow)
	}
}

func (s *Selector) category(cat cmdspec.ACL, allow bool) {
	s.t.Walk(func(c *Command) {
		if c.Cats&cat != 0 {
			s.change(c, allow)
		}
	})
}

// Errors of rule parsing (acl.c:ACLSetUserStringError).
var (
	ErrUnknown     = errors.New("Unknown command or category name in ACL")
	ErrSyntax      = errors.New("Syntax error")
	ErrAllKeys     = errors.New("Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' to start with an empty list of patterns")
	ErrAllChans    = errors.New("Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not have any effect. Try 'resetchannels' to start with an empty list of channels")
	ErrNoPass      = errors.New("The password you are trying to remove from the user does not exist")
	ErrBadHash     = errors.New("The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters")
	ErrFirstArg    = errors.New("Allowing first-arg of a subcommand is not supported")
	ErrWrongFormat = errors.New("Wrong format")
)

func hasSpaces(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\n', '\v', '\f', '\r', 0:
			return true
		}
	}
	return false
}

// Apply is ACLSetSelector: one rule applied to s.
func (s *Selector) Apply(op string) error {
	switch {
	case strings.EqualFold(op, "allkeys") || op == "~*":
		s.allKeys, s.Keys = true, nil
	case strings.EqualFold(op, "resetkeys"):
		s.allKeys, s.Keys = false, nil
	case strings.EqualFold(op, "allchannels") || op == "&*":
		s.allChannels, s.Channels = true, nil
	case strings.EqualFold(op, "resetchannels"):
		s.allChannels, s.Channels = false, nil
	case strings.EqualFold(op, "allcommands") || strings.EqualFold(op, "+@all"):
		for i := range s.allowed {
			s.allowed[i] = ^uint64(0)
		}
		s.allCommands, s.firstArgs = true, nil
	case strings.EqualFold(op, "nocommands") || strings.EqualFold(op, "-@all"):
		clear(s.allowed)
		s.allCommands, s.firstArgs = false, nil
	case op != "" && (op[0] == '~' || op[0] == '%'):
		if s.allKeys {
			return ErrAllKeys
		}
		perm, off := 0, 1
		if op[0] == '%' {
			for ; off < len(op); off++ {
				ch := op[off]
				if ch == 'R' || ch == 'r' {
					if perm&PermRead != 0 {
						return ErrSyntax
					}
					perm |= PermRead
				} else if ch == 'W' || ch == 'w' {
					if perm&PermWrite != 0 {
						return ErrSyntax
					}
					perm |= PermWrite
				} else if ch == '~' {
					off++
					break
				} else {
					return ErrSyntax
				}
			}
		} else {
			perm = PermAll
		}
		pat := op[off:]
		if hasSpaces(pat) {
			return ErrSyntax
		}
		found := false
		for i := range s.Keys {
			if s.Keys[i].Pattern == pat {
				s.Keys[i].Perm |= perm
				found = true
			}
		}
		if !found {
			s.Keys = append(s.Keys, KeyPattern{pat, perm, []byte(pat)})
		}
		s.allKeys = false
	case op != "" && op[0] == '&':
		if s.allChannels {
			return ErrAllChans
		}
		if hasSpaces(op[1:]) {
			return ErrSyntax
		}
		found := false
		for _, c := range s.Channels {
			found = found || c == op[1:]
		}
		if !found {
			s.Channels = append(s.Channels, op[1:])
		}
		s.allChannels = false
	case len(op) >= 1 && op[0] == '+' && (len(op) < 2 || op[1] != '@'):
		name := op[1:]
		i := strings.LastIndexByte(name, '|')
		if i < 0 {
			c := s.t.Lookup(name)
			if c == nil {
				return ErrUnknown
			}
			s.change(c, true)
			return nil
		}
		c := s.t.Lookup(name[:i])
		switch {
		case c == nil:
			return ErrUnknown
		case c.Parent != nil:
			return ErrFirstArg
		case i == len(name)-1:
			return ErrSyntax
		}
		if c.Subs != nil {
			sub := s.t.Lookup(name)
			if sub == nil {
				return ErrUnknown
			}
			s.change(sub, true)
			return nil
		}
		// A first argument allowed for a command without subcommands
		// (deprecated in Redis, still honoured).
		if s.firstArgs == nil {
			s.firstArgs = map[int][]string{}
		}
		arg := name[i+1:]
		for _, a := range s.firstArgs[c.ID] {
			if strings.EqualFold(a, arg) {
				return nil
			}
		}
		s.firstArgs[c.ID] = append(s.firstArgs[c.ID], arg)
	case len(op) >= 1 && op[0] == '-' && (len(op) < 2 || op[1] != '@'):
		c := s.t.Lookup(op[1:])
		if c == nil {
			return ErrUnknown
		}
		s.change(c, false)
	case len(op) >= 2 && (op[0] == '+' || op[0] == '-') && op[1] == '@':
		cat := Category(op[2:])
		if cat == 0 {
			return ErrUnknown
		}
		s.category(cat, op[0] == '+')
	default:
		return ErrSyntax
	}
	return nil
}

// User flags, in the order ACL LIST and GETUSER show them.
const (
	FlagOn = 1 << iota
	FlagOff
	FlagNoPass
	FlagSkipSanitize
	FlagSanitize
)

var flagNames = []struct {
	f    int
	name string
}{{FlagOn, "on"}, {FlagOff, "off"}, {FlagNoPass, "nopass"}, {FlagSkipSanitize, "skip-sanitize-payload"}, {FlagSanitize, "sanitize-payload"}}

// User is one ACL user.
type User struct {
	Name      string
	Flags     int
	Passwords []string // SHA-256 hex
	Selectors []*Selector
	t         *Table
	desc      string // cached ACLDescribeUser
	// Unrestricted: the root selector allows every command, key and
	// channel, so no check needs to run (the default user's fast path).
	Unrestricted bool
}

// NewUser is ACLCreateUser: off, no passwords, no permissions.
func NewUser(t *Table, name string) *User {
	return &User{Name: name, Flags: FlagOff, t: t, Selectors: []*Selector{newSelector(t, true)}}
}

// NewDefault is ACLCreateDefaultUser.
func NewDefault(t *Table) *User {
	u := NewUser(t, "default")
	for _, r := range []string{"+@all", "~*", "&*", "on", "nopass"} {
		_ = u.Set(r)
	}
	return u
}

// Clone copies u (ACLCopyUser into an unlinked user).
func (u *User) Clone() *User {
	d := *u
	d.Passwords = append([]string(nil), u.Passwords...)
	d.Selectors = make([]*Selector, len(u.Selectors))
	for i, s := range u.Selectors {
		d.Selectors[i] = s.clone()
	}
	return &d
}

// CopyFrom makes u what src is, keeping u's name and identity (the
// clients pointing at u see the change).
func (u *User) CopyFrom(src *User) {
	c := src.Clone()
	u.Flags, u.Passwords, u.Selectors, u.desc, u.Unrestricted = c.Flags, c.Passwords, c.Selectors, "", c.Unrestricted
	u.refresh()
}

func (u *User) refresh() {
	r := u.Selectors[0]
	u.Unrestricted = r.allCommands && r.allKeys && r.allChannels
	u.desc = ""
}

// Root is the user's root selector.
func (u *User) Root() *Selector { return u.Selectors[0] }

// Hash is ACLHashPassword.
func Hash(pw string) string {
	h := sha256.Sum256([]byte(pw))
	return hex.EncodeToString(h[:])
}

func validHash(h string) bool {
	if len(h) != 64 {
		return false
	}
	for i := 0; i < len(h); i++ {
		if c := h[i]; (c < 'a' || c > 'f') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// Set is ACLSetUser: one rule applied to u.
func (u *User) Set(op string) error {
	defer u.refresh()
	if op == "" {
		return nil
	}
	switch {
	case strings.EqualFold(op, "on"):
		u.Flags = u.Flags&^FlagOff | FlagOn
	case strings.EqualFold(op, "off"):
		u.Flags = u.Flags&^FlagOn | FlagOff
	case strings.EqualFold(op, "skip-sanitize-payload"):
		u.Flags = u.Flags&^FlagSanitize | FlagSkipSanitize
	case strings.EqualFold(op, "sanitize-payload"):
		u.Flags = u.Flags&^FlagSkipSanitize | FlagSanitize
	case strings.EqualFold(op, "nopass"):
		u.Flags |= FlagNoPass
		u.Passwords = nil
	case strings.EqualFold(op, "resetpass"):
		u.Flags &^= FlagNoPass
		u.Passwords = nil
	case op[0] == '>' || op[0] == '#':
		h := op[1:]
		if op[0] == '>' {
			h = Hash(h)
		} else if !validHash(h) {
			return ErrBadHash
		}
		found := false
		for _, p := range u.Passwords {
			found = found || p == h
		}
		if !found {
			u.Passwords = append(u.Passwords, h)
		}
		u.Flags &^= FlagNoPass
	case op[0] == '<' || op[0] == '!':
		h := op[1:]
		if op[0] == '<' {
			h = Hash(h)
		} else if !validHash(h) {
			return ErrBadHash
		}
		for i, p := range u.Passwords {
			if p == h {
				u.Passwords = append(u.Passwords[:i:i], u.Passwords[i+1:]...)
				return nil
			}
		}
		return ErrNoPass
	case op[0] == '(' && op[len(op)-1] == ')':
		s := newSelector(u.t, false)
		for _, r := range splitArgs(op[1 : len(op)-1]) {
			if err := s.Apply(r); err != nil {
				return err
			}
		}
		u.Selectors = append(u.Selectors, s)
	case strings.EqualFold(op, "clearselectors"):
		u.Selectors = u.Selectors[:1]
	case strings.EqualFold(op, "reset"):
		for _, r := range []string{"resetpass", "resetkeys", "resetchannels", "off", "sanitize-payload", "clearselectors", "-@all"} {
			_ = u.Set(r)
		}
	default:
		return u.Selectors[0].Apply(op)
	}
	return nil
}

// splitArgs splits a selector's inside on spaces, as sdssplitargs does
// for the unquoted rules Redis accepts there.
func splitArgs(s string) []string { return strings.Fields(s) }

// MergeSelectors is ACLMergeSelectorArguments: "(" ... ")" spread over
// several arguments become one. bad is the index of an unterminated "(".
func MergeSelectors(args []string) (merged []string, bad int, ok bool) {
	open := -1
	var sel string
	for j, op := range args {
		if open < 0 && op != "" && op[0] == '(' && op[len(op)-1] != ')' {
			sel, open = op, j
			continue
		}
		if open >= 0 {
			sel += " " + op
			if op != "" && op[len(op)-1] == ')' {
				open = -1
				merged = append(merged, sel)
			}
			continue
		}
		merged = append(merged, op)
	}
	if open >= 0 {
		return nil, open, false
	}
	return merged, 0, true
}

// CheckPassword is ACLCheckUserCredentials for an existing user.
func (u *User) CheckPassword(pw []byte) bool {
	if u.Flags&FlagOff != 0 {
		return false
	}
	if u.Flags&FlagNoPass != 0 {
		return true
	}
	h := sha256.Sum256(pw)
	var hx [64]byte
	hex.Encode(hx[:], h[:])
	ok := false
	for _, p := range u.Passwords {
		// Every password compared in full: the time taken tells nothing.
		diff := byte(0)
		for i := 0; i < 64 && i < len(p); i++ {
			diff |= p[i] ^ hx[i]
		}
		ok = ok || diff == 0
	}
	return ok
}

// FlagNames are u's flags as GETUSER lists them.
func (u *User) FlagNames() []string {
	var out []string
	for _, f := range flagNames {
		if u.Flags&f.f != 0 {
			out = append(out, f.name)
		}
	}
	return out
}
