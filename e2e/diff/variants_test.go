package diff_test

import (
	"bytes"
	"slices"
	"strings"

	"github.com/minilock/minilock/internal/redistest"
)

// A variant sends a case's commands another way: under HELLO 3, each one
// inside MULTI/EXEC, or each one through redis.call or redis.pcall from a
// script (RESP2 or redis.setresp(3), for a RESP2 or a RESP3 client). The
// data-type tables and the random generators are written once as plain
// commands; their variants check the same commands on every path a
// client or a lock script takes to them, with the reply conversions each
// path applies (Lua's, RESP3's), against redis-server.
type variant struct {
	name   string
	resp3  bool   // the connection says HELLO 3 first
	multi  bool   // each command is sent as MULTI, the command, EXEC
	script string // each command is sent as EVAL script 0 command...
}

// The scripts the Lua variants run: the command is ARGV, so the script's
// body, and its SHA, are the same for every command.
const (
	viaCall       = "return redis.call(unpack(ARGV))"
	viaPcall      = "return redis.pcall(unpack(ARGV))"
	viaPcallResp3 = "redis.setresp(3) return redis.pcall(unpack(ARGV))"
)

var variants = []variant{
	{name: "resp3", resp3: true},
	{name: "multi", multi: true},
	{name: "multi resp3", resp3: true, multi: true},
	{name: "redis.call", script: viaCall},
	{name: "redis.pcall", script: viaPcall},
	{name: "redis.pcall resp3", resp3: true, script: viaPcall},
	// redis.setresp(3) turns maps and sets into Lua tables and back, in
	// the order Lua 5.1's table iterates (luaeval/internal/seam/table.go).
	{name: "setresp(3)", script: viaPcallResp3},
	{name: "setresp(3) resp3", resp3: true, script: viaPcallResp3},
}

// wrap returns the step that sends st's command the variant's way.
func (v variant) wrap(st step) step {
	switch {
	case v.multi:
		st.label = "in MULTI " + st.label
		st.send = slices.Concat(redistest.Encode("MULTI"), st.send, redistest.Encode("EXEC"))
		st.replies = 3
		if st.norm != nil {
			st.norm = inExec(st.norm)
		}
	case v.script != "":
		st.label = "via " + v.name + " " + st.label
		st.send = redistest.Encode(append([]string{"EVAL", v.script, "0"}, st.args...)...)
	}
	return st
}

// queuedHead is what MULTI, the queued command and EXEC's one-element
// array send before the command's own reply.
const queuedHead = "+OK\r\n+QUEUED\r\n*1\r\n"

// inExec applies n to the command's own reply inside EXEC's; a queueing
// error or EXECABORT is compared as it is.
func inExec(n *normalizer) *normalizer {
	return &normalizer{n.name + " (in EXEC)", func(b []byte) ([]byte, bool) {
		inner, ok := bytes.CutPrefix(b, []byte(queuedHead))
		if !ok {
			return nil, false
		}
		norm, ok := n.f(inner)
		if !ok {
			return nil, false
		}
		return append([]byte(queuedHead), norm...), true
	}}
}

// notWrapped are commands that are steps of their own in any variant:
// they change the connection or the transaction, or are scripts already.
var notWrapped = map[string]bool{
	"MULTI": true, "EXEC": true, "DISCARD": true, "WATCH": true, "UNWATCH": true,
	"EVAL": true, "EVALSHA": true, "EVAL_RO": true, "EVALSHA_RO": true, "SCRIPT": true,
	"HELLO": true, "SELECT": true, "AUTH": true, "RESET": true, "QUIT": true,
	"CLIENT": true, "MONITOR": true, "SUBSCRIBE": true, "PSUBSCRIBE": true,
	"CONFIG": true, "DEBUG": true, "FLUSHALL": true, "FLUSHDB": true, "SWAPDB": true,
}

// via returns dc sent the variant's way, and false when dc cannot be: it
// uses several connections, raw bytes, SCAN iterations or pauses, or
// commands that only make sense as steps of their own.
func (dc diffCase) via(v variant) (diffCase, bool) {
	out := diffCase{name: dc.name + " via " + v.name, auth: dc.auth}
	if v.resp3 {
		out.steps = append(out.steps, cmd("HELLO", "3").with(helloID))
	}
	for _, st := range dc.steps {
		if st.args == nil || st.conn != 0 || st.scan != nil || st.pause != 0 ||
			st.mode != readReplies || st.replies != 1 || notWrapped[strings.ToUpper(st.args[0])] {
			return diffCase{}, false
		}
		out.steps = append(out.steps, v.wrap(st))
	}
	return out, true
}

// allVia returns every case of cases sent every variant's way it can be.
func allVia(cases []diffCase) []diffCase {
	var out []diffCase
	for _, v := range variants {
		for _, dc := range cases {
			if w, ok := dc.via(v); ok {
				out = append(out, w)
			}
		}
	}
	return out
}
