package timeline

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

var rows = []Event{
	{At: 0, Actor: "A", Kind: Command, Text: "SET lock 1 NX EX 10", Reply: "OK", Lock: LockState{Held: true, Value: "1", Owner: "A", Expires: true}},
	{At: 10 * time.Second, Actor: Server, Kind: Note, Text: "lock expires: its TTL ran out"},
	{At: 15 * time.Second, Actor: "A", Kind: Command, Text: "DEL lock", Reply: "(integer) 0"},
}

func TestText(t *testing.T) {
	var b bytes.Buffer
	Text(&b, rows, 2, "here")
	want := `  time        client    command              reply
  t=+0.000s   A         SET lock 1 NX EX 10  OK
  t=+10.000s  minilock  (lock expires: its TTL ran out)
  t=+15.000s  A         DEL lock             (integer) 0   <-- here
`
	if b.String() != want {
		t.Errorf("Text:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	Text(&b, nil, -1, "")
	if b.Len() != 0 {
		t.Errorf("Text of no rows wrote %q", b.String())
	}
}

func TestSVG(t *testing.T) {
	for _, mark := range []Mark{{Index: -1}, {Index: 2, Label: "late <DEL>", Lanes: []string{"A"}}} {
		pic := SVG(&Chart{DocTitle: "t", Heading: "h & h", Subtitle: "s", Key: "lock", Clients: []string{"A"}, Events: rows, Mark: mark, Verdict: "v", Bad: mark.Index >= 0})
		dec := xml.NewDecoder(bytes.NewReader(pic))
		for {
			_, err := dec.Token()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("not well-formed XML: %v\n%s", err, pic)
			}
		}
		s := string(pic)
		if marked := strings.Contains(s, "✗ t=+15.000s: late &lt;DEL&gt;"); marked != (mark.Index >= 0) {
			t.Errorf("mark %+v drawn = %v", mark, marked)
		}
		for _, want := range []string{">client A<", ">minilock<", "lock=1", "h &amp; h"} {
			if !strings.Contains(s, want) {
				t.Errorf("picture lacks %q", want)
			}
		}
	}
}
