package miniredis_test

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/minilock/minilock/miniredis"
)

// A suite written for miniredis runs on minilock by changing its import
// to github.com/minilock/minilock/miniredis. In a test, the first two
// lines are one: s := miniredis.RunT(t).
func Example() {
	s, _ := miniredis.Run()
	defer s.Close()
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr()})
	defer rdb.Close()

	s.HSet("session:1", "user", "ann")
	rdb.Expire(ctx, "session:1", time.Minute)
	fmt.Println(rdb.HGet(ctx, "session:1", "user").Val())
	s.FastForward(time.Minute)
	fmt.Println(s.Exists("session:1"))
	rdb.RPush(ctx, "queue", "job1", "job2")
	fmt.Println(s.List("queue"))
	// Output:
	// ann
	// false
	// [job1 job2] <nil>
}

// Close keeps the data: Restart serves it again on the same port.
func ExampleMiniredis_Restart() {
	s, _ := miniredis.Run()
	defer s.Close()
	s.Set("k", "v")
	addr := s.Addr()
	s.Close()
	s.Restart()
	fmt.Println(s.Addr() == addr)
	fmt.Println(s.Get("k"))
	// Output:
	// true
	// v <nil>
}
