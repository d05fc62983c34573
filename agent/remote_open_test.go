package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"tickmux/agent"
	"tickmux/agent/agenttest"
	"tickmux/host"
	"tickmux/host/journal"
	"tickmux/tick/wire"
)

// Issue 40: an agent's open on another host (`tickmux open --host NAME`, open_tick's host): a
// card here first, the open sent to the host only once the person allowed it.

// hostsHarness is a headless tickmux with cards the test answers and the other hosts faked;
// raised counts every change of the card queue (a card that came, or went).
type hostsHarness struct {
	*agenttest.Harness
	raised *atomic.Int64
}

func startOpenHosts(t *testing.T, hosts agent.RemoteHosts) hostsHarness {
	t.Helper()
	dir := t.TempDir()
	var raised atomic.Int64
	cards := agenttest.NewCards(func() { raised.Add(1) })
	j, err := journal.Open(dir+"/state", 0)
	if err != nil {
		t.Fatal(err)
	}
	h := host.New(host.Config{Approver: cards.Queue, Journal: j, Logf: func(format string, args ...any) { t.Logf("host: "+format, args...) }})
	path := dir + "/tickmux.sock"
	srv, err := agent.Serve(h, path, agent.Options{Logf: func(format string, args ...any) { t.Logf("server: "+format, args...) },
		Remote: hosts, ProgressEvery: 50 * time.Millisecond})
	if err != nil {
		h.Close()
		t.Fatalf("serve: %v", err)
	}
	t.Cleanup(func() {
		srv.Close()
		h.Close()
		j.Close()
	})
	return hostsHarness{&agenttest.Harness{Host: h, Server: srv, Socket: path, Cards: cards, Journal: j}, &raised}
}

func twoOpenHosts() *fakeHosts {
	down := time.Now().Add(-3 * time.Minute)
	return &fakeHosts{states: func() []agent.RemoteState {
		return []agent.RemoteState{
			{Name: "gpu", State: agent.HostUp, Since: time.Now(), Hostname: "gpu-box"},
			{Name: "lab", State: agent.HostUnreachable, Since: down, Down: down, NextTry: time.Now().Add(9 * time.Second),
				Reason: "ssh: connect to host lab port 22: Connection refused"},
		}
	}}
}

// cliRun runs a verb in the background; its exit code and output arrive on the channel.
type cliOut struct {
	code     int
	out, err string
}

func cliAsync(v agent.Verb, args ...string) <-chan cliOut {
	ch := make(chan cliOut, 1)
	go func() { // owner: the test; ends when the verb does
		var out, errw bytes.Buffer
		code := v.Run(args, strings.NewReader(""), &out, &errw)
		ch <- cliOut{code, out.String(), errw.String()}
	}()
	return ch
}

// `tickmux open --host gpu`: the card is raised here, with the host, the command and its
// directory, and says the program is not sandboxed; nothing goes to the host until the person
// answers; y sends one open (bounded, not cancelled by the client), whose pane the CLI prints
// under the host's name; the journal records the open as the pane on that host.
func TestOpenOnHostWaitsForThePerson(t *testing.T) {
	t.Parallel()
	fake := twoOpenHosts()
	fake.open = func(string, []string, string, bool) (string, error) { return "shell:7", nil }
	h := startOpenHosts(t, fake)

	done := cliAsync(agent.Open, "--socket", h.Socket, "--host", "gpu", "--shell", "--cwd", "/srv/work", "--", "htop", "-d", "5")
	card := h.Cards.Next(t)
	r := card.Req
	if r.Action != host.ActionOpen || r.Host != "gpu" || !r.Shell || r.Sandboxed || r.Dir != "/srv/work" ||
		strings.Join(r.Argv, " ") != "htop -d 5" || r.Client != "tickmux-cli" {
		t.Errorf("the card: %+v", r)
	}
	time.Sleep(100 * time.Millisecond) // the open must not go out while the card waits
	if o := fake.opened(); len(o) != 0 {
		t.Fatalf("the open went to the host before the person answered: %+v", o)
	}
	h.Cards.Answer(t, card.ID, host.AllowOnce)
	res := receive(t, done, "open's exit")
	if res.code != 0 || res.out != "gpu:shell:7 opened on gpu: htop -d 5\n" {
		t.Fatalf("open --host exited %d: %q %q", res.code, res.out, res.err)
	}
	o := fake.opened()
	if len(o) != 1 || o[0].Host != "gpu" || strings.Join(o[0].Argv, " ") != "htop -d 5" || o[0].Dir != "/srv/work" || !o[0].Plain ||
		o[0].Canceled || o[0].Deadline <= 0 || o[0].Deadline > 30*time.Second {
		t.Fatalf("the opens sent: %+v", o)
	}
	var entries []journal.Entry
	guard := time.Now().Add(agenttest.HangGuard)
	for time.Now().Before(guard) {
		entries, _ = h.Journal.Entries()
		if len(entries) > 0 && entries[len(entries)-1].Outcome != nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if n := len(entries); n == 0 || entries[n-1].Kind != "open" || entries[n-1].Instance != "gpu:shell:7" || entries[n-1].Outcome == nil ||
		entries[n-1].Outcome.Status != journal.StatusOK {
		t.Errorf("the journal: %+v", entries)
	}

	// Without --cwd the host's own default: no directory of this one goes there; --json.
	done = cliAsync(agent.Open, "--socket", h.Socket, "--json", "--host", "gpu", "--", "tickmux", "example", "counter")
	h.Cards.Approve(t)
	res = receive(t, done, "open's exit")
	var info agent.TickInfo
	if err := json.Unmarshal([]byte(res.out), &info); err != nil || res.code != 0 {
		t.Fatalf("open --json: %d %q %q", res.code, res.out, res.err)
	}
	if info.ID != "shell:7" || info.Host != "gpu" || info.Type != "tick" || info.Status != agent.StatusOpened {
		t.Errorf("open --json: %+v", info)
	}
	if o := fake.opened(); len(o) != 2 || o[1].Dir != "" || o[1].Plain {
		t.Errorf("the second open: %+v", o)
	}
}

// A denied card sends nothing; an unknown host, an unreachable one, or a sandbox asked for there
// is refused before any card, saying why.
func TestOpenOnHostDeniedOrRefused(t *testing.T) {
	t.Parallel()
	fake := twoOpenHosts()
	h := startOpenHosts(t, fake)

	done := cliAsync(agent.Open, "--socket", h.Socket, "--host", "gpu", "--shell", "--", "rm", "-rf", "/")
	h.Cards.Deny(t)
	res := receive(t, done, "open's exit")
	if res.code == 0 || !strings.Contains(res.err, "denied") {
		t.Errorf("a denied open exited %d: %q %q", res.code, res.out, res.err)
	}
	h.Cards.WaitNone(t)

	before := h.raised.Load()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--host", "nope", "--shell", "--", "sh"}, `no host "nope" in the config's [[hosts]]: the hosts are gpu, lab`},
		{[]string{"--host", "lab", "--shell", "--", "sh"}, "host lab is unreachable since "},
		{[]string{"--host", "lab", "--shell", "--", "sh"}, "Connection refused), next try in "},
		{[]string{"--host", "gpu", "--sandbox", "--shell", "--", "sh"}, "cannot be sandboxed"},
		{[]string{"--host", "gpu", "--cwd", "rel/dir", "--shell", "--", "sh"}, "must be absolute"},
	} {
		res := receive(t, cliAsync(agent.Open, append([]string{"--socket", h.Socket}, c.args...)...), "open's exit")
		t.Logf("open %q: %s", c.args, res.err)
		if res.code == 0 || !strings.Contains(res.err, c.want) {
			t.Errorf("open %q exited %d: %q %q, want %q", c.args, res.code, res.out, res.err, c.want)
		}
	}
	// What runs in a sandboxed pane (the agent socket) opens nothing on another host.
	actl, err := agent.ServeAgent(h.Host, agent.AgentSocketPath(h.Socket), agent.Options{Remote: fake})
	if err != nil {
		t.Fatal(err)
	}
	defer actl.Close()
	res = receive(t, cliAsync(agent.Open, "--socket", actl.Path(), "--host", "gpu", "--shell", "--", "sh"), "open's exit")
	if res.code == 0 || !strings.Contains(res.err, "an open from inside a sandboxed pane is sandboxed") {
		t.Errorf("open --host through the agent socket exited %d: %q", res.code, res.err)
	}
	if n := h.raised.Load(); n != before {
		t.Errorf("the refused opens raised cards (%d queue changes)", n-before)
	}
	if o := fake.opened(); len(o) != 0 {
		t.Errorf("opens went out: %+v", o)
	}

	// RemoteHosts that cannot open (list only): no card.
	listOnly := startOpenHosts(t, struct{ agent.RemoteHosts }{twoOpenHosts()})
	res = receive(t, cliAsync(agent.Open, "--socket", listOnly.Socket, "--host", "gpu", "--shell", "--", "sh"), "open's exit")
	if res.code == 0 || !strings.Contains(res.err, "cannot open panes on other hosts") || listOnly.raised.Load() != 0 {
		t.Errorf("open --host without an opener exited %d: %q (%d queue changes)", res.code, res.err, listOnly.raised.Load())
	}

	// Without any [[hosts]]: no card either.
	plain := startOpenHosts(t, nil)
	res = receive(t, cliAsync(agent.Open, "--socket", plain.Socket, "--host", "gpu", "--shell", "--", "sh"), "open's exit")
	if res.code == 0 || !strings.Contains(res.err, "this tickmux has no other hosts") || plain.raised.Load() != 0 {
		t.Errorf("open --host without hosts exited %d: %q (%d queue changes)", res.code, res.err, plain.raised.Load())
	}
}

// The host's failure after the person allowed the open: nothing sent (the host went down
// meanwhile) is effect none; an open that went out with no answer is effect unknown. Neither is
// sent again.
func TestOpenOnHostFails(t *testing.T) {
	t.Parallel()
	fake := twoOpenHosts()
	var sent atomic.Bool
	fake.open = func(string, []string, string, bool) (string, error) {
		return "", &agent.RemoteOpenError{Sent: sent.Load(), Err: errors.New("the host said no")}
	}
	h := startOpenHosts(t, fake)
	ctx, cancel := context.WithTimeout(context.Background(), agenttest.HangGuard)
	defer cancel()
	c, err := agent.Dial(ctx, h.Socket, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, s := range []bool{false, true} {
		sent.Store(s)
		errc := make(chan error, 1)
		go func() { // owner: the test; ends with the open
			errc <- c.Do(ctx, agent.MethodOpen, agent.OpenParams{Host: "gpu", Shell: true}, nil, nil)
		}()
		h.Cards.Approve(t)
		err := receive(t, errc, "open's answer")
		var e *agent.Error
		want := wire.EffectNone
		if s {
			want = wire.EffectUnknown
		}
		if !errors.As(err, &e) || e.Effect != want || !strings.Contains(e.Message, "the host said no") {
			t.Errorf("sent %v: %#v, want effect %s", s, err, want)
		}
	}
	if o := fake.opened(); len(o) != 2 {
		t.Errorf("%d opens went out, want one per answer: %+v", len(o), o)
	}
}

// open_tick takes host: the same card, the same open after the answer, the pane there in its
// result; its schema says so.
func TestOpenTickOnHost(t *testing.T) {
	t.Parallel()
	fake := twoOpenHosts()
	h := startOpenHosts(t, fake)
	cs := connectMCP(t, h.Socket, nil)
	ctx, cancel := context.WithTimeout(context.Background(), agenttest.HangGuard)
	defer cancel()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if tool.Name == "open_tick" {
			if schema, _ := json.Marshal(tool.InputSchema); !strings.Contains(string(schema), `"host":{`) {
				t.Errorf("open_tick's input schema has no host: %s", schema)
			}
		}
	}
	opened := callAsync(t, ctx, cs, &mcp.CallToolParams{Name: "open_tick", Arguments: map[string]any{
		"command": []string{"bash"}, "shell": true, "host": "gpu"}})
	card := h.Cards.Next(t)
	if card.Req.Host != "gpu" || card.Req.Dir != "" || card.Req.Sandboxed {
		t.Errorf("open_tick's card: %+v", card.Req)
	}
	if o := fake.opened(); len(o) != 0 {
		t.Fatalf("the open went out before the answer: %+v", o)
	}
	h.Cards.Answer(t, card.ID, host.AllowOnce)
	var info agent.TickInfo
	receive(t, opened, "open_tick's result").decode(t, &info)
	if info.ID != "shell:9" || info.Host != "gpu" || info.Type != "shell" || info.Status != agent.StatusOpened {
		t.Errorf("open_tick on gpu: %+v", info)
	}
	if o := fake.opened(); len(o) != 1 || o[0].Host != "gpu" || o[0].Dir != "" || !o[0].Plain {
		t.Errorf("the open sent: %+v", o)
	}
	// A relative cwd means nothing there.
	e := call(t, cs, "open_tick", map[string]any{"command": []string{"bash"}, "shell": true, "host": "gpu", "cwd": "src"}).errorOf(t)
	if !strings.Contains(e.Message, "must be absolute") {
		t.Errorf("open_tick with a relative cwd on a host: %+v", e)
	}
}
