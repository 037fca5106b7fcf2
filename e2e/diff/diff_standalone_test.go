package diff_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/minilock/minilock/internal/redistest"
)

// What a standalone node answers about replication, cluster mode and
// modules: WAIT, ROLE, CLUSTER, READONLY, READWRITE, REPLICAOF, SLAVEOF,
// FAILOVER, MODULE, LOLWUT, and the HELP texts of COMMAND, CONFIG and
// MEMORY. REPLICAOF with a host and a valid port is left out: Redis
// becomes a replica, minilock refuses (docs/commands.md).
var standaloneCases = []diffCase{
	tc("wait", c("WAIT 0 0"), c("WAIT -1 0"), c("WAIT 0 100"), c("WAIT x 0"), c("WAIT 0 x"), c("WAIT 0 -1"), c("WAIT 1 -1"),
		c("WAIT 0 1.5"), c("WAIT 0 01"), c("WAIT 1 20"), c("WAIT 3 1"), c("WAIT"), c("WAIT 1")),
	tc("wait parked until its timeout", parkOn(1, "WAIT 1 200"), c("SET k v"), recv(1, 1), c("GET k")),
	tc("wait in multi", c("MULTI"), c("WAIT 1 0"), c("WAIT 5 100"), c("EXEC")),
	tc("wait in scripts", cmd("EVAL", "return redis.pcall('wait','0','0')", "0"), cmd("EVAL", "return redis.call('role')", "0")),
	tc("role", c("ROLE"), c("ROLE x"), c("role"), c("HELLO 3").with(helloID), c("ROLE")),
	tc("cluster", c("CLUSTER"), c("CLUSTER INFO"), c("CLUSTER HELP"), c("CLUSTER foo"), c("cluster Nodes"), c("CLUSTER KEYSLOT"),
		c("CLUSTER KEYSLOT a"), c("CLUSTER SLOTS x"), c("MULTI"), c("CLUSTER INFO"), c("EXEC"),
		cmd("EVAL", "return redis.pcall('cluster','info')", "0")),
	tc("readonly readwrite", c("READONLY"), c("READWRITE"), c("READONLY x"), c("READWRITE x"), c("MULTI"), c("READONLY"), c("EXEC"),
		cmd("EVAL", "return redis.pcall('readonly')", "0"), c("GET k")),
	tc("replicaof no one", c("REPLICAOF NO ONE"), c("SLAVEOF no one"), c("replicaof No One"), cmd("REPLICAOF", "NO\x00x", "ONE"),
		c("ROLE"), c("REPLICAOF NO"), c("REPLICAOF NO ONE X"), cmd("EVAL", "return redis.pcall('replicaof','no','one')", "0")),
	tc("replicaof bad port", c("REPLICAOF NO TWO"), c("REPLICAOF 127.0.0.1 x"), c("REPLICAOF 127.0.0.1 65536"),
		c("REPLICAOF 127.0.0.1 -1"), c("SLAVEOF h 99999999999999999999"), cmd("REPLICAOF", "h", ""), c("ROLE")),
	tc("failover", c("FAILOVER"), c("FAILOVER ABORT"), c("failover abort"), c("FAILOVER ABORT TIMEOUT 5"), c("FAILOVER TIMEOUT 5"),
		c("FAILOVER TIMEOUT 0"), c("FAILOVER TIMEOUT -1"), c("FAILOVER TIMEOUT x"), c("FAILOVER TIMEOUT 5 TIMEOUT 6"),
		c("FAILOVER TO h 1"), c("FAILOVER TO h x"), c("FAILOVER TO h"), c("FAILOVER FORCE"), c("FAILOVER FORCE FORCE"),
		c("FAILOVER TO h 1 TO h 2"), c("FAILOVER TO h 1 FORCE TIMEOUT 5"), c("FAILOVER foo"), c("FAILOVER TIMEOUT")),
	tc("module", c("MODULE LIST"), c("MODULE HELP"), c("MODULE LOAD /x"), c("MODULE LOAD"), c("MODULE LOADEX /x"),
		c("MODULE UNLOAD x"), c("MODULE UNLOAD"), c("MODULE foo"), c("MODULE"), c("MODULE LIST x"), c("MULTI"), c("MODULE LOAD /x"),
		c("MODULE LIST"), c("EXEC"), cmd("EVAL", "return redis.pcall('module','list')", "0")),
	tc("lolwut", c("LOLWUT"), c("LOLWUT VERSION x"), c("LOLWUT VERSION 7"), c("LOLWUT VERSION 4"), c("LOLWUT VERSION 59"),
		c("LOLWUT foo"), c("LOLWUT VERSION"), c("HELLO 3").with(helloID), c("LOLWUT"), cmd("EVAL", "return redis.call('lolwut')", "0")),
	// Schotter's first two rows of squares are not random: with at most
	// two, Redis's art is the same every time.
	tc("lolwut 5 exact", c("LOLWUT VERSION 5 66 8 2"), c("LOLWUT VERSION 5 66 8 1"), c("LOLWUT VERSION 5 10 3 2"),
		c("LOLWUT VERSION 5 1 1 1"), c("LOLWUT VERSION 5 1000 200 2"), c("LOLWUT VERSION 5 0 -5 0"), c("LOLWUT VERSION 4294967301 33 4 2"),
		c("LOLWUT VERSION 5 x"), c("LOLWUT VERSION 5 1 x"), c("LOLWUT VERSION 5 1 1 x"), c("LOLWUT VERSION 6 x"), c("LOLWUT VERSION 6 1 y"),
		c("HELLO 3").with(helloID), c("LOLWUT VERSION 5 40 4 2")),
	tc("lolwut random art", c("LOLWUT VERSION 5").with(artShape), c("LOLWUT VERSION 5 80 10 30").with(artShape),
		c("LOLWUT VERSION 6").with(artShape), c("LOLWUT VERSION 6 1 1").with(artShape), c("LOLWUT VERSION 6 200 50").with(artShape),
		c("LOLWUT VERSION 56 3").with(artShape)),
	tc("help texts", c("COMMAND HELP"), c("CONFIG HELP"), c("MEMORY HELP"), c("MODULE HELP"), c("COMMAND HELP x"),
		c("CONFIG HELP x"), c("MEMORY MALLOC-STATS x")),
}

// artShape masks LOLWUT's random art to its shape: the number of lines,
// the lines of text under it, and the length when it does not depend on the colours
// drawn (braille art; a skyline's escape sequences differ in length).
var artShape = &normalizer{"LOLWUT art masked to its shape", func(b []byte) ([]byte, bool) {
	head, body, ok := bytes.Cut(b, []byte("\r\n"))
	if !ok || len(head) == 0 || (head[0] != '$' && head[0] != '=') {
		return b, true
	}
	body = bytes.TrimSuffix(body, []byte("\r\n"))
	lines := bytes.Split(body, []byte("\n"))
	var text [][]byte // the lines that are not art: braille or colours
	for _, l := range lines {
		if !bytes.ContainsRune(l, '\033') && !bytes.HasPrefix(l, []byte{0xe2}) { // braille: U+28xx
			text = append(text, l)
		}
	}
	shape := fmt.Sprintf("%c %d lines, text %q", head[0], len(lines), bytes.Join(text, []byte("|")))
	if !bytes.ContainsRune(body, '\033') {
		shape += fmt.Sprintf(", %d bytes", len(body))
	}
	return []byte(shape), true
}}

// clusterArityCases send each CLUSTER subcommand with no to three
// arguments: Redis checks each one's arity, then refuses it.
func clusterArityCases() []diffCase {
	var steps []step
	for _, sub := range []string{"addslots", "addslotsrange", "bumpepoch", "count-failure-reports", "countkeysinslot",
		"delslots", "delslotsrange", "failover", "flushslots", "forget", "getkeysinslot", "help", "info", "keyslot",
		"links", "meet", "myid", "nodes", "replicas", "replicate", "reset", "saveconfig", "set-config-epoch",
		"setslot", "shards", "slaves", "slots"} {
		for n := range 4 {
			steps = append(steps, cmd(append([]string{"CLUSTER", strings.ToUpper(sub)}, []string{"1", "2", "3"}[:n]...)...))
		}
	}
	return []diffCase{tc("cluster subcommands", steps...)}
}

// TestDiffStandalone runs the standalone cases, plain and every variant's
// way where they can be, against redis-server.
func TestDiffStandalone(t *testing.T) {
	redistest.Require(t)
	groups := []caseGroup{
		{"standalone", append(standaloneCases, clusterArityCases()...)},
		{"standalone via", allVia(standaloneCases)},
	}
	checkCaseNames(t, groups)
	p := newPair(t, "")
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			for _, dc := range g.cases {
				t.Run(dc.name, func(t *testing.T) { p.run(t, dc) })
			}
		})
	}
}
