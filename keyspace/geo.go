package keyspace

import (
	"math"
	"slices"
	"strconv"

	"github.com/minilock/minilock/internal/redisstr"
	"github.com/minilock/minilock/keyspace/internal/geohash"
	"github.com/minilock/minilock/keyspace/internal/ldouble"
	"github.com/minilock/minilock/resp"
)

// Geo (geo.c): sorted sets whose scores are 52-bit interleaved geohashes.
// The geometry is keyspace/internal/geohash; this file is the commands.

var (
	errGeoUnit        = resp.NewError("unsupported unit provided. please use M, KM, FT, MI")
	errGeoMember      = resp.NewError("could not decode requested zset member")
	errGeoCount       = resp.NewError("COUNT must be > 0")
	errGeoAny         = resp.NewError("the ANY argument requires COUNT argument")
	errGeoRadiusNeg   = resp.NewError("radius cannot be negative")
	errGeoBoxNeg      = resp.NewError("height or width cannot be negative")
	errGeoNeedRadius  = resp.NewError("need numeric radius")
	errGeoNeedWidth   = resp.NewError("need numeric width")
	errGeoNeedHeight  = resp.NewError("need numeric height")
	geoHashAlphabet   = "0123456789bcdefghjkmnpqrstuvwxyz"
	geoSearchStoreErr = " is not compatible with WITHDIST, WITHHASH and WITHCOORD options"
)

// cFloat is C's printf("%f").
func cFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return strconv.FormatFloat(f, 'f', 6, 64)
}

// longLatArgs is extractLongLatOrReply.
func longLatArgs(lonArg, latArg []byte) (float64, float64, error) {
	lon, ok := floatArg(lonArg)
	if !ok {
		return 0, 0, errNotFloat
	}
	lat, ok := floatArg(latArg)
	if !ok {
		return 0, 0, errNotFloat
	}
	if lon < geohash.LongMin || lon > geohash.LongMax || lat < geohash.LatMin || lat > geohash.LatMax {
		return 0, 0, resp.NewError("invalid longitude,latitude pair " + cFloat(lon) + "," + cFloat(lat))
	}
	return lon, lat, nil
}

// unitArg is extractUnitOrReply: metres per unit.
func unitArg(a []byte) (float64, error) {
	switch {
	case redisstr.Option(a, "m"):
		return 1, nil
	case redisstr.Option(a, "km"):
		return 1000, nil
	case redisstr.Option(a, "ft"):
		return 0.3048, nil
	case redisstr.Option(a, "mi"):
		return 1609.34, nil
	}
	return 0, errGeoUnit
}

// appendDistance is fixedpoint_d2string with four decimals: the value
// times 10^4 rounded to an integer (llrint), then printed with its point.
func appendDistance(b []byte, d float64) []byte {
	if d == 0 {
		return append(b, "0.0000"...)
	}
	x := math.RoundToEven(d * 10000)
	var v uint64
	neg := false
	switch {
	case x != x || x >= 1<<63 || x < -(1<<63): // llrint's "integer indefinite"
		v, neg = 1<<63, true
	case x < 0:
		v, neg = uint64(-int64(x)), true
	default:
		v = uint64(x)
	}
	if neg {
		b = append(b, '-')
	}
	s := strconv.FormatUint(v, 10)
	for len(s) < 5 {
		s = "0" + s
	}
	b = append(b, s[:len(s)-4]...)
	b = append(b, '.')
	return append(b, s[len(s)-4:]...)
}

func replyDistance(w *resp.Writer, d float64) {
	var buf [32]byte
	w.Bulk(appendDistance(buf[:0], d))
}

// replyHuman is addReplyHumanLongDouble of a double: "%.17Lf" without its
// trailing zeros, a bulk string in RESP2 and a double in RESP3.
func replyHuman(w *resp.Writer, f float64) {
	s := ldouble.FromFloat64(f).Human()
	if w.RESP3() {
		w.B = append(w.B, ',')
		w.B = append(w.B, s...)
		w.B = append(w.B, '\r', '\n')
		return
	}
	w.BulkString(s)
}

// llFromDouble is C's (long long) of a double on x86-64 (cvttsd2si).
func llFromDouble(f float64) int64 {
	if f != f || f >= 1<<63 || f < -(1<<63) {
		return math.MinInt64
	}
	return int64(f)
}

// GEOADD key [NX|XX] [CH] longitude latitude member [...]: ZADD with the
// members' geohash scores, so the reply and the events are ZADD's.
func CmdGeoAdd(k *Keyspace, c *Ctx, args [][]byte) error {
	var nx, xx, ch bool
	idx := 2
	for ; idx < len(args); idx++ {
		switch a := args[idx]; {
		case redisstr.Option(a, "nx"):
			nx = true
		case redisstr.Option(a, "xx"):
			xx = true
		case redisstr.Option(a, "ch"):
			ch = true
		default:
			goto points
		}
	}
points:
	if (len(args)-idx)%3 != 0 || nx && xx {
		return resp.ErrSyntax
	}
	zargs := [][]byte{[]byte("zadd"), args[1]}
	for _, o := range []struct {
		on   bool
		name string
	}{{nx, "nx"}, {xx, "xx"}, {ch, "ch"}} {
		if o.on {
			zargs = append(zargs, []byte(o.name))
		}
	}
	for j := idx; j < len(args); j += 3 {
		lon, lat, err := longLatArgs(args[j], args[j+1])
		if err != nil {
			return err
		}
		h, _ := geohash.EncodeWGS84(lon, lat, geohash.StepMax)
		zargs = append(zargs, strconv.AppendUint(nil, geohash.Align52(h), 10), args[j+2])
	}
	return k.zadd(c, zargs, false)
}

// GEOHASH key [member ...]: each member's standard 11-character geohash
// (re-encoded over latitudes -90..90), or null.
func CmdGeoHash(k *Keyspace, c *Ctx, args [][]byte) error {
	z, _, _, err := k.zsetOf(c, args[1], true)
	if err != nil {
		return err
	}
	c.W.Array(len(args) - 2)
	for _, m := range args[2:] {
		var score float64
		ok := false
		if z != nil {
			score, ok = z.score(m)
		}
		if !ok {
			c.W.Null()
			continue
		}
		lon, lat := geohash.DecodeScore(score)
		h, _ := geohash.Encode(geohash.Range{Min: -180, Max: 180}, geohash.Range{Min: -90, Max: 90}, lon, lat, 26)
		var buf [11]byte
		for i := range 10 {
			buf[i] = geoHashAlphabet[h.Bits>>(52-(i+1)*5)&0x1f]
		}
		buf[10] = geoHashAlphabet[0] // 52 bits give 10 characters; the 11th is 0
		c.W.Bulk(buf[:])
	}
	return nil
}

// GEOPOS key [member ...]: each member's longitude and latitude, or a null
// array.
func CmdGeoPos(k *Keyspace, c *Ctx, args [][]byte) error {
	z, _, _, err := k.zsetOf(c, args[1], true)
	if err != nil {
		return err
	}
	c.W.Array(len(args) - 2)
	for _, m := range args[2:] {
		var score float64
		ok := false
		if z != nil {
			score, ok = z.score(m)
		}
		if !ok {
			c.W.NullArray()
			continue
		}
		lon, lat := geohash.DecodeScore(score)
		c.W.Array(2)
		replyHuman(c.W, lon)
		replyHuman(c.W, lat)
	}
	return nil
}

// GEODIST key member1 member2 [M|KM|FT|MI]
func CmdGeoDist(k *Keyspace, c *Ctx, args [][]byte) error {
	toMeter := 1.0
	switch {
	case len(args) == 5:
		var err error
		if toMeter, err = unitArg(args[4]); err != nil {
			return err
		}
	case len(args) > 5:
		return resp.ErrSyntax
	}
	z, _, _, err := k.zsetOf(c, args[1], true)
	if err != nil || z == nil {
		if err == nil {
			c.W.Null()
		}
		return err
	}
	s1, ok1 := z.score(args[2])
	s2, ok2 := z.score(args[3])
	if !ok1 || !ok2 {
		c.W.Null()
		return nil
	}
	lon1, lat1 := geohash.DecodeScore(s1)
	lon2, lat2 := geohash.DecodeScore(s2)
	replyDistance(c.W, geohash.Distance(lon1, lat1, lon2, lat2)/toMeter)
	return nil
}

// The search commands' forms (georadiusGeneric's flags).
const (
	geoCoords      = 1 << iota // GEORADIUS: around coordinates
	geoMember                  // GEORADIUSBYMEMBER: around a member
	geoNoStore                 // the _RO forms: no STORE/STOREDIST
	geoSearch                  // GEOSEARCH's arguments
	geoSearchStore             // GEOSEARCHSTORE: STOREDIST as a flag
)

// geoPoint is a match.
type geoPoint struct {
	lon, lat, dist, score float64
	member                string
}

// GEORADIUS key longitude latitude radius unit [options]
func CmdGeoRadius(k *Keyspace, c *Ctx, args [][]byte) error {
	return k.geoSearch(c, args, 1, geoCoords)
}

// GEORADIUS_RO key longitude latitude radius unit [options]
func CmdGeoRadiusRO(k *Keyspace, c *Ctx, args [][]byte) error {
	return k.geoSearch(c, args, 1, geoCoords|geoNoStore)
}

// GEORADIUSBYMEMBER key member radius unit [options]
func CmdGeoRadiusByMember(k *Keyspace, c *Ctx, args [][]byte) error {
	return k.geoSearch(c, args, 1, geoMember)
}

// GEORADIUSBYMEMBER_RO key member radius unit [options]
func CmdGeoRadiusByMemberRO(k *Keyspace, c *Ctx, args [][]byte) error {
	return k.geoSearch(c, args, 1, geoMember|geoNoStore)
}

// GEOSEARCH key FROMMEMBER m|FROMLONLAT lon lat BYRADIUS r unit|BYBOX w h unit [options]
func CmdGeoSearch(k *Keyspace, c *Ctx, args [][]byte) error {
	return k.geoSearch(c, args, 1, geoSearch)
}

// GEOSEARCHSTORE dest src ... [STOREDIST]
func CmdGeoSearchStore(k *Keyspace, c *Ctx, args [][]byte) error {
	return k.geoSearch(c, args, 2, geoSearch|geoSearchStore)
}

// distanceArgs is extractDistanceOrReply.
func distanceArgs(args [][]byte, s *geohash.Shape) error {
	r, ok := floatArg(args[0])
	if !ok {
		return errGeoNeedRadius
	}
	if r < 0 {
		return errGeoRadiusNeg
	}
	s.Radius = r
	conv, err := unitArg(args[1])
	if err != nil {
		return err
	}
	s.Conversion = conv
	return nil
}

// boxArgs is extractBoxOrReply.
func boxArgs(args [][]byte, s *geohash.Shape) error {
	w, ok := floatArg(args[0])
	if !ok {
		return errGeoNeedWidth
	}
	h, ok := floatArg(args[1])
	if !ok {
		return errGeoNeedHeight
	}
	if h < 0 || w < 0 {
		return errGeoBoxNeg
	}
	s.Height, s.Width = h, w
	conv, err := unitArg(args[2])
	if err != nil {
		return err
	}
	s.Conversion = conv
	return nil
}

// geoSearch is georadiusGeneric: every search form, its options read and
// checked in Redis's order, its errors Redis's.
func (k *Keyspace) geoSearch(c *Ctx, args [][]byte, srcIdx, flags int) error {
	var storeKey []byte
	storeDist := false
	z, _, _, err := k.zsetOf(c, args[srcIdx], true)
	if err != nil {
		return err
	}
	var shape geohash.Shape
	var base int
	switch {
	case flags&geoCoords != 0:
		base = 6
		shape.Type = geohash.CircularType
		if shape.Long, shape.Lat, err = longLatArgs(args[2], args[3]); err != nil {
			return err
		}
		if err := distanceArgs(args[4:6], &shape); err != nil {
			return err
		}
	case flags&geoMember != 0 && z == nil:
		base = 5 // nothing to search: read the options for the reply's form
	case flags&geoMember != 0:
		base = 5
		shape.Type = geohash.CircularType
		score, ok := z.score(args[2])
		if !ok {
			return errGeoMember
		}
		shape.Long, shape.Lat = geohash.DecodeScore(score)
		if err := distanceArgs(args[3:5], &shape); err != nil {
			return err
		}
	default:
		base = 2
		if flags&geoSearchStore != 0 {
			base = 3
			storeKey = args[1]
		}
	}
	var withDist, withHash, withCoord, fromMember, fromLoc, byRadius, byBox, any bool
	sortDir := 0 // 1 ascending, 2 descending
	var count int64
	search := flags&geoSearch != 0
	rest := args[base:]
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		more := len(rest) - 1 - i // arguments after this one
		switch {
		case redisstr.Option(a, "withdist"):
			withDist = true
		case redisstr.Option(a, "withhash"):
			withHash = true
		case redisstr.Option(a, "withcoord"):
			withCoord = true
		case redisstr.Option(a, "any"):
			any = true
		case redisstr.Option(a, "asc"):
			sortDir = 1
		case redisstr.Option(a, "desc"):
			sortDir = 2
		case redisstr.Option(a, "count") && more >= 1:
			if count, err = intArg(rest[i+1]); err != nil {
				return err
			}
			if count <= 0 {
				return errGeoCount
			}
			i++
		case (redisstr.Option(a, "store") || redisstr.Option(a, "storedist")) && more >= 1 && flags&geoNoStore == 0 && !search:
			storeKey = rest[i+1]
			storeDist = redisstr.Option(a, "storedist")
			i++
		case redisstr.Option(a, "storedist") && search && flags&geoSearchStore != 0:
			storeDist = true
		case redisstr.Option(a, "frommember") && more >= 1 && search && !fromLoc:
			fromMember = true
			if z != nil {
				score, ok := z.score(rest[i+1])
				if !ok {
					return errGeoMember
				}
				shape.Long, shape.Lat = geohash.DecodeScore(score)
			}
			i++
		case redisstr.Option(a, "fromlonlat") && more >= 2 && search && !fromMember:
			if shape.Long, shape.Lat, err = longLatArgs(rest[i+1], rest[i+2]); err != nil {
				return err
			}
			fromLoc = true
			i += 2
		case redisstr.Option(a, "byradius") && more >= 2 && search && !byBox:
			if err := distanceArgs(rest[i+1:i+3], &shape); err != nil {
				return err
			}
			shape.Type = geohash.CircularType
			byRadius = true
			i += 2
		case redisstr.Option(a, "bybox") && more >= 3 && search && !byRadius:
			if err := boxArgs(rest[i+1:i+4], &shape); err != nil {
				return err
			}
			shape.Type = geohash.RectangleType
			byBox = true
			i += 3
		default:
			return resp.ErrSyntax
		}
	}
	if storeKey != nil && (withDist || withHash || withCoord) {
		if flags&geoSearchStore != 0 {
			return resp.NewError("GEOSEARCHSTORE" + geoSearchStoreErr)
		}
		return resp.NewError("STORE option in GEORADIUS" + geoSearchStoreErr)
	}
	if search && !(fromMember || fromLoc) {
		return resp.NewError("exactly one of FROMMEMBER or FROMLONLAT can be specified for " + redisstr.CString(args[0]))
	}
	if search && !(byRadius || byBox) {
		return resp.NewError("exactly one of BYRADIUS and BYBOX can be specified for " + redisstr.CString(args[0]))
	}
	if any && count == 0 {
		return errGeoAny
	}
	if z == nil {
		if storeKey != nil {
			k.storeObject(c, storeKey, kindZSet, &zsetValue{}, NotifyZSet, "")
			c.W.Int(0)
		} else {
			c.W.Array(0)
		}
		return nil
	}
	if count != 0 && sortDir == 0 && !any {
		sortDir = 1
	}
	limit := 0
	if any {
		limit = int(min(count, math.MaxInt32))
	}
	points := geoMembers(z, &shape, limit)
	if len(points) == 0 && storeKey == nil {
		c.W.Array(0)
		return nil
	}
	returned := len(points)
	if count != 0 && int64(returned) > count {
		returned = int(count)
	}
	if sortDir != 0 {
		less := func(a, b *geoPoint) int { return cmpDist(a.dist, b.dist) }
		if sortDir == 2 {
			less = func(a, b *geoPoint) int { return -cmpDist(a.dist, b.dist) }
		}
		if returned == len(points) {
			points = stableSort(points, less)
		} else {
			pqsort(points, less, 0, returned-1)
		}
	}
	points = points[:returned]
	if storeKey == nil {
		opts := 0
		for _, on := range []bool{withDist, withCoord, withHash} {
			if on {
				opts++
			}
		}
		c.W.Array(len(points))
		for i := range points {
			p := &points[i]
			p.dist /= shape.Conversion
			if opts > 0 {
				c.W.Array(opts + 1)
			}
			c.W.BulkString(p.member)
			if withDist {
				replyDistance(c.W, p.dist)
			}
			if withHash {
				c.W.Int(llFromDouble(p.score))
			}
			if withCoord {
				c.W.Array(2)
				replyHuman(c.W, p.lon)
				replyHuman(c.W, p.lat)
			}
		}
		return nil
	}
	items := make([]zitem, 0, len(points))
	seen := make(map[string]bool, len(points))
	for i := range points {
		p := &points[i]
		p.dist /= shape.Conversion
		if seen[p.member] {
			continue
		}
		seen[p.member] = true
		score := p.score
		if storeDist {
			score = p.dist
		}
		items = append(items, zitem{score, p.member})
	}
	event := "georadiusstore"
	if search {
		event = "geosearchstore"
	}
	k.storeObject(c, storeKey, kindZSet, newZSetOf(items, &k.enc), NotifyZSet, event)
	c.W.Int(int64(len(points)))
	return nil
}

// stableSort is glibc's qsort, a merge sort, so stable: sorted by cmp,
// ties in their order. (Sorting indexes with the order as the last key is
// the same order, without moving the points about.)
func stableSort(points []geoPoint, cmp func(a, b *geoPoint) int) []geoPoint {
	order := make([]int32, len(points))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int {
		if c := cmp(&points[a], &points[b]); c != 0 {
			return c
		}
		return int(a - b)
	})
	out := make([]geoPoint, len(points))
	for i, j := range order {
		out[i] = points[j]
	}
	return out
}

// cmpDist is sort_gp_asc's comparison.
func cmpDist(a, b float64) int {
	switch {
	case a > b:
		return 1
	case a == b:
		return 0
	}
	return -1
}

// geoMembers is membersOfAllNeighbors: the members of the cells around the
// shape's centre that are within it, cell by cell in score order; with a
// limit (COUNT ANY), it stops once it has that many.
func geoMembers(z *zsetValue, shape *geohash.Shape, limit int) []geoPoint {
	cells := shape.Cells()
	var points []geoPoint
	var nodes []znode
	last := 0
	for i, h := range cells {
		if h.IsZero() {
			continue
		}
		// Huge radii make neighbours repeat: skip a cell equal to the one
		// processed before it (not to the centre: Redis's last index 0
		// means "none").
		if last != 0 && h == cells[last] {
			continue
		}
		if len(points) > 0 && limit > 0 && len(points) >= limit {
			break
		}
		lo, hi := geohash.ScoreRange(h)
		spec := zrangeSpec{min: float64(lo), max: float64(hi), maxex: true}
		full := func() bool { return len(points) > 0 && limit > 0 && len(points) >= limit }
		if z.tree != nil {
			// A large set's member is looked up only for a point in the
			// shape: most of a cell's are not.
			nodes = z.scoreNodes(spec, false, 0, -1, nodes[:0])
			for _, n := range nodes {
				score := n.score()
				lon, lat := geohash.DecodeScore(score)
				if d, ok := shape.Within(lon, lat); ok {
					points = append(points, geoPoint{lon, lat, d, score, z.dict.Key(n.slot)})
				}
				if full() {
					break
				}
			}
		} else {
			from, to := z.scoreRanks(spec)
			z.each(from, to, false, func(m []byte, score float64) bool {
				lon, lat := geohash.DecodeScore(score)
				if d, ok := shape.Within(lon, lat); ok {
					points = append(points, geoPoint{lon, lat, d, score, string(m)})
				}
				return !full()
			})
		}
		last = i
	}
	return points
}
