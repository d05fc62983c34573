package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"tickmux/config"
	"tickmux/host"
	"tickmux/server"
	"tickmux/views"
)

// EnvServerCPUProfile names a file the tickmux server writes a CPU profile of its whole run to
// (for scripts/bench-scale and scripts/bench-echo, PROFILE=FILE; read it with `go tool pprof`).
// The server inherits it from the view that starts it. Unset, nothing is profiled.
const EnvServerCPUProfile = "TICKMUX_SERVER_CPUPROFILE"

// EnvServerMemProfile names a file the server writes its heap profile to (live objects, after a
// full collection) when it stops.
const EnvServerMemProfile = "TICKMUX_SERVER_MEMPROFILE"

// tickmux server: the long-lived tickmux (package server) that `tickmux`, `tickmux -- CMD` and
// `tickmux demo` start in the background when none runs on the socket. Not for people to run.
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
		fmt.Fprintln(readyFile, server.ReadyLine(err))
		readyFile.Close()
		readyFile = nil
	}
	f, err := parseTUIFlags(args, std, "tickmux server")
	if errors.Is(err, flag.ErrHelp) {
		return 2 // the usage is printed
	}
	if err != nil {
		ready(err)
		return 2
	}
	// The guardian and tickmux's place on PATH (for programs in panes: they reach this server by
	// the name tickmux, and the demo's examples outlive a `go run` build) are made beside the
	// rest of the set-up; the first pane waits for both.
	// Undumpable: a program of the person's uid (one in a pane) may not ptrace the server nor
	// take its descriptors (pidfd_getfd: every view's terminal, every pane's PTY master) even
	// where Yama is off. The programs it starts are dumpable again at their exec.
	dumpErr := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	host.PrestartGuardian()
	var pathErr error
	onPath := make(chan func(), 1)
	go func() { // owner: runServer; returns once tickmux is on PATH (or could not be put there)
		cleanup, err := putSelfOnPath()
		pathErr = err
		onPath <- cleanup
	}()
	pathSet := sync.OnceValue(func() func() { return <-onPath })
	defer func() { pathSet()() }()
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
	if dumpErr != nil {
		logf("cannot make the server undumpable (a program of yours could trace it): %v", dumpErr)
	}
	// From here the runtime's own words (a fatal error, a crash) are written in the log too;
	// stdout stays where the starter put it (/dev/null).
	if before, err := stderrToLog(logFile); err != nil {
		logf("%v: a crash of this server would not be logged", err)
	} else {
		defer before.Close()
		std.err = before // ready's line for whoever ran the server by hand, with no starter
	}
	if path := os.Getenv(EnvServerCPUProfile); path != "" {
		stop, err := startCPUProfile(path)
		if err != nil {
			logf("%v", err)
		} else {
			defer stop()
		}
	}
	defer profileOnSignal(logDir(f.logPath), logf)()
	// SIGHUP, SIGTERM and SIGINT stop the server in order, or end it after hardStopAfter
	// whatever the UI loop is doing (the guardian then ends every program); so does any other
	// stop (quit, kill-server), counted from when it began.
	stopper := newSignalStop(logf)
	defer stopper.Close()
	sigs := make(chan os.Signal, 1)
	stopper.watch(func() { sigs <- syscall.SIGTERM })
	defer releaseWhenIdle(5*time.Second, 256<<10)() // the free heap back after a busy spell (memtrim.go)
	if path := os.Getenv(EnvServerMemProfile); path != "" {
		runtime.MemProfileRate = 4096 // from here on, one sample per 4 KB allocated (512 KB by default)
		defer func() {
			if err := writeHeapProfile(path); err != nil {
				logf("%v", err)
			}
		}()
	}
	var cols, rows int
	if f.size != "" {
		if _, err := fmt.Sscanf(f.size, "%dx%d", &cols, &rows); err != nil {
			logf("--size %q: %v: the first frame is drawn at 80x24", f.size, err)
		}
	}
	err = server.Run(server.Options{
		Socket: f.socket, Config: cfg, Logf: logf, Ready: ready, Cols: cols, Rows: rows, Stopping: stopper.arm, LogPath: serverLogPath(f.logPath),
		Fresh: f.demo || len(f.argv) > 0, RestoreFrom: f.restore,
		Self: func() string { pathSet(); return selfExe }, // set by putSelfOnPath: after it
		Initial: func(a *views.App) error {
			if pathSet(); pathErr != nil {
				logf("%v: programs in panes will not find tickmux by name", pathErr)
			}
			return openInitial(a, f.argv, f.demo, f.sandbox, f.plain, cfg.Keymap)
		},
	}, sigs)
	if err != nil {
		logf("tickmux server: %v", err)
		ready(err) // no-op once reported
		return 1
	}
	return 0
}

// serverLogPath is the log a server writes to: path, else the default one.
func serverLogPath(path string) string {
	if path == "" {
		path, _ = defaultLogPath()
	}
	return path
}

// writeHeapProfile writes the live heap (after a collection) to path, replacing it whole.
func writeHeapProfile(path string) error {
	runtime.GC()
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("cannot write the heap profile: %w", err)
	}
	err = pprof.Lookup("heap").WriteTo(f, 0)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		return fmt.Errorf("cannot write the heap profile: %w", err)
	}
	return nil
}
