package diff_test

import (
	"github.com/minilock/minilock/resp"
)

// LASTSAVE, SAVE and BGSAVE. minilock refuses BGSAVE with its own error
// (docs/differences.md) and SAVE writes a file (diff_dump_test.go checks
// it), so only what both answer alike is compared here: LASTSAVE's form and its agreement with INFO, and the
// argument, transaction and script errors Redis gives before saving.

// lastsaveAgrees masks LASTSAVE's time once it is checked to be a
// plausible Unix time (after 2020).
var lastsaveAgrees = &normalizer{"unix time", func(b []byte) ([]byte, bool) {
	it, rest, err := resp.Next(b)
	if err != nil || it.Kind != ':' || it.Int < 1577836800 || len(rest) != 0 {
		return nil, false
	}
	return []byte(":<unix time>\r\n"), true
}}

var persistenceCases = []diffCase{
	tc("config rewrite without a file", c("CONFIG REWRITE"), c("CONFIG REWRITE x"), c("config rewrite"), cmd("EVAL", "return redis.pcall('CONFIG', 'REWRITE')", "0"),
		c("MULTI"), c("CONFIG REWRITE"), c("EXEC")),
	tc("lastsave", c("LASTSAVE").with(lastsaveAgrees), c("LASTSAVE x"), c("lastsave").with(lastsaveAgrees),
		cmd("EVAL", "return redis.call('LASTSAVE') == tonumber(string.match(redis.call('INFO', 'persistence'), 'rdb_last_save_time:(%d+)'))", "0"),
		c("MULTI"), c("LASTSAVE"), c("EXEC").with(&normalizer{"exec of lastsave", func(b []byte) ([]byte, bool) {
			it, rest, err := resp.Next(b)
			if err != nil || it.Kind != '*' || it.Int != 1 {
				return nil, false
			}
			n, ok := lastsaveAgrees.f(rest)
			return append([]byte("*1\r\n"), n...), ok
		}})),
	tc("save errors", c("SAVE x"), c("BGSAVE x"), c("BGSAVE SCHEDULE x"), c("BGSAVE a b"), c("MULTI"), c("SAVE"), c("EXEC"),
		cmd("EVAL", "return redis.pcall('SAVE')", "0"), cmd("EVAL", "return redis.pcall('BGSAVE')", "0"), c("MULTI"), c("BGSAVE x"), c("DISCARD")),
}
