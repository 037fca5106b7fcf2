// Package lcjson is lua-cjson 2.1.0 as Redis 7.0 ships it
// (deps/lua/src/lua_cjson.c): cjson.encode and cjson.decode with the
// library's number formats, escapes, sparse-array rules, depth limits and
// error messages, and its configuration functions.
//
// Where it differs from the C, on purpose: Redis keeps the configuration
// for the life of the Lua state, so one script's cjson.encode_max_depth(1)
// changes every later script; here the engine calls Reset before each run.
// The encoder refuses output past the host's string limit before it grows
// its buffer.
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

// config is lua-cjson's per-module configuration (json_config_t). The
// flags are ints, as in C: json_enum_option stores an option's index.
type config struct {
	encodeMaxDepth   int
	decodeMaxDepth   int
	precision        int
	keepBuffer       int
	sparseConvert    int
	sparseRatio      int
	sparseSafe       int
	encodeInvalidNum int // 0 "off": error, 1 "on": nan/inf, 2 "null"
	decodeInvalidNum int
}

var defaultConfig = config{
	encodeMaxDepth: 1000, decodeMaxDepth: 1000, precision: 14, keepBuffer: 1,
	sparseRatio: 2, sparseSafe: 10, decodeInvalidNum: 1,
}

// moduleBytes is about what one module holds (its table, functions and
// configuration), charged to the script before cjson.new builds one.
const moduleBytes = 4096

// Null is cjson.null, the stand-in for JSON null (a NULL lightuserdata in
// Redis; a userdata here, so type() says "userdata" as there).
var Null = &lua.LUserData{Metatable: lua.LNil}

// Host is what the library needs of the sandbox it is installed in.
type Host interface {
	// Real returns the table t stands for when t is a read-only proxy,
	// else t itself: the encoder walks what the script can read. A proxy
	// always has its metatable (setmetatable refuses proxies), so a table
	// without one is not asked about.
	Real(t *lua.LTable) *lua.LTable
	// MaxStringBytes is the longest string a script may build.
	MaxStringBytes() int
}

// Lib is one installed cjson module and its configuration.
type Lib struct {
	host  Host
	cfg   config
	dirty bool // cfg differs from defaultConfig
	// Scratch reused from call to call (owner goroutine only): the
	// encoder's buffer, the decoder's stacks of keys and values not yet
	// in their tables, the order that builds an object at once, and the
	// short strings decoded before.
	buf    []byte
	keys   []lua.LValue
	vals   []lua.LValue
	order  lauxlib.TableOrder
	intern lauxlib.Interner
}

// maxKeptScratch bounds the encoder's buffer a Lib keeps between calls
// (the stacks are bounded by lauxlib.MaxAtOnce), so one huge document
// does not stay allocated.
const maxKeptScratch = 1 << 16

// Open fills t, a new table in L, with the cjson module, whose
// configuration stays as scripts set it until Reset.
func Open(L *lua.LState, t *lua.LTable, h Host) *Lib {
	lib := &Lib{host: h, cfg: defaultConfig}
	c := &lib.cfg
	// lua_cjson_new's order (its luaL_Reg array, then null, _NAME and
	// _VERSION), each set as lua_setfield sets it into a new table, so
	// pairs and cmsgpack.pack walk the module as Redis's Lua does.
	for _, f := range []struct {
		k string
		v lua.LValue
	}{
		{"encode", L.NewFunction(lib.encode)},
		{"decode", L.NewFunction(lib.decode)},
		{"encode_sparse_array", L.NewFunction(func(L *lua.LState) int {
			argInit(L, 3)
			lib.dirty = true
			enumOption(L, 1, &c.sparseConvert, boolOptions)
			intOption(L, 2, &c.sparseRatio, 0, math.MaxInt32)
			intOption(L, 3, &c.sparseSafe, 0, math.MaxInt32)
			return 3
		})},
		{"encode_max_depth", L.NewFunction(lib.intConfig(&c.encodeMaxDepth, 1, math.MaxInt32))},
		{"decode_max_depth", L.NewFunction(lib.intConfig(&c.decodeMaxDepth, 1, math.MaxInt32))},
		{"encode_number_precision", L.NewFunction(lib.intConfig(&c.precision, 1, 14))},
		{"encode_keep_buffer", L.NewFunction(lib.enumConfig(&c.keepBuffer, boolOptions))},
		{"encode_invalid_numbers", L.NewFunction(lib.enumConfig(&c.encodeInvalidNum, []string{"off", "on", "null"}))},
		{"decode_invalid_numbers", L.NewFunction(lib.enumConfig(&c.decodeInvalidNum, boolOptions))},
		// lua_cjson_new: another module, writable, with a configuration of
		// its own from the defaults.
		{"new", L.NewFunction(func(L *lua.LState) int {
			lauxlib.Alloc(L, moduleBytes)
			m := L.CreateTable(0, 16)
			Open(L, m, h)
			L.Push(m)
			return 1
		})},
		{"null", Null},
		{"_NAME", lua.LString("cjson")},
		{"_VERSION", lua.LString("2.1.0")},
	} {
		seam.RawSetString(L, t, f.k, f.v)
	}
	return lib
}

// The configuration functions check their arguments as lua_cjson.c's
// json_arg_init, json_integer_option and json_enum_option do, quirks
// included: an integer out of range is blamed on argument #1 whichever
// argument it was, and encode_sparse_array keeps the options it set before
// the one it refused.

var boolOptions = []string{"off", "on"}

// argInit refuses more than n arguments and pads them with nils to n, so
// the results pushed after them leave them in place (json_arg_init).
func argInit(L *lua.LState, n int) {
	if L.GetTop() > n {
		lauxlib.ArgError(L, n+1, "found too many arguments")
	}
	for L.GetTop() < n {
		L.Push(lua.LNil)
	}
}

// intOption is json_integer_option: luaL_checkinteger stored in a C int
// (so 2^32+5 sets 5), then the range check.
func intOption(L *lua.LState, i int, p *int, lo, hi int) {
	if L.Get(i) != lua.LNil {
		v := lauxlib.CheckInt(L, i)
		if v < lo || v > hi {
			lauxlib.ArgError(L, 1, "expected integer between "+strconv.Itoa(lo)+" and "+strconv.Itoa(hi))
		}
		*p = v
	}
	L.Push(lauxlib.Number(L, *p))
}

// enumOption is json_enum_option (every caller's bool_true is 1): a
// boolean sets 0 or 1, anything else must name one of options
// (luaL_checkoption); the setting reads back as a boolean when it is 0 or
// 1, else as its name.
func enumOption(L *lua.LState, i int, p *int, options []string) {
	if v := L.Get(i); v != lua.LNil {
		if b, ok := v.(lua.LBool); ok {
			*p = 0
			if b {
				*p = 1
			}
		} else {
			*p = checkOption(L, i, options)
		}
	}
	if *p <= 1 {
		L.Push(lua.LBool(*p != 0))
	} else {
		L.Push(lua.LString(options[*p]))
	}
}

// checkOption is luaL_checkoption with no default: the argument as a C
// string (numbers converted, a NUL ends it), compared with strcmp.
func checkOption(L *lua.LState, i int, options []string) int {
	name := lauxlib.CheckString(L, i)
	if j := strings.IndexByte(name, 0); j >= 0 {
		name = name[:j]
	}
	if j := slices.Index(options, name); j >= 0 {
		return j
	}
	lauxlib.ArgError(L, i, "invalid option '"+name+"'")
	return 0
}

func (lib *Lib) intConfig(p *int, lo, hi int) lua.LGFunction {
	return func(L *lua.LState) int {
		argInit(L, 1)
		lib.dirty = true
		intOption(L, 1, p, lo, hi)
		return 1
	}
}

func (lib *Lib) enumConfig(p *int, options []string) lua.LGFunction {
	return func(L *lua.LState) int {
		argInit(L, 1)
		lib.dirty = true
		enumOption(L, 1, p, options)
		return 1
	}
}

// Reset restores the default configuration (before a run).
func (lib *Lib) Reset() {
	if lib.dirty {
		lib.cfg = defaultConfig
		lib.dirty = false
	}
}

// ---- encode (lua_cjson.c:json_append_data) ----

// Both directions are bounded by the Lua stack as much as by the options.
// lua_cjson.c calls lua_checkstack as it descends, and Lua 5.1 refuses
// past LUAI_MAXCSTACK (8000) slots in one C function. A nested array
// holds one slot of the C function's stack (its element), a nested object
// two (key and value), so whatever a script sets with encode_max_depth or
// decode_max_depth, a chain of arrays stops at 7998 levels (encode) or
// 7999 (decode), a chain of objects at 4000. The slots are counted here as
// Redis holds them, which gives the same errors at the same depths and
// bounds the Go recursion below 8000 frames.

func (lib *Lib) encode(L *lua.LState) int {
	if L.GetTop() != 1 {
		lauxlib.ArgError(L, 1, "expected 1 argument")
	}
	enc := jsonEncoder{L: L, max: lib.host.MaxStringBytes(), host: lib.host, cfg: &lib.cfg, b: lib.buf[:0]}
	enc.value(L.Get(1), 0, 1) // the argument is the stack's one slot
	// One allocation for the string and its header (lua.LString(enc.b)
	// makes two: the copy and the box).
	v, dst := seam.NewString(len(enc.b))
	copy(dst, enc.b)
	L.Push(v)
	if cap(enc.b) <= maxKeptScratch {
		lib.buf = enc.b
	}
	return 1
}

type jsonEncoder struct {
	L    *lua.LState
	host Host
	max  int // MaxStringBytes: the encoded string's bound
	cfg  *config
	b    []byte
}

// fail is json_encode_exception.
func (j *jsonEncoder) fail(v lua.LValue, reason string) {
	lauxlib.Error(j.L, "Cannot serialise "+v.Type().String()+": "+reason)
}

// value appends v, which sits on top of slots stack slots of
// json_encode's C function, inside depth tables.
func (j *jsonEncoder) value(v lua.LValue, depth, slots int) {
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
		// json_check_encode_depth: lua_checkstack(l, 3), for the key
		// and value of the walk and an error message.
		depth++
		if depth > j.cfg.encodeMaxDepth || slots+3 > lauxlib.MaxCStack {
			lauxlib.Error(j.L, "Cannot serialise, excessive nesting ("+strconv.Itoa(depth)+")")
		}
		t := x
		if t.Metatable != lua.LNil {
			t = j.host.Real(x)
		}
		if n := j.arrayLength(t); n > 0 {
			j.b = append(j.b, '[')
			for i := 1; i <= n; i++ {
				if i > 1 {
					j.b = append(j.b, ',')
				}
				j.value(seam.GetInt(t, i), depth, slots+1)
			}
			j.b = append(j.b, ']')
			return
		}
		j.b = append(j.b, '{')
		first := true
		for k, val := range seam.Pairs(t) {
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
			j.value(val, depth, slots+2)
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

// number is json_append_number.
func (j *jsonEncoder) number(v lua.LValue, f float64) {
	switch j.cfg.encodeInvalidNum {
	case 0:
		if math.IsInf(f, 0) || math.IsNaN(f) {
			j.fail(v, "must not be NaN or Inf")
		}
	case 1:
		// "nan" whatever its sign: printf spells x86's 0/0 "-nan".
		if math.IsNaN(f) {
			j.b = append(j.b, "nan"...)
			return
		}
	default:
		if math.IsInf(f, 0) || math.IsNaN(f) {
			j.b = append(j.b, "null"...)
			return
		}
	}
	if j.cfg.precision == 14 {
		j.b = lauxlib.AppendNumber(j.b, f)
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
// Its arithmetic is C's on ints: a key past INT_MAX is stored in max as
// x86 stores it (INT_MIN, so such a table is an object, or an array of
// the keys seen after it), and items*ratio wraps.
func (j *jsonEncoder) arrayLength(t *lua.LTable) int {
	var max, items int32
	for k := range seam.Pairs(t) {
		n, ok := k.(lua.LNumber)
		f := float64(n)
		if !ok || math.Floor(f) != f || f < 1 {
			return -1
		}
		if f > float64(max) {
			max = math.MinInt32
			if f <= math.MaxInt32 {
				max = int32(f)
			}
		}
		items++
	}
	c := j.cfg
	if c.sparseRatio > 0 && max > items*int32(c.sparseRatio) && max > int32(c.sparseSafe) {
		if c.sparseConvert == 0 {
			j.fail(t, "excessively sparse array")
		}
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

// jsonEscapeLen is how many bytes a byte's escape adds to it.
var jsonEscapeLen = func() [256]uint8 {
	var l [256]uint8
	for c, esc := range jsonEscapes {
		if esc != "" {
			l[c] = uint8(len(esc) - 1)
		}
	}
	return l
}()

// str appends s quoted, or raises "not enough memory" when that would take
// the output past MaxStringBytes. Escaping can make s six times longer
// ("\u0000"), so the size is counted before the buffer grows, once.
func (j *jsonEncoder) str(s string) {
	n := len(s) + 2
	for i := 0; i < len(s); i++ {
		n += int(jsonEscapeLen[s[i]])
	}
	if n == len(s)+2 {
		// Nothing to escape: the text as it is.
		if len(j.b)+n > j.max {
			j.L.Error(lua.LString(lauxlib.ErrNoMemory), 0)
		}
		b := append(j.b, '"')
		b = append(b, s...)
		j.b = append(b, '"')
		return
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
	// Only the first character is sure to be ASCII in JSON text, so a NUL
	// in either of the first two means UTF-16 or UTF-32.
	if len(s) >= 2 && (s[0] == 0 || s[1] == 0) {
		lauxlib.Error(L, "JSON parser does not support UTF-16 or UTF-32")
	}
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i] // a NUL ends the text, as in C
	}
	d := jsonDecoder{L: L, s: s, cfg: &lib.cfg, lib: lib, keys: lib.keys[:0], vals: lib.vals[:0], buf: lib.buf[:0]}
	v := d.parse(1) // the argument is the stack's one slot
	if d.skipSpace(); d.pos < len(d.s) {
		d.fail("the end", d.nextToken())
	}
	L.Push(v)
	// The stacks are empty again (each level clears what it used).
	if cap(d.keys) <= lauxlib.MaxAtOnce && cap(d.vals) <= lauxlib.MaxAtOnce {
		lib.keys, lib.vals = d.keys, d.vals
	}
	if cap(d.buf) <= maxKeptScratch {
		lib.buf = d.buf
	}
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
	str   string // a string without escapes: its text in the source
	esc   bool   // a string with escapes: its text is the decoder's buf
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
	lib   *Lib
	// keys and vals hold what the objects and arrays being read have
	// read so far, each level above the one it descended from; a level
	// makes its table once it has them all.
	keys, vals []lua.LValue
	buf        []byte // the last string with escapes
}

func (d *jsonDecoder) fail(expected string, t jsonToken) {
	found := t.err
	if t.kind != jError {
		found = jsonTokenNames[t.kind]
	}
	lauxlib.Error(d.L, "Expected "+expected+" but found "+found+" at character "+strconv.Itoa(t.index+1))
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
		if d.cfg.decodeInvalidNum == 0 && invalidJSONNumber(rest) {
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
	case d.cfg.decodeInvalidNum != 0 && invalidJSONNumber(rest):
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
	// Most strings have no escape: their text is the source's.
	for i := d.pos; i < len(d.s); i++ {
		if c := d.s[i]; c == '"' {
			d.pos = i + 1
			return jsonToken{kind: jString, index: start, str: d.s[start+1 : i]}
		} else if c == '\\' {
			break
		}
	}
	b := d.buf[:0]
	defer func() { d.buf = b }()
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
	return jsonToken{kind: jString, index: start, esc: true}
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

// value is json_process_value: the value t starts, to be pushed on top of
// slots stack slots of json_decode's C function.
func (d *jsonDecoder) value(t jsonToken, slots int) lua.LValue {
	switch t.kind {
	case jString:
		return d.str(t)
	case jNumber:
		return lauxlib.Number(d.L, t.num)
	case jBoolean:
		return lua.LBool(t.b)
	case jNull:
		return Null
	case jObjBegin:
		return d.object(slots)
	case jArrBegin:
		return d.array(slots)
	}
	d.fail("value", t)
	return lua.LNil
}

// descend is json_decode_descend: need is the lua_checkstack the level
// makes for what it pushes above the slots below it.
func (d *jsonDecoder) descend(slots, need int) {
	d.depth++
	if d.depth > d.cfg.decodeMaxDepth || slots+need > lauxlib.MaxCStack {
		lauxlib.Error(d.L, "Found too many nested data structures ("+strconv.Itoa(d.depth)+") at character "+strconv.Itoa(d.pos))
	}
}

// str is string token t as a Lua string: a short one interned, any copied
// out of the source (a substring would keep the whole text alive).
func (d *jsonDecoder) str(t jsonToken) lua.LValue {
	if t.esc {
		return lauxlib.InternBytes(&d.lib.intern, d.buf)
	}
	return lauxlib.InternString(&d.lib.intern, t.str)
}

// push puts v on the stack *st, charging the script for its growth.
func (d *jsonDecoder) push(st *[]lua.LValue, v lua.LValue) { lauxlib.Push(d.L, st, v) }

// The parser reads the text once, straight into Lua values: where the
// next byte starts what the grammar expects (a brace, a bracket, a plain
// string, a plain integer, a comma or colon) it takes it there; anything
// else goes through the tokenizer (json_next_token's port above), whose
// token either continues the parse as lua_cjson.c's would or is the one
// the error names. So every error is the tokenizer's, at its position.

// skipSpace moves past JSON white space.
func (d *jsonDecoder) skipSpace() {
	for d.pos < len(d.s) && jsonSpace[d.s[d.pos]] {
		d.pos++
	}
}

var jsonSpace = [256]bool{' ': true, '\t': true, '\n': true, '\r': true}

// at reports whether the next byte, past white space, is c, and takes it.
func (d *jsonDecoder) at(c byte) bool {
	d.skipSpace()
	if d.pos < len(d.s) && d.s[d.pos] == c {
		d.pos++
		return true
	}
	return false
}

// parse is json_process_value of the next token.
func (d *jsonDecoder) parse(slots int) lua.LValue {
	d.skipSpace()
	if d.pos < len(d.s) {
		switch c := d.s[d.pos]; {
		case c == '{':
			d.pos++
			return d.object(slots)
		case c == '[':
			d.pos++
			return d.array(slots)
		case c == '"':
			if v := d.plainString(); v != nil {
				return v
			}
		case c == '-' || c >= '0' && c <= '9':
			if v := d.plainInt(); v != nil {
				return v
			}
		}
	}
	return d.value(d.nextToken(), slots)
}

// plainString is the string at d.pos when it has no escape (its text is
// the source's), else nil with d.pos where it was.
func (d *jsonDecoder) plainString() lua.LValue {
	for i := d.pos + 1; i < len(d.s); i++ {
		switch d.s[i] {
		case '"':
			v := lauxlib.InternString(&d.lib.intern, d.s[d.pos+1:i])
			d.pos = i + 1
			return v
		case '\\':
			return nil
		}
	}
	return nil
}

// plainInt is the number at d.pos when it is an integer of at most 15
// digits that strtod would end where its digits end (exact as a double:
// what ScanNumber gives), else nil with d.pos where it was. A leading 0
// must be the only digit (0x.. and 0123 take the tokenizer's way).
func (d *jsonDecoder) plainInt() lua.LValue {
	i := d.pos
	neg := d.s[i] == '-'
	if neg {
		i++
	}
	start := i
	var n int64
	for ; i < len(d.s) && d.s[i] >= '0' && d.s[i] <= '9'; i++ {
		n = n*10 + int64(d.s[i]-'0')
	}
	digits := i - start
	if digits == 0 || digits > 15 || digits > 1 && d.s[start] == '0' {
		return nil
	}
	if i < len(d.s) {
		switch d.s[i] {
		case '.', 'e', 'E', 'x', 'X', 'p', 'P':
			return nil
		}
	}
	d.pos = i
	f := float64(n)
	if neg {
		f = -f // -0 too
	}
	return lauxlib.Number(d.L, f)
}

// object holds the table and a key on the stack while it reads a value;
// d.pos is past its brace.
func (d *jsonDecoder) object(slots int) lua.LValue {
	d.descend(slots, 3)
	kb, vb := len(d.keys), len(d.vals)
	if !d.at('}') {
		for {
			var k lua.LValue
			if d.skipSpace(); d.pos < len(d.s) && d.s[d.pos] == '"' {
				k = d.plainString()
			}
			if k == nil {
				tok := d.nextToken()
				if tok.kind != jString {
					d.fail("object key string", tok)
				}
				k = d.str(tok)
			}
			d.push(&d.keys, k)
			if !d.at(':') {
				d.fail("colon", d.nextToken())
			}
			d.push(&d.vals, d.parse(slots+2))
			if d.at('}') {
				break
			}
			if !d.at(',') {
				d.fail("comma or object end", d.nextToken())
			}
		}
	}
	d.depth--
	keys, vals := d.keys[kb:], d.vals[vb:]
	// lua_cjson.c makes the table with lua_newtable and fills it key by
	// key with lua_rawset: the layout that leaves, the one pairs and
	// cjson.encode walk, is made at once when the keys are distinct
	// (seam.HashTable), else key by key.
	var t *lua.LTable
	ok := false
	if len(keys) <= lauxlib.MaxAtOnce {
		t, ok = seam.HashTable(d.L, &d.lib.order, keys, vals)
	}
	if !ok {
		t = seam.NewTable(d.L, 0, 0)
		for i, k := range keys {
			seam.RawSet(d.L, t, k, vals[i])
		}
	}
	clear(keys)
	clear(vals)
	d.keys, d.vals = d.keys[:kb], d.vals[:vb]
	return t
}

// array holds the table on the stack while it reads a value; d.pos is
// past its bracket.
func (d *jsonDecoder) array(slots int) lua.LValue {
	d.descend(slots, 2)
	vb := len(d.vals)
	if !d.at(']') {
		for {
			d.push(&d.vals, d.parse(slots+1))
			if d.at(']') {
				break
			}
			if !d.at(',') {
				d.fail("comma or array end", d.nextToken())
			}
		}
	}
	d.depth--
	// lua_newtable and lua_rawseti of 1, 2, 3 ... leave an array part of
	// the power of two at or above the count and no hash part (no value
	// is nil): made at that size at once.
	vals := d.vals[vb:]
	var t *lua.LTable
	if len(vals) <= lauxlib.MaxAtOnce {
		t = seam.ArrayTable(d.L, vals)
	} else {
		t = seam.NewTable(d.L, 0, 0) // filled one by one (see MaxAtOnce)
		for i, v := range vals {
			seam.RawSetInt(d.L, t, i+1, v)
		}
	}
	clear(vals)
	d.vals = d.vals[:vb]
	return t
}
