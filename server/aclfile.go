package server

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/minilock/minilock/resp"
	"github.com/minilock/minilock/server/internal/acl"
)

// ACL SAVE and ACL LOAD with aclfile, and the users of the config file's
// "user" lines (Config.Users), as acl.c reads and writes them.

var (
	errNoACLFile  = resp.NewError("This Redis instance is not configured to use an ACL file. You may want to specify users via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a Redis configuration file set) in order to store users in the Redis configuration.")
	errACLSave    = resp.NewError("There was an error trying to save the ACLs. Please check the server logs for more information")
	errUsersTwice = errors.New("Configuring Redis with users defined in redis.conf and at the same setting an ACL file path is invalid. This setup is very likely to lead to configuration errors and security holes, please define either an ACL file or declare users directly in your redis.conf, but not both.")
)

// ACL SAVE
func cmdACLSave(x *call, args [][]byte) error {
	file := x.s.param("aclfile")
	if file == "" {
		return errNoACLFile
	}
	var b strings.Builder
	for _, u := range x.s.sortedUsers() {
		b.WriteString("user " + u.Name + " " + u.Describe() + "\n")
	}
	tmp := fmt.Sprintf("%s.tmp-%d-%d", file, os.Getpid(), time.Now().UnixMilli())
	err := os.WriteFile(tmp, []byte(b.String()), 0o644)
	if err == nil {
		err = os.Rename(tmp, file)
	}
	if err != nil {
		_ = os.Remove(tmp)
		x.s.log.Warn("ACL SAVE", "err", err)
		return errACLSave
	}
	x.W.OK()
	return nil
}

// ACL LOAD
func cmdACLLoad(x *call, args [][]byte) error {
	file := x.s.param("aclfile")
	if file == "" {
		return errNoACLFile
	}
	if msg := x.s.loadACLFile(x, file); msg != "" {
		return resp.NewError(msg)
	}
	x.W.OK()
	return nil
}

// loadACLFile is ACLLoadFromFile: the users of file replace all users at
// once, or, on any error, none does; "" on success, else Redis's text.
// The clients of the replaced users are disconnected (x nil: at start-up,
// there are none).
func (s *Server) loadACLFile(x *call, file string) string {
	data, err := os.ReadFile(file)
	if err != nil {
		return fmt.Sprintf("Error loading ACLs, opening file '%s': %s", file, errnoText(err))
	}
	users := map[string]*acl.User{}
	var errs strings.Builder
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.Trim(line, " \t\r\n")
		if line == "" {
			continue
		}
		n := i + 1
		argv := strings.Split(line, " ")
		if argv[0] != "user" || len(argv) < 2 {
			fmt.Fprintf(&errs, "%s:%d should start with user keyword followed by the username. ", file, n)
			continue
		}
		if strings.ContainsAny(argv[1], " \t\n\v\f\r\x00") {
			fmt.Fprintf(&errs, "'%s:%d: username '%s' contains invalid characters. ", file, n, argv[1])
			continue
		}
		if users[argv[1]] != nil {
			fmt.Fprintf(&errs, "WARNING: Duplicate user '%s' found on line %d. ", argv[1], n)
			continue
		}
		u := acl.NewUser(aclTable, argv[1])
		users[argv[1]] = u
		merged, _, ok := acl.MergeSelectors(argv[2:])
		if !ok {
			fmt.Fprintf(&errs, "%s:%d: Unmatched parenthesis in selector definition.", file, n)
		}
		syntax := false
		for _, r := range merged {
			r = strings.Trim(r, "\t\r\n")
			if err := u.Set(r); err != nil {
				if err == acl.ErrUnknown {
					fmt.Fprintf(&errs, "%s:%d: Error in applying operation '%s': %s. ", file, n, r, err)
				} else if !syntax {
					fmt.Fprintf(&errs, "%s:%d: %s. ", file, n, err)
					syntax = true
				}
			}
		}
	}
	if errs.Len() > 0 {
		return errs.String() + "WARNING: ACL errors detected, no change to the previously active ACL rules was performed"
	}
	def := s.acl.def
	if nd := users["default"]; nd != nil {
		def.CopyFrom(nd)
	} else {
		def.CopyFrom(acl.NewDefault(aclTable))
	}
	users["default"] = def
	old := s.acl.users
	s.acl.users = users
	if x != nil {
		for name, u := range old {
			if name != "default" {
				s.killUserClients(x, u)
			}
		}
	}
	s.aclChanged()
	return ""
}

// errnoText is strerror's text of err's errno ("No such file or
// directory").
func errnoText(err error) string {
	var en syscall.Errno
	if errors.As(err, &en) {
		t := en.Error()
		return strings.ToUpper(t[:1]) + t[1:]
	}
	return err.Error()
}

// startupUsers is ACLLoadUsersAtStartup: the config file's users, then
// aclfile's.
func (s *Server) startupUsers() error {
	file := s.param("aclfile")
	if file != "" && len(s.cfg.Users) > 0 {
		return errUsersTwice
	}
	for _, line := range s.cfg.Users {
		if len(line) == 0 {
			continue
		}
		name := line[0]
		merged, bad, ok := acl.MergeSelectors(line[1:])
		if !ok {
			return fmt.Errorf("Unmatched parenthesis in acl selector starting at '%s'.", line[1+bad])
		}
		u := s.acl.users[name]
		if u == nil {
			u = acl.NewUser(aclTable, name)
			s.acl.users[name] = u
		} else {
			_ = u.Set("reset")
		}
		for _, r := range merged {
			if err := u.Set(r); err != nil {
				return fmt.Errorf("Error loading ACL rule '%s' for the user named '%s': %s", r, name, err)
			}
		}
	}
	if file != "" {
		if msg := s.loadACLFile(nil, file); msg != "" {
			return fmt.Errorf("Aborting Redis startup because of ACL errors: %s", msg)
		}
	}
	s.aclChanged()
	return nil
}
