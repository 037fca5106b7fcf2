package lstrlib

import (
	"syscall"
	"testing"
)

// cpuBench runs f b.N times and reports the process's CPU time per run
// beside ns/op: on the shared machine wall-clock time moves with the load.
func cpuBench(b *testing.B, f func()) {
	b.ReportAllocs()
	var r0, r1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &r0)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f()
	}
	b.StopTimer()
	syscall.Getrusage(syscall.RUSAGE_SELF, &r1)
	cpu := (r1.Utime.Nano() + r1.Stime.Nano()) - (r0.Utime.Nano() + r0.Stime.Nano())
	b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
}

// The matcher alone on the benchmark set's gsub and strlib patterns
// (bench/luashapes): what a script's pattern costs without the VM.
func BenchmarkGsubCaptures(b *testing.B) {
	env := &budget{}
	cpuBench(b, func() {
		got, _, err := Gsub(env, "user:1234 sess:4321 n:99", "(%w+):(%d+)", 25, func(m *Matcher, b *Buffer, s, e int) error {
			return m.AddString(b, "%2=%1", s, e)
		})
		if err != nil || got != "1234=user 4321=sess 99=n" {
			b.Fatal(got, err)
		}
	})
}

func BenchmarkFindCapture(b *testing.B) {
	env := &budget{}
	cpuBench(b, func() {
		m := NewMatcher(env, "user=1234,sess=4321", "sess=(%d+)")
		s, e, err := m.Find(0, false)
		if err != nil || s != 10 || e != 19 {
			b.Fatal(s, e, err)
		}
		m.Release()
	})
}
