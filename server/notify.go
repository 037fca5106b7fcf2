package server

import (
	"strconv"

	"github.com/minilock/minilock/keyspace"
)

// Keyspace notifications (notify.c). The keyspace reports every event of
// an enabled class (keyspace.SetNotify) on the owner goroutine, inside the
// command that caused it; notifyEvent turns it into at most two PUBLISHes,
// also on the owner, before the command's reply is written:
//
//	__keyspace@<db>__:<key>    message: the event ("set", "del", "expired" ...)
//	__keyevent@<db>__:<event>  message: the key
//
// so a subscriber learns of a key's expiry at its deadline, when the owner
// removes it, and of a write in the order the writes ran. Which classes
// are on is notify-keyspace-events (config file, --notify-keyspace-events,
// CONFIG SET), default off; off, an event costs the command one test of a
// bit.

// notifyState is the server's side of the notifications. Owner goroutine
// only.
type notifyState struct {
	flags keyspace.NotifyClass
	// buf and event hold the channel and the event being published;
	// reused, so a notification costs no allocation here.
	buf, event []byte
}

// setNotifyFlags applies a notify-keyspace-events value. Owner goroutine
// only.
func (s *Server) setNotifyFlags(f keyspace.NotifyClass) {
	s.notify.flags = f
	s.ks.SetNotify(f, s.notifyEvent)
}

// notifyEvent publishes one event as notify.c:notifyKeyspaceEvent does:
// on the keyspace channel first, then on the keyevent channel.
func (s *Server) notifyEvent(db int, event string, key []byte, _ keyspace.NotifyClass) {
	n := &s.notify
	n.event = append(n.event[:0], event...)
	ev := n.event
	if n.flags&keyspace.NotifyKeyspace != 0 {
		n.buf = append(n.buf[:0], "__keyspace@"...)
		n.buf = strconv.AppendInt(n.buf, int64(db), 10)
		n.buf = append(n.buf, "__:"...)
		n.buf = append(n.buf, key...)
		s.publish(n.buf, ev)
	}
	if n.flags&keyspace.NotifyKeyevent != 0 {
		n.buf = append(n.buf[:0], "__keyevent@"...)
		n.buf = strconv.AppendInt(n.buf, int64(db), 10)
		n.buf = append(n.buf, "__:"...)
		n.buf = append(n.buf, event...)
		s.publish(n.buf, key)
	}
}
