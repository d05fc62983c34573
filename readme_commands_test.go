package main

// Every command line of README.md is run by a test exactly as written (issue 42): the lines of its
// sh code blocks, and any line of another block that starts with `tickmux ` or `go run . `.
// readmeCases lists the lines it knows how to run and how; a README line none of them names fails
// the test, and so does a case whose line the README no longer has. Lines that need a terminal are
// typed into a shell in tmux, as a person types them; the others run with sh -c. Either way
// `tickmux` is this test binary copied under that name onto PATH, talking to the test's socket.

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"tickmux/internal/sockpath"
)

// readmeCommandLines returns every command line of README.md's code blocks, as written.
func readmeCommandLines(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	lang, in := "", false
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, "```"); ok {
			lang, in = strings.TrimSpace(rest), !in
			continue
		}
		if !in || strings.TrimSpace(l) == "" {
			continue
		}
		if lang == "sh" || strings.HasPrefix(l, "tickmux ") || l == "tickmux" || strings.HasPrefix(l, "go run . ") {
			lines = append(lines, l)
		}
	}
	return lines
}

// readmeCase runs some of the README's lines.
type readmeCase struct {
	lines []string // exactly as in the README
	why   string   // for a case that is not run: why not
	run   func(t *testing.T, r *readmeRig)
}

// readmeRig is a tmux rig whose shells find this test binary as tickmux on PATH, and the go
// command with the person's caches.
type readmeRig struct {
	*tmuxRig
	bin, wd string
}

// sh runs line with sh -c, in the checkout, and returns its output and exit status.
func (r *readmeRig) sh(t *testing.T, line string) (string, int) {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", line)
	cmd.Env, cmd.Dir = r.env, r.wd
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("sh -c %q: %v", line, err)
	}
	return string(out), code
}

// shOK runs line with sh -c and fails the test unless it exits 0 and its output matches want.
func (r *readmeRig) shOK(t *testing.T, line, want string) string {
	t.Helper()
	out, code := r.sh(t, line)
	if code != 0 || !regexp.MustCompile(want).MatchString(out) {
		t.Fatalf("%s\nexited %d, want 0 and output matching %q:\n%s", line, code, want, out)
	}
	return out
}

// terminal opens a new terminal (a tmux session of 200x50) running a shell in the checkout.
func (r *readmeRig) terminal(session string) {
	r.tmux("new-session", "-d", "-x", "200", "-y", "50", "-s", session, "-c", r.wd, "sh")
	r.waitIn(session, "$") // the prompt (capture-pane drops its trailing space)
}

// typeIn types line and Enter into session's terminal, as a person would, and waits for want.
func (r *readmeRig) typeIn(session, line, want string) string {
	r.t.Helper()
	r.keysTo(session, "-l", line)
	r.keysTo(session, "Enter")
	return r.waitIn(session, want)
}

// killed runs the README's kill-server line, which must exit 0 and leave no server.
func (r *readmeRig) killed(t *testing.T) {
	t.Helper()
	r.shOK(t, "tickmux kill-server             # end it, and every program in it (each gets SIGTERM)", "^$")
	if sockpath.Running(r.socket) {
		t.Fatal("a server still answers after tickmux kill-server")
	}
}

// readmeCases are the README's lines and how each is run.
var readmeCases = []readmeCase{
	{lines: []string{"./scripts/install-test-deps && go test -race -count=1 -timeout 25m ./..."},
		why: "the test command: the suite this test is part of (run by CI, .ci/run)"},
	{lines: []string{
		"tickmux --version               # the version and the commit it was built from",
		"tickmux help call               # one command's usage and flags (or: tickmux call --help)",
	}, run: func(t *testing.T, r *readmeRig) {
		r.shOK(t, "tickmux --version               # the version and the commit it was built from", `^tickmux \S+ go1\.`)
		r.shOK(t, "tickmux help call               # one command's usage and flags (or: tickmux call --help)", `^usage: tickmux call `)
	}},
	{lines: []string{"CGO_ENABLED=0 go install . && tickmux help    # every command and option"},
		run: func(t *testing.T, r *readmeRig) {
			// Installed where GOBIN says, first on PATH: the test installs nothing outside it.
			gobin := filepath.Join(r.dir, "gobin")
			env := r.env
			r.env = append(slices.Clone(env), "GOBIN="+gobin, "PATH="+gobin+":"+r.bin+":"+os.Getenv("PATH"))
			defer func() { r.env = env }()
			r.shOK(t, "CGO_ENABLED=0 go install . && tickmux help    # every command and option", `^usage: tickmux \[OPTIONS\]`)
			if _, err := os.Stat(filepath.Join(gobin, "tickmux")); err != nil {
				t.Fatalf("go install put no tickmux in GOBIN: %v", err)
			}
		}},
	{lines: []string{"go build -o /tmp/note ./examples/minimal && go run . check -- /tmp/note"},
		run: func(t *testing.T, r *readmeRig) {
			// The one change: the Tick is built in the test's directory, not in a /tmp/note that
			// another user of the machine may own.
			line := strings.ReplaceAll("go build -o /tmp/note ./examples/minimal && go run . check -- /tmp/note", "/tmp/note", filepath.Join(r.dir, "note"))
			r.shOK(t, line, `(?m)^  ok   initialize: [^\n]*\n(.*\n)*PASS: 0 violations, 0 failures`)
		}},
	{lines: []string{
		"tickmux                         # one shell pane",
		"tickmux attach                  # show the running tickmux here",
		"tickmux kill-server             # end it, and every program in it (each gets SIGTERM)",
	}, run: func(t *testing.T, r *readmeRig) {
		r.terminal("plain")
		r.typeIn("plain", "tickmux                         # one shell pane", "shell:1")
		r.keysTo("plain", "C-b", "d")
		r.waitIn("plain", "[detached] to come back: tickmux attach")
		r.typeIn("plain", "tickmux attach                  # show the running tickmux here", "shell:1")
		r.killed(t)
		r.waitGone("plain", "shell:1")
	}},
	{lines: []string{"tickmux -- CMD [ARG...]         # start with the Tick CMD"},
		run: func(t *testing.T, r *readmeRig) {
			// CMD [ARG...] stands for a Tick: an example Tick built into tickmux.
			r.terminal("tick")
			r.typeIn("tick", strings.Replace("tickmux -- CMD [ARG...]         # start with the Tick CMD", "CMD [ARG...]", "tickmux example counter", 1), "hosted:1 Counter · ready")
			r.killed(t)
		}},
	{lines: []string{"tickmux --plain -- top          # start with a plain program, as tmux new top"},
		run: func(t *testing.T, r *readmeRig) {
			r.terminal("top")
			r.typeIn("top", "tickmux --plain -- top          # start with a plain program, as tmux new top", "shell:1")
			r.waitIn("top", "load average")
			r.killed(t)
		}},
	{lines: []string{
		"tickmux demo                    # the bundled example Ticks in a ready layout",
		`tickmux call hosted:1 increment '{"amount":2}'`,
	}, run: func(t *testing.T, r *readmeRig) {
		r.terminal("demo")
		r.typeIn("demo", "tickmux demo                    # the bundled example Ticks in a ready layout", "hosted:5 Jobs · ready")
		r.waitIn("demo", "A card asks first")
		// In the demo's shell, as "Trying an approval" says: the call waits for the card.
		r.typeIn("demo", `tickmux call hosted:1 increment '{"amount":2}'`, "wants to call increment on hosted:1")
		r.keysTo("demo", "C-b", "a")
		r.waitIn("demo", "allow once")
		r.keysTo("demo", "y")
		r.waitIn("demo", `"value": 2`)
		r.typeIn("demo", `echo "call-exited-$?"`, "call-exited-0")
		r.killed(t)
	}},
	{lines: []string{"go run . demo"},
		run: func(t *testing.T, r *readmeRig) {
			r.terminal("gorun")
			r.typeIn("gorun", "go run . demo", "hosted:5 Jobs · ready")
			r.keysTo("gorun", "C-b", "d")
			r.waitIn("gorun", "[detached] to come back: go run . attach")
			r.killed(t)
		}},
	{lines: []string{
		"tickmux new -s work             # a second session: a server of its own, named work",
		"tickmux sessions                # the sessions that run: name, panes, views, since when",
		"tickmux attach -t work          # show the session work here",
		"tickmux kill-server -t work     # end it",
	}, run: func(t *testing.T, r *readmeRig) {
		r.terminal("work")
		r.typeIn("work", "tickmux new -s work             # a second session: a server of its own, named work", "shell:1")
		r.shOK(t, "tickmux sessions                # the sessions that run: name, panes, views, since when", `(?m)^work +1 +1 +0 `)
		r.keysTo("work", "C-b", "d")
		r.waitIn("work", "[detached] to come back:")
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) { // the view's end reaches the server
			out, _ := r.sh(t, "tickmux sessions                # the sessions that run: name, panes, views, since when")
			if regexp.MustCompile(`(?m)^work +1 +0 +0 `).MatchString(out) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("tickmux sessions after the detach:\n%s", out)
			}
		}
		r.typeIn("work", "tickmux attach -t work          # show the session work here", "shell:1")
		r.shOK(t, "tickmux kill-server -t work     # end it", "^$")
		r.waitGone("work", "shell:1")
		if out, code := r.sh(t, "tickmux sessions                # the sessions that run: name, panes, views, since when"); code != 1 || !strings.Contains(out, "no session runs") {
			t.Fatalf("tickmux sessions after kill-server -t work: exit %d\n%s", code, out)
		}
	}},
}

// Issue 42: the README's every command line runs as written, and exits 0.
func TestReadmeCommandsRun(t *testing.T) {
	t.Parallel()
	lines := readmeCommandLines(t)
	known := map[string]bool{}
	for _, c := range readmeCases {
		for _, l := range c.lines {
			known[l] = true
			if !slices.Contains(lines, l) {
				t.Errorf("readmeCases runs %q, which README.md no longer has", l)
			}
		}
	}
	for _, l := range lines {
		if !known[l] {
			t.Errorf("README.md has the command line %q, which no case of readme_commands_test.go runs: add one", l)
		}
	}
	if t.Failed() {
		return
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	r := &readmeRig{tmuxRig: newTmuxRig(t), wd: wd}
	r.bin = filepath.Join(r.dir, "bin")
	if err := os.MkdirAll(r.bin, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := copyExecutable(r.self, filepath.Join(r.bin, "tickmux")); err != nil {
		t.Fatal(err)
	}
	// The rig's HOME is its own: the go command keeps the person's settings and caches.
	goenv, err := exec.Command("go", "env", "GOENV", "GOCACHE", "GOMODCACHE", "GOPATH").Output()
	if err != nil {
		t.Fatalf("go env: %v", err)
	}
	vals := strings.Split(strings.TrimSpace(string(goenv)), "\n")
	r.env = append(r.env, "PATH="+r.bin+":"+os.Getenv("PATH"), "GOENV="+vals[0], "GOCACHE="+vals[1], "GOMODCACHE="+vals[2], "GOPATH="+vals[3])
	t.Cleanup(func() { r.sh(t, "tickmux kill-server --socket "+filepath.Join(r.dir, "work.sock")) })
	for _, c := range readmeCases {
		if c.run == nil {
			t.Logf("not run: %q: %s", c.lines, c.why)
			continue
		}
		var b bytes.Buffer
		for _, l := range c.lines {
			b.WriteString(l + "; ")
		}
		t.Logf("running %s", b.String())
		c.run(t, r)
	}
}
