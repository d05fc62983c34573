package views

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"tickmux/config"
	"tickmux/host"
	"tickmux/keymap"
)

// tmux's commands at the `:` prompt (issue 42 item 17): what a tmux user types there on day one,
// with tmux's names and flags. Anything else typed at the prompt opens as a Tick, as before.

// tmuxCommand runs line when it is one of tmux's commands; handled is false when it is not (the
// prompt then opens it as a Tick). err is what the prompt says when the command is wrong.
func (a *App) tmuxCommand(line string) (handled bool, err error) {
	words, err := splitCommand(line)
	if err != nil || len(words) == 0 {
		return false, nil
	}
	name, args := words[0], words[1:]
	switch name {
	case "split-window", "splitw":
		axis, rest, err := splitFlags(args)
		if err != nil {
			return true, err
		}
		spec := host.OpenSpec{}
		if len(rest) > 0 { // tmux runs the command as the shell's: here a plain program
			spec.Argv = shellCommand(strings.Join(rest, " "))
		}
		a.splitShellWith(spec, axis)
	case "new-window", "neww":
		tabName := ""
		for len(args) > 0 && strings.HasPrefix(args[0], "-") {
			switch {
			case args[0] == "-n" && len(args) > 1:
				tabName, args = args[1], args[2:]
			case args[0] == "-d":
				args = args[1:] // tickmux shows the new tab; -d is taken and ignored
			default:
				return true, fmt.Errorf("new-window: unknown flag %s (new-window [-n NAME] [COMMAND])", args[0])
			}
		}
		n := len(a.tabs)
		if len(args) > 0 {
			a.newTabWith(host.OpenSpec{Shell: true, Argv: shellCommand(strings.Join(args, " "))})
		} else {
			a.newTab()
		}
		if len(a.tabs) > n && tabName != "" {
			a.tab.name = tabName
		}
	case "kill-pane", "killp":
		a.do(keymap.ClosePane)
	case "kill-window", "killw":
		a.do(keymap.KillTab)
	case "select-layout", "selectl":
		if len(args) != 1 {
			return true, fmt.Errorf("select-layout NAME: even-horizontal, even-vertical, main-horizontal, main-vertical or tiled")
		}
		for p := Preset(0); p < numPresets; p++ {
			if p.String() == args[0] {
				a.tab.layout.ApplyPreset(p)
				a.full = true
				a.say("layout: " + p.String())
				return true, nil
			}
		}
		return true, fmt.Errorf("select-layout %s: use even-horizontal, even-vertical, main-horizontal, main-vertical or tiled", args[0])
	case "rename-window", "renamew":
		if len(args) == 0 {
			a.renameTab()
			return true, nil
		}
		a.tab.name = strings.Join(args, " ")
	case "rename-pane":
		if p := a.focusedPane(); p != nil {
			p.name = strings.Join(args, " ")
		}
	case "resize-pane", "resizep":
		return true, a.resizePane(args)
	case "source-file", "source":
		path := a.cfg.Path
		if len(args) > 0 {
			path = expandHome(args[0])
		}
		return true, a.ReloadConfig(path)
	default:
		return false, nil
	}
	return true, nil
}

// splitFlags reads split-window's -h (side by side) and -v (one above the other, tmux's
// default); the rest is the command.
func splitFlags(args []string) (Axis, []string, error) {
	axis := Stacked
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		switch args[0] {
		case "-h":
			axis = SideBySide
		case "-v":
			axis = Stacked
		case "-d":
		default:
			return axis, nil, fmt.Errorf("split-window: unknown flag %s (split-window [-h|-v] [COMMAND])", args[0])
		}
		args = args[1:]
	}
	return axis, args, nil
}

// shellCommand runs line through the person's shell, as tmux runs a command it is given.
func shellCommand(line string) []string {
	sh := os.Getenv("SHELL")
	if sh == "" {
		sh = "/bin/sh"
	}
	return []string{sh, "-c", line}
}

// resizePane is tmux's resize-pane: -L, -R, -U or -D and a count of cells (1 by default, as
// tmux's), or -Z to zoom.
func (a *App) resizePane(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("resize-pane -L|-R|-U|-D [N], or -Z")
	}
	if args[0] == "-Z" {
		a.tab.layout.Zoom(a.tab.focus)
		a.full = true
		return nil
	}
	dirs := map[string]Direction{"-L": Left, "-R": Right, "-U": Up, "-D": Down}
	d, ok := dirs[args[0]]
	if !ok {
		return fmt.Errorf("resize-pane %s: use -L, -R, -U, -D (and a count) or -Z", args[0])
	}
	n := 1
	if len(args) > 1 {
		v, err := strconv.Atoi(args[1])
		if err != nil || v < 1 || v > 1000 {
			return fmt.Errorf("resize-pane: %q is not a count of cells", args[1])
		}
		n = v
	}
	if !a.tab.layout.Resize(a.tab.focus, d, n) {
		return fmt.Errorf("resize-pane: the pane cannot grow that way")
	}
	a.full = true
	return nil
}

// ReloadConfig reads the config file at path again and applies what a running tickmux can take
// at once: the theme and colours, the key bindings, side_panel, notify and the restore settings.
// The rest (sandbox, scrollback, hosts, the journal's bound) is the server's own and holds until
// it starts again; the message says so. UI goroutine (source-file, tickmux reload).
func (a *App) ReloadConfig(path string) error {
	if path == "" {
		path = config.DefaultPath()
	}
	cfg, err := config.Load(path)
	if err != nil {
		return err
	}
	old := a.cfg
	// What the server set up at its start stays as it was.
	cfg.Sandbox, cfg.SandboxWrite, cfg.Scrollback, cfg.Hosts, cfg.JournalMaxBytes = old.Sandbox, old.SandboxWrite, old.Scrollback, old.Hosts, old.JournalMaxBytes
	a.cfg, a.theme, a.keys = cfg, cfg.Theme, cfg.Keymap
	a.panel.theme, a.panel.keys = cfg.Theme, cfg.Keymap
	a.panel.cards = nil // built with the old theme
	a.status.theme, a.status.keys = cfg.Theme, cfg.Keymap
	for _, p := range a.panes {
		p.theme = cfg.Theme
		p.plainKeys = plainKeysOf(cfg.Keymap)
		p.invalidate()
	}
	a.plainFree = 0 // the root table may bind printable keys now (lane.go)
	a.routeChanged()
	a.full = true
	a.say("read " + path + " again: keys, theme, side panel, notify and restore now; sandbox, scrollback and hosts at the next start")
	a.rebuild()
	return nil
}

// newTabWith opens a tab running spec (in the focused pane's directory when spec has none), as
// tmux's new-window COMMAND does.
func (a *App) newTabWith(spec host.OpenSpec) {
	if spec.Dir == "" {
		if p := a.focusedPane(); p != nil {
			spec.Dir = p.inst.Process().ForegroundCwd()
		}
	}
	old, back := a.tab.focus, a.tab
	a.tabs = append(a.tabs, &tab{})
	a.showTab(a.tabs[len(a.tabs)-1])
	if _, err := a.OpenBeside(spec, "", SideBySide); err != nil {
		a.tabs = a.tabs[:len(a.tabs)-1]
		a.showTab(back)
		a.say(err.Error())
		return
	}
	if p := a.panes[old]; p != nil {
		p.term.FocusChanged(false)
	}
	a.lastPane = old
}

// Reload is ReloadConfig from any goroutine (tickmux reload): path "" is the file the server
// started with. It returns what the status line says.
func (a *App) Reload(path string) (string, error) {
	var err error
	var msg string
	if !a.post(func() {
		if path == "" {
			path = a.cfg.Path
		}
		if err = a.ReloadConfig(path); err == nil {
			msg = a.message
		}
	}) {
		return "", errors.New("tickmux is stopping")
	}
	return msg, err
}
