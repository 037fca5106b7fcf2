package lab

import (
	"slices"

	"github.com/minilock/minilock/internal/timeline"
)

// SVG draws r as a sequence diagram (timeline.SVG): one lane per client,
// then minilock and the storage; time runs down, one row per event. A
// client's lane is shaded while it believes it holds the lock, minilock's
// while the lock key exists (in the colour of the client that set it), a
// waiting client's lane is outlined with dashes while it waits, and the row
// of the verdict is marked in red.
func SVG(r *Result) []byte {
	sc, v := r.Scenario, r.Verdict
	mark := timeline.Mark{Index: -1}
	if v.Outcome != Safe && v.Index >= 0 {
		mark = timeline.Mark{Index: v.Index, Label: v.Short(), Lanes: slices.Clone(v.Who)}
		switch v.Outcome {
		case StaleWrite:
			mark.Lanes = []string{v.Who[0], Storage}
		case NeverFreed:
			mark.Lanes = []string{Server}
		}
	}
	return timeline.SVG(&timeline.Chart{
		DocTitle: "minilock lab: " + sc.Name,
		Heading:  sc.Name + ": " + sc.Title,
		Subtitle: sc.Kind(),
		Key:      sc.Key,
		Clients:  r.Clients,
		Events:   r.Events,
		Mark:     mark,
		Verdict:  v.String(),
		Bad:      v.Outcome != Safe,
		Legend: []string{
			"shaded client lane: the client believes it holds the lock, from its replies and its lease",
			"shaded minilock lane: the lock key exists, in the colour of the client that set it",
			"solid arrow: command as sent · dashed arrow: reply as received · time runs down, one row per event",
		},
	})
}
