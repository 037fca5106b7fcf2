package server

import (
	"crypto/rand"
	"encoding/hex"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/minilock/minilock/internal/cmdspec"
	"github.com/minilock/minilock/internal/redisstr"
	"github.com/minilock/minilock/resp"
	"github.com/minilock/minilock/server/internal/acl"
)

// ACL users (acl.c): the users, the ACL LOG, and the checks dispatch,
// EXEC and scripts make. The rules themselves are server/internal/acl.
// Owner goroutine only, but for needAuth, which a new connection reads.

// aclTable is every Redis 7.0.15 command as the ACL rules know it: the
// command table's, with their subcommands (minilock serves every command
// Redis does, so the categories count what Redis counts when ACL LIST
// renders rules).
var aclTable *acl.Table

// buildACLTable makes aclTable from the command specs and gives every row
// of the command table its ACL entry (commands.go's init).
func buildACLTable() {
	var cmds []*acl.Command
	for _, sp := range commandSpecs {
		c := &acl.Command{Name: sp.Name, Cats: sp.ACL, NoAuth: sp.Flags&cmdspec.NoAuth != 0}
		for _, sub := range sp.Subcommands {
			c.Subs = append(c.Subs, &acl.Command{Name: sub.Name, Cats: sub.ACL, NoAuth: sub.Flags&cmdspec.NoAuth != 0})
		}
		cmds = append(cmds, c)
	}
	aclTable = acl.NewTable(cmds)
	for _, cmd := range commandTable {
		cmd.acl = aclTable.Lookup(cmd.name)
		setACLFinders(cmd)
		for _, sub := range cmd.subs {
			sub.acl = aclTable.Lookup(sub.name)
			setACLFinders(sub)
		}
	}
}

// aclState is the users and the ACL LOG.
type aclState struct {
	users map[string]*acl.User
	def   *acl.User
	log   []*aclLogEntry // newest first
	// keys is the buffer checks find a call's keys in.
	keys []cmdspec.KeyRef
	// needAuth is Redis's authRequired for a connection that has not
	// authenticated: the default user has a password or is off.
	needAuth atomic.Bool
}

func (s *Server) initACL() {
	a := &s.acl
	a.def = acl.NewDefault(aclTable)
	a.users = map[string]*acl.User{"default": a.def}
	s.setRequirePass(s.password())
}

// setRequirePass is ACLUpdateDefaultUserPassword: requirepass is the
// default user's one password, "" none (nopass).
func (s *Server) setRequirePass(pw string) {
	s.ops.live.password.Store(&pw)
	u := s.acl.def
	_ = u.Set("resetpass")
	if pw != "" {
		_ = u.Set(">" + pw)
	} else {
		_ = u.Set("nopass")
	}
	s.aclChanged()
}

// aclChanged recomputes what connections read of the default user.
func (s *Server) aclChanged() {
	d := s.acl.def
	s.acl.needAuth.Store(d.Flags&acl.FlagNoPass == 0 || d.Flags&acl.FlagOff != 0)
}

// defaultNoPass reports whether the default user needs no password (a new
// connection starts authenticated; protected mode applies).
func (s *Server) defaultNoPass() bool { return !s.acl.needAuth.Load() }

// authRequired is server.c:authRequired.
func (s *Server) authRequired(c *client) bool { return !c.authed && s.acl.needAuth.Load() }

// setACLFinders tells cmd's ACL entry how to find the keys and channels
// of a call.
func setACLFinders(cmd *command) {
	if cmd.spec.HasKeys() {
		cmd.acl.KeysOf = func(dst []cmdspec.KeyRef, argv [][]byte) []cmdspec.KeyRef { return appendKeyRefs(dst, cmd, argv) }
	}
	switch name := cmd.name; name {
	case "subscribe", "ssubscribe", "psubscribe", "publish", "spublish":
		cmd.acl.ChannelsOf = func(argv [][]byte) []acl.Channel { return channelRefs(name, argv) }
	}
}

// commandKeyRefs are the keys cmd names in args, by its key specs (SET's
// by setGetKeys, as getKeysFromCommandWithSpecs does).
func commandKeyRefs(cmd *command, args [][]byte) []cmdspec.KeyRef {
	return appendKeyRefs(nil, cmd, args)
}

func appendKeyRefs(dst []cmdspec.KeyRef, cmd *command, args [][]byte) []cmdspec.KeyRef {
	if cmd.name == "set" {
		return append(dst, setKey(args))
	}
	keys, _ := cmd.spec.AppendKeysBySpecs(dst, args)
	return keys
}

// channelRefs is db.c:getChannelsFromCommand for the commands whose
// channels ACL checks (the unsubscribes never are).
func channelRefs(name string, args [][]byte) []acl.Channel {
	stop := len(args)
	if name == "publish" || name == "spublish" {
		stop = min(2, len(args))
	}
	out := make([]acl.Channel, 0, stop-1)
	for i := 1; i < stop; i++ {
		out = append(out, acl.Channel{Pos: i, Pattern: name == "psubscribe", Subscribe: true})
	}
	return out
}

// ACL LOG contexts.
const (
	aclCtxToplevel = "toplevel"
	aclCtxMulti    = "multi"
	aclCtxLua      = "lua"
)

// aclCheck checks cmd for c's user; on a denial it logs it and returns the
// result and the argument position it is about.
func (s *Server) aclCheck(c *client, x *call, u *acl.User, cmd *command, args [][]byte, ctx string) acl.Result {
	a := acl.Args{Argv: args, Keys: s.acl.keys}
	r, pos := u.Check(cmd.acl, &a)
	s.acl.keys = a.Keys[:0]
	if r != acl.OK {
		if x == nil {
			// A command refused at the top level: the log's client-info
			// is its client's, in its database.
			x = &c.call
			*x = call{s: s, c: c}
			x.DB = c.db
		}
		obj := cmd.name
		if r != acl.DeniedCmd {
			obj = string(args[pos])
		}
		s.aclLog(x, r, ctx, obj, u.Name)
	}
	return r
}

var (
	errNoPermKey     = &resp.Error{Code: "NOPERM", Msg: "this user has no permissions to access one of the keys used as arguments"}
	errNoPermChannel = &resp.Error{Code: "NOPERM", Msg: "this user has no permissions to access one of the channels used as arguments"}
)

// aclRefused is processCommand's ACL check: whether c's user may not run
// cmd, with the error in *err.
func (s *Server) aclRefused(c *client, cmd *command, args [][]byte, err *error) bool {
	*err = s.aclRefuse(c, cmd, args)
	return *err != nil
}

// aclRefusedWhileBusy is the check of the commands a client may send while
// a script holds the owner (SCRIPT KILL, SHUTDOWN ...), on the client's own
// goroutine: nothing changes users then (ACL and CONFIG cannot run in a
// script), and it neither uses the owner's buffer nor writes the ACL LOG,
// which the script's own denials may be writing.
func aclRefusedWhileBusy(c *client, cmd *command, args [][]byte, err *error) bool {
	a := acl.Args{Argv: args}
	r, _ := c.user.Check(cmd.acl, &a)
	*err = aclError(r, cmd)
	return *err != nil
}

func aclError(r acl.Result, cmd *command) error {
	switch r {
	case acl.OK:
		return nil
	case acl.DeniedCmd:
		return &resp.Error{Code: "NOPERM", Msg: "this user has no permissions to run the '" + cmd.name + "' command"}
	case acl.DeniedKey:
		return errNoPermKey
	default:
		return errNoPermChannel
	}
}

func (s *Server) aclRefuse(c *client, cmd *command, args [][]byte) error {
	ctx := aclCtxToplevel
	if c.multi != nil {
		ctx = aclCtxMulti
	}
	return aclError(s.aclCheck(c, nil, c.user, cmd, args, ctx), cmd)
}

// aclRefuseInExec is execCommand's second check of each queued command.
func (s *Server) aclRefuseInExec(x *call, cmd *command, args [][]byte) error {
	why := ""
	switch s.aclCheck(x.c, x, x.c.user, cmd, args, aclCtxMulti) {
	case acl.OK:
		return nil
	case acl.DeniedCmd:
		why = "no permission to execute the command or subcommand"
	case acl.DeniedKey:
		why = "no permission to touch the specified keys"
	default:
		why = "no permission to access one of the channels used as arguments"
	}
	return &resp.Error{Code: "NOPERM", Msg: "ACLs rules changed between the moment the transaction was accumulated and the EXEC call. This command is no longer allowed for the following reason: " + why}
}

// aclRefusedInScript is script.c:scriptVerifyACL.
func (s *Server) aclRefusedInScript(x *call, db int, cmd *command, args [][]byte, err *error) bool {
	x.DB = db // the database the script has selected, for the log's client-info
	*err = s.aclRefuseInScript(x, cmd, args)
	return *err != nil
}

func (s *Server) aclRefuseInScript(x *call, cmd *command, args [][]byte) error {
	var why string
	switch s.aclCheck(x.c, x, x.c.user, cmd, args, aclCtxLua) {
	case acl.OK:
		return nil
	case acl.DeniedCmd:
		why = "can't run this command or subcommand"
	case acl.DeniedKey:
		why = "can't access at least one of the keys mentioned in the command arguments"
	default:
		why = "can't publish to the channel mentioned in the command"
	}
	return resp.NewError("The user executing the script " + why)
}

// aclLogEntry is one ACL LOG entry.
type aclLogEntry struct {
	count        int64
	reason, ctx  string
	object, user string
	at           time.Time
	clientInfo   string
}

var aclReasons = map[acl.Result]string{acl.DeniedCmd: "command", acl.DeniedKey: "key", acl.DeniedChannel: "channel", acl.DeniedAuth: "auth"}

// aclLog is addACLLogEntry: an entry like one of the last ten within a
// minute counts up and moves to the front instead.
func (s *Server) aclLog(x *call, r acl.Result, ctx, object, user string) {
	now := time.Now()
	info := s.clientLine(x.c, x)
	l := s.acl.log
	for i := 0; i < 10 && i < len(l); i++ {
		e := l[i]
		d := now.Sub(e.at)
		if d < 0 {
			d = -d
		}
		if e.reason == aclReasons[r] && e.ctx == ctx && d <= time.Minute && e.object == object && e.user == user {
			copy(l[1:i+1], l[:i])
			l[0] = e
			e.count++
			e.at, e.clientInfo = now, info
			return
		}
	}
	e := &aclLogEntry{count: 1, reason: aclReasons[r], ctx: ctx, object: object, user: user, at: now, clientInfo: info}
	l = append(l, nil)
	copy(l[1:], l)
	l[0] = e
	max, _ := strconv.Atoi(s.param("acllog-max-len"))
	if len(l) > max {
		clear(l[max:])
		l = l[:max]
	}
	s.acl.log = l
}

// login is ACLAuthenticateUser: c becomes user's if pass is one of its
// passwords; a failure is logged (with what the client typed as the
// command's name, as Redis logs argv[0]).
func (s *Server) login(x *call, name, pass, argv0 []byte) bool {
	u := s.acl.users[string(name)]
	if u != nil && u.CheckPassword(pass) {
		x.c.user = u
		x.c.setAuthed(true)
		return true
	}
	ctx := aclCtxToplevel
	if x.c.multi != nil {
		ctx = aclCtxMulti
	}
	s.aclLog(x, acl.DeniedAuth, ctx, string(argv0), string(name))
	return false
}

// killUserClients disconnects the clients authenticated as u
// (ACLFreeUserAndKillClients): the one running this command once its reply
// is out.
func (s *Server) killUserClients(x *call, u *acl.User) {
	for _, c := range s.clients.snapshot() {
		if c.user != u {
			continue
		}
		c.user, c.authed = s.acl.def, false
		s.closeClient(x, c)
	}
}

// closeClient closes c as CLIENT KILL does.
func (s *Server) closeClient(x *call, c *client) {
	if c == x.c {
		c.CloseNow = true
		return
	}
	c.Killed.Store(true)
	c.Guard.Close()
}

// killPubsubIfNeeded is ACLKillPubsubClientsIfNeeded: when next takes a
// channel rule of u away, u's subscribers holding a subscription next no
// longer allows are disconnected.
func (s *Server) killPubsubIfNeeded(x *call, u, next *acl.User) {
	loses, rules := u.LosesChannels(next)
	if !loses {
		return
	}
	for _, c := range s.clients.snapshot() {
		if c.user != u || c.pubsub.count() == 0 {
			continue
		}
		kill := false
		for p := range c.pubsub.patterns {
			kill = kill || !acl.ChannelInRules(rules, p, true)
		}
		for ch := range c.pubsub.channels {
			kill = kill || !acl.ChannelInRules(rules, ch, false)
		}
		for ch := range c.pubsub.shard {
			kill = kill || !acl.ChannelInRules(rules, ch, false)
		}
		if kill {
			s.closeClient(x, c)
		}
	}
}

// setUser is ACLStringSetUser: rules applied to a copy of the user (or a
// new one), which replaces it only when every rule applied.
func (s *Server) setUser(x *call, name string, rules []string) error {
	merged, bad, ok := acl.MergeSelectors(rules)
	if !ok {
		return resp.NewError("Unmatched parenthesis in acl selector starting at '" + rules[bad] + "'.")
	}
	old := s.acl.users[name]
	var tmp *acl.User
	if old != nil {
		tmp = old.Clone()
	} else {
		tmp = acl.NewUser(aclTable, name)
	}
	for _, r := range merged {
		if err := tmp.Set(r); err != nil {
			return resp.NewError("Error in ACL SETUSER modifier '" + redisstr.CString([]byte(r)) + "': " + err.Error())
		}
	}
	if old != nil {
		if x != nil {
			s.killPubsubIfNeeded(x, old, tmp)
		}
		old.CopyFrom(tmp)
	} else {
		s.acl.users[name] = tmp
	}
	s.aclChanged()
	return nil
}

// ACL SETUSER username [rule ...]
func cmdACLSetUser(x *call, args [][]byte) error {
	name := string(args[2])
	if strings.ContainsAny(name, " \t\n\v\f\r\x00") {
		return resp.NewError("Usernames can't contain spaces or null characters")
	}
	rules := make([]string, len(args)-3)
	for i, a := range args[3:] {
		rules[i] = string(a)
	}
	if err := x.s.setUser(x, name, rules); err != nil {
		return err
	}
	x.W.OK()
	return nil
}

// ACL GETUSER username
func cmdACLGetUser(x *call, args [][]byte) error {
	u := x.s.acl.users[string(args[2])]
	if u == nil {
		x.W.Null()
		return nil
	}
	w := x.W
	w.Map(6)
	w.BulkString("flags")
	flags := u.FlagNames()
	w.Set(len(flags))
	for _, f := range flags {
		w.BulkString(f)
	}
	w.BulkString("passwords")
	w.Array(len(u.Passwords))
	for _, p := range u.Passwords {
		w.BulkString(p)
	}
	writeSelector(w, u.Root())
	w.BulkString("selectors")
	w.Array(len(u.Selectors) - 1)
	for _, sel := range u.Selectors[1:] {
		w.Map(3)
		writeSelector(w, sel)
	}
	return nil
}

// writeSelector is aclAddReplySelectorDescription.
func writeSelector(w *resp.Writer, sel *acl.Selector) {
	w.BulkString("commands")
	w.BulkString(sel.CommandRules())
	w.BulkString("keys")
	w.BulkString(sel.KeysRule())
	w.BulkString("channels")
	w.BulkString(sel.ChannelsRule())
}

// ACL DELUSER username [username ...]
func cmdACLDelUser(x *call, args [][]byte) error {
	for _, a := range args[2:] {
		if string(a) == "default" {
			return resp.NewError("The 'default' user cannot be removed")
		}
	}
	n := 0
	for _, a := range args[2:] {
		u := x.s.acl.users[string(a)]
		if u == nil {
			continue
		}
		delete(x.s.acl.users, string(a))
		x.s.killUserClients(x, u)
		n++
	}
	x.W.Int(int64(n))
	return nil
}

// sortedUsers are the users in name order (Redis's rax order).
func (s *Server) sortedUsers() []*acl.User {
	out := make([]*acl.User, 0, len(s.acl.users))
	for _, u := range s.acl.users {
		out = append(out, u)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// ACL LIST, ACL USERS
func cmdACLList(x *call, args [][]byte) error {
	users := x.s.sortedUsers()
	x.W.Array(len(users))
	for _, u := range users {
		if redisstr.Option(args[1], "users") {
			x.W.BulkString(u.Name)
		} else {
			x.W.BulkString("user " + u.Name + " " + u.Describe())
		}
	}
	return nil
}

// ACL WHOAMI
func cmdACLWhoAmI(x *call, args [][]byte) error {
	x.W.BulkString(x.c.user.Name)
	return nil
}

// ACL CAT [category]. Redis lists a category's commands in its command
// dict's seeded order; here they come in name order.
func cmdACLCat(x *call, args [][]byte) error {
	if len(args) == 2 {
		x.W.Array(len(cmdspec.ACLNames))
		for _, n := range cmdspec.ACLNames {
			x.W.BulkString(n.Name)
		}
		return nil
	}
	if len(args) != 3 {
		return errACLSubSyntax(args)
	}
	cat := acl.Category(string(args[2]))
	if cat == 0 {
		name := redisstr.CString(args[2])
		if len(name) > 128 {
			name = name[:128]
		}
		return resp.NewError("Unknown category '" + name + "'")
	}
	var names []string
	aclTable.Walk(func(c *acl.Command) {
		if c.Cats&cat != 0 {
			names = append(names, c.Name)
		}
	})
	x.W.Array(len(names))
	for _, n := range names {
		x.W.BulkString(n)
	}
	return nil
}

func errACLSubSyntax(args [][]byte) error {
	return resp.NewError("unknown subcommand or wrong number of arguments for '" + redisstr.CString(args[1]) + "'. Try ACL HELP.")
}

// ACL GENPASS [bits]
func cmdACLGenPass(x *call, args [][]byte) error {
	bits := int64(256)
	if len(args) > 3 {
		return errACLSubSyntax(args)
	}
	if len(args) == 3 {
		n, ok := redisstr.ParseInt(args[2])
		if !ok {
			return resp.ErrNotInteger
		}
		bits = n
	}
	if bits <= 0 || bits > 4096 {
		return resp.NewError("ACL GENPASS argument must be the number of bits for the output password, a positive number up to 4096")
	}
	chars := (bits + 3) / 4
	buf := make([]byte, (chars+1)/2)
	_, _ = rand.Read(buf)
	x.W.BulkString(hex.EncodeToString(buf)[:chars])
	return nil
}

// ACL DRYRUN username command [arg ...]
func cmdACLDryRun(x *call, args [][]byte) error {
	u := x.s.acl.users[string(args[2])]
	if u == nil {
		return resp.NewError("User '" + redisstr.CString(args[2]) + "' not found")
	}
	argv := args[3:]
	cmd := find(commands, argv[0])
	if cmd != nil && cmd.subs != nil && len(argv) >= 2 {
		cmd = find(cmd.subIndex, argv[1])
	}
	if cmd == nil {
		return resp.NewError("Command '" + redisstr.CString(argv[0]) + "' not found")
	}
	if !arityOK(cmd, len(argv)) {
		return resp.NewError("wrong number of arguments for '" + cmd.name + "' command")
	}
	a := acl.Args{Argv: argv}
	r, pos := u.Check(cmd.acl, &a)
	switch r {
	case acl.OK:
		x.W.OK()
	case acl.DeniedCmd:
		x.W.BulkString("This user has no permissions to run the '" + cmd.name + "' command")
	case acl.DeniedKey:
		x.W.BulkString("This user has no permissions to access the '" + string(argv[pos]) + "' key")
	default:
		x.W.BulkString("This user has no permissions to access the '" + string(argv[pos]) + "' channel")
	}
	return nil
}

// ACL LOG [count | RESET]
func cmdACLLog(x *call, args [][]byte) error {
	if len(args) > 3 {
		return errACLSubSyntax(args)
	}
	count := int64(10)
	if len(args) == 3 {
		if redisstr.Option(args[2], "reset") {
			x.s.acl.log = nil
			x.W.OK()
			return nil
		}
		n, ok := redisstr.ParseInt(args[2])
		if !ok {
			return resp.ErrNotInteger
		}
		count = max(n, 0)
	}
	l := x.s.acl.log
	count = min(count, int64(len(l)))
	x.W.Array(int(count))
	now := time.Now()
	for _, e := range l[:count] {
		x.W.Map(7)
		x.W.BulkString("count")
		x.W.Int(e.count)
		x.W.BulkString("reason")
		x.W.BulkString(e.reason)
		x.W.BulkString("context")
		x.W.BulkString(e.ctx)
		x.W.BulkString("object")
		x.W.BulkString(e.object)
		x.W.BulkString("username")
		x.W.BulkString(e.user)
		x.W.BulkString("age-seconds")
		x.W.Double(float64(now.Sub(e.at).Milliseconds()) / 1000)
		x.W.BulkString("client-info")
		x.W.BulkString(e.clientInfo)
	}
	return nil
}

// ACL HELP
func cmdACLHelp(x *call, args [][]byte) error {
	return writeHelp(x, "ACL",
		"CAT [<category>]",
		"    List all commands that belong to <category>, or all command categories",
		"    when no category is specified.",
		"DELUSER <username> [<username> ...]",
		"    Delete a list of users.",
		"DRYRUN <username> <command> [<arg> ...]",
		"    Returns whether the user can execute the given command without executing the command.",
		"GETUSER <username>",
		"    Get the user's details.",
		"GENPASS [<bits>]",
		"    Generate a secure 256-bit user password. The optional `bits` argument can",
		"    be used to specify a different size.",
		"LIST",
		"    Show users details in config file format.",
		"LOAD",
		"    Reload users from the ACL file.",
		"LOG [<count> | RESET]",
		"    Show the ACL log entries.",
		"SAVE",
		"    Save the current config to the ACL file.",
		"SETUSER <username> <attribute> [<attribute> ...]",
		"    Create or modify a user with the specified attributes.",
		"USERS",
		"    List all the registered usernames.",
		"WHOAMI",
		"    Return the current connection username.",
	)
}
