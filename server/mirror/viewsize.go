package mirror

// The largest layout a view can ask for. A view's size comes from its terminal, which anybody
// attaching can set (`stty rows 65535 cols 65535`), and the server's memory grows with the
// layout's cells: the Mirror keeps two cells a position, every pane's emulator a screen and a
// scrollback as wide as the pane. Measured with one shell pane that had printed 3,000 lines
// (server RSS): 18 MB at 200x50, 34 MB at 500x300, 74 MB at 1000x500, 133 MB at 1000x1000,
// 230 MB at 2000x1000. 1000 columns by 500 rows is more than a 4K or 8K screen shows at a
// readable font (about 550x150 and 1100x300) and keeps a server under 100 MB; tmux's limit
// (10000x10000) allocates lazily, tickmux's layout does not. A larger view is drawn at the cap,
// with the corner note saying so (viewSizeNote).
const (
	MaxViewCols = 1000
	MaxViewRows = 500
)

// clampViewSize is the layout size a view of w x h gets: at most the cap, and 80x24 for a side
// that is not positive (a terminal that reports no size).
func clampViewSize(w, h int) (int, int) {
	switch {
	case w <= 0:
		w = 80
	case w > MaxViewCols:
		w = MaxViewCols
	}
	switch {
	case h <= 0:
		h = 24
	case h > MaxViewRows:
		h = MaxViewRows
	}
	return w, h
}
