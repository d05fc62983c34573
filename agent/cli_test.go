package agent_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"tickmux/agent"
	"tickmux/agent/agenttest"
	"tickmux/host"
	"tickmux/tick/wire"
)

// The CLI verbs and `tickmux mcp` / `tickmux serve`, run as the tickmux binary.

type cliRun struct {
	cmd    *exec.Cmd
	stdout bytes.Buffer
	stderr strings.Builder // complete once done is closed
	lines  chan string     // stderr, line by line, as it comes
	done   chan struct{}
	code   int
}

// startCLI runs `tickmux ARGS...` against socket; finish waits for it.
func startCLI(t *testing.T, socket, stdin string, args ...string) *cliRun {
	t.Helper()
	r := &cliRun{done: make(chan struct{}), lines: make(chan string, 256)}
	r.cmd = exec.Command(tickmuxBinary(t), append(args, "--socket", socket)...)
	if args[0] == "open" || args[0] == "wait" {
		// Everything after the first positional argument of open is the command: put --socket first.
		r.cmd = exec.Command(tickmuxBinary(t), append([]string{args[0], "--socket", socket}, args[1:]...)...)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.cmd.Stdout, r.cmd.Stderr = &r.stdout, pw
	r.cmd.Stdin = strings.NewReader(stdin)
	r.cmd.Env = append(os.Environ(), agent.EnvSocket+"=/nonexistent/should-not-be-used.sock")
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	go func() { // owner: the test; ends when the CLI exits (finish waits for it)
		defer close(r.done)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			r.stderr.WriteString(sc.Text() + "\n")
			select {
			case r.lines <- sc.Text():
			default:
			}
		}
		pr.Close()
		err := r.cmd.Wait()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			r.code = ee.ExitCode()
		} else if err != nil {
			r.code = -1
		}
	}()
	t.Cleanup(func() {
		r.cmd.Process.Kill()
		<-r.done
	})
	return r
}

func (r *cliRun) finish(t *testing.T) (stdout, stderr string, code int) {
	t.Helper()
	receive(t, r.done, "the end of tickmux "+strings.Join(r.cmd.Args[1:], " "))
	return r.stdout.String(), r.stderr.String(), r.code
}

func runCLI(t *testing.T, socket string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return startCLI(t, socket, "", args...).finish(t)
}

// spec: H-E1
// README "CLI verbs": every verb says when no tickmux is running.
func TestCLINotRunning(t *testing.T) {
	t.Parallel()
	socket := filepath.Join(t.TempDir(), "none.sock")
	for _, args := range [][]string{
		{"ls"}, {"describe", "hosted:1"}, {"read", "hosted:1"}, {"call", "hosted:1", "get"}, {"wait"},
		{"send", "shell:1", "x"}, {"screen", "shell:1"}, {"close", "hosted:1"}, {"open", "--", "true"},
	} {
		_, stderr, code := runCLI(t, socket, args...)
		if code != agent.ExitNotRunning || !strings.Contains(stderr, "no tickmux is running on "+socket) {
			t.Errorf("tickmux %s: exit %d, stderr %q", args[0], code, stderr)
		}
	}
	stdout, _, code := runCLI(t, socket, "ls", "--json")
	var body struct{ Error agent.Error }
	if code != agent.ExitNotRunning || json.Unmarshal([]byte(stdout), &body) != nil || body.Error.Reason != agent.ReasonNotRunning {
		t.Errorf("tickmux ls --json: exit %d, %q", code, stdout)
	}
}

// README "CLI verbs": wrong usage exits with the usage status.
func TestCLIUsage(t *testing.T) {
	t.Parallel()
	socket := filepath.Join(t.TempDir(), "none.sock")
	for _, args := range [][]string{{"describe"}, {"call", "hosted:1"}, {"call", "hosted:1", "set", "[1]"}, {"open"}, {"ls", "extra"}} {
		_, stderr, code := runCLI(t, socket, args...)
		if code != agent.ExitUsage || stderr == "" {
			t.Errorf("tickmux %q: exit %d, stderr %q", args, code, stderr)
		}
	}
}

// spec: H-K2 H-E1 (the CLI's calls wait for the person the same way, and failures say their effect)
func TestCLIVerbs(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	in := h.OpenFake(t)
	id := in.ID()

	out, _, code := runCLI(t, h.Socket, "ls")
	if code != 0 || !strings.Contains(out, "ID") || !strings.Contains(out, id+"  tick  ready   Fake   test.fake  0    0") {
		t.Errorf("ls: exit %d\n%s", code, out)
	}
	out, _, _ = runCLI(t, h.Socket, "ls", "--json")
	var list agent.ListResult
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list.Ticks) != 1 || list.Ticks[0].ID != id {
		t.Errorf("ls --json: %v %q", err, out)
	}
	out, _, code = runCLI(t, h.Socket, "describe", id)
	if code != 0 || !strings.Contains(out, `revision "r1"`) || !strings.Contains(out, "set  [mutates") || !strings.Contains(out, "recover with: history") {
		t.Errorf("describe: exit %d\n%s", code, out)
	}
	out, _, code = runCLI(t, h.Socket, "read", id)
	if code != 0 || !strings.HasPrefix(out, id+" seq 0 at ") || !strings.Contains(out, `"value": 0`) {
		t.Errorf("read: exit %d\n%s", code, out)
	}

	// A mutating call waits for the card, says so, and prints the result once approved.
	run := startCLI(t, h.Socket, "", "call", id, "set", `{"value": 5}`)
	card := h.Cards.Next(t)
	if card.Req.Client != agent.CLIClientName || card.Req.Tool != "set" || string(card.Req.Args) != `{"value":5}` {
		t.Errorf("card: %+v", card.Req)
	}
	if line := receive(t, run.lines, "the CLI's progress"); line != "tickmux call: waiting for the person to approve set on "+id+" in tickmux (card 1)" {
		t.Errorf("progress line %q", line)
	}
	h.Cards.Answer(t, card.ID, host.AllowOnce)
	out, _, code = run.finish(t)
	if code != 0 || out != "{\n  \"value\": 5\n}\n" {
		t.Errorf("call set: exit %d, stdout %q", code, out)
	}

	// Refusals: at once with effect none.
	_, stderr, code := runCLI(t, h.Socket, "call", id, "set", `{"value": "x"}`)
	if code != agent.ExitFailed || !strings.Contains(stderr, "do not fit the input_schema") || !strings.Contains(stderr, "(effect: none)") {
		t.Errorf("call with bad args: exit %d, %q", code, stderr)
	}
	run = startCLI(t, h.Socket, "", "call", "--json", id, "set", `{"value": 6}`)
	h.Cards.Deny(t)
	out, _, code = run.finish(t)
	var body struct{ Error agent.Error }
	if code != agent.ExitFailed || json.Unmarshal([]byte(out), &body) != nil || body.Error.Reason != agent.ReasonDenied || body.Error.Effect != wire.EffectNone {
		t.Errorf("denied call --json: exit %d, %q", code, out)
	}
	_, stderr, code = runCLI(t, h.Socket, "call", id, "fail")
	if code != agent.ExitFailed || !strings.Contains(stderr, "the fake failed halfway (effect: possible)") {
		t.Errorf("failed call: exit %d, %q", code, stderr)
	}

	// wait: woken by the next update after the seq given.
	seq := in.State().Seq
	run = startCLI(t, h.Socket, "", "wait", "--after", id+"="+strconv.FormatUint(seq, 10), id)
	set := startCLI(t, h.Socket, "", "call", id, "set", `{"value": 9}`)
	h.Cards.Approve(t)
	set.finish(t)
	out, _, code = run.finish(t)
	if code != 0 || !strings.HasPrefix(out, id+" seq "+strconv.FormatUint(seq+1, 10)+" at ") || !strings.Contains(out, "1 merged (recover with history)") || !strings.Contains(out, `"value": 9`) {
		t.Errorf("wait: exit %d\n%s", code, out)
	}
	_, stderr, code = runCLI(t, h.Socket, "wait", "--timeout", "50ms", id)
	if code != agent.ExitFailed || !strings.Contains(stderr, "no news within 50ms") {
		t.Errorf("wait with nothing new: exit %d, %q", code, stderr)
	}

	// send, screen, close on a shell.
	sh := h.Open(t, host.OpenSpec{Shell: true, Argv: []string{"/bin/sh"}})
	run = startCLI(t, h.Socket, "echo typed-$((40+2))", "send", "--enter", sh.ID(), "-")
	if c := h.Cards.Approve(t); c.Req.Action != host.ActionSend || c.Req.Text != "echo typed-$((40+2))\r" {
		t.Errorf("send card: %+v", c.Req)
	}
	if out, _, code := run.finish(t); code != 0 || out != "typed 21 bytes into "+sh.ID()+"\n" {
		t.Errorf("send: exit %d, %q", code, out)
	}
	waitScreen(t, sh, "typed-42")
	if out, _, code := runCLI(t, h.Socket, "screen", sh.ID()); code != 0 || !strings.Contains(out, "typed-42") {
		t.Errorf("screen: exit %d, %q", code, out)
	}
	run = startCLI(t, h.Socket, "", "close", sh.ID())
	h.Cards.Approve(t)
	if out, _, code := run.finish(t); code != 0 || out != "closed "+sh.ID()+"\n" || h.Host.Get(sh.ID()) != nil {
		t.Errorf("close: exit %d, %q", code, out)
	}

	// Ctrl-C withdraws the card.
	run = startCLI(t, h.Socket, "", "call", id, "set", `{"value": 1}`)
	h.Cards.Next(t)
	run.cmd.Process.Signal(syscall.SIGINT)
	if _, stderr, code := run.finish(t); code != agent.ExitFailed || !strings.Contains(stderr, "(effect: unknown)") {
		t.Errorf("interrupted call: exit %d, %q", code, stderr)
	}
	h.Cards.WaitNone(t)
}

// call --no-wait answers with a ticket whose card outlives the CLI process; wait --call collects
// the outcome from another process.
// README "CLI verbs": call --no-wait and wait --call.
func TestCLICallNoWait(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	in := h.OpenFake(t)
	out, stderr, code := runCLI(t, h.Socket, "call", "--no-wait", in.ID(), "set", `{"value": 11}`)
	name, status, _ := strings.Cut(strings.TrimSpace(out), " ")
	if code != 0 || !strings.HasPrefix(name, "call:kept-") || (status != agent.StatusAwaitingApproval && status != agent.StatusRunning) ||
		!strings.Contains(stderr, "tickmux wait --call "+name) {
		t.Fatalf("call --no-wait: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	card := h.Cards.Next(t) // still up after the CLI exited
	if card.Req.Tool != "set" || in.State().Seq != 0 {
		t.Fatalf("card %+v, seq %d", card.Req, in.State().Seq)
	}
	run := startCLI(t, h.Socket, "", "wait", "--call", name)
	h.Cards.Answer(t, card.ID, host.AllowOnce)
	out, _, code = run.finish(t)
	if code != 0 || out != name+": ok\n{\n  \"value\": 11\n}\n" {
		t.Errorf("wait --call: exit %d, %q", code, out)
	}
	out, _, code = runCLI(t, h.Socket, "wait", "--call", name, "--timeout", "50ms")
	if code != agent.ExitFailed || !strings.HasPrefix(out, name+": unknown") {
		t.Errorf("wait --call for a collected call: exit %d, %q", code, out)
	}
}

// Kept calls are bounded per client: one client that left 64 kept calls waiting for the person
// and hung up is refused a 65th with a message naming its own limit, and another client's call
// --no-wait (the real CLI, another process) still gets a ticket. (Before, the server's one book of
// 64 kept calls was full for everyone, with a message about "this connection".)
// README "CLI verbs": call --no-wait.
func TestKeptCallsBoundedPerClient(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	in := h.OpenFake(t)
	ctx, cancel := context.WithTimeout(context.Background(), agenttest.HangGuard)
	defer cancel()
	hog, err := agent.Dial(ctx, h.Socket, "hog")
	if err != nil {
		t.Fatal(err)
	}
	keep := func(c *agent.Client, value int) error {
		var tk agent.Ticket
		return c.Do(ctx, agent.MethodCall, agent.CallParams{ID: in.ID(), Tool: "set", Args: json.RawMessage(fmt.Sprintf(`{"value": %d}`, value)),
			TicketAfterS: ptr(0.0), Keep: true}, &tk, nil)
	}
	for i := range 64 {
		if err := keep(hog, i); err != nil {
			t.Fatalf("kept call %d: %v", i+1, err)
		}
	}
	err = keep(hog, 64)
	var e *agent.Error
	if !errors.As(err, &e) || e.Reason != agent.ReasonTooMany || !strings.Contains(e.Message, "64 kept calls (call --no-wait) of this client (hog, pid ") ||
		strings.Contains(e.Message, "this connection") {
		t.Fatalf("the 65th kept call of one client: %v", err)
	}
	hog.Close() // it hangs up; its kept calls and their cards stay

	out, stderr, code := runCLI(t, h.Socket, "call", "--no-wait", in.ID(), "set", `{"value": 99}`)
	if name, _, _ := strings.Cut(strings.TrimSpace(out), " "); code != 0 || !strings.HasPrefix(name, "call:kept-") {
		t.Fatalf("another client's call --no-wait: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	if n := len(h.Cards.Queue.Pending()); n != 65 {
		t.Errorf("%d cards up, want 65 (64 of the client that hung up, 1 of the CLI)", n)
	}
}

// The demo Ticks (tickmux example …) through the CLI's open and `tickmux mcp` run as a process.
// README "Register tickmux with an agent": `tickmux mcp` as the agent runs it.
func TestMCPProcessWithDemoTicks(t *testing.T) {
	t.Parallel()
	bin := tickmuxBinary(t)
	h := agenttest.Start(t)

	run := startCLI(t, h.Socket, "", "open", "--", bin, "example", "counter")
	if c := h.Cards.Approve(t); c.Req.Action != host.ActionOpen || c.Req.Client != agent.CLIClientName || c.Req.Argv[0] != bin {
		t.Errorf("open card: %+v", c.Req)
	}
	out, stderr, code := run.finish(t)
	if code != 0 || !strings.HasSuffix(out, "ready: Counter (example.counter)\n") {
		t.Fatalf("open: exit %d, %q %q", code, out, stderr)
	}
	counter := strings.Fields(out)[0]
	h.Open(t, host.OpenSpec{Argv: []string{bin, "example", "clock"}})

	cs := connectMCPProcess(t, h.Socket, nil)
	var list agent.ListResult
	call(t, cs, "list_ticks", map[string]any{}).decode(t, &list)
	var kinds []string
	for _, tk := range list.Ticks {
		kinds = append(kinds, tk.Kind)
	}
	if strings.Join(kinds, ",") != "example.counter,example.clock" {
		t.Fatalf("list_ticks: %+v", list)
	}
	var r agent.ReadResult
	call(t, cs, "read_tick", map[string]any{"id": counter}).decode(t, &r)
	if !strings.Contains(string(r.Data), `"value":0`) || r.RecoverWith != "history" {
		t.Errorf("read_tick: %+v %s", r, r.Data)
	}

	// Refused at once, with no card.
	e := call(t, cs, "call_tick", map[string]any{"id": counter, "tool": "increment", "args": map[string]any{"amount": "two"}}).errorOf(t)
	if e.Reason != agent.ReasonInvalidArgs || e.Effect != wire.EffectNone || len(h.Cards.Queue.Pending()) != 0 {
		t.Errorf("increment with bad args: %+v", e)
	}

	// Approved: the card names the MCP client, the result comes back, the wait is woken.
	ctx, cancel := context.WithTimeout(context.Background(), agenttest.HangGuard)
	defer cancel()
	done := callAsync(t, ctx, cs, &mcp.CallToolParams{Name: "call_tick", Arguments: map[string]any{"id": counter, "tool": "increment", "args": map[string]any{"amount": 2}}})
	card := h.Cards.Approve(t)
	if card.Req.Client != "test-agent" || card.Req.Tool != "increment" || card.Req.Title != "Counter" {
		t.Errorf("card: %+v", card.Req)
	}
	var cr agent.CallResult
	receive(t, done, "increment's result").decode(t, &cr)
	if !strings.Contains(string(cr.Result), `"value":2`) {
		t.Errorf("increment: %s", cr.Result)
	}
	var w agent.WaitResult
	call(t, cs, "wait", map[string]any{"ids": []string{counter}}).decode(t, &w)
	if len(w.Entries) != 1 || w.Entries[0].Merged != 1 || !strings.Contains(string(w.Entries[0].Data), `"value":2`) || w.Entries[0].RecoverWith != "history" {
		t.Errorf("wait: %+v", w)
	}
}

// `tickmux serve`: a headless tickmux refuses changes, a second one on the same socket refuses to
// start, and SIGTERM removes the socket.
// spec: H-K2 (no person to approve: a headless tickmux refuses changes)
func TestServeProcess(t *testing.T) {
	t.Parallel()
	bin := tickmuxBinary(t)
	socket := filepath.Join(t.TempDir(), "serve.sock")
	serve, lines := startServe(t, bin, "--socket", socket, "--open", bin+" example counter")
	for line := range lines {
		if strings.Contains(line, "listening on "+socket) {
			break
		}
	}

	// Wait for the counter through the socket: the first wait delivers every Tick not yet seen.
	c, err := agent.Dial(context.Background(), socket, "test")
	if err != nil {
		t.Fatal(err)
	}
	var w agent.WaitResult
	err = c.Do(context.Background(), agent.MethodWait, agent.WaitParams{TimeoutS: ptr(agenttest.HangGuard.Seconds())}, &w, nil)
	c.Close()
	if err != nil || len(w.Entries) != 1 || w.Entries[0].ID != "hosted:1" {
		t.Fatalf("wait for the counter: %v %+v", err, w)
	}

	out, _, code := runCLI(t, socket, "read", "--json", "hosted:1")
	if code != 0 || !strings.Contains(out, `"value":0`) {
		t.Errorf("read: exit %d, %q", code, out)
	}
	_, stderr, code := runCLI(t, socket, "call", "hosted:1", "increment", `{"amount": 1}`)
	if code != agent.ExitFailed || !strings.Contains(stderr, "nobody here can approve it (effect: none)") {
		t.Errorf("a mutating call on a headless tickmux: exit %d, %q", code, stderr)
	}
	cs := connectMCPProcess(t, socket, nil)
	e := call(t, cs, "open_tick", map[string]any{"command": []string{"true"}}).errorOf(t)
	if e.Reason != agent.ReasonNoApprover || e.Effect != wire.EffectNone {
		t.Errorf("open_tick on a headless tickmux: %+v", e)
	}

	second := exec.Command(bin, "serve", "--socket", socket)
	msg, err := second.CombinedOutput()
	if second.ProcessState.ExitCode() != 1 || !strings.Contains(string(msg), "another tickmux is already running on "+socket) {
		t.Errorf("a second serve: %v %q", err, msg)
	}

	serve.Process.Signal(syscall.SIGTERM)
	if err := serve.Wait(); err != nil {
		t.Errorf("serve after SIGTERM: %v", err)
	}
	if _, err := os.Lstat(socket); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the socket is still there: %v", err)
	}
	_, stderr, code = runCLI(t, socket, "ls")
	if code != agent.ExitNotRunning {
		t.Errorf("ls after serve ended: exit %d, %q", code, stderr)
	}
}

// startServe runs `tickmux serve ARGS...` and returns its stderr lines (the channel closes when it
// exits). The test must end the process; cleanup kills it if it did not.
func startServe(t *testing.T, bin string, args ...string) (*exec.Cmd, <-chan string) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, append([]string{"serve"}, args...)...)
	cmd.Stderr = w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	lines := make(chan string, 1024)
	readerDone := make(chan struct{})
	go func() { // owner: the test; ends at EOF, when serve exits
		defer close(readerDone)
		defer close(lines)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			t.Log(sc.Text())
			select {
			case lines <- sc.Text():
			default:
			}
		}
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
		<-readerDone
		r.Close()
	})
	return cmd, lines
}

func ptr[T any](v T) *T { return &v }
