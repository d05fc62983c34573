package agent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"tickmux/agent/agenttest"
	"tickmux/tick/wire"
)

// An open whose program cannot be found fails at once: no card asks the person to approve
// something that cannot start.
func TestOpenOfAMissingProgramFailsBeforeTheCard(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	cs := connectMCP(t, h.Socket, nil)
	ctx, cancel := context.WithTimeout(context.Background(), agenttest.HangGuard)
	defer cancel()
	for _, argv := range [][]string{{"no-such-program-for-tickmux"}, {"./not-here"}} {
		opened := callAsync(t, ctx, cs, &mcp.CallToolParams{Name: "open_tick", Arguments: map[string]any{"command": argv, "cwd": t.TempDir()}})
		e := receive(t, opened, "the open's answer").errorOf(t)
		if e.Effect != wire.EffectNone || !strings.Contains(e.Message, "cannot start") {
			t.Errorf("open %q: %+v", argv, e)
		}
		h.Cards.WaitNone(t)
	}
}
