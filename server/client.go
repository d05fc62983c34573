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
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
	"golang.org/x/term"

	"tickmux/agent"
	"tickmux/host/guardian"
)

// ErrNoServer: nobody answers on the socket.
var ErrNoServer = errors.New("no tickmux server is running")

// Running reports whether a server answers on the socket at path.
func Running(path string) bool {
	c, err := net.DialTimeout("unix", path, time.Second)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// dial connects to the server and checks that it runs as this user (the socket is the user's
// alone, on both ends).
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
		return nil, fmt.Errorf("the tickmux on %s does not run as you; refusing to hand it the terminal", path)
	}
	return nc, nil
}

// request sends one request and reads its answer.
func request(nc *net.UnixConn, rd *bufio.Reader, method string, params any, result any) error {
	raw, _ := json.Marshal(params)
	if err := json.NewEncoder(nc).Encode(agent.Request{ID: 1, Method: method, Params: raw}); err != nil {
		return err
	}
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
// let go of the socket.
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
	if asked != nil && pid <= 0 {
		return asked
	}
	if stopped(path, pid, killStop) {
		return nil
	}
	if pid <= 0 {
		return fmt.Errorf("the server did not stop within %v", killStop)
	}
	// SIGTERM: the server's signal deadline (hardstop.go) ends it within 2 s, its guardian
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
	deadline := time.Now().Add(d)
	for {
		if pid > 0 {
			if guardian.Ended(pid) {
				return true
			}
		} else if !Running(path) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// resetModes undoes what a server that died may have left on the terminal: the alternate
// screen, a hidden cursor, mouse reporting, bracketed paste, focus events.
const resetModes = "\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?2004l\x1b[?1004l\x1b[?25h\x1b[0m\x1b[?1049l"

// Attach shows the server on path in this terminal until the view detaches or the server
// ends. open, when not empty, is opened first. Whatever happens, the terminal is restored and
// any message is printed on the normal screen. It returns the exit code.
func Attach(path string, in, out *os.File, errw io.Writer, p AttachParams) int {
	fd := int(in.Fd())
	if !term.IsTerminal(fd) || !term.IsTerminal(int(out.Fd())) {
		fmt.Fprintln(errw, "tickmux: attaching needs a terminal (stdin and stdout must be a TTY)")
		return 2
	}
	saved, err := term.GetState(fd)
	if err != nil {
		fmt.Fprintf(errw, "tickmux: %v\n", err)
		return 1
	}
	nc, err := dial(path)
	if err != nil {
		fmt.Fprintf(errw, "tickmux: %v\n", err)
		return 1
	}
	defer nc.Close()
	rd := bufio.NewReader(nc)
	var res AttachResult
	if err := request(nc, rd, MethodAttach, p, &res); err != nil {
		fmt.Fprintf(errw, "tickmux: %v\n", err)
		return 1
	}
	if _, _, err := nc.WriteMsgUnix([]byte{0}, unix.UnixRights(fd), nil); err != nil {
		fmt.Fprintf(errw, "tickmux: cannot pass the terminal to the server: %v\n", err)
		return 1
	}
	// From here the server draws on the terminal; this process only relays what the terminal
	// tells it alone, and waits.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGWINCH, syscall.SIGCONT, syscall.SIGHUP, syscall.SIGTERM, syscall.SIGINT, syscall.SIGQUIT)
	defer signal.Stop(sigs)
	left := make(chan *LeftParams, 1)
	go func() { // owner: Attach; returns when the connection ends (Attach closes it on return)
		defer close(left)
		for {
			line, err := rd.ReadBytes('\n')
			if err != nil {
				return
			}
			var m agent.Message
			if json.Unmarshal(line, &m) == nil && m.Method == notifyLeft {
				var lp LeftParams
				_ = json.Unmarshal(m.Params, &lp)
				left <- &lp
				return
			}
		}
	}()
	tell := func(method string) {
		_ = nc.SetWriteDeadline(time.Now().Add(time.Second))
		_ = json.NewEncoder(nc).Encode(agent.Request{Method: method})
	}
	var lp *LeftParams
	hungUp := false
wait:
	for {
		select {
		case sig := <-sigs:
			switch sig {
			case syscall.SIGWINCH:
				tell(notifyResize)
			case syscall.SIGCONT:
				tell(notifyRedraw)
			case syscall.SIGHUP:
				hungUp = true // the terminal is gone: nothing to restore or print on
				break wait
			default:
				tell(notifyDetach)
				select {
				case lp = <-left:
				case <-time.After(2 * time.Second):
				}
				break wait
			}
		case lp = <-left:
			break wait
		}
	}
	if hungUp {
		return 0
	}
	if lp == nil {
		// The server went away without restoring the terminal (killed, say): do it here.
		_ = term.Restore(fd, saved)
		io.WriteString(out, resetModes)
		fmt.Fprintln(errw, "tickmux: the server went away")
		removeStale(path)
		return 1
	}
	_ = term.Restore(fd, saved)
	if lp.Failed {
		fmt.Fprintf(errw, "tickmux: %s\n", lp.Reason)
		return 1
	}
	if lp.Exited {
		fmt.Fprintln(out, "[tickmux exited]")
		return 0
	}
	fmt.Fprintf(out, "[%s]\n", lp.Reason)
	return 0
}

// EnvReady names the descriptor a starting server reports on: "ok", or the error.
const EnvReady = "TICKMUX_READY_FD"

// Start runs `self server ARGS...` in the background as its own session (no controlling
// terminal, stdio on /dev/null) and returns once it reports that it listens, or why it could
// not start.
func Start(args []string) error {
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("cannot find the tickmux binary: %w", err)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return err
	}
	cmd := exec.Command(self, append([]string{"server"}, args...)...)
	cmd.Env = append(os.Environ(), EnvReady+"=3")
	cmd.ExtraFiles = []*os.File{pw}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Dir = "/"
	if wd, err := os.Getwd(); err == nil {
		cmd.Dir = wd // the first shell opens where the person started tickmux
	}
	if err := cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		return fmt.Errorf("cannot start the tickmux server: %w", err)
	}
	pw.Close()
	go cmd.Wait() // owner: this process; reaps the server when it ends (a detached server is reparented)
	msg, _ := io.ReadAll(io.LimitReader(pr, 64<<10))
	pr.Close()
	switch s := strings.TrimSpace(string(msg)); {
	case s == "ok":
		return nil
	case s == "":
		return errors.New("the tickmux server exited at once; its log says why")
	default:
		return errors.New(s)
	}
}

// removeStale removes the socket a killed server left, once nobody holds its lock and nobody
// answers on it, so that it blocks nothing (the next server would replace it anyway).
func removeStale(path string) {
	for i := 0; i < 50; i++ { // the lock goes with the dead server's last descriptor
		lock, err := os.OpenFile(path+".lock", os.O_RDWR|syscall.O_CLOEXEC|syscall.O_NOFOLLOW, 0)
		if err != nil {
			return
		}
		err = unix.Flock(int(lock.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			if fi, err := os.Lstat(path); err == nil && fi.Mode().Type() == fs.ModeSocket && !Running(path) {
				os.Remove(path)
			}
			lock.Close()
			return
		}
		lock.Close()
		time.Sleep(20 * time.Millisecond)
	}
}
