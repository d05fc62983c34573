package host

import "errors"

// Panes of other hosts (issue 40, "one view"). A pane of another host is shown here as a local
// instance (OpenSpec.Remote) whose program is a placeholder that reads its terminal and does
// nothing; its terminal is fed by the watcher with the other host's frames (vt.Framer's output),
// and the input the views give it (keys, pastes, mouse reports, as this terminal's modes encode
// them) and the sizes its view asks for go to the other host instead of the placeholder's PTY.
// So every pane feature of the views (drawing, keys, bracketed paste, mouse, scroll mode over
// the local scrollback, zoom, layout) works as it does for a local pane.
//
// On the host that runs the program, a watcher's size overrides the size its own views ask for
// (SetSizeOverride), as tmux sizes a window for one client and shows it cropped or padded in
// the others.

// RemoteIO takes what a pane of another host is given here. Neither method may block: both are
// called with the process's locks held (Input from a view's keys, Resize from its draw).
type RemoteIO interface {
	// Input is bytes for the program's terminal, in order; b is the caller's (copy it).
	Input(b []byte)
	// Resize is the size the pane's view asks for now.
	Resize(cols, rows int)
}

// remotePlaceholder is the program of a pane of another host: it reads its terminal (nothing
// reaches it but the terminal's answers to queries, which no frame asks) until the pane closes.
var remotePlaceholder = []string{"/bin/sh", "-c", ": a pane of another host, shown here; exec cat >/dev/null"}

// remoteSpec is spec with the placeholder as its program.
func remoteSpec(spec OpenSpec) OpenSpec {
	spec.Argv, spec.Shell, spec.Sandbox, spec.ByAgent, spec.Preface = remotePlaceholder, true, false, false, nil
	return spec
}

// Remote is the RemoteIO of a pane of another host, nil for every other pane.
func (in *Instance) Remote() RemoteIO { return in.spec.Remote }

// SetSizeOverride gives the terminal cols x rows, kept whatever Resize asks, until
// ClearSizeOverride: a watcher on another host shows the pane at its own size.
func (p *Process) SetSizeOverride(cols, rows int) error {
	if cols <= 0 || rows <= 0 {
		return ErrBadSize
	}
	p.sizeMu.Lock()
	defer p.sizeMu.Unlock()
	if p.wantCols == 0 {
		p.wantCols, p.wantRows = p.cols, p.rows
	}
	p.overCols, p.overRows = cols, rows
	return p.resizeLocked(cols, rows)
}

// ClearSizeOverride gives the terminal back the size Resize asked for last.
func (p *Process) ClearSizeOverride() {
	p.sizeMu.Lock()
	defer p.sizeMu.Unlock()
	if p.overCols == 0 {
		return
	}
	p.overCols, p.overRows = 0, 0
	if p.wantCols > 0 {
		_ = p.resizeLocked(p.wantCols, p.wantRows)
	}
}

// ErrBadSize is a size with no column or no row.
var ErrBadSize = errors.New("a terminal needs one column and one row at least")
