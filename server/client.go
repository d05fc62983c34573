package server

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"tickmux/agent"
	"tickmux/host/guardian"
	"tickmux/internal/sockpath"
)

// ErrNoServer: nobody answers on the socket.
var ErrNoServer = errors.New("no tickmux server is running")

// Dial connects to the server and checks that it runs as this user (the socket is the user's
// alone, on both ends); ErrNoServer when nobody answers there.
func Dial(path string) (*net.UnixConn, error) { return dial(path) }

func dial(path string) (*net.UnixConn, error) {
	c, err := net.DialTimeout("unix", path, 2*time.Second)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ECONNREFUSED) {
			return nil, fmt.Errorf("%w on %s", ErrNoServer, path)
		}
		return nil, fmt.Errorf("cannot connect to tickmux on %s: %w", path, err)
	}
	nc := c.(*net.UnixConn)
	raw, err := nc.SyscallConn()
	var cred *unix.Ucred
	if err == nil {
		_ = raw.Control(func(fd uintptr) { cred, err = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED) })
	}
	if err != nil || cred == nil || int(cred.Uid) != os.Getuid() {
		nc.Close()
		return nil, fmt.Errorf("the tickmux on %s does not run as you; refusing to talk to it", path)
	}
	return nc, nil
}

// request sends one request and reads its answer.
func request(nc *net.UnixConn, rd *bufio.Reader, method string, params any, result any) error {
	raw, _ := json.Marshal(params)
	if err := json.NewEncoder(nc).Encode(agent.Request{ID: 1, Method: method, Params: raw}); err != nil {
		return err
	}
	return answer(rd, result)
}

// answer reads the answer to the request sent: its result into result, or its error.
func answer(rd *bufio.Reader, result any) error {
	line, err := rd.ReadBytes('\n')
	if err != nil {
		return errors.New("the server hung up")
	}
	var m agent.Message
	if err := json.Unmarshal(line, &m); err != nil {
		return fmt.Errorf("a bad answer from the server: %w", err)
	}
	if m.Error != nil {
		if m.Error.Reason == agent.ReasonBadRequest && strings.HasPrefix(m.Error.Message, "unknown method") {
			return errors.New("this tickmux has no views (it was started with tickmux serve)")
		}
		return errors.New(m.Error.Message)
	}
	if result != nil {
		return json.Unmarshal(m.Result, result)
	}
	return nil
}

// KillServer ends the server on path and every program in it; it returns once the server has
// let go of the socket and every program is being ended (the server's answer), or once a server
// that did not answer has exited.
func KillServer(path string) error {
	nc, err := dial(path)
	if err != nil {
		return err
	}
	defer nc.Close()
	pid := peerPID(nc)
	// A server that cannot answer (stopped, or swamped) is ended by signal: the socket's peer
	// credentials name its process, which dial has checked runs as this user.
	_ = nc.SetDeadline(time.Now().Add(killAnswer))
	asked := request(nc, bufio.NewReader(nc), MethodKill, struct{}{}, nil)
	if asked == nil {
		return nil
	}
	if pid <= 0 {
		return asked
	}
	if stopped(path, pid, killStop) {
		return nil
	}
	if pid <= 0 {
		return fmt.Errorf("the server did not stop within %v", killStop)
	}
	// SIGTERM: the server's signal deadline (hardstop.go) ends it within a second, its guardian
	// ends the panes. SIGKILL if even that did not happen; the guardian still ends the panes.
	_ = syscall.Kill(pid, syscall.SIGTERM)
	if stopped(path, pid, killStop) {
		return nil
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	if stopped(path, pid, killStop) {
		return nil
	}
	return fmt.Errorf("the server (pid %d) did not end, even after SIGKILL", pid)
}

// ReloadParams name the config file a server reads again ("": the one it started with).
type ReloadParams struct {
	Config string `json:"config,omitempty"`
}

// Reload has the server on path read its config file again (tickmux reload, as tmux's
// source-file): what it could apply at once, and what waits for its next start, is in its answer.
func Reload(path, config string) (string, error) {
	nc, err := dial(path)
	if err != nil {
		return "", err
	}
	defer nc.Close()
	_ = nc.SetDeadline(time.Now().Add(killAnswer))
	var res struct {
		Message string `json:"message"`
	}
	if err := request(nc, bufio.NewReader(nc), MethodReload, ReloadParams{Config: config}, &res); err != nil {
		return "", err
	}
	return res.Message, nil
}

// How long kill-server waits for an answer, then for the server to end at each step.
var (
	killAnswer = 5 * time.Second
	killStop   = 3 * time.Second
)

// peerPID is the pid of the process that listens at the other end of nc (SO_PEERCRED), 0 if
// unknown.
func peerPID(nc *net.UnixConn) int {
	raw, err := nc.SyscallConn()
	if err != nil {
		return 0
	}
	pid := 0
	_ = raw.Control(func(fd uintptr) {
		if cred, err := unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED); err == nil {
			pid = int(cred.Pid)
		}
	})
	return pid
}

// stopped waits up to d for the server to end: its process gone when pid is known, else its
// socket no longer answering.
func stopped(path string, pid int, d time.Duration) bool {
	if pid > 0 && exitedWithin(pid, d) {
		return true
	}
	deadline := time.Now().Add(d)
	for {
		if pid > 0 {
			if guardian.Ended(pid) {
				return true
			}
		} else if !sockpath.Running(path) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Attach shows the server on path in this terminal until the view detaches or the server
// ends. p.Open, when not empty, is opened first. Whatever happens, the terminal is restored and
// any message is printed on the normal screen. It returns the exit code.
func Attach(path string, in, out *os.File, errw io.Writer, p AttachParams) int {
	fd, outFd := int(in.Fd()), int(out.Fd())
	saved, err := getTermState(fd)
	if _, oerr := getTermState(outFd); err != nil || oerr != nil {
		fmt.Fprintln(errw, "tickmux: attaching needs a terminal (stdin and stdout must be a TTY)")
		return 2
	}
	if !waitForeground(fd) { // only the terminal's foreground job hands it over
		fmt.Fprintln(errw, "tickmux: this view is a background job of its terminal: run tickmux attach in the foreground (fg)")
		return 1
	}
	nc, err := dial(path)
	var rd *bufio.Reader
	if err == nil {
		rd = bufio.NewReader(nc)
		var res AttachResult
		if err = request(nc, rd, MethodAttach, p, &res); err == nil && !res.SendFD {
			err = errors.New("the server did not ask for the terminal")
		}
	}
	if err != nil {
		if nc != nil {
			nc.Close()
		}
		fmt.Fprintf(errw, "tickmux: %v\n", err)
		return 1
	}
	defer guardView(fd)() // undumpable while attached (exclusive.go)
	cols, rows := WindowSize(outFd)
	if _, _, err := nc.WriteMsgUnix([]byte{0}, unix.UnixRights(fd), nil); err != nil {
		nc.Close()
		fmt.Fprintf(errw, "tickmux: cannot pass the terminal to the server: %v\n", err)
		return 1
	}
	// From here the server draws on the terminal; this process only relays what the terminal
	// tells it alone, and waits.
	tell := func(method string) {
		_ = nc.SetWriteDeadline(time.Now().Add(time.Second))
		_, _ = nc.Write(notification(method))
	}
	// The signals only now: the process's first signal.Notify starts the runtime's signal
	// goroutines and threads (2-4 ms on a 2-core VM, more under load), which the server's answer
	// waited for when they came first; now the server draws meanwhile. A resize in between is
	// caught up with here (a stop signal in between ends this process as it would have before
	// the Notify: the server then detaches the view and restores the terminal itself).
	sigs := make(chan os.Signal, 4)
	notifySignals(sigs)
	if c, r := WindowSize(outFd); c != cols || r != rows {
		tell(notifyResize)
	}
	v := newView(path, fd, out, errw, saved, sigs, rd, tell, func() { nc.Close() })
	defer v.stop()
	return v.wait()
}

// EnvReady names the descriptor a starting server reports on: ReadyLine's line.
const EnvReady = "TICKMUX_READY_FD"

// What a starting server reports on EnvReady's descriptor: readyOK, or readyRunning and the
// error when another tickmux holds the socket (sockpath.ErrAlreadyRunning), or readyFailed and
// any other error.
const (
	readyOK      = "ok"
	readyRunning = "already-running: "
	readyFailed  = "error: "
)

// ReadyLine is the line a starting server writes on EnvReady's descriptor for err (nil: it
// listens), without its newline.
func ReadyLine(err error) string {
	switch {
	case err == nil:
		return readyOK
	case errors.Is(err, sockpath.ErrAlreadyRunning):
		return readyRunning + oneLine(err.Error())
	}
	return readyFailed + oneLine(err.Error())
}

func oneLine(s string) string { return strings.ReplaceAll(s, "\n", " ") }

// runningError is a starting server's report that another tickmux holds the socket.
type runningError struct{ msg string }

func (e runningError) Error() string { return e.msg }
func (e runningError) Unwrap() error { return sockpath.ErrAlreadyRunning }

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

// Start runs `self server ARGS...` in the background as its own session (no controlling
// terminal, stdio on /dev/null), in this directory (the first shell opens where the person
// started tickmux), and returns once it reports that it listens, or why it could not start: an
// error that wraps sockpath.ErrAlreadyRunning when another tickmux holds the socket.
//
// The server runs as the child of its guardian (host/guardian's ancestor.go): this process
// starts the guardian, which starts the server with what it was given here (the directory, the
// environment, stdio and the ready pipe), and once the server is gone, however it went, ends
// every process the server left.
func Start(args []string) error {
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("cannot find the tickmux binary: %w", err)
	}
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("cannot start the tickmux server: %w", err)
	}
	defer null.Close()
	pr, pw, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("cannot start the tickmux server: %w", err)
	}
	defer pr.Close()
	dir := "/"
	if wd, err := os.Getwd(); err == nil {
		dir = wd
	}
	// syscall.ForkExec, not os.StartProcess: the first os.StartProcess of a process first forks
	// a child that exits at once, to learn whether the kernel gives pidfds, and this start is on
	// the way to the first frame. The guardian's own arguments stay empty (`tickmux`): the
	// server's are in its environment (guardian.AncestorEnv).
	pid, err := syscall.ForkExec(self, []string{self}, &syscall.ProcAttr{
		Dir:   dir,
		Env:   append(os.Environ(), EnvReady+"=3", guardian.AncestorEnv(append([]string{"server"}, args...))),
		Files: []uintptr{null.Fd(), null.Fd(), null.Fd(), pw.Fd()},
		Sys:   &syscall.SysProcAttr{Setsid: true},
	})
	pw.Close()
	if err != nil {
		return fmt.Errorf("cannot start the tickmux server: %w", err)
	}
	go func() { // owner: this process; reaps the server's guardian when it ends, after the server (a detached guardian is reparented)
		var ws syscall.WaitStatus
		for {
			if _, err := syscall.Wait4(pid, &ws, 0, nil); err != syscall.EINTR {
				return
			}
		}
	}()
	return readReady(pr)
}

// readReady reads what a starting server reports (ReadyLine) until it closes its end.
func readReady(r io.Reader) error {
	msg, _ := io.ReadAll(io.LimitReader(r, 64<<10))
	line := strings.TrimSpace(string(msg))
	switch {
	case line == readyOK:
		return nil
	case line == "":
		return errors.New("the tickmux server exited at once; its log says why")
	case strings.HasPrefix(line, readyRunning):
		return runningError{strings.TrimPrefix(line, readyRunning)}
	}
	return errors.New(strings.TrimPrefix(line, readyFailed))
}

// exitedWithin waits up to d for process pid to exit, told by the kernel (a pidfd becomes
// readable when the process exits) rather than found by polling: kill-server returned up to
// 20 ms after the server had gone. False when it did not exit or pidfds are not to be had.
func exitedWithin(pid int, d time.Duration) bool {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return errors.Is(err, unix.ESRCH) // gone already
	}
	defer unix.Close(fd)
	deadline := time.Now().Add(d)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, int(left.Milliseconds())+1)
		if err == unix.EINTR {
			continue
		}
		return err == nil && n > 0
	}
}
