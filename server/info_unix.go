//go:build unix

package server

import (
	"bufio"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// osName is INFO's os field, from uname as Redis prints it:
// "Linux 6.1.0 x86_64".
func osName() string {
	var u unix.Utsname
	if unix.Uname(&u) != nil {
		return "unknown"
	}
	return unix.ByteSliceToString(u.Sysname[:]) + " " + unix.ByteSliceToString(u.Release[:]) + " " + unix.ByteSliceToString(u.Machine[:])
}

// cpuTimes reads getrusage for the process and its children.
func cpuTimes() (self, children cpuTime) {
	get := func(who int) cpuTime {
		var ru unix.Rusage
		if unix.Getrusage(who, &ru) != nil {
			return cpuTime{"0.000000", "0.000000"}
		}
		return cpuTime{
			sys:  rusageTime(int64(ru.Stime.Sec), int64(ru.Stime.Usec)),
			user: rusageTime(int64(ru.Utime.Sec), int64(ru.Utime.Usec)),
		}
	}
	return get(unix.RUSAGE_SELF), get(unix.RUSAGE_CHILDREN)
}

// totalSystemMemory is the machine's memory, from /proc/meminfo where
// there is one; 0 (as Redis prints when it cannot tell) otherwise.
func totalSystemMemory() uint64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err == nil {
				return kb * 1024
			}
		}
	}
	return 0
}
