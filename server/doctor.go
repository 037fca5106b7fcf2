package server

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/minilock/minilock/doctor"
	"github.com/minilock/minilock/internal/cmdspec"
	"github.com/minilock/minilock/keyspace"
	"github.com/minilock/minilock/resp"
)

// The lock doctor (docs/doctor.md): with Config.Doctor set, every command
// the server runs, a script's and a transaction's included, is handed to
// the doctor package, which flags unsafe lock recipes with their evidence.
// Off, it costs one nil check per command (run in dispatch.go).

// DoctorConfig turns the lock doctor on when set as Config.Doctor, and
// bounds what it keeps (doctor.Config: its zero value is the defaults).
type DoctorConfig = doctor.Config

// Doctor returns a Config with the lock doctor on. Under RunT, a lock
// hazard fails the test when it ends, with a report and a picture in the
// test's temporary directory:
//
//	s := server.RunT(t, server.Doctor())
//
// With another Config, set the field: cfg.Doctor = &server.DoctorConfig{}.
func Doctor() Config { return Config{Doctor: &DoctorConfig{}} }

// startDoctor makes the doctor Start was asked for, logging each finding.
func (s *Server) startDoctor() {
	if s.cfg.Doctor == nil {
		return
	}
	cfg := *s.cfg.Doctor
	user := cfg.OnFinding
	cfg.OnFinding = func(f doctor.Finding) {
		s.log.Warn("lock hazard", "hazard", string(f.Hazard), "key", f.Key, "db", f.DB, "clients", strings.Join(f.Clients, ","), "what", f.Summary)
		if user != nil {
			user(f)
		}
	}
	s.doctor = &serverDoctor{Doctor: doctor.New(cfg), start: time.Now()}
}

// serverDoctor is the doctor and the instant it started, from which
// records' real times run.
type serverDoctor struct {
	*doctor.Doctor
	start time.Time
}

// doctorSee hands the doctor one command that ran, with its reply. Owner
// goroutine only.
func (s *Server) doctorSee(x *call, cmd *command, args [][]byte, reply []byte) {
	var keys []int
	var refs []cmdspec.KeyRef
	if cmd.name == "set" {
		refs = setKeys(args)
	} else if cmd.spec != nil {
		refs, _ = cmd.spec.KeysBySpecs(args)
	}
	for _, k := range refs {
		keys = append(keys, k.Pos)
	}
	r := doctor.Record{
		At: x.Now, Mono: time.Since(s.doctor.start),
		Client: x.c.id, Name: x.c.name, Addr: x.c.Addr, DB: x.DB,
		Args: args, Keys: keys, Reply: reply,
		Inner: x.script != nil || x.inExec,
		Write: cmd.flags&fWrite != 0,
	}
	s.doctor.See(&r, s.doctorProbe)
}

// doctorProbe reads a key for the doctor without touching it.
func (s *Server) doctorProbe(db int, key string) doctor.KeyState {
	val, str, ok, deadline := s.ks.Peek(db, key, s.ks.Now(), doctor.MaxValue)
	return doctor.KeyState{Exists: ok, String: str, Value: val, Deadline: deadline}
}

// DoctorFindings returns the lock hazards the doctor has found so far, and
// how many more it found than it keeps; nil without Config.Doctor.
func (s *Server) DoctorFindings() (findings []doctor.Finding, dropped int) {
	if s.doctor == nil {
		return nil, 0
	}
	s.owner.Do(func() { findings, dropped = s.doctor.Findings(), s.doctor.Dropped() })
	return findings, dropped
}

// DoctorReport writes the doctor's findings as text (DOCTOR REPORT's
// reply).
func (s *Server) DoctorReport() string {
	var b bytes.Buffer
	findings, dropped := s.DoctorFindings()
	doctor.Report(&b, findings, dropped)
	return b.String()
}

// checkDoctor fails t if the doctor found a hazard: the report goes in the
// failure, and each finding's picture in the test's temporary directory
// when t has one (testing.T's TempDir; TB does not require it).
func (s *Server) checkDoctor(t TB) {
	findings, dropped := s.DoctorFindings()
	if len(findings) == 0 && dropped == 0 {
		return
	}
	var b bytes.Buffer
	doctor.Report(&b, findings, dropped)
	name := ""
	if n, ok := t.(interface{ Name() string }); ok {
		name = n.Name()
	}
	if td, ok := t.(interface{ TempDir() string }); ok {
		dir := td.TempDir()
		for i, f := range findings {
			path := filepath.Join(dir, fmt.Sprintf("doctor-%d-%s.svg", i+1, f.Hazard))
			if err := os.WriteFile(path, doctor.SVG(f, name), 0o644); err == nil {
				fmt.Fprintf(&b, "picture of %d: %s\n", i+1, path)
			}
		}
	}
	t.Errorf("%s", b.String())
}

// doctorCommand answers DOCTOR REPORT, RESET and HELP, minilock's own
// command, which exists only while the doctor is on (so a server without
// it answers DOCTOR as Redis does, an unknown command). It is not in the
// command table, whose rows are Redis's commands with Redis's metadata:
// COMMAND does not list it. It reports whether args was a DOCTOR command.
func (s *Server) doctorCommand(c *client, args [][]byte) bool {
	if s.doctor == nil || !equalFold(string(args[0]), "doctor") {
		return false
	}
	switch {
	case s.authRequired(c):
		c.W.Err(resp.ErrNoAuth)
	case c.multi != nil:
		c.W.Err(errNotInMulti)
	case len(args) != 2:
		c.W.Err(resp.ErrWrongArgs("doctor"))
	case equalFold(string(args[1]), "report"):
		var b bytes.Buffer
		doctor.Report(&b, s.doctor.Findings(), s.doctor.Dropped())
		c.W.Bulk(b.Bytes())
	case equalFold(string(args[1]), "reset"):
		s.doctor.Reset()
		c.W.OK()
	case equalFold(string(args[1]), "help"):
		writeHelp(&call{s: s, c: c, Ctx: keyspace.Ctx{W: &c.W}}, "DOCTOR",
			"REPORT",
			"    The lock hazards the doctor found, each with its evidence (docs/doctor.md).",
			"RESET",
			"    Forget every finding and what the doctor knows of the locks.")
	default:
		c.W.Err(resp.ErrUnknownSubcommand(args[0], args[1]))
	}
	return true
}
