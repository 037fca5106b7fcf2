package server

import (
	"errors"
	"strconv"
	"strings"

	"github.com/minilock/minilock/internal/redisstr"
	"github.com/minilock/minilock/keyspace"
	"github.com/minilock/minilock/resp"
)

// Settings CONFIG SET changes at run time. Each is one row: its Redis name
// and aliases, how its value is read (config.c's numeric and memory
// configs), and how it takes effect. A setting not listed here is refused
// as Redis refuses an unknown one.

// configParam is one settable setting.
type configParam struct {
	name    string
	aliases []string
	// memory: the value may carry a unit (1kb, 5mb ...), as
	// MEMORY_CONFIG; otherwise it is a plain integer.
	memory   bool
	min, max int64
	// set applies a value already validated. Owner goroutine.
	set func(s *Server, n int64)
	// get reads the value back for CONFIG GET.
	get func(s *Server) int64
	// parseValue and format, when set, read and write a value that is not
	// a number (notify-keyspace-events).
	parseValue func(v string) (int64, error)
	format     func(n int64) string
}

// encodingParam is a row for one of keyspace.Encodings' thresholds.
func encodingParam(name, alias string, memory bool, min, max int64, field func(*keyspace.Encodings) *int) configParam {
	return configParam{
		name: name, aliases: []string{alias}, memory: memory, min: min, max: max,
		set: func(s *Server, n int64) {
			e := s.ks.Encodings()
			*field(&e) = int(n)
			s.ks.SetEncodings(e)
		},
		get: func(s *Server) int64 {
			e := s.ks.Encodings()
			return int64(*field(&e))
		},
	}
}

// configParams are the settable settings, with config.c's bounds.
var configParams = []configParam{
	encodingParam("hash-max-listpack-entries", "hash-max-ziplist-entries", false, 0, 1<<63-1, func(e *keyspace.Encodings) *int { return &e.HashMaxListpackEntries }),
	encodingParam("hash-max-listpack-value", "hash-max-ziplist-value", true, 0, 1<<63-1, func(e *keyspace.Encodings) *int { return &e.HashMaxListpackValue }),
	encodingParam("zset-max-listpack-entries", "zset-max-ziplist-entries", false, 0, 1<<63-1, func(e *keyspace.Encodings) *int { return &e.ZSetMaxListpackEntries }),
	encodingParam("zset-max-listpack-value", "zset-max-ziplist-value", true, 0, 1<<63-1, func(e *keyspace.Encodings) *int { return &e.ZSetMaxListpackValue }),
	encodingParam("set-max-intset-entries", "", false, 0, 1<<63-1, func(e *keyspace.Encodings) *int { return &e.SetMaxIntsetEntries }),
	encodingParam("list-max-listpack-size", "list-max-ziplist-size", false, -(1 << 31), 1<<31-1, func(e *keyspace.Encodings) *int { return &e.ListMaxListpackSize }),
	notifyParam,
}

// findParam finds a settable setting by any of its names, ignoring case.
func findParam(name string) (*configParam, string) {
	name = strings.ToLower(name)
	for i := range configParams {
		p := &configParams[i]
		if p.name == name {
			return p, name
		}
		for _, a := range p.aliases {
			if a != "" && a == name {
				return p, name
			}
		}
	}
	return nil, ""
}

var (
	errNotInteger = errors.New("argument couldn't be parsed into an integer")
	errNotMemory  = errors.New("argument must be a memory value")
)

// parseParam reads a value as config.c's numeric configs do: an integer,
// or for a memory setting a size with an optional unit (memtoull).
func (p *configParam) parse(v string) (int64, error) {
	if p.parseValue != nil {
		return p.parseValue(v)
	}
	var n int64
	if p.memory {
		u, ok := memToBytes(v)
		if !ok {
			return 0, errNotMemory
		}
		n = u
	} else {
		var ok bool
		if n, ok = redisstr.ParseInt([]byte(v)); !ok {
			return 0, errNotInteger
		}
	}
	if n < p.min || n > p.max {
		return 0, errors.New("argument must be between " + strconv.FormatInt(p.min, 10) + " and " + strconv.FormatInt(p.max, 10) + " inclusive")
	}
	return n, nil
}

// memToBytes is util.c:memtoull: a number and an optional unit b, k, kb,
// m, mb, g, gb (any case; k is 1000, kb 1024).
func memToBytes(s string) (int64, bool) {
	units := []struct {
		suffix string
		mul    int64
	}{{"kb", 1024}, {"mb", 1 << 20}, {"gb", 1 << 30}, {"k", 1000}, {"m", 1000 * 1000}, {"g", 1000 * 1000 * 1000}, {"b", 1}}
	l := strings.ToLower(s)
	mul := int64(1)
	for _, u := range units {
		if strings.HasSuffix(l, u.suffix) {
			l, mul = strings.TrimSuffix(l, u.suffix), u.mul
			break
		}
	}
	n, err := strconv.ParseUint(l, 10, 64)
	if err != nil || l == "" || n > uint64(1<<63-1)/uint64(mul) {
		return 0, false
	}
	return int64(n) * int64(mul), true
}

// CONFIG SET parameter value [parameter value ...]: every value is checked
// before any is applied, as configSetCommand does.
func cmdConfigSet(x *call, args [][]byte) error {
	if len(args)%2 != 0 {
		return resp.ErrWrongArgs("config|set")
	}
	type change struct {
		p *configParam
		n int64
	}
	var changes []change
	seen := map[*configParam]bool{}
	for j := 2; j < len(args); j += 2 {
		p, name := findParam(string(args[j]))
		if p == nil {
			return resp.NewError("Unknown option or number of arguments for CONFIG SET - '" + redisstr.CString(args[j]) + "'")
		}
		if seen[p] {
			return resp.NewError("CONFIG SET failed (possibly related to argument '" + name + "') - duplicate parameter")
		}
		seen[p] = true
		n, err := p.parse(string(args[j+1]))
		if err != nil {
			return resp.NewError("CONFIG SET failed (possibly related to argument '" + name + "') - " + err.Error())
		}
		changes = append(changes, change{p, n})
	}
	for _, ch := range changes {
		ch.p.set(x.s, ch.n)
	}
	x.W.OK()
	return nil
}
