package views

import (
	"os"
	"strings"

	"github.com/gdamore/tcell/v2"

	"tickmux/config"
	"tickmux/keymap"
)

// helpView lists every binding of the keymap (prefix + ?). Typing filters the list; Up, Down and
// the page keys scroll; Esc closes.
type helpView struct {
	a      *App
	open   bool
	query  string
	scroll int
}

func newHelpView(a *App) *helpView { return &helpView{a: a} }

func (h *helpView) show() { h.open, h.query, h.scroll = true, "", 0 }

func (h *helpView) handle(ev *tcell.EventKey) {
	switch ev.Key() {
	case tcell.KeyEscape:
		h.open = false
	case tcell.KeyUp:
		h.scroll = max(0, h.scroll-1)
	case tcell.KeyDown:
		h.scroll++
	case tcell.KeyPgUp:
		h.scroll = max(0, h.scroll-10)
	case tcell.KeyPgDn:
		h.scroll += 10
	case tcell.KeyBackspace, tcell.KeyBackspace2:
		if r := []rune(h.query); len(r) > 0 {
			h.query = string(r[:len(r)-1])
			h.scroll = 0
		}
	case tcell.KeyRune:
		h.query += string(ev.Rune())
		h.scroll = 0
	}
}

// rows are the lines the overlay shows for the current query, w cells wide: a binding's
// description wraps under itself, at a word, rather than being cut.
func (h *helpView) rows(w int) []line {
	th := h.a.theme
	k := h.a.keys
	q := strings.ToLower(h.query)
	var out []line
	var mode keymap.Mode
	for _, b := range k.Bindings() {
		keyText := b.Key.String()
		if b.Mode == keymap.ModePrefix {
			keyText = k.Prefix.String() + " " + keyText
		}
		text := strings.ToLower(string(b.Mode) + " " + keyText + " " + string(b.Action) + " " + b.Action.Help())
		if q != "" && !strings.Contains(text, q) {
			continue
		}
		if b.Mode != mode {
			mode = b.Mode
			if len(out) > 0 {
				out = append(out, nil)
			}
			out = append(out, plain(modeTitle(mode), th.PanelHeading))
		}
		head := line{{"  " + padRight(keyText, 14), th.KeyHint}, {padRight(string(b.Action), 18), th.Prompt}}
		indent := lineWidth(head)
		if w-indent < 24 { // too narrow for a column: the description goes under the key
			out = append(out, head)
			head, indent = line{{"      ", th.Prompt}}, 6
		}
		for i, d := range wrapWords(b.Action.Help(), max(w-indent, 8)) {
			if i > 0 {
				head = line{{strings.Repeat(" ", indent), th.Prompt}}
			}
			out = append(out, append(head, seg{d, th.Prompt}))
		}
	}
	legend := false
	for _, l := range statusLegend {
		if q != "" && !strings.Contains(strings.ToLower("status bar "+l[0]+" "+l[1]), q) {
			continue
		}
		if !legend {
			legend = true
			if len(out) > 0 {
				out = append(out, nil)
			}
			out = append(out, plain("On the status bar, after a pane's id and title", th.PanelHeading))
		}
		head := line{{"  " + padRight(l[0], 14), th.KeyHint}}
		for i, d := range wrapWords(l[1], max(w-16, 8)) {
			if i > 0 {
				head = line{{strings.Repeat(" ", 16), th.Prompt}}
			}
			out = append(out, append(head, seg{d, th.Prompt}))
		}
	}
	if len(out) == 0 {
		out = append(out, plain("no binding matches", th.PanelMuted))
	}
	return out
}

// statusLegend says what the marks after a pane on the status bar mean (statusbar.go draws them).
var statusLegend = [][2]string{
	{"·N", "a Tick's state updates received since it started (·1.2k, ·34k)"},
	{"✗ … ⚑ Z", "ended; starting; an approval card waits; zoomed"},
}

func modeTitle(m keymap.Mode) string {
	switch m {
	case keymap.ModePrefix:
		return "After the prefix"
	case keymap.ModeRoot:
		return "Anywhere"
	case keymap.ModeCard:
		return "On an approval card"
	case keymap.ModePanel:
		return "In the side panel, when it has the focus"
	case keymap.ModeScroll:
		return "In scroll mode"
	case keymap.ModeLocked:
		return "In locked mode"
	case keymap.ModeEnded:
		return "On an ended pane"
	}
	return string(m)
}

func padRight(s string, n int) string {
	if w := width(s); w < n {
		return s + strings.Repeat(" ", n-w)
	}
	return s + " "
}

// configPath is the config file tickmux read, or the one it would read, with the home directory
// written ~.
func (h *helpView) configPath() string {
	p := h.a.cfg.Path
	if p == "" {
		p = config.DefaultPath()
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" && strings.HasPrefix(p, home+"/") {
		p = "~" + p[len(home):]
	}
	return p
}

// overlayRect is where an overlay (the help, the tree) goes on a w x h screen: inside the
// workspace, never over the side panel or the status bar; at most maxW wide, centred. A narrow
// workspace is covered whole (no pane text at its edges); a large one shows the panes around it.
// A workspace too small to hold one (the panel shown on a narrow screen) gives it the whole
// screen above the status bar.
func (a *App) overlayRect(w, h, maxW int) Rect {
	r := a.workspaceRect(w, h)
	if r.W < 10 || r.H < 3 {
		r = Rect{0, 0, w, max(0, h-1)}
	}
	if r.W >= 100 {
		r.X, r.W = r.X+2, r.W-4
	}
	if r.H >= 30 {
		r.Y, r.H = r.Y+1, r.H-2
	}
	if r.W > maxW {
		r.X, r.W = r.X+(r.W-maxW)/2, maxW
	}
	return r
}

// draw shows the help in a box inside the workspace: the title and the config file, the
// search, the bindings, and a footer; a short box drops the footer, then the bindings.
func (h *helpView) draw(screen tcell.Screen, w, hh int) {
	th := h.a.theme
	in := drawBox(screen, h.a.overlayRect(w, hh, 92), th.CardBorder, th.Prompt, line{{" help ", th.CardBorder}})
	if in.W < 3 || in.H < 1 {
		return
	}
	x, cw := in.X+1, in.W-2 // a column of room on each side inside
	drawText(screen, x, in.Y, cw, line{{"tickmux keys", th.PanelHeading}, untrusted("  (config: "+h.configPath()+")", th.Prompt)}, th.Prompt)
	if in.H < 2 {
		return
	}
	drawText(screen, x, in.Y+1, cw, line{{"search: ", th.Prompt.Bold(true)}, untrusted(h.query, th.Prompt), {"█", th.Prompt}}, th.Prompt)
	top, foot := 2, in.H
	if in.H >= 5 { // a blank row under the search, and the footer
		top, foot = 3, in.H-1
		drawText(screen, x, in.Y+foot, cw, line{{"type to search · ↑↓ PgUp PgDn scroll · Esc close", th.PanelMuted}}, th.Prompt)
	}
	rows := h.rows(cw)
	view := foot - top
	h.scroll = max(0, min(h.scroll, len(rows)-view))
	for i := 0; i < view; i++ {
		var l line
		if h.scroll+i < len(rows) {
			l = rows[h.scroll+i]
		}
		drawText(screen, x, in.Y+top+i, cw, l, th.Prompt)
	}
}
