package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"strconv"
	"strings"
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
	n := fs.Int("n", 0, "print only the last `N` entries (0: none)")
	since := fs.String("since", "", "print only entries of the last `D` (such as 1h, 30m, 2d) or since a date or time (2026-12-07, 2026-12-07 18:03, RFC 3339)")
	dir := fs.String("dir", "", "the journal's `DIR` (default $XDG_STATE_HOME/tickmux)")
	fs.Usage = func() {
		usageHead(std.err, "log")
		printFlags(std.err, fs)
	}
	if err := fs.Parse(hoistFlags(args)); err != nil {
		return 2
	}
	if fs.NArg() > 1 {
		fs.Usage()
		return 2
	}
	nSet := false
	fs.Visit(func(f *flag.Flag) { nSet = nSet || f.Name == "n" })
	if *n < 0 {
		fmt.Fprintf(std.err, "tickmux log: -n %d: give the number of entries to print, 0 or more\n", *n)
		return 2
	}
	var from time.Time
	if *since != "" {
		t, ok := sinceTime(*since, time.Now())
		if !ok {
			fmt.Fprintf(std.err, "tickmux log: --since %q: give a duration (1h, 30m, 2d) or a date or time (2026-12-07, 2026-12-07 18:03, 2026-12-07T18:03:04Z)\n", *since)
			return 2
		}
		from = t
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
	if nSet && len(out) > *n {
		out = out[len(out)-*n:]
	}
	if *asJSON {
		enc := json.NewEncoder(std.out)
		for _, e := range out {
			_ = enc.Encode(e)
		}
	} else {
		runs := map[string]bool{}
		for _, e := range out {
			runs[e.Run] = true
		}
		for i, e := range out {
			// Card numbers start again in each run of a server: a line between runs says so.
			if len(runs) > 1 && (i == 0 || e.Run != out[i-1].Run) {
				fmt.Fprintf(std.out, "── server run %s, from %s ──\n", host.Printable(shortRun(e.Run), false), e.Time.Local().Format("2006-01-02 15:04:05"))
			}
			fmt.Fprintln(std.out, host.Printable(journal.Summary(e), false))
			for _, l := range journal.ChangeLines(e, 20) {
				fmt.Fprintln(std.out, "    "+host.Printable(l, false))
			}
		}
		if len(out) == 0 && !(nSet && *n == 0) {
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

// shortRun is a run's id as the log prints it: its first 8 characters.
func shortRun(run string) string {
	if len(run) > 8 {
		return run[:8]
	}
	if run == "" {
		return "?"
	}
	return run
}

// sinceTime reads --since: a duration back from now (Go's, plus days: 2d, 1d12h), a local date
// (its midnight), a local date and time, or an RFC 3339 time.
func sinceTime(s string, now time.Time) (time.Time, bool) {
	if d, ok := durationWithDays(s); ok {
		return now.Add(-d), true
	}
	for _, layout := range []string{"2006-01-02", "2006-01-02 15:04", "2006-01-02 15:04:05", "2006-01-02T15:04", "2006-01-02T15:04:05"} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t, true
		}
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, true
	}
	return time.Time{}, false
}

// durationWithDays is time.ParseDuration with a leading count of days (2d, 1d12h).
func durationWithDays(s string) (time.Duration, bool) {
	days := time.Duration(0)
	if i := strings.IndexByte(s, 'd'); i > 0 {
		n, err := strconv.Atoi(s[:i])
		if err != nil || n < 0 {
			return 0, false
		}
		days, s = time.Duration(n)*24*time.Hour, s[i+1:]
		if s == "" {
			return days, true
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, false
	}
	return days + d, true
}
