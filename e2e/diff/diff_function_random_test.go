package diff_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

// randomFunctionCases are generated libraries and FCALL sequences (run by
// TestDiffRandom, seeded): each case loads a few libraries made of random
// registrations (positional or named, flags valid or not, names that
// collide across libraries, in other letter cases, or are invalid), load
// errors, REPLACE, then calls the functions with random numkeys through
// FCALL and FCALL_RO, deletes libraries, and asks FUNCTION STATS. Listing
// and dumping are left to the hand-written cases: Redis gives several
// libraries, or a library's functions, in its hash table's order.
func randomFunctionCases(r *rand.Rand, n int) []diffCase {
	var cases []diffCase
	for i := range n {
		steps := []step{c("FUNCTION FLUSH")}
		libs := []string{"la", "lb", "lc"}
		fnames := []string{"f", "g", "h", "F", "G", "fn_1", "bad name", ""}
		for len(steps) < 18 {
			switch k := r.IntN(10); {
			case k < 4:
				var opts []string
				if r.IntN(3) == 0 {
					opts = append(opts, "REPLACE")
				}
				steps = append(steps, fload(randomLibrary(r, libs[r.IntN(len(libs))], fnames), opts...).with(collidingFunction))
			case k < 8:
				name := fnames[r.IntN(len(fnames)-2)]
				nargs := r.IntN(4)
				numkeys := strconv.Itoa(r.IntN(nargs+2) - r.IntN(2))
				args := []string{"FCALL", name, numkeys}
				if r.IntN(3) == 0 {
					args[0] = "FCALL_RO"
				}
				for j := 0; j < nargs; j++ {
					args = append(args, []string{"k1", "k2", "5", "x"}[r.IntN(4)])
				}
				steps = append(steps, cmd(args...))
			case k < 9:
				steps = append(steps, cmd("FUNCTION", "DELETE", libs[r.IntN(len(libs))]))
			default:
				steps = append(steps, c("FUNCTION STATS"))
			}
		}
		steps = append(steps, c("FUNCTION STATS"), c("GET k1"), c("GET c"))
		cases = append(cases, tc(fmt.Sprintf("functions %d", i), steps...))
	}
	return cases
}

// randomLibrary is the code of a library named name: a few registrations
// and, now and then, something that fails at load.
func randomLibrary(r *rand.Rand, name string, fnames []string) string {
	var b strings.Builder
	b.WriteString("#!lua name=" + name + "\n")
	b.WriteString("local n = 0\n")
	used := map[string]string{} // lower case -> as registered
	for range 1 + r.IntN(3) {
		fn := fnames[r.IntN(len(fnames))]
		if prev, ok := used[strings.ToLower(fn)]; ok && (prev != fn || r.IntN(4) != 0) {
			// Two functions of one library differing only in case make
			// Redis 7.0.15 crash when the library is deleted or
			// replaced; the same name twice, now and then, is the
			// "already exists in the library" error.
			continue
		}
		used[strings.ToLower(fn)] = fn
		body := randomFunctionBody(r)
		if r.IntN(2) == 0 {
			fmt.Fprintf(&b, "redis.register_function('%s', function(keys, args) %s end)\n", fn, body)
			continue
		}
		var flags []string
		for range r.IntN(3) {
			flags = append(flags, "'"+[]string{"no-writes", "allow-oom", "allow-stale", "no-cluster", "allow-cross-slot-keys", "NO-WRITES", "fast"}[r.IntN(7)]+"'")
		}
		fields := []string{"function_name='" + fn + "'", "callback=function(keys, args) " + body + " end"}
		if r.IntN(2) == 0 {
			fields = append(fields, "flags={"+strings.Join(flags, ", ")+"}")
		}
		if r.IntN(3) == 0 {
			fields = append(fields, "description='d"+fn+"'")
		}
		if r.IntN(8) == 0 {
			fields = append(fields, "extra=1")
		}
		r.Shuffle(len(fields), func(i, j int) { fields[i], fields[j] = fields[j], fields[i] })
		if r.IntN(10) == 0 {
			fields = fields[1:] // a missing name or callback
		}
		fmt.Fprintf(&b, "redis.register_function{%s}\n", strings.Join(fields, ", "))
	}
	switch r.IntN(12) {
	case 0:
		b.WriteString("error('load failed')\n")
	case 1:
		b.WriteString("redis.call('set', 'k', 'v')\n")
	case 2:
		b.WriteString("redis.log(redis.LOG_DEBUG, 'x')\n")
	case 3:
		b.WriteString("local s = tostring(1)\n")
	}
	return b.String()
}

// randomFunctionBody is the body of a function(keys, args).
func randomFunctionBody(r *rand.Rand) string {
	return []string{
		"return keys",
		"return args",
		"return {keys[1], args[1], #keys, #args}",
		"n = n + 1 return n",
		"return redis.call('incr', keys[1] or 'c')",
		"return redis.call('set', keys[1] or 'k1', args[1] or 'v')",
		"return redis.pcall('get', keys[1] or 'k1')",
		"return redis.call('get', keys[1] or 'k1')",
		"error('run failed')",
		"return redis.error_reply('custom')",
		"return redis.status_reply('fine')",
		"return nil",
		"return KEYS",
		"return tonumber(args[1]) and tonumber(args[1]) * 2",
		"local t = {} t.x = keys return cjson.encode(t)",
	}[r.IntN(15)]
}

// collidingFunction masks the name in "Function <name> already exists":
// when several of a new library's functions collide, Redis names the first
// in its hash table's order (random per process).
var collidingFunction = &normalizer{"the colliding function's name", func(b []byte) ([]byte, bool) {
	if bytes.HasPrefix(b, []byte("-ERR Function ")) && bytes.HasSuffix(b, []byte(" already exists\r\n")) {
		return []byte("-ERR Function <name> already exists\r\n"), true
	}
	return nil, false
}}
