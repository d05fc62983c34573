package views

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"tickmux/host"
	"tickmux/keymap"
)

// promptView is the command prompt (prefix + :): a command line and a working directory. One of
// tmux's commands runs as tmux runs it (tmuxcmds.go); any other command opens as a Tick; a
// leading ! runs it as a plain program through $SHELL (just ! opens a shell).
type promptView struct {
	a      *App
	open   bool
	cmd    *tview.InputField
	dir    *tview.InputField
	active int // 0 command, 1 directory
	err    string

	history []string // commands opened, oldest first
	histAt  int      // the entry shown; len(history) is the line being typed
	draft   string   // the line being typed, kept while going through the history
}

// maxHistory is how many commands the prompt remembers.
const maxHistory = 100

func newPromptView(a *App) *promptView {
	p := &promptView{a: a}
	style := a.theme.Prompt
	mk := func(label string) *tview.InputField {
		f := tview.NewInputField().SetLabel(label).SetLabelWidth(10)
		f.SetFieldStyle(style.Underline(true)).SetLabelStyle(style.Bold(true))
		f.SetBackgroundColor(tcell.ColorDefault)
		return f
	}
	p.cmd, p.dir = mk("command: "), mk("in: ")
	return p
}

func (p *promptView) show() {
	p.open, p.active, p.err = true, 0, ""
	p.cmd.SetText("")
	p.histAt, p.draft = len(p.history), ""
	dir := ""
	if fp := p.a.focusedPane(); fp != nil {
		dir = fp.inst.Process().ForegroundCwd()
	}
	if dir == "" {
		dir, _ = os.Getwd()
	}
	p.dir.SetText(dir)
	p.focusField()
}

func (p *promptView) focusField() {
	p.cmd.Blur()
	p.dir.Blur()
	if p.active == 0 {
		p.cmd.Focus(nil)
	} else {
		p.dir.Focus(nil)
	}
}

func (p *promptView) field() *tview.InputField {
	if p.active == 0 {
		return p.cmd
	}
	return p.dir
}

// handle edits the fields; Enter opens, Up and Down go through the history, Tab completes,
// Shift-Tab switches field, Esc cancels.
func (p *promptView) handle(ev *tcell.EventKey) *tcell.EventKey {
	switch ev.Key() {
	case tcell.KeyEscape:
		p.open = false
	case tcell.KeyUp, tcell.KeyDown:
		if p.active == 0 {
			p.recall(ev.Key() == tcell.KeyUp)
			break
		}
		p.active = 0
		p.focusField()
	case tcell.KeyBacktab:
		p.active = 1 - p.active
		p.focusField()
	case tcell.KeyTab:
		p.complete()
	case tcell.KeyEnter:
		p.submit()
	default:
		p.field().InputHandler()(ev, func(tview.Primitive) {})
	}
	p.a.rebuild()
	return nil
}

func (p *promptView) paste(text string) {
	p.field().PasteHandler()(strings.ReplaceAll(text, "\n", " "), func(tview.Primitive) {})
}

func (p *promptView) submit() {
	line := strings.TrimSpace(p.cmd.GetText())
	dir := expandHome(strings.TrimSpace(p.dir.GetText()))
	spec := host.OpenSpec{Dir: dir}
	switch {
	case strings.HasPrefix(line, "!"):
		spec.Shell = true
		if rest := strings.TrimSpace(line[1:]); rest != "" {
			sh := os.Getenv("SHELL")
			if sh == "" {
				sh = "/bin/sh"
			}
			spec.Argv = []string{sh, "-c", rest}
		}
	case line == "":
		p.err = "type a command (a Tick), or !command for a plain program"
		return
	case line == "open-remote" || strings.HasPrefix(line, "open-remote "): // remotepanes.go
		argv, err := splitCommand(strings.TrimPrefix(line, "open-remote"))
		if err == nil {
			err = p.a.openRemote(argv)
		}
		if err != nil {
			p.err = err.Error()
			return
		}
		p.open = false
		p.remember(line)
		return
	case line == "quit" || line == "kill-server": // as tmux's command prompt has it
		p.open = false
		p.a.do(keymap.Quit) // asks first
		return
	default:
		if handled, err := p.a.tmuxCommand(line); handled {
			if err != nil {
				p.err = err.Error()
				return
			}
			p.open = false
			p.remember(line)
			return
		}
		argv, err := splitCommand(line)
		if err != nil {
			p.err = err.Error()
			return
		}
		spec.Argv = argv
	}
	if _, err := p.a.Open(spec); err != nil {
		p.err = err.Error()
		return
	}
	p.open = false
	p.remember(line)
}

// remember adds line to the history, unless it repeats the last one.
func (p *promptView) remember(line string) {
	if n := len(p.history); n == 0 || p.history[n-1] != line {
		p.history = append(p.history, line)
		if len(p.history) > maxHistory {
			p.history = p.history[1:]
		}
	}
}

// recall shows the previous (older) or next command of the history.
func (p *promptView) recall(older bool) {
	at := p.histAt
	if older {
		at--
	} else {
		at++
	}
	if at < 0 || at > len(p.history) {
		return
	}
	if p.histAt == len(p.history) {
		p.draft = p.cmd.GetText()
	}
	p.histAt = at
	if at == len(p.history) {
		p.cmd.SetText(p.draft)
	} else {
		p.cmd.SetText(p.history[at])
	}
}

func expandHome(dir string) string {
	if dir == "~" || strings.HasPrefix(dir, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, strings.TrimPrefix(dir, "~"))
		}
	}
	return dir
}

// splitCommand splits a command line into words as a shell would for simple cases: spaces
// separate, single quotes keep everything, double quotes keep all but \" and \\, a backslash
// escapes the next character.
func splitCommand(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("unclosed single quote")
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\') {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, errors.New("unclosed double quote")
			}
			inWord = true
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	if len(words) == 0 {
		return nil, errors.New("empty command")
	}
	return words, nil
}

// draw shows the prompt as a box at the bottom of the workspace.
func (p *promptView) draw(screen tcell.Screen, w, h int) {
	th := p.a.theme
	items := []line{{{"Enter", th.KeyHint}, {" open as a Tick", th.Prompt}}, {{"!cmd", th.KeyHint}, {" a plain program", th.Prompt}},
		{{"split-window", th.KeyHint}, {" and tmux's commands", th.Prompt}}, {{"↑↓", th.KeyHint}, {" history", th.Prompt}}, {{"Tab", th.KeyHint}, {" complete", th.Prompt}},
		{{"S-Tab", th.KeyHint}, {" field", th.Prompt}}, {{"Esc", th.KeyHint}, {" cancel", th.Prompt}}}
	sep := seg{" · ", th.Prompt}
	// As wide as the hint on one row where the screen allows (it was cut, "Esc canc", at 200
	// columns); narrower, the hint wraps between its items, never inside one.
	bw := min(w-2, max(100, lineWidth(wrapItems(items, 1<<20, sep)[0])+4))
	hint := wrapItems(items, max(1, bw-4), sep)
	bh := 5 + len(hint)
	x, y := (w-bw)/2, max(0, h-1-bh)
	box := tview.NewBox().SetBorder(true).SetTitle(" open ").SetTitleAlign(tview.AlignLeft)
	box.SetBorderStyle(th.CardBorder).SetBackgroundColor(tcell.ColorDefault)
	box.SetRect(x, y, bw, bh)
	for j := y; j < y+bh; j++ {
		for i := x; i < x+bw; i++ {
			screen.SetContent(i, j, ' ', nil, th.Prompt)
		}
	}
	box.Draw(screen)
	p.cmd.SetRect(x+2, y+1, bw-4, 1)
	p.dir.SetRect(x+2, y+2, bw-4, 1)
	p.cmd.Draw(screen)
	p.dir.Draw(screen)
	for i, l := range hint {
		drawText(screen, x+2, y+3+i, bw-4, l, th.Prompt)
	}
	if p.err != "" {
		drawText(screen, x+2, y+3+len(hint), bw-4, line{untrusted(p.err, th.Error)}, th.Prompt)
	}
}
