package reliability_test

import (
	"testing"

	"github.com/minilock/minilock/internal/stackcap"
)

// The hostile battery runs with the Go stack capped (see package
// stackcap): its servers run in this process.
func TestMain(m *testing.M) { stackcap.Main(m) }

func TestStackIsCapped(t *testing.T) { stackcap.Check(t) }
