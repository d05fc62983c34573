package remotewire

// Feature "panes" (issue 40, "one view"): the host's tabs and panes shown and used in the local
// tickmux. The local side watches a pane at its own size; the remote sends its screen as frames
// of terminal output (vt.Framer: only what it builds from the screen's cells, never the program's
// bytes), one frame in flight per pane: the next goes only after the local side acked the last,
// with every change meanwhile in it, so a pane that floods costs one screen's changes per round
// trip. Keys, pastes and mouse reports go back as the local terminal encoded them.

// FeaturePanes is remote/panes, remote/watch, remote/unwatch, remote/input, remote/resize,
// remote/open and their notifications.
const FeaturePanes = "panes"

// Methods of FeaturePanes, local → remote. Requests (with an id) are answered; remote/input and
// remote/ack are notifications (no id, no answer), which nothing but a hello'd connection with
// the feature may send.
const (
	// MethodPanes lists the tabs and their panes: {} → PanesResult.
	MethodPanes = "remote/panes"
	// MethodWatch starts the frames of a pane at the watcher's size: WatchParams → {}. The
	// pane's terminal takes that size (the host's own views show it cropped or padded) until
	// unwatched or the connection ends. Watching a pane watched already starts it again with a
	// whole frame.
	MethodWatch = "remote/watch"
	// MethodUnwatch ends a watch: PaneParams → {}.
	MethodUnwatch = "remote/unwatch"
	// MethodResize sets a watched pane's size: WatchParams → {}.
	MethodResize = "remote/resize"
	// MethodOpen opens a plain program in a pane there, as the person does from a view there:
	// OpenParams → OpenResult.
	MethodOpen = "remote/open"
	// MethodInput (notification) types into a pane: InputParams.
	MethodInput = "remote/input"
	// MethodAck (notification) says frame Seq of a pane was shown: AckParams. The next frame
	// goes out after it.
	MethodAck = "remote/ack"
)

// Notifications of FeaturePanes, remote → local.
const (
	// NotifyFrame carries FrameParams.
	NotifyFrame = "remote/frame"
	// NotifyPaneEnded says a watched pane ended (its watch ends with it): PaneEndedParams.
	NotifyPaneEnded = "remote/pane_ended"
	// NotifyPanes carries PanesResult when the panes changed (one came, one went), to a
	// connection that listed them.
	NotifyPanes = "remote/panes"
)

// PanesResult is the host's tabs, in order.
type PanesResult struct {
	Tabs []Tab `json:"tabs"`
}

// Tab is one tab of the host and its panes, in its layout's order.
type Tab struct {
	Index int    `json:"index"`
	Name  string `json:"name"`
	Panes []Pane `json:"panes"`
}

// Pane is one pane of a tab.
type Pane struct {
	ID    string `json:"id"` // shell:1, hosted:2
	Title string `json:"title,omitempty"`
	Kind  string `json:"kind,omitempty"` // "tick" or "plain"
	// Cols and Rows are the pane's terminal size there.
	Cols int `json:"cols,omitempty"`
	Rows int `json:"rows,omitempty"`
}

// Pane kinds.
const (
	KindTick  = "tick"
	KindPlain = "plain"
)

// PaneParams name a pane.
type PaneParams struct {
	Pane string `json:"pane"`
}

// WatchParams watch or resize a pane at the watcher's size.
type WatchParams struct {
	Pane string `json:"pane"`
	Cols int    `json:"cols"`
	Rows int    `json:"rows"`
}

// FrameParams is one frame of a watched pane: Data, written to a terminal that shows the frame
// before it (none, for Seq 1 and after a watch or a resize: then it is whole), makes it show
// the pane; Cols and Rows are the size it was made at.
type FrameParams struct {
	Pane string `json:"pane"`
	Seq  uint64 `json:"seq"`
	Cols int    `json:"cols"`
	Rows int    `json:"rows"`
	Data string `json:"data"`
}

// AckParams ack frame Seq of Pane.
type AckParams struct {
	Pane string `json:"pane"`
	Seq  uint64 `json:"seq"`
}

// InputParams are bytes for a pane's terminal, as the local terminal encoded the keys, paste or
// mouse report.
type InputParams struct {
	Pane string `json:"pane"`
	Data []byte `json:"data"`
}

// PaneEndedParams say why a watched pane ended.
type PaneEndedParams struct {
	Pane   string `json:"pane"`
	Reason string `json:"reason"`
}

// OpenParams open Argv in Dir ("" the host's default): a plain program when Plain is set or
// Argv is empty (a shell), else a Tick.
type OpenParams struct {
	Argv  []string `json:"argv,omitempty"`
	Dir   string   `json:"dir,omitempty"`
	Plain bool     `json:"plain,omitempty"`
}

// OpenResult names the pane opened.
type OpenResult struct {
	Pane string `json:"pane"`
}

// MaxPaneSize bounds a watcher's size (the local view's own cap).
const (
	MaxPaneCols = 1000
	MaxPaneRows = 500
)
