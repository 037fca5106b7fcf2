package server

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestPersistenceCommands(t *testing.T) {
	before := time.Now().Unix()
	s := RunT(t, Config{})
	after := time.Now().Unix()
	_, send := dial(t, s)
	got := send("LASTSAVE")
	n, err := strconv.ParseInt(strings.TrimPrefix(got, ":"), 10, 64)
	if err != nil || !strings.HasPrefix(got, ":") || n < before || n > after {
		t.Fatalf("LASTSAVE = %q, want the start time in [%d, %d]", got, before, after)
	}
	want := "-" + errNoPersistence.Error()
	for _, c := range []string{"SAVE"} {
		if got := send(c); got != want {
			t.Errorf("%s = %q, want %q", c, got, want)
		}
	}
	if got := send("BGSAVE now"); got != "-ERR syntax error" {
		t.Errorf("BGSAVE now = %q", got)
	}
}
