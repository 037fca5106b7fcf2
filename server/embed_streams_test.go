package server_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/minilock/minilock/server"
)

func TestEmbedStreams(t *testing.T) {
	s := server.RunT(t, server.Manual())
	rdb := client(t, s)
	eq(t, "XAdd with an explicit ID", must(s.XAdd("st", "1-1", "job", "paint", "n", "1")), "1-1")
	id := must(s.XAdd("st", "", "job", "wash"))
	if !strings.HasSuffix(id, "-0") || id == "1-1" {
		t.Fatalf("XAdd with the server's ID gave %q", id)
	}
	if _, err := s.XAdd("st", "1-1", "f", "v"); err == nil || err.Error() != "ERR The ID specified in XADD is equal or smaller than the target stream top item" {
		t.Fatalf("XAdd of an old ID: %v, want XADD's error", err)
	}
	want := []server.StreamEntry{{ID: "1-1", Values: []string{"job", "paint", "n", "1"}}, {ID: id, Values: []string{"job", "wash"}}}
	eq(t, "Stream", must(s.Stream("st")), want)
	got := rdb.XRange(ctx, "st", "-", "+").Val()
	if len(got) != 2 || got[0].ID != "1-1" || got[1].Values["job"] != "wash" {
		t.Fatalf("client's XRANGE: %v", got)
	}
	eq(t, "Stream of a missing key", len(must(s.Stream("nope"))), 0)
	s.Set("str", "x")
	if _, err := s.Stream("str"); !errors.Is(err, server.ErrWrongType) {
		t.Fatalf("Stream of a string: %v, want WRONGTYPE", err)
	}
	if _, err := s.DB(1).XAdd("st", "*"); err == nil || !strings.Contains(err.Error(), "wrong number of arguments for 'xadd'") {
		t.Fatalf("XAdd without fields: %v", err)
	}
}

// An XAdd serves a client blocked in XREAD, as the XADD command does.
func TestEmbedXAddWakesReader(t *testing.T) {
	s := server.RunT(t)
	rdb := client(t, s)
	done := make(chan []redis.XStream, 1)
	go func() {
		done <- rdb.XRead(ctx, &redis.XReadArgs{Streams: []string{"events", "$"}, Block: 5 * time.Second}).Val()
	}()
	for deadline := time.Now().Add(2 * time.Second); !strings.Contains(rdbInfo(t, s), "blocked_clients:1"); {
		if time.Now().After(deadline) {
			t.Fatal("XREAD never blocked")
		}
		time.Sleep(time.Millisecond)
	}
	id := must(s.XAdd("events", "*", "k", "v"))
	select {
	case got := <-done:
		if len(got) != 1 || len(got[0].Messages) != 1 || got[0].Messages[0].ID != id {
			t.Fatalf("XREAD woke with %v, want entry %s", got, id)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("XAdd did not wake the blocked reader")
	}
}

func TestEmbedHyperLogLog(t *testing.T) {
	s := server.RunT(t, server.Manual())
	rdb := client(t, s)
	eq(t, "PfAdd", must(s.PfAdd("h1", "a", "b", "c")), 1)
	eq(t, "PfAdd of known elements", must(s.PfAdd("h1", "a", "b")), 0)
	eq(t, "PfAdd", must(s.PfAdd("h2", "c", "d")), 1)
	eq(t, "PfCount", must(s.PfCount("h1")), 3)
	eq(t, "PfCount of a union", must(s.PfCount("h1", "h2")), 4)
	if err := s.PfMerge("u", "h1", "h2"); err != nil {
		t.Fatal(err)
	}
	eq(t, "client's PFCOUNT of the merge", rdb.PFCount(ctx, "u").Val(), int64(4))
	// The value is Redis's bytes: the client reads the same string the
	// server holds, starting with the HYLL header.
	if v, ok := s.Get("u"); !ok || !strings.HasPrefix(v, "HYLL") {
		t.Fatalf("GET of a HyperLogLog: %q", v)
	}
	s.Set("str", "not an hll")
	if _, err := s.PfCount("str"); err == nil || err.Error() != "WRONGTYPE Key is not a valid HyperLogLog string value." {
		t.Fatalf("PfCount of a string: %v, want PFCOUNT's error", err)
	}
}
