package server

import (
	"testing"

	"github.com/minilock/minilock/internal/stackcap"
)

// The tests, FuzzEval's seeds among them, run with the Go stack capped
// (see package stackcap): the scripts they send run in this process.
func TestMain(m *testing.M) { stackcap.Main(m) }

func TestStackIsCapped(t *testing.T) { stackcap.Check(t) }
