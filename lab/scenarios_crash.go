package lab

import (
	"slices"
	"time"
)

// The server's crash: whether an acknowledged lock survives it depends on
// what was on disk, not on what the server answered.
var crashScenarios = []*Scenario{
	{
		Name:        "crash-no-fsync",
		Title:       "SET NX PX on an AOF that is not fsynced; the server loses power",
		Key:         "lock",
		Expect:      TwoHolders,
		AppendFsync: "no",
		Explain: `A takes the lock and is told OK: the server wrote the SET to its append-only
			file, but with appendfsync no it never asked the disk to keep it (the kernel would
			within about 30 s). The machine loses power a second later, and the server comes
			back with the file as the disk had it: without the lock. B asks and gets it while
			A still holds it. This is the crash in Martin Kleppmann's analysis of Redlock, on
			one instance: a lock is only as durable as the fsync behind its OK.`,
		run: func(l *Lab) {
			a, b := l.client("A"), l.client("B")
			setNXPX(a, l.token(), 30*time.Second)
			l.Wait(time.Second, "A works on the resource")
			l.PowerLoss("the SET was in the page cache, not on disk")
			l.Wait(time.Second, "B comes along")
			setNXPX(b, l.token(), 30*time.Second)
		},
	},
	{
		Name:        "crash-fsync-always",
		Title:       "the same with appendfsync always",
		Fixes:       "crash-no-fsync",
		Key:         "lock",
		Expect:      Safe,
		AppendFsync: "always",
		Explain: `With appendfsync always the server fsyncs the file before it sends the
			replies of the commands it ran (once for all the clients served together), so OK
			means the SET is on disk. After the power loss the lock is back, with its deadline
			(the file holds it as PXAT, an absolute time), and B is refused until A's TTL
			ends. The price is an fsync per batch of writes.`,
		run: func(l *Lab) {
			a, b := l.client("A"), l.client("B")
			setNXPX(a, l.token(), 30*time.Second)
			l.Wait(time.Second, "A works on the resource")
			l.PowerLoss("the SET was fsynced before A's OK")
			l.Wait(time.Second, "B comes along")
			setNXPX(b, l.token(), 30*time.Second)
		},
	},
	{
		Name:         "crash-restart-delay",
		Title:        "no fsync, but the server refuses writes for a TTL after it restarts",
		Fixes:        "crash-no-fsync",
		Key:          "lock",
		Expect:       Safe,
		AppendFsync:  "no",
		RestartDelay: 30 * time.Second,
		Explain: `The other cure from the Redlock analysis: a server that comes back from a
			crash refuses writes for as long as the longest lock TTL (minilock's
			--restart-delay; its LOADING error is what clients retry on), so whatever lock it
			forgot has expired by the time it grants a new one. The lock is lost, but nobody
			gets it while A may still believe it holds it.`,
		run: func(l *Lab) {
			a, b := l.client("A"), l.client("B")
			l.Wait(30*time.Second, "the server's own start was a while ago: its delay is over")
			setNXPX(a, l.token(), 30*time.Second)
			l.Wait(time.Second, "A works on the resource")
			l.PowerLoss("the SET was in the page cache, not on disk")
			l.Wait(time.Second, "B comes along")
			setNXPX(b, l.token(), 30*time.Second)
			l.Wait(29*time.Second, "B retries once A's TTL has surely ended")
			setNXPX(b, l.token(), 30*time.Second)
		},
	},
}

func init() { scenarios = slices.Concat(scenarios, crashScenarios) }
