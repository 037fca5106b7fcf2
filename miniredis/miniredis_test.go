package miniredis_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"math/big"
	"net"
	"os"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/minilock/minilock/miniredis"
)

var ctx = context.Background()

func client(t *testing.T, m *miniredis.Miniredis) *redis.Client {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: m.Addr(), MaxRetries: -1})
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

func eq(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s = %#v, want %#v", what, got, want)
	}
}

func TestRunTServes(t *testing.T) {
	m := miniredis.RunT(t)
	rdb := client(t, m)
	if err := rdb.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	m.CheckGet(t, "k", "v")
	eq(t, "Host", m.Host(), "127.0.0.1")
	eq(t, "Host:Port", m.Host()+":"+m.Port(), m.Addr())
}

// Data written before Start is there after it, and Close keeps the data
// for Restart on the same port, as in miniredis.
func TestCloseRestartKeepsData(t *testing.T) {
	m := miniredis.NewMiniRedis()
	m.Set("early", "1")
	if err := m.Start(); err != nil {
		t.Fatal(err)
	}
	addr := m.Addr()
	rdb := client(t, m)
	eq(t, "GET early", rdb.Get(ctx, "early").Val(), "1")
	rdb.RPush(ctx, "l", "a", "b")
	m.Close()
	m.Close() // twice is fine
	if c, err := net.Dial("tcp", addr); err == nil {
		c.Close()
		t.Fatal("a closed Miniredis accepts connections")
	}
	m.CheckList(t, "l", "a", "b")
	if err := m.Restart(); err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	eq(t, "Addr after Restart", m.Addr(), addr)
	eq(t, "LRANGE after Restart", rdb.LRange(ctx, "l", 0, -1).Val(), []string{"a", "b"})
}

func TestStartAddrMoves(t *testing.T) {
	m := miniredis.RunT(t)
	old := m.Addr()
	if err := m.StartAddr("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	if m.Addr() == old {
		t.Fatal("StartAddr kept the old address")
	}
	if c, err := net.Dial("tcp", old); err == nil {
		c.Close()
		t.Fatal("the old address still accepts connections")
	}
	client(t, m).Ping(ctx)
}

func TestDirectErrors(t *testing.T) {
	m := miniredis.RunT(t)
	if _, err := m.Get("nope"); err != miniredis.ErrKeyNotFound {
		t.Fatalf("Get of a missing key: %v", err)
	}
	m.Push("l", "x")
	if _, err := m.Get("l"); err != miniredis.ErrWrongType {
		t.Fatalf("Get of a list: %v", err)
	}
	if _, err := m.List("nope"); err != miniredis.ErrKeyNotFound {
		t.Fatalf("List of a missing key: %v", err)
	}
	if _, err := m.Members("l"); err != miniredis.ErrWrongType {
		t.Fatalf("Members of a list: %v", err)
	}
	m.Set("s", "abc")
	if _, err := m.Incr("s", 1); err != miniredis.ErrIntValueError {
		t.Fatalf("Incr of a string: %v", err)
	}
	m.Set("big", "9223372036854775807")
	if _, err := m.Incr("big", 1); err != miniredis.ErrIntValueOverflowError {
		t.Fatalf("Incr past int64: %v", err)
	}
	if _, err := m.Incrfloat("s", 1); err != miniredis.ErrFloatValueError {
		t.Fatalf("Incrfloat of a string: %v", err)
	}
	if _, err := m.SRem("nope", "x"); err != miniredis.ErrKeyNotFound {
		t.Fatalf("SRem of a missing key: %v", err)
	}
	if _, err := m.ZRem("nope", "x"); err != miniredis.ErrKeyNotFound {
		t.Fatalf("ZRem of a missing key: %v", err)
	}
	if err := m.Copy(0, "nope", 1, "x"); err != miniredis.ErrKeyNotFound {
		t.Fatalf("Copy of a missing key: %v", err)
	}
	eq(t, "Type of a missing key", m.Type("nope"), "")
	eq(t, "HGet of a missing key", m.HGet("nope", "f"), "")
	n, err := m.SCard("nope")
	eq(t, "SCard of a missing key", fmt.Sprint(n, err), "0 <nil>")
}

func TestDirectTypes(t *testing.T) {
	m := miniredis.RunT(t)
	rdb := client(t, m)
	m.HSet("h", "a", "1", "b", "2")
	eq(t, "HGet", m.HGet("h", "a"), "1")
	m.HDel("h", "a")
	keys, _ := m.HKeys("h")
	eq(t, "HKeys", keys, []string{"b"})
	n, _ := m.HIncrBy("h", "b", 3)
	eq(t, "HIncrBy", n, 5)
	f, _ := m.HIncrByFloat("h", "f", 0.5)
	eq(t, "HIncrByFloat", f, 0.5)
	eq(t, "client's HGETALL", rdb.HGetAll(ctx, "h").Val(), map[string]string{"b": "5", "f": "0.5"})

	m.Lpush("l", "b")
	m.Lpush("l", "a")
	m.RPush("l", "c", "d")
	m.CheckList(t, "l", "a", "b", "c", "d")
	v, _ := m.Lpop("l")
	eq(t, "Lpop", v, "a")
	v, _ = m.Pop("l")
	eq(t, "Pop", v, "d")

	m.SAdd("s", "b", "a")
	m.CheckSet(t, "s", "b", "a")
	ok, _ := m.IsMember("s", "a")
	eq(t, "IsMember", ok, true)
	c, _ := m.SCard("s")
	eq(t, "SCard", c, 2)
	r, _ := m.SRandMember("s")
	if r != "a" && r != "b" {
		t.Fatalf("SRandMember = %q", r)
	}

	added, _ := m.ZAdd("z", 2, "b")
	eq(t, "ZAdd new", added, true)
	m.ZAdd("z", 1, "a")
	added, _ = m.ZAdd("z", 3, "a")
	eq(t, "ZAdd moved", added, false)
	members, _ := m.ZMembers("z")
	eq(t, "ZMembers", members, []string{"b", "a"})
	ss, _ := m.SortedSet("z")
	eq(t, "SortedSet", ss, map[string]float64{"a": 3, "b": 2})
	sc, _ := m.ZScore("z", "a")
	eq(t, "ZScore", sc, 3.0)
	scs, _ := m.ZMScore("z", "a", "nope", "b")
	eq(t, "ZMScore", scs, []float64{3, 0, 2})
	gone, _ := m.ZRem("z", "a")
	eq(t, "ZRem", gone, true)

	for k, want := range map[string]string{"h": "hash", "l": "list", "s": "set", "z": "zset"} {
		eq(t, "Type("+k+")", m.Type(k), want)
	}
	// HSet replaces a key of another type, as miniredis documents.
	m.HSet("l", "f", "v")
	eq(t, "Type after HSet over a list", m.Type("l"), "hash")
	if err := m.Copy(0, "h", 2, "copy"); err != nil {
		t.Fatal(err)
	}
	eq(t, "copied", m.DB(2).HGet("copy", "b"), "5")
}

// TTLs run with the clock, as in Redis: in real time, and on
// FastForward. (miniredis's run only on FastForward.)
func TestTTLFollowsTheClock(t *testing.T) {
	m := miniredis.RunT(t)
	m.Set("ff", "v")
	m.SetTTL("ff", time.Hour)
	if ttl := m.TTL("ff"); ttl <= 59*time.Minute || ttl > time.Hour {
		t.Fatalf("TTL = %v", ttl)
	}
	m.FastForward(time.Hour)
	eq(t, "Exists after FastForward", m.Exists("ff"), false)
	m.Set("real", "v")
	m.SetTTL("real", 20*time.Millisecond)
	time.Sleep(60 * time.Millisecond)
	eq(t, "Exists after its TTL in real time", m.Exists("real"), false)
	m.Set("k", "v")
	m.SetTTL("k", time.Hour)
	m.Set("k", "w")
	eq(t, "TTL after Set (SET removes it)", m.TTL("k"), time.Duration(0))

	at := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	m.SetTime(at)
	tm := client(t, m).Time(ctx).Val()
	if d := tm.Sub(at); d < 0 || d > 5*time.Second {
		t.Fatalf("TIME after SetTime(%v) = %v", at, tm)
	}
}

func TestSelectAndDB(t *testing.T) {
	m := miniredis.RunT(t)
	m.Select(5)
	m.Set("k", "five")
	eq(t, "DB(5).Get", fmt.Sprintln(m.DB(5).Get("k")), "five <nil>\n")
	eq(t, "DB(0).Exists", m.DB(0).Exists("k"), false)
	rdb := redis.NewClient(&redis.Options{Addr: m.Addr(), DB: 5})
	defer rdb.Close()
	eq(t, "client in db 5", rdb.Get(ctx, "k").Val(), "five")
	eq(t, "Keys", m.Keys(), []string{"k"})
	m.FlushDB()
	eq(t, "Keys after FlushDB", len(m.Keys()), 0)
	m.DB(1).Set("x", "y")
	m.FlushAll()
	eq(t, "DB(1) after FlushAll", m.DB(1).Exists("x"), false)
}

func TestDump(t *testing.T) {
	m := miniredis.RunT(t)
	m.Set("str", strings.Repeat("v", 30))
	m.HSet("h", "f", "1")
	m.Push("l", "a")
	m.SAdd("s", "m")
	m.ZAdd("z", 2, "m")
	miniredis.DumpMaxLineLen = 20
	defer func() { miniredis.DumpMaxLineLen = 60 }()
	want := "- h\n   f: \"1\"\n- l\n   \"a\"\n- s\n   \"m\"\n- str\n   \"vvvvvvvvvvvvv\"...(30)\n- z\n   2.000000: \"m\"\n"
	eq(t, "Dump", m.Dump(), want)
}

// recorder is a miniredis.T that keeps what a Check helper reports.
type recorder struct{ errs []string }

func (r *recorder) Helper() {}
func (r *recorder) Errorf(f string, args ...interface{}) {
	r.errs = append(r.errs, fmt.Sprintf(f, args...))
}

func TestCheckHelpersFail(t *testing.T) {
	m := miniredis.RunT(t)
	m.Set("k", "v")
	m.Push("l", "a", "b")
	m.SAdd("s", "x")
	r := &recorder{}
	m.CheckGet(r, "k", "v")
	m.CheckList(r, "l", "a", "b")
	m.CheckSet(r, "s", "x")
	if len(r.errs) != 0 {
		t.Fatalf("passing checks reported %q", r.errs)
	}
	m.CheckGet(r, "k", "w")
	m.CheckGet(r, "nope", "w")
	m.CheckList(r, "l", "b", "a")
	m.CheckSet(r, "s", "y")
	m.CheckSet(r, "nope", "y")
	want := []string{
		`GET error, key "k": Expected "w", got "v"`,
		`GET error, key "nope": ERR no such key`,
		"minilock: list \"l\" differs (-want +got):\n  + \"a\"\n    \"b\"\n  - \"a\"\n",
		"minilock: set \"s\" differs (-want +got):\n  + \"x\"\n  - \"y\"\n",
		`minilock: set "nope": no such key`,
	}
	eq(t, "reports", r.errs, want)
}

func TestSetErrorAuthSeed(t *testing.T) {
	m := miniredis.RunT(t)
	rdb := client(t, m)
	m.SetError("MASTERDOWN Link with MASTER is down")
	if err := rdb.Ping(ctx).Err(); err == nil || err.Error() != "MASTERDOWN Link with MASTER is down" {
		t.Fatalf("PING under SetError: %v", err)
	}
	m.SetError("")
	m.RequireAuth("pw")
	anon := client(t, m)
	if err := anon.Ping(ctx).Err(); err == nil || err.Error() != "NOAUTH Authentication required." {
		t.Fatalf("PING without AUTH: %v", err)
	}
	m.RequireUserAuth("default", "pw2")
	authed := redis.NewClient(&redis.Options{Addr: m.Addr(), Username: "default", Password: "pw2"})
	defer authed.Close()
	if err := authed.Ping(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	func() {
		defer func() {
			if p := recover(); p == nil || !strings.Contains(fmt.Sprint(p), "only the default user exists") {
				t.Fatalf("RequireUserAuth(bob) did not refuse: %v", p)
			}
		}()
		m.RequireUserAuth("bob", "x")
	}()
	m.RequireAuth("")

	pop := func() string {
		m.Seed(3)
		m.DB(0).Del("pool")
		m.SAdd("pool", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j")
		return rdb.SPopN(ctx, "pool", 4).String()
	}
	if a, b := pop(), pop(); a != b {
		t.Fatalf("Seed(3) popped %s, then %s", a, b)
	}
}

func TestConnectionCounts(t *testing.T) {
	m := miniredis.RunT(t)
	eq(t, "CurrentConnectionCount", m.CurrentConnectionCount(), 0)
	rdb := client(t, m)
	rdb.Ping(ctx)
	eq(t, "CurrentConnectionCount", m.CurrentConnectionCount(), 1)
	eq(t, "TotalConnectionCount", m.TotalConnectionCount(), 1)
	if m.CommandCount() < 1 {
		t.Fatalf("CommandCount = %d", m.CommandCount())
	}
	m.Close()
	eq(t, "CurrentConnectionCount after Close", m.CurrentConnectionCount(), 0)
}

// A Miniredis nobody references any more stops its server: the goroutines
// it started end.
func TestUnreachableMiniredisStops(t *testing.T) {
	before := runtime.NumGoroutine()
	func() {
		m, err := miniredis.Run()
		if err != nil {
			t.Fatal(err)
		}
		m.Set("k", "v")
		m.Close()
	}()
	for deadline := time.Now().Add(5 * time.Second); runtime.NumGoroutine() > before; {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines, %d before:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
}

// Blocking pops are Redis's: FIFO, woken by a direct push.
func TestDirectPushWakesBLPOP(t *testing.T) {
	m := miniredis.RunT(t)
	rdb := client(t, m)
	got := make(chan []string, 1)
	go func() { got <- rdb.BLPop(ctx, 5*time.Second, "q").Val() }()
	time.Sleep(50 * time.Millisecond)
	m.Push("q", "job")
	select {
	case v := <-got:
		eq(t, "BLPOP", v, []string{"q", "job"})
	case <-time.After(3 * time.Second):
		t.Fatal("Push did not wake BLPOP")
	}
}

func TestRunTLS(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}
	if os.Getenv("MINILOCK_EDGE") == "epoll" {
		e := miniredis.NewMiniRedis()
		if err := e.StartTLS(cfg); err == nil {
			t.Fatal("StartTLS on the epoll edge was accepted")
		}
	}
	m, err := miniredis.RunTLS(cfg) // on the goroutine edge, whatever MINILOCK_EDGE says
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	m.Set("k", "v")
	rdb := redis.NewClient(&redis.Options{Addr: m.Addr(), TLSConfig: &tls.Config{InsecureSkipVerify: true}})
	defer rdb.Close()
	eq(t, "GET over TLS", rdb.Get(ctx, "k").Val(), "v")
}

func TestPubSubCounts(t *testing.T) {
	m := miniredis.RunT(t)
	sub := client(t, m).Subscribe(ctx, "ch1", "ch2")
	defer sub.Close()
	if _, err := sub.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(2 * time.Second); len(m.PubSubChannels("")) < 2; {
		if time.Now().After(deadline) {
			t.Fatalf("PubSubChannels = %q", m.PubSubChannels(""))
		}
		time.Sleep(time.Millisecond)
	}
	eq(t, "PubSubChannels(ch1)", m.PubSubChannels("ch1"), []string{"ch1"})
	eq(t, "PubSubNumSub", m.PubSubNumSub("ch1", "x"), map[string]int{"ch1": 1, "x": 0})
	eq(t, "PubSubNumPat", m.PubSubNumPat(), 0)
	eq(t, "Publish", m.Publish("ch2", "hi"), 1)
}

func TestSwapDB(t *testing.T) {
	m := miniredis.RunT(t)
	m.Set("k", "zero")
	m.DB(1).Set("k", "one")
	rdb := redis.NewClient(&redis.Options{Addr: m.Addr(), DB: 1})
	defer rdb.Close()
	eq(t, "SwapDB(0, 1)", m.SwapDB(0, 1), true)
	eq(t, "db 0", fmt.Sprintln(m.Get("k")), "one <nil>\n")
	eq(t, "client in db 1", rdb.Get(ctx, "k").Val(), "zero")
	eq(t, "SwapDB(0, 16)", m.SwapDB(0, 16), false)
}
