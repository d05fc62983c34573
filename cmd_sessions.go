package main

// Named sessions, as tmux's: each session is a tickmux server of its own, on the socket NAME.sock
// in the directory of the socket tickmux would use (--socket, $TICKMUX_SOCKET, else the default,
// whose session is named default). `tickmux new -s NAME` starts one and shows it, `tickmux attach
// -t NAME` shows it again, `tickmux kill-server -t NAME` ends it, and `tickmux sessions` (tmux's
// list-sessions) lists every socket of that directory a live server answers on.

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"tickmux/agent"
	"tickmux/internal/sockpath"
)

// sessionName is what a session may be called: a file name of letters, digits, '.', '_' and
// '-', not starting with a dot, at most 64 bytes.
var sessionName = regexp.MustCompile(`^[A-Za-z0-9_-][A-Za-z0-9._-]{0,63}$`)

// sessionSocket is the socket of the session name: name.sock in the directory of the socket
// that --socket (socketFlag), $TICKMUX_SOCKET or the default names.
func sessionSocket(socketFlag, name string) (string, error) {
	if !sessionName.MatchString(name) {
		return "", fmt.Errorf("%q cannot name a session: use letters, digits, '.', '_' and '-' (at most 64, not starting with a dot)", name)
	}
	return filepath.Join(filepath.Dir(agent.SocketPath(socketFlag)), name+".sock"), nil
}

// runNew is `tickmux new [-d] [-s NAME] [-- CMD]`: a new session, its server started on its own
// socket, shown in this terminal unless -d. A session of that name that runs already is not
// shown instead, as tmux's duplicate session: attach -t is for that.
func runNew(args []string, std stdio) int {
	f, err := parseTUIFlags(args, std, "tickmux new")
	if err != nil {
		return 2
	}
	if len(f.argv) > 0 && !f.dashdash {
		fmt.Fprintf(std.err, "tickmux new: a program goes after --: tickmux new -s NAME -- %s\n", shellJoin(f.argv))
		return 2
	}
	if f.session == "" { // as tmux: the first number no session has
		for i := 0; ; i++ {
			if sock, _ := sessionSocket(f.socket, strconv.Itoa(i)); !sockpath.Running(sock) {
				f.session, f.socket = strconv.Itoa(i), sock
				break
			}
		}
	}
	sock := agent.SocketPath(f.socket)
	if sockpath.Running(sock) {
		fmt.Fprintf(std.err, "tickmux new: a session named %s runs already: tickmux attach -t %s shows it\n", f.session, f.session)
		return 1
	}
	code := startAndAttach("tickmux new", f, sock, false, std)
	if code == 0 && f.detached {
		fmt.Fprintf(std.out, "session %s started: tickmux attach -t %s shows it\n", f.session, f.session)
	}
	return code
}

// sessionInfo is one running session as `tickmux sessions` shows it.
type sessionInfo struct {
	Name    string `json:"name"`
	Socket  string `json:"socket"`
	Panes   int    `json:"panes"`
	Views   *int   `json:"views,omitempty"`
	Cards   int    `json:"cards"`   // approval cards waiting
	Created string `json:"created"` // when its server made its socket (RFC 3339)
	Current bool   `json:"current"` // the session plain tickmux, attach and the verbs use here
	Error   string `json:"error,omitempty"`
}

// runSessions is `tickmux sessions` (and list-sessions): every session whose server answers in
// the socket directory, by name, with its panes, the views attached, the cards waiting and when
// it started. Exit 1 when none runs, as tmux ls with no server.
func runSessions(args []string, std stdio) int {
	fs := flag.NewFlagSet("sessions", flag.ContinueOnError)
	fs.SetOutput(std.err)
	asJSON := fs.Bool("json", false, "print the sessions as a JSON array")
	socket := fs.String("socket", "", "a control socket `PATH`: the sessions listed are those in its directory (default $TICKMUX_SOCKET, else $XDG_RUNTIME_DIR/tickmux/default.sock)")
	fs.Usage = func() {
		usageHead(std.err, "sessions")
		printFlags(std.err, fs)
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return 2
	}
	current := agent.SocketPath(*socket)
	dir := filepath.Dir(current)
	list, err := listSessions(dir, current)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(std.err, "tickmux sessions: %v\n", err)
		return 1
	}
	if *asJSON {
		if list == nil {
			list = []sessionInfo{}
		}
		enc := json.NewEncoder(std.out)
		enc.SetIndent("", "  ")
		_ = enc.Encode(list)
	}
	if len(list) == 0 {
		fmt.Fprintf(std.err, "tickmux sessions: no session runs (no server answers on a socket in %s)\n", dir)
		return 1
	}
	if *asJSON {
		return 0
	}
	tw := tabwriter.NewWriter(std.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tPANES\tVIEWS\tCARDS\tSINCE\t")
	for _, s := range list {
		name, views, since := s.Name, "-", s.Created
		if s.Current {
			name += " *"
		}
		if s.Views != nil {
			views = strconv.Itoa(*s.Views)
		}
		if t, err := time.Parse(time.RFC3339, s.Created); err == nil {
			since = t.Local().Format("2006-01-02 15:04")
		}
		panes, cards := strconv.Itoa(s.Panes), strconv.Itoa(s.Cards)
		if s.Error != "" {
			panes, cards = "?", "?"
			since += "  (" + s.Error + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t\n", name, panes, views, cards, since)
	}
	tw.Flush()
	fmt.Fprintln(std.out, "* the session tickmux, tickmux attach and the verbs use here; tickmux attach -t NAME shows another")
	return 0
}

// listSessions asks every tickmux socket of dir (NAME.sock, with the lock file its server
// keeps beside it) whether a server answers, and each one that does for its panes and views (2 s
// at most each).
func listSessions(dir, current string) ([]sessionInfo, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []sessionInfo
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".sock")
		if !ok || e.Type()&os.ModeSocket == 0 || strings.HasSuffix(e.Name(), agent.AgentSocketSuffix) {
			continue // not a socket, or a server's second one, for its sandboxed panes
		}
		path := filepath.Join(dir, e.Name())
		if _, err := os.Stat(path + ".lock"); err != nil {
			continue // no tickmux's: a tickmux server locks its socket (agent.Listen)
		}
		if !sockpath.Running(path) {
			continue // a stale socket: its server died; the next start there replaces it
		}
		s := sessionInfo{Name: name, Socket: path, Current: path == current}
		if fi, err := e.Info(); err == nil {
			s.Created = fi.ModTime().UTC().Format(time.RFC3339)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		var res agent.ListResult
		c, err := agent.Dial(ctx, path, agent.CLIClientName)
		if err == nil {
			err = c.Do(ctx, agent.MethodList, agent.ListParams{}, &res, nil)
			c.Close()
		}
		cancel()
		if err != nil {
			s.Error = err.Error()
		}
		s.Panes, s.Views, s.Cards = len(res.Ticks), res.Views, res.PendingApprovals
		out = append(out, s)
	}
	return out, nil
}
