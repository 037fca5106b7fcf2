package doctor

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Config bounds what the doctor keeps. A zero field means its default; the
// defaults bound a doctor that watches a server for weeks to a few MB.
type Config struct {
	// Keys is how many lock keys are followed at once; past it the one
	// touched longest ago is forgotten. Zero means 1024.
	Keys int
	// Clients is how many connections' recent commands are remembered;
	// past it the one heard from longest ago is forgotten. Zero means 1024.
	Clients int
	// Findings is how many findings are kept; later ones are counted
	// (Doctor.Dropped) but not kept. Zero means 100.
	Findings int
	// OnFinding, when set, is called with each finding kept, as it is
	// made, on the goroutine that calls See.
	OnFinding func(Finding)
}

// rowsPerKey is how many commands of a lock key's history are kept for the
// evidence, and innerMax how many commands of one script or transaction.
const (
	rowsPerKey    = 24
	grantsPerKey  = 8
	stampsPerKey  = 8
	workPerGrant  = 4
	innerMax      = 256
	seenPerKey    = 64
	lostMax       = 64
	spinAttempts  = 20                     // failed tries in a row ...
	spinMeanGap   = 2 * time.Millisecond   // ... this close together, on average
	stampSkew     = 2000                   // ms two timestamp writers may disagree by
	stampMinAge   = 1000                   // ms a fresh timestamp may already be past by
	stampWindowMS = 366 * 24 * 3600 * 1000 // what counts as a timestamp: within a year of the clock
)

// Probe reads a key as it is now: whether it exists, its value if it is a
// string, and its deadline in Unix ms (0 for none). The server supplies it.
type Probe func(db int, key string) KeyState

// KeyState is a key as a Probe reads it.
type KeyState struct {
	Exists   bool
	String   bool // the value is a string (Value is it)
	Value    string
	Deadline int64
}

// Doctor watches one server's commands. It is not safe for concurrent use:
// the server calls it from the goroutine that runs commands.
type Doctor struct {
	cfg      Config
	seq      uint64
	inner    []Record // the commands of the script or transaction under way
	locks    map[lockID]*lock
	clients  map[string]*conn
	findings []Finding
	dropped  int
	// lost are the grants whose lease ran out and whose holders have not
	// released them, newest last: their holders' writes are watched.
	lost []lostGrant
	// probe is the caller's, for the duration of See.
	probe Probe
}

// New returns a doctor bounded by cfg.
func New(cfg Config) *Doctor {
	if cfg.Keys <= 0 {
		cfg.Keys = 1024
	}
	if cfg.Clients <= 0 {
		cfg.Clients = 1024
	}
	if cfg.Findings <= 0 {
		cfg.Findings = 100
	}
	return &Doctor{cfg: cfg, locks: map[lockID]*lock{}, clients: map[string]*conn{}}
}

type lockID struct {
	db  int
	key string
}

// lock is what the doctor knows of one lock key.
type lock struct {
	id      lockID
	state   KeyState
	owner   string // who gave the key its value
	touched uint64
	grants  []*grant
	stamps  []stamp
	rows    []row // the key's recent history, for the evidence
	// noTTL is the grant the key holds while it has never had a TTL.
	noTTL *grant
	// seen maps each finding made on the key (hazard and clients) to its
	// index in Doctor.findings, or -1 if it was not kept, so that a
	// recipe repeated a thousand times is one finding that counts them.
	seen map[string]int
}

// grant is one successful SET NX (or SETNX) of a token.
type grant struct {
	token    string
	who      string
	at       int64
	row      int64 // seq of the granting command
	done     bool  // released by its holder, or judged
	lost     bool  // the key stopped holding the token while not done
	lostAt   int64
	lostWhy  string
	work     []row // writes its holder's connection made after lost
	hadTTL   bool
	reported bool
}

type lostGrant struct {
	lk *lock
	g  *grant
}

// stamp is a timestamp written to a timestamp lock, and how far it was
// from the server's clock.
type stamp struct {
	who    string
	offset int64 // value - server clock, ms
	row    int64
}

// row is one command of a lock key's history, kept for the evidence.
type row struct {
	seq    uint64
	at     int64
	who    string
	addr   string
	text   string
	reply  string
	state  KeyState // the key after the command
	owner  string
	note   bool // a note of the doctor's, not a command
	client int64
}

// conn is what the doctor remembers of one client: a connection, or the
// connections sharing one CLIENT SETNAME name (a pool's). A check on one
// pooled connection and a delete on another are still one client's two
// steps.
type conn struct {
	who     string
	heard   uint64
	watched map[watchKey]bool // lock keys WATCHed per connection, until its EXEC, DISCARD or UNWATCH
	lastGet *lockID           // the lock key its last command read with GET
	getRow  row
	// spin is its current run of failed lock attempts.
	spin struct {
		id       lockID
		n        int
		first    time.Duration
		last     time.Duration
		reported bool
	}
}

// Findings returns what the doctor has flagged so far, oldest first.
func (d *Doctor) Findings() []Finding { return slices.Clone(d.findings) }

// Dropped is how many findings were made past Config.Findings and not kept.
func (d *Doctor) Dropped() int { return d.dropped }

// Reset forgets every finding and everything the doctor knows.
func (d *Doctor) Reset() {
	*d = *New(d.cfg)
}

// See reads one command the server ran. A script's or a transaction's
// commands (Inner) are read together with their container, the next
// record that is not Inner; probe reads keys after it.
func (d *Doctor) See(r *Record, probe Probe) {
	d.seq++
	if r.Inner {
		if len(d.inner) < innerMax {
			d.inner = append(d.inner, copyRecord(r))
		}
		return
	}
	unit := append(d.inner, *r)
	d.inner = d.inner[:0]
	d.probe = probe
	defer func() { d.probe = nil }()
	d.unit(unit)
	clear(unit) // the records' copies may go
}

// copyRecord keeps r past See, its arguments and reply clipped to about
// MaxValue: a script's commands wait for their container, and a script may
// write huge values.
func copyRecord(r *Record) Record {
	c := *r
	c.Args = make([][]byte, len(r.Args))
	for i, a := range r.Args {
		c.Args[i] = slices.Clone(a[:min(len(a), MaxValue)])
	}
	c.Keys = slices.Clone(r.Keys)
	c.Reply = slices.Clone(r.Reply[:min(len(r.Reply), MaxValue+32)])
	return c
}

// unit judges one command, or one script or transaction with the commands
// it ran: the container is the last record.
func (d *Doctor) unit(unit []Record) {
	top := &unit[len(unit)-1]
	c := d.conn(who(top))
	atomic := len(unit) > 1
	name := top.name()
	script := isScript(name)

	// The lock keys this unit touches: followed ones, and new ones it takes
	// with SET NX or SETNX.
	var ids []lockID
	for i := range unit {
		r := &unit[i]
		for _, p := range r.Keys {
			if p >= len(r.Args) {
				continue
			}
			id := lockID{r.DB, string(r.Args[p])}
			if slices.Contains(ids, id) {
				continue
			}
			if _, ok := d.locks[id]; ok || takes(r) && p == 1 {
				ids = append(ids, id)
			}
		}
	}
	for _, id := range ids {
		d.judge(d.lock(id), unit, c, atomic, script)
	}
	if len(ids) == 0 {
		d.work(unit, c)
	}
	d.session(unit, c, ids)
}

func isScript(name string) bool {
	switch name {
	case "eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro":
		return true
	}
	return false
}

// takes reports whether r is a lock attempt: SET ... NX, or SETNX.
func takes(r *Record) bool {
	switch r.name() {
	case "setnx":
		return true
	case "set":
		return r.option(3, "nx")
	}
	return false
}

// took reports whether the attempt r got the lock.
func took(r *Record) bool {
	p := parseReply(r.Reply)
	if r.name() == "setnx" {
		return p.kind == ':' && p.n == 1
	}
	return p.kind == '+'
}

// lock returns the lock id, creating it (and forgetting the oldest past
// Config.Keys).
func (d *Doctor) lock(id lockID) *lock {
	lk := d.locks[id]
	if lk == nil {
		if len(d.locks) >= d.cfg.Keys {
			evict(d.locks, func(l *lock) uint64 { return l.touched })
		}
		lk = &lock{id: id, seen: map[string]int{}}
		d.locks[id] = lk
	}
	lk.touched = d.seq
	return lk
}

type watchKey struct {
	conn int64
	id   lockID
}

func (d *Doctor) conn(id string) *conn {
	c := d.clients[id]
	if c == nil {
		if len(d.clients) >= d.cfg.Clients {
			evict(d.clients, func(c *conn) uint64 { return c.heard })
		}
		c = &conn{who: id, watched: map[watchKey]bool{}}
		d.clients[id] = c
	}
	c.heard = d.seq
	return c
}

// evict forgets the quarter of m (at least one) used longest ago: sorting
// once per quarter keeps a full map's cost per new entry logarithmic.
func evict[K comparable, V any](m map[K]V, used func(V) uint64) {
	type entry struct {
		k K
		t uint64
	}
	all := make([]entry, 0, len(m))
	for k, v := range m {
		all = append(all, entry{k, used(v)})
	}
	slices.SortFunc(all, func(a, b entry) int { return cmp.Compare(a.t, b.t) })
	for _, e := range all[:max(1, len(all)/4)] {
		delete(m, e.k)
	}
}

// session follows what a connection's commands mean for the next ones:
// WATCH and its end, and the last GET of a lock key.
func (d *Doctor) session(unit []Record, c *conn, ids []lockID) {
	top := &unit[len(unit)-1]
	switch top.name() {
	case "watch":
		for _, p := range top.Keys {
			if p < len(top.Args) {
				c.watched[watchKey{top.Client, lockID{top.DB, string(top.Args[p])}}] = true
			}
		}
	case "exec", "discard", "unwatch":
		for k := range c.watched {
			if k.conn == top.Client {
				delete(c.watched, k)
			}
		}
	}
	// A GET of a lock key is remembered until the connection next touches
	// that key, so a DEL after other work still counts as its second half.
	if c.lastGet != nil && slices.Contains(ids, *c.lastGet) {
		c.lastGet = nil
	}
	if top.name() == "get" && len(unit) == 1 {
		id := lockID{top.DB, top.arg(1)}
		if lk, ok := d.locks[id]; ok && len(lk.rows) > 0 {
			c.lastGet = &id
			c.getRow = lk.rows[len(lk.rows)-1]
		}
	}
}

// work records writes by a holder whose lease has run out: it kept using
// the lock.
func (d *Doctor) work(unit []Record, c *conn) {
	write := false
	for i := range unit {
		write = write || unit[i].Write
	}
	if !write {
		return
	}
	top := &unit[len(unit)-1]
	live := d.lost[:0]
	for _, l := range d.lost {
		if l.g.done {
			continue
		}
		live = append(live, l)
		if l.g.who == c.who && len(l.g.work) < workPerGrant {
			rw := d.row(top, l.lk.state, "")
			l.g.work = append(l.g.work, rw)
			l.lk.addRow(rw)
		}
	}
	clear(d.lost[len(live):])
	d.lost = live
}

// lose marks g lost: the key no longer holds its token, and its holder has
// not released it. The doctor then watches the holder's writes.
func (d *Doctor) lose(lk *lock, g *grant, at int64, why string) {
	g.lost, g.lostAt, g.lostWhy = true, at, why
	if len(d.lost) >= lostMax {
		d.lost = d.lost[1:]
	}
	d.lost = append(d.lost, lostGrant{lk, g})
}

func (d *Doctor) row(r *Record, st KeyState, owner string) row {
	return row{
		seq: d.seq, at: r.At, who: who(r), addr: r.Addr, client: r.Client,
		text: formatArgs(r.Args), reply: parseReply(r.Reply).text(),
		state: st, owner: owner,
	}
}

func (lk *lock) addRow(rw row) {
	if len(lk.rows) >= rowsPerKey {
		copy(lk.rows, lk.rows[1:])
		lk.rows = lk.rows[:rowsPerKey-1]
	}
	lk.rows = append(lk.rows, rw)
}

// expire notes that the key's TTL ran out before now, if it did: the doctor
// learns it lazily, at the next command that touches the key.
func (d *Doctor) expire(lk *lock, now int64) {
	st := lk.state
	if !st.Exists || st.Deadline == 0 || st.Deadline > now {
		return
	}
	for _, g := range lk.grants {
		if !g.done && !g.lost && g.token == st.Value {
			d.lose(lk, g, st.Deadline, "its TTL ran out")
		}
	}
	lk.state = KeyState{}
	lk.owner = ""
	lk.addRow(row{at: st.Deadline, text: lk.id.key + " expires: its TTL ran out", note: true})
}

// grantOf finds the live grant of token.
func (lk *lock) grantOf(token string) *grant {
	for i := len(lk.grants) - 1; i >= 0; i-- {
		if lk.grants[i].token == token {
			return lk.grants[i]
		}
	}
	return nil
}

// judge reads one unit's commands on one lock key.
func (d *Doctor) judge(lk *lock, unit []Record, c *conn, atomic, script bool) {
	top := &unit[len(unit)-1]
	id := lk.id
	d.expire(lk, top.At)
	before, beforeOwner := lk.state, lk.owner
	after := d.probe(id.db, id.key)
	after.Value = value(after.Value)
	me := who(top)
	if after.Exists != before.Exists || after.Value != before.Value {
		if after.Exists {
			lk.owner = me
		} else {
			lk.owner = ""
		}
	}
	lk.state = after
	var rw row
	if top.name() == "exec" {
		rw = d.row(top, after, lk.owner)
		rw.text = execText(unit)
	} else {
		rw = d.row(top, after, lk.owner)
	}
	lk.addRow(rw)

	// Commands of the unit on this key, in order.
	read := false // the unit read the key before deleting it
	for i := range unit {
		r := &unit[i]
		if !r.hasKey(id.key) || r.DB != id.db {
			continue
		}
		name := r.name()
		switch {
		case takes(r):
			d.attempt(lk, r, c, rw, after)
		case name == "get" || name == "getrange" || name == "getex":
			read = true
			d.check(lk, r, unit, rw)
		case name == "getset" || name == "set" && !r.option(3, "nx"):
			d.stampWrite(lk, r, rw)
		case name == "del" || name == "unlink" || name == "getdel":
			if p := parseReply(r.Reply); p.kind == ':' && p.n == 0 || p.kind == '_' {
				continue // deleted nothing
			}
			d.deleted(lk, r, c, rw, before, beforeOwner, atomic, script, read)
		case name == "expire" || name == "pexpire" || name == "expireat" || name == "pexpireat":
			if p := parseReply(r.Reply); p.kind == ':' && p.n == 1 {
				d.ttlGiven(lk, r, rw)
			}
		}
	}
	// A compare that found another token or nothing, in a script handed
	// the token (a compare-and-delete, an extend, a TTL read).
	if script {
		for _, g := range lk.grants {
			if !g.done && uint64(g.row) != d.seq && top.carries(g.token) && !(before.Exists && before.Value == g.token) {
				d.late(lk, g, rw)
			}
		}
	}
	if after.Exists && after.Deadline > 0 && lk.noTTL != nil {
		lk.noTTL.hadTTL = true
		lk.noTTL = nil
	}
	if !after.Exists || lk.noTTL != nil && after.Value != lk.noTTL.token {
		lk.noTTL = nil
	}
	// The value changed under a grant that was not released: its lease is
	// lost (replaced by another's, or deleted by someone else).
	for _, g := range lk.grants {
		if !g.done && !g.lost && before.Exists && before.Value == g.token && (!after.Exists || after.Value != g.token) {
			d.lose(lk, g, top.At, me+"'s "+top.name()+" replaced or removed it")
		}
	}
}

// execText shows a transaction as one row: EXEC and the commands it ran.
func execText(unit []Record) string {
	s := "EXEC ["
	for i := range len(unit) - 1 {
		if i > 0 {
			s += "; "
		}
		if i == 3 {
			s += "…"
			break
		}
		s += formatArgs(unit[i].Args)
	}
	return s + "]"
}

// attempt reads a lock attempt: a grant, or a refusal.
func (d *Doctor) attempt(lk *lock, r *Record, c *conn, rw row, after KeyState) {
	token := r.arg(2)
	d.stampWrite(lk, r, rw)
	if !took(r) {
		d.spin(lk, r, c, rw)
		if g := lk.noTTL; g != nil && g.who != who(r) && !isStamp(lk.state.Value, r.At) {
			d.find(lk, NoTTL, rw, []string{g.who}, fmt.Sprintf(
				"%s's lock %q has no TTL: %s was refused at %s, and if %s has gone nobody will ever release it",
				g.who, lk.id.key, who(r), clock(r.At), g.who))
		}
		return
	}
	c.spin.n = 0
	me := who(r)
	for _, g := range lk.grants {
		if g.token == token && g.who != me {
			d.find(lk, SharedToken, rw, []string{g.who, me}, fmt.Sprintf(
				"%s and %s both took %q with the value %q: a release that compares the value cannot tell their locks apart",
				g.who, me, lk.id.key, clip(token, 40)))
			break
		}
	}
	g := &grant{token: token, who: me, at: r.At, row: int64(d.seq)}
	if len(lk.grants) >= grantsPerKey {
		lk.grants = lk.grants[1:]
	}
	lk.grants = append(lk.grants, g)
	if after.Deadline == 0 && !isStamp(token, r.At) {
		lk.noTTL = g
	}
}

// spin counts a connection's failed attempts in a row on one key.
func (d *Doctor) spin(lk *lock, r *Record, c *conn, rw row) {
	s := &c.spin
	if s.id != lk.id || s.n == 0 {
		s.id, s.n, s.first, s.reported = lk.id, 0, r.Mono, false
	}
	s.n++
	s.last = r.Mono
	if s.n < spinAttempts || s.reported {
		return
	}
	mean := (s.last - s.first) / time.Duration(s.n-1)
	if mean >= spinMeanGap {
		return
	}
	s.reported = true
	d.find(lk, Spin, rw, []string{who(r)}, fmt.Sprintf(
		"%s tried to take %q %d times in a row, %v apart on average: it spins without backing off, and every try is a command the holder waits behind",
		who(r), lk.id.key, s.n, mean.Round(time.Microsecond)))
}

// check reads a GET of the lock key: a holder that finds another token or
// nothing has lost its lease.
func (d *Doctor) check(lk *lock, r *Record, unit []Record, rw row) {
	if len(unit) > 1 {
		return // a script's compare: judged by the token it was handed
	}
	p := parseReply(r.Reply)
	for _, g := range lk.grants {
		if g.who == who(r) && !g.done && g.lost && (p.kind != '$' || p.str != g.token) {
			d.late(lk, g, rw)
		}
	}
}

// late judges a holder that found its lock gone: if it wrote something
// after its lease ran out, it kept using a lock it no longer held.
func (d *Doctor) late(lk *lock, g *grant, rw row) {
	if !g.lost {
		// The doctor learns of a replaced value only now.
		d.lose(lk, g, rw.at, "another client took it")
	}
	g.done = true
	if len(g.work) == 0 || g.reported {
		return // a late cleanup by a holder that stopped working in time
	}
	g.reported = true
	d.find(lk, LeaseExpired, rw, []string{g.who}, fmt.Sprintf(
		"%s's lease on %q ran out at %s (%s), but it wrote %q %s later, and its release at %s found %s",
		g.who, lk.id.key, clock(g.lostAt), g.lostWhy, g.work[0].text, time.Duration(g.work[0].at-g.lostAt)*time.Millisecond, clock(rw.at), found(lk.state, g.token)))
}

func found(st KeyState, token string) string {
	if !st.Exists {
		return "nothing"
	}
	if st.Value != token {
		return fmt.Sprintf("another token (%q)", clip(st.Value, 40))
	}
	return "its own token"
}

// deleted judges a command that deleted the lock key.
func (d *Doctor) deleted(lk *lock, r *Record, c *conn, rw row, before KeyState, beforeOwner string, atomic, script, read bool) {
	me := who(r)
	compared := script && read || atomic && !script && c.watched[watchKey{r.Client, lk.id}]
	if g := lk.grantOf(before.Value); g != nil && (g.who == me || compared) {
		g.done = true
	}
	if g := lk.noTTL; g != nil && !g.hadTTL && !isStamp(before.Value, r.At) {
		d.find(lk, NoTTL, rw, []string{g.who}, fmt.Sprintf(
			"%s's lock %q lived with no TTL until %s deleted it at %s: had %s gone first, nobody would ever have released it",
			g.who, lk.id.key, me, clock(r.At), g.who))
		lk.noTTL = nil
	}
	if compared {
		return
	}
	if c.lastGet != nil && *c.lastGet == lk.id {
		d.find(lk, GetThenDel, rw, []string{me}, fmt.Sprintf(
			"%s checked %q with GET at %s and deleted it with DEL at %s: two commands, without WATCH, and the key can change hands between them",
			me, lk.id.key, clock(c.getRow.at), clock(r.At)))
	} else {
		d.find(lk, PlainDel, rw, []string{me}, fmt.Sprintf(
			"%s released %q with a plain %s at %s: it deletes the key whoever holds it",
			me, lk.id.key, strings.ToUpper(r.name()), clock(r.At)))
	}
	if before.Exists && beforeOwner != "" && beforeOwner != me {
		if g := lk.grantOf(before.Value); g == nil || g.who != me {
			d.find(lk, DelOther, rw, []string{me, beforeOwner}, fmt.Sprintf(
				"%s's %s at %s removed %q = %q, which %s had set: it released another client's lock",
				me, strings.ToUpper(r.name()), clock(r.At), lk.id.key, clip(before.Value, 40), beforeOwner))
		}
	}
}

// ttlGiven judges an EXPIRE of a lock taken without a TTL.
func (d *Doctor) ttlGiven(lk *lock, r *Record, rw row) {
	g := lk.noTTL
	if g == nil || uint64(g.row) == d.seq {
		return // taken and given its TTL in one script or transaction
	}
	d.find(lk, SetnxExpire, rw, []string{g.who}, fmt.Sprintf(
		"%s took %q without a TTL at %s and gave it one with a separate %s at %s: a client that dies between the two leaves a lock nobody releases",
		g.who, lk.id.key, clock(g.at), strings.ToUpper(r.name()), clock(r.At)))
	g.hadTTL = true
	lk.noTTL = nil
}

// stampWrite judges a value that looks like a timestamp written to a lock
// key: the timestamp-lock recipe of SETNX's docs.
func (d *Doctor) stampWrite(lk *lock, r *Record, rw row) {
	v := r.arg(2)
	ms, ok := stampMS(v, r.At)
	if !ok {
		return
	}
	me := who(r)
	s := stamp{who: me, offset: ms - r.At, row: int64(d.seq)}
	if s.offset < -stampMinAge {
		d.find(lk, TimestampSkew, rw, []string{me}, fmt.Sprintf(
			"%s wrote the timestamp %s to %q at %s, already %v in the past by the server's clock: its clock runs behind",
			me, v, lk.id.key, clock(r.At), time.Duration(-s.offset)*time.Millisecond))
		return // one finding for one write; it is no reference for others
	}
	for _, o := range lk.stamps {
		if o.who == me {
			continue
		}
		if diff := s.offset - o.offset; diff >= stampSkew || diff <= -stampSkew {
			d.find(lk, TimestampSkew, rw, []string{o.who, me}, fmt.Sprintf(
				"%s's timestamps on %q run %v ahead of the server's clock and %s's %v: their clocks disagree by %v, so each judges the other's lock by a different time",
				me, lk.id.key, time.Duration(s.offset)*time.Millisecond, o.who, time.Duration(o.offset)*time.Millisecond, time.Duration(abs(diff))*time.Millisecond))
			break
		}
	}
	if len(lk.stamps) >= stampsPerKey {
		lk.stamps = lk.stamps[1:]
	}
	lk.stamps = append(lk.stamps, s)
}

// isStamp reports whether v reads as a Unix timestamp near now.
func isStamp(v string, now int64) bool {
	_, ok := stampMS(v, now)
	return ok
}

// stampMS reads v as a Unix time in seconds or milliseconds within a year
// of now (ms).
func stampMS(v string, now int64) (int64, bool) {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, false
	}
	for _, ms := range []int64{n * 1000, n} {
		if d := ms - now; d > -stampWindowMS && d < stampWindowMS {
			return ms, true
		}
	}
	return 0, false
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

// clock writes a server time as the report shows it.
func clock(ms int64) string {
	return time.UnixMilli(ms).UTC().Format("15:04:05.000")
}
