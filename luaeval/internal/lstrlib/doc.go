// Package lstrlib is Lua 5.1's pattern matcher and string.format, ported
// from the lstrlib.c that Redis ships (deps/lua/src/lstrlib.c, Lua 5.1.5),
// so that patterns and formats in minilock's scripts behave byte for byte
// as they do in redis-server.
//
// It knows nothing of gopher-lua: subjects, patterns and replacements are
// Go strings, and what lstrlib.c raises with luaL_error comes back as an
// Error holding the same message (the caller adds the position, as
// luaL_error does). The string table scripts see, which turns Lua
// arguments into these calls, is its subpackage strlib.
//
// Where it differs from the C, on purpose:
//
//   - Lua 5.1's match() recurses in C once per pattern item that can
//     backtrack ('?', '*', '+', '-', captures). Redis's main thread has an
//     8 MiB stack and dies of a segmentation fault past about 175,000 such
//     nested items (string.rep('a?', 175000) against as many 'a's). Here the
//     recursion is an explicit stack of frames on the heap, bounded by
//     MaxDepth (above Redis's crash point, so every pattern Redis answers is
//     answered the same), past which the match fails with "pattern too
//     complex" (Lua 5.2's message for its own bound). The frames are
//     charged to the script's memory before they are allocated.
//   - Every loop polls Env.Stopped, so a script stopped with SCRIPT KILL
//     leaves an exponential pattern within milliseconds (Redis's own hook
//     cannot interrupt C code, so there such a script cannot be killed).
//   - Output buffers are charged to Env.Alloc before they grow.
package lstrlib
