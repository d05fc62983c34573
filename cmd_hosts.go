package main

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/pelletier/go-toml/v2"

	"tickmux/agent"
	"tickmux/config"
	"tickmux/host"
	"tickmux/internal/flagusage"
	"tickmux/internal/sockpath"
)

// tickmux hosts [ls|add|rm]: the other machines of the config's [[hosts]] (issue 40). ls lists
// them, with each one's state in the tickmux running on the socket; add and rm edit the config
// file as text, so that its comments and other settings stay byte for byte, and write it
// atomically only once the result parses. A running server keeps the config it started with.

// hostsHelp says how to set a host up, after the usage.
const hostsHelp = `  tickmux hosts [ls] [--socket PATH]
        the hosts of the config, and each one's state in the tickmux running on the socket
  tickmux hosts add NAME DEST [--ssh-arg ARG]... [--tickmux PATH] [--remote-socket PATH]
        add a [[hosts]] entry: DEST as ssh takes it (user@host, or a Host of ~/.ssh/config)
  tickmux hosts rm NAME
        remove the [[hosts]] entry NAME

Setting a host up: tickmux runs "ssh -T -o BatchMode=yes [ssh args] DEST tickmux proxy" to it, so
the host needs key-based ssh (BatchMode never prompts: use a key, or ssh-agent), tickmux on the
PATH of a non-interactive ssh session (or --tickmux PATH), and a tickmux server running there.
`

func runHosts(args []string, std stdio) int {
	sub, args, named := hostsSubcommand(args)
	fs := flag.NewFlagSet("hosts", flag.ContinueOnError)
	fs.SetOutput(std.err)
	cfgPath := fs.String("config", config.DefaultPath(), "the config file `PATH` to read or edit")
	socket := fs.String("socket", "", "the control socket `PATH` of the running tickmux, for its hosts' states (default $"+agent.EnvSocket+", else $XDG_RUNTIME_DIR/tickmux/default.sock, else /tmp/tickmux-$UID/default.sock)")
	var sshArgs []string
	fs.Func("ssh-arg", "add: an `ARG` given to ssh before the destination (repeat for more: --ssh-arg -p --ssh-arg 2222)", func(s string) error {
		sshArgs = append(sshArgs, s)
		return nil
	})
	tickmuxPath := fs.String("tickmux", "", "add: tickmux's `PATH` on that host (default tickmux, found on its PATH)")
	remoteSocket := fs.String("remote-socket", "", "add: the `PATH` of the server's socket on that host (default: that tickmux's own default)")
	fs.Usage = func() {
		usageHead(std.err, "hosts")
		fmt.Fprint(std.err, hostsHelp+"\n")
		flagusage.Print(std.err, fs)
	}
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return 0
			}
			return 2
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
	addOnly := len(sshArgs) > 0 || *tickmuxPath != "" || *remoteSocket != ""
	switch {
	case sub == "add" && len(pos) == 2:
		h := config.HostFile{Name: pos[0], SSH: pos[1], SSHArgs: sshArgs, Tickmux: *tickmuxPath, Socket: *remoteSocket}
		return hostsAdd(*cfgPath, h, agent.SocketPath(*socket), std)
	case sub == "rm" && len(pos) == 1 && !addOnly:
		return hostsRm(*cfgPath, pos[0], agent.SocketPath(*socket), std)
	case sub == "ls" && len(pos) == 0 && !addOnly:
		return hostsLs(*cfgPath, agent.SocketPath(*socket), std)
	}
	if !named && len(pos) > 0 {
		fmt.Fprintf(std.err, "tickmux hosts: unknown subcommand %q: ls, add or rm\n", pos[0])
		return 2
	}
	fs.Usage()
	return 2
}

// hostsSubcommand finds the subcommand (ls, add or rm; ls when none is named) among args, which
// may start with flags (tickmux --config C hosts add … is hosts --config C add …), and returns
// the arguments without it.
func hostsSubcommand(args []string) (sub string, rest []string, named bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if strings.HasPrefix(a, "-") {
			name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
			if !hasValue && name != "h" && name != "help" {
				i++ // every flag of hosts takes a value
			}
			continue
		}
		switch a {
		case "ls", "add", "rm":
			return a, append(slices.Clone(args[:i]), args[i+1:]...), true
		}
		break
	}
	return "ls", args, false
}

// restartNote says that the running server keeps its config.
func restartNote(sock, name string) string {
	if !sockpath.Running(sock) {
		return fmt.Sprintf("no tickmux runs on %s: the next one started there reads it", sock)
	}
	return fmt.Sprintf("the running tickmux read its config when it started and keeps it, as tmux does: it sees %s once it starts again "+
		"(tickmux kill-server ends it and every program in it; tickmux restore brings the session back)", name)
}

// hostsLs lists the config's hosts, and their states when a server runs on sock.
func hostsLs(path string, sock string, std stdio) int {
	cf, err := readConfigFile(path)
	if err != nil {
		fmt.Fprintf(std.err, "tickmux hosts: %v\n", err)
		return 1
	}
	cfg, err := config.Parse(cf.text) // a missing file has no hosts
	if err != nil {
		fmt.Fprintf(std.err, "tickmux hosts: %s: %v\n", path, err)
		return 1
	}
	states, serr := runningHosts(sock)
	if len(cfg.Hosts) == 0 && len(states) == 0 {
		fmt.Fprintf(std.out, "no hosts in %s; tickmux hosts add NAME DEST adds one\n", path)
		return 0
	}
	now := time.Now()
	byName := map[string]agent.HostListing{}
	for _, h := range states {
		byName[h.Name] = h
	}
	tw := tabwriter.NewWriter(std.out, 0, 4, 2, ' ', 0)
	head := "NAME\tSSH\tSSH ARGS\tTICKMUX\tSOCKET"
	if serr == nil {
		head += "\tSTATE"
	}
	fmt.Fprintln(tw, head)
	for _, h := range cfg.Hosts {
		line := fmt.Sprintf("%s\t%s\t%s\t%s\t%s", h.Name, printable(h.SSH), shellWords(h.SSHArgs), printable(h.Tickmux), printable(cmp.Or(h.Socket, "(its default)")))
		if serr == nil {
			st, ok := byName[h.Name]
			if ok {
				line += "\t" + printable(agent.HostStatus(st, now))
			} else {
				line += "\tnot in the running tickmux (added since it started, or it runs with another config)"
			}
		}
		fmt.Fprintln(tw, line)
	}
	for _, st := range states {
		if !slices.ContainsFunc(cfg.Hosts, func(h config.Host) bool { return h.Name == st.Name }) {
			fmt.Fprintf(tw, "%s\t-\t-\t-\t-\t%s; removed from the config since the running tickmux started\n", printable(st.Name), printable(agent.HostStatus(st, now)))
		}
	}
	tw.Flush()
	if serr != nil {
		fmt.Fprintf(std.out, "%s: each host's state shows while a tickmux runs\n", serr)
	}
	return 0
}

// runningHosts asks the server on sock for its hosts' states.
func runningHosts(sock string) ([]agent.HostListing, error) {
	if !sockpath.Running(sock) {
		return nil, fmt.Errorf("no tickmux runs on %s", sock)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := agent.Dial(ctx, sock, agent.CLIClientName)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	var res agent.ListResult
	if err := c.Do(ctx, agent.MethodList, agent.ListParams{Hosts: true}, &res, nil); err != nil {
		return nil, err
	}
	return res.Hosts, nil
}

// hostsAdd appends a [[hosts]] table for h to the config file at path.
func hostsAdd(path string, h config.HostFile, sock string, std stdio) int {
	cf, err := readConfigFile(path)
	if err != nil {
		fmt.Fprintf(std.err, "tickmux hosts add: %v\n", err)
		return 1
	}
	text := cf.text
	if text != "" {
		if !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		if !strings.HasSuffix(text, "\n\n") {
			text += "\n"
		}
	}
	text += hostTable(h)
	if _, err := config.Parse(text); err != nil {
		fmt.Fprintf(std.err, "tickmux hosts add: %s: %v; nothing was written\n", path, err)
		return 1
	}
	if err := cf.write(text); err != nil {
		fmt.Fprintf(std.err, "tickmux hosts add: %v\n", err)
		return 1
	}
	fmt.Fprintf(std.out, "added %s to %s; %s\n", h.Name, path, restartNote(sock, h.Name))
	return 0
}

// hostTable is the [[hosts]] table of h, with only what is set.
func hostTable(h config.HostFile) string {
	var b strings.Builder
	b.WriteString("[[hosts]]\n")
	fmt.Fprintf(&b, "name = %s\n", tomlString(h.Name))
	fmt.Fprintf(&b, "ssh = %s\n", tomlString(h.SSH))
	if len(h.SSHArgs) > 0 {
		quoted := make([]string, len(h.SSHArgs))
		for i, a := range h.SSHArgs {
			quoted[i] = tomlString(a)
		}
		fmt.Fprintf(&b, "ssh_args = [%s]\n", strings.Join(quoted, ", "))
	}
	if h.Tickmux != "" {
		fmt.Fprintf(&b, "tickmux = %s\n", tomlString(h.Tickmux))
	}
	if h.Socket != "" {
		fmt.Fprintf(&b, "socket = %s\n", tomlString(h.Socket))
	}
	return b.String()
}

// hostsRm removes the [[hosts]] table named name from the config file at path.
func hostsRm(path, name string, sock string, std stdio) int {
	cf, err := readConfigFile(path)
	if err != nil {
		fmt.Fprintf(std.err, "tickmux hosts rm: %v\n", err)
		return 1
	}
	if !cf.existed {
		fmt.Fprintf(std.err, "tickmux hosts rm: there is no config file %s: no host %s to remove\n", path, name)
		return 1
	}
	before, err := decodeConfig(cf.text)
	if err != nil {
		fmt.Fprintf(std.err, "tickmux hosts rm: %s: %v; nothing was written\n", path, err)
		return 1
	}
	text, found := removeHostTable(cf.text, name)
	if !found {
		var names []string
		for _, h := range before.Hosts {
			names = append(names, h.Name)
		}
		if len(names) == 0 {
			fmt.Fprintf(std.err, "tickmux hosts rm: %s has no [[hosts]]: no host %s to remove\n", path, name)
		} else {
			fmt.Fprintf(std.err, "tickmux hosts rm: %s has no host %s (its hosts: %s)\n", path, name, strings.Join(names, ", "))
		}
		return 1
	}
	// The result must parse, and be the file as it was without that one host: else the text
	// was not what the table scan took it for (a multi-line string, an inline array of hosts).
	after, err := decodeConfig(text)
	want := before
	want.Hosts = slices.DeleteFunc(slices.Clone(before.Hosts), func(h config.HostFile) bool { return h.Name == name })
	if len(want.Hosts) == 0 {
		want.Hosts = nil
	}
	if err == nil && !reflect.DeepEqual(after, want) {
		err = errors.New("the file would change beyond that host")
	}
	if err == nil {
		_, err = config.Parse(text)
	}
	if err != nil {
		fmt.Fprintf(std.err, "tickmux hosts rm: cannot remove %s from %s safely (%v): edit it by hand; nothing was written\n", name, path, err)
		return 1
	}
	if err := cf.write(text); err != nil {
		fmt.Fprintf(std.err, "tickmux hosts rm: %v\n", err)
		return 1
	}
	fmt.Fprintf(std.out, "removed %s from %s; %s\n", name, path, restartNote(sock, "the change"))
	return 0
}

// decodeConfig decodes config text as written (no defaults, no checks but TOML's).
func decodeConfig(text string) (config.File, error) {
	var f config.File
	err := toml.NewDecoder(strings.NewReader(text)).Decode(&f)
	return f, err
}

var (
	tableHeader = regexp.MustCompile(`^\s*\[`)
	hostsHeader = regexp.MustCompile(`^\s*\[\[\s*hosts\s*\]\]\s*(#[^\n]*)?\n?$`)
)

// removeHostTable takes the [[hosts]] table named name out of text: from its header line up to
// the next table header or the end, less the comments that lead the next table (those after a
// blank line at the table's end), and the blank line that set the table apart.
func removeHostTable(text, name string) (string, bool) {
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for start := 0; start < len(lines); start++ {
		if !hostsHeader.MatchString(lines[start]) {
			continue
		}
		end := start + 1
		for end < len(lines) && !tableHeader.MatchString(lines[end]) {
			end++
		}
		var one struct{ Hosts []config.HostFile }
		if toml.Unmarshal([]byte(strings.Join(lines[start:end], "")), &one) != nil || len(one.Hosts) != 1 || one.Hosts[0].Name != name {
			continue
		}
		// The blank and comment lines at the table's end, from the first blank one on, lead
		// what follows: they stay.
		run := end
		for run > start+1 && isBlankOrComment(lines[run-1]) {
			run--
		}
		cut := end
		for i := run; i < end; i++ {
			if strings.TrimSpace(lines[i]) == "" {
				cut = i
				break
			}
		}
		rest := lines[cut:]
		switch blankNext := len(rest) > 0 && strings.TrimSpace(rest[0]) == ""; {
		case start > 0 && strings.TrimSpace(lines[start-1]) == "" && (blankNext || len(rest) == 0):
			start-- // the blank line that set the table apart
		case start == 0 && blankNext:
			rest = rest[1:] // the file starts with what followed
		}
		out := slices.Concat(lines[:start], rest)
		return strings.Join(out, ""), true
	}
	return text, false
}

func isBlankOrComment(line string) bool {
	t := strings.TrimSpace(line)
	return t == "" || strings.HasPrefix(t, "#")
}

// configFile is the config file as read, and where and how to write it back.
type configFile struct {
	path    string // the file itself (a symbolic link followed)
	text    string
	mode    fs.FileMode
	existed bool
}

// readConfigFile reads the config file at path; a missing one reads as empty.
func readConfigFile(path string) (*configFile, error) {
	if path == "" {
		return nil, errors.New("no config path: set HOME or XDG_CONFIG_HOME, or give --config PATH")
	}
	cf := &configFile{path: path, mode: 0o600}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		cf.path = real // a config kept elsewhere and linked (dotfiles) is edited where it is
	}
	b, err := os.ReadFile(cf.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return cf, nil
	case err != nil:
		return nil, fmt.Errorf("cannot read the config file: %w", err)
	}
	st, err := os.Stat(cf.path)
	if err != nil {
		return nil, err
	}
	cf.text, cf.mode, cf.existed = string(b), st.Mode().Perm(), true
	return cf, nil
}

// write replaces the file with text atomically: a temporary file beside it, synced, with the
// file's mode, renamed over it. A missing directory is made, 0700.
func (cf *configFile) write(text string) error {
	dir := filepath.Dir(cf.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("cannot make the config's directory: %w", err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(cf.path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("cannot write the config file: %w", err)
	}
	defer os.Remove(tmp.Name()) // gone once renamed
	if _, err = io.Copy(tmp, bytes.NewReader([]byte(text))); err == nil {
		if err = tmp.Chmod(cf.mode); err == nil {
			err = tmp.Sync()
		}
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), cf.path)
	}
	if err != nil {
		return fmt.Errorf("cannot write the config file %s: %w", cf.path, err)
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// shellWords writes args as a shell would read them back ("-" for none).
func shellWords(args []string) string {
	if len(args) == 0 {
		return "-"
	}
	out := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`") {
			a = strconv.Quote(a)
		}
		out[i] = printable(a)
	}
	return strings.Join(out, " ")
}

func printable(s string) string { return host.Printable(s, false) }
