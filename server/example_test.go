package server_test

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/minilock/minilock/server"
)

// A lock test on a manual clock: take the lock, let its TTL run out with
// FastForward, take it again. In a test, the first two lines are one:
//
//	s := server.RunT(t, server.Manual())
func Example() {
	s, _ := server.Start(server.Manual())
	defer s.Close()
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr()})
	defer rdb.Close()

	fmt.Println(rdb.SetNX(ctx, "lock", "a", 30*time.Second).Val()) // a takes it
	fmt.Println(rdb.SetNX(ctx, "lock", "b", 30*time.Second).Val()) // b is refused
	fmt.Println(s.TTL("lock"))                                     // the clock stands still
	s.FastForward(30*time.Second + time.Millisecond)               // a's TTL runs out
	fmt.Println(rdb.SetNX(ctx, "lock", "b", 30*time.Second).Val()) // b takes it
	fmt.Println(s.Get("lock"))
	// Output:
	// true
	// false
	// 30s
	// true
	// b true
}

// Restart drops every connection and listens again on the same port; the
// data survives and go-redis reconnects by itself.
func ExampleServer_Restart() {
	s, _ := server.Start(server.Manual())
	defer s.Close()
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr()})
	defer rdb.Close()

	rdb.Set(ctx, "lock", "a", 30*time.Second)
	addr := s.Addr()
	if err := s.Restart(); err != nil {
		fmt.Println(err)
	}
	fmt.Println(s.Addr() == addr)
	fmt.Println(rdb.Get(ctx, "lock").Val(), rdb.TTL(ctx, "lock").Val())
	// Output:
	// true
	// a 30s
}

// Direct access reads and writes the data without a client, for setting
// up a test and checking its outcome.
func ExampleServer_Get() {
	s, _ := server.Start(server.Manual())
	defer s.Close()

	s.SetTTL("lock", "someone-else", 10*time.Second)
	s.Set("fence", "32")
	fmt.Println(s.Keys())
	fmt.Println(s.Get("lock"))
	fmt.Println(s.TTL("lock"), s.TTL("fence"))
	fmt.Println(s.Del("lock"), s.Exists("lock"))
	// Output:
	// [fence lock]
	// someone-else true
	// 10s 0s
	// true false
}

// Seeding and reading a hash: HSet is HSET, run on the server as a
// client's command would be; HGetAll returns a map.
func ExampleServer_HSet() {
	s, _ := server.Start(server.Manual())
	defer s.Close()
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr()})
	defer rdb.Close()

	fmt.Println(s.HSet("lock:meta", "owner", "worker-1", "fence", "7"))
	rdb.HIncrBy(ctx, "lock:meta", "fence", 1)
	fmt.Println(s.HGetAll("lock:meta"))
	fmt.Println(s.HKeys("lock:meta"))
	fmt.Println(s.HDel("lock:meta", "owner"))
	fmt.Println(s.HGet("lock:meta", "fence"))
	// Output:
	// 2 <nil>
	// map[fence:8 owner:worker-1] <nil>
	// [fence owner] <nil>
	// 1 <nil>
	// 8 <nil>
}

// A work queue: the test pushes a job, the client under test takes it
// with BLPOP, which RPush wakes as RPUSH would.
func ExampleServer_RPush() {
	s, _ := server.Start(server.Manual())
	defer s.Close()
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr()})
	defer rdb.Close()

	fmt.Println(s.RPush("jobs", "a", "b", "c"))
	fmt.Println(rdb.BLPop(ctx, time.Second, "jobs").Val())
	fmt.Println(s.List("jobs"))
	fmt.Println(s.DB(0).LRange("jobs", -1, -1))
	fmt.Println(s.LPop("jobs"))
	fmt.Println(s.RPop("jobs"))
	_, err := s.LPop("jobs")
	fmt.Println(err == server.ErrNoKey)
	// Output:
	// 3 <nil>
	// [jobs a]
	// [b c] <nil>
	// [c] <nil>
	// b <nil>
	// c <nil>
	// true
}

// Sets: SMembers is sorted, whatever the order of the SADDs.
func ExampleServer_SAdd() {
	s, _ := server.Start(server.Manual())
	defer s.Close()

	fmt.Println(s.SAdd("holders", "w2", "w1", "w2"))
	fmt.Println(s.SRem("holders", "w2"))
	fmt.Println(s.SMembers("holders"))
	fmt.Println(s.DB(0).SIsMember("holders", "w1"))
	// Output:
	// 2 <nil>
	// 1 <nil>
	// [w1] <nil>
	// true <nil>
}

// Sorted sets: a fair semaphore's queue, by score.
func ExampleServer_ZAdd() {
	s, _ := server.Start(server.Manual())
	defer s.Close()

	s.ZAdd("sem", 1700000002, "b")
	s.ZAdd("sem", 1700000001, "a")
	fmt.Println(s.ZAdd("sem", 1700000003, "b")) // an update: not new
	fmt.Println(s.ZMembers("sem"))
	fmt.Println(s.ZRangeWithScores("sem", 0, 0))
	fmt.Println(s.ZScore("sem", "b"))
	fmt.Println(s.ZRem("sem", "a"))
	// Output:
	// false <nil>
	// [a b] <nil>
	// [{a 1.700000001e+09}] <nil>
	// 1.700000003e+09 <nil>
	// 1 <nil>
}

// Type names a key's type as TYPE does.
func ExampleServer_Type() {
	s, _ := server.Start(server.Manual())
	defer s.Close()

	s.Set("lock", "token")
	s.HSet("meta", "owner", "w1")
	fmt.Println(s.Type("lock"), s.Type("meta"), s.Type("nope"))
	// Output:
	// string hash none
}

// The Check helpers fail the test with a line diff: "-" for what was
// wanted and is not there, "+" for what is there and was not wanted.
func ExampleServer_CheckList() {
	s, _ := server.Start(server.Manual())
	defer s.Close()

	s.RPush("jobs", "a", "b", "c")
	t := &printT{}
	s.CheckList(t, "jobs", "a", "c", "d")
	s.CheckSet(t, "jobs", "a")
	s.SAdd("seen", "x", "y")
	s.CheckSet(t, "seen", "y", "x") // any order: passes
	s.HSet("meta", "owner", "w1")
	s.CheckHash(t, "meta", map[string]string{"owner": "w2"})
	s.ZAdd("sem", 1, "a")
	s.CheckZSet(t, "sem", server.Z{Member: "a", Score: 1}) // passes
	// Output:
	// minilock: list "jobs" differs (-want +got):
	//     "a"
	//   + "b"
	//     "c"
	//   - "d"
	//
	// minilock: set "jobs": WRONGTYPE Operation against a key holding the wrong kind of value
	// minilock: hash "meta" differs (-want +got):
	//   + "owner": "w1"
	//   - "owner": "w2"
}

// printT is a server.TB that prints what a test would report.
type printT struct{}

func (printT) Helper()                           {}
func (printT) Errorf(format string, args ...any) { fmt.Printf(format+"\n", args...) }
func (printT) Fatalf(format string, args ...any) { fmt.Printf(format+"\n", args...) }
func (printT) Cleanup(func())                    {}

// Dump prints a whole database, for a test to log while debugging.
func ExampleServer_Dump() {
	s, _ := server.Start(server.Manual())
	defer s.Close()

	s.SetTTL("lock", "w1:4f2a", 30*time.Second)
	s.HSet("meta", "owner", "w1", "fence", "7")
	s.RPush("jobs", "a", "b")
	s.SAdd("holders", "w1")
	s.ZAdd("sem", 1.5, "w1")
	fmt.Print(s.Dump())
	// Output:
	// - holders
	//    "w1"
	// - jobs
	//    "a"
	//    "b"
	// - lock
	//    "w1:4f2a"
	// - meta
	//    fence: "7"
	//    owner: "w1"
	// - sem
	//    1.500000: "w1"
}

// SetError makes every command fail, to test a client's error paths.
func ExampleServer_SetError() {
	s, _ := server.Start(server.Manual())
	defer s.Close()
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr(), MaxRetries: -1})
	defer rdb.Close()

	s.SetError("LOADING Redis is loading the dataset in memory")
	fmt.Println(rdb.SetNX(ctx, "lock", "a", time.Minute).Err())
	s.SetError("")
	fmt.Println(rdb.SetNX(ctx, "lock", "a", time.Minute).Val())
	// Output:
	// LOADING Redis is loading the dataset in memory
	// true
}

// RequireAuth is requirepass: new connections must AUTH first.
func ExampleServer_RequireAuth() {
	s, _ := server.Start(server.Manual())
	defer s.Close()
	ctx := context.Background()

	s.RequireAuth("sesame")
	anon := redis.NewClient(&redis.Options{Addr: s.Addr()})
	defer anon.Close()
	fmt.Println(anon.Ping(ctx).Err())
	authed := redis.NewClient(&redis.Options{Addr: s.Addr(), Password: "sesame"})
	defer authed.Close()
	fmt.Println(authed.Ping(ctx).Val())
	_ = s.RequireUserAuth("bob", "pw") // an ACL user with every permission
	bob := redis.NewClient(&redis.Options{Addr: s.Addr(), Username: "bob", Password: "pw"})
	defer bob.Close()
	fmt.Println(bob.Do(ctx, "ACL", "WHOAMI").Val())
	// Output:
	// NOAUTH Authentication required.
	// PONG
	// bob
}

// Seed makes SPOP, SRANDMEMBER, RANDOMKEY ... repeat themselves from run
// to run.
func ExampleServer_Seed() {
	pop := func() string {
		s, _ := server.Start(server.Manual())
		defer s.Close()
		s.Seed(42)
		s.SAdd("pool", "a", "b", "c", "d", "e", "f", "g", "h")
		rdb := redis.NewClient(&redis.Options{Addr: s.Addr()})
		defer rdb.Close()
		return rdb.SPop(context.Background(), "pool").Val()
	}
	fmt.Println(pop() == pop())
	// Output:
	// true
}

// Select picks the database of the Server's helpers; DB(n) reaches any.
func ExampleServer_Select() {
	s, _ := server.Start(server.Manual())
	defer s.Close()
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr(), DB: 2})
	defer rdb.Close()

	s.Select(2)
	s.Set("lock", "w1")
	fmt.Println(rdb.Get(ctx, "lock").Val())
	fmt.Println(s.DB(0).Exists("lock"), s.DB(2).Exists("lock"))
	// Output:
	// w1
	// false true
}

// CurrentConnectionCount counts the clients connected now: a test can
// check that the code under test closes its connections.
func ExampleServer_CurrentConnectionCount() {
	s, _ := server.Start(server.Manual())
	defer s.Close()
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr()})
	rdb.Ping(context.Background())
	fmt.Println(s.CurrentConnectionCount())
	rdb.Close()
	for s.CurrentConnectionCount() > 0 {
		time.Sleep(time.Millisecond)
	}
	fmt.Println(s.CurrentConnectionCount())
	// Output:
	// 1
	// 0
}

// Unlisten is the server going away with its data kept; Listen brings it
// back on the same port.
func ExampleServer_Unlisten() {
	s, _ := server.Start(server.Manual())
	defer s.Close()
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr(), MaxRetries: -1})
	defer rdb.Close()

	rdb.Set(ctx, "lock", "w1", 0)
	s.Unlisten()
	fmt.Println(rdb.Get(ctx, "lock").Err() != nil)
	s.Listen()
	fmt.Println(rdb.Get(ctx, "lock").Val())
	// Output:
	// true
	// w1
}

// DB(n) reaches any database, with the helpers of every type; those the
// Server does not repeat (counters, TTLs, copies) live there.
func ExampleDB() {
	s, _ := server.Start(server.Manual())
	defer s.Close()
	db := s.DB(1)

	fmt.Println(db.Incr("fence", 33))
	fmt.Println(db.HIncrBy("stats", "acquired", 2))
	fmt.Println(db.ZIncrBy("sem", 1.5, "w1"))
	fmt.Println(db.Expire("fence", 10*time.Second), db.Persist("fence"))
	db.RPush("jobs", "a", "b", "c")
	fmt.Println(db.LRange("jobs", -2, -1))
	fmt.Println(db.Copy("jobs", 2, "jobs-copy"))
	fmt.Println(s.DB(2).List("jobs-copy"))
	db.SAdd("one", "only")
	fmt.Println(db.SRandMember("one"))
	fmt.Println(db.SPop("one"))
	db.FlushDB()
	fmt.Println(db.Keys(), s.DB(2).Keys())
	// Output:
	// 33 <nil>
	// 2 <nil>
	// 1.5 <nil>
	// true true
	// [b c] <nil>
	// true <nil>
	// [a b c] <nil>
	// only <nil>
	// only <nil>
	// [] [jobs-copy]
}

// PubSubNumSub and PubSubChannels tell a test whether the code under test
// is listening yet, without a client of its own.
func ExampleServer_PubSubNumSub() {
	s, _ := server.Start(server.Manual())
	defer s.Close()
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr()})
	defer rdb.Close()

	sub := rdb.Subscribe(ctx, "lock:released")
	defer sub.Close()
	sub.Receive(ctx) // the subscription is confirmed
	fmt.Println(s.PubSubNumSub("lock:released", "other"))
	fmt.Println(s.PubSubChannels("lock:*"), s.PubSubNumPat())
	// Output:
	// map[lock:released:1 other:0]
	// [lock:released] 0
}

// Streams from a test: XAdd as XADD (blocked XREADs wake), Stream reads
// every entry back.
func ExampleServer_XAdd() {
	s, _ := server.Start(server.Manual())
	defer s.Close()
	s.XAdd("jobs", "1-1", "task", "paint")
	s.XAdd("jobs", "1-2", "task", "wash")
	entries, _ := s.Stream("jobs")
	for _, e := range entries {
		fmt.Println(e.ID, e.Values)
	}
	// Output:
	// 1-1 [task paint]
	// 1-2 [task wash]
}

// HyperLogLogs from a test: PfAdd, PfCount, PfMerge as their commands.
func ExampleServer_PfAdd() {
	s, _ := server.Start(server.Manual())
	defer s.Close()
	s.PfAdd("visitors:mon", "ann", "bob")
	s.PfAdd("visitors:tue", "bob", "cat")
	n, _ := s.PfCount("visitors:mon", "visitors:tue")
	fmt.Println(n)
	// Output: 3
}

// SwapDB swaps two databases, as SWAPDB: a client stays in the database
// it selected and sees the other's keys.
func ExampleServer_SwapDB() {
	s, _ := server.Start(server.Manual())
	defer s.Close()
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr(), DB: 1})
	defer rdb.Close()

	s.DB(0).Set("config", "v2", 0)
	s.SwapDB(0, 1)
	fmt.Println(rdb.Get(context.Background(), "config").Val(), s.DB(0).Exists("config"))
	// Output:
	// v2 false
}
