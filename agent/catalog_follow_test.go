package agent_test

import (
	"syscall"
	"testing"

	"tickmux/agent"
	"tickmux/host"
)

// spec: H-K5 — spec 5.5, 7.2: the fake moves its catalog to r2 on its own (SIGUSR1); a query sent
// through the socket is prepared against r1, refused with -32004 (never run), and the host
// describes the Tick again and sends the unchanged query once more at r2: the agent gets its
// result, not catalog_changed, and the host holds r2.
func TestQueryFollowsCatalogThroughSocket(t *testing.T) {
	t.Parallel()
	h, in, cs := fakeOverMCP(t, agent.MCPOptions{CallWait: shortWait})
	if err := in.Process().Signal(syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	h.WaitState(t, in, func(st host.StateInfo) bool { return st.Updates > 0 })

	var get agent.CallResult
	call(t, cs, "query_tick", map[string]any{"id": in.ID(), "tool": "get"}).decode(t, &get)
	if get.Status != agent.StatusOK || string(get.Result) != `{"value":0}` {
		t.Fatalf("query_tick get after the catalog moved: %+v", get)
	}
	if rev := in.Catalog().Revision(); rev != "r2" {
		t.Fatalf("the host holds revision %q, want r2", rev)
	}
}
