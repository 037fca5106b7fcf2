package server

import (
	"errors"
	"strings"
)

// The string parameters whose value config.c validates before it takes it
// (isValidProcTitleTemplate, isValidAnnouncedHostname).

var (
	errProcTitle     = errors.New("template format is invalid or contains unknown variables")
	errHostnameLong  = errors.New("Hostnames must be less than 256 characters")
	errHostnameChars = errors.New("Hostnames may only contain alphanumeric characters, hyphens or dots")
)

// sdsParams are the string parameters Redis keeps as binary-safe sds
// strings (createSDSConfig); the others end at a NUL, and so do the values
// of bind and notify-keyspace-events, which are parsed.
var sdsParams = map[string]bool{"masterauth": true, "requirepass": true, "bind": true, "notify-keyspace-events": true}

// checkString validates a string parameter's value v (read as C reads it,
// up to a NUL).
func checkString(name, v string) error {
	v = cString(v)
	switch name {
	case "proc-title-template":
		if !validProcTitle(v) {
			return errProcTitle
		}
	case "cluster-announce-hostname":
		if len(v) >= netHostStrLen {
			return errHostnameLong
		}
		for i := 0; i < len(v); i++ {
			c := v[i]
			if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.') {
				return errHostnameChars
			}
		}
	}
	return nil
}

// procTitleVars are the variables a process title template may name, with
// what they expand to when Redis validates one (an empty title, no cluster
// or sentinel mode, no unix socket).
var procTitleVars = map[string]string{
	"title": "", "listen-addr": "*:6379", "server-mode": "", "config-file": "-",
	"port": "6379", "tls-port": "0", "unixsocket": "",
}

// validProcTitle is validateProcTitleTemplate: the template expands
// (sds.c:sdstemplate: "{name}" is a variable, "{{" a literal brace, an
// unknown name or an unclosed brace fails) to something besides spaces.
func validProcTitle(t string) bool {
	var out strings.Builder
	for t != "" {
		i := strings.IndexByte(t, '{')
		if i < 0 {
			out.WriteString(t)
			break
		}
		out.WriteString(t[:i])
		t = t[i+1:]
		if t == "" {
			return false
		}
		if t[0] == '{' {
			out.WriteByte('{')
			t = t[1:]
			continue
		}
		j := strings.IndexByte(t, '}')
		if j < 0 {
			return false
		}
		v, ok := procTitleVars[t[:j]]
		if !ok {
			return false
		}
		out.WriteString(v)
		t = t[j+1:]
	}
	return strings.Trim(out.String(), " ") != ""
}
