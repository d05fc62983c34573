// Package sockpath is what the control socket's server (package agent) and its clients (the view
// client in package server, the CLI verbs) agree on before they talk: where the socket is,
// whether anyone answers on it, and the error for a socket a live tickmux already holds.
package sockpath

import (
	"bytes"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"tickmux/internal/peer"
)

// EnvSocket overrides the control socket's path, for the view and every client verb.
const EnvSocket = "TICKMUX_SOCKET"

// ErrAlreadyRunning: a live tickmux answers on the socket (agent.Listen refuses it; a view that
// started a server at the same moment as another view attaches to the other one's).
var ErrAlreadyRunning = errors.New("another tickmux is already running")

// Path returns the control socket's path: flag when it is not empty, else $TICKMUX_SOCKET, else
// Default.
func Path(flag string) string {
	if flag != "" {
		return flag
	}
	if p := os.Getenv(EnvSocket); p != "" {
		return p
	}
	return Default()
}

// Default is the socket's path when neither the flag nor $TICKMUX_SOCKET names one:
// $XDG_RUNTIME_DIR/tickmux/default.sock; without that variable, the same file in the user's
// runtime directory when the system made one (/run/user/$UID, ours and private), else
// /tmp/tickmux-$UID/default.sock.
//
// The fallback is for programs started with a pruned environment: Codex starts its MCP servers
// with a few variables only (HOME, PATH, USER, LANG and the like), so `tickmux mcp` started
// there has no XDG_RUNTIME_DIR, and without the fallback it would look in /tmp while the tickmux
// of the person's login listens in /run/user/$UID.
func Default() string {
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "tickmux", "default.sock")
	}
	uid := os.Getuid()
	if d := filepath.Join(runUser, strconv.Itoa(uid)); privateDirOf(d, uid) {
		return filepath.Join(d, "tickmux", "default.sock")
	}
	return filepath.Join(os.TempDir(), "tickmux-"+strconv.Itoa(uid), "default.sock")
}

// runUser is where the system keeps each user's runtime directory (systemd-logind's); tests
// change it.
var runUser = "/run/user"

// privateDirOf reports whether dir is a directory (not a link to one) owned by uid that only its
// owner may use, as the runtime directory of a login is.
func privateDirOf(dir string, uid int) bool {
	var st syscall.Stat_t
	if syscall.Lstat(dir, &st) != nil {
		return false
	}
	return st.Mode&syscall.S_IFMT == syscall.S_IFDIR && int(st.Uid) == uid && st.Mode&0o077 == 0
}

// Running reports whether a server answers on the socket at path (within a second).
func Running(path string) bool {
	c, err := net.DialTimeout("unix", path, time.Second)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// FromAncestors finds the socket this process's nearest ancestor was given in $TICKMUX_SOCKET,
// for a program whose launcher dropped the variable (Codex and the MCP Inspector start MCP servers
// with a pruned environment): the agent that started it runs in a tickmux pane, and its own
// environment, as the kernel keeps it in /proc/PID/environ, still names the pane's server. It
// returns the path and the ancestor's pid; ok is false when no ancestor of this user has it.
func FromAncestors() (path string, pid int, ok bool) {
	uid := os.Getuid()
	for pid, i := os.Getppid(), 0; pid > 1 && i < 64; pid, i = peer.ParentPID(pid), i+1 {
		var st syscall.Stat_t
		if syscall.Stat("/proc/"+strconv.Itoa(pid), &st) != nil || int(st.Uid) != uid {
			continue // another user's process: not where this user's server is named
		}
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
		if err != nil {
			continue
		}
		for _, kv := range bytes.Split(b, []byte{0}) {
			if v, found := bytes.CutPrefix(kv, []byte(EnvSocket+"=")); found && len(v) > 0 && filepath.IsAbs(string(v)) {
				return string(v), pid, true
			}
		}
	}
	return "", 0, false
}
