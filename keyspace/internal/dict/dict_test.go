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
	tries := 0
	key, _ := d.Random(func(n int) int { tries++; return rand.IntN(n) })
	if key != "0" || tries > 100 {
		t.Fatalf("Random = %q after %d tries", key, tries)
	}
	if d.Size() > 4096 {
		t.Fatalf("one entry left holds %d bytes", d.Size())
	}
}
