package timeline

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Chart is what an SVG picture shows: lanes for the clients, then minilock
// and (when someone writes to it) the storage; the rows; the row to mark
// and why; the verdict and the legend under it.
type Chart struct {
	DocTitle string // the picture's <title>
	Heading  string // the bold first line
	Subtitle string // the grey line under it
	Key      string // the lock key, beside minilock's shaded lane
	Clients  []string
	Events   []Event
	Mark     Mark
	Verdict  string // the footer's first line, after "verdict: "
	Bad      bool   // the verdict is drawn in red, else green
	Legend   []string
}

// Mark points at the row where something went wrong: a red band, a ring on
// each of Lanes, and Label.
type Mark struct {
	Index int // the row; -1 for none
	Label string
	Lanes []string
}

// SVG draws c as a sequence diagram: one lane per client, then minilock and
// the storage; time runs down, one row per event. A client's lane is shaded
// while it believes it holds the lock, minilock's while the lock key exists
// (in the colour of the client that set it), a waiting client's lane is
// outlined with dashes while it waits, and the marked row is drawn in red.
// The picture is plain SVG 1.1 with no scripts or external resources, so
// browsers and GitHub's image viewer both show it.
func SVG(c *Chart) []byte {
	d := newDiagram(c)
	var b bytes.Buffer
	d.draw(&b)
	return b.Bytes()
}

// Layout, in pixels.
const (
	timeW    = 100  // the time column
	laneGap  = 220  // between lane centres: room for SET lock <token> NX PX 10000
	headTop  = 52   // top of the lane name boxes
	rowsTop  = 104  // first row
	cmdRow   = 44   // a command or a write: request and reply arrows
	noteRow  = 26   // a note
	pushRow  = 34   // a message or a late reply: one arrow
	markRow  = 22   // extra room under the verdict's row for its label
	charW    = 6.62 // width of a character at 11px monospace
	shadeW   = 18   // width of a lane's shading
	footerH  = 100
	rightPad = 250 // room for notes and the verdict label right of the last lane
)

var palette = []string{"#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2"}

const (
	red  = "#d62728"
	grey = "#8a8a8a"
)

type diagram struct {
	r      *Chart
	lanes  []string
	x      map[string]int
	color  map[string]string
	top    []int // each row's top
	height []int
	bottom int
	width  int
	waits  bool // someone waits in this run: the legend explains outlines and pushes
}

func newDiagram(r *Chart) *diagram {
	d := &diagram{r: r, x: map[string]int{}, color: map[string]string{}}
	d.lanes = append(slices.Clone(r.Clients), Server)
	for _, e := range r.Events {
		if e.Kind == Write {
			d.lanes = append(d.lanes, Storage)
			break
		}
	}
	for i, name := range d.lanes {
		d.x[name] = timeW + 60 + i*laneGap
		d.color[name] = grey
		if i < len(r.Clients) {
			d.color[name] = palette[i%len(palette)]
		}
	}
	y := rowsTop
	for i, e := range r.Events {
		h := noteRow
		switch e.Kind {
		case Command, Write:
			h = cmdRow
		case Push:
			h = pushRow
		}
		d.waits = d.waits || e.Kind == Push || len(e.Waiters) > 0
		if i == r.Mark.Index {
			h += markRow
		}
		d.top = append(d.top, y)
		d.height = append(d.height, h)
		y += h
	}
	d.bottom = y + 10
	d.width = d.x[d.lanes[len(d.lanes)-1]] + rightPad
	// The verdict line (bold 14px, about 8px a character) and the legend
	// must fit.
	d.width = max(d.width, 32+8*len([]rune(r.Verdict)), 660)
	return d
}

// mid is where row i's arrows and notes are drawn around; the row after
// the last is the bottom.
func (d *diagram) mid(i int) int {
	if i >= len(d.top) {
		return d.bottom
	}
	return d.top[i] + min(d.height[i], cmdRow)/2
}

// Where a command's arrows are drawn, relative to mid.
const (
	reqDY   = -6 // the request
	replyDY = 14 // the reply
)

// effect is where what row i did takes effect: for a command or a write,
// when its reply arrives; for a note or a push, at its mark.
func (d *diagram) effect(i int) int {
	if i < len(d.r.Events) && (d.r.Events[i].Kind == Command || d.r.Events[i].Kind == Write) {
		return d.mid(i) + replyDY
	}
	return d.mid(i)
}

// footer is the height of the verdict and the legend.
func (d *diagram) footer() int {
	if d.waits {
		return footerH + 17
	}
	return footerH
}

func (d *diagram) draw(b *bytes.Buffer) {
	height := d.bottom + d.footer()
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="Helvetica, Arial, sans-serif" font-size="12">`+"\n", d.width, height, d.width, height)
	fmt.Fprintf(b, `<title>%s</title>`+"\n", esc(d.r.DocTitle))
	b.WriteString(`<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#333"/></marker></defs>` + "\n")
	b.WriteString(`<style>.cmd{font-family:Menlo,Consolas,"DejaVu Sans Mono",monospace;font-size:11px}.halo{paint-order:stroke;stroke:#fff;stroke-width:3px;stroke-linejoin:round}.note{font-style:italic;fill:#555}</style>` + "\n")
	fmt.Fprintf(b, `<rect width="%d" height="%d" fill="#fff"/>`+"\n", d.width, height)
	fmt.Fprintf(b, `<text x="16" y="26" font-size="16" font-weight="bold">%s</text>`+"\n", esc(d.r.Heading))
	fmt.Fprintf(b, `<text x="16" y="44" fill="%s">%s</text>`+"\n", grey, esc(d.r.Subtitle))

	d.drawLanes(b)
	d.drawShading(b)
	d.drawRows(b)
	d.drawVerdict(b)
	d.drawFooter(b)
	b.WriteString("</svg>\n")
}

func (d *diagram) drawLanes(b *bytes.Buffer) {
	for _, name := range d.lanes {
		x := d.x[name]
		end := d.bottom
		for i, e := range d.r.Events {
			if e.Actor == name && e.Kind == Note && strings.HasPrefix(e.Text, CrashNote) {
				end = d.mid(i)
			}
		}
		fmt.Fprintf(b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#c8c8c8" stroke-width="1.5"/>`+"\n", x, headTop+30, x, end)
		fill := d.color[name]
		fmt.Fprintf(b, `<rect x="%d" y="%d" width="100" height="30" rx="6" fill="%s"/>`+"\n", x-50, headTop, fill)
		fmt.Fprintf(b, `<text x="%d" y="%d" text-anchor="middle" fill="#fff" font-weight="bold">%s</text>`+"\n", x, headTop+20, esc(LaneTitle(name)))
	}
	// Paused stretches of a lifeline are drawn dashed.
	for _, name := range d.r.Clients {
		start := -1
		for i, e := range d.r.Events {
			if e.Actor != name || e.Kind != Note {
				continue
			}
			switch {
			case strings.HasPrefix(e.Text, PauseNote):
				start = i
			case strings.HasPrefix(e.Text, ResumeNote) && start >= 0:
				x := d.x[name]
				fmt.Fprintf(b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#fff" stroke-width="3"/>`+"\n", x, d.mid(start), x, d.mid(i))
				fmt.Fprintf(b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="1.5" stroke-dasharray="2 5"/>`+"\n", x, d.mid(start), x, d.mid(i), grey)
				start = -1
			}
		}
	}
}

// LaneTitle is the name drawn at the head of a lane.
func LaneTitle(name string) string {
	if name == Server || name == Storage {
		return name
	}
	return "client " + name
}

// drawShading shades each client's lane while it believes it holds the
// lock, and minilock's lane while the key exists.
func (d *diagram) drawShading(b *bytes.Buffer) {
	events := d.r.Events
	for _, name := range d.r.Clients {
		for i := 0; i < len(events); i++ {
			if !slices.Contains(events[i].Holders, name) {
				continue
			}
			j := i
			for j+1 < len(events) && slices.Contains(events[j+1].Holders, name) {
				j++
			}
			d.shade(b, name, d.color[name], i, j+1, "")
			i = j
		}
		for i := 0; i < len(events); i++ {
			if !slices.Contains(events[i].Waiters, name) {
				continue
			}
			j := i
			for j+1 < len(events) && slices.Contains(events[j+1].Waiters, name) {
				j++
			}
			x, y0, y1 := d.x[name], d.effect(i), d.effect(j+1)
			fmt.Fprintf(b, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="%s" stroke-width="1.5" stroke-dasharray="4 3"/>`+"\n", x-shadeW/2, y0, shadeW, y1-y0, d.color[name])
			i = j
		}
	}
	for i := 0; i < len(events); i++ {
		lk := events[i].Lock
		if !lk.Held {
			continue
		}
		j := i
		for j+1 < len(events) && events[j+1].Lock.Held && events[j+1].Lock.Value == lk.Value && events[j+1].Lock.Owner == lk.Owner {
			j++
		}
		color := grey
		if c, ok := d.color[lk.Owner]; ok && lk.Owner != "" {
			color = c
		}
		d.shade(b, Server, color, i, j+1, d.r.Key+"="+lk.Value)
		i = j
	}
}

// shade fills lane name from the middle of row from to the middle of row
// to, with an optional label beside it.
func (d *diagram) shade(b *bytes.Buffer, name, color string, from, to int, label string) {
	x, y0, y1 := d.x[name], d.effect(from), d.effect(to)
	fmt.Fprintf(b, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s" fill-opacity="0.45" stroke="%s" stroke-width="1"/>`+"\n", x-shadeW/2, y0, shadeW, y1-y0, color, color)
	if label != "" {
		fmt.Fprintf(b, `<text class="cmd halo" x="%d" y="%d" fill="%s">%s</text>`+"\n", x+shadeW/2+4, y0+11, color, esc(clip(label, 30)))
	}
}

func (d *diagram) drawRows(b *bytes.Buffer) {
	last := "" // the last time label drawn
	for i, e := range d.r.Events {
		top, mid := d.top[i], d.mid(i)
		if t := Seconds(e.At); t != last {
			fmt.Fprintf(b, `<text class="cmd" x="12" y="%d" fill="#555">%s</text>`+"\n", mid+4, t)
			fmt.Fprintf(b, `<line x1="12" y1="%d" x2="%d" y2="%d" stroke="#eee"/>`+"\n", top, d.width-12, top)
			last = t
		}
		switch e.Kind {
		case Command, Write:
			to := Server
			if e.Kind == Write {
				to = Storage
			}
			d.message(b, e, d.x[e.Actor], d.x[to], mid)
		case Note:
			d.note(b, e, mid)
		case Push:
			d.push(b, e, d.x[e.Actor], d.x[Server], mid)
		}
	}
}

// message draws a request arrow with the command above it and a dashed
// reply arrow with the reply above it.
func (d *diagram) message(b *bytes.Buffer, e Event, from, to, mid int) {
	req, rep := mid+reqDY, mid+replyDY
	room := int(float64(to-from-24) / charW)
	fmt.Fprintf(b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#333" stroke-width="1.3" marker-end="url(#arrow)"/>`+"\n", from+shadeW/2, req, to-shadeW/2-2, req)
	fmt.Fprintf(b, `<text class="cmd halo" x="%d" y="%d">%s</text>`+"\n", from+14, req-5, esc(clip(shortScript(e.Text), room)))
	fill := "#333"
	if e.Kind == Write && !e.Accepted {
		fill = red
	}
	if e.Reply == BlocksReply {
		// Parked: no reply yet; it comes later as a push.
		fmt.Fprintf(b, `<text class="cmd halo note" x="%d" y="%d" text-anchor="end">%s</text>`+"\n", to-14, rep-4, esc(e.Reply))
		return
	}
	fmt.Fprintf(b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#777" stroke-width="1" stroke-dasharray="4 3" marker-end="url(#arrow)"/>`+"\n", to-shadeW/2, rep, from+shadeW/2+2, rep)
	fmt.Fprintf(b, `<text class="cmd halo" x="%d" y="%d" text-anchor="end" fill="%s">%s</text>`+"\n", to-14, rep-4, fill, esc(clip(e.Reply, room)))
}

// push draws what the server sent unasked, when it sent it: one dotted
// arrow from minilock to the client, with what it is and its content.
func (d *diagram) push(b *bytes.Buffer, e Event, client, srv, mid int) {
	y := mid + 6
	room := int(float64(srv-client-24) / charW)
	fmt.Fprintf(b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#333" stroke-width="1.3" stroke-dasharray="1.5 3" marker-end="url(#arrow)"/>`+"\n", srv-shadeW/2, y, client+shadeW/2+2, y)
	fmt.Fprintf(b, `<text class="cmd halo" x="%d" y="%d">%s</text>`+"\n", client+14, y-5, esc(clip(pushLabel(e), room)))
}

func (d *diagram) note(b *bytes.Buffer, e Event, mid int) {
	if e.Actor == Nobody {
		fmt.Fprintf(b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#bbb" stroke-dasharray="1 4"/>`+"\n", timeW, mid, d.width-12, mid)
		fmt.Fprintf(b, `<text class="note halo" x="%d" y="%d">⋯ %s</text>`+"\n", timeW+4, mid+4, esc(e.Text))
		return
	}
	x := d.x[e.Actor]
	switch {
	case strings.HasPrefix(e.Text, CrashNote):
		fmt.Fprintf(b, `<path d="M%d,%d l12,12 m0,-12 l-12,12" stroke="%s" stroke-width="3"/>`+"\n", x-6, mid-6, red)
	case e.Actor == Server:
		fmt.Fprintf(b, `<circle cx="%d" cy="%d" r="4" fill="#fff" stroke="%s" stroke-width="1.5"/>`+"\n", x, mid, grey)
	default:
		fmt.Fprintf(b, `<circle cx="%d" cy="%d" r="3" fill="%s"/>`+"\n", x, mid, d.color[e.Actor])
	}
	who := e.Actor + " "
	if e.Actor == Server {
		who = ""
	}
	fmt.Fprintf(b, `<text class="note halo" x="%d" y="%d">%s</text>`+"\n", x+shadeW/2+6, mid+4, esc(who+e.Text))
}

// drawVerdict marks the row where the verdict was reached: a red band, a
// ring on each lane involved, and what went wrong.
func (d *diagram) drawVerdict(b *bytes.Buffer) {
	m := d.r.Mark
	if m.Index < 0 || m.Index >= len(d.top) {
		return
	}
	y := d.effect(m.Index)
	fmt.Fprintf(b, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s" fill-opacity="0.08"/>`+"\n", timeW, d.top[m.Index], d.width-timeW-8, d.height[m.Index], red)
	for _, name := range m.Lanes {
		if x, ok := d.x[name]; ok && name != "" {
			fmt.Fprintf(b, `<circle cx="%d" cy="%d" r="13" fill="none" stroke="%s" stroke-width="3"/>`+"\n", x, y, red)
		}
	}
	label := "✗ " + Seconds(d.r.Events[m.Index].At) + ": " + m.Label
	fmt.Fprintf(b, `<text class="halo" x="%d" y="%d" fill="%s" font-weight="bold">%s</text>`+"\n", timeW+8, d.top[m.Index]+d.height[m.Index]-7, red, esc(label))
}

func (d *diagram) drawFooter(b *bytes.Buffer) {
	y := d.bottom + 26
	color := "#2ca02c"
	if d.r.Bad {
		color = red
	}
	fmt.Fprintf(b, `<text x="16" y="%d" font-size="14" font-weight="bold" fill="%s">verdict: %s</text>`+"\n", y, color, esc(d.r.Verdict))
	y += 24
	legend := slices.Clone(d.r.Legend)
	if d.waits {
		legend = append(legend, "dashed outline: the client waits for the lock · dotted arrow: a message, or a parked command's reply, sent when it happens")
	}
	for i, line := range legend {
		fmt.Fprintf(b, `<text x="16" y="%d" fill="#555">%s</text>`+"\n", y+i*17, esc(line))
	}
}

// pushLabel names a push by its kind and gives its content: `message:
// "0"`, `BLPOP: (nil)`; the text timeline has the channel or the command
// whole.
func pushLabel(e Event) string {
	kind, _, _ := strings.Cut(e.Text, " ")
	return kind + ": " + e.Reply
}

// shortScript shortens the script body of an EVAL, so that the keys and
// arguments after it stay in the picture; the text timeline has it whole.
func shortScript(cmd string) string {
	rest, ok := strings.CutPrefix(cmd, "EVAL ")
	if !ok {
		return cmd
	}
	script, err := strconv.QuotedPrefix(rest)
	if err != nil || len(script) <= 24 {
		return cmd
	}
	return "EVAL " + script[:20] + `…" ` + strings.TrimSpace(rest[len(script):])
}

// clip shortens s to n characters, marking the cut.
func clip(s string, n int) string {
	r := []rune(s)
	if n < 2 || len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

var escaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#39;")

func esc(s string) string { return escaper.Replace(s) }

// Escape escapes s for SVG text, as the picture does.
func Escape(s string) string { return esc(s) }
