package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"tickmux/agent"
	"tickmux/agent/agenttest"
)

// The test binary plays the fake Tick (agenttest), and builds the tickmux binary once for the
// tests that run it as a subprocess (`tickmux mcp`, `tickmux serve`, the CLI verbs).

var (
	binOnce sync.Once
	binPath string
	binErr  error
	binDir  string
)

func TestMain(m *testing.M) {
	agenttest.RunFakeIfAsked()
	goleak.VerifyTestMain(m,
		// The host's reaper lives as long as the process, by design (host/reaper.go).
		goleak.IgnoreTopFunction("tickmux/host.reapLoop"),
		goleak.IgnoreTopFunction("tickmux/host.exitLoop"),
		goleak.IgnoreTopFunction("os/signal.signal_recv"),
		goleak.Cleanup(func(int) {
			if binDir != "" {
				os.RemoveAll(binDir)
			}
		}),
	)
}

// tickmuxBinary builds tickmux once per test binary.
func tickmuxBinary(t testing.TB) string {
	t.Helper()
	binOnce.Do(func() {
		binDir, binErr = os.MkdirTemp("", "agent-test-bin")
		if binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "tickmux")
		out, err := exec.Command("go", "build", "-o", binPath, "tickmux").CombinedOutput()
		if err != nil {
			binErr = &buildError{err: err, out: string(out)}
		}
	})
	if binErr != nil {
		t.Fatalf("cannot build tickmux: %v", binErr)
	}
	return binPath
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return e.err.Error() + "\n" + e.out }

// connectMCP runs `tickmux mcp` in-process against socket and connects the SDK's client to it.
func connectMCP(t *testing.T, socket string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	cs, _ := connectMCPWith(t, socket, agent.MCPOptions{}, opts)
	return cs
}

// connectMCPProcess runs the tickmux binary's `mcp` verb and connects the SDK's client to it.
func connectMCPProcess(t *testing.T, socket string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(tickmuxBinary(t), "mcp", "--socket", socket)
	cmd.Stderr = testWriter{t}
	client := mcp.NewClient(&mcp.Implementation{Name: "test-agent", Version: "1"}, opts)
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to tickmux mcp: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Logf("%s", p)
	return len(p), nil
}

// toolResult is a tool's answer: the JSON (checked to be the same in structuredContent and in the
// text content) and whether it is an error.
type toolResult struct {
	raw     json.RawMessage
	isError bool
}

func (r toolResult) decode(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.raw, v); err != nil {
		t.Fatalf("decode %s: %v", r.raw, err)
	}
}

// errorOf returns the error body of a failed call, failing the test if the call succeeded.
func (r toolResult) errorOf(t testing.TB) agent.Error {
	t.Helper()
	if !r.isError {
		t.Fatalf("the call succeeded, want an error: %s", r.raw)
	}
	var body struct{ Error agent.Error }
	r.decode(t, &body)
	return body.Error
}

func callTool(t testing.TB, ctx context.Context, cs *mcp.ClientSession, params *mcp.CallToolParams) toolResult {
	t.Helper()
	res, err := cs.CallTool(ctx, params)
	if err != nil {
		t.Fatalf("%s: %v", params.Name, err)
	}
	return resultOf(t, params.Name, res)
}

func resultOf(t testing.TB, name string, res *mcp.CallToolResult) toolResult {
	t.Helper()
	r, err := parseResult(name, res)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func parseResult(name string, res *mcp.CallToolResult) (toolResult, error) {
	if len(res.Content) != 1 {
		return toolResult{}, fmt.Errorf("%s: %d content blocks, want 1", name, len(res.Content))
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		return toolResult{}, fmt.Errorf("%s: content is %T, want text", name, res.Content[0])
	}
	structured, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return toolResult{}, err
	}
	var a, b any
	if json.Unmarshal([]byte(text.Text), &a) != nil || json.Unmarshal(structured, &b) != nil || !reflect.DeepEqual(a, b) {
		return toolResult{}, fmt.Errorf("%s: the text content and structuredContent differ:\n%s\n%s", name, text.Text, structured)
	}
	return toolResult{raw: json.RawMessage(text.Text), isError: res.IsError}, nil
}

func call(t testing.TB, cs *mcp.ClientSession, name string, args any) toolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), agenttest.HangGuard)
	defer cancel()
	return callTool(t, ctx, cs, &mcp.CallToolParams{Name: name, Arguments: args})
}

// callAsync starts a tool call that will wait for approval; the result arrives on the channel.
func callAsync(t testing.TB, ctx context.Context, cs *mcp.ClientSession, params *mcp.CallToolParams) <-chan toolResult {
	ch := make(chan toolResult, 1)
	go func() { // owner: the test; ends when the call is answered or ctx ends
		res, err := cs.CallTool(ctx, params)
		var r toolResult
		if err == nil {
			r, err = parseResult(params.Name, res)
		}
		if err != nil {
			r = toolResult{raw: json.RawMessage(`{"error":{"message":` + mustJSON(err.Error()) + `,"reason":"transport"}}`), isError: true}
		}
		ch <- r
	}()
	return ch
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func receive[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(agenttest.HangGuard):
		t.Fatalf("%s did not arrive", what)
	}
	var zero T
	return zero
}

// pollTicks yields every few milliseconds until the hang guard, for the few things that have no
// event to wait on (a screen's text).
func pollTicks(t testing.TB) func(func(int) bool) {
	return func(yield func(int) bool) {
		deadline := time.Now().Add(agenttest.HangGuard)
		for i := 0; time.Now().Before(deadline); i++ {
			if !yield(i) {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}
