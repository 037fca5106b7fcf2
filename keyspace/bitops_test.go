package keyspace

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/minilock/minilock/internal/redistest"
)

func init() {
	for name, run := range map[string]func(*Keyspace, *Ctx, [][]byte) error{
		"setbit": CmdSetBit, "getbit": CmdGetBit, "bitcount": CmdBitCount, "bitpos": CmdBitPos,
		"bitop": CmdBitOp, "bitfield": CmdBitField, "bitfield_ro": CmdBitFieldRO,
	} {
		ksCommands[name] = run
	}
}

// arr is an array reply of the replies given.
func arr(items ...string) string {
	s := "*" + strconv.Itoa(len(items)) + "\r\n"
	for _, it := range items {
		s += it
	}
	return s
}

func TestBitCommands(t *testing.T) {
	offErr := errReply("bit offset is not an integer or out of range")
	notInt := errReply("value is not an integer or out of range")
	syntax := errReply("syntax error")
	wrongType := "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"
	runKSCases(t, []ksCase{
		{"setbit getbit", []ksStep{do("SETBIT k 7 1", num(0)), do("GET k", bulk("\x01")), do("SETBIT k 7 1", num(1)),
			do("SETBIT k 7 0", num(1)), do("SETBIT k 100 1", num(0)), do("STRLEN k", num(13)), do("GETBIT k 100", num(1)),
			do("GETBIT k 101", num(0)), do("GETBIT k 4294967295", num(0)), do("GETBIT nosuch 3", num(0))}},
		{"setbit errors", []ksStep{do("SETBIT k 4294967296 1", offErr), do("SETBIT k -1 1", offErr), do("SETBIT k x 1", offErr),
			do("SETBIT k 1 2", errReply("bit is not an integer or out of range")), do("SETBIT k 1 -1", errReply("bit is not an integer or out of range")),
			do("GETBIT k 4294967296", offErr), do("EXISTS k", num(0)), do("RPUSH l a", num(1)), do("SETBIT l 0 1", wrongType),
			do("GETBIT l 0", wrongType), do("SETBIT l x 1", offErr)}},
		{"setbit keeps ttl", []ksStep{do("SET k a EX 100", ok), do("SETBIT k 0 1", num(0)), do("TTL k", num(100)), do("GET k", bulk("\xe1"))}},
		{"bitcount", []ksStep{do("SET s foobar", ok), do("BITCOUNT s", num(26)), do("BITCOUNT s 0 0", num(4)), do("BITCOUNT s 1 1", num(6)),
			do("BITCOUNT s 1 1 BYTE", num(6)), do("BITCOUNT s 5 30 BIT", num(17)), do("BITCOUNT s -1 -2 foo", num(0)),
			do("BITCOUNT s 0 1 foo", syntax), do("BITCOUNT s 0", syntax), do("BITCOUNT s 0 1 bit x", syntax),
			do("BITCOUNT s x 1", notInt), do("BITCOUNT nosuch 0", num(0)), do("BITCOUNT s -100 100", num(26)),
			do("BITCOUNT s 7 1 bit", num(0))}},
		{"bitpos", []ksStep{doArgs(ok, "SET", "s", "\xff\xf0\x00"), do("BITPOS s 0", num(12)), do("BITPOS s 1 2", num(-1)),
			do("BITPOS s 0 0 -1", num(12)), do("BITPOS s 1 8 -1 BIT", num(8)), do("BITPOS s 0 1 1 BYTE", num(12)),
			do("BITPOS s 1 12 -1 bit", num(-1)), do("BITPOS nosuch 0", num(0)), do("BITPOS nosuch 1", num(-1)),
			do("BITPOS nosuch 2", errReply("The bit argument must be 1 or 0.")), do("BITPOS s 0 0 1 x", syntax),
			do("BITPOS s 1 0 1 bit x", syntax)}},
		{"bitpos end given", []ksStep{doArgs(ok, "SET", "ones", "\xff\xff\xff"), do("BITPOS ones 0", num(24)),
			do("BITPOS ones 0 0", num(24)), do("BITPOS ones 0 0 -1", num(-1)), do("BITPOS ones 0 0 -1 bit", num(-1)),
			do("BITPOS ones 0 3 bit", notInt), do("BITPOS ones 0 3", num(-1)), do("BITPOS ones 0 2", num(24)), do("BITPOS ones 0 1 1 bit", num(-1)), doArgs(ok, "SET", "e", ""),
			do("BITPOS e 0", num(-1)), do("BITPOS e 1", num(-1))}},
		{"bitop", []ksStep{do("SET a abc", ok), do("SET b a", ok), do("BITOP AND d a b", num(3)), do("GET d", bulk("a\x00\x00")),
			do("BITOP OR d a b nosuch", num(3)), do("GET d", bulk("abc")), do("BITOP XOR d a b", num(3)), do("GET d", bulk("\x00bc")),
			do("BITOP NOT d b", num(1)), do("GET d", bulk("\x9e")), do("BITOP NOT d a b", errReply("BITOP NOT must be called with a single source key.")),
			do("BITOP foo d a", syntax), do("SET d x EX 100", ok), do("BITOP and d nosuch", num(0)), do("EXISTS d", num(0)),
			do("RPUSH l x", num(1)), do("BITOP or d a l", wrongType), do("SET d x EX 100", ok), do("BITOP or d a", num(3)),
			do("TTL d", num(-1)), do("BITOP or l a", num(3)), do("GET l", bulk("abc"))}},
		{"bitfield", []ksStep{
			do("BITFIELD f SET u8 0 255 GET u8 0 INCRBY u8 0 10", arr(num(0), num(255), num(9))),
			do("BITFIELD f OVERFLOW SAT INCRBY u8 0 300 OVERFLOW FAIL INCRBY u8 0 -300", arr(num(255), nilBulk)),
			do("BITFIELD f SET i64 0 -1 GET i64 0 GET u63 0 INCRBY i64 0 -9223372036854775808",
				arr(num(-72057594037927936), num(-1), num(9223372036854775807), num(9223372036854775807))),
			do("BITFIELD f GET u8 #1 SET u8 #2 5 GET u8 16", arr(num(255), num(255), num(5))),
			do("BITFIELD f", arr()), do("BITFIELD f OVERFLOW WRAP", arr()),
			do("BITFIELD f OVERFLOW SAT SET i8 0 1000 SET i8 0 -1000 OVERFLOW WRAP SET i8 0 200", arr(num(127), num(127), num(-128))),
			do("BITFIELD f INCRBY i5 100 15 INCRBY i5 100 1 OVERFLOW SAT INCRBY i5 100 -40", arr(num(15), num(-16), num(-16))),
		}},
		{"bitfield errors", []ksStep{
			do("BITFIELD f GET u64 0", errReply("Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.")),
			do("BITFIELD f GET i65 0", errReply("Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.")),
			do("BITFIELD f GET i0 0", errReply("Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.")),
			do("BITFIELD f GET u8 #-1", offErr), do("BITFIELD f GET u8 #536870912", offErr), do("BITFIELD f GET u8 #536870911", arr(num(0))),
			do("BITFIELD f OVERFLOW foo GET u8 0", errReply("Invalid OVERFLOW type specified")), do("BITFIELD f GET u8", syntax),
			do("BITFIELD f foo", syntax), do("BITFIELD f SET u8 0 x", notInt), do("BITFIELD f SET u8 0 1 GET u8 x", offErr),
			do("EXISTS f", num(0)), do("RPUSH l x", num(1)), do("BITFIELD l GET u8 0", wrongType), do("BITFIELD l SET u8 0 1", wrongType),
			doArgs(arr(num(0)), "BITFIELD", "f", "GET", "u8\x00junk", "0"),
		}},
		{"bitfield_ro", []ksStep{do("SET f \x01", ok), do("BITFIELD_RO f GET u8 0 GET i4 #1", arr(num(1), num(1))),
			do("BITFIELD_RO f SET u8 0 1", errReply("BITFIELD_RO only supports the GET subcommand")),
			do("BITFIELD_RO nosuch GET u8 0", arr(num(0))), do("EXISTS nosuch", num(0))}},
		// A write creates the key even when FAIL stops every operation.
		{"bitfield fail creates", []ksStep{do("BITFIELD n OVERFLOW FAIL INCRBY u8 8 300", arr(nilBulk)), do("GET n", bulk("\x00\x00"))}},
	})
}

// The offset limit is proto-max-bulk-len, in bytes.
func TestBitOffsetLimit(t *testing.T) {
	h := newKSTest(t)
	h.k.maxLen = 4
	offErr := errReply("bit offset is not an integer or out of range")
	for _, st := range []ksStep{
		do("SETBIT k 32 1", offErr),
		do("SETBIT k 31 1", num(0)),
		do("STRLEN k", num(4)),
		do("BITFIELD k GET u8 #4", offErr),
		// A field may end past the limit: Redis checks where it starts.
		do("BITFIELD k SET u8 31 255", arr(num(128))),
		do("STRLEN k", num(5)),
		do("GETBIT k 32", offErr),
	} {
		if got := h.run(st.args...); got != st.want {
			t.Fatalf("%q: got %q, want %q", st.args, got, st.want)
		}
	}
}

// Setting bit after bit past the end grows the bitmap as Redis's
// sdsgrowzero does: a string of n bytes has room for at most about twice
// (1 MiB more past 1 MiB), and the copies are few.
func TestSetBitGrowth(t *testing.T) {
	h := newKSTest(t)
	const size = 3 << 20
	for off := 7; off < size*8; off += 8 * 4096 {
		h.run("SETBIT", "k", strconv.Itoa(off), "1")
	}
	mem, _ := h.k.KeyMemory(&Ctx{}, []byte("k"))
	if got := h.run("STRLEN", "k"); got != num(size-4095) {
		t.Fatalf("STRLEN %q", got)
	}
	if mem > size+1<<20+256 {
		t.Fatalf("a %d-byte bitmap holds %d bytes", size, mem)
	}
	if got := h.run("BITCOUNT", "k"); got != num(size/4096) {
		t.Fatalf("BITCOUNT %q", got)
	}
}

// bitpos and popcount agree with a bit-by-bit reading on random strings.
func TestBitposPopcountModel(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		p := make([]byte, r.IntN(40))
		for i := range p {
			p[i] = []byte{0, 0xff, byte(r.Uint32())}[r.IntN(3)]
		}
		var ones int64
		first := [2]int64{-1, -1}
		for i := range len(p) * 8 {
			b := p[i/8] >> (7 - i%8) & 1
			ones += int64(b)
			if first[b] < 0 {
				first[b] = int64(i)
			}
		}
		if first[0] < 0 {
			first[0] = int64(len(p)) * 8
		}
		if got := popcount(p); got != ones {
			t.Fatalf("popcount(%x) = %d, want %d", p, got, ones)
		}
		for bit := range int64(2) {
			if got := bitpos(p, bit); got != first[bit] {
				t.Fatalf("bitpos(%x, %d) = %d, want %d", p, bit, got, first[bit])
			}
		}
	}
}

// TestNotifyDiffBits runs the notification differential test on bitmap
// commands mixed with the string and generic ones.
func TestNotifyDiffBits(t *testing.T) {
	srv := redistest.Start(t, "--hz", "100")
	seed := *notifySeed
	if seed == 0 {
		seed = rand.Uint64()
	}
	t.Logf("seed %d (rerun with -notify.seed=%d)", seed, seed)
	for fi, flags := range []string{"KEA", "KEAmn", "Kg$", "Enm"} {
		t.Run(flags, func(t *testing.T) {
			g := &notifyGen{r: rand.New(rand.NewPCG(seed, uint64(fi)+100))}
			var steps []nstep
			for len(steps) < 1500 {
				switch g.r.IntN(4) {
				case 0:
					steps = append(steps, g.stringStep())
				case 1:
					steps = append(steps, g.genericStep())
				default:
					steps = append(steps, g.bitStep())
				}
			}
			runNotifyDiff(t, srv.Addr, flags, steps)
		})
	}
}

// TestNotifyLazyExpiryBits: bit commands and LCS on keys past their
// deadline report expired (and keymiss for a read) as Redis does, in the
// order they look the keys up.
func TestNotifyLazyExpiryBits(t *testing.T) {
	runLazyCases(t, []lazyCase{
		{"SET k v", []string{"k"}, "SETBIT k 3 1"},
		{"SET k v", []string{"k"}, "GETBIT k 3"},
		{"SET k v", []string{"k"}, "BITCOUNT k"},
		{"SET k v", []string{"k"}, "BITPOS k 1"},
		{"SET k v; SET j v", []string{"k", "j"}, "BITOP OR d k j"},
		{"SET k v; SET d v", []string{"d"}, "BITOP OR d k"},
		{"SET k v; SET d v", []string{"k"}, "BITOP AND d k"},
		{"SET k v", []string{"k"}, "BITFIELD k GET u8 0"},
		{"SET k v", []string{"k"}, "BITFIELD k SET u8 0 1"},
		{"SET k v", []string{"k"}, "BITFIELD_RO k GET u8 0"},
		{"SET k v; SET j v", []string{"k", "j"}, "LCS k j"},
		{"SET k v", []string{"k"}, "SUBSTR k 0 1"},
	})
}

func (g *notifyGen) bitStep() nstep {
	k := func() string { return g.key('s') }
	off := func() string { return g.pick("0", "7", "8", "31", "100", "-1", "x") }
	switch g.r.IntN(8) {
	case 0, 1:
		return cmdOf("SETBIT", k(), off(), g.pick("0", "1", "1", "2"))
	case 2:
		return cmdOf("GETBIT", k(), off())
	case 3:
		return cmdOf("BITCOUNT", k(), g.idx(), g.idx(), g.pick("BIT", "BYTE"))
	case 4:
		return cmdOf("BITPOS", k(), g.pick("0", "1"), g.idx())
	case 5:
		return cmdOf("BITOP", g.pick("AND", "OR", "XOR", "NOT"), k(), k())
	case 6:
		return cmdOf("BITFIELD", k(), "OVERFLOW", g.pick("WRAP", "SAT", "FAIL"), g.pick("SET", "INCRBY"), g.pick("u8", "i5"), off(), g.pick("0", "1", "300", "-7"))
	default:
		return cmdOf("BITFIELD_RO", k(), "GET", g.pick("u8", "i5"), off())
	}
}

// FuzzBitCommands runs the bitmap commands and LCS on arguments the
// fuzzer makes (split at spaces, the first picking the command) on a
// keyspace whose proto-max-bulk-len is 64 KiB: no panic, and no string
// longer than the limit (plus the 8 bytes a BITFIELD field may reach past
// it) whatever the offsets.
func FuzzBitCommands(f *testing.F) {
	for _, seed := range []string{
		"0 k 7 1", "2 k 0 -1 bit", "3 k 0 3 -1 BIT", "4 and d k j", "5 k overflow fail incrby i64 #3 -9223372036854775808",
		"5 k set u63 524287 1 get i64 #8191", "6 k get u8 #2", "7 k j idx minmatchlen 2 withmatchlen", "1 k 524288",
	} {
		f.Add(seed)
	}
	names := []string{"SETBIT", "GETBIT", "BITCOUNT", "BITPOS", "BITOP", "BITFIELD", "BITFIELD_RO", "LCS"}
	arity := []int{4, 3, -2, -3, -4, -2, -2, -3} // the server checks them before a command runs
	f.Fuzz(func(t *testing.T, line string) {
		fields := strings.Fields(line)
		if len(fields) < 2 {
			return
		}
		n, err := strconv.Atoi(fields[0])
		if err != nil || n < 0 {
			return
		}
		args := append([]string{names[n%len(names)]}, fields[1:]...)
		if a := arity[n%len(names)]; (a > 0 && len(args) != a) || len(args) < -a {
			return
		}
		h := newKSTest(t)
		h.k.maxLen = 1 << 16
		h.run("SET", "j", "\xff\x0f\x00abc")
		h.run(args...)
		for _, key := range fields[1:] {
			got := h.run("STRLEN", key) // WRONGTYPE for a list: no number
			if n, err := strconv.Atoi(strings.Trim(got, ":\r\n")); err == nil && n > 1<<16+8 {
				t.Fatalf("%q: %q holds %d bytes", line, key, n)
			}
		}
	})
}
