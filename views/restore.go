package views

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/gdamore/tcell/v2"

	"tickmux/host"
	"tickmux/host/snapshot"
)

// Restore after a crash or a reboot (issue 39): the App writes down what it shows (Snapshot,
// taken on the UI goroutine when the server asks) and builds it again from a snapshot (Restore).
// A shell comes back in its directory; a Tick with its argv and directory; a program of
// restore_programs runs again in its shell; any other program, and an agent session, is offered
// on the pane's last row and Enter runs it (typed into the shell, as the person would type it).

// SnapshotOptions say what a snapshot keeps beyond the layout and the programs.
type SnapshotOptions struct {
	Scrollback bool     // each pane's text, the last snapshot.MaxScrollback lines
	Env        []string // the variables to keep of each pane's foreground process, by name
}

// TakeSnapshot describes the session as it is now; false when the UI has stopped. Any
// goroutine but the UI's: it waits for the UI goroutine to take it.
func (a *App) TakeSnapshot(o SnapshotOptions) (*snapshot.Session, bool) {
	got := make(chan *snapshot.Session, 1)
	select {
	case <-a.done:
		return nil, false
	default:
	}
	go a.app.QueueUpdate(func() { got <- a.snapshot(o) }) // owner: tview's queue; the send never blocks
	select {
	case s := <-got:
		return s, true
	case <-a.done:
		return nil, false
	}
}

// snapshot describes the session (UI goroutine, or before Run).
func (a *App) snapshot(o SnapshotOptions) *snapshot.Session {
	s := &snapshot.Session{Version: snapshot.Version, Time: a.now(), Current: max(0, a.tabIndex())}
	if a.queue != nil {
		s.Grants = len(a.queue.Grants())
	}
	agents := map[string]host.AgentSession{}
	for _, ag := range a.host.Agents().All() {
		if ag.State == host.AgentEnded {
			continue
		}
		agents[ag.Session] = ag
		s.Agents = append(s.Agents, snapshot.Agent{Agent: ag.Agent, Session: ag.Session, Dir: ag.Cwd, State: string(ag.State)})
	}
	for _, t := range a.tabs {
		st := snapshot.Tab{Name: t.name, Focus: -1, Zoomed: -1, Float: -1, FloatShown: t.floatShown}
		index := map[string]int{}
		ids := t.layout.IDs()
		if t.floatID != "" {
			ids = append(ids, t.floatID)
		}
		for _, id := range ids {
			p := a.panes[id]
			if p == nil || p.inst.Remote() != nil {
				continue // a pane of another host: that host's server keeps it, and its link brings it back
			}
			if p.inst.Status() == host.StatusEnded {
				// A program a signal ended (a reboot's SIGTERM, a kill) comes back as it was when
				// it last ran; one that finished has nothing to run again.
				if e := p.inst.EndInfo(); e == nil || e.ExitCode != -1 || p.snapped == nil {
					continue
				}
				index[id] = len(st.Panes)
				st.Panes = append(st.Panes, *p.snapped)
				continue
			}
			sp := a.paneSnapshot(p, o, agents)
			p.snapped = &sp
			index[id] = len(st.Panes)
			st.Panes = append(st.Panes, sp)
		}
		if len(st.Panes) == 0 {
			continue
		}
		st.Layout = treeOf(t.layout.root, index)
		if i, ok := index[t.focus]; ok {
			st.Focus = i
		}
		if i, ok := index[t.layout.Zoomed()]; ok {
			st.Zoomed = i
		}
		if i, ok := index[t.floatID]; ok {
			st.Float = i
		}
		if t == a.tab {
			s.Current = len(s.Tabs)
		}
		s.Tabs = append(s.Tabs, st)
	}
	if s.Current >= len(s.Tabs) {
		s.Current = 0
	}
	return s
}

// paneSnapshot describes one pane that runs.
func (a *App) paneSnapshot(p *Pane, o SnapshotOptions, agents map[string]host.AgentSession) snapshot.Pane {
	in := p.inst
	proc := in.Process()
	sp := snapshot.Pane{Kind: snapshot.KindTick, Argv: in.Argv(), Dir: in.Dir(), Name: p.name, Title: p.title, Sandbox: in.Sandboxed()}
	if sp.Title == "" {
		sp.Title = in.Title()
	}
	fg := proc.ForegroundPID()
	if !in.IsTick() {
		sp.Kind = snapshot.KindPlain
		if isShell(sp.Argv) {
			sp.Kind = snapshot.KindShell
		}
		sp.Dir = proc.ForegroundCwd()
		if sp.Kind == snapshot.KindShell && fg != proc.Pid() && fg > 0 {
			sp.Running = cmdline(fg)
		}
	}
	if sp.Dir == "" {
		sp.Dir = proc.ForegroundCwd()
	}
	if ag, ok := a.host.Agents().ForPane(in.ID()); ok {
		if _, live := agents[ag.Session]; live {
			sp.Agent = ag.Session
		}
	}
	if len(o.Env) > 0 {
		sp.Env = environOf(fg, o.Env)
	}
	if o.Scrollback {
		sp.Scrollback = scrollbackOf(in)
	}
	return sp
}

// shells are the programs a pane's argv names when it runs the person's shell.
var shells = []string{"sh", "bash", "zsh", "fish", "dash", "ksh", "mksh", "tcsh", "csh", "nu", "elvish", "xonsh", "ash", "yash"}

// isShell reports whether argv starts a shell and nothing else (a login or interactive flag at
// most): the pane is the person's shell, not a command it runs.
func isShell(argv []string) bool {
	if len(argv) == 0 {
		return true
	}
	if !slices.Contains(shells, strings.TrimPrefix(filepath.Base(argv[0]), "-")) {
		return false
	}
	for _, w := range argv[1:] {
		if w != "-l" && w != "-i" && w != "--login" && w != "-il" && w != "-li" {
			return false
		}
	}
	return true
}

// cmdline is process pid's argv, nil when it cannot be read (it exited).
func cmdline(pid int) []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil || len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
}

// environOf is the variables of process pid named in names, as NAME=VALUE, in names' order.
func environOf(pid int, names []string) []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return nil
	}
	have := map[string]string{}
	for _, kv := range bytes.Split(b, []byte{0}) {
		if k, v, ok := strings.Cut(string(kv), "="); ok {
			have[k] = v
		}
	}
	var out []string
	for _, n := range names {
		if v, ok := have[n]; ok {
			out = append(out, n+"="+v)
		}
	}
	return out
}

// scrollbackOf is the pane's text, the last snapshot.MaxScrollback lines, trailing blank lines
// dropped.
func scrollbackOf(in *host.Instance) []string {
	t := in.Terminal()
	_, rows := t.Size()
	total := t.ScrollbackLen() + rows
	lines, _ := t.Lines(max(0, total-snapshot.MaxScrollback), total)
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return lines
}

// treeOf is the split tree under n with panes named by index; a leaf not in index (an ended
// pane) is left out, its sibling taking the split's place.
func treeOf(n *node, index map[string]int) *snapshot.Node {
	if n == nil {
		return nil
	}
	if n.leaf() {
		i, ok := index[n.id]
		if !ok {
			return nil
		}
		return &snapshot.Node{Pane: &i}
	}
	a, b := treeOf(n.a, index), treeOf(n.b, index)
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	axis := snapshot.SideBySide
	if n.axis == Stacked {
		axis = snapshot.Stacked
	}
	return &snapshot.Node{Axis: axis, Ratio: n.ratio, A: a, B: b}
}

// nodeOf builds the layout tree of a snapshot's tree; ids are the new panes' ids by index ("" for
// a pane that could not start: left out).
func nodeOf(s *snapshot.Node, ids []string) *node {
	if s == nil {
		return nil
	}
	if s.Pane != nil {
		if *s.Pane < 0 || *s.Pane >= len(ids) || ids[*s.Pane] == "" {
			return nil
		}
		return &node{id: ids[*s.Pane]}
	}
	a, b := nodeOf(s.A, ids), nodeOf(s.B, ids)
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	n := &node{axis: SideBySide, ratio: s.Ratio, a: a, b: b}
	if s.Axis == snapshot.Stacked {
		n.axis = Stacked
	}
	if !(n.ratio > 0.05 && n.ratio < 0.95) {
		n.ratio = 0.5
	}
	a.parent, b.parent = n, n
	return n
}

// RestoreOptions say how programs come back.
type RestoreOptions struct {
	// Programs are run again in their shells (by the command's base name); any other is offered.
	Programs []string
	// Self is this tickmux's executable: a pane whose program was the dead server's own tickmux
	// (the examples, a Tick started as `tickmux ...`) by a path that is gone (the private copy a
	// `go run` build runs from, swept when its server died) runs this one instead.
	Self string
}

// offer is what a restored pane offers to run on its last row until the next key: Enter types
// Input and a newline into the pane's shell; any other key drops the offer and goes to the pane.
type offer struct {
	text  string
	input string
}

// Restore opens the session s describes in new tabs after the ones there are, and shows the tab
// that was shown. It returns how many panes could not start, each said on the status line. Call
// it before Run or on the UI goroutine.
func (a *App) Restore(s *snapshot.Session, o RestoreOptions) (failed int) {
	agents := map[string]snapshot.Agent{}
	for _, ag := range s.Agents {
		agents[ag.Session] = ag
	}
	first := len(a.tabs)
	// The tab shown before the restore: an empty placeholder one (a server's start) is replaced.
	placeholder := len(a.tabs) == 1 && a.tab.layout.Empty() && a.tab.floatID == ""
	w, h := a.screenSize()
	ws := a.workspaceRect(w, h)
	var errs []string
	for _, st := range s.Tabs {
		t := &tab{name: sanitizeName(st.Name)}
		ids := make([]string, len(st.Panes))
		for i, sp := range st.Panes {
			in, err := a.restorePane(sp, agents, o, s.Time, max(20, ws.W-2), max(5, ws.H-2))
			if err != nil {
				errs = append(errs, err.Error())
				failed++
				continue
			}
			ids[i] = in.ID()
		}
		t.layout.root = nodeOf(st.Layout, ids)
		if st.Float >= 0 && st.Float < len(ids) && ids[st.Float] != "" && !t.layout.Has(ids[st.Float]) {
			t.floatID, t.floatShown = ids[st.Float], st.FloatShown
			a.panes[t.floatID].float = true
		}
		for _, id := range ids { // a pane the tree lost (a hand-edited snapshot) is not lost
			if id != "" && !t.layout.Has(id) && id != t.floatID {
				t.layout.Add("", id, SideBySide)
			}
		}
		if t.layout.Empty() && t.floatID == "" {
			continue
		}
		if st.Zoomed >= 0 && st.Zoomed < len(ids) && t.layout.Has(ids[st.Zoomed]) {
			t.layout.Zoom(ids[st.Zoomed])
		}
		if st.Focus >= 0 && st.Focus < len(ids) && ids[st.Focus] != "" {
			t.focus = ids[st.Focus]
		} else if all := t.layout.IDs(); len(all) > 0 {
			t.focus = all[0]
		}
		a.tabs = append(a.tabs, t)
	}
	if placeholder && len(a.tabs) > first {
		a.tabs = a.tabs[1:]
		first--
		a.tab = a.tabs[0]
	}
	if cur := first + s.Current; cur >= first && cur < len(a.tabs) {
		old := a.tab.focus
		a.showTab(a.tabs[cur])
		a.focusMoved(old)
	}
	msg := fmt.Sprintf("restored %s of %s", countTabs(s), s.Time.Local().Format("15:04"))
	if s.Grants > 0 {
		msg = fmt.Sprintf("restored; %d grants (r) were not: each call asks again", s.Grants)
	}
	if failed > 0 {
		msg += fmt.Sprintf("; %d could not start: %s", failed, strings.Join(errs, "; "))
	}
	for _, e := range errs {
		a.logf("restore: %s", e)
	}
	a.logf("restore: %s", msg)
	a.say(msg)
	a.full = true
	a.rebuild()
	return failed
}

// restorePane starts one pane of a snapshot again.
func (a *App) restorePane(sp snapshot.Pane, agents map[string]snapshot.Agent, o RestoreOptions, at time.Time, cols, rows int) (*host.Instance, error) {
	dir := sp.Dir
	note := ""
	if fi, err := os.Stat(dir); dir != "" && (err != nil || !fi.IsDir()) {
		note = "its directory " + dir + " is gone: started in your home directory"
		dir, _ = os.UserHomeDir()
	}
	if len(sp.Argv) > 0 && o.Self != "" && filepath.Base(sp.Argv[0]) == "tickmux" {
		if _, err := os.Stat(sp.Argv[0]); err != nil {
			sp.Argv = append([]string{o.Self}, sp.Argv[1:]...)
		}
	}
	spec := host.OpenSpec{Argv: sp.Argv, Dir: dir, Env: sp.Env, Sandbox: sp.Sandbox, Cols: cols, Rows: rows, Shell: sp.Kind != snapshot.KindTick}
	if len(sp.Scrollback) > 0 {
		spec.Preface = preface(sp.Scrollback, at)
	}
	var run, offerText string
	switch {
	case sp.Kind == snapshot.KindTick:
		if len(sp.Argv) == 0 {
			return nil, fmt.Errorf("a Tick with no command")
		}
	case sp.Kind == snapshot.KindPlain && !o.runs(sp.Argv):
		// A program that is not the person's shell: their shell comes back in its directory,
		// with the program offered.
		spec.Argv = nil
		offerText = "was running: " + shellJoin(sp.Argv) + " · Enter runs it again"
		run = shellJoin(sp.Argv)
	case sp.Kind == snapshot.KindShell:
		if ag, ok := agents[sp.Agent]; ok && sp.Agent != "" {
			if cmd := resumeCommand(ag); cmd != "" {
				if ag.Dir != "" && ag.Dir != dir {
					cmd = "cd " + shellJoin([]string{ag.Dir}) + " && " + cmd
				}
				offerText = ag.Agent + " session " + shortID(ag.Session) + " · Enter resumes it: " + cmd
				run = cmd
				break
			}
		}
		if len(sp.Running) > 0 {
			if o.runs(sp.Running) {
				run = shellJoin(sp.Running)
			} else {
				offerText = "was running: " + shellJoin(sp.Running) + " · Enter runs it again"
				run = shellJoin(sp.Running)
			}
		}
	}
	in, err := a.host.Open(spec)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", shellJoin(sp.Argv), err)
	}
	p := a.makePane(in)
	p.name = sanitizeName(sp.Name)
	switch {
	case offerText != "":
		p.offer = &offer{text: offerText, input: run}
	case run != "":
		_ = in.Process().Input([]byte(run + "\r")) // typed ahead: the shell reads it at its first prompt
	}
	if note != "" {
		a.say(note)
	}
	return in, nil
}

// runs reports whether argv's program is one restore_programs runs again.
func (o RestoreOptions) runs(argv []string) bool {
	return len(argv) > 0 && slices.Contains(o.Programs, filepath.Base(argv[0]))
}

// resumeCommand is the agent's own command that resumes session ag, "" for an agent tickmux
// does not know.
func resumeCommand(ag snapshot.Agent) string {
	if ag.Session == "" || !safeID(ag.Session) {
		return ""
	}
	switch ag.Agent {
	case "Claude Code":
		return "claude --resume " + ag.Session
	case "Codex":
		return "codex resume " + ag.Session
	}
	return ""
}

// safeID reports whether a session id is plain enough to type into a shell unquoted.
func safeID(s string) bool {
	if len(s) > 128 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

func shortID(s string) string {
	if len(s) > 8 {
		return s[:8] + "…"
	}
	return s
}

// sanitizeName keeps a name from a snapshot printable (the file is the person's, but is read back
// as text to draw).
func sanitizeName(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsPrint(r) {
			return r
		}
		return -1
	}, s)
}

// preface is a restored pane's scrollback as terminal text, above the marked line. Only
// printable characters go through: the lines were text when written, and must not turn into
// escape sequences when read back.
func preface(lines []string, at time.Time) []byte {
	var b bytes.Buffer
	for _, l := range lines[max(0, len(lines)-snapshot.MaxScrollback):] {
		for _, r := range l {
			if unicode.IsPrint(r) {
				b.WriteRune(r)
			}
		}
		b.WriteString("\r\n")
	}
	fmt.Fprintf(&b, "\x1b[2m── restored from %s ──\x1b[0m\r\n", at.Local().Format("2006-01-02 15:04"))
	return b.Bytes()
}

// countTabs says "3 tabs, 7 panes".
func countTabs(s *snapshot.Session) string {
	return plural(len(s.Tabs), "tab") + ", " + plural(s.Panes(), "pane")
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// offerKey takes a key for the focused pane's offer, if it has one: Enter runs what it offers;
// any other key drops it and goes on to the pane (false). UI goroutine.
func (a *App) offerKey(p *Pane, ev *tcell.EventKey) bool {
	o := p.offer
	if o == nil {
		return false
	}
	p.offer = nil
	p.invalidate()
	if ev.Key() != tcell.KeyEnter {
		return false
	}
	_ = p.inst.Process().Input([]byte(o.input + "\r"))
	return true
}

// RestoreQuestion asks in the views whether to restore s: y restores it, n or Esc does not. The
// question stays until answered, in whichever view answers first. Call it before Run or on the
// UI goroutine.
func (a *App) RestoreQuestion(s *snapshot.Session, o RestoreOptions, answered func(yes bool)) {
	a.restoreAsk = &restoreAsk{s: s, o: o, answered: answered,
		question: fmt.Sprintf("restore the session of %s: %s?", s.Time.Local().Format("15:04"), countTabs(s))}
	a.full = true
}

// restoreAsk is the restore's question, until answered.
type restoreAsk struct {
	s        *snapshot.Session
	o        RestoreOptions
	question string
	answered func(bool)
}

// answerRestore takes a key while the restore's question shows.
func (a *App) answerRestore(ev *tcell.EventKey) {
	q := a.restoreAsk
	yes := ev.Key() == tcell.KeyRune && (ev.Rune() == 'y' || ev.Rune() == 'Y')
	no := ev.Key() == tcell.KeyEscape || ev.Key() == tcell.KeyRune && (ev.Rune() == 'n' || ev.Rune() == 'N')
	if !yes && !no {
		return
	}
	a.restoreAsk = nil
	a.full = true
	if yes {
		// The shell the start opened is replaced when it is all there is and nothing was typed.
		only := ""
		if len(a.tabs) == 1 && len(a.panes) == 1 {
			only = a.tab.focus
		}
		a.Restore(q.s, q.o)
		if only != "" && len(a.panes) > 1 && a.panes[only] != nil && a.panes[only].inst.Process().InputWrites() == 0 {
			a.closePane(only)
		}
	} else {
		a.say("not restored: `tickmux restore --list` shows the snapshots kept")
	}
	if q.answered != nil {
		q.answered(yes)
	}
	a.rebuild()
}

// Why an App stopped by itself (EndedBy).
var (
	endQuit     = "quit"
	endLastPane = "last pane closed"
)

// EndedBy says why the App stopped when it stopped by itself: "quit" (the person quit), "last
// pane closed"; "" when it was stopped (Stop: a signal, kill-server) or still runs. Any goroutine.
func (a *App) EndedBy() string {
	if p := a.endedBy.Load(); p != nil {
		return *p
	}
	return ""
}

// PaneCount is how many panes there are, in every tab. Before Run or on the UI goroutine.
func (a *App) PaneCount() int { return len(a.panes) }

// Say shows msg on the status line for a while. Before Run or on the UI goroutine.
func (a *App) Say(msg string) { a.say(msg) }
