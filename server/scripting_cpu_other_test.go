//go:build !linux

package server

import "time"

// threadCPU is not measured here; the benchmark then reports no cpu-ns/op.
func threadCPU() time.Duration { return 0 }
