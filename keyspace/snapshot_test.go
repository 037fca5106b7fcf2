package keyspace

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/minilock/minilock/expiry"
	"github.com/minilock/minilock/resp"
)

// renderer shows a detached key as text, through a keyspace of its own
// whose clock stands at 1970 (so nothing in it is expired): the type, the
// deadline and the value as its read command answers, elements sorted
// (a copy may iterate a hash or set in another order).
type renderer struct{ k *Keyspace }

func newRenderer() renderer {
	return renderer{New(Config{Databases: 1, Clock: expiry.NewManual(time.UnixMilli(0))})}
}

func (r renderer) render(it *SnapshotItem) string {
	d := &r.k.dbs[0]
	d.init(&r.k.mem)
	key := []byte(it.Key())
	i := d.insert(key, it.e.val())
	d.slots[i].obj = it.e.obj
	var cmd []string
	switch it.Kind() {
	case "string":
		cmd = []string{"get"}
	case "hash":
		cmd = []string{"hgetall"}
	case "list":
		cmd = []string{"lrange", "", "0", "-1"}
	case "set":
		cmd = []string{"smembers"}
	case "zset":
		cmd = []string{"zrange", "", "0", "-1", "withscores"}
	}
	argv := [][]byte{[]byte(cmd[0]), key}
	for _, a := range cmd[min(2, len(cmd)):] {
		argv = append(argv, []byte(a))
	}
	var w resp.Writer
	c := &Ctx{W: &w, Now: 0}
	if err := ksCommands[cmd[0]](r.k, c, argv); err != nil {
		w.Err(err)
	}
	lines := strings.Split(string(w.B), "\r\n")
	if it.Kind() == "hash" || it.Kind() == "set" {
		slices.Sort(lines)
	}
	return fmt.Sprintf("%s ttl=%d %q", it.Kind(), it.ExpireAt(), lines)
}

// state renders every key of h's keyspace as the snapshot would copy it.
func (r renderer) state(k *Keyspace) map[string]string {
	m := map[string]string{}
	for dbi := range k.dbs {
		for i := range k.dbs[dbi].slots {
			e := &k.dbs[dbi].slots[i]
			if e.live() {
				it := SnapshotItem{DB: dbi, e: detach(e, nil)}
				m[strconv.Itoa(dbi)+"/"+it.Key()] = r.render(&it)
			}
		}
	}
	return m
}

// TestSnapshotIsAsOfItsStart takes snapshots while a seeded random load
// of every kind of write (types, TTLs and their expiry, renames, moves
// between databases, flushes) changes the data between the snapshot's
// steps, and checks that the snapshot holds every key exactly as it was
// when it began, and nothing else. The items are rendered on another
// goroutine, as the file writer reads them: under -race that checks they
// share nothing with the live data.
func TestSnapshotIsAsOfItsStart(t *testing.T) {
	for seed := uint64(1); seed <= 6; seed++ {
		t.Run(strconv.FormatUint(seed, 10), func(t *testing.T) { snapshotUnderLoad(t, seed) })
	}
}

func snapshotUnderLoad(t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 29))
	h := newKSTest(t)
	key := func() string { return "k" + strconv.Itoa(rng.IntN(300)) }
	val := func() string { return strings.Repeat(string(rune('a'+rng.IntN(26))), 2+rng.IntN(40)) }
	ops := []func() []string{
		func() []string { return []string{"set", key(), val()} },
		func() []string { return []string{"set", key(), val(), "px", strconv.Itoa(1 + rng.IntN(50))} },
		func() []string { return []string{"append", key(), val()} },
		func() []string { return []string{"setbit", key(), strconv.Itoa(rng.IntN(400)), "1"} },
		func() []string { return []string{"setrange", key(), strconv.Itoa(rng.IntN(10)), val()} },
		func() []string { return []string{"incr", key()} },
		func() []string { return []string{"del", key()} },
		func() []string { return []string{"hset", key(), val()[:1], val()} },
		func() []string { return []string{"hdel", key(), val()[:1]} },
		func() []string { return []string{"rpush", key(), val()} },
		func() []string { return []string{"lpop", key()} },
		func() []string { return []string{"sadd", key(), val()} },
		func() []string { return []string{"srem", key(), val()} },
		func() []string { return []string{"zadd", key(), strconv.Itoa(rng.IntN(9)), val()[:2]} },
		func() []string { return []string{"zincrby", key(), "1", val()[:2]} },
		func() []string { return []string{"pexpire", key(), strconv.Itoa(1 + rng.IntN(50))} },
		func() []string { return []string{"persist", key()} },
		func() []string { return []string{"getex", key(), "px", strconv.Itoa(1 + rng.IntN(50))} },
		func() []string { return []string{"rename", key(), key()} },
		func() []string { return []string{"move", key(), strconv.Itoa(rng.IntN(3))} },
		func() []string { return []string{"copy", key(), key(), "db", strconv.Itoa(rng.IntN(3)), "replace"} },
		func() []string { return []string{"swapdb", strconv.Itoa(rng.IntN(3)), strconv.Itoa(rng.IntN(3))} },
	}
	run := func() {
		h.db = rng.IntN(3)
		if rng.IntN(3000) == 0 {
			h.run("flushdb")
			return
		}
		h.run(ops[rng.IntN(len(ops))]()...)
	}
	for range 3000 {
		run()
	}
	r := newRenderer()
	for round := range 3 {
		want := r.state(h.k)
		if _, ok := h.k.BeginSnapshot(); !ok {
			t.Fatal("BeginSnapshot refused with no snapshot running")
		}
		if _, ok := h.k.BeginSnapshot(); ok {
			t.Fatal("a second snapshot began while one runs")
		}
		items := make(chan []SnapshotItem, 4)
		got := make(chan map[string]string)
		go func() {
			r := newRenderer()
			m := map[string]string{}
			for batch := range items {
				for i := range batch {
					k := strconv.Itoa(batch[i].DB) + "/" + batch[i].Key()
					if _, dup := m[k]; dup {
						m[k] = "DUPLICATE"
						continue
					}
					m[k] = r.render(&batch[i])
				}
			}
			got <- m
		}()
		var done bool
		for steps := 0; !done; steps++ {
			var batch []SnapshotItem
			batch, done = h.k.SnapshotStep(nil, int64(64+rng.IntN(2000)))
			items <- batch
			for range rng.IntN(20) {
				run()
			}
			if rng.IntN(10) == 0 {
				h.advance(time.Duration(rng.IntN(20)) * time.Millisecond)
			}
			if steps > 100000 {
				t.Fatal("the snapshot never completes")
			}
		}
		if p := h.k.SnapshotProgress(); p.KeysDone != p.KeysTotal || p.CowBytes != 0 {
			t.Errorf("round %d: progress at the end %+v: want every key done and no copy left", round, p)
		}
		h.k.EndSnapshot()
		close(items)
		m := <-got
		for k, w := range want {
			if m[k] != w {
				t.Errorf("seed %d round %d: key %s: snapshot has %s, want %s", seed, round, k, m[k], w)
			}
		}
		for k, g := range m {
			if _, ok := want[k]; !ok {
				t.Errorf("seed %d round %d: key %s (%s) was not there when the snapshot began", seed, round, k, g)
			}
		}
		if t.Failed() {
			return
		}
		if len(want) < 100 {
			t.Fatalf("only %d keys: the load does not exercise the snapshot", len(want))
		}
	}
}

// TestSnapshotCopiesOnlyWhatChanges checks the memory bound: with 10,000
// keys and a walk that has not started, changing 100 of them makes 100
// copies, and reading keys makes none.
func TestSnapshotCopiesOnlyWhatChanges(t *testing.T) {
	h := newKSTest(t)
	for i := range 10000 {
		h.run("set", "lock:"+strconv.Itoa(i), "token")
	}
	h.k.BeginSnapshot()
	for i := range 10000 {
		h.run("get", "lock:"+strconv.Itoa(i))
	}
	if n := len(h.k.snap.pending); n != 0 {
		t.Fatalf("reads made %d copies", n)
	}
	for i := range 100 {
		h.run("set", "lock:"+strconv.Itoa(i*7), "other")
		h.run("set", "lock:"+strconv.Itoa(i*7), "again") // copied once only
	}
	if n := len(h.k.snap.pending); n != 100 {
		t.Fatalf("100 keys changed made %d copies", n)
	}
	if p := h.k.SnapshotProgress(); p.CowBytes == 0 || p.CowPeak < p.CowBytes {
		t.Fatalf("copy-on-write figures %+v", p)
	}
	h.k.EndSnapshot()
	h.run("set", "lock:1", "x")
	if h.k.snap != nil || h.k.dbs[0].snap != nil {
		t.Fatal("hooks still armed after EndSnapshot")
	}
}
