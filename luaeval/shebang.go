package luaeval

import (
	"bytes"
	"strings"

	"github.com/minilock/minilock/resp"
)

// Script flags from a "#!lua flags=..." line (script.c:scripts_flags_def).
const (
	flagNoWrites = 1 << iota
	flagAllowOOM
	flagAllowStale
	flagNoCluster
	flagAllowCrossSlot
)

var shebangFlags = []struct {
	name string
	flag int
}{
	{"no-writes", flagNoWrites},
	{"allow-oom", flagAllowOOM},
	{"allow-stale", flagAllowStale},
	{"no-cluster", flagNoCluster},
	{"allow-cross-slot-keys", flagAllowCrossSlot},
}

// parseShebang reads the "#!lua flags=a,b" line a script may start with
// (eval.c:evalExtractShebangFlags). skip is the length of that line without
// its line feed; 0 when there is no shebang.
func parseShebang(body []byte) (flags, skip int, err error) {
	if !bytes.HasPrefix(body, []byte("#!")) {
		return 0, 0, nil
	}
	nl := bytes.IndexByte(body, '\n')
	if nl < 0 {
		return 0, 0, resp.NewError("Invalid script shebang")
	}
	parts, ok := splitArgs(string(body[:nl]))
	if !ok || len(parts) == 0 {
		return 0, 0, resp.NewError("Invalid engine in script shebang")
	}
	if parts[0] != "#!lua" {
		return 0, 0, resp.NewError("Unexpected engine in script shebang: " + cstring(parts[0]))
	}
	for _, p := range parts[1:] {
		if !strings.HasPrefix(p, "flags=") {
			return 0, 0, resp.NewError("Unknown lua shebang option: " + cstring(p))
		}
		list := p[len("flags="):]
		if list == "" {
			continue // sdssplitlen of an empty string has no elements
		}
		for _, f := range strings.Split(list, ",") {
			known := false
			for _, d := range shebangFlags {
				if f == d.name {
					flags |= d.flag
					known = true
					break
				}
			}
			if !known {
				return 0, 0, resp.NewError("Unexpected flag in script shebang: " + cstring(f))
			}
		}
	}
	return flags, nl, nil
}

// cstring cuts s at its first NUL, as %s does in Redis's error formatting.
func cstring(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}

// splitArgs is sds.c:sdssplitargs: words separated by white space, with
// "double" quotes (C escapes, \xHH) and 'single' quotes. ok is false for
// unbalanced quotes or a closing quote not followed by a space.
func splitArgs(line string) (out []string, ok bool) {
	i := 0
	isSpace := func(c byte) bool {
		return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\v' || c == '\f'
	}
	for {
		for i < len(line) && isSpace(line[i]) {
			i++
		}
		if i >= len(line) {
			return out, true
		}
		var cur []byte
		inq, insq := false, false
		for done := false; !done; {
			if inq {
				if i >= len(line) {
					return nil, false
				}
				c := line[i]
				switch {
				case c == '\\' && i+3 < len(line) && line[i+1] == 'x' && isHex(line[i+2]) && isHex(line[i+3]):
					cur = append(cur, unhex(line[i+2])<<4|unhex(line[i+3]))
					i += 3
				case c == '\\' && i+1 < len(line):
					i++
					switch line[i] {
					case 'n':
						cur = append(cur, '\n')
					case 'r':
						cur = append(cur, '\r')
					case 't':
						cur = append(cur, '\t')
					case 'b':
						cur = append(cur, '\b')
					case 'a':
						cur = append(cur, '\a')
					default:
						cur = append(cur, line[i])
					}
				case c == '"':
					if i+1 < len(line) && !isSpace(line[i+1]) {
						return nil, false
					}
					done = true
				default:
					cur = append(cur, c)
				}
			} else if insq {
				if i >= len(line) {
					return nil, false
				}
				c := line[i]
				switch {
				case c == '\\' && i+1 < len(line) && line[i+1] == '\'':
					i++
					cur = append(cur, '\'')
				case c == '\'':
					if i+1 < len(line) && !isSpace(line[i+1]) {
						return nil, false
					}
					done = true
				default:
					cur = append(cur, c)
				}
			} else {
				if i >= len(line) {
					break
				}
				c := line[i]
				switch {
				case isSpace(c):
					done = true
				case c == '"':
					inq = true
				case c == '\'':
					insq = true
				default:
					cur = append(cur, c)
				}
			}
			if i < len(line) {
				i++
			}
		}
		out = append(out, string(cur))
	}
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}
