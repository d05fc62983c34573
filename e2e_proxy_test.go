package main

// Issue 40, the remote host's side: `tickmux proxy` on a host carries that host's cards to a
// person's view on another machine and the person's answers back. Here the "other machine" is
// the test process, which runs `tickmux proxy` as ssh would (with SSH_CONNECTION set) beside a
// real server, and speaks remotewire to it over the proxy's stdin and stdout.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tickmux/agent"
	"tickmux/host/journal"
	"tickmux/internal/remotewire"
)

// proxyProc is `tickmux proxy` run by the test as a person's ssh runs it on the host.
type proxyProc struct {
	t     *testing.T
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines chan []byte // its stdout, a line at a time; closed at its end
	errb  lockedBuffer
	done  chan error
}

func startProxy(t *testing.T, env []string, args ...string) *proxyProc {
	t.Helper()
	self, _ := os.Executable()
	p := &proxyProc{t: t, lines: make(chan []byte, 64), done: make(chan error, 1)}
	p.cmd = exec.Command(self, append([]string{"proxy"}, args...)...)
	p.cmd.Env = env
	p.cmd.Stderr = &p.errb
	var err error
	if p.in, err = p.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	read := make(chan struct{})
	go func() { // owner: the test; returns at the proxy's end of output
		defer close(read)
		defer close(p.lines)
		rd := bufio.NewReader(out)
		for {
			line, err := rd.ReadBytes('\n')
			if len(line) > 0 {
				p.lines <- line
			}
			if err != nil {
				return
			}
		}
	}()
	go func() { // owner: the test; returns when the proxy exits (after its output is read)
		<-read
		p.done <- p.cmd.Wait()
	}()
	t.Cleanup(func() {
		p.in.Close()
		p.cmd.Process.Kill()
		for range p.lines {
		}
		<-p.done
	})
	return p
}

// next is the proxy's next line as a message; ok false at its end.
func (p *proxyProc) next() (agent.Message, bool) {
	p.t.Helper()
	select {
	case line, ok := <-p.lines:
		if !ok {
			return agent.Message{}, false
		}
		var m agent.Message
		if err := json.Unmarshal(line, &m); err != nil || line[len(line)-1] != '\n' {
			p.t.Fatalf("the proxy wrote a line that is not a message: %q", line)
		}
		return m, true
	case <-time.After(30 * time.Second):
		p.t.Fatalf("the proxy wrote nothing for 30 s; stderr: %s", p.errb.String())
	}
	return agent.Message{}, false
}

// send writes a request to the proxy's stdin.
func (p *proxyProc) send(id uint64, method string, params any) {
	p.t.Helper()
	if _, err := p.in.Write(requestLine(id, method, params)); err != nil {
		p.t.Fatal(err)
	}
}

func requestLine(id uint64, method string, params any) []byte {
	raw, _ := json.Marshal(params)
	b, _ := json.Marshal(agent.Request{ID: id, Method: method, Params: raw})
	return append(b, '\n')
}

// do sends a request and returns its answer; cards notifications read meanwhile go to notes.
func (p *proxyProc) do(id uint64, method string, params any, notes *[]remotewire.CardsResult) agent.Message {
	p.t.Helper()
	p.send(id, method, params)
	for {
		m, ok := p.next()
		if !ok {
			p.t.Fatalf("the proxy ended before answering %s; stderr: %s", method, p.errb.String())
		}
		if m.ID == id {
			return m
		}
		if m.Method == remotewire.NotifyCards && notes != nil {
			var c remotewire.CardsResult
			_ = json.Unmarshal(m.Params, &c)
			*notes = append(*notes, c)
		}
	}
}

// cardsNote waits for a cards notification that ok accepts.
func (p *proxyProc) cardsNote(what string, ok func(remotewire.CardsResult) bool) remotewire.CardsResult {
	p.t.Helper()
	for {
		m, more := p.next()
		if !more {
			p.t.Fatalf("the proxy ended before a notification with %s; stderr: %s", what, p.errb.String())
		}
		var c remotewire.CardsResult
		if m.Method == remotewire.NotifyCards && json.Unmarshal(m.Params, &c) == nil && ok(c) {
			return c
		}
	}
}

// cardFor finds the waiting card whose tool or argv mentions what.
func cardFor(c remotewire.CardsResult, action, what string) (remotewire.Card, bool) {
	for _, k := range c.Cards {
		if k.Action == action && (k.Tool == what || strings.Contains(strings.Join(k.Argv, " "), what)) {
			return k, true
		}
	}
	return remotewire.Card{}, false
}

// bgCommand is a CLI verb running in the background, as an agent's.
type bgCommand struct {
	cmd  *exec.Cmd
	out  lockedBuffer
	done chan error
}

func startVerb(t *testing.T, env []string, args ...string) *bgCommand {
	t.Helper()
	self, _ := os.Executable()
	c := &bgCommand{cmd: exec.Command(self, args...), done: make(chan error, 1)}
	c.cmd.Env = env
	c.cmd.Stdout, c.cmd.Stderr = &c.out, &c.out
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { c.done <- c.cmd.Wait() }() // owner: the test; returns when the verb exits
	t.Cleanup(func() {
		c.cmd.Process.Kill()
		<-c.done
		c.done <- nil
	})
	return c
}

func (c *bgCommand) ended(t *testing.T) error {
	t.Helper()
	select {
	case err := <-c.done:
		c.done <- err
		return err
	case <-time.After(30 * time.Second):
		t.Fatalf("tickmux %v did not end:\n%s", c.cmd.Args[1:], c.out.String())
	}
	return nil
}

func (c *bgCommand) running(t *testing.T) {
	t.Helper()
	select {
	case err := <-c.done:
		c.done <- err
		t.Fatalf("tickmux %v ended (%v) without an answer:\n%s", c.cmd.Args[1:], err, c.out.String())
	default:
	}
}

// The test, from both sides of a host: a proxy run from outside the server takes its
// hello, lists a card that starts waiting (the notification, then remote/cards) with a digest
// that is CardDigest's, refuses a stale digest and an unknown card while the card keeps waiting,
// and answers it: the call runs, and the journal names the local view via the ssh connection. A
// `tickmux proxy` run in one of the server's own panes is refused and cannot answer.
// spec: H-K2 (only the person's answer lets a mutating call go out)
func TestEndToEndProxy(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	socket := filepath.Join(dir, "s.sock")
	// Opens from the CLI run unsandboxed here: the pane below must reach the control socket.
	if err := os.MkdirAll(filepath.Join(dir, "tickmux"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tickmux", "config.toml"), []byte("sandbox = \"off\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	self, _ := os.Executable()
	srv := startServerProc(t, socket, "--", self, "example", "counter")
	srv.waitListening(t)
	env := append(os.Environ(), envAsMain+"=1", "GORACE=atexit_sleep_ms=0", "TICKMUX_SOCKET="+socket,
		"XDG_STATE_HOME="+dir, "XDG_CONFIG_HOME="+dir, "HOME="+dir)

	// The local side's hello, as package remote sends it (the Via it puts there is replaced by the
	// proxy's, from SSH_CONNECTION).
	p := startProxy(t, append(env, "SSH_CONNECTION=127.0.0.1 40222 127.0.0.1 22"))
	p.send(7, remotewire.MethodHello, remotewire.HelloParams{Version: 1, Features: []string{remotewire.FeatureCards, remotewire.FeatureLs, "later"}, Via: "forged"})
	m, ok := p.next()
	if !ok || m.ID != 7 || m.Error != nil {
		t.Fatalf("the proxy's first line is not the hello's answer: %+v; stderr: %s\nlog:\n%s", m, p.errb.String(), serverLog(dir))
	}
	var hello remotewire.HelloResult
	host, _ := os.Hostname()
	if err := json.Unmarshal(m.Result, &hello); err != nil || hello.Version != remotewire.Version || hello.Hostname != host ||
		strings.Join(hello.Features, ",") != remotewire.FeatureCards+","+remotewire.FeatureLs || !strings.HasPrefix(hello.Tickmux, "tickmux ") {
		t.Fatalf("the hello's answer: %s (%v)", m.Result, err)
	}

	// The counter is up (remote/ls), and a call to its mutating tool waits for the person.
	var counter string
	for deadline := time.Now().Add(30 * time.Second); counter == ""; time.Sleep(50 * time.Millisecond) {
		var ls remotewire.LsResult
		m := p.do(2, remotewire.MethodLs, struct{}{}, nil)
		if m.Error != nil || json.Unmarshal(m.Result, &ls) != nil {
			t.Fatalf("remote/ls: %s %+v", m.Result, m.Error)
		}
		for _, tk := range ls.Ticks {
			if tk.Kind == "example.counter" && tk.Status == "ready" && !tk.Plain {
				counter = tk.ID
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("remote/ls never listed the counter ready: %s\nlog:\n%s", m.Result, serverLog(dir))
		}
	}
	call := startVerb(t, env, "call", counter, "increment", `{"amount":2}`)
	note := p.cardsNote("the increment card", func(c remotewire.CardsResult) bool { _, ok := cardFor(c, "call", "increment"); return ok })
	card, _ := cardFor(note, "call", "increment")
	if card.Digest == "" || card.Digest != remotewire.CardDigest(card) || card.Instance != counter || string(card.Args) != `{"amount":2}` {
		t.Fatalf("the card in the notification: %+v (CardDigest %s)", card, remotewire.CardDigest(card))
	}
	var cards remotewire.CardsResult
	if m := p.do(3, remotewire.MethodCards, struct{}{}, nil); m.Error != nil || json.Unmarshal(m.Result, &cards) != nil {
		t.Fatalf("remote/cards: %s %+v", m.Result, m.Error)
	}
	if got, ok := cardFor(cards, "call", "increment"); !ok || got.Digest != card.Digest || got.ID != card.ID {
		t.Fatalf("remote/cards lists %+v, want the card %+v", cards, card)
	}

	// A stale digest and an unknown card are refused; the card keeps waiting.
	for i, c := range []struct {
		p    remotewire.AnswerParams
		want string
	}{
		{remotewire.AnswerParams{Card: card.ID, Digest: remotewire.CardDigest(remotewire.Card{ID: card.ID}), Decision: remotewire.Once, View: "view 1"},
			fmt.Sprintf("card %d changed since it was shown: read it again", card.ID)},
		{remotewire.AnswerParams{Card: card.ID + 100, Digest: card.Digest, Decision: remotewire.Once, View: "view 1"},
			fmt.Sprintf("card %d is no longer waiting", card.ID+100)},
	} {
		if m := p.do(uint64(10+i), remotewire.MethodAnswer, c.p, nil); m.Error == nil || m.Error.Message != c.want {
			t.Errorf("answer %+v: %s %+v, want %q", c.p, m.Result, m.Error, c.want)
		}
	}
	if m := p.do(12, remotewire.MethodPing, struct{}{}, nil); m.Error != nil { // the sentinel: both refusals are done
		t.Fatal(m.Error)
	}
	call.running(t)

	// A connection that skips the hello cannot answer: the control socket knows no remote/answer.
	raw, err := net.Dial("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	params, _ := json.Marshal(remotewire.AnswerParams{Card: card.ID, Digest: card.Digest, Decision: remotewire.Once, View: "raw"})
	line, _ := json.Marshal(agent.Request{ID: 1, Method: remotewire.MethodAnswer, Params: params})
	raw.Write(append(line, '\n'))
	_ = raw.SetReadDeadline(time.Now().Add(30 * time.Second))
	answer, _ := bufio.NewReader(raw).ReadBytes('\n')
	raw.Close()
	if !bytes.Contains(answer, []byte(`"error"`)) || !bytes.Contains(answer, []byte("unknown method")) {
		t.Fatalf("remote/answer without a hello: %s", answer)
	}
	call.running(t)

	// `tickmux proxy` in one of the server's panes: a shell the person opens (the proxy answers
	// its open card), which runs the proxy with an answer to the waiting card on its stdin.
	answerFile, goFile, rcFile, outFile, errFile := filepath.Join(dir, "answer.json"), filepath.Join(dir, "go"), filepath.Join(dir, "rc"), filepath.Join(dir, "pane.out"), filepath.Join(dir, "pane.err")
	script := fmt.Sprintf(`until [ -e %s ]; do sleep 0.05; done; %s proxy < %s > %s 2> %s; echo $? > %s.tmp; mv %[6]s.tmp %[6]s; sleep 600`,
		goFile, self, answerFile, outFile, errFile, rcFile)
	open := startVerb(t, env, "open", "--shell", "--", "/bin/sh", "-c", script)
	note = p.cardsNote("the open card", func(c remotewire.CardsResult) bool { _, ok := cardFor(c, "open", goFile); return ok })
	openCard, _ := cardFor(note, "open", goFile)
	if m := p.do(20, remotewire.MethodAnswer, remotewire.AnswerParams{Card: openCard.ID, Digest: openCard.Digest, Decision: remotewire.Once, View: "view 1 /dev/pts/3 on laptop"}, nil); m.Error != nil {
		t.Fatalf("the open card's answer: %+v", m.Error)
	}
	if err := open.ended(t); err != nil {
		t.Fatalf("tickmux open: %v\n%s", err, open.out.String())
	}
	lines := append(requestLine(1, remotewire.MethodHello, remotewire.HelloParams{Version: 1, Features: []string{remotewire.FeatureCards}}),
		requestLine(2, remotewire.MethodAnswer, remotewire.AnswerParams{Card: card.ID, Digest: card.Digest, Decision: remotewire.Once, View: "a pane"})...)
	if err := os.WriteFile(answerFile, lines, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(goFile, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var rc []byte
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if rc, err = os.ReadFile(rcFile); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the pane's proxy did not end\nlog:\n%s", serverLog(dir))
		}
	}
	paneOut, _ := os.ReadFile(outFile)
	paneErr, _ := os.ReadFile(errFile)
	var refusal agent.Message // the hello's answer, for the local side: the refusal
	if err := json.Unmarshal(paneOut, &refusal); err != nil || refusal.ID != 1 || refusal.Error == nil || bytes.Count(paneOut, []byte("\n")) != 1 ||
		strings.TrimSpace(string(rc)) != "1" || !strings.Contains(string(paneErr), "cannot take a proxy from inside tickmux") {
		t.Fatalf("tickmux proxy in a pane: exit %s, stdout %q, stderr %q", rc, paneOut, paneErr)
	}
	if log := serverLog(dir); !strings.Contains(log, "proxy refused") {
		t.Errorf("the refusal is not in the server's log:\n%s", log)
	}
	call.running(t)
	if m := p.do(21, remotewire.MethodCards, struct{}{}, nil); m.Error != nil || json.Unmarshal(m.Result, &cards) != nil {
		t.Fatalf("remote/cards: %+v", m.Error)
	} else if _, ok := cardFor(cards, "call", "increment"); !ok {
		t.Fatalf("the card no longer waits after the pane's proxy: %s", m.Result)
	}

	// The person's answer, from the view on the other machine: the call runs.
	view := "view 1 /dev/pts/3 on laptop"
	if m := p.do(30, remotewire.MethodAnswer, remotewire.AnswerParams{Card: card.ID, Digest: card.Digest, Decision: remotewire.Once, View: view}, nil); m.Error != nil {
		t.Fatalf("the answer was refused: %+v", m.Error)
	}
	if err := call.ended(t); err != nil {
		t.Fatalf("the call failed after the answer: %v\n%s", err, call.out.String())
	}
	want := view + " via ssh from 127.0.0.1"
	var entry journal.Entry
	for deadline := time.Now().Add(20 * time.Second); entry.View == nil || *entry.View != want; time.Sleep(50 * time.Millisecond) {
		log := exec.Command(self, "log", "--json")
		log.Env = env
		out, err := log.Output()
		if err != nil {
			t.Fatalf("tickmux log --json: %v", err)
		}
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			var e journal.Entry
			if json.Unmarshal([]byte(l), &e) == nil && e.Card != nil && *e.Card == card.ID && e.Kind == "call" && e.Outcome != nil {
				entry = e
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the journal has no answered entry for card %d by %q:\n%s", card.ID, want, out)
		}
	}
	if entry.Decision != journal.Once || entry.Tool != "increment" {
		t.Errorf("the journal's entry: decision %q, tool %q", entry.Decision, entry.Tool)
	}

	// A local side whose first line is not a hello gets a refusal, and the proxy ends (exit 1).
	q := startProxy(t, env)
	q.send(3, remotewire.MethodPing, struct{}{})
	if m, ok := q.next(); !ok || m.ID != 3 || m.Error == nil {
		t.Fatalf("a ping before the hello: %+v; stderr: %s", m, q.errb.String())
	}
	if _, ok := q.next(); ok {
		t.Fatal("the proxy goes on after a first line that is not a hello")
	}
	if err := <-q.done; err == nil || !strings.Contains(q.errb.String(), "is not a proxy/hello request") {
		t.Fatalf("the proxy exited %v: %s", err, q.errb.String())
	}
	q.done <- nil

	// The local side hangs up: the proxy ends, exit status 0, and the server goes on.
	p.in.Close()
	for {
		if _, ok := p.next(); !ok {
			break
		}
	}
	select {
	case err := <-p.done:
		p.done <- err
		if err != nil {
			t.Fatalf("the proxy exited with %v; stderr: %s", err, p.errb.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the proxy did not exit after its stdin closed")
	}
	if log := serverLog(dir); !strings.Contains(log, "proxy-1 left") {
		t.Errorf("the server's log does not say the proxy left:\n%s", log)
	}
}

func serverLog(dir string) string {
	b, _ := os.ReadFile(filepath.Join(dir, "tickmux", "tickmux.log"))
	return string(b)
}

// `tickmux proxy` with no server on the socket says so on stderr, writes nothing on stdout (the
// protocol) and exits 1.
func TestProxyWithNoServer(t *testing.T) {
	socket := filepath.Join(t.TempDir(), "none.sock")
	var out, errw bytes.Buffer
	code := run([]string{"proxy", "--socket", socket}, stdio{in: strings.NewReader(""), out: &out, err: &errw})
	want := "tickmux proxy: no tickmux server runs on " + socket + ": start one with `tickmux` there\n"
	if code != 1 || out.Len() != 0 || errw.String() != want {
		t.Fatalf("exit %d, stdout %q, stderr %q; want 1, nothing, %q", code, out.String(), errw.String(), want)
	}
}

// Via says how the person came: SSH_CONNECTION's client address, or local.
func TestProxyVia(t *testing.T) {
	for in, want := range map[string]string{
		"10.0.0.5 51234 10.0.0.9 22": "ssh from 10.0.0.5",
		"::1 51234 ::1 22":           "ssh from ::1",
		"":                           "local",
	} {
		if got := viaOf(in); got != want {
			t.Errorf("viaOf(%q) = %q, want %q", in, got, want)
		}
	}
}
