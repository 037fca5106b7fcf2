package luaeval

import (
	"fmt"
	"runtime"
	"testing"
)

// FUNCTION DUMP of 10,000 libraries allocates about what it returns (the
// issue's example took 1.8 s: each library's LZF compression allocated and
// zeroed a 256 KiB table of its own, 2.5 GB in all).
func TestFunctionDumpAllocatesItsSize(t *testing.T) {
	e := newTestEngine(t, Config{})
	for i := range 10000 {
		mustLoad(t, e, fmt.Sprintf("#!lua name=lib%d\nredis.register_function('f%d', function() return 1 end)", i, i), false)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	size := len(e.FunctionDump())
	runtime.ReadMemStats(&after)
	bytes := after.TotalAlloc - before.TotalAlloc
	// The dump's own buffer grows by doubling (about 2x its size), each
	// library's code is compressed into a scratch of its length, and the
	// libraries are sorted by name.
	if bytes > uint64(8*size) {
		t.Fatalf("FUNCTION DUMP of %d bytes allocated %d bytes", size, bytes)
	}
}
