// Package cmdspec is the typed shape of Redis 7.0's command metadata: what
// COMMAND INFO and COMMAND DOCS say of a command (arity, flags, ACL
// categories, key specs, tips, docs, subcommands), and the code that writes
// those replies and finds a command's keys from its key specs.
//
// The values come from internal/gencommands, which reads them off a real
// redis-server 7.0.15 into server/commandspec_gen.go; it checks, before it
// writes anything, that Info and Docs give back Redis's replies byte for
// byte in RESP2 and RESP3. Nothing here knows which commands minilock has.
package cmdspec

import "github.com/minilock/minilock/resp"

// Command is one command's metadata, or one subcommand's.
type Command struct {
	// Name is the full lower-case name: "get", "client|id".
	Name string
	// Arity is N for exactly N arguments (the name included), -N for at
	// least N.
	Arity int
	Flags Flags
	// FirstKey, LastKey and KeyStep are COMMAND INFO's legacy key range
	// (Redis derives them from the first key specs).
	FirstKey, LastKey, KeyStep int
	ACL                        ACL
	Tips                       []string
	KeySpecs                   []KeySpec
	// Subcommands are all Redis's subcommands of a container, sorted by
	// name (Redis lists them in its hash table's order, seeded at random
	// when it starts); nil for a command that is not a container.
	Subcommands []*Command
	Docs
}

// Docs is what COMMAND DOCS says of a command, beside its subcommands.
// An empty string, or a nil slice, is a field Redis leaves out.
type Docs struct {
	Summary, Since, Group, Complexity string
	DocFlags                          DocFlags
	DeprecatedSince, ReplacedBy       string
	History                           []History
	Args                              []Arg
}

// History is one change to a command: the version and what changed.
type History struct{ Since, Changes string }

// Arg is one argument of a command's docs.
type Arg struct {
	Name string
	Type ArgType
	// KeySpec is the index of the key spec an argument of Type ArgKey
	// belongs to (Redis gives every key argument one). Another argument
	// has one only when KeySpec > 0: SORT's BY and GET patterns, which
	// name keys, point to its key spec 1.
	KeySpec                                int
	Token, Summary, Since, DeprecatedSince string
	Flags                                  ArgFlags
	// Args are the choices of a oneof, the parts of a block.
	Args []Arg
}

// KeySpec is one key spec: where the keys begin (BeginSearch) and how many
// follow (FindKeys), as db.c's getKeysUsingKeySpecs reads them.
type KeySpec struct {
	Notes string
	Flags KeyFlags
	// BeginSearch is BeginIndex (the keys begin at Index), BeginKeyword
	// (after Keyword, searched from StartFrom; backwards when StartFrom is
	// negative) or BeginUnknown.
	BeginSearch BeginSearch
	Index       int
	Keyword     string
	StartFrom   int
	// FindKeys is FindRange (LastKey relative to the first key, or from
	// the end when negative; every KeyStep-th argument; Limit splits what
	// remains), FindKeynum (the count is at KeyNumIdx after the first,
	// keys start FirstKey after it) or FindUnknown.
	FindKeys                FindKeys
	LastKey, KeyStep, Limit int
	KeyNumIdx, FirstKey     int
}

// BeginSearch is how a key spec finds its first key.
type BeginSearch uint8

const (
	BeginUnknown BeginSearch = iota
	BeginIndex
	BeginKeyword
)

// FindKeys is how a key spec finds the keys after the first.
type FindKeys uint8

const (
	FindUnknown FindKeys = iota
	FindRange
	FindKeynum
)

// Flags are a command's flags (server.h's CMD_*).
type Flags uint32

const (
	Write Flags = 1 << iota
	ReadOnly
	DenyOOM
	Module
	Admin
	PubSub
	NoScript
	Blocking
	Loading
	Stale
	SkipMonitor
	SkipSlowlog
	Asking
	Fast
	NoAuth
	NoMandatoryKeys
	NoAsyncLoading
	NoMulti
	MovableKeys
	AllowBusy
	// MayReplicate: the command may write through what it runs (EVAL,
	// FCALL) or publishes. Redis hides it from COMMAND INFO, so
	// FlagNames does not list it.
	MayReplicate
)

// Named pairs a flag with its name in Redis's replies.
type Named[T ~uint8 | ~uint32] struct {
	Bit  T
	Name string
}

// FlagNames are the command flags COMMAND INFO shows, in its order
// (server.c:addReplyFlagsForCommand).
var FlagNames = []Named[Flags]{
	{Write, "write"}, {ReadOnly, "readonly"}, {DenyOOM, "denyoom"}, {Module, "module"},
	{Admin, "admin"}, {PubSub, "pubsub"}, {NoScript, "noscript"}, {Blocking, "blocking"},
	{Loading, "loading"}, {Stale, "stale"}, {SkipMonitor, "skip_monitor"},
	{SkipSlowlog, "skip_slowlog"}, {Asking, "asking"}, {Fast, "fast"}, {NoAuth, "no_auth"},
	{NoMandatoryKeys, "no_mandatory_keys"}, {NoAsyncLoading, "no_async_loading"},
	{NoMulti, "no_multi"}, {MovableKeys, "movablekeys"}, {AllowBusy, "allow_busy"},
}

// ACL is a command's ACL categories.
type ACL uint32

const (
	ACLKeyspace ACL = 1 << iota
	ACLRead
	ACLWrite
	ACLSet
	ACLSortedSet
	ACLList
	ACLHash
	ACLString
	ACLBitmap
	ACLHyperLogLog
	ACLGeo
	ACLStream
	ACLPubSub
	ACLAdmin
	ACLFast
	ACLSlow
	ACLBlocking
	ACLDangerous
	ACLConnection
	ACLTransaction
	ACLScripting
)

// ACLNames are the ACL categories without their "@", in the order COMMAND
// INFO lists them (acl.c:ACLCommandCategories).
var ACLNames = []Named[ACL]{
	{ACLKeyspace, "keyspace"}, {ACLRead, "read"}, {ACLWrite, "write"}, {ACLSet, "set"},
	{ACLSortedSet, "sortedset"}, {ACLList, "list"}, {ACLHash, "hash"}, {ACLString, "string"},
	{ACLBitmap, "bitmap"}, {ACLHyperLogLog, "hyperloglog"}, {ACLGeo, "geo"},
	{ACLStream, "stream"}, {ACLPubSub, "pubsub"}, {ACLAdmin, "admin"}, {ACLFast, "fast"},
	{ACLSlow, "slow"}, {ACLBlocking, "blocking"}, {ACLDangerous, "dangerous"},
	{ACLConnection, "connection"}, {ACLTransaction, "transaction"}, {ACLScripting, "scripting"},
}

// KeyFlags are a key spec's flags.
type KeyFlags uint32

const (
	KeyRO KeyFlags = 1 << iota
	KeyRW
	KeyOW
	KeyRM
	KeyAccess
	KeyUpdate
	KeyInsert
	KeyDelete
	KeyNotKey
	KeyIncomplete
	KeyVariableFlags
)

// KeyFlagNames are the key spec flags in Redis's order
// (server.c:addReplyFlagsForKeyArgs).
var KeyFlagNames = []Named[KeyFlags]{
	{KeyRO, "RO"}, {KeyRW, "RW"}, {KeyOW, "OW"}, {KeyRM, "RM"}, {KeyAccess, "access"},
	{KeyUpdate, "update"}, {KeyInsert, "insert"}, {KeyDelete, "delete"},
	{KeyNotKey, "not_key"}, {KeyIncomplete, "incomplete"}, {KeyVariableFlags, "variable_flags"},
}

// DocFlags are a command's doc flags.
type DocFlags uint8

const (
	DocDeprecated DocFlags = 1 << iota
	DocSyscmd
)

// DocFlagNames are the doc flags in Redis's order.
var DocFlagNames = []Named[DocFlags]{{DocDeprecated, "deprecated"}, {DocSyscmd, "syscmd"}}

// ArgFlags are an argument's flags.
type ArgFlags uint8

const (
	ArgOptional ArgFlags = 1 << iota
	ArgMultiple
	ArgMultipleToken
)

// ArgFlagNames are the argument flags in Redis's order.
var ArgFlagNames = []Named[ArgFlags]{{ArgOptional, "optional"}, {ArgMultiple, "multiple"}, {ArgMultipleToken, "multiple_token"}}

// ArgType is an argument's type.
type ArgType uint8

const (
	ArgString ArgType = iota
	ArgInteger
	ArgDouble
	ArgKey
	ArgPattern
	ArgUnixTime
	ArgPureToken
	ArgOneOf
	ArgBlock
)

// ArgTypeNames are the argument types by value (server.c:ARG_TYPE_STR).
var ArgTypeNames = []Named[ArgType]{
	{ArgString, "string"}, {ArgInteger, "integer"}, {ArgDouble, "double"}, {ArgKey, "key"},
	{ArgPattern, "pattern"}, {ArgUnixTime, "unix-time"}, {ArgPureToken, "pure-token"},
	{ArgOneOf, "oneof"}, {ArgBlock, "block"},
}

// Lookup finds the bit named name in names.
func Lookup[T ~uint8 | ~uint32](names []Named[T], name string) (T, bool) {
	for _, n := range names {
		if n.Name == name {
			return n.Bit, true
		}
	}
	return 0, false
}

// writeFlags writes the names of the bits set in v, as a set
// (server.c:addReplyCommandFlags).
func writeFlags[T ~uint8 | ~uint32](w *resp.Writer, v T, names []Named[T], prefix string) {
	n := 0
	for _, f := range names {
		if v&f.Bit != 0 {
			n++
		}
	}
	w.Set(n)
	for _, f := range names {
		if v&f.Bit != 0 {
			w.Status(prefix + f.Name)
		}
	}
}

// WriteKeyFlags writes key spec flags as COMMAND GETKEYSANDFLAGS does.
func WriteKeyFlags(w *resp.Writer, f KeyFlags) { writeFlags(w, f, KeyFlagNames, "") }
