// Package sockpath is what the control socket's server (package agent) and its clients (the view
// client in package server, the CLI verbs) agree on before they talk: where the socket is,
// whether anyone answers on it, and the error for a socket a live tickmux already holds.
package sockpath

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// EnvSocket overrides the control socket's path, for the view and every client verb.
const EnvSocket = "TICKMUX_SOCKET"

// ErrAlreadyRunning: a live tickmux answers on the socket (agent.Listen refuses it; a view that
// started a server at the same moment as another view attaches to the other one's).
var ErrAlreadyRunning = errors.New("another tickmux is already running")

// Path returns the control socket's path: flag when it is not empty, else $TICKMUX_SOCKET, else
// $XDG_RUNTIME_DIR/tickmux/default.sock, else /tmp/tickmux-$UID/default.sock.
func Path(flag string) string {
	if flag != "" {
		return flag
	}
	if p := os.Getenv(EnvSocket); p != "" {
		return p
	}
	return Default()
}

// Default is the socket's path when neither the flag nor $TICKMUX_SOCKET names one.
func Default() string {
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "tickmux", "default.sock")
	}
	return filepath.Join(os.TempDir(), "tickmux-"+strconv.Itoa(os.Getuid()), "default.sock")
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
