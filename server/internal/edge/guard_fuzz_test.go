package edge

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tidwall/redcon"
)

// FuzzGuard feeds the guard arbitrary bytes in arbitrary reads: cuts gives
// the sizes of the client's reads (and the first one the size of redcon's),
// pending whether auth is pending. Whatever comes in, the guard must not
// panic, must hand redcon only canonical commands that redcon parses back
// to the same arguments, must stay failed and silent after an error, and
// must not depend on how the input was cut while no line reaches 64 KiB.
func FuzzGuard(f *testing.F) {
	for _, tt := range guardTests {
		if whole := strings.Join(tt.in, ""); len(whole) <= 4096 {
			f.Add([]byte(whole), []byte{1}, tt.pending)
		}
	}
	for _, frame := range slices.Concat(guardDiffFrames, guardDiffAuthFrames) {
		if len(frame) <= 4096 {
			f.Add([]byte(frame), []byte{}, true)
			f.Add([]byte(frame), []byte{3, 0, 7}, false)
		}
	}
	f.Fuzz(func(t *testing.T, data, cuts []byte, pending bool) {
		readSize := 4096
		if len(cuts) > 0 {
			readSize = 1 + int(cuts[0])
		}
		r := runGuard(t, guardCuts(data, cuts), pending, Limits{}, readSize)
		ends := checkGuardOutput(t, r.out)
		if pending {
			// Each Read holds one command at most: none ends inside it.
			pos := 0
			for _, read := range r.reads {
				for _, end := range ends {
					if pos < end && end < pos+len(read) {
						t.Fatalf("a Read while auth is pending holds more than one command: %q", read)
					}
				}
				pos += len(read)
			}
		}
		if len(data) <= protoInlineMaxSize {
			whole := runGuard(t, []string{string(data)}, pending, Limits{}, 4096)
			if whole.out != r.out || whole.written != r.written || guardErrText(whole.err) != guardErrText(r.err) {
				t.Fatalf("cut input: %q, %q, %v\nwhole input: %q, %q, %v",
					r.out, r.written, r.err, whole.out, whole.written, whole.err)
			}
		}
	})
}

func guardErrText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// guardCuts cuts data into reads of the sizes cuts gives, over and over.
func guardCuts(data, cuts []byte) []string {
	if len(cuts) == 0 {
		return []string{string(data)}
	}
	var chunks []string
	for i := 0; len(data) > 0; i++ {
		n := min(len(data), 1+int(cuts[i%len(cuts)]))
		chunks = append(chunks, string(data[:n]))
		data = data[n:]
	}
	return chunks
}

// checkGuardOutput checks that out is a sequence of canonical multibulk
// commands that redcon.Parse reads back as the same arguments, and returns
// the offset where each ends.
func checkGuardOutput(t testing.TB, out string) []int {
	t.Helper()
	header := func(s string, kind byte, least int) (int, string) {
		t.Helper()
		line, rest, ok := strings.Cut(s, "\r\n")
		if !ok || len(line) < 2 || line[0] != kind {
			t.Fatalf("want a %c header at %q", kind, s)
		}
		n, err := strconv.Atoi(line[1:])
		if err != nil || n < least || strconv.Itoa(n) != line[1:] {
			t.Fatalf("not a canonical %c header: %q", kind, line)
		}
		return n, rest
	}
	var ends []int
	for rest := out; rest != ""; {
		cmd := rest
		var n int
		n, rest = header(rest, '*', 1)
		var args []string
		for range n {
			var size int
			size, rest = header(rest, '$', 0)
			if len(rest) < size+2 || rest[size:size+2] != "\r\n" {
				t.Fatalf("bulk of %d bytes not ended by CRLF: %q", size, rest)
			}
			args = append(args, rest[:size])
			rest = rest[size+2:]
		}
		cmd = cmd[:len(cmd)-len(rest)]
		parsed, err := redcon.Parse([]byte(cmd))
		if err != nil {
			t.Fatalf("redcon.Parse(%q): %v", cmd, err)
		}
		if len(parsed.Args) != len(args) {
			t.Fatalf("redcon.Parse(%q) = %q", cmd, parsed.Args)
		}
		for i := range args {
			if string(parsed.Args[i]) != args[i] {
				t.Fatalf("redcon.Parse(%q) = %q", cmd, parsed.Args)
			}
		}
		ends = append(ends, len(out)-len(rest))
	}
	return ends
}
