package resp

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"testing"
)

func TestWriter(t *testing.T) {
	tests := []struct {
		name       string
		write      func(w *Writer)
		resp2, rs3 string
	}{
		{"ok", (*Writer).OK, "+OK\r\n", "+OK\r\n"},
		{"status with newline", func(w *Writer) { w.Status("a\r\nb") }, "+a  b\r\n", "+a  b\r\n"},
		{"error", func(w *Writer) { w.Error("ERR x\ny") }, "-ERR x y\r\n", "-ERR x y\r\n"},
		{"int", func(w *Writer) { w.Int(-42) }, ":-42\r\n", ":-42\r\n"},
		{"bulk", func(w *Writer) { w.Bulk([]byte("a\r\nb")) }, "$4\r\na\r\nb\r\n", "$4\r\na\r\nb\r\n"},
		{"empty bulk", func(w *Writer) { w.BulkString("") }, "$0\r\n\r\n", "$0\r\n\r\n"},
		{"null", (*Writer).Null, "$-1\r\n", "_\r\n"},
		{"null array", (*Writer).NullArray, "*-1\r\n", "_\r\n"},
		{"map", func(w *Writer) { w.Map(2) }, "*4\r\n", "%2\r\n"},
		{"set", func(w *Writer) { w.Set(3) }, "*3\r\n", "~3\r\n"},
		{"true", func(w *Writer) { w.Bool(true) }, ":1\r\n", "#t\r\n"},
		{"false", func(w *Writer) { w.Bool(false) }, ":0\r\n", "#f\r\n"},
		{"double", func(w *Writer) { w.Double(3.14) }, "$18\r\n3.1400000000000001\r\n", ",3.1400000000000001\r\n"},
		{"double inf", func(w *Writer) { w.Double(math.Inf(-1)) }, "$4\r\n-inf\r\n", ",-inf\r\n"},
		{"double -0", func(w *Writer) { w.Double(math.Copysign(0, -1)) }, "$2\r\n-0\r\n", ",-0\r\n"},
		{"double exp", func(w *Writer) { w.Double(1e20) }, "$5\r\n1e+20\r\n", ",1e+20\r\n"},
		{"big number", func(w *Writer) { w.BigNumber("123") }, "$3\r\n123\r\n", "(123\r\n"},
		{"verbatim", func(w *Writer) { w.Verbatim("txt", "hi") }, "$2\r\nhi\r\n", "=6\r\ntxt:hi\r\n"},
	}
	for _, tt := range tests {
		for proto, want := range map[int]string{2: tt.resp2, 3: tt.rs3} {
			w := Writer{Proto: proto}
			tt.write(&w)
			if string(w.B) != want {
				t.Errorf("%s RESP%d: %q, want %q", tt.name, proto, w.B, want)
			}
		}
	}
}

func TestText(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{ErrSyntax, "ERR syntax error"},
		{fmt.Errorf("set: %w", ErrWrongType), "WRONGTYPE Operation against a key holding the wrong kind of value"},
		{errors.New("boom"), "ERR boom"},
		{&Error{Code: "MYERR"}, "MYERR"},
		{ErrInvalidExpire("SET"), "ERR invalid expire time in 'set' command"},
		{ErrUnknownSubcommand([]byte("script"), []byte("foo")), "ERR unknown subcommand 'foo'. Try SCRIPT HELP."},
		{ErrUnknownCommand([]byte("foo"), nil), "ERR unknown command 'foo', with args beginning with: "},
		{ErrUnknownCommand([]byte("foo\x00bar"), [][]byte{[]byte("a"), []byte("b\x00c")}), "ERR unknown command 'foo', with args beginning with: 'a' 'b' "},
	}
	for _, tt := range tests {
		if got := Text(tt.err); got != tt.want {
			t.Errorf("Text(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}

// TestUnknownCommandArgsStopAt128 checks Redis's rule: arguments are added
// while the list is shorter than 128 bytes, each cut to what is left.
func TestUnknownCommandArgsStopAt128(t *testing.T) {
	long := make([]byte, 200)
	for i := range long {
		long[i] = 'x'
	}
	got := ErrUnknownCommand([]byte("nope"), [][]byte{[]byte("ab"), long, []byte("never")}).Msg
	want := "unknown command 'nope', with args beginning with: 'ab' '" + string(long[:123]) + "' "
	if got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
}

func TestNextAndSkip(t *testing.T) {
	in := "*3\r\n:1\r\n$-1\r\n%1\r\n+k\r\n=7\r\ntxt:abc\r\n+rest"
	rest, err := Skip([]byte(in))
	if err != nil || string(rest) != "+rest" {
		t.Fatalf("Skip: %q, %v", rest, err)
	}
	it, _, err := Next([]byte("$-1\r\n"))
	if err != nil || it.Kind != '_' {
		t.Fatalf("null bulk: %+v %v", it, err)
	}
	for _, bad := range []string{"$5\r\nab\r\n", "*2\r\n:1\r\n", ":1\r"} {
		if _, err := Skip([]byte(bad)); !errors.Is(err, ErrIncomplete) {
			t.Errorf("Skip(%q) = %v, want ErrIncomplete", bad, err)
		}
	}
	for _, bad := range []string{"?x\r\n", ":1\n", "$2\r\nabcd", "#x\r\n", "*-2\r\n"} {
		if _, err := Skip([]byte(bad)); !errors.Is(err, ErrMalformed) {
			t.Errorf("Skip(%q) = %v, want ErrMalformed", bad, err)
		}
	}
}

// FuzzNext checks that the reply reader never panics, and that whatever
// Skip accepts it consumes exactly.
func FuzzNext(f *testing.F) {
	for _, seed := range []string{"+OK\r\n", "*2\r\n$1\r\na\r\n:5\r\n", "%1\r\n_\r\n#t\r\n", "$-1\r\n", "*9223372036854775807\r\n", "$9223372036854775807\r\n"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		rest, err := Skip(b)
		if err == nil && len(rest) > len(b) {
			t.Fatalf("Skip grew the input")
		}
		for len(b) > 0 {
			_, r, err := Next(b)
			if err != nil {
				return
			}
			if len(r) >= len(b) {
				t.Fatalf("Next consumed nothing from %q", b)
			}
			b = r
		}
	})
}

func BenchmarkWriterSmallReplies(b *testing.B) {
	b.ReportAllocs()
	w := Writer{Proto: 2}
	val := []byte("0123456789abcdef0123456789abcdef")
	for b.Loop() {
		w.B = w.B[:0]
		w.OK()
		w.Bulk(val)
		w.Int(1)
		w.Null()
	}
}

// A spilling Writer holds a big reply in pieces of about SpillAt, and
// Len, From and Truncate see one stream of bytes across them.
func TestWriterSpill(t *testing.T) {
	w := &Writer{SpillAt: 1 << 10}
	var flat Writer
	for i := range 100000 {
		v := []byte(strconv.Itoa(i))
		w.Bulk(v)
		flat.Bulk(v)
	}
	if w.Len() != len(flat.B) {
		t.Fatalf("Len %d, the bytes are %d", w.Len(), len(flat.B))
	}
	held := cap(w.B)
	var all []byte
	for _, p := range w.Spilled {
		held += cap(p)
		all = append(all, p...)
	}
	all = append(all, w.B...)
	if !bytes.Equal(all, flat.B) {
		t.Fatal("the pieces differ from the reply")
	}
	if held > w.Len()+w.Len()/4+2<<10 {
		t.Fatalf("%d bytes held for a reply of %d", held, w.Len())
	}
	for _, n := range []int{w.Len(), w.Len() - 3, 5000, 1024, 1023, 0} {
		if got, want := w.From(n), flat.B[n:]; !bytes.HasPrefix(want, got) || len(got) == 0 && n < w.Len() {
			t.Fatalf("From(%d) = %d bytes, not a start of the rest", n, len(got))
		}
		w.Truncate(n)
		flat.B = flat.B[:n]
		all = all[:0]
		for _, p := range w.Spilled {
			all = append(all, p...)
		}
		all = append(all, w.B...)
		if w.Len() != n || !bytes.Equal(all, flat.B) {
			t.Fatalf("Truncate(%d): Len %d, bytes differ: %v", n, w.Len(), !bytes.Equal(all, flat.B))
		}
	}
	w.Bulk([]byte("again"))
	if len(w.Spilled) != 0 || string(w.B) != "$5\r\nagain\r\n" {
		t.Fatalf("after Truncate(0): %q and %d pieces", w.B, len(w.Spilled))
	}
}
