package keyspace

// pqsort is Redis's pqsort.c (a BSD quicksort that only sorts the part
// holding ranks lo..hi), ported element for element so that elements that
// compare equal come out in Redis's order: GEOSEARCH's points at equal
// distances, SORT's elements with equal BY values.
func pqsort[T any](a []T, cmp func(a, b *T) int, lo, hi int) {
	pqsortRange(a, 0, len(a), cmp, lo, hi)
}

func med3[T any](a []T, i, j, k int, cmp func(a, b *T) int) int {
	if cmp(&a[i], &a[j]) < 0 {
		if cmp(&a[j], &a[k]) < 0 {
			return j
		}
		if cmp(&a[i], &a[k]) < 0 {
			return k
		}
		return i
	}
	if cmp(&a[j], &a[k]) > 0 {
		return j
	}
	if cmp(&a[i], &a[k]) < 0 {
		return i
	}
	return k
}

// vecswap swaps the n elements from i with the n from j.
func vecswap[T any](a []T, i, j, n int) {
	for ; n > 0; n-- {
		a[i], a[j] = a[j], a[i]
		i++
		j++
	}
}

// pqsortRange sorts a[base:base+n] as _pqsort does; lo and hi are the
// ranks (of the whole array) that must end up in place.
func pqsortRange[T any](a []T, base, n int, cmp func(a, b *T) int, lo, hi int) {
	for {
		if n < 7 {
			for pm := base + 1; pm < base+n; pm++ {
				for pl := pm; pl > base && cmp(&a[pl-1], &a[pl]) > 0; pl-- {
					a[pl], a[pl-1] = a[pl-1], a[pl]
				}
			}
			return
		}
		pm := base + n/2
		if n > 7 {
			pl := base
			pn := base + n - 1
			if n > 40 {
				d := n / 8
				pl = med3(a, pl, pl+d, pl+2*d, cmp)
				pm = med3(a, pm-d, pm, pm+d, cmp)
				pn = med3(a, pn-2*d, pn-d, pn, cmp)
			}
			pm = med3(a, pl, pm, pn, cmp)
		}
		a[base], a[pm] = a[pm], a[base]
		pa, pb := base+1, base+1
		pc, pd := base+n-1, base+n-1
		for {
			for pb <= pc {
				r := cmp(&a[pb], &a[base])
				if r > 0 {
					break
				}
				if r == 0 {
					a[pa], a[pb] = a[pb], a[pa]
					pa++
				}
				pb++
			}
			for pb <= pc {
				r := cmp(&a[pc], &a[base])
				if r < 0 {
					break
				}
				if r == 0 {
					a[pc], a[pd] = a[pd], a[pc]
					pd--
				}
				pc--
			}
			if pb > pc {
				break
			}
			a[pb], a[pc] = a[pc], a[pb]
			pb++
			pc--
		}
		pn := base + n
		r := min(pa-base, pb-pa)
		vecswap(a, base, pb-r, r)
		r = min(pd-pc, pn-pd-1)
		vecswap(a, pb, pn-r, r)
		// outside is whether ranks lo..hi all fall before or after the
		// part [s, s+m).
		outside := func(s, m int) bool { return lo < s && hi < s || lo >= s+m && hi >= s+m }
		if r := pb - pa; r > 1 && !outside(base, r) {
			pqsortRange(a, base, r, cmp, lo, hi)
		}
		r = pd - pc
		if r <= 1 {
			return
		}
		base, n = pn-r, r
		if outside(base, n) {
			return
		}
	}
}
