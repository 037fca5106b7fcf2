package diff_test

import (
	"strconv"
	"strings"

	"github.com/minilock/minilock/resp"
)

// MEMORY STATS and MEMORY DOCTOR. The figures are each server's own
// memory: field names, their order, nesting and value types (integer or
// double) are compared, and keys.count exactly. MEMORY DOCTOR's text
// depends on the figures: both must answer one of Redis's reports.

// memStatsShape masks every number of a MEMORY STATS reply, keeping its
// type, except keys.count.
var memStatsShape = &normalizer{"memory stats shape", func(b []byte) ([]byte, bool) {
	var out []byte
	keep := false
	for len(b) > 0 {
		it, rest, err := resp.Next(b)
		if err != nil {
			return nil, false
		}
		switch it.Kind {
		case '*', '%':
			out = resp.AppendHeader(out, it.Kind, it.Int)
		case ':':
			if keep {
				out = append(out, b[:len(b)-len(rest)]...)
			} else {
				out = append(out, ":<int>\r\n"...)
			}
			keep = false
		case ',':
			out = append(out, ",<double>\r\n"...)
		case '$':
			if _, err := strconv.ParseFloat(string(it.Data), 64); err == nil {
				out = append(out, "$<double>\r\n"...)
			} else {
				out = append(out, b[:len(b)-len(rest)]...)
				keep = string(it.Data) == "keys.count"
			}
		default:
			return nil, false
		}
		b = rest
	}
	return out, true
}}

// doctorReport accepts any of Redis's MEMORY DOCTOR openings.
var doctorReport = &normalizer{"memory doctor report", func(b []byte) ([]byte, bool) {
	it, rest, err := resp.Next(b)
	if err != nil || len(rest) != 0 || it.Kind != '$' && it.Kind != '=' {
		return nil, false
	}
	s := strings.TrimPrefix(string(it.Data), "txt:")
	for _, open := range []string{"Hi Sam, this instance is empty", "Hi Sam, I can't find any memory issue", "Sam, I detected a few issues"} {
		if strings.HasPrefix(s, open) && strings.HasSuffix(s, "\n") {
			return append([]byte{it.Kind}, "<report>\r\n"...), true
		}
	}
	return nil, false
}}

var memoryStatsCases = []diffCase{
	tc("memory stats", c("MEMORY STATS").with(memStatsShape), c("SET a 1"), c("SET b 2 EX 100"), c("HSET h f v"), c("SELECT 2"), c("SET c 3"), c("MEMORY STATS").with(memStatsShape),
		c("HELLO 3").with(helloID), c("MEMORY STATS").with(memStatsShape), c("MEMORY STATS x"), c("memory stats").with(memStatsShape)),
	tc("memory doctor", c("MEMORY DOCTOR").with(doctorReport), c("SET a 1"), c("MEMORY DOCTOR").with(doctorReport), c("HELLO 3").with(helloID), c("MEMORY DOCTOR").with(doctorReport),
		c("MEMORY DOCTOR x"), cmd("EVAL", "return type(redis.call('MEMORY', 'DOCTOR'))", "0")),
}
