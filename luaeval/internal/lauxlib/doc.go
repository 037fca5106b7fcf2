// Package lauxlib is what every Lua library port in minilock shares, as
// Lua 5.1's lauxlib.c is for the C libraries: argument checks with Lua 5.1's
// exact messages, Lua's number <-> string conversions ("%.14g" and strtod),
// and the running script's budget (how much a library may allocate, and
// whether the script has been stopped).
//
// It uses only gopher-lua's exported API and imports nothing of minilock's,
// so every library package (string, table, cjson, cmsgpack ...) and the
// engine can use it.
package lauxlib
