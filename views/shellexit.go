package views

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"tickmux/host"
)

// A plain shell that exits with status 0 (`exit`, C-d) closes its pane, as tmux closes a pane
// whose program exits (remain-on-exit off). An ended pane stays where its end is worth reading:
// a Tick's, a program that failed (a non-zero status, a signal) and a program that is not an
// interactive shell (`!make` at the prompt: its last screen is the point).

// shellNames are the interactive shells whose clean exit closes the pane, besides $SHELL.
var shellNames = map[string]bool{
	"sh": true, "bash": true, "dash": true, "zsh": true, "fish": true, "ksh": true, "mksh": true,
	"oksh": true, "ash": true, "yash": true, "tcsh": true, "csh": true, "nu": true, "elvish": true,
	"xonsh": true, "pwsh": true,
}

// closesOnExit reports whether in's pane closes now: in is a plain interactive shell that has
// exited on its own with status 0. False until the exit status is known (Instance.Ended).
func closesOnExit(in *host.Instance) bool {
	if in.IsTick() || !isInteractiveShell(in.Argv()) {
		return false
	}
	select {
	case <-in.Ended():
	default:
		return false
	}
	info := in.EndInfo()
	return info != nil && info.ExitCode == 0 && !errors.Is(info.Err, host.ErrClosed)
}

// isInteractiveShell: a shell with options only (`bash`, `zsh -l`), not one running a command
// (`sh -c 'make'`) or a script.
func isInteractiveShell(argv []string) bool {
	if len(argv) == 0 {
		return false
	}
	name := strings.TrimPrefix(filepath.Base(argv[0]), "-")
	if !shellNames[name] && name != filepath.Base(os.Getenv("SHELL")) {
		return false
	}
	for _, arg := range argv[1:] {
		if !strings.HasPrefix(arg, "-") || arg == "-c" || (len(arg) > 1 && arg[1] != '-' && strings.ContainsRune(arg, 'c')) {
			return false
		}
	}
	return true
}
