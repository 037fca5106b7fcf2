package luaeval

import (
	"testing"

	"github.com/minilock/minilock/internal/stackcap"
)

// Every test here, the recorded cases and the fuzzers' seeds run with the
// Go stack capped (see package stackcap).
func TestMain(m *testing.M) { stackcap.Main(m) }

func TestStackIsCapped(t *testing.T) { stackcap.Check(t) }
