package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"tickmux/check"
	"tickmux/internal/flagusage"
)

// runCheck exits 0 when the Tick broke no MUST, 1 when it did, 2 when it could not be started
// or the usage is wrong.
func runCheck(args []string, std stdio) int {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(std.err)
	asJSON := fs.Bool("json", false, "print exactly one JSON object")
	watch := fs.Duration("watch", 2*time.Second, "how long to watch updates")
	callTimeout := fs.Duration("call-timeout", 60*time.Second, "how long each probe waits for a tick/call answer (the draft allows 60 s)")
	cwd := fs.String("cwd", "", "the Tick's working `DIR`")
	fs.Usage = func() {
		usageHead(std.err, "check")
		flagusage.Print(std.err, fs)
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	argv := fs.Args()
	if len(argv) == 0 {
		fs.Usage()
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	report, err := check.Run(ctx, check.Options{Argv: argv, Dir: *cwd, Watch: *watch, CallTimeout: *callTimeout})
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
		check.WriteText(std.out, argv, report)
	}
	if !report.OK {
		return 1
	}
	return 0
}
