package main

import (
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// A running server is profiled with `kill -USR1 PID`: it writes a CPU profile of the next
// profileSeconds (TICKMUX_PROFILE_SECONDS, default 10) to cpu-TIME.pprof beside its log file,
// and logs where. A signal that comes while a profile is being taken is logged and ignored;
// so is one while TICKMUX_SERVER_CPUPROFILE profiles the whole run. `kill -USR2 PID` writes
// every goroutine's stack to goroutines-TIME.txt beside the log at once (a view that stopped
// updating: what the server waits on); the end-to-end harness asks for one when a screen it
// waits for does not come.
const EnvProfileSeconds = "TICKMUX_PROFILE_SECONDS"

const defaultProfileSeconds = 10

// profileOnSignal starts the watch; stop ends it, and a profile being taken with it (written
// out as far as it got).
func profileOnSignal(dir string, logf func(string, ...any)) (stop func()) {
	secs := defaultProfileSeconds
	if v, err := strconv.Atoi(os.Getenv(EnvProfileSeconds)); err == nil && v > 0 {
		secs = v
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGUSR1)
	dumps := make(chan os.Signal, 1)
	signal.Notify(dumps, syscall.SIGUSR2)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { // owner: profileOnSignal's stop; ends when done closes
		defer wg.Done()
		for {
			select {
			case <-done:
				return
			case <-dumps:
			}
			path := filepath.Join(dir, "goroutines-"+time.Now().Format("20060102-150405.000")+".txt")
			if err := writeGoroutines(path); err != nil {
				logf("SIGUSR2: no goroutine dump: %v", err)
				continue
			}
			logf("SIGUSR2: goroutines written: %s", path)
		}
	}()
	go func() { // owner: profileOnSignal's stop; ends when done closes
		defer wg.Done()
		for {
			select {
			case <-done:
				return
			case <-sigs:
			}
			path := filepath.Join(dir, "cpu-"+time.Now().Format("20060102-150405")+".pprof")
			end, err := startCPUProfile(path)
			if err != nil {
				logf("SIGUSR1: no CPU profile: %v", err)
				continue
			}
			logf("SIGUSR1: writing a CPU profile of %d s to %s", secs, path)
			t := time.NewTimer(time.Duration(secs) * time.Second)
			select {
			case <-t.C:
			case <-done:
				t.Stop()
			}
			end()
			logf("CPU profile written: %s (read it with go tool pprof)", path)
			drainSignals(sigs) // signals sent while it ran asked for the profile just written
		}
	}()
	return func() {
		signal.Stop(sigs)
		signal.Stop(dumps)
		close(done)
		wg.Wait()
	}
}

// writeGoroutines writes every goroutine's stack to a new file at path (0600): what a server
// that stopped drawing or reading waits on.
func writeGoroutines(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if err := pprof.Lookup("goroutine").WriteTo(f, 2); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func drainSignals(c chan os.Signal) {
	for {
		select {
		case <-c:
		default:
			return
		}
	}
}

// logDir is the directory of the log file at path ("" for the default).
func logDir(path string) string {
	if path == "" {
		path, _ = defaultLogPath()
	}
	return filepath.Dir(path)
}
