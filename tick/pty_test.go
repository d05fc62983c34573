package tick_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// TestUIOnControllingTerminal launches the test Tick the way tickmux does (HOST.md H-T1): pipes
// for the protocol, a PTY as stderr and controlling terminal. The UI draws on the PTY, a key
// typed there becomes an update on stdout, stdout carries protocol lines only, and SIGTERM
// ends the Tick.
func TestUIOnControllingTerminal(t *testing.T) {
	t.Parallel()
	master, slave, err := pty.Open()
	if err != nil {
		t.Skipf("no PTY here: %v", err)
	}
	defer master.Close()
	if err := pty.Setsize(master, &pty.Winsize{Cols: 120, Rows: 30}); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), envChild+"=ui", "TERM=xterm-256color", "GORACE=atexit_sleep_ms=0")
	cmd.Stderr = slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 2}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	defer stdin.Close()
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }() // ends when the process is reaped
	defer func() {
		_ = cmd.Process.Kill()
		<-waited
	}()

	scr := readPTY(master)

	lines := bufio.NewReader(stdout)
	nextLine := func() string {
		t.Helper()
		line, err := lines.ReadString('\n')
		if err != nil {
			t.Fatalf("stdout: %v", err)
		}
		return line
	}
	if _, err := io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"tick/read","params":{}}`+"\n"); err != nil {
		t.Fatal(err)
	}
	if got := nextLine(); !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":1,"result":{"seq":0`) {
		t.Fatalf("read: %s", got)
	}
	scr.wait(t, "value=0")
	if _, err := master.Write([]byte("+")); err != nil {
		t.Fatal(err)
	}
	var upd struct {
		Method string
		Params struct {
			Seq  uint64
			Data json.RawMessage
		}
	}
	if line := nextLine(); json.Unmarshal([]byte(line), &upd) != nil || upd.Method != "tick/update" || string(upd.Params.Data) != `{"value":1}` {
		t.Fatalf("after typing '+': %s", line)
	}
	scr.wait(t, "value=1")

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-waited:
		waited <- err
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v", err)
		}
	case <-time.After(hangGuard):
		t.Fatal("SIGTERM did not end the Tick")
	}
	if rest, _ := io.ReadAll(lines); len(rest) != 0 {
		t.Fatalf("more on stdout after the update: %q", rest)
	}
	<-scr.drained
}

// TestRunByHandInATerminal: started from a shell, stdin and stdout are the terminal the UI draws
// on. Keys reach the UI (the protocol reader does not take them) and no protocol message is
// written over the screen; SIGHUP, as when the terminal closes, ends the Tick.
func TestRunByHandInATerminal(t *testing.T) {
	t.Parallel()
	master, slave, err := pty.Open()
	if err != nil {
		t.Skipf("no PTY here: %v", err)
	}
	defer master.Close()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), envChild+"=ui", "TERM=xterm-256color", "GORACE=atexit_sleep_ms=0")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }() // ends when the process is reaped
	defer func() {
		_ = cmd.Process.Kill()
		<-waited
	}()

	scr := readPTY(master)
	scr.wait(t, "value=0")
	for range 3 {
		if _, err := master.Write([]byte("+")); err != nil {
			t.Fatal(err)
		}
	}
	scr.wait(t, "value=3") // every key reached the UI
	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-waited:
		waited <- err
		if err != nil {
			t.Fatalf("exit after SIGHUP: %v", err)
		}
	case <-time.After(hangGuard):
		t.Fatal("SIGHUP did not end the Tick")
	}
	<-scr.drained
	if strings.Contains(scr.String(), "jsonrpc") {
		t.Fatal("protocol messages were written on the terminal")
	}
}

// ptyScreen collects what a PTY master reads, with a signal each time more arrives.
type ptyScreen struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	more    chan struct{}
	drained chan struct{} // closed when the master reads EIO after the child is gone
}

func readPTY(master io.Reader) *ptyScreen {
	s := &ptyScreen{more: make(chan struct{}, 1), drained: make(chan struct{})}
	go func() { // owner: the test; ends when the master reads EIO after the child is gone
		defer close(s.drained)
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			s.mu.Lock()
			s.buf.Write(buf[:n])
			s.mu.Unlock()
			select {
			case s.more <- struct{}{}:
			default:
			}
			if err != nil {
				return
			}
		}
	}()
	return s
}

func (s *ptyScreen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// wait returns once the screen shows want.
func (s *ptyScreen) wait(t *testing.T, want string) {
	t.Helper()
	deadline := time.After(hangGuard)
	for !strings.Contains(s.String(), want) {
		select {
		case <-s.more:
		case <-deadline:
			t.Fatalf("the terminal never showed %q", want)
		}
	}
}
