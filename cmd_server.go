package main

import (
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"

	"tickmux/config"
	"tickmux/server"
	"tickmux/views"
)

// tickmux server: the long-lived tickmux (package server) that `tickmux`, `tickmux -- CMD` and
// `tickmux demo` start in the background when none runs on the socket. Not for people to run.
func init() {
	register(&command{
		name:    "server",
		usage:   "server [--socket PATH] [--log PATH] [--config PATH] [--demo] [-- CMD [ARG...]]",
		summary: "the tickmux server that views attach to (started for you)",
		hidden:  true,
		run:     runServer,
	})
}

func runServer(args []string, std stdio) int {
	// The starter waits on this descriptor for "ok" or the error; programs must not inherit it.
	var readyFile *os.File
	if n, err := strconv.Atoi(os.Getenv(server.EnvReady)); err == nil && n > 2 {
		unix.CloseOnExec(n)
		readyFile = os.NewFile(uintptr(n), "ready")
		os.Unsetenv(server.EnvReady)
	}
	ready := func(err error) {
		if readyFile == nil {
			if err != nil {
				fmt.Fprintf(std.err, "tickmux server: %v\n", err)
			}
			return
		}
		if err != nil {
			fmt.Fprintln(readyFile, err.Error())
		} else {
			fmt.Fprintln(readyFile, "ok")
		}
		readyFile.Close()
		readyFile = nil
	}
	f, err := parseTUIFlags(args, std, "tickmux server")
	if err != nil {
		ready(err)
		return 2
	}
	cfg, err := config.Load(f.config)
	if err != nil {
		ready(err)
		return 2
	}
	logger, logFile, err := openLog(f.logPath)
	if err != nil {
		ready(err)
		return 2
	}
	defer logFile.Close()
	logf := logger.Printf
	logf("tickmux server starting (pid %d)", os.Getpid())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT)
	defer signal.Stop(sigs)
	err = server.Run(server.Options{
		Socket: f.socket, Config: cfg, Logf: logf, Ready: ready,
		Initial: func(a *views.App) error { return openInitial(a, f.argv, f.demo) },
	}, sigs)
	if err != nil {
		logf("tickmux server: %v", err)
		ready(err) // no-op once reported
		return 1
	}
	return 0
}
