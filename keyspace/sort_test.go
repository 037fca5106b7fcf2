package keyspace

import (
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/minilock/minilock/resp"
)

// sortScore reads scores as redis-server 7.0.15 on glibc 2.36 did when
// asked (each row checked with a SORT of a one-element list).
func TestSortScore(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"3", 3, true}, {"-0", 0, true}, {"", 0, true}, {"  -3", -3, true}, {"\t6", 6, true}, {"+.5", 0.5, true},
		{"0x10", 16, true}, {"0X1p3", 8, true}, {"4\x00zz", 4, true}, {"inf", inf, true}, {"-Infinity", -inf, true},
		{"1e-300", 1e-300, true}, {"2.2250738585072014e-308", 2.2250738585072014e-308, true},
		{"0x1p-1074", 5e-324, true}, {"0x1.8p-1023", 0x1.8p-1023, true}, {"0.0e-999999", 0, true}, {"0e5", 0, true},
		{"1.7976931348623157e308", 1.7976931348623157e308, true},
		// strtod's ERANGE: an overflow, an underflow to zero, an inexact
		// subnormal.
		{"1.7976931348623159e308", 0, false}, {"0x1p1024", 0, false}, {"1e400", 0, false}, {"1e-400", 0, false},
		{"4.9e-324", 0, false}, {"2.2250738585072011e-308", 0, false}, {"1e-320", 0, false},
		// Not numbers, or not only.
		{"nan", 0, false}, {"-nan", 0, false}, {"nan(123)", 0, false}, {"3  ", 0, false}, {".", 0, false}, {"-", 0, false},
		{"e5", 0, false}, {"1.5e", 0, false}, {"0x", 0, false}, {"0xg", 0, false}, {"1e+", 0, false}, {" ", 0, false}, {"a", 0, false},
	} {
		got, ok := sortScore([]byte(tc.in))
		if ok != tc.ok || ok && got != tc.want {
			t.Errorf("sortScore(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

var inf = 1 / zero()

func zero() float64 { return 0 }

func TestSortCommands(t *testing.T) {
	runKSCases(t, []ksCase{
		{"numbers", []ksStep{
			do("RPUSH l 3 1 2 10", num(4)),
			do("SORT l", "*4\r\n"+bulk("1")+bulk("2")+bulk("3")+bulk("10")),
			do("SORT l ALPHA", "*4\r\n"+bulk("1")+bulk("10")+bulk("2")+bulk("3")),
			do("SORT l DESC LIMIT 1 2", "*2\r\n"+bulk("3")+bulk("2")),
			do("SORT l BY nosort DESC", "*4\r\n"+bulk("10")+bulk("2")+bulk("1")+bulk("3")),
			do("SORT_RO l STORE d", errReply("syntax error")),
			do("SORT l LIMIT 0", errReply("syntax error")),
			do("SORT l LIMIT x 1", errReply("value is not an integer or out of range")),
		}},
		{"patterns", []ksStep{
			do("RPUSH l 1 2", num(2)),
			do("MSET w_1 9 w_2 5 o_2 two", ok),
			do("HSET h_1 f x", num(1)),
			do("SORT l BY w_* GET # GET o_* GET h_*->f", "*6\r\n"+bulk("2")+bulk("two")+nilBulk+bulk("1")+nilBulk+bulk("x")),
			do("SORT l BY w_* STORE d GET o_*", num(2)),
			do("LRANGE d 0 -1", "*2\r\n"+bulk("two")+bulk("")),
		}},
		{"scores", []ksStep{
			do("RPUSH l 1 x", num(2)),
			do("SORT l", errReply("One or more scores can't be converted into double")),
			do("SET s v", ok),
			do("SORT s", "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"),
		}},
		{"store deletes on empty", []ksStep{
			do("SET d v", ok),
			do("SORT nosuch STORE d", num(0)),
			do("EXISTS d", num(0)),
		}},
		{"sorted set keeps its order", []ksStep{
			do("ZADD z 2 a 1 b 3 c", num(3)),
			do("SORT z BY nosort LIMIT 1 5", "*2\r\n"+bulk("a")+bulk("c")),
			do("SORT z BY nosort DESC LIMIT 1 1", "*1\r\n"+bulk("a")),
		}},
	})
}

// A LIMIT far beyond the list is clamped to it before anything is
// allocated.
func TestSortLimitAllocatesForTheList(t *testing.T) {
	h := newKSTest(t)
	h.run("RPUSH", "l", "3", "1", "2")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for _, lim := range [][2]string{{"0", "9223372036854775807"}, {"9223372036854775807", "9223372036854775807"}, {"-9223372036854775808", "-1"}} {
		for _, by := range []string{"nosort", "w_*"} {
			h.run("SORT", "l", "BY", by, "LIMIT", lim[0], lim[1], "GET", "#", "GET", "#")
			h.run("SORT", "nosuch", "BY", by, "LIMIT", lim[0], lim[1])
		}
	}
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Fatalf("SORT of 3 elements with huge limits allocated %d bytes", grew)
	}
}

// SORT converts a sorted set to its large encoding for good, as sort.c's
// zsetConvert does.
func TestSortConvertsSortedSets(t *testing.T) {
	h := newKSTest(t)
	h.run("ZADD", "z", "1", "a")
	enc := func() string {
		info, _ := h.k.ObjectInfo(&Ctx{Now: h.k.Now()}, []byte("z"))
		return info.Encoding
	}
	if got := enc(); got != "listpack" {
		t.Fatalf("before SORT: %s", got)
	}
	h.run("SORT_RO", "z", "ALPHA")
	if got := enc(); got != "skiplist" {
		t.Fatalf("after SORT: %s, want skiplist", got)
	}
}

func TestSwapDB(t *testing.T) {
	h := newKSTest(t)
	h.run("SET", "a", "0", "PX", "1000")
	h.db = 1
	h.run("SET", "b", "1")
	if got := h.run("SWAPDB", "0", "1"); got != ok {
		t.Fatalf("SWAPDB = %q", got)
	}
	if got := h.run("PTTL", "a"); got != num(1000) {
		t.Fatalf("db 1 PTTL a after the swap = %q", got)
	}
	h.advance(1001 * time.Millisecond)
	if got := h.run("DBSIZE"); got != num(0) {
		t.Fatalf("db 1 DBSIZE after a's deadline = %q: the deadline did not move with the key", got)
	}
	h.db = 0
	if got := h.run("GET", "b"); got != bulk("1") {
		t.Fatalf("db 0 GET b = %q", got)
	}
	for args, want := range map[[3]string]string{
		{"SWAPDB", "x", "0"}:          errReply("invalid first DB index"),
		{"SWAPDB", "0", "2147483648"}: errReply("invalid second DB index"),
		{"SWAPDB", "0", "16"}:         errReply("DB index is out of range"),
		{"SWAPDB", "-1", "0"}:         errReply("DB index is out of range"),
		{"SWAPDB", "15", "15"}:        ok,
	} {
		if got := h.run(args[:]...); got != want {
			t.Errorf("%q = %q, want %q", args, got, want)
		}
	}
}

// The watches of touchAllWatchedKeysInDb: a key present before or after
// the swap breaks them, except when it was expired at WATCH and is gone or
// still expired after.
func TestSwapDBWatches(t *testing.T) {
	for _, tc := range []struct {
		name        string
		db0, db1    string // "", "live" or "expired": key k in each
		watchedInDB int
		dirty       bool
	}{
		{"brought", "", "live", 0, true},
		{"taken", "live", "", 0, true},
		{"in neither", "", "", 0, false},
		{"expired and gone", "expired", "", 0, false},
		{"expired, replaced by expired", "expired", "expired", 0, false},
		{"expired, replaced by live", "expired", "live", 0, true},
		{"absent, replaced by expired", "", "expired", 0, false},
		{"another database", "live", "live", 2, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newKSTest(t)
			for db, state := range []string{tc.db0, tc.db1} {
				h.db = db
				switch state {
				case "live":
					h.run("SET", "k", "v")
				case "expired":
					h.run("SET", "k", "v", "PXAT", "1") // long past: expired, not yet removed
				}
			}
			var w Watch
			c := &Ctx{DB: tc.watchedInDB, Now: h.k.Now()}
			h.k.WatchKey(c, &w, []byte("k"))
			h.k.SwapDB(0, 1, h.k.Now())
			if got := h.k.WatchFailed(c, &w); got != tc.dirty {
				t.Fatalf("EXEC fails = %v, want %v", got, tc.dirty)
			}
		})
	}
}

// A swap reports the awaited keys the databases now hold, in key order.
func TestSwapDBReady(t *testing.T) {
	h := newKSTest(t)
	h.k.Await(0, "l")
	h.k.Await(0, "b")
	h.k.Await(1, "s")
	h.db = 1
	h.run("RPUSH", "l", "x")
	h.run("RPUSH", "b", "x")
	h.run("SET", "s", "string") // not a type anyone blocks on
	h.db = 0
	h.run("RPUSH", "s", "x")
	h.k.TakeReady()
	h.k.SwapDB(0, 1, h.k.Now())
	got := h.k.TakeReady()
	want := []ReadyKey{{0, "b"}, {0, "l"}, {1, "s"}}
	if len(got) != len(want) {
		t.Fatalf("ready after the swap = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("ready after the swap = %v, want %v", got, want)
		}
	}
}

// BenchmarkSort sorts a list of 1,000 numbers, half integers and half
// decimals, as docs/performance.md's SORT row does beside redis-server.
func BenchmarkSort(b *testing.B) {
	for _, opts := range [][]string{nil, {"ALPHA"}, {"BY", "w_*", "LIMIT", "0", "10"}} {
		name := "numeric"
		if opts != nil {
			name = opts[0]
		}
		b.Run(name, func(b *testing.B) {
			h := newKSTest(&testing.T{})
			args := []string{"RPUSH", "l"}
			for i := range 1000 {
				v := strconv.Itoa((i * 7919) % 100000)
				if i%2 == 0 {
					v = strconv.FormatFloat(float64((i*104729)%2000000)/1000-1000, 'f', 3, 64)
				}
				args = append(args, v)
				h.run("SET", "w_"+v, strconv.Itoa(i))
			}
			h.run(args...)
			argv := [][]byte{[]byte("SORT"), []byte("l")}
			for _, o := range opts {
				argv = append(argv, []byte(o))
			}
			var w resp.Writer
			c := &Ctx{W: &w, Now: h.k.Now()}
			b.ReportAllocs()
			for b.Loop() {
				w.B = w.B[:0]
				if err := CmdSort(h.k, c, argv, false); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
