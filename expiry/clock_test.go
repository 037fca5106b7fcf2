package expiry

import (
	"testing"
	"time"
)

func TestManualStandsStillUntilMoved(t *testing.T) {
	start := time.Unix(1_700_000_000, 0)
	m := NewManual(start)
	time.Sleep(2 * time.Millisecond)
	if !m.Now().Equal(start) {
		t.Fatalf("manual clock moved by itself: %v", m.Now())
	}
	m.FastForward(1500 * time.Millisecond)
	if got := Millis(m.Now()); got != 1_700_000_001_500 {
		t.Fatalf("after FastForward: %d ms", got)
	}
	select {
	case <-m.Moved():
	default:
		t.Fatal("FastForward sent nothing on Moved")
	}
	m.SetTime(start)
	m.SetTime(start) // two moves leave one pending notification
	<-m.Moved()
	select {
	case <-m.Moved():
		t.Fatal("more than one pending notification")
	default:
	}
}

func TestShiftedRunsAndJumps(t *testing.T) {
	s := NewShifted()
	before := time.Now()
	s.FastForward(time.Hour)
	if d := s.Now().Sub(before); d < time.Hour || d > time.Hour+time.Second {
		t.Fatalf("shifted clock is %v ahead, want about 1h", d)
	}
	target := time.Unix(2_000_000_000, 0)
	s.SetTime(target)
	if d := s.Now().Sub(target); d < 0 || d > time.Second {
		t.Fatalf("after SetTime the clock reads %v past the target", d)
	}
	if (Real{}).Moved() != nil {
		t.Fatal("the real clock has a Moved channel")
	}
}
