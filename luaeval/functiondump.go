package luaeval

import (
	"strings"

	"github.com/minilock/minilock/internal/rdbfmt"
	"github.com/minilock/minilock/resp"
)

// FunctionDump is FUNCTION DUMP (functions.c:functionDumpCommand): each
// library as RDB_OPCODE_FUNCTION2 and its code as an RDB string, then the
// RDB version and the CRC64 of it all, as Redis 7.0 writes them. Libraries
// come in name order (Redis: its dictionary's order).
func (e *Engine) FunctionDump() []byte {
	libs := e.libSet().sorted(nil)
	size := 0
	for _, l := range libs {
		size += len(l.Code) + 8
	}
	b := make([]byte, 0, size+10)
	var enc rdbfmt.Encoder // one compression table for every library
	for _, l := range libs {
		b = append(b, rdbfmt.OpFunction2)
		b = enc.AppendString(b, []byte(l.Code))
	}
	return rdbfmt.AppendFooter(b)
}

// Restore policies of FUNCTION RESTORE.
const (
	RestoreAppend = iota
	RestoreReplace
	RestoreFlush
)

var errDumpPayload = resp.NewError("DUMP payload version or checksum are wrong")

// FunctionRestore is FUNCTION RESTORE payload [FLUSH|APPEND|REPLACE]
// (functions.c:functionRestoreCommand). The payload is hostile input: every
// length in it is checked against what remains before it is used, and each
// library's code runs within LoadTimeout (Redis gives a restore no time
// limit; minilock keeps FUNCTION LOAD's, see docs/differences.md).
func (e *Engine) FunctionRestore(payload []byte, policy int) error {
	if _, ok := rdbfmt.Footer(payload); !ok {
		return errDumpPayload
	}
	tmp := newLibSet()
	r := rdbfmt.Reader{B: payload}
	for len(payload)-r.Pos > 10 {
		typ, _ := r.Byte()
		var code []byte
		switch typ {
		case rdbfmt.OpFunction2:
			s, ok := r.String()
			if !ok {
				return resp.NewError("Failed loading library payload")
			}
			code = s
		case rdbfmt.OpFunction:
			c, err := readOldFunction(&r)
			if err != nil {
				return err
			}
			code = c
		default:
			return resp.NewError("given type is not a function")
		}
		if _, err := e.createLibrary(code, false, tmp); err != nil {
			return err
		}
	}
	s := e.libSet()
	if policy == RestoreFlush {
		e.fn.set = tmp
		e.fn.counts()
		return nil
	}
	if err := joinLibs(s, tmp, policy == RestoreReplace); err != nil {
		return err
	}
	e.fn.counts()
	return nil
}

// readOldFunction reads 7.0-rc1/rc2's RDB_OPCODE_FUNCTION record and makes
// the library code it stands for (rdb.c:rdbFunctionLoad).
func readOldFunction(r *rdbfmt.Reader) ([]byte, error) {
	name, ok := r.String()
	if !ok {
		return nil, resp.NewError("Failed loading library name")
	}
	engine, ok := r.String()
	if !ok {
		return nil, resp.NewError("Failed loading engine name")
	}
	// rdbLoadLen without isencoded: an encoded length is just its number.
	hasDesc, _, ok := r.Len()
	if !ok {
		return nil, resp.NewError("Failed loading library description indicator")
	}
	if hasDesc != 0 {
		if _, ok := r.String(); !ok {
			return nil, resp.NewError("Failed loading library description")
		}
	}
	blob, ok := r.String()
	if !ok {
		return nil, resp.NewError("Failed loading library blob")
	}
	code := make([]byte, 0, len(engine)+len(name)+len(blob)+10)
	code = append(code, "#!"...)
	code = append(code, engine...)
	code = append(code, " name="...)
	code = append(code, name...)
	code = append(code, '\n')
	return append(code, blob...), nil
}

// joinLibs is functions.c:libraryJoin: src's libraries go into dst, unless
// one exists there (without replace) or one of src's functions collides
// with a function left in dst; then dst is as it was.
func joinLibs(dst, src *libSet, replace bool) error {
	var replaced []*Library
	undo := func() {
		for _, l := range replaced {
			dst.link(l)
		}
	}
	libs := src.sorted(nil) // once: 10,000 libraries took two sorts
	for _, l := range libs {
		old := dst.libs[l.Name]
		if old == nil {
			continue
		}
		if !replace {
			undo()
			return resp.NewError("Library " + l.Name + " already exists")
		}
		dst.unlink(old)
		replaced = append(replaced, old)
	}
	var err error
	for _, l := range libs {
		l.eachSorted(func(f *Function) bool {
			if dst.funcs[strings.ToLower(f.Name)] != nil {
				err = resp.NewError("Function " + f.Name + " already exists")
				return false
			}
			return true
		})
		if err != nil {
			undo()
			return err
		}
	}
	for _, l := range src.libs {
		dst.link(l)
	}
	return nil
}
