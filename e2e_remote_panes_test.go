package main

// Issue 40's "one view": a remote host's panes shown and used in the local tickmux. First the
// remote host's side alone (a real server, the real `tickmux proxy`, the test speaking
// remotewire's feature panes to it); then the whole: a local tickmux in tmux whose config has a
// [[hosts]] entry for a host behind a real sshd, running its own tickmux server.

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"tickmux/agent"
	"tickmux/internal/remotewire"
	"tickmux/internal/sshtest"
	"tickmux/vt"
)

// paneClient is the local side of one watch, played by the test over a proxy.
type paneClient struct {
	t      *testing.T
	p      *proxyProc
	pane   string
	term   *vt.Terminal
	noAck  bool // frames are not acked as they come
	frames int
	bytes  int
	seq    uint64 // the last frame's
	maxLen int    // the longest frame's data
	ended  string
	lists  []remotewire.PanesResult
}

// step reads the proxy's next message: a frame of the pane is written to the client's terminal
// (and acked unless noAck), a pane's end or a list kept; every message is returned.
func (c *paneClient) step() agent.Message {
	c.t.Helper()
	m, ok := c.p.next()
	if !ok {
		c.t.Fatalf("the proxy ended; stderr: %s", c.p.errb.String())
	}
	c.take(m)
	return m
}

// take applies message m.
func (c *paneClient) take(m agent.Message) {
	c.t.Helper()
	switch m.Method {
	case remotewire.NotifyFrame:
		var f remotewire.FrameParams
		if err := json.Unmarshal(m.Params, &f); err != nil {
			c.t.Fatal(err)
		}
		if f.Pane != c.pane {
			break
		}
		if cols, rows := c.term.Size(); cols != f.Cols || rows != f.Rows {
			c.term.Resize(f.Cols, f.Rows)
		}
		c.term.Write([]byte(f.Data))
		c.frames++
		c.bytes += len(f.Data)
		c.seq = f.Seq
		c.maxLen = max(c.maxLen, len(f.Data))
		if !c.noAck {
			c.ack()
		}
	case remotewire.NotifyPaneEnded:
		var e remotewire.PaneEndedParams
		json.Unmarshal(m.Params, &e)
		if e.Pane == c.pane {
			c.ended = e.Reason
		}
	case remotewire.NotifyPanes:
		var l remotewire.PanesResult
		json.Unmarshal(m.Params, &l)
		c.lists = append(c.lists, l)
	}
}

func (c *paneClient) ack() {
	c.note(remotewire.MethodAck, remotewire.AckParams{Pane: c.pane, Seq: c.seq})
}

func (c *paneClient) note(method string, params any) {
	c.t.Helper()
	if _, err := c.p.in.Write(requestLine(0, method, params)); err != nil {
		c.t.Fatal(err)
	}
}

func (c *paneClient) typeText(s string) {
	c.note(remotewire.MethodInput, remotewire.InputParams{Pane: c.pane, Data: []byte(s)})
}

// do sends a request and reads until its answer.
func (c *paneClient) do(id uint64, method string, params any) agent.Message {
	c.t.Helper()
	c.p.send(id, method, params)
	for {
		if m := c.step(); m.ID == id {
			return m
		}
	}
}

// until reads until ok holds (30 s at most).
func (c *paneClient) until(what string, ok func() bool) {
	c.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			hist, _ := c.term.Lines(0, c.term.ScrollbackLen())
			c.t.Fatalf("never %s; the screen:\n%s\nthe scrollback:\n%s", what, c.term.Text(), strings.Join(hist, "\n"))
		}
		c.quiet(100 * time.Millisecond)
	}
}

func (c *paneClient) shows(re string) func() bool {
	r := regexp.MustCompile(re)
	return func() bool { return r.MatchString(c.term.Text()) }
}

// quiet reports whether no line came from the proxy for d; a line that came is taken.
func (c *paneClient) quiet(d time.Duration) bool {
	c.t.Helper()
	select {
	case line, ok := <-c.p.lines:
		if !ok {
			c.t.Fatal("the proxy ended")
		}
		var m agent.Message
		if err := json.Unmarshal(line, &m); err != nil {
			c.t.Fatal(err)
		}
		c.take(m)
		return false
	case <-time.After(d):
		return true
	}
}

// The remote side: the panes listed, a pane watched at the watcher's size (its program sees
// it), typed into, resized; one frame in flight under `yes`; the size given back at the unwatch
// and at the connection's end; a pane opened there, and its end told.
func TestRemotePanesThroughTheProxy(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	socket := filepath.Join(dir, "s.sock")
	srv := startServerProc(t, socket) // a shell
	srv.waitListening(t)
	env := append(os.Environ(), envAsMain+"=1", "GORACE=atexit_sleep_ms=0", "TICKMUX_SOCKET="+socket,
		"XDG_STATE_HOME="+dir, "XDG_CONFIG_HOME="+dir, "HOME="+dir)
	hello := func(p *proxyProc) {
		p.send(1, remotewire.MethodHello, remotewire.HelloParams{Version: 1, Features: []string{remotewire.FeaturePanes}})
		if m, ok := p.next(); !ok || m.Error != nil || !strings.Contains(string(m.Result), `"panes"`) {
			t.Fatalf("the hello: %+v; stderr %s\nlog:\n%s", m, p.errb.String(), serverLog(dir))
		}
	}
	p := startProxy(t, env)
	hello(p)
	c := &paneClient{t: t, p: p, pane: "shell:1", term: vt.New(70, 20, nil)}

	var list remotewire.PanesResult
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		m := c.do(2, remotewire.MethodPanes, struct{}{})
		if m.Error != nil || json.Unmarshal(m.Result, &list) != nil {
			t.Fatalf("remote/panes: %s %+v", m.Result, m.Error)
		}
		if len(list.Tabs) == 1 && len(list.Tabs[0].Panes) == 1 || time.Now().After(deadline) {
			break
		}
	}
	if len(list.Tabs) != 1 || len(list.Tabs[0].Panes) != 1 || list.Tabs[0].Panes[0].ID != "shell:1" || list.Tabs[0].Panes[0].Kind != remotewire.KindPlain {
		t.Fatalf("remote/panes: %+v", list)
	}

	if m := c.do(3, remotewire.MethodWatch, remotewire.WatchParams{Pane: "shell:1", Cols: 70, Rows: 20}); m.Error != nil {
		t.Fatalf("remote/watch: %+v", m.Error)
	}
	c.until("a prompt", c.shows(`[$#] *$`))
	c.typeText("stty size; echo hi-$((6*7))\r")
	c.until("stty's size and the echo", c.shows(`(?m)^20 70\nhi-42`))

	if m := c.do(4, remotewire.MethodResize, remotewire.WatchParams{Pane: "shell:1", Cols: 50, Rows: 12}); m.Error != nil {
		t.Fatalf("remote/resize: %+v", m.Error)
	}
	c.typeText("clear; stty size\r")
	c.until("the new size", c.shows(`(?m)^12 50$`))

	// History: lines that scrolled off come with the frames.
	c.typeText("clear; seq 1 30\r")
	c.until("seq's end", c.shows(`(?m)^30$`))
	c.until("every line of seq in the scrollback", func() bool {
		hist, _ := c.term.Lines(0, c.term.ScrollbackLen()+12)
		return strings.Contains("\n"+strings.Join(hist, "\n"), "\n1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\n19\n20\n")
	})

	// A flood: one frame in flight, no more before its ack.
	c.typeText("yes\r")
	c.until("yes running", c.shows(`(?m)^y\ny\ny$`))
	c.noAck = true
	for !c.quiet(300 * time.Millisecond) { // the frame in flight, if one was
	}
	seq := c.seq
	c.ack()
	c.step()
	if c.seq != seq+1 {
		t.Fatalf("after the ack of frame %d, frame %d came", seq, c.seq)
	}
	if !c.quiet(700 * time.Millisecond) {
		t.Fatalf("frame %d came before frame %d was acked", c.seq, seq+1)
	}
	c.noAck = false
	c.ack()
	// A frame under a flood: a screen's rows of scrollback and every row, each of 50 cells.
	bound := 2*12*(50+32) + 512
	flood := func(what string) {
		frames0, bytes0 := c.frames, c.bytes
		c.maxLen = 0
		start := time.Now()
		for time.Since(start) < 3*time.Second {
			if !c.quiet(100 * time.Millisecond) {
				continue
			}
		}
		n, b := c.frames-frames0, c.bytes-bytes0
		t.Logf("%s in a 50x12 pane for 3 s: %d frames, %d bytes (%.0f bytes/s), the longest frame %d bytes", what, n, b, float64(b)/3, c.maxLen)
		if c.maxLen > bound {
			t.Errorf("a frame of %d bytes, more than a screen's worth (%d)", c.maxLen, bound)
		}
	}
	flood("yes") // the screen stays the same: frames only when something shows
	c.typeText("\x03")
	c.typeText("seq 1 1000000000\r")
	c.until("seq running", c.shows(`(?m)^\d{4,}$`))
	flood("seq") // every line new
	c.typeText("\x03")
	c.typeText("clear; echo stopped-$((1+1))\r")
	c.until("yes stopped", c.shows(`stopped-2`))

	// The unwatch gives the pane the size the host's own view asks.
	if m := c.do(5, remotewire.MethodUnwatch, remotewire.PaneParams{Pane: "shell:1"}); m.Error != nil {
		t.Fatal(m.Error)
	}
	sizeFile := filepath.Join(dir, "size")
	stty := func() string {
		os.Remove(sizeFile)
		c.typeText("stty size >" + sizeFile + "\r")
		var got []byte
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if got, _ = os.ReadFile(sizeFile); len(got) > 0 {
				break
			}
		}
		return strings.TrimSpace(string(got))
	}
	if got := stty(); got == "12 50" || got == "" {
		t.Errorf("after the unwatch the pane's size is %q", got)
	}

	// A pane opened from here; the list that is told of it; its end.
	m := c.do(6, remotewire.MethodOpen, remotewire.OpenParams{Argv: []string{"/bin/sh"}, Plain: true})
	var opened remotewire.OpenResult
	if m.Error != nil || json.Unmarshal(m.Result, &opened) != nil || opened.Pane == "" {
		t.Fatalf("remote/open: %s %+v", m.Result, m.Error)
	}
	c.until("the list with the pane opened", func() bool {
		for _, l := range c.lists {
			for _, tb := range l.Tabs {
				for _, p := range tb.Panes {
					if p.ID == opened.Pane {
						return true
					}
				}
			}
		}
		return false
	})
	c2 := &paneClient{t: t, p: p, pane: opened.Pane, term: vt.New(40, 10, nil)}
	if m := c2.do(7, remotewire.MethodWatch, remotewire.WatchParams{Pane: opened.Pane, Cols: 40, Rows: 10}); m.Error != nil {
		t.Fatal(m.Error)
	}
	c2.until("its prompt", c2.shows(`[$#] *$`))
	c2.typeText("exit 3\r")
	c2.until("its end told", func() bool { return c2.ended != "" })
	t.Logf("%s ended: %s", opened.Pane, c2.ended)

	// The connection's end gives the size back too.
	if m := c.do(8, remotewire.MethodWatch, remotewire.WatchParams{Pane: "shell:1", Cols: 44, Rows: 11}); m.Error != nil {
		t.Fatal(m.Error)
	}
	c.until("the pane at 44x11", func() bool { cols, rows := c.term.Size(); return cols == 44 && rows == 11 })
	p.in.Close()
	p.done <- <-p.done // ended (the cleanup waits for it too)
	p2 := startProxy(t, env)
	hello(p2)
	c = &paneClient{t: t, p: p2, pane: "shell:1", term: vt.New(44, 11, nil)}
	if got := stty(); got == "11 44" || got == "" {
		t.Errorf("after the connection's end the pane's size is %q", got)
	}

	// Without the feature nothing of it is served.
	p3 := startProxy(t, env)
	p3.send(1, remotewire.MethodHello, remotewire.HelloParams{Version: 1, Features: []string{remotewire.FeatureLs}})
	p3.next()
	if m := (&paneClient{t: t, p: p3}).do(2, remotewire.MethodWatch, remotewire.WatchParams{Pane: "shell:1", Cols: 10, Rows: 5}); m.Error == nil {
		t.Errorf("remote/watch without the feature: %s", m.Result)
	}
}

// The whole: a local tickmux in tmux, its config's [[hosts]] naming a host behind a real sshd that
// runs its own tickmux server. The remote shell shows in a tab of its own, named with the host;
// typed keys reach it and its output comes back; resizing the local terminal resizes the remote
// pane; scroll mode shows what scrolled off; a pane opened there from the prompt shows here.
func TestEndToEndRemotePanes(t *testing.T) {
	t.Parallel()
	r := newTmuxRig(t)
	box := sshtest.Start(t, sshtest.Options{Alias: "box", Env: map[string]string{envAsMain: "1", "GORACE": "atexit_sleep_ms=0",
		"SHELL": "/bin/sh", "PS1": "$ "}})
	logFile := filepath.Join(box.Dir, "server.out")
	start := exec.Command("ssh", append(box.SSHArgs(), "-T", box.Dest(),
		fmt.Sprintf("setsid %s server --plain -- /bin/sh </dev/null >%s 2>&1 &", r.self, logFile))...)
	if out, err := start.CombinedOutput(); err != nil {
		t.Fatalf("starting the server on box: %v\n%s", err, out)
	}
	remoteCLI := func(args ...string) string {
		cmd := exec.Command(r.self, args...)
		cmd.Env = append(os.Environ(), envAsMain+"=1", "TICKMUX_SOCKET="+box.Env["TICKMUX_SOCKET"], "XDG_STATE_HOME="+box.Env["XDG_STATE_HOME"],
			"XDG_CONFIG_HOME="+box.Env["XDG_CONFIG_HOME"], "HOME="+box.Env["HOME"])
		out, _ := cmd.CombinedOutput()
		return string(out)
	}
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(remoteCLI("ls"), "shell:1"); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(logFile)
			t.Fatalf("the server on box never listed its shell: %s", b)
		}
	}
	t.Cleanup(func() { remoteCLI("kill-server") })

	cfg := fmt.Sprintf("[[hosts]]\nname = \"box\"\nssh = %q\nssh_args = [%q, %q]\ntickmux = %q\n",
		box.Dest(), box.SSHArgs()[0], box.SSHArgs()[1], r.self)
	if err := os.MkdirAll(filepath.Join(r.dir, "tickmux"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(r.dir, "tickmux", "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	r.start()
	r.waitFor("shell:1")
	// The remote tab: named with the host, listed on the status bar.
	r.waitFor("box:")
	r.keys("C-b", "1")
	s := r.waitFor("box:shell:1")
	if !strings.Contains(s, "on box") {
		t.Errorf("the remote pane's frame does not say its host:\n%s", s)
	}
	r.keys("echo remote-$((6*7)); stty size", "Enter")
	r.waitFor("remote-42")
	// stty's line may come in a later frame than echo's: wait for it too.
	sizeLine := regexp.MustCompile(`(?m)^[│┃ ]*(\d+) (\d+)\s`)
	s = r.waitUntil("e2e", "show stty's size", func(s string) bool { return sizeLine.MatchString(s) })
	size := sizeLine.FindStringSubmatch(s)
	if size == nil {
		t.Fatalf("no stty size on the screen:\n%s", s)
	}
	t.Logf("the remote pane's size in a 200x50 terminal: %s rows, %s columns", size[1], size[2])

	// Resize the local terminal: the remote pane follows.
	r.tmux("resize-window", "-t", "e2e", "-x", "120", "-y", "30")
	r.keys("clear; stty size", "Enter")
	s = r.waitUntil("e2e", "show the new size", func(s string) bool {
		m := regexp.MustCompile(`(?m)^[│┃ ]*(\d+) (\d+)\s`).FindStringSubmatch(s)
		return m != nil && m[1] != size[1] && m[2] != size[2]
	})
	t.Logf("after the local terminal went to 120x30:\n%s", s)

	// Scroll mode over what scrolled off there.
	r.keys("clear; seq 1 100", "Enter")
	r.waitFor("100")
	r.keys("C-b", "[")
	for i := 0; i < 10; i++ {
		r.keys("PageUp")
	}
	r.waitUntil("e2e", "show the first lines in scroll mode", func(s string) bool {
		return regexp.MustCompile(`(?m)^┃2 +┃`).MatchString(s) && regexp.MustCompile(`(?m)^┃3 +┃`).MatchString(s)
	})
	r.keys("q")

	// yes for 10 s, then seq: the bytes the link carried, counted on the local ssh's side.
	r.keys("clear", "Enter")
	r.keys("yes", "Enter")
	flood := func(what string) {
		w0, r0 := linkBytes(t, r, box)
		time.Sleep(10 * time.Second)
		w1, r1 := linkBytes(t, r, box)
		if w0 < 0 || w1 < 0 {
			t.Logf("%s: the link's ssh was not found", what)
			return
		}
		t.Logf("%s in a remote pane for 10 s: ssh delivered %d bytes of protocol (%.0f bytes/s) and read %d (%.0f bytes/s: the encrypted stream and the local side's requests)",
			what, w1-w0, float64(w1-w0)/10, r1-r0, float64(r1-r0)/10)
	}
	flood("yes")
	r.keys("C-c")
	r.keys("clear; echo done-$((2+3))", "Enter")
	r.waitFor("done-5")
	// And a flood whose every line is new.
	r.keys("seq 1 1000000000", "Enter")
	r.waitUntil("e2e", "show seq running", func(s string) bool { return regexp.MustCompile(`(?m)^┃\d{5,} +┃`).MatchString(s) })
	flood("seq")
	r.keys("C-c")
	r.keys("clear; echo done-$((3+3))", "Enter")
	r.waitFor("done-6")

	// A pane opened on box from the prompt shows here.
	r.keys("C-b", ":")
	r.keys("open-remote box", "Enter")
	r.waitFor("box:shell:2")

	// The host hangs: its panes say since when; it comes back: they are watched again.
	r.tmux("resize-window", "-t", "e2e", "-x", "200", "-y", "50")
	box.Freeze()
	r.waitFor("· box unreachable since")
	box.Thaw()
	deadline := time.Now().Add(90 * time.Second)
	for s := r.screen(); strings.Contains(s, "unreachable") || !strings.Contains(s, "on box"); s = r.screen() {
		if time.Now().After(deadline) {
			t.Fatalf("box never came back:\n%s\nlog:\n%s", s, r.log())
		}
		time.Sleep(200 * time.Millisecond)
	}
	r.keys("echo back-$((4*4))", "Enter")
	r.waitFor("back-16")
}

// linkBytes is what the local tickmux's ssh to box has written to it (the protocol's lines
// from box: the frames, as JSON) and read (the encrypted stream from box, and the few requests
// and acks going there), from its /proc io counts; -1s when it is not found.
func linkBytes(t *testing.T, r *tmuxRig, box *sshtest.Host) (written, read int64) {
	t.Helper()
	written, read = -1, -1
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		args := strings.Split(string(cmdline), "\x00")
		if len(args) < 2 || filepath.Base(args[0]) != "ssh" || !slices.Contains(args, box.Dest()) || !slices.Contains(args, "proxy") {
			continue
		}
		environ, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if !strings.Contains(string(environ), "XDG_CONFIG_HOME="+r.dir+"\x00") {
			continue
		}
		io, err := os.ReadFile(filepath.Join("/proc", e.Name(), "io"))
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(io), "\n") {
			var n int64
			if _, err := fmt.Sscanf(l, "wchar: %d", &n); err == nil {
				written = max(written, 0) + n
			}
			if _, err := fmt.Sscanf(l, "rchar: %d", &n); err == nil {
				read = max(read, 0) + n
			}
		}
	}
	return written, read
}
