package keyspace

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/minilock/minilock/resp"
)

// BenchmarkGeoSearch200 and BenchmarkGeoSearch2000 search a
// 200,000-member geo set (random points) for everything within 200 km
// (about 30 members) or 2000 km (about 3,000), nearest first, with their
// distances.
func BenchmarkGeoSearch200(b *testing.B)  { benchGeoSearch(b, "200") }
func BenchmarkGeoSearch2000(b *testing.B) { benchGeoSearch(b, "2000") }

func benchGeoSearch(b *testing.B, radius string) {
	h := newKSTest(&testing.T{})
	r := rand.New(rand.NewPCG(2, 2))
	for i := range 2000 {
		args := []string{"GEOADD", "g"}
		for j := range 100 {
			args = append(args, fmt.Sprintf("%.6f", r.Float64()*360-180), fmt.Sprintf("%.6f", r.Float64()*170-85), fmt.Sprintf("member:%d", i*100+j))
		}
		h.run(args...)
	}
	argv := [][]byte{[]byte("GEOSEARCH"), []byte("g"), []byte("FROMLONLAT"), []byte("10"), []byte("10"),
		[]byte("BYRADIUS"), []byte(radius), []byte("km"), []byte("ASC"), []byte("WITHDIST")}
	b.ResetTimer()
	for range b.N {
		var w resp.Writer
		c := &Ctx{W: &w, Now: h.k.Now()}
		CmdGeoSearch(h.k, c, argv)
	}
}

// BenchmarkMemory_100kHLLs: 100,000 HyperLogLogs of 10 elements each
// (sparse, about 40 bytes of value); live heap per element.
func BenchmarkMemory_100kHLLs(b *testing.B) {
	benchCollectionMemory(b, 100000, 10, func(i int) [][]byte {
		return memberArgs("PFADD", "hll:"+strconv.Itoa(i), 10, func(j int) []string { return []string{strconv.Itoa(i*10 + j)} })
	})
}

// BenchmarkMemory_1MGeo: one geo set of 1,000,000 members at random
// places; live heap per member.
func BenchmarkMemory_1MGeo(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 3))
	benchCollectionMemory(b, 1000, 1000, func(i int) [][]byte {
		return memberArgs("GEOADD", "g", 1000, func(j int) []string {
			return []string{fmt.Sprintf("%.6f", r.Float64()*360-180), fmt.Sprintf("%.6f", r.Float64()*170-85), "member:" + strconv.Itoa(i*1000+j)}
		})
	})
}
