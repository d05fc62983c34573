package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/term"

	"tickmux/check"
)

// runCheck exits 0 when the Tick broke no MUST, 1 when it did, 2 when it could not be started
// or the usage is wrong, 130 (143) when Ctrl-C (SIGTERM) stopped it first.
//
// The text report comes as check goes: the first line at once, each step's line as the step is
// done, the findings (each with the draft's sentence) and the verdict at the end. With --json,
// stdout is the one JSON object at the end, and the steps' lines go to stderr when it is a
// terminal (a person watching; a script's log gets none).
func runCheck(args []string, std stdio) int {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(std.err)
	asJSON := fs.Bool("json", false, "print exactly one JSON object (the steps' lines go to stderr when it is a terminal)")
	watch := fs.Duration("watch", 2*time.Second, "how long to watch updates")
	callTimeout := fs.Duration("call-timeout", 60*time.Second, "how long each probe waits for a tick/call answer (the draft allows 60 s)")
	cwd := fs.String("cwd", "", "the Tick's working `DIR`")
	fs.Usage = func() {
		usageHead(std.err, "check")
		printFlags(std.err, fs)
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	argv := fs.Args()
	if len(argv) == 0 {
		fs.Usage()
		return 2
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	var got os.Signal
	stopped := make(chan struct{})
	go func() { // owner: runCheck; returns at the first signal or when the check is done
		select {
		case got = <-sigs:
			cancel()
		case <-stopped:
		}
	}()
	progress := std.out
	if *asJSON {
		progress = io.Discard
		if f, ok := std.err.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
			progress = std.err
		}
	}
	check.WriteHead(progress, argv)
	fmt.Fprintf(progress, "  ...  started; waiting for its tick/describe and tick/read answers (10 s at most), then %v of watching\n", *watch)
	report, err := check.Run(ctx, check.Options{Argv: argv, Dir: *cwd, Watch: *watch, CallTimeout: *callTimeout,
		Progress: func(s check.Step) { check.WriteStep(progress, s) }})
	close(stopped)
	if err != nil && ctx.Err() != nil && got != nil {
		n := 0
		if report != nil {
			n = len(report.Steps)
		}
		msg := fmt.Sprintf("check interrupted: %d probe%s run, no verdict", n, plural(n))
		if *asJSON {
			json.NewEncoder(std.out).Encode(map[string]any{"ok": false, "error": msg})
		}
		fmt.Fprintf(std.err, "tickmux %s\n", msg)
		if got == syscall.SIGTERM {
			return 128 + int(syscall.SIGTERM)
		}
		return 128 + int(syscall.SIGINT)
	}
	if err != nil {
		if *asJSON {
			json.NewEncoder(std.out).Encode(map[string]any{"ok": false, "error": err.Error()})
		}
		fmt.Fprintf(std.err, "tickmux check: %v\n", err)
		return 2
	}
	if *asJSON {
		enc := json.NewEncoder(std.out)
		enc.SetEscapeHTML(false)
		enc.Encode(report)
	} else {
		check.WriteTail(std.out, report)
	}
	if !report.OK {
		return 1
	}
	return 0
}
