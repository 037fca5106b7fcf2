package keyspace

import "testing"

// The cost of keyspace notifications. Off (the default), the Command
// benchmarks of bench_test.go measure it: compare them with a build
// without notify.go. On, these report every event of a lock's life (new,
// set, expire, del, keymiss) to a function that does nothing: the cost of
// finding and reporting them, not of publishing.
//
//	go test -run '^$' -bench 'Command_(SET_NX_PX_acquire|LockCycle|GET_miss)' -benchmem ./keyspace

const benchNotifyAll = NotifyKeyspace | NotifyKeyevent | NotifyAll | NotifyNew | NotifyKeyMiss

func BenchmarkCommand_SET_NX_PX_acquire_notify(b *testing.B) {
	benchCommand(b, cmdCase{reset: benchDEL, cmds: benchCmds(benchAcquire), want: "+OK\r\n", notify: benchNotifyAll})
}

func BenchmarkCommand_LockCycle_notify(b *testing.B) {
	benchCommand(b, cmdCase{cmds: benchCmds(benchAcquire, benchDEL), want: ":1\r\n", notify: benchNotifyAll})
}

func BenchmarkCommand_GET_miss_notify(b *testing.B) {
	benchCommand(b, cmdCase{cmds: benchCmds(benchGET), want: "$-1\r\n", notify: benchNotifyAll})
}

// BenchmarkNotifyOff is one report with notifications off, the price every
// write pays for them (a lock cycle makes three: new, set, del).
func BenchmarkNotifyOff(b *testing.B) {
	k := New(Config{})
	key := []byte("lock:1")
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		k.notify(NotifyString, "set", key, 0)
	}
}
