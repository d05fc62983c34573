package agent_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"tickmux/agent"
	"tickmux/agent/agenttest"
	"tickmux/host"
)

// open_tick's input schema offers sandbox; under the default policy ("agents") an agent's open is
// sandboxed and `sandbox: false` does not take that away: the card says sandboxed, and the pane is.
func TestOpenTickSandboxFalseStaysSandboxed(t *testing.T) {
	if _, err := host.SandboxAvailable(); err != nil {
		if os.Getenv("CI") == "true" { // scripts/install-test-deps installs bubblewrap: a skip would hide its absence
			t.Fatalf("no sandbox here: %v", err)
		}
		t.Skipf("no sandbox here: %v", err)
	}
	t.Parallel()
	h := agenttest.Start(t)
	cs := connectMCP(t, h.Socket, nil)
	ctx, cancel := context.WithTimeout(context.Background(), agenttest.HangGuard)
	defer cancel()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if tool.Name != "open_tick" {
			continue
		}
		schema, _ := json.Marshal(tool.InputSchema)
		if !strings.Contains(string(schema), `"sandbox":{`) {
			t.Errorf("open_tick's input schema has no sandbox: %s", schema)
		}
	}
	opened := callAsync(t, ctx, cs, &mcp.CallToolParams{Name: "open_tick", Arguments: map[string]any{
		"command": []string{"/bin/sh", "-c", "exec sleep 300"}, "shell": true, "cwd": t.TempDir(), "sandbox": false}})
	card := h.Cards.Next(t)
	if !card.Req.Sandboxed {
		t.Errorf("the card of an agent's open with sandbox: false does not say sandboxed: %+v", card.Req)
	}
	h.Cards.Answer(t, card.ID, host.AllowOnce)
	var info agent.TickInfo
	receive(t, opened, "open_tick's result").decode(t, &info)
	if !info.Sandboxed {
		t.Fatalf("the pane an agent opened with sandbox: false is not sandboxed: %+v", info)
	}
	if in := h.Host.Get(info.ID); in == nil || !in.Sandboxed() {
		t.Fatalf("%s is not sandboxed in the host", info.ID)
	}
}
