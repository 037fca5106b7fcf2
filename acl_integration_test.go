package minilock_test

import (
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/minilock/minilock/server"
)

// TestGoRedisACLUserURL connects go-redis with redis://user:pass@host (HELLO
// 3 AUTH user pass) as a user of the config file's "user" lines, limited to
// its key prefix, and as a wrong password.
func TestGoRedisACLUserURL(t *testing.T) {
	s := server.RunT(t, server.Config{
		Password: "adminpw",
		Users:    [][]string{{"svc", "on", ">svcpw", "~svc:*", "&svc:*", "+@all", "-@dangerous"}},
	})
	for _, proto := range []string{"", "&protocol=2"} {
		opt, err := redis.ParseURL("redis://svc:svcpw@" + s.Addr() + "/0?" + proto)
		if err != nil {
			t.Fatal(err)
		}
		rdb := redis.NewClient(opt)
		defer rdb.Close()
		if who, err := rdb.Do(ctx, "ACL", "WHOAMI").Text(); err != nil || who != "svc" {
			t.Fatalf("%s: ACL WHOAMI = %q, %v", proto, who, err)
		}
		if err := rdb.Set(ctx, "svc:k", "v", 0).Err(); err != nil {
			t.Fatalf("%s: SET svc:k: %v", proto, err)
		}
		err = rdb.Set(ctx, "other:k", "v", 0).Err()
		if err == nil || err.Error() != "NOPERM this user has no permissions to access one of the keys used as arguments" {
			t.Fatalf("%s: SET other:k: %v", proto, err)
		}
		err = rdb.FlushAll(ctx).Err()
		if err == nil || err.Error() != "NOPERM this user has no permissions to run the 'flushall' command" {
			t.Fatalf("%s: FLUSHALL: %v", proto, err)
		}
	}
	bad := redis.NewClient(&redis.Options{Addr: s.Addr(), Username: "svc", Password: "nope"})
	defer bad.Close()
	if err := bad.Ping(ctx).Err(); err == nil || !strings.HasPrefix(err.Error(), "WRONGPASS invalid username-password pair or user is disabled.") {
		t.Fatalf("wrong password: %v", err)
	}
	admin := redis.NewClient(&redis.Options{Addr: s.Addr(), Password: "adminpw"})
	defer admin.Close()
	log, err := admin.Do(ctx, "ACL", "LOG").Slice()
	if err != nil || len(log) < 3 {
		t.Fatalf("ACL LOG: %v, %v", log, err)
	}
}
