package luaeval

import (
	"bytes"
	"strings"

	"github.com/minilock/minilock/internal/redisstr"
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
	parts, ok := redisstr.Split(string(body[:nl]))
	if !ok || len(parts) == 0 {
		return 0, 0, resp.NewError("Invalid engine in script shebang")
	}
	if parts[0] != "#!lua" {
		return 0, 0, resp.NewError("Unexpected engine in script shebang: " + redisstr.CString([]byte(parts[0])))
	}
	for _, p := range parts[1:] {
		if !strings.HasPrefix(p, "flags=") {
			return 0, 0, resp.NewError("Unknown lua shebang option: " + redisstr.CString([]byte(p)))
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
				return 0, 0, resp.NewError("Unexpected flag in script shebang: " + redisstr.CString([]byte(f)))
			}
		}
	}
	return flags, nl, nil
}
