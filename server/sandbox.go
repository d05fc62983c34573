package server

import (
	"os"
	"path/filepath"
	"strings"

	"tickmux/agent"
	"tickmux/config"
	"tickmux/host"
	"tickmux/host/journal"
)

// sandboxFor is how the host sandboxes panes (host/sandbox.go) for a server on the control
// socket sockPath: cfg's policy and writable paths, the agent socket, and hidden from every
// sandboxed program the person's socket and its directory, the config, the journal and the log.
func sandboxFor(cfg *config.Config, sockPath, journalDir, logPath string) *host.Sandbox {
	sb := &host.Sandbox{Policy: cfg.Sandbox, Write: cfg.SandboxWrite, AgentSocket: agent.AgentSocketPath(sockPath)}
	if journalDir == "" {
		journalDir, _ = journal.DefaultDir()
	}
	sb.Hide = append(sb.Hide, hideDir(filepath.Dir(sockPath), sockPath, sockPath+".lock")...)
	sb.Hide = append(sb.Hide, hideDir(journalDir)...)
	if def := config.DefaultPath(); def != "" {
		sb.Hide = append(sb.Hide, hideDir(filepath.Dir(def), def)...)
	}
	if cfg.Path != "" {
		sb.Hide = append(sb.Hide, hideDir(filepath.Dir(cfg.Path), cfg.Path)...)
	}
	if logPath != "" {
		sb.Hide = append(sb.Hide, hideDir(filepath.Dir(logPath), logPath)...)
	}
	return sb
}

// hideDir hides dir, or only files in it when dir holds the home directory (a --socket or --log
// given in $HOME, say): hiding $HOME or / would take the sandboxed program's work with it.
func hideDir(dir string, files ...string) []string {
	if dir == "" {
		return files
	}
	home, _ := os.UserHomeDir()
	if dir == "/" || (home != "" && (home == dir || strings.HasPrefix(home, dir+"/"))) {
		return files
	}
	return []string{dir}
}
