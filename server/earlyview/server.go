package earlyview

import (
	"errors"
	"os"
	"path"
	"strconv"
	"syscall"

	"tickmux/host/guardian"
)

// EnvSocket overrides the control socket's path, for the TUI and every client verb.
const EnvSocket = "TICKMUX_SOCKET"

// SocketPath returns the control socket's path: flag when it is not empty, else $TICKMUX_SOCKET,
// else $XDG_RUNTIME_DIR/tickmux/default.sock, else /tmp/tickmux-$UID/default.sock.
func SocketPath(flag string) string {
	if flag != "" {
		return flag
	}
	if p := os.Getenv(EnvSocket); p != "" {
		return p
	}
	return DefaultSocket()
}

// DefaultSocket is the socket's path when neither the flag nor $TICKMUX_SOCKET names one.
func DefaultSocket() string {
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" && path.IsAbs(d) {
		return path.Join(d, "tickmux", "default.sock")
	}
	return path.Join(os.TempDir(), "tickmux-"+strconv.Itoa(os.Getuid()), "default.sock")
}

// EnvReady names the descriptor a starting server reports on: "ok", or the error.
const EnvReady = "TICKMUX_READY_FD"

// ServerArgs are the arguments of the `tickmux server` a view starts: on socket, with the config
// and log files when not empty (the server's defaults are the view's), laid out for a terminal of
// cols x rows when known (the first frame is drawn at that size before the view attaches, not at
// 80x24 and again once it is there), the demo, or the program argv.
func ServerArgs(socket, config, log string, cols, rows int, demo bool, argv []string) []string {
	args := []string{"--socket", socket}
	if config != "" {
		args = append(args, "--config", config)
	}
	if cols > 0 && rows > 0 {
		args = append(args, "--size", strconv.Itoa(cols)+"x"+strconv.Itoa(rows))
	}
	if log != "" {
		args = append(args, "--log", log)
	}
	if demo {
		args = append(args, "--demo")
	}
	if len(argv) > 0 {
		args = append(append(args, "--"), argv...)
	}
	return args
}

// Starting is a server started in the background, not yet known to listen.
type Starting struct {
	ready *os.File
}

// StartServer runs `self server ARGS...` in the background as its own session (no controlling
// terminal, stdio on /dev/null), in this directory (the first shell opens where the person
// started tickmux).
func StartServer(args []string) (*Starting, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, errors.New("cannot find the tickmux binary: " + err.Error())
	}
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return nil, errors.New("cannot start the tickmux server: " + err.Error())
	}
	defer null.Close()
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, errors.New("cannot start the tickmux server: " + err.Error())
	}
	dir := "/"
	if wd, err := os.Getwd(); err == nil {
		dir = wd
	}
	// syscall.ForkExec, not os.StartProcess: the first os.StartProcess of a process first forks
	// a child that exits at once, to learn whether the kernel gives pidfds, and this start is on
	// the way to the first frame.
	pid, err := syscall.ForkExec(self, append([]string{self, "server"}, args...), &syscall.ProcAttr{
		Dir:   dir,
		Env:   append(os.Environ(), EnvReady+"=3", guardian.EnvEarly+"=1"), // its guardian starts beside its inits
		Files: []uintptr{null.Fd(), null.Fd(), null.Fd(), pw.Fd()},
		Sys:   &syscall.SysProcAttr{Setsid: true},
	})
	pw.Close()
	if err != nil {
		pr.Close()
		return nil, errors.New("cannot start the tickmux server: " + err.Error())
	}
	go func() { // owner: this process; reaps the server when it ends (a detached server is reparented)
		var ws syscall.WaitStatus
		for {
			if _, err := syscall.Wait4(pid, &ws, 0, nil); err != syscall.EINTR {
				return
			}
		}
	}()
	return &Starting{ready: pr}, nil
}

// Wait returns once the server reports that it listens, or why it could not start.
func (s *Starting) Wait() error {
	defer s.ready.Close()
	var msg []byte
	buf := make([]byte, 4096)
	for len(msg) < 64<<10 {
		n, err := s.ready.Read(buf)
		msg = append(msg, buf[:n]...)
		if err != nil {
			break
		}
	}
	for len(msg) > 0 && (msg[len(msg)-1] == '\n' || msg[len(msg)-1] == '\r' || msg[len(msg)-1] == ' ' || msg[len(msg)-1] == '\t') {
		msg = msg[:len(msg)-1]
	}
	switch string(msg) {
	case "ok":
		return nil
	case "":
		return errors.New("the tickmux server exited at once; its log says why")
	}
	return errors.New(string(msg))
}
