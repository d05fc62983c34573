package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tickmux/agent"
	"tickmux/config"
	"tickmux/host"
	"tickmux/internal/remotewire"
)

// hostsRun runs `tickmux hosts ARGS --config cfg --socket (none)`.
func hostsRun(t *testing.T, cfg string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errw bytes.Buffer
	sock := filepath.Join(filepath.Dir(cfg), "none.sock")
	code = run(append(append([]string{"hosts"}, args...), "--config", cfg, "--socket", sock), stdio{in: strings.NewReader(""), out: &out, err: &errw})
	return out.String(), errw.String(), code
}

func readText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Issue 40: hosts add appends a [[hosts]] table and rm takes it out again, leaving the rest of
// the file (comments, settings, tables) byte for byte and its mode as it was.
func TestHostsAddRmRoundTrip(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.toml")
	orig := "# my tickmux\ntheme = \"light\"   # light, please\nscrollback = 5000\n\n[colors]\nborder_focused = \"#ff8700\"  # orange\n\n[keys.prefix]\n\"v\" = \"split-right\"\n"
	if err := os.WriteFile(cfg, []byte(orig), 0o640); err != nil {
		t.Fatal(err)
	}

	out, errs, code := hostsRun(t, cfg, "add", "gpu", "me@gpu.example", "--ssh-arg", "-p", "--ssh-arg", "2222", "--tickmux", `/opt/tick "mux"/tickmux`, "--remote-socket", "/run/t.sock")
	if code != 0 || !strings.HasPrefix(out, "added gpu to "+cfg+"; no tickmux runs on ") {
		t.Fatalf("hosts add exited %d: %s%s", code, out, errs)
	}
	gpu := "[[hosts]]\nname = \"gpu\"\nssh = \"me@gpu.example\"\nssh_args = [\"-p\", \"2222\"]\ntickmux = \"/opt/tick \\\"mux\\\"/tickmux\"\nsocket = \"/run/t.sock\"\n"
	if got := readText(t, cfg); got != orig+"\n"+gpu {
		t.Fatalf("after add:\n%s", got)
	}
	if _, errs, code := hostsRun(t, cfg, "add", "lab", "lab"); code != 0 {
		t.Fatalf("hosts add lab: %s", errs)
	}
	lab := "[[hosts]]\nname = \"lab\"\nssh = \"lab\"\n"
	c, err := config.Load(cfg)
	if err != nil || len(c.Hosts) != 2 {
		t.Fatalf("the config after add: %v %+v", err, c)
	}
	if h := c.Hosts[0]; h.Name != "gpu" || h.SSH != "me@gpu.example" || strings.Join(h.SSHArgs, " ") != "-p 2222" || h.Tickmux != `/opt/tick "mux"/tickmux` || h.Socket != "/run/t.sock" {
		t.Errorf("gpu: %+v", h)
	}
	if c.Theme.Name != "light" || c.Scrollback != 5000 {
		t.Errorf("the other settings: theme %s, scrollback %d", c.Theme.Name, c.Scrollback)
	}

	out, errs, code = hostsRun(t, cfg, "rm", "gpu")
	if code != 0 || !strings.HasPrefix(out, "removed gpu from "+cfg+"; ") {
		t.Fatalf("hosts rm exited %d: %s%s", code, out, errs)
	}
	if got := readText(t, cfg); got != orig+"\n"+lab {
		t.Fatalf("after rm gpu:\n%q\nwant\n%q", got, orig+"\n"+lab)
	}
	if _, errs, code := hostsRun(t, cfg, "rm", "lab"); code != 0 {
		t.Fatalf("hosts rm lab: %s", errs)
	}
	if got := readText(t, cfg); got != orig {
		t.Fatalf("after rm lab:\n%q\nwant\n%q", got, orig)
	}
	if st, err := os.Stat(cfg); err != nil || st.Mode().Perm() != 0o640 {
		t.Errorf("the file's mode: %v %v", st.Mode(), err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("left in the directory: %v", ents)
	}
}

// rm takes a table from the middle of a file: its own lines (a commented-out setting at its end
// included) go, the comment leading the next table stays; a config that is a symbolic link is
// edited where it points and stays a link.
func TestHostsRmMiddle(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	real := filepath.Join(dir, "dotfiles", "tickmux.toml")
	if err := os.MkdirAll(filepath.Dir(real), 0o700); err != nil {
		t.Fatal(err)
	}
	text := "theme = \"dark\"\n\n[[hosts]]   # the big box\nname = \"gpu\"\nssh = \"gpu\"\n# tickmux = \"/opt/x\"\n\n# colours\n[colors]\nbadge = \"black on yellow bold\"\n\n[[hosts]]\nname = \"lab\"\nssh = \"lab\"\n"
	if err := os.WriteFile(real, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "config.toml")
	if err := os.Symlink(real, cfg); err != nil {
		t.Fatal(err)
	}
	if _, errs, code := hostsRun(t, cfg, "rm", "gpu"); code != 0 {
		t.Fatalf("hosts rm gpu: %s", errs)
	}
	want := "theme = \"dark\"\n\n# colours\n[colors]\nbadge = \"black on yellow bold\"\n\n[[hosts]]\nname = \"lab\"\nssh = \"lab\"\n"
	if got := readText(t, real); got != want {
		t.Errorf("after rm gpu:\n%q\nwant\n%q", got, want)
	}
	if fi, err := os.Lstat(cfg); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the config is no longer a link: %v %v", fi.Mode(), err)
	}
}

// A name the config has, or a destination ssh would read as an option, is refused with config's
// own message, and nothing is written; add creates a missing file and its directory, 0700.
func TestHostsAddRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "new", "tickmux", "config.toml")
	if _, errs, code := hostsRun(t, cfg, "add", "gpu", "gpu.example"); code != 0 {
		t.Fatalf("hosts add into no file: %s", errs)
	}
	if st, err := os.Stat(filepath.Dir(cfg)); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("the new directory: %v %v", st.Mode(), err)
	}
	before := readText(t, cfg)
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"add", "gpu", "other.example"}, `[[hosts]]: "gpu" is named twice; nothing was written`},
		{[]string{"add", "evil", "--", "-oProxyCommand=sh"}, `give the destination as ssh takes it`},
		{[]string{"add", "local", "box"}, `"local" is this machine's name`},
		{[]string{"add", "a b", "box"}, `use letters, digits`},
	} {
		out, errs, code := hostsRun(t, cfg, c.args...)
		if code != 1 || out != "" || !strings.Contains(errs, c.says) || !strings.Contains(errs, "nothing was written") {
			t.Errorf("hosts %q: exit %d, %q %q", c.args, code, out, errs)
		}
	}
	if readText(t, cfg) != before {
		t.Errorf("a refused add wrote:\n%s", readText(t, cfg))
	}
	if ents, _ := os.ReadDir(filepath.Dir(cfg)); len(ents) != 1 {
		t.Errorf("left in the directory: %v", ents)
	}
}

// rm of a host the config does not have says which it has; with no file, that there is none.
func TestHostsRmAbsent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.toml")
	if _, errs, code := hostsRun(t, cfg, "rm", "gpu"); code != 1 || !strings.Contains(errs, "there is no config file "+cfg) {
		t.Errorf("rm with no file: %d %q", code, errs)
	}
	text := "theme = \"dark\"\n\n[[hosts]]\nname = \"lab\"\nssh = \"lab\"\n"
	if err := os.WriteFile(cfg, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, errs, code := hostsRun(t, cfg, "rm", "gpu"); code != 1 || !strings.Contains(errs, "has no host gpu (its hosts: lab)") {
		t.Errorf("rm gpu: %d %q", code, errs)
	}
	if readText(t, cfg) != text {
		t.Error("a refused rm wrote")
	}
	if _, errs, code := hostsRun(t, cfg, "rm"); code != 2 || !strings.Contains(errs, "usage: tickmux hosts") {
		t.Errorf("rm with no name: %d %q", code, errs)
	}
}

// hosts and hosts ls list the config's hosts; with no server on the socket they say that the
// states show while one runs.
func TestHostsLsNoServer(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.toml")
	out, _, code := hostsRun(t, cfg)
	if code != 0 || out != "no hosts in "+cfg+"; tickmux hosts add NAME DEST adds one\n" {
		t.Errorf("hosts with no file: %d %q", code, out)
	}
	text := "[[hosts]]\nname = \"gpu\"\nssh = \"me@gpu.example\"\nssh_args = [\"-F\", \"/home/me/ssh config\"]\n\n[[hosts]]\nname = \"lab\"\nssh = \"lab\"\ntickmux = \"/opt/bin/tickmux\"\nsocket = \"/run/user/1000/t.sock\"\n"
	if err := os.WriteFile(cfg, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	want := "NAME  SSH             SSH ARGS                  TICKMUX           SOCKET\n" +
		"gpu   me@gpu.example  -F \"/home/me/ssh config\"  tickmux           (its default)\n" +
		"lab   lab             -                         /opt/bin/tickmux  /run/user/1000/t.sock\n" +
		"no tickmux runs on " + filepath.Join(dir, "none.sock") + ": each host's state shows while a tickmux runs\n"
	for _, args := range [][]string{nil, {"ls"}} {
		out, errs, code := hostsRun(t, cfg, args...)
		if code != 0 || out != want {
			t.Errorf("hosts %q: exit %d %s\n%s\nwant\n%s", args, code, errs, out, want)
		}
	}
	if _, errs, code := hostsRun(t, cfg, "list"); code != 2 || !strings.Contains(errs, `unknown subcommand "list"`) {
		t.Errorf("hosts list: %d %q", code, errs)
	}
}

// staticHosts are the hosts of a running tickmux, as its remote.Manager would give them.
type staticHosts []agent.RemoteState

func (s staticHosts) States() []agent.RemoteState { return s }
func (s staticHosts) Ls(context.Context) map[string]remotewire.LsResult {
	return map[string]remotewire.LsResult{}
}

// With a tickmux running on the socket, hosts ls adds each host's state there; a host the
// config has and the server does not, and one the server has and the config no longer does, say so.
func TestHostsLsWithServer(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.toml")
	text := "[[hosts]]\nname = \"gpu\"\nssh = \"gpu\"\n\n[[hosts]]\nname = \"new\"\nssh = \"new\"\n"
	if err := os.WriteFile(cfg, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	h := host.New(host.Config{})
	srv, err := agent.Serve(h, filepath.Join(dir, "none.sock"), agent.Options{Remote: staticHosts{
		{Name: "gpu", State: agent.HostUp, Since: time.Now(), Hostname: "gpu-box"},
		{Name: "old", State: agent.HostUnreachable, Since: time.Now(), NextTry: time.Now().Add(-time.Second), Reason: "Permission denied (publickey)"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		srv.Close()
		h.Close()
	})
	out, errs, code := hostsRun(t, cfg, "ls")
	lines := strings.Split(out, "\n")
	if code != 0 || len(lines) != 5 || !strings.HasSuffix(lines[0], "SOCKET         STATE") ||
		!strings.HasSuffix(lines[1], "up, gpu-box") ||
		!strings.HasSuffix(lines[2], "not in the running tickmux (added since it started, or it runs with another config)") ||
		!strings.HasPrefix(lines[3], "old ") || !strings.Contains(lines[3], "unreachable since ") ||
		!strings.HasSuffix(lines[3], "(Permission denied (publickey)), trying again now; removed from the config since the running tickmux started") {
		t.Errorf("hosts ls: %d %s\n%s", code, errs, out)
	}

	out, _, code = hostsRun(t, cfg, "add", "lab", "lab")
	if code != 0 || !strings.Contains(out, "the running tickmux read its config when it started and keeps it, as tmux does: it sees lab once it starts again") {
		t.Errorf("hosts add with a server: %d %s", code, out)
	}
}
