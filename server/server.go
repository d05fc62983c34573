// Package server is the tickmux that outlives its terminal: a long-lived process holding the
// host (every program, its PTY, screen and scrollback), the control socket and the approval
// queue, and views that attach to it and go away again; and the view's client (client.go,
// view.go), which starts a server when none runs (Start) and attaches a terminal to it (Attach).
//
// Design. As in tmux, a view is a thin client: it passes its terminal's file descriptor to the
// server over the control socket (SCM_RIGHTS) and then only relays what its terminal tells it
// alone (SIGWINCH as a resize, SIGCONT as a redraw, SIGTSTP as a suspend; SIGTERM, SIGINT and
// SIGQUIT as a detach) and waits to be told that it detached or that the server exited. It
// hands the terminal over only from its foreground, and the server reads and draws only while
// it stays there (jobs.go). The server draws on the passed terminal itself (server/viewterm: the
// sequences of the client's TERM and COLORTERM, looked up by the server in terminfo), and reads
// its keys from it with tcell's input parser. So a key goes terminal → tcell's parser → App →
// PTY, with no hop through the client and no re-encoding of the screen into a second terminal
// protocol: every cell, mode and key tcell knows reaches the terminal as it is. The cost is that
// the server holds a descriptor of the view's terminal, so it must never block on it: each view
// has its own copier, which falls behind by at most one screen of changed cells (server/mirror)
// and whose writes give up after writeStall (tty.go), and a view that stalls is dropped.
//
// Several views share one App and one layout, like two clients of one tmux session: the App
// draws on a logical screen sized to the view used last, which mirror.Mirror copies onto each
// view's terminal; key state is per view (views/clients.go).
//
// The server is its own session leader with no controlling terminal and its stdio on
// /dev/null (Start), so closing a terminal never signals it; it logs only to its log file.
package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/gdamore/tcell/v2/terminfo"
	"golang.org/x/sys/unix"

	"tickmux/agent"
	"tickmux/config"
	"tickmux/host"
	"tickmux/host/snapshot"
	"tickmux/internal/peer"
	"tickmux/internal/remotewire"
	"tickmux/remote"
	"tickmux/server/mirror"
	"tickmux/server/viewterm"
	"tickmux/tick/wire"
	"tickmux/views"
)

// The control-socket methods a view client uses; the agent server hands such connections over.
const (
	MethodAttach = "view/attach"
	MethodKill   = "view/kill-server"
	// MethodReload reads the config file again (tickmux reload): ReloadParams → {message}.
	MethodReload = "view/reload"

	notifyResize = "view/resize" // client → server: the terminal changed size
	notifyRedraw = "view/redraw" // client → server: draw everything again (after SIGCONT)
	notifyDetach = "view/detach" // client → server: detach me (the client got SIGTERM, SIGINT or SIGQUIT)
	notifyLeft   = "view/left"   // server → client: the view is over, the terminal is restored
	// client → server: suspend me (SIGTSTP); server → client: the terminal is released, stop.
	notifySuspend = "view/suspend"
)

// AttachParams is what a view tells the server about its terminal.
type AttachParams struct {
	Term      string `json:"term"`
	ColorTerm string `json:"colorterm,omitempty"`
	// Open is a program to open before attaching (tickmux -- CMD on a running server).
	Open []string `json:"open,omitempty"`
	Dir  string   `json:"dir,omitempty"`
	// Sandbox runs Open in a sandbox whatever the config's policy (tickmux --sandbox); with no
	// Open, a sandboxed shell is opened.
	Sandbox bool `json:"sandbox,omitempty"`
	// Plain runs Open as a plain program, not as a Tick (tickmux --plain -- CMD), as tmux new
	// CMD runs it.
	Plain bool `json:"plain,omitempty"`
}

// AttachResult asks the client for its terminal's descriptor.
type AttachResult struct {
	SendFD bool `json:"send_fd"`
}

// LeftParams say why a view ended; Exited is true when the server itself is ending.
type LeftParams struct {
	Reason string `json:"reason"`
	Exited bool   `json:"exited,omitempty"`
	// Failed is true when the view never showed: Reason is an error.
	Failed bool `json:"failed,omitempty"`
}

// Options start a server.
type Options struct {
	Socket string
	Config *config.Config
	Logf   func(format string, args ...any)
	// Cols and Rows are the size of the terminal the first view will have (0: unknown).
	Cols, Rows int
	// Initial opens what a new server starts with, before it reports ready.
	Initial func(a *views.App) error
	// Ready is told when the server listens and shows what it started with. When it cannot
	// start, Run returns the error after everything it started has ended and the socket is
	// free again.
	Ready func(err error)
	// JournalDir is where the approval journal goes ("": $XDG_STATE_HOME/tickmux).
	JournalDir string
	// LogPath is the server's log, hidden from sandboxed panes ("": none to hide).
	LogPath string
	// Stopping is told once when the shutdown starts, whatever started it (a signal,
	// kill-server, the person quitting, the last pane closing); the hook for a hard deadline
	// (nil: none).
	Stopping func()
	// Fresh says the person asked for something to open (tickmux -- CMD, demo): a restore adds
	// the session after it instead of in place of the first shell.
	Fresh bool
	// RestoreFrom restores this snapshot generation (tickmux restore N) whatever the config's
	// restore says; "" follows the config.
	RestoreFrom string
	// Self gives the tickmux executable programs are started from (a restore's Ticks of
	// tickmux); nil: none.
	Self func() string
}

// Run is the server: it returns when the last pane closes, the person quits, kill-server is
// run, or SIGTERM, SIGHUP or SIGINT arrives. Every program ends with it.
func Run(opts Options, sigs <-chan os.Signal) error {
	logf := opts.Logf
	ready := opts.Ready
	if ready == nil {
		ready = func(error) {}
	}
	var app atomic.Pointer[views.App]
	var notifier atomic.Pointer[notifyCommand]
	var queue *host.ApprovalQueue
	px := &proxies{} // the proxies of views on other hosts (proxy.go)
	queue = host.NewApprovalQueue(func() {
		if a := app.Load(); a != nil {
			a.ApprovalsChanged()
		}
		if n := notifier.Load(); n != nil {
			n.changed(queue.Pending())
		}
		px.changed()
	})
	px.queue = queue
	sockPath := agent.SocketPath(opts.Socket)
	cfg := opts.Config
	jr := openJournal(opts.JournalDir, cfg.JournalMaxBytes, logf)
	defer jr.Close()
	scrollback := cfg.Scrollback
	if scrollback == 0 {
		scrollback = -1 // the config's 0 means none; the host's 0 means the default
	}
	// Programs in panes reach this tickmux with the CLI verbs, as a shell in tmux reaches tmux.
	h := host.New(host.Config{Approver: queue, Logf: logf, Env: []string{"TICKMUX_SOCKET=" + sockPath}, Scrollback: scrollback,
		Journal: jr, Sandbox: sandboxFor(cfg, sockPath, opts.JournalDir, opts.LogPath)})
	defer func() {
		h.Close()
		host.KillAllStrays()
		logf("tickmux server stopped")
	}()
	mirror := mirror.NewSized(opts.Cols, opts.Rows)
	if cfg.NotifyCommand != "" {
		n := newNotifyCommand(cfg.NotifyCommand, logf, mirror.Views)
		notifier.Store(n)
		defer n.close()
	}
	s := &srv{mirror: mirror, logf: logf, stopping: opts.Stopping, host: h, proxies: px}
	// Snapshots (restore.go): what the dead server left is read before anything is written.
	var snap *snapshotter
	var plan restorePlan
	var restoreNote string
	if dir, err := SnapshotDir(opts.JournalDir, sockPath); err != nil {
		logf("snapshot: %v: the session will not be restorable", err)
	} else {
		var notes []string
		plan, notes = planRestore(dir, opts.RestoreFrom, cfg.Restore, jr, logf)
		restoreNote = restoreNotes(notes)
		if store, err := snapshot.Open(dir); err != nil {
			logf("snapshot: %v: the session will not be restorable", err)
		} else {
			snap = newSnapshotter(store, nil, cfg, sockPath, jr.Run(), logf)
		}
	}
	changed := func() {}
	if snap != nil {
		changed = snap.changed
	}
	// The tickmux servers on other hosts ([[hosts]]): one ssh link each, their cards in this
	// App's queue (package remote, views/remote.go).
	var hosts *remote.Manager
	var remoteQueue views.RemoteQueue
	if len(cfg.Hosts) > 0 {
		hosts = remote.NewManager(cfg.Hosts, remote.Options{Logf: logf, Changed: func() {
			if a := app.Load(); a != nil {
				a.RemoteChanged()
			}
			if n := notifier.Load(); n != nil {
				n.changed(localCards(hosts.Cards()))
			}
		}})
		remoteQueue = hosts
	}
	a := views.New(views.Options{Host: h, Approvals: queue, Config: cfg, Logf: logf, Screen: mirror, EndWhenEmpty: true,
		Stopping: s.stopped, // quit or the last pane closing: the hard deadline starts now
		Changed:  changed, Remote: remoteQueue})
	app.Store(a)
	s.a = a
	if snap != nil {
		snap.app = a
		s.snap = snap
		snap.start()
		defer func() { snap.stop(s.endedBy()) }()
	}
	a.OnSuspendView(s.suspendView)
	var remoteHosts agent.RemoteHosts // nil, not a nil *remote.Manager, when there are no hosts
	if hosts != nil {
		remoteHosts = agentHosts{hosts}
	}
	ctl, err := agent.Serve(h, sockPath, agent.Options{Logf: logf, Views: s.handle, Attached: mirror.Views, Remote: remoteHosts})
	if err != nil {
		return err // the App never ran: the host's Close (deferred) ends what it opened
	}
	s.ctl.Store(ctl)
	logf("control socket: listening on %s", ctl.Path())
	defer ctl.Close() // before the host closes (defers run in reverse): cards still waiting are withdrawn
	// Sandboxed panes reach this server only through the agent socket: agent methods, no view.
	if actl, err := agent.ServeAgent(h, agent.AgentSocketPath(sockPath), agent.Options{Logf: logf, Attached: mirror.Views}); err != nil {
		logf("agent socket: %v: programs in sandboxed panes cannot reach tickmux", err)
	} else {
		s.actl.Store(actl)
		logf("agent socket: listening on %s", actl.Path())
		defer actl.Close()
	}
	if hosts != nil {
		hosts.Start()
		defer hosts.Close() // every ssh ends with the server
	}
	ropts := views.RestoreOptions{Programs: cfg.RestorePrograms}
	if plan.sess != nil && opts.Self != nil {
		ropts.Self = opts.Self()
	}
	switch {
	case plan.sess != nil && plan.mode == config.RestoreAuto:
		if opts.Fresh && opts.Initial != nil {
			if err := opts.Initial(a); err != nil {
				return err
			}
		}
		a.Restore(plan.sess, ropts)
		if a.PaneCount() == 0 && opts.Initial != nil { // nothing could start again
			if err := opts.Initial(a); err != nil {
				return err
			}
		}
		if snap != nil {
			snap.enable()
		}
	default:
		if opts.Initial != nil {
			if err := opts.Initial(a); err != nil {
				return err
			}
		}
		if plan.sess != nil {
			a.RestoreQuestion(plan.sess, ropts, func(bool) {
				if snap != nil {
					snap.enable()
				}
			})
		} else if snap != nil {
			snap.enable()
		}
	}
	if restoreNote != "" {
		a.Say(restoreNote)
	}
	uiDone := make(chan struct{})
	defer close(uiDone)
	go func() { // owner: Run; returns on a signal or when the UI has stopped
		select {
		case sig := <-sigs:
			logf("got %v: stopping", sig)
			s.stop()
		case <-uiDone:
		}
	}()
	ready(nil)
	err = a.Run()
	s.stopped() // the UI ended by itself (quit, the last pane closed) or was stopped: what follows is bounded too
	if err != nil {
		logf("the UI failed: %v", err)
		return err
	}
	return nil
}

// agentHosts is the other hosts as the control socket's list shows them and its open opens on
// them (agent.RemoteHosts: package agent does not import package remote); Ls is the Manager's own.
type agentHosts struct{ *remote.Manager }

var _ agent.RemoteOpener = agentHosts{} // open --host goes through it

func (h agentHosts) States() []agent.RemoteState {
	states := h.Manager.States()
	out := make([]agent.RemoteState, len(states))
	for i, s := range states {
		out[i] = agent.RemoteState{Name: s.Name, State: string(s.State), Since: s.Since, NextTry: s.NextTry, Reason: s.Reason, Hostname: s.Hostname, Down: s.Down}
	}
	return out
}

// Open opens a pane on the host named name, once (Link.Open never retries): nothing was sent
// when the host is unknown, not up, or its tickmux refused it before doing anything.
func (h agentHosts) Open(ctx context.Context, name string, argv []string, dir string, plain bool) (string, error) {
	l := h.Manager.Link(name)
	if l == nil {
		return "", &agent.RemoteOpenError{Err: fmt.Errorf("no host %q in the config's [[hosts]]", name)}
	}
	pane, err := l.Open(ctx, remotewire.OpenParams{Argv: argv, Dir: dir, Plain: plain || len(argv) == 0})
	if err != nil {
		var un *remote.UnreachableError
		var re *remote.RemoteError
		sent := !errors.As(err, &un) && !(errors.As(err, &re) && re.Effect == string(wire.EffectNone))
		return "", &agent.RemoteOpenError{Sent: sent, Err: err}
	}
	return pane, nil
}

// srv answers the view connections the control socket hands over.
type srv struct {
	a        *views.App
	mirror   *mirror.Mirror
	logf     func(format string, args ...any)
	stopping func()
	host     *host.Host
	proxies  *proxies                     // the proxy connections (proxy.go)
	ctl      atomic.Pointer[agent.Server] // the control socket, once it listens
	actl     atomic.Pointer[agent.Server] // the agent socket, once it listens
	n        atomic.Int64
	stopOnce sync.Once
	tellOnce sync.Once
	snap     *snapshotter // nil when snapshots cannot be written
	killed   atomic.Bool  // kill-server ended it

	liveMu sync.Mutex
	live   map[string]*liveView // the attached views, by id
}

// liveView is an attached view, for suspending it.
type liveView struct {
	tty *viewTty
	sc  *viewterm.Terminal
	nc  *viewConn
}

// suspendView suspends view id as prefix C-z or its process's SIGTSTP asks: the terminal goes
// back to how it was before the view, the server stops reading and drawing it, and the view's
// process is told to stop itself; it resumes when the process continues in the foreground
// (view/redraw). Any goroutine.
func (s *srv) suspendView(id string) {
	s.liveMu.Lock()
	lv := s.live[id]
	s.liveMu.Unlock()
	if lv == nil {
		return
	}
	lv.tty.release(lv.sc.ReleaseSequences())
	s.logf("%s suspended", id)
	sendLine(lv.nc, notification(notifySuspend))
}

// stop ends the App: a signal, kill-server.
func (s *srv) stop() {
	s.stopOnce.Do(func() {
		s.stopped()
		s.a.Stop()
	})
}

// stopped tells Stopping, once, that the shutdown has begun, and starts ending the programs at
// once, while the App stops: busy Ticks stop flooding the UI loop the App's stop waits on, and
// the stop fits in the hard deadline more often. Run's deferred Close waits for it.
func (s *srv) stopped() {
	s.tellOnce.Do(func() {
		s.logf("the shutdown began")
		if s.snap != nil {
			s.snap.freeze() // the programs' ends that follow are not the session's
		}
		if s.stopping != nil {
			s.stopping()
		}
		if s.host != nil {
			go s.host.Close() // owner: the shutdown; Run's deferred Close returns after it
		}
	})
}

func (s *srv) handle(unix *net.UnixConn, req agent.Request) {
	nc := &viewConn{UnixConn: unix}
	switch req.Method {
	case MethodKill:
		// The answer comes once the programs are being ended and the socket is gone, not once
		// they have ended: what is left is the server's own, and if it died now its guardian
		// would end every program all the same (as tmux answers before its panes' programs
		// have exited). kill-server took 10-15 ms more waiting for the server's exit. The App
		// stops after the answer: its end closes this connection (Run's ctl.Close).
		s.logf("kill-server: stopping")
		s.killed.Store(true)
		s.stopped()
		if s.host != nil && !s.host.WaitTold(time.Second) {
			s.logf("kill-server: a program was not told to end within 1 s; answering all the same")
		}
		if c := s.ctl.Load(); c != nil {
			c.Unlisten() // the next tickmux starts a server of its own at once
			if a := s.actl.Load(); a != nil {
				a.Unlisten() // and its agent socket
			}
		}
		reply(nc, req.ID, struct{}{}, nil)
		s.stop()
	case MethodAttach:
		s.attach(nc, req)
	case MethodReload:
		var p ReloadParams
		if len(req.Params) > 0 {
			if err := json.Unmarshal(req.Params, &p); err != nil {
				reply(nc, req.ID, nil, &agent.Error{Message: "bad reload params: " + err.Error(), Reason: agent.ReasonBadRequest})
				return
			}
		}
		// The config binds the card's keys: a program in a pane must not rebind them under the
		// person (the prompt's source-file is the person's own key).
		if pinned, err := peer.Of(nc.UnixConn); err != nil {
			reply(nc, req.ID, nil, &agent.Error{Message: "cannot reload: " + err.Error(), Reason: agent.ReasonFailed})
			return
		} else {
			inside, ierr := insideServer(pinned)
			pinned.Close()
			if inside || ierr != nil {
				s.logf("reload refused (process %d): inside tickmux", peerPID(nc.UnixConn))
				reply(nc, req.ID, nil, &agent.Error{Message: "cannot reload from inside tickmux: a program in a pane may not change the keys that answer cards; use the : prompt's source-file, or run tickmux reload from a terminal outside tickmux", Reason: agent.ReasonFailed})
				return
			}
		}
		msg, err := s.a.Reload(p.Config)
		if err != nil {
			reply(nc, req.ID, nil, &agent.Error{Message: err.Error(), Reason: agent.ReasonFailed})
			return
		}
		s.logf("config read again: %s", msg)
		reply(nc, req.ID, map[string]string{"message": msg}, nil)
	default:
		if strings.HasPrefix(req.Method, "proxy/") { // a view on another host (proxy.go)
			s.proxy(nc, req)
			return
		}
		reply(nc, req.ID, nil, &agent.Error{Message: "unknown method " + req.Method, Reason: agent.ReasonBadRequest})
	}
}

// reply writes the answer to request id.
func reply(nc *viewConn, id uint64, result any, e *agent.Error) {
	m := agent.Message{ID: id, Error: e}
	if e == nil {
		raw, _ := json.Marshal(result)
		m.Result = raw
	}
	send(nc, m)
}

func send(nc *viewConn, m agent.Message) {
	b, _ := json.Marshal(m)
	sendLine(nc, append(b, '\n'))
}

// viewConn is a connection the control socket handed over. Several goroutines write lines to it
// (the answer, view/left when the mirror lets the view go, view/suspend from the App); its own
// lock keeps each line whole, so a view that stops reading holds up only its own lines, for at
// most writeStall.
type viewConn struct {
	*net.UnixConn
	sendMu sync.Mutex
}

func sendLine(nc *viewConn, line []byte) {
	nc.sendMu.Lock()
	defer nc.sendMu.Unlock()
	_ = nc.SetWriteDeadline(time.Now().Add(writeStall))
	_, _ = nc.Write(line)
}

func notify(nc *viewConn, method string, params any) {
	raw, _ := json.Marshal(params)
	send(nc, agent.Message{Method: method, Params: raw})
}

// attach takes a view's terminal and shows the App on it until the view leaves.
func (s *srv) attach(nc *viewConn, req agent.Request) {
	p, err := readAttachParams(req.Params)
	if err != nil {
		reply(nc, req.ID, nil, &agent.Error{Message: "bad attach params: " + err.Error(), Reason: agent.ReasonBadRequest})
		return
	}
	pinned, err := peer.Of(nc.UnixConn)
	if err != nil {
		msg := "cannot attach: " + err.Error()
		if errors.Is(err, peer.ErrGone) {
			msg = "cannot attach: the process that asked to attach has exited"
		}
		s.logf("attach refused (process %d): %s", peerPID(nc.UnixConn), msg)
		reply(nc, req.ID, nil, &agent.Error{Message: msg, Reason: agent.ReasonFailed})
		return
	}
	defer pinned.Close()
	client := pinned.Pid
	if inside, err := insideServer(pinned); inside || err != nil {
		msg := errNested
		if err != nil {
			msg = "cannot attach: " + err.Error()
		}
		s.logf("attach refused (process %d): %s", client, msg)
		reply(nc, req.ID, nil, &agent.Error{Message: msg, Reason: agent.ReasonFailed})
		return
	}
	// The App draws the view's first frame while its terminal is passed and set up.
	expected := s.mirror.Expect()
	defer expected()
	reply(nc, req.ID, AttachResult{SendFD: true}, nil) // send the terminal's descriptor
	tty, ti, err := s.receiveTerminal(nc.UnixConn, p)
	if err != nil {
		s.logf("attach refused (process %d): %v", client, err)
		notify(nc, notifyLeft, LeftParams{Reason: err.Error(), Failed: true})
		return
	}
	sc := viewterm.New(tty, ti, viewterm.Charset(os.Getenv))
	if err := sc.Init(); err != nil { // raw mode, the alternate screen
		tty.Close()
		notify(nc, notifyLeft, LeftParams{Reason: "cannot draw on the terminal: " + err.Error(), Failed: true})
		return
	}
	tty.client = openStatFile(client)
	n := s.n.Add(1)
	id := fmt.Sprintf("view-%d", n)
	name := fmt.Sprintf("view %d %s", n, tty.name)
	s.a.NameView(id, name)
	gone := make(chan struct{})
	var openFailed atomic.Bool
	if err := s.mirror.Attach(id, sc, func(reason string) {
		// The screen is finalized: the terminal is back to how the view left it.
		notify(nc, notifyLeft, LeftParams{Reason: reason, Exited: reason == mirror.ReasonExited, Failed: openFailed.Load()})
		nc.Close()
		close(gone)
	}); err != nil {
		sc.Fini()
		notify(nc, notifyLeft, LeftParams{Reason: err.Error(), Failed: true})
		return
	}
	expected()
	s.liveMu.Lock()
	if s.live == nil {
		s.live = map[string]*liveView{}
	}
	s.live[id] = &liveView{tty: tty, sc: sc, nc: nc}
	s.liveMu.Unlock()
	defer func() {
		s.liveMu.Lock()
		delete(s.live, id)
		s.liveMu.Unlock()
	}()
	s.logf("%s is %s, process %d", id, name, client)
	s.logf("%s attached (TERM=%s)", id, p.Term)
	if len(p.Open) > 0 || p.Sandbox {
		// Only now, with the view there to show it: a request that never passes a terminal
		// opens nothing.
		spec := host.OpenSpec{Argv: p.Open, Dir: p.Dir, Shell: len(p.Open) == 0 || p.Plain, Sandbox: p.Sandbox}
		if err := s.a.OpenForView(spec); err != nil {
			s.logf("%s: %v", id, err)
			openFailed.Store(true)
			s.mirror.Detach(id, err.Error())
		}
	}
	dec := json.NewDecoder(nc)
	for {
		var m agent.Request
		if err := dec.Decode(&m); err != nil {
			break
		}
		switch m.Method {
		case notifyResize:
			tty.resized()
		case notifyRedraw: // the view's process continued (SIGCONT)
			if tty.resume() {
				s.logf("%s resumed", id)
			}
			s.mirror.Redraw(id)
		case notifySuspend:
			s.suspendView(id)
		case notifyDetach:
			s.mirror.Detach(id, "detached")
		}
	}
	s.mirror.Detach(id, "the view's process went away")
	<-gone // bounded: the view's writes give up after writeStall
	s.logf("%s left", id)
}

// readAttachParams reads an attach request's params.
func readAttachParams(raw json.RawMessage) (AttachParams, error) {
	var p AttachParams
	err := json.Unmarshal(raw, &p)
	return p, err
}

// receiveTerminal takes the view's terminal, which it sends after the attach answer, and finds
// its description; the description is looked up first, while the view wakes up to the answer
// and sends the descriptor. A terminal that is one of tickmux's own PTYs is refused.
func (s *srv) receiveTerminal(nc *net.UnixConn, p AttachParams) (*viewTty, *terminfo.Terminfo, error) {
	ti, tiErr := termLookup(p.Term, p.ColorTerm)
	fd, err := receiveFD(nc)
	if err != nil {
		return nil, nil, err
	}
	if tiErr != nil {
		unix.Close(fd)
		return nil, nil, tiErr
	}
	var st unix.Stat_t
	if unix.Fstat(fd, &st) == nil && s.host != nil && s.host.HoldsTerminal(&st) {
		unix.Close(fd)
		return nil, nil, errors.New(errNested)
	}
	tty, err := openViewTty(fd)
	if err != nil {
		return nil, nil, err
	}
	tty.rdev = st.Rdev
	return tty, ti, nil
}

// termLookup is lookupTerm; a test sees when it is called.
var termLookup = lookupTerm

// receiveFD reads the one descriptor the client sends after the attach answer.
func receiveFD(nc *net.UnixConn) (int, error) {
	_ = nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	defer nc.SetReadDeadline(time.Time{})
	buf := make([]byte, 1)
	oob := make([]byte, unix.CmsgSpace(4*4))
	_, oobn, _, _, err := nc.ReadMsgUnix(buf, oob)
	if err != nil {
		return -1, fmt.Errorf("the view sent no terminal: %w", err)
	}
	msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err != nil {
		return -1, fmt.Errorf("the view sent no terminal: %w", err)
	}
	fd := -1
	for _, msg := range msgs {
		fds, err := unix.ParseUnixRights(&msg)
		if err != nil {
			continue
		}
		for _, f := range fds {
			if fd < 0 {
				fd = f
			} else {
				unix.Close(f)
			}
		}
	}
	if fd < 0 {
		return -1, errors.New("the view sent no terminal")
	}
	return fd, nil
}

var envMu sync.Mutex

// lookupTerm finds the view's terminal description, with the view's COLORTERM (tcell reads it
// from the environment while looking up).
func lookupTerm(name, colorterm string) (*terminfo.Terminfo, error) {
	envMu.Lock()
	defer envMu.Unlock()
	old, had := os.LookupEnv("COLORTERM")
	os.Setenv("COLORTERM", colorterm)
	defer func() {
		if had {
			os.Setenv("COLORTERM", old)
		} else {
			os.Unsetenv("COLORTERM")
		}
	}()
	ti, err := tcell.LookupTerminfo(name)
	if err != nil {
		return nil, fmt.Errorf("tickmux does not know the terminal TERM=%q: %w", name, err)
	}
	return ti, nil
}

// A view's terminal takes typing lanes (server/mirror's lane.go).
var _ interface {
	EnableLanes()
	SetLane(l mirror.Lane, seq uint64)
} = (*viewterm.Terminal)(nil)
