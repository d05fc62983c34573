package tick_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gdamore/tcell/v2"
	"go.uber.org/goleak"

	"tickmux/tick"
	"tickmux/tick/wire"
)

// envChild makes the test binary play a Tick instead of running tests (os/exec's pattern).
const envChild = "TICK_TEST_CHILD"

// The test Tick's side channels, as numbered in the child (exec.Cmd.ExtraFiles start at 3).
const (
	fdRelease   = 3 // the test writes a byte to release one "block" call
	fdBurstDone = 4 // the child writes a byte when a "burst" call has made all its updates
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(envChild); mode != "" {
		os.Exit(runChild(mode))
	}
	goleak.VerifyTestMain(m)
}

// runChild serves the test Tick. mode "plain" serves at once; "preupdate" makes an update
// before Run; "ui" also draws a counter on /dev/tty where '+' adds one.
func runChild(mode string) int {
	var srv *tick.Server
	var value atomic.Int64
	release := os.NewFile(fdRelease, "release")
	burstDone := os.NewFile(fdBurstDone, "burst-done")

	obj := func(props string, required ...string) json.RawMessage {
		req, _ := json.Marshal(required)
		return json.RawMessage(`{"type":"object","properties":{` + props + `},"required":` + string(req) + `,"additionalProperties":false}`)
	}
	tools := []tick.ToolSpec{
		{
			Name: "echo", Description: "Return the args.",
			InputSchema: json.RawMessage(`{"type":"object"}`),
			Handler: func(ctx context.Context, args json.RawMessage) (any, error) {
				return args, nil
			},
		},
		{
			Name: "set", Description: "Set the value.", Mutates: true,
			InputSchema: obj(`"value":{"type":"integer"}`, "value"),
			Handler: tick.HandlerOf(func(ctx context.Context, a struct{ Value int64 }) (any, error) {
				value.Store(a.Value)
				return map[string]int64{"value": a.Value}, srv.Update(map[string]int64{"value": a.Value})
			}),
		},
		{
			Name: "block", Description: "Wait for a byte on the release pipe.",
			Handler: func(ctx context.Context, args json.RawMessage) (any, error) {
				done := make(chan error, 1)
				go func() { // ends when a byte arrives or the pipe closes
					_, err := release.Read(make([]byte, 1))
					done <- err
				}()
				select {
				case err := <-done:
					return map[string]bool{"released": err == nil}, err
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			},
		},
		{
			Name: "burst", Description: "Make n updates of about size bytes each.", Mutates: true,
			InputSchema: obj(`"n":{"type":"integer"},"size":{"type":"integer"}`, "n", "size"),
			Handler: tick.HandlerOf(func(ctx context.Context, a struct{ N, Size int }) (any, error) {
				pad := strings.Repeat("x", a.Size)
				for i := 1; i <= a.N; i++ {
					if err := srv.Update(map[string]any{"i": i, "pad": pad}); err != nil {
						return nil, err
					}
				}
				_, err := burstDone.Write([]byte{1})
				return map[string]int{"n": a.N}, err
			}),
		},
		{
			Name: "fail", Description: "Fail in the way asked.",
			InputSchema: obj(`"how":{"enum":["error","code","wrapped","panic","unencodable"]}`, "how"),
			Handler: tick.HandlerOf(func(ctx context.Context, a struct{ How string }) (any, error) {
				switch a.How {
				case "error":
					return nil, errors.New("the disk is full")
				case "code":
					return nil, &wire.ResponseError{Code: -32099, Message: "custom"}
				case "wrapped":
					return nil, fmt.Errorf("context: %w", &wire.ResponseError{Code: wire.CodeInvalidParams, Message: "no such row"})
				case "panic":
					panic("boom")
				}
				return func() {}, nil
			}),
		},
		{
			Name: "nothing", Description: "Return nil.",
			Handler: func(ctx context.Context, args json.RawMessage) (any, error) { return nil, nil },
		},
		{
			Name: "print", Description: "Print to stdout in every way a program might.",
			Handler: func(ctx context.Context, args json.RawMessage) (any, error) {
				fmt.Println("stray fmt.Println")
				os.Stdout.WriteString("stray os.Stdout\n")
				// A child inherits fds 0 and 1: "cat" would eat requests and "echo" would break
				// the protocol if they still led to the host.
				cmd := exec.Command("sh", "-c", "echo stray child; cat >/dev/null")
				cmd.Stdin, cmd.Stdout = os.Stdin, os.Stdout
				return map[string]string{"child": "done"}, cmd.Run()
			},
		},
	}
	retool := tick.ToolSpec{
		Name: "retool", Description: "Add a tool to the catalog.", Mutates: true,
		Handler: func(ctx context.Context, args json.RawMessage) (any, error) {
			extra := tick.ToolSpec{Name: "extra", Description: "Added later.", Handler: func(context.Context, json.RawMessage) (any, error) { return "extra", nil }}
			return nil, srv.SetTools(append(append([]tick.ToolSpec{}, tools...), extra)...)
		},
	}
	tools = append(tools, retool)

	srv, err := tick.New(tick.Tick{
		Kind: "test.child", Title: "Test child", Description: "The SDK's test Tick.",
		Tools: tools, RecoverWith: "echo",
		State: &wire.StateDeclaration{Series: []wire.Series{{Path: "/recent", Newest: wire.NewestLast}}},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	var ui *tick.UI
	switch mode {
	case "preupdate":
		if err := srv.Update(map[string]string{"phase": "before run"}); err != nil {
			return 2
		}
	case "ui":
		ui = &tick.UI{
			Draw: func(s tcell.Screen) {
				s.PutStr(0, 0, fmt.Sprintf("value=%d", value.Load()))
			},
			Key: func(ev *tcell.EventKey) {
				if ev.Key() == tcell.KeyRune && ev.Rune() == '+' {
					v := value.Add(1)
					_ = srv.Update(map[string]int64{"value": v})
				}
			},
		}
	}
	if err := srv.Run(context.Background(), ui); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	return 0
}
