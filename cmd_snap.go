package main

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"tickmux/host"
	"tickmux/internal/flagusage"
	"tickmux/vt"
)

// runSnap runs CMD on a PTY through vt/ with no UI. When CMD exits, or its output has been
// quiet for --settle, it prints the screen as text (one line per row, trailing spaces trimmed,
// wide characters once), ends CMD and exits 0; 2 when CMD cannot be started or the usage is
// wrong. With --resize, once the output is quiet the terminal is resized to each size in turn
// (waiting for quiet again after each) before the screen is printed.
func runSnap(args []string, std stdio) int {
	fs := flag.NewFlagSet("snap", flag.ContinueOnError)
	fs.SetOutput(std.err)
	size := fs.String("size", "120x30", "terminal size, `COLSxROWS`")
	settle := fs.Duration("settle", 300*time.Millisecond, "print once the output has been quiet this long")
	ansi := fs.Bool("ansi", false, "keep colours and attributes as SGR sequences")
	resize := fs.String("resize", "", "once quiet, resize to each `COLSxROWS,...` of this comma-separated list in turn")
	fs.Usage = func() {
		usageHead(std.err, "snap")
		flagusage.Print(std.err, fs)
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	cols, rows, err := parseSize(*size)
	var sizes [][2]int
	for _, s := range strings.Split(*resize, ",") {
		if s == "" || err != nil {
			continue
		}
		var c, r int
		c, r, err = parseSize(s)
		sizes = append(sizes, [2]int{c, r})
	}
	if err != nil || *settle <= 0 || len(fs.Args()) == 0 {
		if err != nil {
			fmt.Fprintf(std.err, "tickmux snap: %v\n", err)
		}
		fs.Usage()
		return 2
	}
	p, err := host.Launch(host.LaunchSpec{Argv: fs.Args(), Cols: cols, Rows: rows})
	if err != nil {
		fmt.Fprintf(std.err, "tickmux snap: %v\n", err)
		return 2
	}
	defer p.Close()
	term := p.Terminal()
	waitQuiet(term, p.OutputDone(), *settle)
	for _, sz := range sizes {
		if err := p.Resize(sz[0], sz[1]); err != nil {
			fmt.Fprintf(std.err, "tickmux snap: %v\n", err)
			return 2
		}
		waitQuiet(term, p.OutputDone(), *settle)
	}
	var s vt.Screen
	term.Snapshot(&s)
	if *ansi {
		fmt.Fprintln(std.out, s.ANSI())
	} else {
		fmt.Fprintln(std.out, s.Text())
	}
	return 0
}

// waitQuiet returns once the terminal has not changed for settle, or at once when the program's
// output has all been read.
func waitQuiet(term *vt.Terminal, done <-chan struct{}, settle time.Duration) {
	quiet := time.NewTimer(settle)
	defer quiet.Stop()
	for {
		select {
		case <-term.Changed():
			quiet.Reset(settle)
		case <-done:
			// Everything the program wrote has reached the screen.
			return
		case <-quiet.C:
			return
		}
	}
}

// parseSize reads COLSxROWS.
func parseSize(s string) (cols, rows int, err error) {
	c, r, ok := strings.Cut(strings.ToLower(s), "x")
	cols, err1 := strconv.Atoi(c)
	rows, err2 := strconv.Atoi(r)
	if !ok || err1 != nil || err2 != nil || cols < 1 || rows < 1 || cols > 1000 || rows > 1000 {
		return 0, 0, fmt.Errorf("invalid --size %q: want COLSxROWS, such as 120x30", s)
	}
	return cols, rows, nil
}
