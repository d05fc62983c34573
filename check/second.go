package check

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"tickmux/host"
)

// stderrWatch is how long the second run watches before SIGTERM, so a Tick's start-up logging
// shows on stderr.
const stderrWatch = 300 * time.Millisecond

// probeSecondRun starts the Tick again and sends SIGTERM once it is ready (spec 4.5). In this run
// its stderr goes to a file instead of the view: /bin/sh execs the Tick with fd 2 redirected, so
// the Tick is the same process on the same PTY (its controlling terminal, /dev/tty) and only its
// stderr differs. Whatever it wrote there would have shown in the view: diagnostic logging, which
// the Tick should keep in a log file of its own (spec 3.1, C-L1).
func probeSecondRun(ctx context.Context, r *Report, h *host.Host, opts Options) {
	argv, logPath, cleanup := stderrToFile(opts)
	defer cleanup()
	launch := func(argv []string) (*host.Instance, bool) {
		in, err := h.Open(host.OpenSpec{Argv: argv, Dir: opts.Dir, Env: opts.Env})
		if err != nil {
			r.step("exits on SIGTERM", false, "could not start it again: %v", err)
			return nil, false
		}
		select {
		case <-in.Ready():
		case <-ctx.Done():
			in.Close()
			return nil, false
		}
		return in, true
	}
	in, ok := launch(argv)
	if !ok {
		return
	}
	if in.Status() != host.StatusReady && logPath != "" {
		// Perhaps it needs its stderr on the terminal: judge SIGTERM without the stderr probe.
		r.step("no logging to stderr", true, "skipped: with its stderr apart the Tick did not start (%s)", host.Printable(in.EndInfo().Reason, false))
		in.Close()
		if in, ok = launch(opts.Argv); !ok {
			return
		}
		logPath = ""
	}
	defer in.Close()
	if in.Status() != host.StatusReady {
		r.find("C-X3", SevWarning, "the Tick initialized once but not a second time: %s", in.EndInfo().Reason)
		r.step("exits on SIGTERM", false, "the second start failed: %s", host.Printable(in.EndInfo().Reason, false))
		return
	}
	if logPath != "" {
		t := time.NewTimer(stderrWatch)
		select {
		case <-t.C:
		case <-in.Ended():
		}
		t.Stop()
	}
	start := time.Now()
	_ = in.Process().Signal(syscall.SIGTERM)
	t := time.NewTimer(opts.exitWait)
	defer t.Stop()
	select {
	case <-in.Process().Exited():
		r.step("exits on SIGTERM", true, "exited %v after SIGTERM (%s)", time.Since(start).Round(time.Millisecond), in.Process().ExitStatus())
	case <-t.C:
		r.find("C-X2", SevNote, "the Tick did not exit within %v of SIGTERM (spec 4.5)", opts.exitWait)
		r.step("exits on SIGTERM", false, "still running %v after SIGTERM", opts.exitWait)
	}
	in.Close()
	if logPath == "" {
		if argv[0] == opts.Argv[0] {
			r.step("no logging to stderr", true, "skipped: cannot run the Tick with its stderr apart")
		}
		return
	}
	b, _ := os.ReadFile(logPath)
	if len(b) == 0 {
		r.step("no logging to stderr", true, "nothing written to stderr")
		return
	}
	if draws(b) {
		// Cursor movement, clearing, the alternate screen: the Tick draws its UI on fd 2, which
		// is its terminal in a real run. The draft forbids diagnostic logs there, not drawing.
		r.step("no logging to stderr", true, "%d bytes of terminal drawing (escape sequences that move the cursor or clear) on stderr, taken for its UI", len(b))
		return
	}
	first, _, _ := strings.Cut(string(stripSGR(b)), "\n")
	if len(first) > 120 {
		first = first[:120] + "…"
	}
	r.find("C-L1", SevWarning, "the Tick wrote %d bytes to stderr, which shows in the view (first line %q); diagnostic logs belong in the Tick's own log file (spec 3.1)", len(b), host.Printable(first, false))
	r.step("no logging to stderr", false, "%d bytes written to stderr", len(b))
}

// stderrToFile returns an argv that runs the Tick with its stderr appended to a new file, the
// file's path, and a cleanup. When that cannot be arranged it returns the argv unchanged and "".
func stderrToFile(opts Options) ([]string, string, func()) {
	none := func() {}
	sh, err := exec.LookPath("sh")
	if err != nil || len(opts.Argv) == 0 {
		return opts.Argv, "", none
	}
	cmd, err := resolveArgv0(opts.Argv[0], opts.Dir)
	if err != nil {
		return opts.Argv, "", none
	}
	f, err := os.CreateTemp("", "tickmux-check-stderr-*")
	if err != nil {
		return opts.Argv, "", none
	}
	f.Close()
	argv := append([]string{sh, "-c", `exec "$@" 2>>` + shellQuote(f.Name()), "sh", cmd}, opts.Argv[1:]...)
	return argv, f.Name(), func() { os.Remove(f.Name()) }
}

// resolveArgv0 finds the command as the host would (H-S1): with a slash relative to dir, bare
// in PATH.
func resolveArgv0(name, dir string) (string, error) {
	if !strings.Contains(name, "/") {
		return exec.LookPath(name)
	}
	if !filepath.IsAbs(name) && dir != "" {
		name = filepath.Join(dir, name)
	}
	return filepath.Abs(name)
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// draws reports whether output on stderr is terminal drawing rather than lines of text: any
// escape sequence other than SGR (colour and attributes: CSI ... m), such as cursor movement,
// clearing or the alternate screen, or a carriage return that does not end a line (a line drawn
// over). Coloured log lines are lines of text: logging, coloured or not (C-L1).
func draws(b []byte) bool {
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '\r':
			if i+1 < len(b) && b[i+1] != '\n' {
				return true
			}
		case 0x1b:
			n, sgr := csiLen(b[i:])
			if !sgr {
				return true
			}
			i += n - 1
		}
	}
	return false
}

// csiLen measures the escape sequence at the start of b (which begins with ESC) and reports
// whether it is a complete SGR sequence: ESC [, parameter bytes 0-9 ; :, and the final m.
func csiLen(b []byte) (int, bool) {
	if len(b) < 2 || b[1] != '[' {
		return 1, false
	}
	for j := 2; j < len(b); j++ {
		switch c := b[j]; {
		case c >= '0' && c <= '9', c == ';', c == ':':
		case c == 'm':
			return j + 1, true
		default:
			return j + 1, false
		}
	}
	return len(b), false
}

// stripSGR removes SGR sequences, so a coloured log line is quoted as its text.
func stripSGR(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] == 0x1b {
			if n, sgr := csiLen(b[i:]); sgr {
				i += n - 1
				continue
			}
		}
		out = append(out, b[i])
	}
	return out
}
