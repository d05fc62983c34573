package views

import (
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"tickmux/host"
)

func TestIsInteractiveShell(t *testing.T) {
	t.Setenv("SHELL", "/opt/bin/myshell")
	for _, c := range []struct {
		argv []string
		want bool
	}{
		{[]string{"/bin/sh"}, true},
		{[]string{"bash", "-l"}, true},
		{[]string{"-zsh"}, true},
		{[]string{"zsh", "--no-rcs"}, true},
		{[]string{"/opt/bin/myshell"}, true},
		{[]string{"sh", "-c", "exit 0"}, false},
		{[]string{"bash", "-lc", "make"}, false},
		{[]string{"sh", "script.sh"}, false},
		{[]string{"top"}, false},
		{nil, false},
	} {
		if got := isInteractiveShell(c.argv); got != c.want {
			t.Errorf("isInteractiveShell(%q) = %v, want %v", c.argv, got, c.want)
		}
	}
}

// `exit` in a shell closes its pane, as tmux's panes close (issue 42 item 15); a shell that
// exits with a status, and a program that is not a shell, leave the ended pane with the reason.
func TestShellExitClosesItsPane(t *testing.T) {
	hs := newHarness(t, 160, 50)
	open := func(argv ...string) *host.Instance {
		var in *host.Instance
		var err error
		hs.onUI(func() { in, err = hs.app.Open(host.OpenSpec{Shell: true, Argv: argv, Env: []string{"PS1=$ "}}) })
		if err != nil {
			t.Fatal(err)
		}
		return in
	}
	keep := open("/bin/sh")
	hs.start()
	failing := open("/bin/sh")
	done := open("sh", "-c", "echo done-$((6*7))")
	hs.waitFor(done.ID() + " ")
	hs.waitFor("ended: the program exited (exit status 0)") // sh -c: not an interactive shell

	hs.onUI(func() { hs.app.setFocus(failing.ID()) })
	hs.typeText("exit 3")
	hs.key(tcell.KeyEnter, '\r', tcell.ModNone)
	hs.waitFor("ended: the program exited (exit status 3)")

	leaving := open("/bin/sh")
	hs.waitFor(leaving.ID() + " ")
	hs.onUI(func() { hs.app.setFocus(leaving.ID()) })
	hs.typeText("echo bye-$((6*7))")
	hs.key(tcell.KeyEnter, '\r', tcell.ModNone)
	hs.waitFor("bye-42")
	hs.typeText("exit")
	hs.key(tcell.KeyEnter, '\r', tcell.ModNone)
	s := hs.waitGone(leaving.ID() + " ")
	for _, id := range []string{keep.ID(), failing.ID(), done.ID()} {
		if !strings.Contains(s, id+" ") {
			t.Fatalf("%s closed with the shell that exited:\n%s", id, s)
		}
	}
	for deadline := time.Now().Add(20 * time.Second); hs.h.Get(leaving.ID()) != nil; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) { // removed in the background (closePane)
			t.Fatalf("%s is still listed", leaving.ID())
		}
	}
}

// remain_on_exit = "on" keeps a shell's pane after a clean exit, as before.
func TestRemainOnExitKeepsTheShellsPane(t *testing.T) {
	hs := newHarness(t, 120, 30)
	hs.app.cfg.RemainOnExit = true
	var in *host.Instance
	var err error
	hs.onUI(func() {
		in, err = hs.app.Open(host.OpenSpec{Shell: true, Argv: []string{"/bin/sh"}, Env: []string{"PS1=$ "}})
	})
	if err != nil {
		t.Fatal(err)
	}
	hs.start()
	hs.waitFor(in.ID() + " ")
	hs.typeText("exit")
	hs.key(tcell.KeyEnter, '\r', tcell.ModNone)
	hs.waitFor("ended: the program exited (exit status 0)")
}
