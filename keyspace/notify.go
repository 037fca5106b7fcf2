package keyspace

import (
	"errors"
	"unsafe"
)

// Keyspace notifications (notify.c). Every command reports what it did to
// a key with k.notify, at the very point where Redis 7.0 calls
// notifyKeyspaceEvent, with the same event name; the server turns each
// report into messages on the __keyspace@<db>__ and __keyevent@<db>__
// channels. With notifications off (the default) a report costs one test
// of a bit.

// NotifyClass is a set of notification classes: server.h's NOTIFY_* bits,
// the letters of notify-keyspace-events.
type NotifyClass uint32

// The classes, with their letter in notify-keyspace-events.
const (
	NotifyKeyspace NotifyClass = 1 << 0  // K: publish on __keyspace@<db>__:<key>
	NotifyKeyevent NotifyClass = 1 << 1  // E: publish on __keyevent@<db>__:<event>
	NotifyGeneric  NotifyClass = 1 << 2  // g: DEL, EXPIRE, RENAME ...
	NotifyString   NotifyClass = 1 << 3  // $
	NotifyList     NotifyClass = 1 << 4  // l
	NotifySet      NotifyClass = 1 << 5  // s
	NotifyHash     NotifyClass = 1 << 6  // h
	NotifyZSet     NotifyClass = 1 << 7  // z
	NotifyExpired  NotifyClass = 1 << 8  // x: a key removed at its deadline
	NotifyEvicted  NotifyClass = 1 << 9  // e: never sent (minilock does not evict)
	NotifyStream   NotifyClass = 1 << 10 // t: XADD, XTRIM, XDEL, XGROUP ...
	NotifyKeyMiss  NotifyClass = 1 << 11 // m: a read of a missing key; not in A
	NotifyModule   NotifyClass = 1 << 13 // d: never sent (no modules)
	NotifyNew      NotifyClass = 1 << 14 // n: a key created; not in A

	// NotifyAll is the letter A: every class of events but m and n.
	NotifyAll = NotifyGeneric | NotifyString | NotifyList | NotifySet | NotifyHash |
		NotifyZSet | NotifyExpired | NotifyEvicted | NotifyStream | NotifyModule
)

// ErrNotifyFlags is returned by ParseNotifyFlags for a letter that names no
// class. Its text is config.c's.
var ErrNotifyFlags = errors.New("Invalid event class character. Use 'Ag$lshzxeKEtmdn'.")

// ParseNotifyFlags reads a notify-keyspace-events value, as
// notify.c:keyspaceEventsStringToFlags: any letters, in any order, repeated
// or not; the empty string turns notifications off.
func ParseNotifyFlags(s string) (NotifyClass, error) {
	var f NotifyClass
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case 'A':
			f |= NotifyAll
		case 'g':
			f |= NotifyGeneric
		case '$':
			f |= NotifyString
		case 'l':
			f |= NotifyList
		case 's':
			f |= NotifySet
		case 'h':
			f |= NotifyHash
		case 'z':
			f |= NotifyZSet
		case 'x':
			f |= NotifyExpired
		case 'e':
			f |= NotifyEvicted
		case 'K':
			f |= NotifyKeyspace
		case 'E':
			f |= NotifyKeyevent
		case 't':
			f |= NotifyStream
		case 'm':
			f |= NotifyKeyMiss
		case 'd':
			f |= NotifyModule
		case 'n':
			f |= NotifyNew
		default:
			return 0, ErrNotifyFlags
		}
	}
	return f, nil
}

// String writes f as CONFIG GET shows it
// (notify.c:keyspaceEventsFlagsToString): A when every class of A is set,
// else the classes one by one, then K, E and m.
func (f NotifyClass) String() string {
	var b []byte
	if f&NotifyAll == NotifyAll {
		b = append(b, 'A')
	} else {
		for _, c := range [...]struct {
			bit    NotifyClass
			letter byte
		}{
			{NotifyGeneric, 'g'}, {NotifyString, '$'}, {NotifyList, 'l'}, {NotifySet, 's'},
			{NotifyHash, 'h'}, {NotifyZSet, 'z'}, {NotifyExpired, 'x'}, {NotifyEvicted, 'e'},
			{NotifyStream, 't'}, {NotifyModule, 'd'}, {NotifyNew, 'n'},
		} {
			if f&c.bit != 0 {
				b = append(b, c.letter)
			}
		}
	}
	if f&NotifyKeyspace != 0 {
		b = append(b, 'K')
	}
	if f&NotifyKeyevent != 0 {
		b = append(b, 'E')
	}
	if f&NotifyKeyMiss != 0 {
		b = append(b, 'm')
	}
	return string(b)
}

// notifier is the keyspace's notification setting.
type notifier struct {
	// on holds the classes that are reported: those of the flags, or none
	// when the flags name no channel (neither K nor E), since Redis would
	// then publish nothing.
	on NotifyClass
	fn func(db int, event string, key []byte, class NotifyClass)
}

// SetNotify sets which classes of events are reported (notify-keyspace-
// events) and the function that receives them. fn runs on the owner
// goroutine, inside the command that caused the event; key is valid only
// until it returns. Owner goroutine only.
func (k *Keyspace) SetNotify(flags NotifyClass, fn func(db int, event string, key []byte, class NotifyClass)) {
	on := flags
	if fn == nil || flags&(NotifyKeyspace|NotifyKeyevent) == 0 {
		on = 0
	}
	k.notifier = notifier{on: on, fn: fn}
}

// notify reports event of class on key in database dbi
// (notify.c:notifyKeyspaceEvent). Nothing happens, and nothing is
// allocated, unless the class is on.
func (k *Keyspace) notify(class NotifyClass, event string, key []byte, dbi int) {
	if k.notifier.on&class == 0 {
		return
	}
	k.notifier.fn(dbi, event, key, class)
}

// notifyString is notify for a key held as a string (an entry's own key
// bytes, which outlive the entry).
func (k *Keyspace) notifyString(class NotifyClass, event string, key string, dbi int) {
	if k.notifier.on&class == 0 {
		return
	}
	k.notifier.fn(dbi, event, unsafe.Slice(unsafe.StringData(key), len(key)), class)
}
