package host

import (
	"context"
	"encoding/json"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	switch mode := os.Getenv(envFakeMode); mode {
	case "":
	case "stubborn":
		os.Exit(stubbornMain())
	case "guarded":
		os.Exit(guardedMain())
	case "guardfail":
		os.Exit(guardFailMain())
	case "guardparent":
		os.Exit(guardParentMain())
	case "prestart":
		os.Exit(prestartMain())
	default:
		os.Exit(fakeTickMain(mode))
	}
	goleak.VerifyTestMain(m,
		// The reaper's SIGCHLD loop lives as long as the process, by design (reaper.go).
		goleak.IgnoreTopFunction("tickmux/host.reapLoop"),
		goleak.IgnoreTopFunction("tickmux/host.exitLoop"),
		goleak.IgnoreTopFunction("os/signal.signal_recv"),
		// regexp2's clock for pattern time budgets (tick/wire/jsonschema/pattern.go) stops by
		// itself about a second after the last match.
		goleak.IgnoreAnyFunction("github.com/dlclark/regexp2.runClock"),
	)
}

// hangGuard bounds how long a test waits for something that must happen; it is not a timing
// assertion, only a way to fail instead of hanging.
const hangGuard = 20 * time.Second

func testExecutable(t testing.TB) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return self
}

func newTestHost(t testing.TB, cfg Config) *Host {
	t.Helper()
	if cfg.Logf == nil {
		cfg.Logf = func(format string, args ...any) { t.Logf("host: "+format, args...) }
	}
	h := New(cfg)
	t.Cleanup(h.Close)
	return h
}

// openFake launches the test binary as a fake Tick in mode.
func openFake(t testing.TB, h *Host, mode string, env ...string) *Instance {
	t.Helper()
	in, err := h.Open(OpenSpec{Argv: []string{testExecutable(t)}, Env: append([]string{envFakeMode + "=" + mode}, env...)})
	if err != nil {
		t.Fatalf("open fake %s: %v", mode, err)
	}
	return in
}

// openReady opens a fake and waits for initialization to succeed.
func openReady(t testing.TB, h *Host, mode string, env ...string) *Instance {
	t.Helper()
	in := openFake(t, h, mode, env...)
	waitReady(t, in)
	return in
}

func waitReady(t testing.TB, in *Instance) {
	t.Helper()
	select {
	case <-in.Ready():
	case <-time.After(hangGuard):
		t.Fatalf("%s: initialization did not finish", in.ID())
	}
	if st := in.Status(); st != StatusReady {
		t.Fatalf("%s: status %s, want ready; end: %+v", in.ID(), st, in.EndInfo())
	}
}

func waitEnded(t testing.TB, in *Instance) *EndInfo {
	t.Helper()
	select {
	case <-in.Ended():
	case <-time.After(hangGuard):
		t.Fatalf("%s did not end", in.ID())
	}
	return in.EndInfo()
}

func callJSON(t testing.TB, in *Instance, tool string, args string) (json.RawMessage, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	var raw json.RawMessage
	if args != "" {
		raw = json.RawMessage(args)
	}
	return in.Call(ctx, CallRequest{Client: "test", Tool: tool, Args: raw})
}

func mustCall(t testing.TB, in *Instance, tool, args string) json.RawMessage {
	t.Helper()
	res, err := callJSON(t, in, tool, args)
	if err != nil {
		t.Fatalf("call %s(%s): %v", tool, args, err)
	}
	return res
}

// autoApprover approves everything and counts what it saw.
type autoApprover struct {
	n atomic.Int32
}

func (a *autoApprover) Approve(ctx context.Context, req ApprovalRequest) error {
	a.n.Add(1)
	return nil
}
