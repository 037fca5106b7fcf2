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
