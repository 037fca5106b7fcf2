package keyspace

import (
	"math"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Streams on the manual clock: the times the differential suite has to
// mask (generated IDs, idle times, delivery and seen times) read back
// exactly here.

func streamID1(ms int64, seq int) string { return strconv.FormatInt(ms, 10) + "-" + strconv.Itoa(seq) }

func TestStreamClock(t *testing.T) {
	now := int64(testNow)
	runKSCases(t, []ksCase{
		{"xadd star takes the clock, then the sequence", []ksStep{
			do("XADD s * a 1", bulk(streamID1(now, 0))),
			do("XADD s * a 1", bulk(streamID1(now, 1))),
			wait(5 * time.Millisecond),
			do("XADD s * a 1", bulk(streamID1(now+5, 0))),
			do("XADD s "+strconv.FormatInt(now+100, 10)+"-7 a 1", bulk(streamID1(now+100, 7))),
			do("XADD s * a 1", bulk(streamID1(now+100, 8))), // the clock is behind the last ID
		}},
		{"idle and delivery times follow the clock", []ksStep{
			do("XADD s 1-1 a 1", bulk("1-1")),
			do("XGROUP CREATE s g 0", ok),
			do("XREADGROUP GROUP g c STREAMS s >", "*1\r\n*2\r\n$1\r\ns\r\n*1\r\n*2\r\n$3\r\n1-1\r\n*2\r\n$1\r\na\r\n$1\r\n1\r\n"),
			wait(250 * time.Millisecond),
			do("XPENDING s g - + 10", "*1\r\n*4\r\n$3\r\n1-1\r\n$1\r\nc\r\n:250\r\n:1\r\n"),
			do("XPENDING s g IDLE 251 - + 10", "*0\r\n"),
			do("XCLAIM s g d 300 1-1 JUSTID", "*0\r\n"),
			wait(50 * time.Millisecond),
			do("XCLAIM s g d 300 1-1 JUSTID", "*1\r\n$3\r\n1-1\r\n"),
			do("XPENDING s g - + 10", "*1\r\n*4\r\n$3\r\n1-1\r\n$1\r\nd\r\n:0\r\n:1\r\n"),
			do("XCLAIM s g d 0 1-1 IDLE 40 JUSTID", "*1\r\n$3\r\n1-1\r\n"),
			do("XPENDING s g - + 10", "*1\r\n*4\r\n$3\r\n1-1\r\n$1\r\nd\r\n:40\r\n:1\r\n"),
			do("XCLAIM s g d 0 1-1 TIME "+strconv.FormatInt(now+100, 10)+" JUSTID", "*1\r\n$3\r\n1-1\r\n"),
			do("XPENDING s g - + 10", "*1\r\n*4\r\n$3\r\n1-1\r\n$1\r\nd\r\n:200\r\n:1\r\n"),
			wait(10 * time.Millisecond),
			do("XINFO CONSUMERS s g", "*2\r\n*6\r\n$4\r\nname\r\n$1\r\nc\r\n$7\r\npending\r\n:0\r\n$4\r\nidle\r\n:310\r\n"+
				"*6\r\n$4\r\nname\r\n$1\r\nd\r\n$7\r\npending\r\n:1\r\n$4\r\nidle\r\n:10\r\n"),
			do("XAUTOCLAIM s g e 211 0 JUSTID", "*3\r\n$3\r\n0-0\r\n*0\r\n*0\r\n"),
			do("XAUTOCLAIM s g e 210 0 JUSTID", "*3\r\n$3\r\n0-0\r\n*1\r\n$3\r\n1-1\r\n*0\r\n"),
		}},
		{"an emptied stream stays a key", []ksStep{
			do("XADD s 1-1 a 1", bulk("1-1")),
			do("XDEL s 1-1", num(1)),
			do("XLEN s", num(0)),
			do("XADD s 1-1 a 1", errReply("The ID specified in XADD is equal or smaller than the target stream top item")),
		}},
	})
}

// The listpack sizes that decide where Redis starts a new node
// (listpack.c's encodings and back-lengths).
func TestListpackSizes(t *testing.T) {
	for _, c := range []struct {
		v    int64
		want int
	}{{0, 2}, {127, 2}, {128, 3}, {-1, 3}, {4095, 3}, {-4096, 3}, {4096, 4}, {32767, 4}, {-32769, 5},
		{8388607, 5}, {8388608, 6}, {math.MaxInt32, 6}, {math.MaxInt32 + 1, 10}, {math.MinInt64, 10}} {
		if got := lpIntSize(c.v); got != c.want {
			t.Errorf("lpIntSize(%d) = %d, want %d", c.v, got, c.want)
		}
	}
	for _, c := range []struct {
		s    string
		want int
	}{{"", 2}, {"a", 3}, {"12", 2}, {"-5", 3}, {"007", 5}, {"+1", 4}, {strings.Repeat("x", 63), 65},
		{strings.Repeat("x", 64), 67}, {strings.Repeat("x", 125), 128}, {strings.Repeat("x", 126), 130},
		{strings.Repeat("x", 4095), 4099}, {strings.Repeat("x", 4096), 4103}, {"99999999999999999999", 22}} {
		if got := lpStrSize([]byte(c.s)); got != c.want {
			t.Errorf("lpStrSize(%.10q len %d) = %d, want %d", c.s, len(c.s), got, c.want)
		}
	}
}

// raxCount counts a radix tree's nodes as rax.c builds it.
func TestRaxCount(t *testing.T) {
	key := func(ms, seq uint64) [16]byte {
		var k [16]byte
		for b := 0; b < 8; b++ {
			k[b] = byte(ms >> (56 - 8*b))
			k[8+b] = byte(seq >> (56 - 8*b))
		}
		return k
	}
	for _, c := range []struct {
		keys [][16]byte
		want int
	}{
		{nil, 1},
		{[][16]byte{key(1, 1)}, 2},
		// A shared prefix, a branch, two leaves.
		{[][16]byte{key(1, 1), key(1, 2)}, 4},
		// Branching on the first byte: each side is a compressed run and
		// a leaf.
		{[][16]byte{key(1, 1), key(1<<63, 1)}, 5},
		{[][16]byte{key(1, 1), key(1, 2), key(1, 3)}, 5},
	} {
		if got := raxCount(c.keys, 0); got != c.want {
			t.Errorf("raxCount(%d keys) = %d, want %d", len(c.keys), got, c.want)
		}
	}
}

// A stream's memory count follows what it holds, and a COPY shares
// nothing with its source, its groups and pending entries included.
func TestStreamMemoryAndCopy(t *testing.T) {
	h := newKSTest(t)
	mem := func(key string) int64 {
		var n int64
		n, _ = h.k.KeyMemory(&Ctx{Now: h.k.Now()}, []byte(key))
		return n
	}
	h.run("XADD", "s", "1-1", "a", "1")
	small := mem("s")
	for i := 2; i <= 1000; i++ {
		h.run("XADD", "s", strconv.Itoa(i)+"-1", "field", strings.Repeat("v", 20))
	}
	big := mem("s")
	if big < small+1000*20 || big > small+1000*60 {
		t.Errorf("1,000 entries of 20-byte values: %d bytes counted (one entry: %d)", big, small)
	}
	h.run("XGROUP", "CREATE", "s", "g", "0")
	h.run("XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", ">")
	withPEL := mem("s")
	if withPEL < big+1000*streamNACKBytes {
		t.Errorf("1,000 pending entries: %d bytes counted, %d before", withPEL, big)
	}
	h.run(append([]string{"XACK", "s", "g"}, idsTo(1000)...)...)
	if got := mem("s"); got >= withPEL {
		t.Errorf("after XACK of every entry: %d bytes, %d before", got, withPEL)
	}
	if got := h.run("XTRIM", "s", "MAXLEN", "0"); got != num(1000) {
		t.Fatalf("XTRIM: %q", got)
	}
	if got := mem("s"); got > small+1000 {
		t.Errorf("trimmed to nothing: %d bytes, one entry took %d", got, small)
	}

	h.run("XADD", "s", "2000-1", "a", "1")
	h.run("XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", ">")
	if got := h.run("COPY", "s", "t"); got != num(1) {
		t.Fatalf("COPY: %q", got)
	}
	h.run("XACK", "t", "g", "2000-1")
	h.run("XADD", "t", "3000-1", "b", "2")
	if got := h.run("XPENDING", "s", "g"); !strings.HasPrefix(got, "*4\r\n:1\r\n") {
		t.Errorf("XACK on the copy changed the source's pending entries: %q", got)
	}
	if got := h.run("XLEN", "s"); got != num(1) {
		t.Errorf("XADD on the copy changed the source: XLEN %q", got)
	}
}

func idsTo(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = strconv.Itoa(i+1) + "-1"
	}
	return ids
}
