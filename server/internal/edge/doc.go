// Package edge is minilock's network edge and the goroutine that owns the
// data: what a Redis server does before and after a command runs. The
// frame guard parses every request byte once under Redis's limits
// (guard.go); the listeners accept; connections' output goes through
// their reply buffers, output queues and feeds; the goroutine edge
// (serve.go) reads and writes the sockets, and the owner (owner.go) runs
// the batches, timers and expiry. It knows nothing of commands or of the
// keyspace: the command layer (package server) implements Handler, gets
// each parsed batch to run and tells the owner what falls due, and the
// edge writes what comes back. internal/archtest keeps it from importing
// server, keyspace or luaeval.
package edge
