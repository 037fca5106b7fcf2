package keyspace

import "testing"

func init() {
	for name, run := range map[string]func(*Keyspace, *Ctx, [][]byte) error{
		"geoadd": CmdGeoAdd, "geohash": CmdGeoHash, "geopos": CmdGeoPos, "geodist": CmdGeoDist,
		"georadius": CmdGeoRadius, "georadius_ro": CmdGeoRadiusRO, "georadiusbymember": CmdGeoRadiusByMember,
		"georadiusbymember_ro": CmdGeoRadiusByMemberRO, "geosearch": CmdGeoSearch, "geosearchstore": CmdGeoSearchStore,
	} {
		ksCommands[name] = run
	}
}

// The replies below are redis-server 7.0.15's.
func TestGeo(t *testing.T) {
	const sicily = "GEOADD Sicily 13.361389 38.115556 Palermo 15.087269 37.502669 Catania"
	palermoPos := "*2\r\n" + bulk("13.36138933897018433") + bulk("38.11555639549629859")
	cataniaPos := "*2\r\n" + bulk("15.08726745843887329") + bulk("37.50266842333162032")
	runKSCases(t, []ksCase{
		{"scores positions hashes distances", []ksStep{do(sicily, num(2)), do("ZSCORE Sicily Palermo", bulk("3479099956230698")),
			do("GEODIST Sicily Palermo Catania km", bulk("166.2742")), do("GEODIST Sicily Palermo nosuch", nilBulk),
			do("GEOHASH Sicily Palermo Catania", "*2\r\n"+bulk("sqc8b49rny0")+bulk("sqdtr74hyu0")),
			do("GEOPOS Sicily Palermo nosuch", "*2\r\n"+palermoPos+"*-1\r\n")}},
		{"searches", []ksStep{do(sicily, num(2)),
			do("GEORADIUS Sicily 15 37 200 km WITHDIST WITHCOORD ASC", "*2\r\n*3\r\n"+bulk("Catania")+bulk("56.4413")+cataniaPos+
				"*3\r\n"+bulk("Palermo")+bulk("190.4424")+palermoPos),
			do("GEORADIUS Sicily 15 37 200 km WITHHASH COUNT 1 DESC", "*1\r\n*2\r\n"+bulk("Palermo")+num(3479099956230698)),
			do("GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 400 400 km ASC WITHDIST",
				"*2\r\n*2\r\n"+bulk("Catania")+bulk("56.4413")+"*2\r\n"+bulk("Palermo")+bulk("190.4424")),
			do("GEOSEARCHSTORE d Sicily FROMMEMBER Palermo BYRADIUS 200 km STOREDIST", num(2)),
			do("ZRANGE d 0 -1 WITHSCORES", "*4\r\n"+bulk("Palermo")+bulk("0")+bulk("Catania")+bulk("166.27415156960032"))}},
		{"errors", []ksStep{do(sicily, num(2)),
			do("GEOADD Sicily 200 1 x", errReply("invalid longitude,latitude pair 200.000000,1.000000")),
			do("GEOSEARCH Sicily FROMMEMBER x BYRADIUS 1 km", errReply("could not decode requested zset member")),
			do("geosearch Sicily BYRADIUS 1 km ASC", errReply("exactly one of FROMMEMBER or FROMLONLAT can be specified for geosearch")),
			do("GEOSEARCH Sicily FROMMEMBER Palermo BYRADIUS 1 yd", errReply("unsupported unit provided. please use M, KM, FT, MI")),
			do("GEOSEARCH Sicily FROMMEMBER Palermo BYRADIUS 1 km ANY", errReply("the ANY argument requires COUNT argument")),
			do("GEORADIUS Sicily 1 1 1 km STORE x WITHDIST", errReply("STORE option in GEORADIUS is not compatible with WITHDIST, WITHHASH and WITHCOORD options")),
			do("GEORADIUS_RO Sicily 1 1 1 km STORE x", errReply("syntax error"))}},
		{"the edges", []ksStep{do("GEOADD e 0 0 z 180 85.05112878 ne -180 -85.05112878 sw", num(3)),
			do("GEOPOS e z ne sw", "*3\r\n*2\r\n"+bulk("0.00000268220901489")+bulk("0.00000126736058093")+
				"*2\r\n"+bulk("180")+bulk("85.0511287799999991")+"*2\r\n"+bulk("-179.99999731779098511")+bulk("-85.05112751263942528")),
			do("GEOHASH e z ne sw", "*3\r\n"+bulk("s0000000000")+bulk("bp05b5048p0")+bulk("00bh0hbj200")),
			do("GEODIST e ne sw", bulk("18919844.5891"))}},
	})
}
