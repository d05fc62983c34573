package remote

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"tickmux/config"
	"tickmux/internal/remotewire"
	"tickmux/internal/sshtest"
)

// Two hosts behind real sshds, reached with the real ssh client, the remote command being the
// fake proxy (config's tickmux = its path): "near", and "far" behind a relay that holds every
// byte 375 ms each way. Both come up, their cards flow, an answer goes through the slow one;
// near hangs (every process of its sshd stopped) and is found out by the default pings while far
// stays up; near comes back once it thaws; Close leaves no session on either.
func TestOverRealSSHD(t *testing.T) {
	t.Parallel()
	const delay = 375 * time.Millisecond
	nearDir, farDir := t.TempDir(), t.TempDir()
	near := sshtest.Start(t, sshtest.Options{Alias: "near", Env: map[string]string{"REMOTE_FAKE_DIR": nearDir}})
	far := sshtest.Start(t, sshtest.Options{Alias: "far", Env: map[string]string{"REMOTE_FAKE_DIR": farDir}, Delay: delay})
	t0 := time.Now()
	write(t, nearDir, "cards.json", cardsJSON(t, remotewire.Card{ID: 1, Since: t0, Action: "call", Tool: "deploy"}))
	write(t, farDir, "cards.json", cardsJSON(t, remotewire.Card{ID: 9, Since: t0.Add(-time.Minute), Action: "agent", Text: "make install"}))
	hosts := []config.Host{
		{Name: "near", SSH: near.Dest(), SSHArgs: near.SSHArgs(), Tickmux: fakeProxy, Socket: near.Env["TICKMUX_SOCKET"]},
		{Name: "far", SSH: far.Dest(), SSHArgs: far.SSHArgs(), Tickmux: fakeProxy},
	}
	// The default clocks: a ping every 5 s, 3 s to answer, 1 s before the first new try.
	m := newManager(t, hosts, Options{SSH: "ssh", timing: timing{pingEvery: 5 * time.Second}})
	upNear := waitFor(t, "near up", 30*time.Second, isUp(m, "near"))
	upFar := waitFor(t, "far up", 60*time.Second, isUp(m, "far"))
	t.Logf("up after %v (near), %v (far, 375 ms each way)", upNear.Round(time.Millisecond), (upNear + upFar).Round(time.Millisecond))
	if st := stateOf(m, "near"); st.Hostname != "fake-"+filepath.Base(nearDir) {
		t.Errorf("near's state %+v", st)
	}
	if got := strings.Split(readFile(t, nearDir, "args"), "\x00"); !slices.Equal(got, []string{"proxy", "--socket", near.Env["TICKMUX_SOCKET"]}) {
		t.Errorf("the proxy's arguments on near: %q", got)
	}
	if got := readFile(t, farDir, "args"); got != "proxy" {
		t.Errorf("the proxy's arguments on far: %q", got)
	}

	waitFor(t, "both hosts' cards", 10*time.Second, func() bool { return len(m.Cards()) == 2 })
	if c := m.Cards(); c[0].Host != "far" || c[1].Host != "near" {
		t.Errorf("cards %+v", c)
	}
	write(t, nearDir, "cards.json", cardsJSON(t))
	waitFor(t, "near's card answered elsewhere, gone", 10*time.Second, func() bool { return len(m.Cards()) == 1 })

	start := time.Now()
	if err := m.Answer(context.Background(), "far", m.Cards()[0].Card, remotewire.Deny, "view 1 on laptop"); err != nil {
		t.Fatalf("Answer on far: %v", err)
	}
	t.Logf("an answer through far's 375 ms relay took %v", time.Since(start).Round(time.Millisecond))
	if got := readFile(t, farDir, "answers"); !strings.Contains(got, `"card":9`) || !strings.Contains(got, `"decision":"deny"`) {
		t.Errorf("far's answers %q", got)
	}

	frozen := near.Freeze()
	start = time.Now()
	var calls int
	for stateOf(m, "near").State == Up {
		if time.Since(start) > 30*time.Second {
			t.Fatal("near still up 30 s after it froze")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		var r remotewire.LsResult
		if err := m.Link("far").Call(ctx, remotewire.MethodLs, struct{}{}, &r); err != nil {
			t.Errorf("ls on far while near hangs: %v", err)
		}
		cancel()
		calls++
	}
	st := stateOf(m, "near")
	t.Logf("near (%d processes stopped) unreachable %v after it froze: %s; far answered %d listings meanwhile", len(frozen), time.Since(start).Round(time.Millisecond), st.Reason, calls)
	if !strings.HasPrefix(st.Reason, "no answer from near in 3") {
		t.Errorf("near's reason %q", st.Reason)
	}
	if c := m.Cards(); len(c) != 1 || c[0].Host != "far" || !c[0].Reachable {
		t.Errorf("cards %+v", c)
	}
	if st := stateOf(m, "far"); st.State != Up {
		t.Errorf("far while near hangs: %+v", st)
	}
	if got := m.Ls(context.Background()); len(got) != 1 || got["far"].Ticks == nil {
		t.Errorf("ls with near unreachable: %+v", got)
	}
	near.Thaw()
	start = time.Now()
	waitFor(t, "near back", 40*time.Second, isUp(m, "near"))
	t.Logf("near up again %v after it thawed", time.Since(start).Round(time.Millisecond))

	proxies := append(pids(t, nearDir), pids(t, farDir)...)
	m.Close()
	for _, h := range []*sshtest.Host{near, far} {
		waitFor(t, h.Dest()+"'s sessions gone after Close", 10*time.Second, func() bool { return len(h.Sessions()) == 0 })
	}
	for _, p := range proxies {
		if alive(p) {
			t.Errorf("the proxy %d outlived Close", p)
		}
	}
}

// The real thing, but for the machines: tickmux built from this checkout, its server started on a
// fake host (through ssh, as the person would there), reached through a real sshd by the real
// `tickmux proxy`. Before the server runs, the reason says so; then the host comes up, lists the
// counter Tick, an agent's call there waits on a card that reaches this side, and this side's
// answer lets it run.
func TestRealTickmuxOverSSH(t *testing.T) {
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "tickmux")
	if out, err := exec.Command("go", "build", "-o", bin, "tickmux").CombinedOutput(); err != nil {
		t.Fatalf("go build tickmux: %v\n%s", err, out)
	}
	box := sshtest.Start(t, sshtest.Options{Alias: "box"})
	host := config.Host{Name: "box", SSH: box.Dest(), SSHArgs: box.SSHArgs(), Tickmux: bin}
	var o observer
	m := newManager(t, []config.Host{host}, Options{SSH: "ssh", observe: o.add,
		timing: timing{backoffMin: 200 * time.Millisecond, backoffMax: 200 * time.Millisecond}})
	waitFor(t, "unreachable", 30*time.Second, func() bool { return o.count(Unreachable) > 0 })
	if st := stateOf(m, "box"); st.Reason != "no tickmux server runs on box: start one there with `tickmux`" {
		t.Errorf("before the server: %+v", st)
	}

	logFile := filepath.Join(box.Dir, "server.out")
	start := exec.Command("ssh", append(box.SSHArgs(), "-T", box.Dest(),
		fmt.Sprintf("setsid %s server -- %s example counter </dev/null >%s 2>&1 &", bin, bin, logFile))...)
	if out, err := start.CombinedOutput(); err != nil {
		t.Fatalf("starting the server on box: %v\n%s", err, out)
	}
	t0 := time.Now()
	waitFor(t, "box up", 30*time.Second, isUp(m, "box"))
	t.Logf("box up %v after its server started", time.Since(t0).Round(time.Millisecond))
	hello, _ := m.Link("box").Hello()
	if name, _ := os.Hostname(); hello.Hostname != name || !strings.HasPrefix(hello.Tickmux, "tickmux ") {
		t.Errorf("hello %+v", hello)
	}

	var counter string
	waitFor(t, "the counter ready on box", 30*time.Second, func() bool {
		for _, tk := range m.Ls(context.Background())["box"].Ticks {
			if tk.Kind == "example.counter" && tk.Status == "ready" {
				counter = tk.ID
			}
		}
		return counter != ""
	})
	// An agent on box calls the counter's mutating tool: it waits for the person.
	call := exec.Command(bin, "call", counter, "increment", `{"amount":2}`)
	call.Env = append(os.Environ(), "TICKMUX_SOCKET="+box.Env["TICKMUX_SOCKET"], "XDG_STATE_HOME="+box.Env["XDG_STATE_HOME"],
		"XDG_CONFIG_HOME="+box.Env["XDG_CONFIG_HOME"], "HOME="+box.Env["HOME"])
	var out strings.Builder
	call.Stdout, call.Stderr = &out, &out
	if err := call.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- call.Wait() }() // owner: this test; ends when the call does
	t.Cleanup(func() {
		call.Process.Kill()
		<-done
		done <- nil
	})
	var card remotewire.Card
	waitFor(t, "the call's card here", 30*time.Second, func() bool {
		for _, c := range m.Cards() {
			if c.Host == "box" && c.Reachable && c.Card.Action == "call" && c.Card.Tool == "increment" {
				card = c.Card
				return true
			}
		}
		return false
	})
	if card.Instance != counter || string(card.Args) != `{"amount":2}` || card.Digest != remotewire.CardDigest(card) {
		t.Errorf("the card %+v", card)
	}
	if err := m.Answer(context.Background(), "box", card, remotewire.Once, "view 1 /dev/pts/3 on laptop"); err != nil {
		t.Fatalf("Answer: %v", err)
	}
	select {
	case err := <-done:
		done <- err
		if err != nil {
			t.Fatalf("the call after the answer: %v\n%s", err, out.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("the call still waits 30 s after the answer:\n%s", out.String())
	}
	t.Logf("the call: %s", strings.TrimSpace(out.String()))
	waitFor(t, "the card gone", 10*time.Second, func() bool { return len(m.Cards()) == 0 })
}
