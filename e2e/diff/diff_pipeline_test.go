package diff_test

// Pushes while a pipelined batch runs: pub/sub frames, keyspace
// notifications and MONITOR lines that the owner produces for the very
// client whose batch is running (it publishes to itself, directly, from a
// script or in EXEC), among its replies, with CLIENT REPLY OFF and SKIP
// (which drop replies, not pub/sub frames), RESET, and blocked clients'
// answers. Each pipeline is one write, as a client library sends it; the
// replies are read back as one stream and compared byte for byte. The
// generated mixes are in diff_random_pipeline_test.go.

import (
	"regexp"
	"slices"
	"strings"

	"github.com/minilock/minilock/internal/redistest"
)

// pipe sends lines (each a command written as space-separated words) in
// one write and reads n replies: frames a push or an EXEC's array may
// hold are counted as RESP parses them.
func pipe(n int, lines ...string) step {
	var b []byte
	for _, l := range lines {
		b = append(b, redistest.Encode(strings.Fields(l)...)...)
	}
	return step{label: "pipeline " + strings.Join(lines, "; "), send: b, replies: n}
}

// parkPipe is pipe on connection i whose first command parks it: the
// rest of the pipeline waits behind it.
func parkPipe(i int, lines ...string) step {
	s := pipe(0, lines...).on(i)
	s.park = true
	return s
}

// pipeArgs is pipe for commands given as exact arguments.
func pipeArgs(n int, cmds ...[]string) step {
	var b []byte
	var labels []string
	for _, c := range cmds {
		b = append(b, redistest.Encode(c...)...)
		labels = append(labels, strings.Join(c, " "))
	}
	return step{label: "pipeline " + strings.Join(labels, "; "), send: b, replies: n}
}

// monitorLine masks what differs between two servers in a MONITOR line:
// the timestamp and the client's port.
var monitorLine = &normalizer{"MONITOR lines", func(b []byte) ([]byte, bool) {
	out := monitorStamp.ReplaceAll(b, []byte("+<time> [$1 <addr>]"))
	return out, !slices.Equal(out, b)
}}

var monitorStamp = regexp.MustCompile(`\+[0-9]+\.[0-9]{6} \[([0-9]+|lua) [0-9.:]+\]`)

// streamIDs masks the client id in every HELLO reply of a stream of
// replies (helloID takes one reply).
var streamIDs = &normalizer{"HELLO ids", func(b []byte) ([]byte, bool) {
	out := helloIDField.ReplaceAll(b, []byte("$$2\r\nid\r\n:<id>\r\n"))
	return out, !slices.Equal(out, b)
}}

var helloIDField = regexp.MustCompile(`\$2\r\nid\r\n:[0-9]+\r\n`)

var pipelineCases = []diffCase{
	// The example: the message, PUBLISH's count, and nothing of
	// the earlier output again.
	tc("the issue's repro: hello 3, subscribe, publish, ping inline in one write",
		raw("HELLO 3\r\nSUBSCRIBE a\r\nPUBLISH a m1\r\nPING\r\n").expect(5).with(streamIDs),
		raw("PUBLISH a m2\r\nPING\r\n").expect(3)),
	tc("resp3 subscribe and publish to yourself in one write",
		c("HELLO 3").with(helloID),
		pipe(6, "SET k v", "SUBSCRIBE a", "PUBLISH a m1", "PING", "GET k"),
		pipe(3, "PUBLISH a m2", "PUBLISH nobody x")),
	// Past replyChunk (64 KiB) the batch is served in parts: the frames
	// keep their places across the parts.
	tc("resp3 publish to yourself past the reply chunk",
		c("HELLO 3").with(helloID), c("SUBSCRIBE a"),
		pipeArgs(2*3000+1, append(slices.Repeat([][]string{{"PUBLISH", "a", strings.Repeat("m", 100)}}, 3000), []string{"PING"})...)),
	// Replies past replyChunk are held in pieces (resp.Writer.SpillAt);
	// a frame to yourself, or CLIENT REPLY OFF/SKIP, pins the buffer for
	// the rest of that command, so the offsets that keep the frames stay
	// valid: big replies before, around and after frames and dropped
	// stretches, in EXEC and out of it.
	tc("resp3 big replies around frames to yourself",
		c("HELLO 3").with(helloID),
		pipeArgs(1, []string{"EVAL", "for i=1,20000 do redis.call('rpush','big',string.rep('x',10)) end", "0"}),
		pipe(8, "SUBSCRIBE a", "MULTI", "LRANGE big 0 -1", "PUBLISH a m1", "LRANGE big 0 -1", "EXEC", "PING"),
		pipe(7, "CLIENT REPLY OFF", "LRANGE big 0 -1", "PUBLISH a m2", "CLIENT REPLY ON", "LRANGE big 0 -1", "PUBLISH a m3", "LRANGE big 0 -1", "PING"),
		pipe(7, "LRANGE big 0 -1", "PUBLISH a m4", "CLIENT REPLY SKIP", "LRANGE big 0 -1", "PUBLISH a m5", "LRANGE big 0 -1", "PING")),
	tc("resp3 pattern and channel to yourself in one write",
		c("HELLO 3").with(helloID),
		pipe(11, "PSUBSCRIBE a*", "SUBSCRIBE ab", "PUBLISH ab m1", "PUNSUBSCRIBE", "PUBLISH ab m2", "UNSUBSCRIBE", "PUBLISH ab m3", "PING")),
	tc("resp3 publish to yourself in exec",
		c("HELLO 3").with(helloID),
		pipe(9, "SUBSCRIBE a", "MULTI", "PUBLISH a m1", "SET x 1", "PUBLISH a m2", "EXEC", "PING")),
	tc("resp2 subscribe and publish inside exec",
		pipe(8, "MULTI", "SUBSCRIBE a", "PUBLISH a x", "UNSUBSCRIBE", "PUBLISH a y", "EXEC", "PING")),
	tc("resp3 publish to yourself from a script",
		c("HELLO 3").with(helloID),
		pipeArgs(8, []string{"SUBSCRIBE", "a"},
			[]string{"EVAL", "redis.call('publish','a','x') return 1", "0"},
			[]string{"EVAL", "redis.call('publish','a','y') return redis.error_reply('boom')", "0"},
			[]string{"EVAL", "redis.call('publish','a','z') error('boom')", "0"},
			[]string{"PING"})),
	tc("resp3 client reply off keeps pub/sub frames",
		c("HELLO 3").with(helloID),
		pipe(7, "SUBSCRIBE a", "CLIENT REPLY OFF", "PUBLISH a m1", "SUBSCRIBE b", "UNSUBSCRIBE a", "MULTI", "PUBLISH b m2", "EXEC", "CLIENT REPLY ON", "PING")),
	tc("resp3 client reply skip keeps pub/sub frames",
		c("HELLO 3").with(helloID),
		pipe(4, "CLIENT REPLY SKIP", "SUBSCRIBE a", "CLIENT REPLY SKIP", "PUBLISH a m1", "PING", "GET k")),
	tc("resp2 client reply off keeps subscribe frames and reset turns replies on",
		pipe(6, "CLIENT REPLY OFF", "SUBSCRIBE a b", "UNSUBSCRIBE a", "PSUBSCRIBE x*", "PING", "RESET", "PING")),
	tc("resp3 reset after publishing to yourself",
		c("HELLO 3").with(helloID),
		pipe(6, "SUBSCRIBE a", "PUBLISH a m1", "RESET", "PUBLISH a m2", "PING")),
	tc("resp3 hello 2 after publishing to yourself",
		c("HELLO 3").with(helloID),
		pipe(4, "SUBSCRIBE a", "PUBLISH a m1", "PING"),
		pipe(3, "HELLO 2", "PING", "PUBLISH a m2").with(streamIDs)),
	tc("resp3 keyspace notifications to yourself in one write",
		notifyOn("KEA"), c("HELLO 3").with(helloID),
		pipe(19, "SUBSCRIBE __keyspace@0__:k __keyevent@0__:del", "SET k v", "GETDEL k", "SET k v", "DEL k", "MULTI", "SET k 1", "INCR k", "EXEC", "PING"),
		notifyOff),
	// Redis drops a reply when it is written: CLIENT REPLY OFF inside a
	// transaction keeps the array's header and the replies before it;
	// CLIENT REPLY ON inside one sends its +OK and what follows, not the
	// header (a client is left with a cut array: what Redis sends).
	tc("client reply off inside exec",
		pipe(5, "MULTI", "PING a", "CLIENT REPLY OFF", "PING b", "EXEC", "CLIENT REPLY ON", "PING c")),
	tc("client reply on inside exec",
		pipe(3, "CLIENT REPLY OFF", "MULTI", "PING a", "CLIENT REPLY ON", "PING b", "EXEC", "PING c")),
	tc("client reply skip then a transaction holding client reply on",
		pipe(5, "CLIENT REPLY SKIP", "MULTI", "PING a", "CLIENT REPLY ON", "PING b", "EXEC", "PING c")),
	// A subscriber's bad frame: the replies before it, then the error,
	// then the close (the goroutine edge wrote the error past the queued
	// replies and dropped them).
	tc("protocol error after subscribing in one write",
		raw("SUBSCRIBE a b c d e f g h i j k l m n o p\r\nPING\r\n*1\r\n$x\r\n").eof()),
	tc("resp3 protocol error after publishing to yourself",
		c("HELLO 3").with(helloID),
		raw("SUBSCRIBE a\r\nPUBLISH a m\r\nGET k\r\n*1\r\n$-5\r\n").eof()),
	tc("resp3 quit after publishing to yourself",
		c("HELLO 3").with(helloID),
		pipe(3, "SUBSCRIBE a", "PUBLISH a m").expect(3),
		raw("PUBLISH a n\r\nCLIENT REPLY OFF\r\nPUBLISH a o\r\nQUIT\r\nPING\r\n").eof()),
	tc("blocked answer dropped by client reply off",
		pipe(2, "CLIENT REPLY OFF", "BLPOP nosuch 0.01", "CLIENT REPLY ON", "PING")),
	tc("blocked answer dropped by client reply skip",
		c("CLIENT REPLY SKIP").on(1).expect(0), parkOn(1, "BLPOP l 0"),
		c("RPUSH l a b"), c("PING").on(1), c("LRANGE l 0 -1")),
	// A pipeline parked on BLPOP, woken by another client's batch that
	// holds a RESET (the guard stops parsing after RESET until it has
	// run): Redis runs the waker's whole query buffer before the woken
	// client's pipeline, so GET k finds nothing. The goroutine edge ran
	// the woken SET between RESET and GET about one time in three.
	tc("a woken pipeline waits for the whole batch that woke it, reset and all",
		parkPipe(1, "BLPOP l 0", "SET k woken"),
		pipe(6, "RPUSH l x", "RESET", "GET k", "RESET", "GET k", "PING"), recv(1, 2)),
	tc("resp3 subscriber blocked, woken, then a message",
		c("HELLO 3").on(1).with(helloID), c("SUBSCRIBE a").on(1),
		parkOn(1, "BLPOP l 0"),
		pipe(3, "RPUSH l x", "PUBLISH a m", "PING"), recv(1, 2)),
	// DEBUG is refused (enable-debug-command no, Redis 7.0's default):
	// after the arity check, before NOAUTH, as a rejected command (it
	// aborts a transaction); scripts may not call it.
	tc("debug is disabled",
		c("DEBUG"), c("DEBUG SLEEP 0"), c("DEBUG HELP"), c("debug object k"), c("DEBUG JMAP"),
		c("MULTI"), c("DEBUG SLEEP 0"), c("PING"), c("EXEC"),
		cmd("EVAL", "return redis.pcall('debug', 'sleep', '0')", "0"), c("COMMAND INFO debug")),
	tcAuth("debug is refused before noauth", c("DEBUG SLEEP 0"), c("DEBUG"), c("PING")),
	// SHUTDOWN ABORT: there is never a shutdown to abort; the flags'
	// illegal combinations are syntax errors (and must not shut down).
	tc("shutdown abort",
		c("SHUTDOWN ABORT"), c("shutdown abort"), c("SHUTDOWN ABORT ABORT"), c("SHUTDOWN ABORT NOSAVE"),
		c("SHUTDOWN NOW ABORT"), c("SHUTDOWN FORCE ABORT"), c("SHUTDOWN SAVE NOSAVE"), c("SHUTDOWN NOSAVE SAVE NOW"),
		c("SHUTDOWN nosuch"), c("MULTI"), c("SHUTDOWN ABORT"), c("EXEC"), c("PING")),
	tc("monitor sees its own commands after their replies",
		pipe(5, "MONITOR", "PING", "ECHO x").with(monitorLine),
		pipe(3, "CLIENT REPLY SKIP", "PING", "ECHO y").with(monitorLine),
		pipe(4, "CLIENT REPLY OFF", "PING", "CLIENT REPLY ON", "PING").with(monitorLine)),
	// A MONITOR line is a reply to Redis: CLIENT REPLY SKIP drops the lines
	// of other clients' commands until the skipped command has run.
	tc("monitor lines and client reply skip",
		c("MONITOR").on(1), c("CLIENT REPLY SKIP").on(1).with(monitorLine),
		c("SET x 1"), pipe(2, "PING", "ECHO e").on(1).with(monitorLine),
		c("SET z 1"), recv(1, 1).with(monitorLine)),
}
