package keyspace

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
)

func init() {
	ksCommands["pfadd"] = CmdPFAdd
	ksCommands["pfcount"] = CmdPFCount
	ksCommands["pfmerge"] = CmdPFMerge
	ksCommands["pfdebug"] = CmdPFDebug
	ksCommands["pfselftest"] = CmdPFSelfTest
}

// The bytes, counts and texts below are redis-server 7.0.15's own.
func TestHyperLogLog(t *testing.T) {
	const abc = "HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80`\xf3\x80P\xb1\x84K\xfb\x80BZ"
	const abcCounted = "HYLL\x01\x00\x00\x00\x03\x00\x00\x00\x00\x00\x00\x00`\xf3\x80P\xb1\x84K\xfb\x80BZ"
	notHLL := "-WRONGTYPE Key is not a valid HyperLogLog string value.\r\n"
	corrupt := "-INVALIDOBJ Corrupted HLL object detected\r\n"
	wrongType := "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"
	runKSCases(t, []ksCase{
		{"sparse bytes and the cached count", []ksStep{do("PFADD h a b c", num(1)), do("GET h", bulk(abc)),
			do("PFADD h a", num(0)), do("PFCOUNT h", num(3)), do("GET h", bulk(abcCounted)),
			do("PFDEBUG DECODE h", bulk("Z:8436 v:1,1 Z:4274 v:2,1 Z:3068 v:1,1 Z:603")),
			do("PFDEBUG ENCODING h", "+sparse\r\n"), do("PFDEBUG TODENSE h", num(1)), do("PFDEBUG TODENSE h", num(0)),
			do("PFDEBUG ENCODING h", "+dense\r\n"), do("PFDEBUG DECODE h", errReply("HLL encoding is not sparse")),
			do("PFCOUNT h", num(3)), do("STRLEN h", num(12304))}},
		{"empty and missing", []ksStep{do("PFADD e", num(1)), do("PFADD e", num(0)), do("PFCOUNT e", num(0)),
			do("PFCOUNT nosuch", num(0)), do("PFCOUNT nosuch e", num(0)), do("EXISTS nosuch", num(0)),
			do("PFDEBUG GETREG nosuch", errReply("The specified key does not exist")),
			do("PFDEBUG what e", errReply("Unknown PFDEBUG subcommand 'what'")),
			doArgs(errReply("Unknown PFDEBUG subcommand 'what'"), "PFDEBUG", "what\x00ever", "e"),
			doArgs(num(1), "PFDEBUG", "todense\x00x", "e")}},
		{"merge and union", []ksStep{do("PFADD a 1 2 3", num(1)), do("PFADD b 3 4 5", num(1)), do("PFCOUNT a b", num(5)),
			do("PFMERGE m a b nosuch", ok), do("PFCOUNT m", num(5)), do("PFMERGE n", ok), do("PFCOUNT n", num(0)),
			do("PFDEBUG TODENSE a", num(1)), do("PFMERGE m2 b a", ok), do("PFDEBUG ENCODING m2", "+dense\r\n"),
			do("PFCOUNT m2", num(5))}},
		{"not an hll", []ksStep{do("SET s hello", ok), do("PFADD s x", notHLL), do("PFCOUNT s", notHLL), do("PFCOUNT s a", notHLL),
			do("PFMERGE d s", notHLL), do("EXISTS d", num(0)), do("PFDEBUG ENCODING s", notHLL), do("SET i 123", ok),
			do("PFCOUNT i", notHLL), doArgs(ok, "SET", "x", "HYLL\x02"+strings.Repeat("\x00", 11)), do("PFCOUNT x", notHLL),
			doArgs(ok, "SET", "d", "HYLL\x00"+strings.Repeat("\x00", 11)), do("PFCOUNT d", notHLL),
			do("LPUSH l a", num(1)), do("PFADD l a", wrongType), do("PFCOUNT l", wrongType)}},
		{"corrupt sparse", []ksStep{
			// Two XZERO opcodes of 16384: twice too many registers.
			doArgs(ok, "SET", "c", "HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x7f\xff\x7f\xff"),
			do("PFCOUNT c", corrupt), do("PFCOUNT c c", corrupt), do("PFMERGE d c", corrupt), do("EXISTS d", num(0)),
			do("PFDEBUG GETREG c", corrupt),
			// A valid cached count is believed, as Redis believes it.
			doArgs(ok, "SET", "v", "HYLL\x01\x00\x00\x00\x07\x00\x00\x00\x00\x00\x00\x00"), do("PFCOUNT v", num(7)),
			do("PFADD v a", corrupt), do("PFCOUNT v", num(7))}},
	})
}

// TestHyperLogLogPromotion adds the same elements redis-server was given
// and compares the value's SHA1 with Redis's, across the sparse to dense
// switch at hll-sparse-max-bytes.
func TestHyperLogLogPromotion(t *testing.T) {
	h := newKSTest(t)
	want := map[int]struct {
		sha, enc string
		count    int64
	}{
		100:  {"47f6cb6c3c5a16056e3bb450f9572a1524d44455", "sparse", 100},
		1000: {"26dc3c41142e0317d54eb6adc1e29ccff5ca6941", "sparse", 1008},
		2000: {"d89749d695c9bf2d520372e472f50f24ee53f88b", "dense", 2000},
		3000: {"a9b8e66f9a7f6a9bda8cb52ddfbcc91380d68588", "dense", 2979},
	}
	for n := 1; n <= 3000; n++ {
		h.run("PFADD", "big", fmt.Sprintf("e%d", n-1))
		w, ok := want[n]
		if !ok {
			continue
		}
		v := h.run("GET", "big")
		body := v[strings.Index(v, "\r\n")+2 : len(v)-2]
		sum := sha1.Sum([]byte(body))
		if got := hex.EncodeToString(sum[:]); got != w.sha {
			t.Errorf("after %d adds: sha1 %s, want %s (length %d)", n, got, w.sha, len(body))
		}
		if got := h.run("PFDEBUG", "ENCODING", "big"); got != "+"+w.enc+"\r\n" {
			t.Errorf("after %d adds: encoding %q, want %s", n, got, w.enc)
		}
		// The union form: a single key's count would write its header.
		if got := h.run("PFCOUNT", "big", "nosuch"); got != num(w.count) {
			t.Errorf("after %d adds: PFCOUNT %q, want %d", n, got, w.count)
		}
	}
	// A smaller threshold promotes sooner (CONFIG SET hll-sparse-max-bytes).
	e := h.k.Encodings()
	e.HLLSparseMaxBytes = 100
	h.k.SetEncodings(e)
	for n := range 40 {
		h.run("PFADD", "s", fmt.Sprintf("e%d", n))
	}
	if got := h.run("PFDEBUG", "ENCODING", "s"); got != "+dense\r\n" {
		t.Errorf("40 adds past a 100-byte limit: %q, want dense", got)
	}
}

func TestPFSelfTest(t *testing.T) {
	if testing.Short() {
		t.Skip("ten million additions")
	}
	h := newKSTest(t)
	if got := h.run("PFSELFTEST"); got != ok {
		t.Fatalf("PFSELFTEST: %q", got)
	}
}
