package tick_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// hangGuard bounds every wait in these tests. It is a guard against a hung test, not a
// performance claim: nothing should come near it.
const hangGuard = 30 * time.Second

// child is the test binary playing a Tick on real pipes, with no controlling terminal.
type child struct {
	t         *testing.T
	cmd       *exec.Cmd
	stdin     io.WriteCloser
	stdout    *os.File
	lines     *bufio.Reader
	release   *os.File // write end of the child's fdRelease
	burstDone *os.File // read end of the child's fdBurstDone
	waited    chan error
}

// startChild starts the test Tick in mode (see runChild) in a new session, so it has no
// controlling terminal and serves headless.
func startChild(t *testing.T, mode string) *child {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	relR, relW := mustPipe(t)
	doneR, doneW := mustPipe(t)
	cmd := exec.Command(exe)
	// atexit_sleep_ms: a -race binary otherwise sleeps a second on exit.
	cmd.Env = append(os.Environ(), envChild+"="+mode, "GORACE=atexit_sleep_ms=0")
	cmd.ExtraFiles = []*os.File{relR, doneW}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdoutR, stdoutW := mustPipe(t)
	cmd.Stdout = stdoutW
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	relR.Close()
	doneW.Close()
	stdoutW.Close()
	c := &child{t: t, cmd: cmd, stdin: stdin, stdout: stdoutR, lines: bufio.NewReaderSize(stdoutR, 1<<20),
		release: relW, burstDone: doneR, waited: make(chan error, 1)}
	// Owned by the child: ends when the process is reaped.
	go func() { c.waited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-c.waited
		stdoutR.Close()
		relW.Close()
		doneR.Close()
	})
	return c
}

func mustPipe(t *testing.T) (r, w *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	return r, w
}

// send writes raw lines to the Tick's stdin in one write, each ended by "\n".
func (c *child) send(lines ...string) {
	c.t.Helper()
	var b []byte
	for _, l := range lines {
		b = append(append(b, l...), '\n')
	}
	if _, err := c.stdin.Write(b); err != nil {
		c.t.Fatalf("writing to the Tick: %v", err)
	}
}

// message is any line from the Tick, decoded loosely so tests can check its exact members.
type message struct {
	JSONRPC string           `json:"jsonrpc"`
	ID      *json.RawMessage `json:"id"`
	Method  string           `json:"method"`
	Params  json.RawMessage  `json:"params"`
	Result  json.RawMessage  `json:"result"`
	Error   *struct {
		Code    int64           `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
	raw string
}

func (m message) id() string {
	if m.ID == nil {
		return ""
	}
	return string(*m.ID)
}

// next reads the next line, failing the test on anything that is not a protocol message.
func (c *child) next() message {
	c.t.Helper()
	m, err := c.read()
	if err != nil {
		c.t.Fatalf("reading from the Tick: %v", err)
	}
	return m
}

// read reads the next line; io.EOF when stdout closed.
func (c *child) read() (message, error) {
	c.t.Helper()
	_ = c.stdout.SetReadDeadline(time.Now().Add(hangGuard))
	line, err := c.lines.ReadBytes('\n')
	if err != nil {
		if errors.Is(err, io.EOF) && len(line) > 0 {
			return message{}, fmt.Errorf("output ended without a newline after %q", line)
		}
		return message{}, err
	}
	var m message
	if err := json.Unmarshal(line, &m); err != nil {
		return message{}, fmt.Errorf("not JSON on stdout: %q", line)
	}
	if m.JSONRPC != "2.0" {
		return message{}, fmt.Errorf("jsonrpc is not 2.0: %q", line)
	}
	m.raw = string(line)
	return m, nil
}

// response reads until the response with the given id, collecting the updates before it.
func (c *child) response(id int) (message, []message) {
	c.t.Helper()
	var updates []message
	for {
		m := c.next()
		switch {
		case m.Method == "tick/update" && m.ID == nil:
			updates = append(updates, m)
		case m.id() == fmt.Sprint(id):
			return m, updates
		default:
			c.t.Fatalf("waiting for response %d, got %s", id, m.raw)
		}
	}
}

// wait waits for the process to end, failing the test if it does not within the hang guard.
func (c *child) wait() error {
	c.t.Helper()
	select {
	case err := <-c.waited:
		c.waited <- err // for Cleanup
		return err
	case <-time.After(hangGuard):
		c.t.Fatal("the Tick did not exit")
		return nil
	}
}

// describe returns the Tick's current revision.
func (c *child) revision() string {
	c.t.Helper()
	c.send(`{"jsonrpc":"2.0","id":999,"method":"tick/describe","params":{}}`)
	m, _ := c.response(999)
	var d struct{ Revision string }
	if err := json.Unmarshal(m.Result, &d); err != nil || d.Revision == "" {
		c.t.Fatalf("describe: %s", m.raw)
	}
	return d.Revision
}

// call builds a tick/call line.
func call(id int, tool, args, revision string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tick/call","params":{"tool":%q,"args":%s,"revision":%q}}`, id, tool, args, revision)
}

// state decodes the params of an update or the result of a read.
type state struct {
	Seq  uint64          `json:"seq"`
	Data json.RawMessage `json:"data"`
	At   string          `json:"at"`
}

func decodeState(t *testing.T, raw json.RawMessage) state {
	t.Helper()
	var s state
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("bad state %s: %v", raw, err)
	}
	if s.At != "" {
		if _, err := time.Parse(time.RFC3339Nano, s.At); err != nil {
			t.Fatalf("at is not RFC 3339: %q", s.At)
		}
	}
	return s
}
