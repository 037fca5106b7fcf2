package server_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"math"
	"math/big"
	"net"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/minilock/minilock/internal/redistest"
	"github.com/minilock/minilock/server"
)

// must returns v, or stops the test (a panic fails it, with the stack
// saying where) on err: Go passes f()'s two results only to a function of
// exactly two parameters.
func must[V any](v V, err error) V {
	if err != nil {
		panic(err)
	}
	return v
}

func eq(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s = %#v, want %#v", what, got, want)
	}
}

func TestEmbedHashes(t *testing.T) {
	s := server.RunT(t, server.Manual())
	rdb := client(t, s)
	eq(t, "HSet new fields", must(s.HSet("h", "a", "1", "b", "2")), 2)
	eq(t, "HSet an existing field", must(s.HSet("h", "a", "10", "c", "3")), 1)
	eq(t, "HGetAll", must(s.HGetAll("h")), map[string]string{"a": "10", "b": "2", "c": "3"})
	eq(t, "client's HGETALL", rdb.HGetAll(ctx, "h").Val(), map[string]string{"a": "10", "b": "2", "c": "3"})
	eq(t, "HKeys", must(s.HKeys("h")), []string{"a", "b", "c"})
	eq(t, "HGet", must(s.HGet("h", "b")), "2")
	if _, err := s.HGet("h", "zz"); !errors.Is(err, server.ErrNoKey) {
		t.Fatalf("HGet of a missing field: %v, want ErrNoKey", err)
	}
	if _, err := s.HGetAll("nope"); !errors.Is(err, server.ErrNoKey) {
		t.Fatalf("HGetAll of a missing key: %v, want ErrNoKey", err)
	}
	eq(t, "HIncrBy", must(s.DB(0).HIncrBy("h", "a", 5)), int64(15))
	eq(t, "HIncrByFloat", must(s.DB(0).HIncrByFloat("h", "f", 1.5)), 1.5)
	if _, err := s.DB(0).HIncrBy("h", "f", 1); err == nil || err.Error() != "ERR hash value is not an integer" {
		t.Fatalf("HIncrBy of a float: %v, want HINCRBY's error", err)
	}
	eq(t, "HDel", must(s.HDel("h", "a", "b", "zz")), 2)
	if _, err := s.HSet("h", "odd"); err == nil || !strings.Contains(err.Error(), "wrong number of arguments for 'hset'") {
		t.Fatalf("HSet with a field and no value: %v", err)
	}
	s.Set("str", "x")
	if _, err := s.HSet("str", "a", "1"); !errors.Is(err, server.ErrWrongType) {
		t.Fatalf("HSet on a string: %v, want WRONGTYPE", err)
	}
	if _, err := s.HGetAll("str"); err == nil || !strings.HasPrefix(err.Error(), "WRONGTYPE Operation against a key holding the wrong kind of value") {
		t.Fatalf("HGetAll of a string: %v", err)
	}
}

func TestEmbedLists(t *testing.T) {
	s := server.RunT(t, server.Manual())
	rdb := client(t, s)
	eq(t, "LPush", must(s.LPush("l", "b", "a")), 2) // a ends up first, as LPUSH
	eq(t, "RPush", must(s.RPush("l", "c", "d", "e")), 5)
	eq(t, "List", must(s.List("l")), []string{"a", "b", "c", "d", "e"})
	// LRange reads indexes as LRANGE does: compare with the command.
	for _, r := range [][2]int{{0, -1}, {1, 2}, {-2, -1}, {-100, 1}, {3, 100}, {4, 2}, {5, 9}, {-1, -3}, {0, 0}} {
		got := must(s.DB(0).LRange("l", r[0], r[1]))
		want := rdb.LRange(ctx, "l", int64(r[0]), int64(r[1])).Val()
		if !slices.Equal(got, want) {
			t.Fatalf("LRange(%d, %d) = %q, LRANGE answers %q", r[0], r[1], got, want)
		}
	}
	eq(t, "LPop", must(s.LPop("l")), "a")
	eq(t, "RPop", must(s.RPop("l")), "e")
	s.CheckList(t, "l", "b", "c", "d")
	for range 3 {
		must(s.LPop("l"))
	}
	if _, err := s.LPop("l"); !errors.Is(err, server.ErrNoKey) {
		t.Fatalf("LPop of an emptied list: %v, want ErrNoKey", err)
	}
	eq(t, "Type of the emptied list", s.Type("l"), "none")
}

func TestEmbedSets(t *testing.T) {
	s := server.RunT(t, server.Manual())
	eq(t, "SAdd", must(s.SAdd("s", "c", "a", "b", "a")), 3)
	eq(t, "SMembers sorted", must(s.SMembers("s")), []string{"a", "b", "c"})
	eq(t, "SIsMember a", must(s.DB(0).SIsMember("s", "a")), true)
	eq(t, "SIsMember z", must(s.DB(0).SIsMember("s", "z")), false)
	eq(t, "SRem", must(s.SRem("s", "a", "z")), 1)
	s.CheckSet(t, "s", "c", "b")
	// An intset: members sort as strings, as SMembers promises.
	must(s.SAdd("ints", "10", "9", "100"))
	eq(t, "SMembers of integers", must(s.SMembers("ints")), []string{"10", "100", "9"})
}

func TestEmbedSortedSets(t *testing.T) {
	s := server.RunT(t, server.Manual())
	rdb := client(t, s)
	eq(t, "ZAdd new", must(s.ZAdd("z", 2, "b")), true)
	must(s.ZAdd("z", 1, "a"))
	must(s.ZAdd("z", 1, "c"))
	eq(t, "ZAdd update", must(s.ZAdd("z", 3, "b")), false)
	must(s.ZAdd("z", math.Inf(1), "top"))
	eq(t, "ZMembers", must(s.ZMembers("z")), []string{"a", "c", "b", "top"})
	for _, r := range [][2]int{{0, -1}, {1, 2}, {-1, -1}, {2, 1}, {-10, 0}} {
		got := must(s.ZRangeWithScores("z", r[0], r[1]))
		var want []server.Z
		for _, z := range rdb.ZRangeWithScores(ctx, "z", int64(r[0]), int64(r[1])).Val() {
			want = append(want, server.Z{Member: z.Member.(string), Score: z.Score})
		}
		if len(got) != len(want) || (len(got) > 0 && !reflect.DeepEqual(got, want)) {
			t.Fatalf("ZRangeWithScores(%d, %d) = %v, ZRANGE answers %v", r[0], r[1], got, want)
		}
	}
	eq(t, "ZScore", must(s.ZScore("z", "b")), 3.0)
	eq(t, "ZIncrBy", must(s.DB(0).ZIncrBy("z", 0.5, "a")), 1.5)
	eq(t, "ZRem", must(s.ZRem("z", "top", "nope")), 1)
	s.CheckZSet(t, "z", server.Z{Member: "c", Score: 1}, server.Z{Member: "a", Score: 1.5}, server.Z{Member: "b", Score: 3})
	if _, err := s.ZAdd("z", math.NaN(), "x"); err == nil {
		t.Fatal("ZAdd of NaN was accepted")
	}
}

// The writers notify as their commands do, event for event, with the del
// that follows when a key is left empty.
func TestEmbedNotifies(t *testing.T) {
	s := server.RunT(t, server.Config{NotifyKeyspaceEvents: "KEA"})
	tap := s.Tap("__keyevent@0__:*")
	must(s.HSet("h", "f", "v"))
	must(s.LPush("l", "x"))
	must(s.SAdd("s", "m"))
	must(s.ZAdd("z", 1, "m"))
	must(s.HDel("h", "f"))
	must(s.LPop("l"))
	s.DB(0).Expire("s", time.Minute)
	var got []string
	for _, m := range tap.Wait(t, 9, time.Second) {
		got = append(got, strings.TrimPrefix(m.Channel, "__keyevent@0__:")+" "+m.Payload)
	}
	eq(t, "events", got, []string{"hset h", "lpush l", "sadd s", "zadd z", "hdel h", "del h", "lpop l", "del l", "expire s"})
}

// LPush serves a client blocked in BLPOP, as LPUSH from a client would.
func TestEmbedWakesBlockedClient(t *testing.T) {
	s := server.RunT(t)
	rdb := client(t, s)
	done := make(chan []string, 1)
	go func() { done <- rdb.BLPop(ctx, 5*time.Second, "q").Val() }()
	for deadline := time.Now().Add(2 * time.Second); ; {
		if strings.Contains(rdbInfo(t, s), "blocked_clients:1") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("BLPOP never blocked")
		}
		time.Sleep(time.Millisecond)
	}
	must(s.LPush("q", "job"))
	select {
	case got := <-done:
		eq(t, "BLPOP", got, []string{"q", "job"})
	case <-time.After(3 * time.Second):
		t.Fatal("LPush did not wake the blocked client")
	}
	if _, err := s.List("q"); !errors.Is(err, server.ErrNoKey) {
		t.Fatalf("the pushed element stayed: %v", err)
	}
}

func rdbInfo(t *testing.T, s *server.Server) string {
	c := redistest.Dial(t, s.Addr())
	defer c.Close()
	b, err := c.Do("INFO", "clients")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A direct write is a write: a transaction watching the key aborts.
func TestEmbedWriteTouchesWatch(t *testing.T) {
	s := server.RunT(t, server.Manual())
	rdb := client(t, s)
	err := rdb.Watch(ctx, func(tx *redis.Tx) error {
		must(s.SAdd("k", "m"))
		_, err := tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Set(ctx, "other", "1", 0)
			return nil
		})
		return err
	}, "k")
	if !errors.Is(err, redis.TxFailedErr) {
		t.Fatalf("EXEC after a direct SAdd to a watched key: %v, want it aborted", err)
	}
}

func TestEmbedCheckDiff(t *testing.T) {
	s := server.RunT(t, server.Manual())
	must(s.RPush("l", "a", "b", "c"))
	must(s.HSet("h", "f", "1"))
	must(s.SAdd("s", "x"))
	must(s.ZAdd("z", 1, "m"))
	tests := []struct {
		name  string
		check func(server.TB)
		want  string // "" for no failure
	}{
		{"list ok", func(t server.TB) { s.CheckList(t, "l", "a", "b", "c") }, ""},
		{"list differs", func(t server.TB) { s.CheckList(t, "l", "a", "c", "d") },
			"list \"l\" differs (-want +got):\n    \"a\"\n  + \"b\"\n    \"c\"\n  - \"d\"\n"},
		{"list missing", func(t server.TB) { s.CheckList(t, "nope", "a") }, `list "nope": no such key`},
		{"hash ok", func(t server.TB) { s.CheckHash(t, "h", map[string]string{"f": "1"}) }, ""},
		{"hash differs", func(t server.TB) { s.CheckHash(t, "h", map[string]string{"f": "2"}) },
			"hash \"h\" differs (-want +got):\n  + \"f\": \"1\"\n  - \"f\": \"2\"\n"},
		{"set ok in any order", func(t server.TB) { s.CheckSet(t, "s", "x") }, ""},
		{"set differs", func(t server.TB) { s.CheckSet(t, "s", "y", "x") }, "    \"x\"\n  - \"y\"\n"},
		{"set of another type", func(t server.TB) { s.CheckSet(t, "l", "a") }, "WRONGTYPE"},
		{"zset ok", func(t server.TB) { s.CheckZSet(t, "z", server.Z{Member: "m", Score: 1}) }, ""},
		{"zset differs", func(t server.TB) { s.CheckZSet(t, "z", server.Z{Member: "m", Score: 2}) }, "  + 1 \"m\"\n  - 2 \"m\"\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeT{}
			tt.check(f)
			switch {
			case tt.want == "" && len(f.errs) > 0:
				t.Fatalf("unexpected failure: %q", f.errs)
			case tt.want != "" && (len(f.errs) != 1 || !strings.Contains(f.errs[0], tt.want)):
				t.Fatalf("reported %q, want one error containing %q", f.errs, tt.want)
			}
		})
	}
}

func TestEmbedDump(t *testing.T) {
	s := server.RunT(t, server.Manual())
	s.Set("str", strings.Repeat("x", 70))
	must(s.HSet("h", "b", "2", "a", "1"))
	must(s.RPush("l", "one", "two"))
	must(s.SAdd("s", "m2", "m1"))
	must(s.ZAdd("z", 1.5, "lo"))
	must(s.ZAdd("z", -1, "neg"))
	want := "- h\n   a: \"1\"\n   b: \"2\"\n- l\n   \"one\"\n   \"two\"\n- s\n   \"m1\"\n   \"m2\"\n" +
		"- str\n   \"" + strings.Repeat("x", 53) + "\"...(70)\n- z\n   -1.000000: \"neg\"\n   1.500000: \"lo\"\n"
	eq(t, "Dump", s.Dump(), want)
	eq(t, "Dump of an empty database", s.DB(1).Dump(), "")
}

func TestEmbedSetError(t *testing.T) {
	s := server.RunT(t, server.Manual())
	rdb := client(t, s)
	s.SetError("LOADING Redis is loading\r\nthe dataset")
	for _, cmd := range [][]any{{"GET", "k"}, {"PING"}, {"NOSUCHCOMMAND"}, {"MULTI"}} {
		if err := rdb.Do(ctx, cmd...).Err(); err == nil || err.Error() != "LOADING Redis is loading  the dataset" {
			t.Fatalf("%v under SetError: %v", cmd, err)
		}
	}
	s.SetError("")
	if err := rdb.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatalf("after SetError(\"\"): %v", err)
	}
	s.CheckGet(t, "k", "v")
}

func TestEmbedRequireAuth(t *testing.T) {
	s := server.RunT(t, server.Manual())
	open := redistest.Dial(t, s.Addr()) // connected before: stays authenticated
	// The server registers a connection once it has accepted it (on the
	// epoll edge, when the loop gets to it): a round trip makes sure it has.
	if got, _ := open.Do("PING"); string(got) != "+PONG\r\n" {
		t.Fatalf("PING: %q", got)
	}
	s.RequireAuth("sesame")
	c := redistest.Dial(t, s.Addr())
	if got, _ := c.Do("GET", "k"); string(got) != "-NOAUTH Authentication required.\r\n" {
		t.Fatalf("GET before AUTH: %q", got)
	}
	if got, _ := c.Do("AUTH", "sesame"); string(got) != "+OK\r\n" {
		t.Fatalf("AUTH: %q", got)
	}
	if got, _ := open.Do("GET", "k"); string(got) != "$-1\r\n" {
		t.Fatalf("GET on a connection opened before RequireAuth: %q", got)
	}
	if err := s.RequireUserAuth("bob", "x"); !errors.Is(err, server.ErrNoUsers) {
		t.Fatalf("RequireUserAuth(bob): %v, want ErrNoUsers", err)
	}
	if err := s.RequireUserAuth("default", "other"); err != nil {
		t.Fatal(err)
	}
	c2 := redistest.Dial(t, s.Addr())
	if got, _ := c2.Do("AUTH", "default", "other"); string(got) != "+OK\r\n" {
		t.Fatalf("AUTH default other: %q", got)
	}
	s.RequireAuth("")
	c3 := redistest.Dial(t, s.Addr())
	if got, _ := c3.Do("GET", "k"); string(got) != "$-1\r\n" {
		t.Fatalf("GET after RequireAuth(\"\"): %q", got)
	}
}

// Seed makes the random commands repeat themselves: two servers seeded
// alike, given the same data and commands, answer the same.
func TestEmbedSeed(t *testing.T) {
	run := func(seed int64) string {
		s := server.RunT(t, server.Manual())
		s.Seed(seed)
		c := redistest.Dial(t, s.Addr())
		var out []string
		for i := range 50 {
			c.Do("SADD", "s", fmt.Sprint(i))
			c.Do("HSET", "h", fmt.Sprint(i), "v")
			c.Do("SET", fmt.Sprint("k", i), "v")
		}
		for _, cmd := range [][]string{{"SPOP", "s", "5"}, {"SRANDMEMBER", "s", "-5"}, {"HRANDFIELD", "h", "3"}, {"RANDOMKEY"}, {"SPOP", "s"}} {
			b, err := c.Do(cmd...)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, string(b))
		}
		return strings.Join(out, "|")
	}
	a, b, other := run(42), run(42), run(7)
	if a != b {
		t.Fatalf("seed 42 answered differently:\n%s\n%s", a, b)
	}
	if a == other {
		t.Fatalf("seeds 42 and 7 answered alike: %s", a)
	}
}

func TestEmbedTypeAndSelect(t *testing.T) {
	s := server.RunT(t, server.Manual())
	s.Set("str", "v")
	must(s.HSet("h", "f", "v"))
	must(s.RPush("l", "v"))
	must(s.SAdd("s", "v"))
	must(s.ZAdd("z", 1, "v"))
	for key, want := range map[string]string{"str": "string", "h": "hash", "l": "list", "s": "set", "z": "zset", "nope": "none"} {
		eq(t, "Type("+key+")", s.Type(key), want)
	}
	s.Select(3)
	eq(t, "Selected", s.Selected(), 3)
	s.Set("in3", "x")
	must(s.SAdd("set3", "m"))
	eq(t, "Keys of 3", s.Keys(), []string{"in3", "set3"})
	eq(t, "Keys of 0", s.DB(0).Keys(), []string{"h", "l", "s", "str", "z"})
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr(), DB: 3})
	defer rdb.Close()
	eq(t, "client in db 3", rdb.Get(ctx, "in3").Val(), "x")
	if _, err := s.DB(16).HSet("h", "f", "v"); err == nil || err.Error() != "ERR DB index is out of range" {
		t.Fatalf("HSet in database 16: %v", err)
	}
	if _, err := s.DB(-1).List("l"); err == nil {
		t.Fatal("List in database -1 answered")
	}
	eq(t, "Type in database 99", s.DB(99).Type("x"), "none")
}

func TestEmbedConnectionCounts(t *testing.T) {
	s := server.RunT(t, server.Manual())
	eq(t, "CurrentConnectionCount with none", s.CurrentConnectionCount(), 0)
	a := redistest.Dial(t, s.Addr())
	b := redistest.Dial(t, s.Addr())
	a.Do("PING")
	b.Do("PING")
	eq(t, "CurrentConnectionCount", s.CurrentConnectionCount(), 2)
	b.Close()
	for deadline := time.Now().Add(2 * time.Second); s.CurrentConnectionCount() != 1; {
		if time.Now().After(deadline) {
			t.Fatalf("CurrentConnectionCount stayed %d after a client left", s.CurrentConnectionCount())
		}
		time.Sleep(time.Millisecond)
	}
	eq(t, "TotalConnectionCount", s.TotalConnectionCount(), 2)
	eq(t, "CommandCount", s.CommandCount(), 2)
}

// Unlisten drops the clients and the port but keeps the data; Listen
// serves again, on the same port.
func TestEmbedUnlistenListen(t *testing.T) {
	s := server.RunT(t, server.Manual())
	addr := s.Addr()
	s.Set("k", "v")
	s.Unlisten()
	if c, err := net.Dial("tcp", addr); err == nil {
		c.Close()
		t.Fatal("Unlisten still accepts connections")
	}
	s.CheckGet(t, "k", "v")
	must(s.RPush("l", "kept"))
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	eq(t, "Addr", s.Addr(), addr)
	rdb := client(t, s)
	eq(t, "GET after Listen", rdb.Get(ctx, "k").Val(), "v")
	eq(t, "LRANGE after Listen", rdb.LRange(ctx, "l", 0, -1).Val(), []string{"kept"})
	if err := s.Listen("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	if s.Addr() == addr {
		t.Fatal("Listen(127.0.0.1:0) kept the old port")
	}
}

func TestEmbedCountersAndTTL(t *testing.T) {
	s := server.RunT(t, server.Manual())
	d := s.DB(0)
	eq(t, "Incr", must(d.Incr("n", 5)), int64(5))
	eq(t, "Incr", must(d.Incr("n", -7)), int64(-2))
	eq(t, "IncrByFloat", must(d.IncrByFloat("f", 0.1)), 0.1)
	s.Set("s", "abc")
	if _, err := d.Incr("s", 1); err == nil || err.Error() != "ERR value is not an integer or out of range" {
		t.Fatalf("Incr of a string: %v", err)
	}
	eq(t, "Expire", d.Expire("n", 10*time.Second), true)
	s.CheckTTL(t, "n", 10*time.Second)
	eq(t, "Persist", d.Persist("n"), true)
	s.CheckTTL(t, "n", 0)
	eq(t, "Expire of a missing key", d.Expire("nope", time.Second), false)
	eq(t, "Expire 0 deletes", d.Expire("n", 0), true)
	eq(t, "Exists after Expire 0", s.Exists("n"), false)
	must(s.SAdd("one", "only"))
	eq(t, "SPop", must(d.SPop("one")), "only")
	if _, err := d.SPop("one"); !errors.Is(err, server.ErrNoKey) {
		t.Fatalf("SPop of an emptied set: %v", err)
	}
}

// selfSigned is a certificate for 127.0.0.1, made for the test.
func selfSigned(t *testing.T) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

func TestEmbedListenTLS(t *testing.T) {
	s := server.RunT(t, server.Manual())
	s.Set("k", "v")
	err := s.ListenTLS(&tls.Config{Certificates: []tls.Certificate{selfSigned(t)}}, "127.0.0.1:0")
	if os.Getenv("MINILOCK_EDGE") == "epoll" {
		if err == nil {
			t.Fatal("ListenTLS on the epoll edge was accepted")
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr(), TLSConfig: &tls.Config{InsecureSkipVerify: true}})
	defer rdb.Close()
	eq(t, "GET over TLS", rdb.Get(ctx, "k").Val(), "v")
	plain := redistest.Dial(t, s.Addr())
	if got, err := plain.Do("PING"); err == nil {
		t.Fatalf("a plain-text PING to the TLS port was answered: %q", got)
	}
}

func TestEmbedPubSubCounts(t *testing.T) {
	s := server.RunT(t, server.Manual())
	a := redistest.Dial(t, s.Addr())
	b := redistest.Dial(t, s.Addr())
	a.MustDo("SUBSCRIBE", "lock:a", "lock:b")
	a.MustReply()
	b.MustDo("SUBSCRIBE", "lock:a", "other")
	b.MustReply()
	b.MustDo("PSUBSCRIBE", "lock:*")
	eq(t, "PubSubChannels(\"\")", s.PubSubChannels(""), []string{"lock:a", "lock:b", "other"})
	eq(t, "PubSubChannels(lock:*)", s.PubSubChannels("lock:*"), []string{"lock:a", "lock:b"})
	eq(t, "PubSubChannels(none)", len(s.PubSubChannels("none*")), 0)
	eq(t, "PubSubNumSub", s.PubSubNumSub("lock:a", "lock:b", "nope"), map[string]int{"lock:a": 2, "lock:b": 1, "nope": 0})
	eq(t, "PubSubNumPat", s.PubSubNumPat(), 1)
}

// SwapDB swaps data and TTLs, breaks a WATCH on a key whose content
// changes, and serves a BLPOP waiting in the other database.
func TestEmbedSwapDB(t *testing.T) {
	s := server.RunT(t, server.Manual())
	s.DB(0).Set("a", "zero", time.Minute)
	s.DB(1).Set("b", "one", 0)
	if !s.SwapDB(0, 1) {
		t.Fatal("SwapDB(0, 1) = false")
	}
	eq(t, "db 1 after the swap", fmt.Sprintln(s.DB(1).Get("a")), "zero true\n")
	eq(t, "db 1's TTL", fmt.Sprintln(s.DB(1).TTL("a")), "1m0s true\n")
	eq(t, "db 0 after the swap", fmt.Sprintln(s.DB(0).Get("b")), "one true\n")
	eq(t, "db 0 lost a", s.DB(0).Exists("a"), false)
	s.FastForward(time.Minute + time.Millisecond)
	eq(t, "the TTL moved with its key", s.DB(1).Exists("a"), false)
	eq(t, "SwapDB(0, 16)", s.SwapDB(0, 16), false)
	eq(t, "SwapDB(-1, 0)", s.SwapDB(-1, 0), false)
	eq(t, "SwapDB(3, 3)", s.SwapDB(3, 3), true)
	eq(t, "db 0 unchanged by the refused swaps", fmt.Sprintln(s.DB(0).Get("b")), "one true\n")

	// A client watching b in db 0 sees its transaction fail: the swap
	// takes b away.
	watcher := redis.NewClient(&redis.Options{Addr: s.Addr()})
	defer watcher.Close()
	err := watcher.Watch(ctx, func(tx *redis.Tx) error {
		s.SwapDB(0, 2)
		_, err := tx.TxPipelined(ctx, func(p redis.Pipeliner) error { p.Set(ctx, "b", "x", 0); return nil })
		return err
	}, "b")
	if !errors.Is(err, redis.TxFailedErr) {
		t.Fatalf("EXEC after a swap took the watched key: %v, want redis.TxFailedErr", err)
	}

	// A client blocked on a list in db 3 is served when a swap brings one.
	blocked := redis.NewClient(&redis.Options{Addr: s.Addr(), DB: 3})
	defer blocked.Close()
	got := make(chan []string, 1)
	go func() { got <- blocked.BLPop(ctx, 5*time.Second, "queue").Val() }()
	for deadline := time.Now().Add(2 * time.Second); !strings.Contains(rdbInfo(t, s), "blocked_clients:1"); {
		if time.Now().After(deadline) {
			t.Fatal("BLPOP never blocked")
		}
		time.Sleep(time.Millisecond)
	}
	must(s.DB(4).RPush("queue", "job"))
	s.SwapDB(3, 4)
	eq(t, "BLPOP served by the swap", <-got, []string{"queue", "job"})
	eq(t, "the list emptied", s.DB(3).Exists("queue"), false)
}
