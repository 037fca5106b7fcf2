package keyspace

import (
	"bytes"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/minilock/minilock/internal/rdbfmt"
	"github.com/minilock/minilock/resp"
)

var rdbSeed = flag.Uint64("rdb.seed", 0, "seed of the RDB generator tests; 0 picks one from the clock")

func rdbRand(t *testing.T) *rand.Rand {
	seed := *rdbSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (rerun with -rdb.seed=%d)", seed, seed)
	return rand.New(rand.NewPCG(seed, seed))
}

// genElem is a random element: an integer (in each of the listpack's and
// intset's widths), a short or long string, or binary bytes.
func genElem(r *rand.Rand, maxLen int) string {
	switch r.IntN(6) {
	case 0:
		return strconv.FormatInt(r.Int64N(256)-128, 10)
	case 1:
		return strconv.FormatInt([]int64{-5000, 4095, 40000, -9000000, 1 << 31, -(1 << 40), 1<<63 - 1}[r.IntN(7)]+r.Int64N(3), 10)
	case 2:
		return strings.Repeat("ab", 1+r.IntN(max(maxLen/2, 1)))
	case 3:
		b := make([]byte, r.IntN(maxLen+1))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		return string(b)
	}
	return "e" + strconv.Itoa(r.IntN(1_000_000))
}

// genKeys fills h with keys of every type, at sizes on both sides of the
// encoding thresholds, and returns their names.
func genKeys(h *ksTest, r *rand.Rand) []string {
	var keys []string
	sizes := []int{1, 2, 17, 127, 128, 129, 511, 512, 513, 1500}
	for i, n := range sizes {
		k := fmt.Sprintf("list%d", i)
		args := []string{"RPUSH", k}
		for j := 0; j < n; j++ {
			args = append(args, genElem(r, []int{8, 70, 5000}[r.IntN(3)]))
		}
		h.run(args...)
		k2 := fmt.Sprintf("set%d", i)
		args = []string{"SADD", k2}
		strs := r.IntN(3) == 0
		for j := 0; j < n; j++ {
			if strs {
				args = append(args, genElem(r, 20))
			} else {
				args = append(args, strconv.FormatInt(r.Int64N(1<<uint(8+r.IntN(50))), 10))
			}
		}
		h.run(args...)
		k3 := fmt.Sprintf("zset%d", i)
		args = []string{"ZADD", k3}
		for j := 0; j < n; j++ {
			score := []string{strconv.Itoa(r.IntN(100)), strconv.FormatFloat(r.Float64()*1e6, 'g', -1, 64), "inf", "-inf", "1e300", "-0.5"}[r.IntN(6)]
			args = append(args, score, genElem(r, []int{10, 64, 65}[r.IntN(3)]))
		}
		h.run(args...)
		k4 := fmt.Sprintf("hash%d", i)
		args = []string{"HSET", k4}
		for j := 0; j < n; j++ {
			args = append(args, "f"+strconv.Itoa(j), genElem(r, []int{10, 64, 65}[r.IntN(3)]))
		}
		h.run(args...)
		keys = append(keys, k, k2, k3, k4)
	}
	for i, v := range []string{"", "0", "-1", "12345678901", "123456789012345678901", strings.Repeat("x", 100), genElem(r, 3000)} {
		k := fmt.Sprintf("str%d", i)
		h.run("SET", k, v)
		keys = append(keys, k)
	}
	h.run("SET", "ttl", "v", "PX", "1000000")
	h.run("PFADD", "hll", "a", "b", "c")
	args := []string{"PFADD", "hlldense"}
	for j := 0; j < 3000; j++ {
		args = append(args, strconv.Itoa(j))
	}
	h.run(args...)
	keys = append(keys, "ttl", "hll", "hlldense")
	// Streams: several nodes, deleted entries, entries with their own
	// fields, groups with pending entries and consumers.
	h.run("CONFIG-NODE", "5")
	for j := 1; j <= 40; j++ {
		fields := []string{"a", genElem(r, 10), "b", strconv.Itoa(j)}
		if j%7 == 0 {
			fields = []string{"other", "x"}
		}
		h.run(append([]string{"XADD", "stream", fmt.Sprintf("%d-%d", 1000+j/3, j%3)}, fields...)...)
	}
	h.run("XDEL", "stream", "1001-1", "1005-0")
	h.run("XGROUP", "CREATE", "stream", "g1", "0")
	h.run("XGROUP", "CREATE", "stream", "g0", "$")
	h.run("XREADGROUP", "GROUP", "g1", "alice", "COUNT", "5", "STREAMS", "stream", ">")
	h.run("XREADGROUP", "GROUP", "g1", "bob", "COUNT", "3", "STREAMS", "stream", ">")
	h.run("XADD", "empty", "1-1", "a", "b")
	h.run("XDEL", "empty", "1-1")
	keys = append(keys, "stream", "empty")
	return keys
}

func newRDBTest(t *testing.T) *ksTest {
	h := newKSTest(t)
	ksCommands["dump"] = CmdDump
	ksCommands["restore"] = CmdRestore
	ksCommands["config-node"] = func(k *Keyspace, c *Ctx, args [][]byte) error {
		e := k.Encodings()
		e.StreamNodeMaxEntries, _ = strconv.Atoi(string(args[1]))
		k.SetEncodings(e)
		return nil
	}
	return h
}

// bulkOf is a bulk reply's bytes.
func bulkOf(t *testing.T, reply string) []byte {
	t.Helper()
	it, _, err := resp.Next([]byte(reply))
	if err != nil || it.Kind != '$' {
		t.Fatalf("want a bulk reply, got %q", reply)
	}
	return it.Data
}

// Every value round-trips: DUMP, read back (LoadPayload), encoded again
// to the same bytes, and RESTORE to a key whose DUMP is the same payload.
func TestRDBRoundTripGenerated(t *testing.T) {
	h := newRDBTest(t)
	r := rdbRand(t)
	for _, k := range genKeys(h, r) {
		p := bulkOf(t, h.run("DUMP", k))
		v, err := LoadPayload(p, h.k.Encodings())
		if err != nil {
			t.Fatalf("%s: LoadPayload: %v", k, err)
		}
		again := DumpPayload(NewRDBWriter(true), v)
		if !bytes.Equal(again, p) && !unordered(p[0]) {
			t.Errorf("%s: re-encoded payload differs\n got %.200q\nwant %.200q", k, again, p)
		}
		if got := h.run("RESTORE", k+":copy", "0", string(p)); got != ok {
			t.Fatalf("RESTORE %s = %q", k, got)
		}
		if got := bulkOf(t, h.run("DUMP", k+":copy")); !bytes.Equal(got, p) && !unordered(p[0]) {
			t.Errorf("%s: DUMP of the restored copy differs\n got %.200q\nwant %.200q", k, got, p)
		}
		if unordered(p[0]) {
			for _, cmd := range [][]string{{"SMEMBERS"}, {"HGETALL"}} {
				if p[0] == RDBTypeSet && cmd[0] == "HGETALL" || p[0] == RDBTypeHash && cmd[0] == "SMEMBERS" {
					continue
				}
				a, b := sortedArray(t, h.run(cmd[0], k)), sortedArray(t, h.run(cmd[0], k+":copy"))
				if a != b {
					t.Errorf("%s: %s of the restored copy differs", k, cmd[0])
				}
			}
		}
	}
}

// unordered: types written in a dict's order, which a copy need not keep.
func unordered(t byte) bool { return t == RDBTypeSet || t == RDBTypeHash }

// sortedArray is an array reply's elements, sorted and joined (pairs of a
// hash stay pairs: HGETALL's field and value are joined first).
func sortedArray(t *testing.T, reply string) string {
	t.Helper()
	it, rest, err := resp.Next([]byte(reply))
	if err != nil || it.Kind != '*' {
		t.Fatalf("want an array, got %q", reply)
	}
	var out []string
	for i := int64(0); i < it.Int; i++ {
		var e resp.Item
		e, rest, _ = resp.Next(rest)
		out = append(out, string(e.Data))
	}
	if len(out)%2 == 0 && strings.Contains(reply, "f0") {
		var pairs []string
		for i := 0; i+1 < len(out); i += 2 {
			pairs = append(pairs, out[i]+"\x00"+out[i+1])
		}
		out = pairs
	}
	sortStrings(out)
	return strings.Join(out, "\x01")
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// payload wraps an RDB value in DUMP's footer.
func payload(v ...byte) string { return string(rdbfmt.AppendFooter(append([]byte(nil), v...))) }

// lp is a listpack of elements, as Redis writes it.
func lp(elems ...string) []byte {
	var l listpack
	for _, e := range elems {
		l.add([]byte(e))
	}
	return l.bytes()
}

func str(b []byte) []byte { return rdbfmt.AppendString(nil, b) }

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// Hand-made payloads: what Redis refuses (its exact errors), and the old
// encodings a 7.0 RESTORE still takes.
func TestRestorePayloads(t *testing.T) {
	h := newRDBTest(t)
	bad := errReply("Bad data format")
	hashLP := lp("f", "v", "g", "1")
	zip := []byte{ // ziplist of "a", 5, "bc": zlbytes, zltail, zllen, entries, end
		0, 0, 0, 0, 0, 0, 0, 0, 3, 0,
		0, 0x01, 'a',
		3, 0xf6,
		2, 0x02, 'b', 'c',
		0xff}
	binary.LittleEndian.PutUint32(zip, uint32(len(zip)))
	binary.LittleEndian.PutUint32(zip[4:], 15)
	zipmap := []byte{2, 1, 'f', 1, 0, 'v', 2, 'g', 'h', 3, 1, 'x', 'y', 'z', 'p', 0xff}
	intset := []byte{2, 0, 0, 0, 2, 0, 0, 0, 1, 0, 5, 0}
	for _, tt := range []struct {
		name, payload, want string
		check               []string // a command and its reply after a +OK
	}{
		{"short", "x", errReply("DUMP payload version or checksum are wrong"), nil},
		{"version 11", string(append([]byte{0, 0, 11, 0}, make([]byte, 8)...)), errReply("DUMP payload version or checksum are wrong"), nil},
		{"bad crc", payload(0, 1, 'a')[:12] + "x", errReply("DUMP payload version or checksum are wrong"), nil},
		{"string", payload(cat([]byte{0}, str([]byte("hello")))...), ok, []string{"GET", bulk("hello")}},
		{"int string", payload(0, 0xc0, 0xfe), ok, []string{"GET", bulk("-2")}},
		{"truncated", payload(0, 30, 'a'), bad, nil},
		{"into the footer", payload(0, 5, 'a'), ok, nil}, // Redis reads on into the footer's bytes
		{"unknown type", payload(8, 0), bad, nil},
		{"module", payload(7, 0), bad, nil},
		{"hash listpack", payload(cat([]byte{16}, str(hashLP))...), ok, []string{"HGET", bulk("1")}},
		{"hash listpack odd", payload(cat([]byte{16}, str(lp("f", "v", "g")))...), bad, nil},
		{"hash listpack dup", payload(cat([]byte{16}, str(lp("f", "v", "f", "w")))...), bad, nil},
		{"hash listpack bad count", payload(cat([]byte{16}, str(func() []byte { b := lp("f", "v"); b[4] = 3; return b }()))...), bad, nil},
		{"hash listpack bad backlen", payload(cat([]byte{16}, str(func() []byte { b := lp("f", "v"); b[8] = 9; return b }()))...), bad, nil},
		{"hash listpack empty", payload(cat([]byte{16}, str(lp()))...), bad, nil},
		{"hash ziplist", payload(cat([]byte{13}, str(func() []byte {
			z := append([]byte(nil), zip...)
			return z[:len(z)] // odd count: 3 elements
		}()))...), bad, nil},
		{"list ziplist", payload(cat([]byte{10}, str(zip))...), ok, []string{"LRANGE", "*3\r\n" + bulk("a") + bulk("5") + bulk("bc")}},
		{"list ziplist bad tail", payload(cat([]byte{10}, str(func() []byte { z := append([]byte(nil), zip...); z[4] = 14; return z }()))...), bad, nil},
		{"hash zipmap", payload(cat([]byte{9}, str(zipmap))...), ok, []string{"HGET", bulk("xyz")}},
		{"set intset", payload(cat([]byte{11}, str(intset))...), ok, []string{"SMEMBERS", "*2\r\n" + bulk("1") + bulk("5")}},
		{"set intset unsorted", payload(cat([]byte{11}, str([]byte{2, 0, 0, 0, 2, 0, 0, 0, 5, 0, 1, 0}))...), bad, nil},
		{"set intset empty", payload(cat([]byte{11}, str([]byte{2, 0, 0, 0, 0, 0, 0, 0}))...), bad, nil},
		{"set dup", payload(cat([]byte{2, 2}, str([]byte("a")), str([]byte("a")))...), bad, nil},
		{"set empty", payload(2, 0), bad, nil},
		{"set huge count", payload(2, 0x80, 0xff, 0xff, 0xff, 0xff, 1, 'a'), bad, nil},
		{"zset nan", payload(cat([]byte{5, 1}, str([]byte("m")), []byte{0, 0, 0, 0, 0, 0, 0xf8, 0x7f})...), bad, nil},
		{"zset old double", payload(cat([]byte{3, 1}, str([]byte("m")), []byte{3, '1', '.', '5'})...), ok, []string{"ZSCORE", bulk("1.5")}},
		{"zset listpack", payload(cat([]byte{17}, str(lp("a", "1", "b", "2.5")))...), ok, []string{"ZSCORE", bulk("1")}},
		{"zset listpack bad score", payload(cat([]byte{17}, str(lp("a", "x")))...), bad, nil},
		{"quicklist bad container", payload(cat([]byte{18, 1, 3}, str(lp("a")))...), bad, nil},
		{"quicklist", payload(cat([]byte{18, 2, 2}, str(lp("a", "b")), []byte{2}, str(lp("c")))...), ok, []string{"LRANGE", "*3\r\n" + bulk("a") + bulk("b") + bulk("c")}},
		{"quicklist 1", payload(cat([]byte{14, 1}, str(zip))...), ok, []string{"LRANGE", "*3\r\n" + bulk("a") + bulk("5") + bulk("bc")}},
		{"stream bad node key", payload(cat([]byte{19, 1}, str([]byte("short")), str(lp("1")))...), bad, nil},
	} {
		got := h.run("RESTORE", "k", "0", tt.payload, "REPLACE")
		if got != tt.want {
			t.Errorf("%s: RESTORE = %q, want %q", tt.name, got, tt.want)
			continue
		}
		if tt.check != nil {
			args := []string{tt.check[0], "k"}
			switch tt.check[0] {
			case "HGET":
				args = append(args, map[bool]string{true: "g", false: "f"}[tt.name == "hash listpack"])
				if tt.name == "hash zipmap" {
					args[2] = "gh"
				}
			case "LRANGE":
				args = append(args, "0", "-1")
			case "ZSCORE":
				args = append(args, map[bool]string{true: "m", false: "a"}[tt.name == "zset old double"])
			}
			if got := h.run(args...); got != tt.check[1] {
				t.Errorf("%s: %q = %q, want %q", tt.name, args, got, tt.check[1])
			}
		}
	}
}

// A stream in RDB_TYPE_STREAM_LISTPACKS (Redis 6.x), without first ID,
// tombstone or counters: they are derived as Redis derives them.
func TestRestoreOldStream(t *testing.T) {
	h := newRDBTest(t)
	h.run("XADD", "s", "5-1", "a", "1")
	h.run("XADD", "s", "6-0", "a", "2")
	// Loading estimates the group's entries-read as Redis does: 1 here.
	h.run("XGROUP", "CREATE", "s", "g", "5-1", "ENTRIESREAD", "1")
	v, _, _ := h.k.ValueOf(0, []byte("s"), h.k.Now())
	s := v.obj.v.(*streamValue)
	var b []byte
	b = append(b, RDBTypeStreamListpacks, 1)
	b = append(b, str(streamIDBytes(nil, s.nodes[0].master))...)
	b = append(b, str(nodeListpack(s.nodes[0]))...)
	b = append(b, 2, 6, 0) // length, last ID
	b = append(b, 1)       // one group
	b = append(b, str([]byte("g"))...)
	b = append(b, 5, 1, 0, 0) // its last ID, no PEL, no consumers
	if got := h.run("RESTORE", "old", "0", payload(b...)); got != ok {
		t.Fatalf("RESTORE = %q", got)
	}
	new := string(bulkOf(t, h.run("DUMP", "s")))
	if got := string(bulkOf(t, h.run("DUMP", "old"))); got != new {
		t.Errorf("the old stream dumps as\n %q\nwant %q", got, new)
	}
}

// RESTORE's options, TTLs and events.
func TestRestoreCommand(t *testing.T) {
	h := newRDBTest(t)
	var events []string
	h.k.SetNotify(NotifyAll|NotifyNew|NotifyKeyevent, func(db int, event string, key []byte, class NotifyClass) {
		events = append(events, event+":"+string(key))
	})
	h.run("SET", "src", "v")
	p := string(bulkOf(t, h.run("DUMP", "src")))
	events = nil
	for _, tt := range [][2]string{
		{"RESTORE k 0 " + p, ok},
		{"RESTORE k 0 " + p, "-BUSYKEY Target key name already exists.\r\n"},
		{"RESTORE k 5000 " + p + " REPLACE", ok},
		{"PTTL k", num(5000)},
		{"RESTORE k " + strconv.FormatInt(testNow+9000, 10) + " " + p + " REPLACE ABSTTL", ok},
		{"PTTL k", num(9000)},
		{"RESTORE k 1 " + p + " REPLACE ABSTTL", ok}, // in the past: deleted, not made
		{"EXISTS k", num(0)},
		{"RESTORE k 0 " + p + " IDLETIME 10", ok},
		{"RESTORE k2 0 " + p + " FREQ 255", ok},
		{"RESTORE k3 0 " + p + " FREQ 5 IDLETIME 1", errReply("syntax error")},
	} {
		args := splitKeep(tt[0], p)
		if got := h.run(args...); got != tt[1] {
			t.Errorf("%s = %q, want %q", tt[0], got, tt[1])
		}
	}
	want := "new:k restore:k new:k restore:k new:k restore:k del:k new:k restore:k new:k2 restore:k2"
	if got := strings.Join(events, " "); got != want {
		t.Errorf("events %q, want %q", got, want)
	}
}

// splitKeep splits a command line on spaces, keeping p (a payload, which
// may hold spaces) whole.
func splitKeep(line, p string) []string {
	before, after, found := strings.Cut(line, p)
	if !found {
		return strings.Fields(line)
	}
	out := strings.Fields(before)
	out = append(out, p)
	return append(out, strings.Fields(after)...)
}

// Redis's own test files (tests/assets of 7.0.15): the old encodings load,
// an empty key is skipped, a corrupt ziplist stops the load.
func TestLoadRedisAssets(t *testing.T) {
	for _, tt := range []struct {
		file        string
		keys, empty int
		fails       bool
	}{
		{"encodings.rdb", 13, 0, false},
		{"hash-zipmap.rdb", 1, 0, false},
		{"hash-ziplist.rdb", 1, 0, false},
		{"list-quicklist.rdb", 2, 0, false},
		{"zset-ziplist.rdb", 1, 0, false},
		{"scriptbackup.rdb", 0, 0, false},
		{"corrupt_empty_keys.rdb", 0, 9, false},
		{"corrupt_ziplist.rdb", 0, 0, true},
	} {
		b, err := os.ReadFile(filepath.Join("testdata", "rdb", tt.file))
		if err != nil {
			t.Fatal(err)
		}
		k := New(Config{})
		info, err := k.LoadRDB(b, k.Now(), true)
		if (err != nil) != tt.fails {
			t.Errorf("%s: LoadRDB: %v", tt.file, err)
			continue
		}
		if !tt.fails && (info.Keys != tt.keys || info.Empty != tt.empty) {
			t.Errorf("%s: %d keys, %d empty; want %d, %d", tt.file, info.Keys, info.Empty, tt.keys, tt.empty)
		}
	}
}

// A file written here loads back to the same values, TTLs and databases.
func TestRDBFileRoundTrip(t *testing.T) {
	h := newRDBTest(t)
	r := rdbRand(t)
	keys := genKeys(h, r)
	h.run("SET", "big", genElem(r, 3<<20)+strings.Repeat("z", 3<<20)) // the file spans chunks
	keys = append(keys, "big")
	h.db = 7
	h.run("SET", "seven", "7")
	f := &RDBFile{Aux: [][2]string{{"redis-ver", "7.0.15"}}, Compress: true, Checksum: true}
	file := h.k.AppendRDBFile(nil, f, h.k.Now())
	k2 := New(Config{Clock: h.clock})
	k2.SetEncodings(h.k.Encodings())
	info, err := k2.LoadRDB(file, k2.Now(), true)
	if err != nil {
		t.Fatal(err)
	}
	if info.Keys != len(keys)+1 || info.Aux["redis-ver"] != "7.0.15" {
		t.Errorf("loaded %d keys (want %d), aux %v", info.Keys, len(keys)+1, info.Aux)
	}
	w := NewRDBWriter(true)
	for _, key := range keys {
		a, _, _ := h.k.ValueOf(0, []byte(key), h.k.Now())
		b, _, ok := k2.ValueOf(0, []byte(key), k2.Now())
		pa, pb := AppendRDBValue(w, nil, a), AppendRDBValue(w, nil, b)
		if !ok || !bytes.Equal(pa, pb) && !unordered(pa[0]) {
			t.Errorf("%s: loaded as %.60q, saved as %.60q", key, pb, pa)
		}
	}
	file[len(file)-1] ^= 1
	if _, err := New(Config{}).LoadRDB(file, 0, true); err == nil || err.Error() != "Wrong RDB checksum" {
		t.Errorf("a bad checksum: %v", err)
	}
}

// FuzzReadRDBValue feeds the decoder corrupt values: no panic, nothing
// allocated beyond a bound proportional to the input (a claimed length
// never sizes an allocation), and what it accepts encodes and reads back.
func FuzzReadRDBValue(f *testing.F) {
	h := newRDBTest(&testing.T{})
	r := rand.New(rand.NewPCG(1, 2))
	for _, k := range genKeys(h, r) {
		var w resp.Writer
		c := &Ctx{W: &w, Now: h.k.Now()}
		CmdDump(h.k, c, [][]byte{nil, []byte(k)})
		it, _, _ := resp.Next(w.B)
		if len(it.Data) < 4000 {
			f.Add(it.Data[:len(it.Data)-10])
		}
	}
	f.Add([]byte{2, 0x80, 0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{0, 0xc3, 0x80, 0xff, 0xff, 0xff, 0xff, 0x01})
	enc := DefaultEncodings()
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		v, err := ReadRDBValue(&rdbfmt.Reader{B: data[1:]}, data[0], enc)
		runtime.ReadMemStats(&after)
		// LZF may expand 88 times; each element then costs a slice
		// header and a little: a claimed 4 GiB would be far past this.
		if grew := after.TotalAlloc - before.TotalAlloc; grew > uint64(len(data))*88*64+1<<20 {
			t.Fatalf("%d bytes of input allocated %d bytes", len(data), grew)
		}
		if err != nil {
			if !errors.Is(err, ErrBadRDB) && !errors.Is(err, ErrEmptyRDB) {
				t.Fatalf("error %v", err)
			}
			return
		}
		w := NewRDBWriter(true)
		b := AppendRDBValue(w, nil, v)
		v2, err := ReadRDBValue(&rdbfmt.Reader{B: b[1:]}, b[0], enc)
		if err != nil {
			t.Fatalf("accepted %.300q, but its encoding %.300q reads back as %v", data, b, err)
		}
		if b2 := AppendRDBValue(w, nil, v2); !bytes.Equal(b, b2) && !unordered(b[0]) {
			t.Fatalf("re-encoding differs:\n%.300q\n%.300q", b, b2)
		}
	})
}

// BenchmarkLoadRDB loads a file of 100,000 lock-like keys (a string
// value, a TTL) per op.
func BenchmarkLoadRDB(b *testing.B) {
	k := New(Config{})
	now := k.Now()
	for i := 0; i < 100_000; i++ {
		key := []byte("lock:" + strconv.Itoa(i))
		k.PutRDB(0, key, Value{str: []byte("owner-" + strconv.Itoa(i*7919))}, now+3_600_000)
	}
	file := k.AppendRDBFile(nil, &RDBFile{Compress: true, Checksum: true}, now)
	b.SetBytes(int64(len(file)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k2 := New(Config{})
		if _, err := k2.LoadRDB(file, now, true); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzLoadRDB feeds the file loader corrupt files: an error, never a
// panic.
func FuzzLoadRDB(f *testing.F) {
	h := newRDBTest(&testing.T{})
	h.run("SET", "s", "v", "PX", "100000")
	h.run("RPUSH", "l", "a", "1")
	h.run("HSET", "h", "f", "v")
	h.db = 3
	h.run("SADD", "x", "1", "2")
	f.Add(h.k.AppendRDBFile(nil, &RDBFile{Aux: [][2]string{{"redis-ver", "7.0.15"}}, Functions: []byte{RDBOpFunction2, 1, 'x'}, Compress: true}, h.k.Now()))
	for _, name := range []string{"encodings.rdb", "hash-zipmap.rdb", "zset-ziplist.rdb"} {
		if b, err := os.ReadFile(filepath.Join("testdata", "rdb", name)); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		k := New(Config{})
		k.LoadRDB(b, 0, false)
	})
}
