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
		f, err := os.Create(path)
		if err != nil {
			fmt.Fprintf(std.err, "tickmux serve: cannot write the CPU profile: %v\n", err)
			return agent.ExitFailed
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintf(std.err, "tickmux serve: cannot start the CPU profile: %v\n", err)
			return agent.ExitFailed
		}
		defer pprof.StopCPUProfile()
	}
	return agent.ServeVerb.Run(args, std.in, std.out, std.err)
}
