package main

import (
	"fmt"
	"os"
	"runtime/pprof"

	"tickmux/agent"
)

// EnvServeCPUProfile names a file `tickmux serve` writes a CPU profile of its whole run to (for
// scripts/bench-ingest -profile and `go tool pprof`). Unset, nothing is profiled.
const EnvServeCPUProfile = "TICKMUX_SERVE_CPUPROFILE"

// runServe is `tickmux serve`: a headless tickmux (host and control socket, no screen) for tests and
// scripts; the logic is in agent/cli.go. This file adds the optional CPU profile.
func runServe(args []string, std stdio) int {
	if path := os.Getenv(EnvServeCPUProfile); path != "" {
		stop, err := startCPUProfile(path)
		if err != nil {
			fmt.Fprintf(std.err, "tickmux serve: %v\n", err)
			return agent.ExitFailed
		}
		defer stop()
	}
	return agent.ServeVerb.Run(args, std.in, std.out, std.err)
}

// startCPUProfile starts a CPU profile written to path; stop ends it and closes the file.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("cannot write the CPU profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		os.Remove(path)
		return nil, fmt.Errorf("cannot start the CPU profile: %w", err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}
