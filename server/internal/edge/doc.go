// Package edge is minilock's network edge: the frame guard that parses
// every request byte once under Redis's limits (guard.go), the listeners,
// connections' output queues and feeds, and the loops that read and write
// the sockets. It knows nothing of commands: it hands each parsed batch to
// the command layer (package server) and writes what comes back.
// internal/archtest keeps it from importing server, keyspace or luaeval.
package edge
