package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/term"

	"tickmux/agent"
	"tickmux/config"
	"tickmux/host/snapshot"
	"tickmux/internal/flagusage"
	"tickmux/internal/sockpath"
	"tickmux/server"
)

// tickmux restore: the snapshots a server on the socket left (--list), or a start of tickmux
// from one of them (N, 0 the newest), whatever the config's restore says. A plain `tickmux`
// after a crash asks by itself (restore = "ask"); this is for an older generation, or after
// answering no.
func runRestore(args []string, std stdio) int {
	fs := flag.NewFlagSet("tickmux restore", flag.ContinueOnError)
	fs.SetOutput(std.err)
	socket := fs.String("socket", os.Getenv("TICKMUX_SOCKET"), "the control socket `PATH` whose session to restore")
	list := fs.Bool("list", false, "list the snapshots kept, newest first, and restore nothing")
	cfgPath := fs.String("config", config.DefaultPath(), "the config file `PATH` the server starts with")
	logPath := fs.String("log", "", "the server's log file `PATH`")
	fs.Usage = func() {
		fmt.Fprintln(std.err, "usage: tickmux restore [--socket PATH] [--list] [N]")
		flagusage.Print(std.err, fs)
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 1 {
		fmt.Fprintln(std.err, "tickmux restore: at most one snapshot number (tickmux restore --list shows them)")
		return 2
	}
	sock := agent.SocketPath(*socket)
	dir, err := server.SnapshotDir("", sock)
	if err != nil {
		fmt.Fprintf(std.err, "tickmux restore: %v\n", err)
		return 1
	}
	gens, err := snapshot.List(dir)
	if err != nil {
		fmt.Fprintf(std.err, "tickmux restore: %v\n", err)
		return 1
	}
	if *list {
		if len(gens) == 0 {
			fmt.Fprintf(std.out, "no snapshots of the tickmux on %s (in %s)\n", sock, dir)
			return 0
		}
		for i, g := range gens {
			fmt.Fprintf(std.out, "%2d  %s  %s\n", i, g.Time.Local().Format("2006-01-02 15:04:05"), describeGeneration(g))
		}
		return 0
	}
	n := 0
	if fs.NArg() == 1 {
		n, err = strconv.Atoi(fs.Arg(0))
		if err != nil || n < 0 {
			fmt.Fprintf(std.err, "tickmux restore: %q is not a snapshot number (tickmux restore --list shows them)\n", fs.Arg(0))
			return 2
		}
	}
	if n >= len(gens) {
		fmt.Fprintf(std.err, "tickmux restore: there are %d snapshots of the tickmux on %s; tickmux restore --list shows them\n", len(gens), sock)
		return 1
	}
	g := gens[n]
	if g.Err != nil {
		fmt.Fprintf(std.err, "tickmux restore: snapshot %d cannot be read: %v\n", n, g.Err)
		return 1
	}
	if g.Panes == 0 {
		fmt.Fprintf(std.err, "tickmux restore: snapshot %d has no pane to bring back\n", n)
		return 1
	}
	if sockpath.Running(sock) {
		fmt.Fprintf(std.err, "tickmux restore: a tickmux runs on %s and its session is live; `tickmux kill-server` first to restore another\n", sock)
		return 1
	}
	if !term.IsTerminal(int(os.Stdin.Fd())) || !term.IsTerminal(int(os.Stdout.Fd())) {
		fmt.Fprintln(std.err, "tickmux restore: needs a terminal (stdin and stdout must be a TTY)")
		return 2
	}
	if !configPathOK("tickmux restore", *cfgPath, std) {
		return 2
	}
	cols, rows := server.WindowSize(int(os.Stdout.Fd()))
	sargs := append([]string{"--restore", g.Name}, server.ServerArgs(sock, *cfgPath, *logPath, cols, rows, false, nil)...)
	if err := server.Start(sargs); err != nil && !errors.Is(err, sockpath.ErrAlreadyRunning) {
		fmt.Fprintf(std.err, "tickmux restore: %v\n", err)
		return 1
	}
	return server.Attach(sock, os.Stdin, os.Stdout, std.err, viewParams())
}

// describeGeneration is one line of restore --list.
func describeGeneration(g snapshot.Generation) string {
	if g.Err != nil {
		return "cannot be read: " + g.Err.Error()
	}
	parts := []string{countOf(g.Tabs, "tab") + ", " + countOf(g.Panes, "pane")}
	switch g.Ended {
	case "":
		parts = append(parts, "the server did not end by itself (a crash, a kill, a reboot)")
	default:
		parts = append(parts, "ended: "+g.Ended)
	}
	return strings.Join(parts, "  ")
}

func countOf(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
