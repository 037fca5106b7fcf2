package server_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/minilock/minilock/internal/redistest"
	"github.com/minilock/minilock/server"
)

// doctorT is a test the doctor may fail: it records Errorf and runs its
// cleanups when told, and has a temporary directory and a name, as a
// *testing.T has.
type doctorT struct {
	*testing.T
	errs     []string
	cleanups []func()
	dir      string
}

func (d *doctorT) Errorf(format string, args ...any) {
	d.errs = append(d.errs, fmt.Sprintf(format, args...))
}
func (d *doctorT) Cleanup(f func()) { d.cleanups = append(d.cleanups, f) }
func (d *doctorT) TempDir() string  { return d.dir }
func (d *doctorT) Name() string     { return "TestApp" }

// end runs the cleanups as the testing package does: last registered first.
func (d *doctorT) end() {
	for i := len(d.cleanups) - 1; i >= 0; i-- {
		d.cleanups[i]()
	}
}

// Under RunT, a lock hazard fails the test at its end with the report,
// and each finding's picture is written to the test's temporary directory.
func TestDoctorFailsTheTest(t *testing.T) {
	dt := &doctorT{T: t, dir: t.TempDir()}
	s := server.RunT(dt, server.Doctor())
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr(), ClientName: "worker-1"})
	defer rdb.Close()
	if !rdb.SetNX(ctx, "lock", "1", 10*time.Second).Val() {
		t.Fatal("SETNX refused")
	}
	rdb.Del(ctx, "lock")
	if len(dt.errs) != 0 {
		t.Fatalf("failed before the test ended: %q", dt.errs)
	}
	dt.end()
	if len(dt.errs) != 1 {
		t.Fatalf("errors at the end: %q, want one report", dt.errs)
	}
	report := dt.errs[0]
	for _, want := range []string{
		"minilock doctor: 1 lock hazard",
		"1. plain-del: lock released by a plain DEL",
		`worker-1 released "lock" with a plain DEL`,
		"SET lock 1 ex 10 nx",
		"DEL lock",
		"fix: release with a compare-and-delete script on a random token",
		"picture of 1: " + filepath.Join(dt.dir, "doctor-1-plain-del.svg"),
	} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q:\n%s", want, report)
		}
	}
	pic, err := os.ReadFile(filepath.Join(dt.dir, "doctor-1-plain-del.svg"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(pic), "TestApp: plain-del") || !strings.Contains(string(pic), ">client worker-1<") {
		t.Errorf("picture lacks the test's name or the client's lane:\n%s", pic)
	}
}

// A safe lock under the doctor passes; so does anything without it.
func TestDoctorSilentOnSafeLock(t *testing.T) {
	dt := &doctorT{T: t, dir: t.TempDir()}
	s := server.RunT(dt, server.Doctor())
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr()})
	defer rdb.Close()
	rdb.SetNX(ctx, "lock", "tok-a", 10*time.Second)
	rdb.Eval(ctx, `if redis.call("get",KEYS[1]) == ARGV[1] then return redis.call("del",KEYS[1]) else return 0 end`, []string{"lock"}, "tok-a")
	dt.end()
	if len(dt.errs) != 0 {
		t.Errorf("doctor failed a safe lock: %q", dt.errs)
	}
}

// The doctor sees inside scripts and transactions: a DEL a script runs
// without comparing first is a plain DEL, and so is one inside MULTI.
func TestDoctorSeesScriptsAndTransactions(t *testing.T) {
	srv, err := server.Start(server.Config{Doctor: &server.DoctorConfig{}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr(), ClientName: "app"})
	defer rdb.Close()
	rdb.SetNX(ctx, "a", "tok", 10*time.Second)
	rdb.Eval(ctx, `return redis.call('del', KEYS[1])`, []string{"a"})
	rdb.SetNX(ctx, "b", "tok", 10*time.Second)
	rdb.TxPipelined(ctx, func(p redis.Pipeliner) error { p.Del(ctx, "b"); return nil })
	// A lock taken inside a script, with no TTL, then refused to another.
	rdb.Eval(ctx, `return redis.call('set', KEYS[1], ARGV[1], 'NX')`, []string{"c"}, "tok")
	other := redis.NewClient(&redis.Options{Addr: srv.Addr(), ClientName: "other"})
	defer other.Close()
	other.SetNX(ctx, "c", "x", time.Second)
	findings, _ := srv.DoctorFindings()
	var got []string
	for _, f := range findings {
		got = append(got, string(f.Hazard)+" "+f.Key)
	}
	want := []string{"plain-del a", "plain-del b", "no-ttl c"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("found %q, want %q\n%s", got, want, srv.DoctorReport())
	}
}

// DOCTOR REPORT and DOCTOR RESET, minilock's own command, answer only with
// the doctor on; without it DOCTOR is an unknown command, as in Redis.
func TestDoctorCommand(t *testing.T) {
	srv, err := server.Start(server.Config{Doctor: &server.DoctorConfig{}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer rdb.Close()
	if got := rdb.Do(ctx, "DOCTOR", "REPORT").Val(); got != "minilock doctor: no lock hazards\n" {
		t.Errorf("DOCTOR REPORT = %q", got)
	}
	rdb.SetNX(ctx, "lock", "1", time.Second)
	rdb.Del(ctx, "lock")
	if got, _ := rdb.Do(ctx, "doctor", "report").Text(); !strings.Contains(got, "plain-del") {
		t.Errorf("DOCTOR REPORT after a plain DEL = %q", got)
	}
	if got := rdb.Do(ctx, "DOCTOR", "RESET").Val(); got != "OK" {
		t.Errorf("DOCTOR RESET = %v", got)
	}
	if got := rdb.Do(ctx, "DOCTOR", "REPORT").Val(); got != "minilock doctor: no lock hazards\n" {
		t.Errorf("DOCTOR REPORT after RESET = %q", got)
	}
	if got, _ := rdb.Do(ctx, "DOCTOR", "HELP").StringSlice(); len(got) != 7 || got[0] != "DOCTOR <subcommand> [<arg> [value] [opt] ...]. Subcommands are:" || got[1] != "REPORT" {
		t.Errorf("DOCTOR HELP = %q", got)
	}
	for _, tt := range []struct {
		args []any
		want string
	}{
		{[]any{"DOCTOR"}, "ERR wrong number of arguments for 'doctor' command"},
		{[]any{"DOCTOR", "NOPE"}, "ERR unknown subcommand 'NOPE'. Try DOCTOR HELP."},
	} {
		if err := rdb.Do(ctx, tt.args...).Err(); err == nil || err.Error() != tt.want {
			t.Errorf("%v: %v, want %s", tt.args, err, tt.want)
		}
	}

	// Off: the reply is redis-server's, byte for byte.
	off := server.RunT(t)
	rs := redistest.Start(t)
	for _, addr := range []string{off.Addr(), rs.Addr} {
		c := redis.NewClient(&redis.Options{Addr: addr})
		err := c.Do(ctx, "DOCTOR", "REPORT").Err()
		c.Close()
		if want := "ERR unknown command 'DOCTOR', with args beginning with: 'REPORT' "; err == nil || err.Error() != want {
			t.Errorf("%s: DOCTOR REPORT: %v, want %s", addr, err, want)
		}
	}
}
