package examples

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// hangGuard bounds every wait: a guard against a hung test, not a performance claim.
const hangGuard = 30 * time.Second

// client is a host in miniature: it runs an example as a child process on real pipes, with no
// controlling terminal (so it serves headless), and speaks the protocol line by line.
type client struct {
	t        *testing.T
	cmd      *exec.Cmd
	stdin    io.WriteCloser
	stdout   *os.File
	lines    *bufio.Reader
	nextID   int
	revision string
	updates  []update // every update seen, in order
	mark     int      // updates before this index were matched by waitUpdate already
	waited   chan error
}

type update struct {
	Seq  uint64          `json:"seq"`
	Data json.RawMessage `json:"data"`
	At   string          `json:"at"`
}

type frame struct {
	ID     *int64          `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// startExample runs the example name with args in dir ("" for the current directory).
func startExample(t *testing.T, dir, name string, args ...string) *client {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), childEnv(name, args...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = outW
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	outW.Close()
	c := &client{t: t, cmd: cmd, stdin: stdin, stdout: outR, lines: bufio.NewReader(outR), nextID: 1, waited: make(chan error, 1)}
	go func() { c.waited <- cmd.Wait() }() // ends when the process is reaped
	t.Cleanup(func() {
		stdin.Close() // EOF: the example finishes and exits; Kill is the backstop
		select {
		case <-c.waited:
		case <-time.After(hangGuard):
			_ = cmd.Process.Kill()
			<-c.waited
		}
		outR.Close()
	})
	var d struct{ Revision string }
	c.decode(c.request("tick/describe", struct{}{}), &d)
	c.revision = d.Revision
	return c
}

// request sends one request and returns its result, collecting updates on the way; an error
// answer fails the test.
func (c *client) request(method string, params any) json.RawMessage {
	c.t.Helper()
	f := c.roundTrip(method, params)
	if f.Error != nil {
		c.t.Fatalf("%s: error %d: %s", method, f.Error.Code, f.Error.Message)
	}
	return f.Result
}

func (c *client) roundTrip(method string, params any) frame {
	c.t.Helper()
	id := c.nextID
	c.nextID++
	line, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		c.t.Fatal(err)
	}
	if _, err := c.stdin.Write(append(line, '\n')); err != nil {
		c.t.Fatal(err)
	}
	for {
		f := c.next()
		if f.ID != nil && *f.ID == int64(id) {
			return f
		}
		if f.ID != nil {
			c.t.Fatalf("response to %d while waiting for %d", *f.ID, id)
		}
	}
}

// next reads one line; updates are checked (seq strictly increasing, data not null) and kept.
func (c *client) next() frame {
	c.t.Helper()
	_ = c.stdout.SetReadDeadline(time.Now().Add(hangGuard))
	line, err := c.lines.ReadBytes('\n')
	if err != nil {
		c.t.Fatalf("reading the Tick's stdout: %v", err)
	}
	var f frame
	if err := json.Unmarshal(line, &f); err != nil {
		c.t.Fatalf("not a protocol line: %q", line)
	}
	if f.ID == nil && f.Method == "tick/update" {
		var u update
		c.decode(f.Params, &u)
		if len(c.updates) > 0 && u.Seq <= c.updates[len(c.updates)-1].Seq {
			c.t.Fatalf("update seq %d after %d", u.Seq, c.updates[len(c.updates)-1].Seq)
		}
		if string(u.Data) == "null" {
			c.t.Fatal("an update with data null")
		}
		c.updates = append(c.updates, u)
	}
	return f
}

// call calls a tool at the current revision and returns the whole answer.
func (c *client) call(tool string, args any) frame {
	c.t.Helper()
	return c.roundTrip("tick/call", map[string]any{"tool": tool, "args": args, "revision": c.revision})
}

// mustCall calls a tool and decodes its result into out (nil to ignore it).
func (c *client) mustCall(tool string, args any, out any) {
	c.t.Helper()
	f := c.call(tool, args)
	if f.Error != nil {
		c.t.Fatalf("%s: error %d: %s", tool, f.Error.Code, f.Error.Message)
	}
	if out != nil {
		c.decode(f.Result, out)
	}
}

// state reads the current state into out.
func (c *client) state(out any) {
	c.t.Helper()
	var u update
	c.decode(c.request("tick/read", struct{}{}), &u)
	c.decode(u.Data, out)
}

// waitUpdate reads lines until an update after the last one it matched satisfies ok (after
// decoding it into out).
func (c *client) waitUpdate(what string, out any, ok func() bool) {
	c.t.Helper()
	for {
		for ; c.mark < len(c.updates); c.mark++ {
			c.decode(c.updates[c.mark].Data, out)
			if ok() {
				c.mark++
				return
			}
		}
		if f := c.next(); f.ID != nil {
			c.t.Fatalf("waiting for %s: unexpected response %d", what, *f.ID)
		}
	}
}

func (c *client) decode(raw json.RawMessage, out any) {
	c.t.Helper()
	if err := json.Unmarshal(raw, out); err != nil {
		c.t.Fatalf("decoding %s: %v", raw, err)
	}
}

func (f frame) String() string {
	if f.Error != nil {
		return fmt.Sprintf("error %d: %s", f.Error.Code, f.Error.Message)
	}
	return string(f.Result)
}
