package server

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/minilock/minilock/keyspace"
	"github.com/minilock/minilock/resp"
)

// The embedding API for every type: hashes, lists, sets and sorted sets,
// per database (s.DB(n)) and, on the Server, for the database Select
// picked (0 unless changed).
//
// A writer runs the command it stands for (HSet is HSET, LPush is LPUSH
// ...) on the owner, in the database, with its arguments: it answers what
// the command answers, notifies keyspace events, invalidates WATCH and
// serves clients blocked on the key (a BLPOP waiting on a list that LPush
// fills is answered) as that command from a client would. A reader returns
// Go values without counting a keyspace hit or miss, or sending a keymiss
// event: no client asked.

// ErrNoKey is returned by a reader for a missing key (or a missing field,
// member or element).
var ErrNoKey = keyspace.ErrNoKey

// ErrWrongType is returned for a key holding another type. It is the
// WRONGTYPE error a command answers.
var ErrWrongType = keyspace.ErrWrongType

// Z is a member of a sorted set and its score.
type Z = keyspace.ZItem

// embedState is what the embedding API changes in a running server.
type embedState struct {
	selected atomic.Int64           // the database of the Server's helpers
	failWith atomic.Pointer[string] // SetError's reply; nil: none
}

// Select makes database n the one the Server's own helpers (Get, HSet,
// CheckList ...) use. Clients keep selecting theirs with SELECT.
func (s *Server) Select(n int) { s.embed.selected.Store(int64(n)) }

// SwapDB swaps databases i and j, as SWAPDB: their keys and TTLs change
// places, while clients stay in the database they selected, so they see
// the other's data. A client watching a key whose content changes sees
// its EXEC fail, and a client blocked on a key the swap brings (BLPOP,
// XREAD ...) is served. It reports false, changing nothing, when either
// database does not exist.
func (s *Server) SwapDB(i, j int) bool {
	ok := false
	s.owner.Do(func() {
		ok = s.ks.SwapDB(i, j, s.ks.Now())
		s.serveReady()
	})
	return ok
}

// Selected returns the database Select picked.
func (s *Server) Selected() int { return int(s.embed.selected.Load()) }

func (s *Server) sel() DB { return s.DB(s.Selected()) }

// SetError makes the server answer every command from a client with the
// error msg ("LOADING Redis is loading the dataset in memory": the code
// first, as Redis writes errors) until SetError("") clears it, to test a
// client's error paths. Commands a script runs are not affected: its
// EVAL is answered with the error before it starts. Line breaks in msg
// become spaces, so the reply stays one line.
func (s *Server) SetError(msg string) {
	if msg == "" {
		s.embed.failWith.Store(nil)
		return
	}
	msg = strings.NewReplacer("\r", " ", "\n", " ").Replace(msg)
	s.embed.failWith.Store(&msg)
}

// forcedError is SetError's message, if one is set.
func (s *Server) forcedError() (string, bool) {
	if p := s.embed.failWith.Load(); p != nil {
		return *p, true
	}
	return "", false
}

// RequireAuth makes new connections authenticate with password pw before
// any other command, as requirepass does (CONFIG SET requirepass pw);
// "" turns authentication off. Connections already open stay as they are,
// as in Redis. pw is the default user's password.
func (s *Server) RequireAuth(pw string) { _ = s.owner.Do(func() { s.setRequirePass(pw) }) }

// RequireUserAuth makes user exist with password pw and every permission
// (ACL SETUSER user reset on >pw ~* &* +@all), and every new connection
// AUTH first: while the default user has no password it gets none it
// could log in with (resetpass), as miniredis refuses it then. For
// "default" it is RequireAuth(pw); another user with pw "" is turned off.
func (s *Server) RequireUserAuth(user, pw string) error {
	if user == "default" {
		s.RequireAuth(pw)
		return nil
	}
	rules := []string{"reset"}
	if pw != "" {
		rules = append(rules, "on", ">"+pw, "~*", "&*", "+@all")
	}
	var err error
	if derr := s.owner.Do(func() {
		if err = s.setUser(nil, user, rules); err != nil {
			return
		}
		if s.defaultNoPass() {
			_ = s.acl.def.Set("resetpass")
			s.aclChanged()
		}
	}); derr != nil {
		return derr // the server is closed
	}
	return err
}

// Seed seeds the generator the random commands (SPOP, SRANDMEMBER,
// HRANDFIELD, ZRANDMEMBER, RANDOMKEY) draw from, so that a test sending
// them to the same data gets the same answers on every run.
func (s *Server) Seed(seed int64) { s.owner.Do(func() { s.ks.Seed(uint64(seed)) }) }

// CurrentConnectionCount is the number of clients connected now.
func (s *Server) CurrentConnectionCount() int { return s.clients.count() }

// TotalConnectionCount is the number of connections accepted since Start
// (INFO's total_connections_received).
func (s *Server) TotalConnectionCount() int { return int(s.stats.connections.Load()) }

// CommandCount is the number of commands clients sent since Start,
// refused ones included.
func (s *Server) CommandCount() int { return int(s.stats.commands.Load()) }

// errDBRange is SELECT's error for a database that does not exist.
var errDBRange = resp.NewError("DB index is out of range")

// exec runs the data command run with args (the command's name first) in
// d's database on the owner, as a client's command would run, and returns
// its RESP2 reply or its error.
func (d DB) exec(run func(*keyspace.Keyspace, *keyspace.Ctx, [][]byte) error, args ...string) (reply []byte, err error) {
	argv := make([][]byte, len(args))
	for i, a := range args {
		argv[i] = []byte(a)
	}
	err = errDBRange
	d.s.owner.Do(func() {
		if d.n < 0 || d.n >= d.s.ks.Databases() {
			return
		}
		w := resp.Writer{Proto: 2}
		c := keyspace.Ctx{W: &w, DB: d.n, Now: d.s.ks.Now()}
		err = run(d.s.ks, &c, argv)
		reply = w.B
		d.s.serveReady()
	})
	return reply, err
}

// read runs f on the owner with d's database, once the database number is
// known to be valid.
func (d DB) read(f func(ks *keyspace.Keyspace) error) error {
	err := error(errDBRange)
	d.s.owner.Do(func() {
		if d.n >= 0 && d.n < d.s.ks.Databases() {
			err = f(d.s.ks)
		}
	})
	return err
}

// replyInt reads an integer reply.
func replyInt(b []byte, err error) (int64, error) {
	if err != nil {
		return 0, err
	}
	if len(b) < 4 || b[0] != ':' {
		return 0, fmt.Errorf("server: unexpected reply %q", b)
	}
	return strconv.ParseInt(string(b[1:len(b)-2]), 10, 64)
}

// replyBulk reads a bulk string reply; a null one is ErrNoKey.
func replyBulk(b []byte, err error) (string, error) {
	if err != nil {
		return "", err
	}
	if len(b) < 4 || b[0] != '$' {
		return "", fmt.Errorf("server: unexpected reply %q", b)
	}
	if b[1] == '-' {
		return "", ErrNoKey
	}
	i := strings.IndexByte(string(b), '\n')
	return string(b[i+1 : len(b)-2]), nil
}

// replyFloat reads a float sent as a bulk string (RESP2's doubles).
func replyFloat(b []byte, err error) (float64, error) {
	s, err := replyBulk(b, err)
	if err != nil {
		return 0, err
	}
	return strconv.ParseFloat(s, 64)
}

// float is a score or increment as Redis reads it back exactly.
func float(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "+inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

func withKey(name, key string, rest ...string) []string {
	return append([]string{name, key}, rest...)
}

// Type returns key's type as TYPE names it ("string", "hash", "list",
// "set", "zset" ...), or "none".
func (d DB) Type(key string) string {
	t := "none"
	d.read(func(ks *keyspace.Keyspace) error { t = ks.TypeOf(d.n, key); return nil })
	return t
}

// Incr adds delta to the integer at key, as INCRBY, and returns the sum.
func (d DB) Incr(key string, delta int64) (int64, error) {
	return replyInt(d.exec(keyspace.CmdIncrBy, "incrby", key, strconv.FormatInt(delta, 10)))
}

// IncrByFloat adds delta to the number at key, as INCRBYFLOAT.
func (d DB) IncrByFloat(key string, delta float64) (float64, error) {
	return replyFloat(d.exec(keyspace.CmdIncrByFloat, "incrbyfloat", key, float(delta)))
}

// Expire gives key a time to live, as PEXPIRE (a ttl <= 0 deletes it), and
// reports whether the key exists.
func (d DB) Expire(key string, ttl time.Duration) bool {
	n, _ := replyInt(d.exec(keyspace.CmdPExpire, "pexpire", key, strconv.FormatInt(ttl.Milliseconds(), 10)))
	return n == 1
}

// Persist removes key's time to live, as PERSIST, and reports whether it
// had one.
func (d DB) Persist(key string) bool {
	n, _ := replyInt(d.exec(keyspace.CmdPersist, "persist", key))
	return n == 1
}

// Hashes.

// HSet sets fields of the hash at key, as HSET key field value [field
// value ...], and returns how many fields are new.
func (d DB) HSet(key string, fieldValues ...string) (int, error) {
	if len(fieldValues) == 0 || len(fieldValues)%2 != 0 {
		return 0, resp.ErrWrongArgs("hset")
	}
	n, err := replyInt(d.exec(keyspace.CmdHSet, withKey("hset", key, fieldValues...)...))
	return int(n), err
}

// HDel removes fields, as HDEL, and returns how many there were.
func (d DB) HDel(key string, fields ...string) (int, error) {
	if len(fields) == 0 {
		return 0, resp.ErrWrongArgs("hdel")
	}
	n, err := replyInt(d.exec(keyspace.CmdHDel, withKey("hdel", key, fields...)...))
	return int(n), err
}

// HIncrBy adds delta to an integer field, as HINCRBY.
func (d DB) HIncrBy(key, field string, delta int64) (int64, error) {
	return replyInt(d.exec(keyspace.CmdHIncrBy, "hincrby", key, field, strconv.FormatInt(delta, 10)))
}

// HIncrByFloat adds delta to a numeric field, as HINCRBYFLOAT.
func (d DB) HIncrByFloat(key, field string, delta float64) (float64, error) {
	return replyFloat(d.exec(keyspace.CmdHIncrByFloat, "hincrbyfloat", key, field, float(delta)))
}

// HGetAll returns the hash at key as a map.
func (d DB) HGetAll(key string) (h map[string]string, err error) {
	err = d.read(func(ks *keyspace.Keyspace) error { h, err = ks.HashOf(d.n, key); return err })
	return h, err
}

// HGet returns one field of the hash at key (ErrNoKey for a missing key
// or field).
func (d DB) HGet(key, field string) (string, error) {
	h, err := d.HGetAll(key)
	if err != nil {
		return "", err
	}
	v, ok := h[field]
	if !ok {
		return "", ErrNoKey
	}
	return v, nil
}

// HKeys returns the fields of the hash at key, sorted.
func (d DB) HKeys(key string) ([]string, error) {
	h, err := d.HGetAll(key)
	if err != nil {
		return nil, err
	}
	return slices.Sorted(maps.Keys(h)), nil
}

// Lists.

// LPush pushes values onto the head of the list at key, as LPUSH (the
// last value ends up first), and returns the list's length.
func (d DB) LPush(key string, values ...string) (int, error) {
	return d.push(keyspace.CmdLPush, "lpush", key, values)
}

// RPush appends values to the list at key, as RPUSH.
func (d DB) RPush(key string, values ...string) (int, error) {
	return d.push(keyspace.CmdRPush, "rpush", key, values)
}

func (d DB) push(run func(*keyspace.Keyspace, *keyspace.Ctx, [][]byte) error, name, key string, values []string) (int, error) {
	if len(values) == 0 {
		return 0, resp.ErrWrongArgs(name)
	}
	n, err := replyInt(d.exec(run, withKey(name, key, values...)...))
	return int(n), err
}

// LPop removes and returns the list's first element, as LPOP (ErrNoKey
// when there is none).
func (d DB) LPop(key string) (string, error) {
	return replyBulk(d.exec(keyspace.CmdLPop, "lpop", key))
}

// RPop removes and returns the list's last element, as RPOP.
func (d DB) RPop(key string) (string, error) {
	return replyBulk(d.exec(keyspace.CmdRPop, "rpop", key))
}

// List returns the elements of the list at key, head first.
func (d DB) List(key string) (l []string, err error) {
	err = d.read(func(ks *keyspace.Keyspace) error { l, err = ks.ListOf(d.n, key); return err })
	return l, err
}

// LRange returns the elements start..stop of the list at key, with
// LRANGE's indexes (negative ones count from the tail, both inclusive).
func (d DB) LRange(key string, start, stop int) ([]string, error) {
	l, err := d.List(key)
	if err != nil {
		return nil, err
	}
	from, to := rangeBounds(len(l), start, stop)
	return l[from:to], nil
}

// rangeBounds turns Redis's inclusive, possibly negative range into a slice's
// bounds over n elements (t_list.c:addListRangeReply's rules).
func rangeBounds(n, start, stop int) (int, int) {
	if start < 0 {
		start = max(n+start, 0)
	}
	if stop < 0 {
		stop = n + stop
	}
	stop = min(stop, n-1)
	if start > stop || start >= n {
		return 0, 0
	}
	return start, stop + 1
}

// Sets.

// SAdd adds members to the set at key, as SADD, and returns how many are
// new.
func (d DB) SAdd(key string, members ...string) (int, error) {
	return d.push(keyspace.CmdSAdd, "sadd", key, members)
}

// SRem removes members, as SREM, and returns how many there were.
func (d DB) SRem(key string, members ...string) (int, error) {
	return d.push(keyspace.CmdSRem, "srem", key, members)
}

// SPop removes and returns a random member, as SPOP (see Seed).
func (d DB) SPop(key string) (string, error) {
	return replyBulk(d.exec(keyspace.CmdSPop, "spop", key))
}

// SMembers returns the members of the set at key, sorted.
func (d DB) SMembers(key string) (m []string, err error) {
	err = d.read(func(ks *keyspace.Keyspace) error { m, err = ks.SetOf(d.n, key); return err })
	return m, err
}

// SIsMember reports whether member is in the set at key.
func (d DB) SIsMember(key, member string) (bool, error) {
	m, err := d.SMembers(key)
	if err != nil {
		return false, err
	}
	i := sort.SearchStrings(m, member)
	return i < len(m) && m[i] == member, nil
}

// Sorted sets.

// ZAdd adds member with score to the sorted set at key, or updates its
// score, as ZADD, and reports whether the member is new.
func (d DB) ZAdd(key string, score float64, member string) (bool, error) {
	n, err := replyInt(d.exec(keyspace.CmdZAdd, "zadd", key, float(score), member))
	return n == 1, err
}

// ZIncrBy adds delta to member's score, as ZINCRBY, and returns the score.
func (d DB) ZIncrBy(key string, delta float64, member string) (float64, error) {
	return replyFloat(d.exec(keyspace.CmdZIncrBy, "zincrby", key, float(delta), member))
}

// ZRem removes members, as ZREM, and returns how many there were.
func (d DB) ZRem(key string, members ...string) (int, error) {
	return d.push(keyspace.CmdZRem, "zrem", key, members)
}

// ZRangeWithScores returns the members of ranks start..stop (ZRANGE's
// indexes) with their scores, lowest score first.
func (d DB) ZRangeWithScores(key string, start, stop int) ([]Z, error) {
	var z []Z
	err := d.read(func(ks *keyspace.Keyspace) (err error) { z, err = ks.ZSetOf(d.n, key); return err })
	if err != nil {
		return nil, err
	}
	from, to := rangeBounds(len(z), start, stop)
	return z[from:to], nil
}

// ZMembers returns the members of the sorted set at key in its order.
func (d DB) ZMembers(key string) ([]string, error) {
	z, err := d.ZRangeWithScores(key, 0, -1)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(z))
	for i, m := range z {
		out[i] = m.Member
	}
	return out, nil
}

// ZScore returns member's score (ErrNoKey for a missing key or member).
func (d DB) ZScore(key, member string) (float64, error) {
	z, err := d.ZRangeWithScores(key, 0, -1)
	if err != nil {
		return 0, err
	}
	for _, m := range z {
		if m.Member == member {
			return m.Score, nil
		}
	}
	return 0, ErrNoKey
}

// Checks. Each fails the test (Errorf: the test goes on) with what it
// wanted and what it found, line by line.

// CheckHash fails the test unless the hash at key holds exactly want.
func (d DB) CheckHash(t TB, key string, want map[string]string) {
	t.Helper()
	got, err := d.HGetAll(key)
	if err != nil {
		t.Errorf("minilock: hash %q: %v", key, err)
		return
	}
	line := func(h map[string]string) []string {
		var out []string
		for _, f := range slices.Sorted(maps.Keys(h)) {
			out = append(out, fmt.Sprintf("%q: %q", f, h[f]))
		}
		return out
	}
	checkLines(t, "hash", key, line(want), line(got))
}

// CheckList fails the test unless the list at key holds want, in order.
func (d DB) CheckList(t TB, key string, want ...string) {
	t.Helper()
	got, err := d.List(key)
	if err != nil {
		t.Errorf("minilock: list %q: %v", key, err)
		return
	}
	checkLines(t, "list", key, quoteAll(want), quoteAll(got))
}

// CheckSet fails the test unless the set at key holds exactly want, in
// any order.
func (d DB) CheckSet(t TB, key string, want ...string) {
	t.Helper()
	got, err := d.SMembers(key)
	if err != nil {
		t.Errorf("minilock: set %q: %v", key, err)
		return
	}
	want = append([]string(nil), want...)
	sort.Strings(want)
	checkLines(t, "set", key, quoteAll(want), quoteAll(got))
}

// CheckZSet fails the test unless the sorted set at key holds want: those
// members with those scores, in that order.
func (d DB) CheckZSet(t TB, key string, want ...Z) {
	t.Helper()
	got, err := d.ZRangeWithScores(key, 0, -1)
	if err != nil {
		t.Errorf("minilock: sorted set %q: %v", key, err)
		return
	}
	line := func(z []Z) []string {
		out := make([]string, len(z))
		for i, m := range z {
			out[i] = fmt.Sprintf("%s %q", float(m.Score), m.Member)
		}
		return out
	}
	checkLines(t, "sorted set", key, line(want), line(got))
}

func quoteAll(l []string) []string {
	out := make([]string, len(l))
	for i, s := range l {
		out[i] = strconv.Quote(s)
	}
	return out
}

// checkLines fails t with a line diff unless want and got are equal.
func checkLines(t TB, kind, key string, want, got []string) {
	t.Helper()
	if strings.Join(want, "\n") == strings.Join(got, "\n") && len(want) == len(got) {
		return
	}
	t.Errorf("minilock: %s %q differs (-want +got):\n%s", kind, key, diffLines(want, got))
}

// diffLines is a line diff of a and b by their longest common
// subsequence: "  " for a line in both, "- " for one only in a, "+ " for
// one only in b. The inputs are a test's expectations: small.
func diffLines(a, b []string) string {
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var sb strings.Builder
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			sb.WriteString("    " + a[i] + "\n")
			i, j = i+1, j+1
		case j < len(b) && (i == len(a) || lcs[i][j+1] >= lcs[i+1][j]):
			sb.WriteString("  + " + b[j] + "\n")
			j++
		default:
			sb.WriteString("  - " + a[i] + "\n")
			i++
		}
	}
	if len(a) == 0 && len(b) == 0 {
		return ""
	}
	return sb.String()
}

// Dump returns every key of the database and its value, one element a
// line, for a test to print while debugging: keys sorted, hash fields and
// set members sorted, lists and sorted sets in their order, values
// quoted and cut to 60 bytes. It is miniredis's Dump format.
func (d DB) Dump() string { return d.DumpWidth(60) }

// DumpWidth is Dump with values cut to maxLen bytes.
func (d DB) DumpWidth(maxLen int) string {
	v := func(s string) string {
		suffix := ""
		if len(s) > maxLen {
			suffix = fmt.Sprintf("...(%d)", len(s))
			s = s[:max(maxLen-len(suffix), 0)]
		}
		return fmt.Sprintf("%q%s", s, suffix)
	}
	const indent = "   "
	var sb strings.Builder
	d.read(func(ks *keyspace.Keyspace) error {
		for _, k := range ks.Keys(d.n) {
			fmt.Fprintf(&sb, "- %s\n", k)
			switch ks.TypeOf(d.n, k) {
			case "string":
				s, _ := ks.Value(d.n, k)
				sb.WriteString(indent + v(s) + "\n")
			case "hash":
				h, _ := ks.HashOf(d.n, k)
				for _, f := range slices.Sorted(maps.Keys(h)) {
					fmt.Fprintf(&sb, "%s%s: %s\n", indent, f, v(h[f]))
				}
			case "list":
				l, _ := ks.ListOf(d.n, k)
				for _, e := range l {
					sb.WriteString(indent + v(e) + "\n")
				}
			case "set":
				m, _ := ks.SetOf(d.n, k)
				for _, e := range m {
					sb.WriteString(indent + v(e) + "\n")
				}
			case "zset":
				z, _ := ks.ZSetOf(d.n, k)
				for _, e := range z {
					fmt.Fprintf(&sb, "%s%f: %s\n", indent, e.Score, v(e.Member))
				}
			default:
				fmt.Fprintf(&sb, "%s(a %s)\n", indent, ks.TypeOf(d.n, k))
			}
		}
		return nil
	})
	return sb.String()
}

// The same helpers on the Server, for the database Select picked.

// Type is DB.Type in the selected database.
func (s *Server) Type(key string) string { return s.sel().Type(key) }

// HSet is DB.HSet in the selected database.
func (s *Server) HSet(key string, fieldValues ...string) (int, error) {
	return s.sel().HSet(key, fieldValues...)
}

// HDel is DB.HDel in the selected database.
func (s *Server) HDel(key string, fields ...string) (int, error) { return s.sel().HDel(key, fields...) }

// HGet is DB.HGet in the selected database.
func (s *Server) HGet(key, field string) (string, error) { return s.sel().HGet(key, field) }

// HGetAll is DB.HGetAll in the selected database.
func (s *Server) HGetAll(key string) (map[string]string, error) { return s.sel().HGetAll(key) }

// HKeys is DB.HKeys in the selected database.
func (s *Server) HKeys(key string) ([]string, error) { return s.sel().HKeys(key) }

// LPush is DB.LPush in the selected database.
func (s *Server) LPush(key string, values ...string) (int, error) {
	return s.sel().LPush(key, values...)
}

// RPush is DB.RPush in the selected database.
func (s *Server) RPush(key string, values ...string) (int, error) {
	return s.sel().RPush(key, values...)
}

// LPop is DB.LPop in the selected database.
func (s *Server) LPop(key string) (string, error) { return s.sel().LPop(key) }

// RPop is DB.RPop in the selected database.
func (s *Server) RPop(key string) (string, error) { return s.sel().RPop(key) }

// List is DB.List in the selected database.
func (s *Server) List(key string) ([]string, error) { return s.sel().List(key) }

// SAdd is DB.SAdd in the selected database.
func (s *Server) SAdd(key string, members ...string) (int, error) {
	return s.sel().SAdd(key, members...)
}

// SRem is DB.SRem in the selected database.
func (s *Server) SRem(key string, members ...string) (int, error) {
	return s.sel().SRem(key, members...)
}

// SMembers is DB.SMembers in the selected database.
func (s *Server) SMembers(key string) ([]string, error) { return s.sel().SMembers(key) }

// ZAdd is DB.ZAdd in the selected database.
func (s *Server) ZAdd(key string, score float64, member string) (bool, error) {
	return s.sel().ZAdd(key, score, member)
}

// ZRem is DB.ZRem in the selected database.
func (s *Server) ZRem(key string, members ...string) (int, error) {
	return s.sel().ZRem(key, members...)
}

// ZRangeWithScores is DB.ZRangeWithScores in the selected database.
func (s *Server) ZRangeWithScores(key string, start, stop int) ([]Z, error) {
	return s.sel().ZRangeWithScores(key, start, stop)
}

// ZMembers is DB.ZMembers in the selected database.
func (s *Server) ZMembers(key string) ([]string, error) { return s.sel().ZMembers(key) }

// ZScore is DB.ZScore in the selected database.
func (s *Server) ZScore(key, member string) (float64, error) { return s.sel().ZScore(key, member) }

// CheckHash is DB.CheckHash in the selected database.
func (s *Server) CheckHash(t TB, key string, want map[string]string) {
	t.Helper()
	s.sel().CheckHash(t, key, want)
}

// CheckList is DB.CheckList in the selected database.
func (s *Server) CheckList(t TB, key string, want ...string) {
	t.Helper()
	s.sel().CheckList(t, key, want...)
}

// CheckSet is DB.CheckSet in the selected database.
func (s *Server) CheckSet(t TB, key string, want ...string) {
	t.Helper()
	s.sel().CheckSet(t, key, want...)
}

// CheckZSet is DB.CheckZSet in the selected database.
func (s *Server) CheckZSet(t TB, key string, want ...Z) {
	t.Helper()
	s.sel().CheckZSet(t, key, want...)
}

// Dump is DB.Dump of the selected database.
func (s *Server) Dump() string { return s.sel().Dump() }

// FlushDB empties the database, as FLUSHDB.
func (d DB) FlushDB() { d.exec(keyspace.CmdFlushDB, "flushdb") }

// SRandMember returns a random member of the set at key, as SRANDMEMBER
// (see Seed); ErrNoKey for a missing key.
func (d DB) SRandMember(key string) (string, error) {
	return replyBulk(d.exec(keyspace.CmdSRandMember, "srandmember", key))
}

// Copy copies key to dst in database dstDB, replacing what is there, as
// COPY key dst DB dstDB REPLACE, and reports whether key existed.
func (d DB) Copy(key string, dstDB int, dst string) (bool, error) {
	n, err := replyInt(d.exec(keyspace.CmdCopy, "copy", key, dst, "db", strconv.Itoa(dstDB), "replace"))
	return n == 1, err
}

// PubSubChannels returns the channels with subscribers whose name matches
// the glob pattern ("" for all), sorted, as PUBSUB CHANNELS.
func (s *Server) PubSubChannels(pattern string) []string {
	var names []string
	s.owner.Do(func() {
		for name := range s.pubsub.channels {
			if pattern == "" || keyspace.Match([]byte(pattern), name) {
				names = append(names, name)
			}
		}
	})
	slices.Sort(names)
	return names
}

// PubSubNumSub returns each channel's number of subscribers, as PUBSUB
// NUMSUB.
func (s *Server) PubSubNumSub(channels ...string) map[string]int {
	out := make(map[string]int, len(channels))
	s.owner.Do(func() {
		for _, ch := range channels {
			out[ch] = len(s.pubsub.channels[ch])
		}
	})
	return out
}

// PubSubNumPat returns the number of patterns subscribed to, as PUBSUB
// NUMPAT.
func (s *Server) PubSubNumPat() (n int) {
	s.owner.Do(func() { n = len(s.pubsub.patterns) })
	return n
}
