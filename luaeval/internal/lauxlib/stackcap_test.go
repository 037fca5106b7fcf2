package lauxlib

import (
	"testing"

	"github.com/minilock/minilock/internal/stackcap"
)

// The tests run with the Go stack capped (see package stackcap).
func TestMain(m *testing.M) { stackcap.Main(m) }

func TestStackIsCapped(t *testing.T) { stackcap.Check(t) }
