package agent_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"tickmux/agent"
	"tickmux/agent/agenttest"
	"tickmux/host"
	"tickmux/host/journal"
)

// Issue 38: ~20,000 idle connections took every descriptor the server had. These tests run the
// real server on a real socket with its bounds made small, and real clients: the Go client, the
// tickmux binary as the CLI, and raw sockets that send what a script might.

// limited is a headless tickmux (as agenttest.Start) whose server takes opts.
func limited(t *testing.T, opts agent.Options) (socket string, cards *agenttest.Cards, h *host.Host) {
	t.Helper()
	dir := t.TempDir()
	j, err := journal.Open(dir+"/state", 0)
	if err != nil {
		t.Fatal(err)
	}
	cards = agenttest.NewCards(nil)
	h = host.New(host.Config{Approver: cards.Queue, Logf: func(format string, args ...any) { t.Logf("host: "+format, args...) }, Journal: j})
	socket = dir + "/tickmux.sock"
	opts.Logf = func(format string, args ...any) { t.Logf("server: "+format, args...) }
	opts.ProgressEvery = 50 * time.Millisecond
	srv, err := agent.Serve(h, socket, opts)
	if err != nil {
		h.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		srv.Close()
		h.Close()
		j.Close()
	})
	return socket, cards, h
}

// idle opens a connection that says nothing, as each of the 20,000 did.
func idle(t *testing.T, socket string) net.Conn {
	t.Helper()
	c, err := net.Dial("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// lineThenEOF reads what the server sends a connection until it hangs up: one line, then EOF.
func lineThenEOF(t *testing.T, c net.Conn) agent.Message {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(agenttest.HangGuard))
	rd := bufio.NewReader(c)
	line, err := rd.ReadBytes('\n')
	if err != nil {
		t.Fatalf("no line from the server before it hung up: %v (%q)", err, line)
	}
	var m agent.Message
	if err := json.Unmarshal(line, &m); err != nil {
		t.Fatalf("not a message: %q", line)
	}
	if rest, err := rd.ReadBytes('\n'); err == nil || len(rest) > 0 {
		t.Fatalf("the server went on after its line: %q %v", rest, err)
	}
	return m
}

// Over each bound the next connection is refused at once with a one-line error that the Go
// client returns from Dial and the CLI prints; while only one process is over its bound,
// another client (the CLI, another process) still gets its list.
func TestConnectionBounds(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		limits agent.ConnLimits
		fill   int
		refuse string // in the refusal the next connection of this process gets
		cliOK  bool   // whether another process is still served
	}{
		{"per client", agent.ConnLimits{PerClient: 4, Total: 50}, 4, fmt.Sprintf("this process (pid %d) already has 4 connections open to it", os.Getpid()), true},
		{"per uid", agent.ConnLimits{PerClient: 50, PerUID: 5, Total: 50}, 5, fmt.Sprintf("uid %d already has 5 connections open to it", os.Getuid()), false},
		{"in all", agent.ConnLimits{PerClient: 50, Total: 6}, 6, "6 connections are open, as many as it takes (it keeps file descriptors for views and panes)", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.limits.Silence = time.Minute
			socket, _, _ := limited(t, agent.Options{Limits: tc.limits})
			ctx, cancel := context.WithTimeout(context.Background(), agenttest.HangGuard)
			defer cancel()
			var conns []net.Conn
			for range tc.fill {
				conns = append(conns, idle(t, socket))
			}
			// Accepting is asynchronous: an ordinary client over the bound is refused, whichever
			// idle connection the server counted last.
			_, err := agent.Dial(ctx, socket, "one too many")
			var e *agent.Error
			if !errors.As(err, &e) || e.Reason != agent.ReasonTooMany || !strings.Contains(e.Message, tc.refuse) {
				t.Fatalf("a connection over the bound: %v, want reason too_many and %q", err, tc.refuse)
			}
			// A raw connection over the bound that says nothing gets the line too, and EOF.
			if m := lineThenEOF(t, idle(t, socket)); m.Error == nil || m.Error.Reason != agent.ReasonTooMany || !strings.Contains(m.Error.Message, tc.refuse) {
				t.Errorf("a silent connection over the bound got %+v", m)
			}

			out, stderr, code := runCLI(t, socket, "ls")
			switch {
			case tc.cliOK && (code != agent.ExitOK || stderr != ""):
				t.Errorf("tickmux ls from another process: exit %d, stdout %q, stderr %q", code, out, stderr)
			case !tc.cliOK && (code != agent.ExitFailed || !strings.HasPrefix(stderr, "tickmux ls: tickmux refused the connection: ") ||
				strings.Count(stderr, "\n") != 1):
				t.Errorf("tickmux ls over the bound: exit %d, stderr %q; want one line saying why", code, stderr)
			}

			// Room again once one goes.
			conns[0].Close()
			deadline := time.Now().Add(agenttest.HangGuard)
			for {
				c, err := agent.Dial(ctx, socket, "after one went")
				if err == nil {
					c.Close()
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("still refused after a connection closed: %v", err)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}

// A connection that sends no complete request within the silence bound is closed (a raw one
// is told why); one that sent its request stays however long it then waits: a client between
// requests, and a wait that runs past the bound.
func TestSilentConnectionDropped(t *testing.T) {
	t.Parallel()
	const silence = 300 * time.Millisecond
	socket, _, _ := limited(t, agent.Options{Limits: agent.ConnLimits{Silence: silence}})

	start := time.Now()
	m := lineThenEOF(t, idle(t, socket))
	if m.Error == nil || !strings.Contains(m.Error.Message, "no request within 300ms of connecting") {
		t.Errorf("a silent connection was told %+v", m)
	}
	if took := time.Since(start); took < silence {
		t.Errorf("closed after %v, before the silence bound", took)
	}
	half := idle(t, socket)
	if _, err := half.Write([]byte(`{"id":1,"method":"hello"`)); err != nil { // never a whole line
		t.Fatal(err)
	}
	if m := lineThenEOF(t, half); m.Error == nil {
		t.Errorf("a connection that sent half a request: %+v", m)
	}

	ctx, cancel := context.WithTimeout(context.Background(), agenttest.HangGuard)
	defer cancel()
	c, err := agent.Dial(ctx, socket, "patient")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	time.Sleep(3 * silence) // between requests: it spoke, so it stays
	var res agent.WaitResult
	if err := c.Do(ctx, agent.MethodWait, agent.WaitParams{TimeoutS: new(1.0)}, &res, nil); err != nil {
		t.Fatalf("a wait longer than the silence bound, after a pause: %v", err)
	}
	if !res.TimedOut {
		t.Errorf("the wait: %+v", res)
	}
	var list agent.ListResult
	if err := c.Do(ctx, agent.MethodList, struct{}{}, &list, nil); err != nil {
		t.Errorf("a request after the wait: %v", err)
	}
}

// A view's attach is served past the bounds: the person can come back to a server a script has
// flooded. Other clients are still refused.
func TestViewAttachesPastTheBounds(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	h := host.New(host.Config{})
	defer h.Close()
	socket := dir + "/tickmux.sock"
	srv, err := agent.Serve(h, socket, agent.Options{Logf: t.Logf, Limits: agent.ConnLimits{Total: 2, Silence: time.Minute},
		Views: func(nc *net.UnixConn, req agent.Request) {
			_, _ = fmt.Fprintf(nc, `{"id":%d,"result":{"view":%q}}`+"\n", req.ID, req.Method)
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	idle(t, socket)
	idle(t, socket)
	view := idle(t, socket)
	if _, err := view.Write([]byte(`{"id":1,"method":"view/attach","params":{}}` + "\n")); err != nil {
		t.Fatal(err)
	}
	if m := lineThenEOF(t, view); m.Error != nil || string(m.Result) != `{"view":"view/attach"}` {
		t.Errorf("a view's attach over the bounds: %+v", m)
	}
	ctx, cancel := context.WithTimeout(context.Background(), agenttest.HangGuard)
	defer cancel()
	var e *agent.Error
	if _, err := agent.Dial(ctx, socket, "not a view"); !errors.As(err, &e) || e.Reason != agent.ReasonTooMany {
		t.Errorf("another client over the bounds: %v", err)
	}
}

// Issue 38: `tickmux call --no-wait` in a shell loop is a new process each time, so the bound
// per process never met it. The kept calls of one uid are bounded together: with that bound 3,
// the fourth CLI process of the loop is refused with a message naming the uid's bound.
func TestKeptCallsBoundedPerUID(t *testing.T) {
	t.Parallel()
	socket, cards, h := limited(t, agent.Options{KeptPerUID: 3})
	in, err := h.Open(host.OpenSpec{Argv: []string{agenttest.Executable(t)}, Env: []string{agenttest.EnvFake + "=1"}})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-in.Ready():
	case <-time.After(agenttest.HangGuard):
		t.Fatal("the fake Tick did not start")
	}
	for i := range 3 {
		out, stderr, code := runCLI(t, socket, "call", "--no-wait", in.ID(), "set", fmt.Sprintf(`{"value": %d}`, i))
		if name, _, _ := strings.Cut(strings.TrimSpace(out), " "); code != 0 || !strings.HasPrefix(name, "call:kept-") {
			t.Fatalf("call --no-wait %d: exit %d, stdout %q, stderr %q", i+1, code, out, stderr)
		}
	}
	_, stderr, code := runCLI(t, socket, "call", "--no-wait", in.ID(), "set", `{"value": 3}`)
	if code != agent.ExitFailed || !strings.Contains(stderr, fmt.Sprintf("3 kept calls (call --no-wait) of uid %d, all its processes together,", os.Getuid())) {
		t.Fatalf("the fourth process's call --no-wait: exit %d, stderr %q", code, stderr)
	}
	if n := len(cards.Queue.Pending()); n != 3 {
		t.Errorf("%d cards up, want 3", n)
	}
	for _, c := range cards.Queue.Pending() { // the host closes before the server otherwise waits for them
		cards.Answer(t, c.ID, host.Deny)
	}
}
