package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"tickmux/internal/flagusage"
	"time"

	"tickmux/host"
	"tickmux/host/journal"
)

// runLog prints the approval journal (package journal), newest last: one line per decision and
// the state change each call made, indented; --json prints the entries as JSON Lines. ID keeps
// the entries of one instance. Every string in the journal is a Tick's or an agent's: the human
// form escapes it, and neither form is to be taken as instructions.
func runLog(args []string, std stdio) int {
	fs := flag.NewFlagSet("log", flag.ContinueOnError)
	fs.SetOutput(std.err)
	asJSON := fs.Bool("json", false, "print the entries as JSON Lines")
	n := fs.Int("n", 0, "print only the last `N` entries")
	since := fs.String("since", "", "print only entries of the last `D` (such as 1h, 30m) or since a time (RFC 3339)")
	dir := fs.String("dir", "", "the journal's `DIR` (default $XDG_STATE_HOME/tickmux)")
	fs.Usage = func() {
		usageHead(std.err, "log")
		flagusage.Print(std.err, fs)
	}
	if err := fs.Parse(hoistFlags(args)); err != nil {
		return 2
	}
	if fs.NArg() > 1 {
		fs.Usage()
		return 2
	}
	var from time.Time
	if *since != "" {
		if d, err := time.ParseDuration(*since); err == nil {
			from = time.Now().Add(-d)
		} else if t, err := time.Parse(time.RFC3339, *since); err == nil {
			from = t
		} else {
			fmt.Fprintf(std.err, "tickmux log: --since %q: give a duration (1h, 30m) or a time (2026-01-02T15:04:05Z)\n", *since)
			return 2
		}
	}
	if *dir == "" {
		d, err := journal.DefaultDir()
		if err != nil {
			fmt.Fprintf(std.err, "tickmux log: %v\n", err)
			return 1
		}
		*dir = d
	}
	entries, skipped, err := journal.Read(*dir)
	if err != nil {
		fmt.Fprintf(std.err, "tickmux log: %v\n", err)
		return 1
	}
	entries = journal.Collapse(entries)
	out := entries[:0]
	for _, e := range entries {
		if (fs.NArg() == 1 && e.Instance != fs.Arg(0)) || e.Time.Before(from) {
			continue
		}
		out = append(out, e)
	}
	if *n > 0 && len(out) > *n {
		out = out[len(out)-*n:]
	}
	if *asJSON {
		enc := json.NewEncoder(std.out)
		for _, e := range out {
			_ = enc.Encode(e)
		}
	} else {
		for _, e := range out {
			fmt.Fprintln(std.out, host.Printable(journal.Summary(e), false))
			for _, l := range journal.ChangeLines(e, 20) {
				fmt.Fprintln(std.out, "    "+host.Printable(l, false))
			}
		}
		if len(out) == 0 {
			fmt.Fprintf(std.err, "tickmux log: no entries to show (the journal is in %s)\n", *dir)
		}
	}
	if skipped > 0 {
		fmt.Fprintf(std.err, "tickmux log: skipped %d line%s that did not hold a whole entry (a write cut short)\n", skipped, plural(skipped))
	}
	return 0
}

// hoistFlags puts flags given after the ID before it, as flag stops at the first argument.
func hoistFlags(args []string) []string {
	var flags, rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			rest = append(rest, args[i+1:]...)
			i = len(args)
		case len(a) > 1 && a[0] == '-':
			flags = append(flags, a)
			if (a == "-n" || a == "--n" || a == "-since" || a == "--since" || a == "-dir" || a == "--dir") && i+1 < len(args) {
				flags = append(flags, args[i+1])
				i++
			}
		default:
			rest = append(rest, a)
		}
	}
	return append(flags, rest...)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
