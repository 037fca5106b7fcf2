// Package lcjson is lua-cjson 2.1.0 as Redis 7.0 ships it
// (deps/lua/src/lua_cjson.c): cjson.encode and cjson.decode with the
// library's number formats, escapes, sparse-array rules, depth limits and
// error messages, and its configuration functions.
//
// Where it differs from the C, on purpose: Redis keeps the configuration
// for the life of the Lua state, so one script's cjson.encode_max_depth(1)
// changes every later script; here the engine calls Reset before each run.
// cjson.new returns the module itself (a fresh instance would share the
// per-run configuration). The encoder refuses output past the host's
// string limit before it grows its buffer.
package lcjson

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	lua "github.com/yuin/gopher-lua"

	"github.com/minilock/minilock/luaeval/internal/lauxlib"
	"github.com/minilock/minilock/luaeval/internal/seam"
)

// config is lua-cjson's per-module configuration.
type config struct {
	encodeMaxDepth   int
	decodeMaxDepth   int
	precision        int
	keepBuffer       bool
	sparseConvert    bool
	sparseRatio      int
	sparseSafe       int
	encodeInvalidNum int // 0 error, 1 allow (NaN/Infinity), 2 "null"... as lua-cjson
	decodeInvalidNum bool
}

var defaultConfig = config{
	encodeMaxDepth: 1000, decodeMaxDepth: 1000, precision: 14, keepBuffer: true,
	sparseRatio: 2, sparseSafe: 10, decodeInvalidNum: true,
}

// Null is cjson.null, the stand-in for JSON null (a NULL lightuserdata in
// Redis; a userdata here, so type() says "userdata" as there).
var Null = &lua.LUserData{Metatable: lua.LNil}

// Host is what the library needs of the sandbox it is installed in.
type Host interface {
	// Real returns the table t stands for when t is a read-only proxy,
	// else t itself: the encoder walks what the script can read.
	Real(t *lua.LTable) *lua.LTable
	// MaxStringBytes is the longest string a script may build.
	MaxStringBytes() int
	// Global returns the global name as scripts see it (cjson.new
	// returns the module, "cjson").
	Global(name string) lua.LValue
}

// Lib is one installed cjson module and its configuration.
type Lib struct {
	host  Host
	cfg   config
	dirty bool // cfg differs from defaultConfig
}

// Open fills t, a new table in L, with the cjson module, whose
// configuration stays as scripts set it until Reset.
func Open(L *lua.LState, t *lua.LTable, h Host) *Lib {
	lib := &Lib{host: h, cfg: defaultConfig}
	t.RawSetString("_NAME", lua.LString("cjson"))
	t.RawSetString("_VERSION", lua.LString("2.1.0"))
	t.RawSetString("null", Null)
	for k, f := range map[string]lua.LGFunction{
		"encode":                  lib.encode,
		"decode":                  lib.decode,
		"encode_max_depth":        lib.intOpt(&lib.cfg.encodeMaxDepth, 1, math.MaxInt32),
		"decode_max_depth":        lib.intOpt(&lib.cfg.decodeMaxDepth, 1, math.MaxInt32),
		"encode_number_precision": lib.intOpt(&lib.cfg.precision, 1, 14),
		"encode_keep_buffer":      lib.boolOpt(&lib.cfg.keepBuffer),
		"decode_invalid_numbers":  lib.boolOpt(&lib.cfg.decodeInvalidNum),
		"encode_invalid_numbers":  lib.encodeInvalid,
		"encode_sparse_array":     lib.sparse,
		"new": func(L *lua.LState) int {
			L.Push(h.Global("cjson"))
			return 1
		},
	} {
		t.RawSetString(k, L.NewFunction(f))
	}
	return lib
}

func (lib *Lib) intOpt(p *int, lo, hi int) lua.LGFunction {
	return func(L *lua.LState) int {
		if L.GetTop() >= 1 && L.Get(1) != lua.LNil {
			f := lauxlib.CheckNumber(L, 1)
			v := int(lauxlib.ToInteger(f))
			if v < lo || v > hi {
				lauxlib.ArgError(L, 1, "expected integer between "+strconv.Itoa(lo)+" and "+strconv.Itoa(hi))
			}
			lib.dirty = true
			*p = v
		}
		L.Push(lua.LNumber(*p))
		return 1
	}
}

func (lib *Lib) boolOpt(p *bool) lua.LGFunction {
	return func(L *lua.LState) int {
		if L.GetTop() >= 1 && L.Get(1) != lua.LNil {
			lib.dirty = true
			*p = lua.LVAsBool(L.Get(1))
		}
		L.Push(lua.LBool(*p))
		return 1
	}
}

func (lib *Lib) encodeInvalid(L *lua.LState) int {
	c := &lib.cfg
	if L.GetTop() >= 1 && L.Get(1) != lua.LNil {
		lib.dirty = true
		switch v := L.Get(1).(type) {
		case lua.LString:
			if v != "null" {
				lauxlib.ArgError(L, 1, "invalid option '"+string(v)+"'")
			}
			c.encodeInvalidNum = 2
		default:
			if lua.LVAsBool(v) {
				c.encodeInvalidNum = 1
			} else {
				c.encodeInvalidNum = 0
			}
		}
	}
	switch c.encodeInvalidNum {
	case 1:
		L.Push(lua.LTrue)
	case 2:
		L.Push(lua.LString("null"))
	default:
		L.Push(lua.LFalse)
	}
	return 1
}

func (lib *Lib) sparse(L *lua.LState) int {
	c := &lib.cfg
	if L.GetTop() >= 1 && L.Get(1) != lua.LNil {
		lib.dirty = true
		c.sparseConvert = lua.LVAsBool(L.Get(1))
		if L.GetTop() >= 2 && L.Get(2) != lua.LNil {
			c.sparseRatio = int(lauxlib.ToInteger(lauxlib.CheckNumber(L, 2)))
		}
		if L.GetTop() >= 3 && L.Get(3) != lua.LNil {
			c.sparseSafe = int(lauxlib.ToInteger(lauxlib.CheckNumber(L, 3)))
		}
	}
	L.Push(lua.LBool(c.sparseConvert))
	L.Push(lua.LNumber(c.sparseRatio))
	L.Push(lua.LNumber(c.sparseSafe))
	return 3
}

// Reset restores the default configuration (before a run).
func (lib *Lib) Reset() {
	if lib.dirty {
		lib.cfg = defaultConfig
		lib.dirty = false
	}
}

// ---- encode (lua_cjson.c:json_append_data) ----

func (lib *Lib) encode(L *lua.LState) int {
	if L.GetTop() != 1 {
		lauxlib.ArgError(L, 1, "expected 1 argument")
	}
	enc := jsonEncoder{L: L, max: lib.host.MaxStringBytes(), host: lib.host, cfg: &lib.cfg}
	enc.value(L.Get(1), 0)
	L.Push(lua.LString(enc.b))
	return 1
}

type jsonEncoder struct {
	L    *lua.LState
	host Host
	max  int // MaxStringBytes: the encoded string's bound
	cfg  *config
	b    []byte
}

func (j *jsonEncoder) fail(v lua.LValue, reason string) {
	lauxlib.Errorf(j.L, "Cannot serialise %s: %s", v.Type().String(), reason)
}

func (j *jsonEncoder) value(v lua.LValue, depth int) {
	// Strings are checked before they grow the buffer (see str); the
	// rest adds a few bytes per value.
	if len(j.b) > j.max {
		j.L.Error(lua.LString(lauxlib.ErrNoMemory), 0)
	}
	switch x := v.(type) {
	case lua.LString:
		j.str(string(x))
	case lua.LNumber:
		j.number(v, float64(x))
	case lua.LBool:
		if x {
			j.b = append(j.b, "true"...)
		} else {
			j.b = append(j.b, "false"...)
		}
	case *lua.LNilType:
		j.b = append(j.b, "null"...)
	case *lua.LTable:
		depth++
		if depth > j.cfg.encodeMaxDepth {
			j.L.RaiseError("Cannot serialise, excessive nesting (%d)", depth)
		}
		t := j.host.Real(x)
		if n := j.arrayLength(t); n > 0 {
			j.b = append(j.b, '[')
			for i := 1; i <= n; i++ {
				if i > 1 {
					j.b = append(j.b, ',')
				}
				j.value(seam.GetInt(t, i), depth)
			}
			j.b = append(j.b, ']')
			return
		}
		j.b = append(j.b, '{')
		first := true
		for k, val, _ := seam.Next(t, lua.LNil); k != lua.LNil; k, val, _ = seam.Next(t, k) {
			if !first {
				j.b = append(j.b, ',')
			}
			first = false
			switch kk := k.(type) {
			case lua.LNumber:
				j.b = append(j.b, '"')
				j.number(k, float64(kk))
				j.b = append(j.b, '"', ':')
			case lua.LString:
				j.str(string(kk))
				j.b = append(j.b, ':')
			default:
				j.fail(k, "table key must be a number or string")
			}
			j.value(val, depth)
		}
		j.b = append(j.b, '}')
	case *lua.LUserData:
		if x == Null {
			j.b = append(j.b, "null"...)
			return
		}
		j.fail(v, "type not supported")
	default:
		j.fail(v, "type not supported")
	}
}

func (j *jsonEncoder) number(v lua.LValue, f float64) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		switch j.cfg.encodeInvalidNum {
		case 0:
			j.fail(v, "must not be NaN or Inf")
		case 1:
			switch {
			case math.IsNaN(f):
				j.b = append(j.b, "NaN"...)
			case f < 0:
				j.b = append(j.b, "-Infinity"...)
			default:
				j.b = append(j.b, "Infinity"...)
			}
			return
		}
	}
	if j.cfg.precision == 14 {
		j.b = append(j.b, lauxlib.FormatNumber(f)...)
		return
	}
	if s, ok := lauxlib.NonFinite(f); ok {
		j.b = append(j.b, s...)
		return
	}
	j.b = strconv.AppendFloat(j.b, f, 'g', j.cfg.precision, 64)
}

// arrayLength is lua_cjson.c:lua_array_length: the largest key when every
// key is a positive integer, -1 otherwise; excessively sparse arrays fail.
func (j *jsonEncoder) arrayLength(t *lua.LTable) int {
	max, items := 0.0, 0
	for k, _, _ := seam.Next(t, lua.LNil); k != lua.LNil; k, _, _ = seam.Next(t, k) {
		n, ok := k.(lua.LNumber)
		if !ok || n != n || math.Floor(float64(n)) != float64(n) || n < 1 {
			return -1
		}
		if float64(n) > max {
			max = float64(n)
		}
		items++
	}
	c := j.cfg
	if c.sparseRatio > 0 && max > float64(items*c.sparseRatio) && max > float64(c.sparseSafe) {
		if !c.sparseConvert {
			j.fail(t, "excessively sparse array")
		}
		return -1
	}
	if max > math.MaxInt32 {
		return -1
	}
	return int(max)
}

var jsonEscapes = func() [256]string {
	var e [256]string
	for c := 0; c < 32; c++ {
		e[c] = `\u00` + string("0123456789abcdef"[c>>4]) + string("0123456789abcdef"[c&15])
	}
	e['\b'], e['\t'], e['\n'], e['\f'], e['\r'] = `\b`, `\t`, `\n`, `\f`, `\r`
	e['"'], e['\\'], e['/'], e[127] = `\"`, `\\`, `\/`, `\u007f`
	return e
}()

// str appends s quoted, or raises "not enough memory" when that would take
// the output past MaxStringBytes. Escaping can make s six times longer
// ("\u0000"), so the size is counted before the buffer grows, once.
func (j *jsonEncoder) str(s string) {
	n := len(s) + 2
	for i := 0; i < len(s); i++ {
		if esc := jsonEscapes[s[i]]; esc != "" {
			n += len(esc) - 1
		}
	}
	if len(j.b)+n > j.max {
		j.L.Error(lua.LString(lauxlib.ErrNoMemory), 0)
	}
	b := append(slices.Grow(j.b, n), '"')
	for i := 0; i < len(s); i++ {
		if esc := jsonEscapes[s[i]]; esc != "" {
			b = append(b, esc...)
		} else {
			b = append(b, s[i])
		}
	}
	j.b = append(b, '"')
}

// ---- decode (lua_cjson.c:json_decode) ----

func (lib *Lib) decode(L *lua.LState) int {
	if L.GetTop() != 1 {
		lauxlib.ArgError(L, 1, "expected 1 argument")
	}
	s := lauxlib.CheckString(L, 1)
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i] // a NUL ends the text, as in C
	}
	d := jsonDecoder{L: L, s: s, cfg: &lib.cfg}
	tok := d.nextToken()
	v := d.value(tok)
	if tok = d.nextToken(); tok.kind != jEnd {
		d.fail("the end", tok)
	}
	L.Push(v)
	return 1
}

const (
	jObjBegin = iota
	jObjEnd
	jArrBegin
	jArrEnd
	jString
	jNumber
	jBoolean
	jNull
	jColon
	jComma
	jEnd
	jWhitespace
	jError
)

var jsonTokenNames = [...]string{"T_OBJ_BEGIN", "T_OBJ_END", "T_ARR_BEGIN", "T_ARR_END", "T_STRING",
	"T_NUMBER", "T_BOOLEAN", "T_NULL", "T_COLON", "T_COMMA", "T_END", "T_WHITESPACE", "T_ERROR"}

type jsonToken struct {
	kind  int
	index int
	str   string
	num   float64
	b     bool
	err   string
}

type jsonDecoder struct {
	L     *lua.LState
	s     string
	pos   int
	depth int
	cfg   *config
}

func (d *jsonDecoder) fail(expected string, t jsonToken) {
	found := t.err
	if t.kind != jError {
		found = jsonTokenNames[t.kind]
	}
	lauxlib.Errorf(d.L, "Expected %s but found %s at character %d", expected, found, t.index+1)
}

func (d *jsonDecoder) errToken(msg string) jsonToken {
	return jsonToken{kind: jError, index: d.pos, err: msg}
}

func (d *jsonDecoder) nextToken() jsonToken {
	for d.pos < len(d.s) {
		c := d.s[d.pos]
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			break
		}
		d.pos++
	}
	t := jsonToken{index: d.pos}
	if d.pos >= len(d.s) {
		t.kind = jEnd
		return t
	}
	c := d.s[d.pos]
	switch c {
	case '{':
		t.kind = jObjBegin
	case '}':
		t.kind = jObjEnd
	case '[':
		t.kind = jArrBegin
	case ']':
		t.kind = jArrEnd
	case ',':
		t.kind = jComma
	case ':':
		t.kind = jColon
	case '"':
		return d.stringToken()
	case 'f', 'i', 'I', 'n', 'N', 't', '+', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		start := d.pos
		t = d.otherToken(c)
		if t.kind != jError {
			t.index = start
		}
		return t
	default:
		return d.errToken("invalid token")
	}
	d.pos++
	return t
}

func (d *jsonDecoder) otherToken(c byte) jsonToken {
	rest := d.s[d.pos:]
	if c == '-' || c >= '0' && c <= '9' {
		if !d.cfg.decodeInvalidNum && invalidJSONNumber(rest) {
			return d.errToken("invalid number")
		}
		return d.numberToken()
	}
	switch {
	case strings.HasPrefix(rest, "true"):
		d.pos += 4
		return jsonToken{kind: jBoolean, b: true}
	case strings.HasPrefix(rest, "false"):
		d.pos += 5
		return jsonToken{kind: jBoolean}
	case strings.HasPrefix(rest, "null"):
		d.pos += 4
		return jsonToken{kind: jNull}
	case d.cfg.decodeInvalidNum && invalidJSONNumber(rest):
		return d.numberToken()
	}
	return d.errToken("invalid token")
}

func (d *jsonDecoder) numberToken() jsonToken {
	n, f := lauxlib.ScanNumber(d.s[d.pos:])
	if n == 0 {
		return d.errToken("invalid number")
	}
	d.pos += n
	return jsonToken{kind: jNumber, num: f}
}

// invalidJSONNumber is lua_cjson.c:json_is_invalid_number.
func invalidJSONNumber(p string) bool {
	if strings.HasPrefix(p, "+") {
		return true
	}
	p = strings.TrimPrefix(p, "-")
	if strings.HasPrefix(p, "0") {
		if len(p) > 1 && (p[1]|0x20 == 'x' || p[1] >= '0' && p[1] <= '9') {
			return true
		}
		return false
	}
	if p == "" || p[0] <= '9' {
		return false
	}
	l := strings.ToLower(p)
	return strings.HasPrefix(l, "inf") || strings.HasPrefix(l, "nan")
}

func (d *jsonDecoder) stringToken() jsonToken {
	start := d.pos
	d.pos++
	var b []byte
	for {
		if d.pos >= len(d.s) {
			return d.errToken("unexpected end of string")
		}
		c := d.s[d.pos]
		if c == '"' {
			break
		}
		if c == '\\' {
			var e byte
			if d.pos+1 < len(d.s) {
				e = d.s[d.pos+1]
			}
			switch e {
			case '"', '\\', '/':
				c = e
			case 'b':
				c = '\b'
			case 'f':
				c = '\f'
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			case 't':
				c = '\t'
			case 'u':
				var ok bool
				if b, ok = d.unicodeEscape(b); !ok {
					return d.errToken("invalid unicode escape code")
				}
				continue
			default:
				return d.errToken("invalid escape code")
			}
			d.pos++
		}
		b = append(b, c)
		d.pos++
	}
	d.pos++
	return jsonToken{kind: jString, index: start, str: string(b)}
}

func hex4(s string) (rune, bool) {
	if len(s) < 4 {
		return 0, false
	}
	v, err := strconv.ParseUint(s[:4], 16, 32)
	return rune(v), err == nil
}

// unicodeEscape decodes \uXXXX (and a surrogate pair) at d.pos.
func (d *jsonDecoder) unicodeEscape(b []byte) ([]byte, bool) {
	cp, ok := hex4(d.s[d.pos+2:])
	if !ok {
		return b, false
	}
	n := 6
	if cp >= 0xDC00 && cp <= 0xDFFF {
		return b, false
	}
	if cp >= 0xD800 && cp <= 0xDBFF {
		rest := d.s[d.pos+6:]
		if !strings.HasPrefix(rest, `\u`) {
			return b, false
		}
		lo, ok := hex4(rest[2:])
		if !ok || lo < 0xDC00 || lo > 0xDFFF {
			return b, false
		}
		cp = (cp&0x3FF)<<10 | (lo & 0x3FF) + 0x10000
		n = 12
	}
	d.pos += n
	return utf8.AppendRune(b, cp), true
}

func (d *jsonDecoder) value(t jsonToken) lua.LValue {
	switch t.kind {
	case jString:
		return lua.LString(t.str)
	case jNumber:
		return lua.LNumber(t.num)
	case jBoolean:
		return lua.LBool(t.b)
	case jNull:
		return Null
	case jObjBegin:
		return d.object()
	case jArrBegin:
		return d.array()
	}
	d.fail("value", t)
	return lua.LNil
}

func (d *jsonDecoder) descend() {
	d.depth++
	if d.depth > d.cfg.decodeMaxDepth {
		d.L.RaiseError("Found too many nested data structures (%d) at character %d", d.depth, d.pos)
	}
}

func (d *jsonDecoder) object() lua.LValue {
	d.descend()
	// lua_newtable, filled key by key with lua_rawset, as lua_cjson.c
	// does: the same inserts give the same layout, so pairs walks the
	// keys in Redis's order.
	t := seam.NewTable(d.L, 0, 0)
	tok := d.nextToken()
	if tok.kind == jObjEnd {
		d.depth--
		return t
	}
	for {
		if tok.kind != jString {
			d.fail("object key string", tok)
		}
		key := tok.str
		if tok = d.nextToken(); tok.kind != jColon {
			d.fail("colon", tok)
		}
		v := d.value(d.nextToken())
		seam.RawSetString(d.L, t, key, v)
		tok = d.nextToken()
		if tok.kind == jObjEnd {
			d.depth--
			return t
		}
		if tok.kind != jComma {
			d.fail("comma or object end", tok)
		}
		tok = d.nextToken()
	}
}

func (d *jsonDecoder) array() lua.LValue {
	d.descend()
	t := seam.NewTable(d.L, 0, 0)
	tok := d.nextToken()
	if tok.kind == jArrEnd {
		d.depth--
		return t
	}
	for i := 1; ; i++ {
		seam.RawSetInt(d.L, t, i, d.value(tok))
		tok = d.nextToken()
		if tok.kind == jArrEnd {
			d.depth--
			return t
		}
		if tok.kind != jComma {
			d.fail("comma or array end", tok)
		}
		tok = d.nextToken()
	}
}
