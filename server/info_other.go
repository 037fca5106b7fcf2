//go:build !unix

package server

import "runtime"

func osName() string { return runtime.GOOS + " " + runtime.GOARCH }

func cpuTimes() (self, children cpuTime) {
	zero := cpuTime{"0.000000", "0.000000"}
	return zero, zero
}

func totalSystemMemory() uint64 { return 0 }
