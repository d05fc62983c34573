package server

import (
	"fmt"
	"sync"
	"time"

	"tickmux/config"
	"tickmux/host/journal"
	"tickmux/host/snapshot"
	"tickmux/views"
)

// Restore after a crash or a reboot (issue 39). The server snapshots its session while it runs
// (snapshotter) and marks the last snapshot with how it ended when it ends by itself: quit, the
// last pane closing, kill-server. A start that finds a newest snapshot with no end is after a
// server that died: its waiting cards get their outcome line in the journal ("voided: the server
// ended"), and its session is offered (restore = "ask"), restored (auto) or left (off).

// Snapshot pacing: a change is written at most every snapshotEvery, and not before it has been
// quiet for snapshotSettle (a burst of frames is one snapshot).
const (
	snapshotEvery  = 2 * time.Second
	snapshotSettle = 300 * time.Millisecond
)

// SnapshotDir is the directory of the snapshots of the server on socket.
func SnapshotDir(journalDir, socket string) (string, error) {
	if journalDir == "" {
		d, err := journal.DefaultDir()
		if err != nil {
			return "", err
		}
		journalDir = d
	}
	return snapshot.Dir(journalDir, socket), nil
}

// restorePlan is what a start does with the snapshot it found.
type restorePlan struct {
	sess *snapshot.Session
	name string
	mode string // config.RestoreAsk, RestoreAuto (a forced generation is auto)
}

// planRestore reads the snapshots of the server on socket: the newest, when it is of a server
// that died, or generation name when one is asked for (tickmux restore N). The cards the dead
// server left waiting are voided in the journal. Problems are logged and said on the status
// line; none stops the start.
func planRestore(dir, name, mode string, jr *journal.Journal, logf func(string, ...any)) (restorePlan, []string) {
	var notes []string
	if dir == "" || (mode == config.RestoreOff && name == "") {
		return restorePlan{}, nil
	}
	var sess *snapshot.Session
	var err error
	if name != "" {
		sess, err = snapshot.Load(dir, name)
		mode = config.RestoreAuto
	} else {
		var skipped []string
		sess, name, skipped, err = snapshot.Latest(dir)
		for _, s := range skipped {
			logf("restore: %s", s)
			notes = append(notes, s)
		}
	}
	if err != nil {
		logf("restore: %v", err)
		notes = append(notes, "cannot restore: "+err.Error())
		return restorePlan{}, notes
	}
	if sess == nil {
		return restorePlan{}, notes
	}
	if sess.Ended == "" {
		if n := voidWaiting(jr, sess.Run); n > 0 {
			logf("restore: %d card(s) of run %s were waiting when the server died: voided in the journal", n, sess.Run)
		}
	}
	if sess.Ended != "" && mode != config.RestoreAuto {
		return restorePlan{}, notes // it ended by itself: nothing to offer
	}
	if sess.Ended != "" && name == "" {
		return restorePlan{}, notes
	}
	if len(sess.Tabs) == 0 {
		return restorePlan{}, notes
	}
	logf("restore: found %s (%s, %d tabs, %d panes, ended %q): %s", name, sess.Time.Format(time.RFC3339), len(sess.Tabs), sess.Panes(), sess.Ended, mode)
	return restorePlan{sess: sess, name: name, mode: mode}, notes
}

// voidWaiting writes the outcome line of every card of run that has a waiting line and none
// else: the server that showed them died before they were answered. It returns how many.
func voidWaiting(jr *journal.Journal, run string) int {
	if jr == nil || run == "" {
		return 0
	}
	entries, err := jr.Entries()
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range journal.Collapse(entries) {
		if e.Run != run || e.Decision != journal.Waiting || e.Card == nil {
			continue
		}
		e.Decision = journal.Voided
		e.Outcome = &journal.Outcome{Status: journal.StatusError, Message: "the server ended", Effect: "none"}
		e.WaitedMS = time.Since(e.Time).Milliseconds()
		e.Time = time.Now()
		if jr.AppendOfRun(e) == nil {
			n++
		}
	}
	return n
}

// snapshotter writes the App's session to the store when it changed, paced (snapshotEvery), and
// nothing while nothing changes: it wakes only when the App draws.
type snapshotter struct {
	store  *snapshot.Store
	app    *views.App
	opts   views.SnapshotOptions
	socket string
	run    string
	logf   func(string, ...any)

	poke    chan struct{}
	done    chan struct{}
	wg      sync.WaitGroup
	mu      sync.Mutex
	enabled bool // false while the restore's question waits: the dead server's snapshot stays newest
	frozen  bool // the shutdown began: nothing more is written but the end's mark
	failed  bool // the last write failed (said once in the log)
}

func newSnapshotter(store *snapshot.Store, a *views.App, cfg *config.Config, socket, run string, logf func(string, ...any)) *snapshotter {
	return &snapshotter{store: store, app: a, socket: socket, run: run, logf: logf,
		opts: views.SnapshotOptions{Scrollback: cfg.RestoreScrollback, Env: cfg.RestoreEnv},
		poke: make(chan struct{}, 1), done: make(chan struct{})}
}

// changed is the App's Changed: a frame was drawn. It never blocks.
func (s *snapshotter) changed() {
	select {
	case s.poke <- struct{}{}:
	default:
	}
}

// enable lets snapshots be written (after the restore's question, or at once when none is asked).
func (s *snapshotter) enable() {
	s.mu.Lock()
	s.enabled = true
	s.mu.Unlock()
	s.changed()
}

// start runs the loop. owner: the server; it ends at stop.
func (s *snapshotter) start() {
	s.wg.Add(1)
	go s.loop() // owner: snapshotter; ends when done closes
}

func (s *snapshotter) loop() {
	defer s.wg.Done()
	var last time.Time
	for {
		select {
		case <-s.done:
			return
		case <-s.poke:
		}
		// Let the burst settle, and keep to one write per snapshotEvery.
		wait := max(snapshotSettle, time.Until(last.Add(snapshotEvery)))
		t := time.NewTimer(wait)
		select {
		case <-s.done:
			t.Stop()
			return
		case <-t.C:
		}
		select { // the pokes of the wait are this snapshot's
		case <-s.poke:
		default:
		}
		s.mu.Lock()
		enabled := s.enabled && !s.frozen
		s.mu.Unlock()
		if !enabled {
			continue
		}
		s.write()
		last = time.Now()
	}
}

// write takes the App's session and stores it.
func (s *snapshotter) write() {
	sess, ok := s.app.TakeSnapshot(s.opts)
	if !ok {
		return
	}
	sess.Socket, sess.Run = s.socket, s.run
	if _, err := s.store.Write(sess); err != nil {
		if !s.failed {
			s.logf("snapshot: %v", err)
		}
		s.failed = true
		return
	}
	s.failed = false
}

// stop ends the loop and, when the server ended by itself (how: "quit", "kill-server", "last pane
// closed"), marks the newest snapshot so that the next start does not offer it. A server that
// was stopped otherwise (a signal: a reboot's SIGTERM) leaves it unmarked.
func (s *snapshotter) stop(how string) {
	close(s.done)
	s.wg.Wait()
	s.mu.Lock()
	enabled := s.enabled
	s.mu.Unlock()
	defer s.store.Close()
	if how == "" || !enabled {
		return
	}
	if err := s.store.End(how); err != nil {
		s.logf("snapshot: cannot mark the end (%s): %v", how, err)
	}
}

// restoreNotes is what the status line says of the restore at start.
func restoreNotes(notes []string) string {
	if len(notes) == 0 {
		return ""
	}
	return fmt.Sprint(notes[0])
}

// freeze stops writing snapshots: the shutdown began, and the panes ending now are not a change
// of the session to keep.
func (s *snapshotter) freeze() {
	s.mu.Lock()
	s.frozen = true
	s.mu.Unlock()
}

// endedBy says how the server ended, for the snapshot's mark: "" when a signal stopped it.
func (s *srv) endedBy() string {
	if s.killed.Load() {
		return "kill-server"
	}
	return s.a.EndedBy()
}
