package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"tickmux/agent"
	"tickmux/agent/agenttest"
	"tickmux/config"
	"tickmux/host"
	"tickmux/internal/remotewire"
	"tickmux/remote"
)

// Issue 40: the other hosts of the config's [[hosts]] in ls and list_ticks, read-only.

// fakeHosts plays remote.Manager for the list method: fixed states, fixed listings, and hosts
// whose ls hangs (their answer never comes; Ls returns what answered when ctx ends, as the
// Manager's does).
type fakeHosts struct {
	states func() []agent.RemoteState
	ls     map[string]remotewire.LsResult
	hang   map[string]bool

	// open answers Open (nil: a pane "shell:9"); opens are the Opens made.
	open  func(host string, argv []string, dir string, plain bool) (string, error)
	opens []fakeOpen

	mu        sync.Mutex
	calls     int
	deadlines []time.Duration // each Ls's deadline, from when it was called
}

// fakeOpen is one Open of a fakeHosts.
type fakeOpen struct {
	Host     string
	Argv     []string
	Dir      string
	Plain    bool
	Deadline time.Duration // from when it was called; -1 without one
	Canceled bool          // ctx had ended when it was called
}

func (f *fakeHosts) Open(ctx context.Context, host string, argv []string, dir string, plain bool) (string, error) {
	o := fakeOpen{Host: host, Argv: argv, Dir: dir, Plain: plain, Deadline: -1, Canceled: ctx.Err() != nil}
	if d, ok := ctx.Deadline(); ok {
		o.Deadline = time.Until(d)
	}
	f.mu.Lock()
	f.opens = append(f.opens, o)
	f.mu.Unlock()
	if f.open != nil {
		return f.open(host, argv, dir, plain)
	}
	return "shell:9", nil
}

func (f *fakeHosts) opened() []fakeOpen {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fakeOpen(nil), f.opens...)
}

func (f *fakeHosts) States() []agent.RemoteState { return f.states() }

func (f *fakeHosts) Ls(ctx context.Context) map[string]remotewire.LsResult {
	f.mu.Lock()
	f.calls++
	if d, ok := ctx.Deadline(); ok {
		f.deadlines = append(f.deadlines, time.Until(d))
	} else {
		f.deadlines = append(f.deadlines, -1)
	}
	f.mu.Unlock()
	out := map[string]remotewire.LsResult{}
	for name, r := range f.ls {
		out[name] = r
	}
	if len(f.hang) > 0 {
		<-ctx.Done()
	}
	return out
}

func (f *fakeHosts) seen() (int, []time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls, append([]time.Duration(nil), f.deadlines...)
}

// startWithHosts is agenttest.StartWith with Options.Remote.
func startWithHosts(t *testing.T, hosts agent.RemoteHosts) *agenttest.Harness {
	t.Helper()
	dir := t.TempDir()
	h := host.New(host.Config{Logf: func(format string, args ...any) { t.Logf("host: "+format, args...) }})
	path := dir + "/tickmux.sock"
	srv, err := agent.Serve(h, path, agent.Options{Logf: func(format string, args ...any) { t.Logf("server: "+format, args...) }, Remote: hosts})
	if err != nil {
		h.Close()
		t.Fatalf("serve: %v", err)
	}
	t.Cleanup(func() {
		srv.Close()
		h.Close()
	})
	return &agenttest.Harness{Host: h, Server: srv, Socket: path}
}

func list(t *testing.T, socket string, p agent.ListParams) agent.ListResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), agenttest.HangGuard)
	defer cancel()
	c, err := agent.Dial(ctx, socket, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var res agent.ListResult
	if err := c.Do(ctx, agent.MethodList, p, &res, nil); err != nil {
		t.Fatalf("list: %v", err)
	}
	return res
}

func threeHosts(since time.Time) *fakeHosts {
	return &fakeHosts{
		states: func() []agent.RemoteState {
			return []agent.RemoteState{
				{Name: "gpu", State: agent.HostUp, Since: since, Hostname: "gpu-box"},
				{Name: "lab", State: agent.HostUnreachable, Since: since, NextTry: time.Now().Add(12 * time.Second),
					Reason: "ssh: connect to host lab port 22: Connection refused", Down: since.Add(-10 * time.Minute)},
				{Name: "old", State: agent.HostConnecting, Since: since},
				{Name: "again", State: agent.HostConnecting, Since: since, Down: since.Add(-time.Hour), Reason: "Permission denied (publickey)"},
			}
		},
		ls: map[string]remotewire.LsResult{"gpu": {
			Ticks: []remotewire.Tick{
				{ID: "hosted:2", Title: "Counter", Kind: "counter", Status: "ready"},
				{ID: "shell:1", Title: "bash\x1b[31m", Status: "ready", Plain: true},
			},
			Agents: []remotewire.Agent{{Agent: "claude-code", Session: "s-1", Pane: "shell:1", State: "working"}},
		}},
	}
}

// An up host is listed with its Ticks and agents, an unreachable one with its reason and next
// try, a connecting one as such; ls prints them after the local list, each id named after its
// host, with what came from the host escaped; --json carries them. Without hosts in the params
// (the MCP resource listing, other clients) nothing is asked of the hosts.
func TestListHosts(t *testing.T) {
	t.Parallel()
	since := time.Date(2026, 3, 4, 23, 5, 0, 0, time.Local)
	fake := threeHosts(since)
	h := startWithHosts(t, fake)

	if res := list(t, h.Socket, agent.ListParams{}); res.Hosts != nil || res.HostsNote != "" {
		t.Errorf("list without hosts: %+v", res)
	}
	if n, _ := fake.seen(); n != 0 {
		t.Errorf("a list without hosts asked the hosts %d times", n)
	}

	res := list(t, h.Socket, agent.ListParams{Hosts: true})
	if len(res.Hosts) != 4 || res.HostsNote == "" || res.Ticks == nil {
		t.Fatalf("list: %+v", res)
	}
	gpu, lab, old := res.Hosts[0], res.Hosts[1], res.Hosts[2]
	if gpu.Name != "gpu" || gpu.State != "up" || gpu.Hostname != "gpu-box" || len(gpu.Ticks) != 2 || gpu.Ticks[0].ID != "hosted:2" ||
		len(gpu.Agents) != 1 || gpu.Reason != "" || gpu.NextTry != "" || gpu.Note != "" {
		t.Errorf("gpu: %+v", gpu)
	}
	if lab.State != "unreachable" || !strings.Contains(lab.Reason, "Connection refused") || lab.NextTryInS == nil || *lab.NextTryInS != 12 ||
		lab.Since != since.UTC().Format(time.RFC3339) || lab.Down != since.Add(-10*time.Minute).UTC().Format(time.RFC3339) || lab.Ticks != nil {
		t.Errorf("lab: %+v", lab)
	}
	if old.State != "connecting" || old.Ticks != nil || old.Down != "" || gpu.Down != "" {
		t.Errorf("old: %+v", old)
	}
	if _, deadlines := fake.seen(); len(deadlines) != 1 || deadlines[0] <= 0 || deadlines[0] > 2*time.Second {
		t.Errorf("Ls was given the deadlines %v, want one within 2 s", deadlines)
	}

	var out, errw bytes.Buffer
	if code := agent.Ls.Run([]string{"--socket", h.Socket}, strings.NewReader(""), &out, &errw); code != 0 {
		t.Fatalf("ls exited %d: %s", code, errw.String())
	}
	want := "nothing is open in tickmux\n\n" +
		"host gpu (up, gpu-box)\n" +
		"  gpu:hosted:2  Counter       ready  counter\n" +
		"  gpu:shell:1   bash\\x1b[31m  ready  -\n" +
		"  gpu:shell:1: claude-code working, session s-1\n" +
		"\n" +
		"host lab: unreachable since " + clockOf(since.Add(-10*time.Minute)) + " (ssh: connect to host lab port 22: Connection refused), next try in 12s\n" +
		"\n" +
		"host old: connecting since " + clockOf(since) + "\n" +
		"\n" +
		"host again: unreachable since " + clockOf(since.Add(-time.Hour)) + ", trying again (last try: Permission denied (publickey))\n"
	if got := out.String(); got != want {
		t.Errorf("ls printed:\n%s\nwant:\n%s", out.String(), want)
	}

	out.Reset()
	if code := agent.Ls.Run([]string{"--socket", h.Socket, "--json"}, strings.NewReader(""), &out, &errw); code != 0 {
		t.Fatalf("ls --json exited %d: %s", code, errw.String())
	}
	var js struct {
		Hosts []struct {
			Name  string `json:"name"`
			State string `json:"state"`
			Ticks []struct {
				ID string `json:"id"`
			} `json:"ticks"`
		} `json:"hosts"`
	}
	if err := json.Unmarshal(out.Bytes(), &js); err != nil || len(js.Hosts) != 4 || js.Hosts[0].Ticks[1].ID != "shell:1" || js.Hosts[1].State != "unreachable" {
		t.Errorf("ls --json: %v %s", err, out.String())
	}
}

// clockOf is how ls writes a time: its time of day today, else with its date.
func clockOf(t time.Time) string {
	if y, m, d := t.Date(); y == time.Now().Year() && m == time.Now().Month() && d == time.Now().Day() {
		return t.Format("15:04")
	}
	return t.Format("Jan 2 15:04")
}

// A host whose ls hangs does not hold the list: the list asks with a deadline 2 s away, answers
// when it passes with the hosts that did answer, and says of the other that it did not.
func TestListHostHangs(t *testing.T) {
	t.Parallel()
	fake := &fakeHosts{
		states: func() []agent.RemoteState {
			return []agent.RemoteState{{Name: "gpu", State: agent.HostUp}, {Name: "stuck", State: agent.HostUp}}
		},
		ls:   map[string]remotewire.LsResult{"gpu": {Ticks: []remotewire.Tick{{ID: "hosted:1", Title: "Clock", Status: "ready"}}}},
		hang: map[string]bool{"stuck": true},
	}
	h := startWithHosts(t, fake)
	res := list(t, h.Socket, agent.ListParams{Hosts: true})
	if len(res.Hosts) != 2 || len(res.Hosts[0].Ticks) != 1 || res.Hosts[0].Note != "" {
		t.Fatalf("list: %+v", res.Hosts)
	}
	if st := res.Hosts[1]; st.State != "up" || st.Ticks != nil || !strings.Contains(st.Note, "did not list what runs there within 2s") {
		t.Errorf("the hung host: %+v", st)
	}
	if _, deadlines := fake.seen(); len(deadlines) != 1 || deadlines[0] <= 0 || deadlines[0] > 2*time.Second {
		t.Errorf("Ls was given the deadlines %v, want one within 2 s", deadlines)
	}
	var out bytes.Buffer
	agent.PrintHosts(&out, res.Hosts, time.Now())
	if !strings.Contains(out.String(), "host stuck (up)\n  it did not list what runs there within 2s\n") {
		t.Errorf("ls prints:\n%s", out.String())
	}
}

// MCP list_ticks through the SDK's client: the local entries keep their shape, the hosts come
// apart with their Ticks and agents, and the tool and the result say they are read-only here.
func TestMCPListTicksHosts(t *testing.T) {
	t.Parallel()
	h := startWithHosts(t, threeHosts(time.Now().Add(-time.Minute)))
	sh := h.Open(t, host.OpenSpec{Shell: true, Argv: []string{"/bin/sh"}})
	cs := connectMCP(t, h.Socket, nil)

	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if tool.Name == "list_ticks" && (!strings.Contains(tool.Description, "read-only across hosts") || !strings.Contains(tool.Description, "own socket")) {
			t.Errorf("list_ticks does not say the hosts are read-only: %s", tool.Description)
		}
	}

	r := call(t, cs, "list_ticks", map[string]any{})
	var res agent.ListResult
	r.decode(t, &res)
	if len(res.Ticks) != 1 || res.Ticks[0].ID != sh.ID() || res.Ticks[0].Type != "shell" {
		t.Errorf("local entries: %+v", res.Ticks)
	}
	if len(res.Hosts) != 4 || res.Hosts[0].Name != "gpu" || len(res.Hosts[0].Ticks) != 2 || res.Hosts[0].Agents[0].Pane != "shell:1" ||
		res.Hosts[1].Reason == "" {
		t.Errorf("hosts: %+v", res.Hosts)
	}
	if !strings.Contains(res.HostsNote, "read-only") || !strings.Contains(res.HostsNote, "never here") {
		t.Errorf("hosts_note: %q", res.HostsNote)
	}
	// The local entries are exactly what they were, key for key: hosts is a part of its own.
	var raw map[string]json.RawMessage
	r.decode(t, &raw)
	for k := range raw {
		switch k {
		case "ticks", "pending_approvals", "hosts", "hosts_note":
		default:
			t.Errorf("list_ticks has the key %q", k)
		}
	}
}

// managerHosts is the adapter the server passes as Options.Remote: remote.Manager's states as
// RemoteState, its Ls as it is.
type managerHosts struct{ *remote.Manager }

func (m managerHosts) States() []agent.RemoteState {
	var out []agent.RemoteState
	for _, s := range m.Manager.States() {
		out = append(out, agent.RemoteState{Name: s.Name, State: string(s.State), Since: s.Since, NextTry: s.NextTry, Reason: s.Reason,
			Hostname: s.Hostname, Down: s.Down})
	}
	return out
}

func (m managerHosts) Open(ctx context.Context, name string, argv []string, dir string, plain bool) (string, error) {
	l := m.Link(name)
	if l == nil {
		return "", &agent.RemoteOpenError{Err: errors.New("no such host")}
	}
	pane, err := l.Open(ctx, remotewire.OpenParams{Argv: argv, Dir: dir, Plain: plain})
	if err != nil {
		var un *remote.UnreachableError
		return "", &agent.RemoteOpenError{Sent: !errors.As(err, &un), Err: err}
	}
	return pane, nil
}

// The real remote.Manager behind the list, through the adapter: a host whose ssh cannot connect
// is listed unreachable with ssh's reason and its next try.
func TestListHostsWithManager(t *testing.T) {
	t.Parallel()
	ssh := filepath.Join(t.TempDir(), "ssh")
	if err := os.WriteFile(ssh, []byte("#!/bin/sh\necho 'ssh: connect to host lab.example port 22: Connection refused' >&2\nexit 255\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	changed := make(chan struct{}, 1)
	m := remote.NewManager([]config.Host{{Name: "lab", SSH: "me@lab.example"}}, remote.Options{SSH: ssh, Changed: func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	}})
	m.Start()
	t.Cleanup(m.Close)
	guard := time.After(agenttest.HangGuard)
	for m.States()[0].State != remote.Unreachable {
		select {
		case <-changed:
		case <-guard:
			t.Fatalf("the host did not become unreachable: %+v", m.States())
		}
	}
	h := startWithHosts(t, managerHosts{m})
	res := list(t, h.Socket, agent.ListParams{Hosts: true})
	if len(res.Hosts) != 1 {
		t.Fatalf("hosts: %+v", res.Hosts)
	}
	lab := res.Hosts[0]
	// Past the first unreachable state the link may be connecting again (its next try is 1 s
	// away), with the last try's reason.
	if lab.Name != "lab" || (lab.State != "unreachable" && lab.State != "connecting") || !strings.Contains(lab.Reason, "Connection refused") {
		t.Errorf("lab: %+v", lab)
	}
	if lab.Down == "" || (lab.State == "unreachable" && lab.NextTryInS == nil) {
		t.Errorf("lab has no next try: %+v", lab)
	}
}
