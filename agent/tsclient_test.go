package agent_test

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"tickmux/agent"
	"tickmux/agent/agenttest"
	"tickmux/host"
)

// The official TypeScript SDK client (agent/testdata/tsclient, installed by
// scripts/install-test-deps with npm ci) against `tickmux mcp`: its requests time out sooner
// than the person answers the card, and the call still reaches the agent, through the ticket.

const tsClientDir = "testdata/tsclient"

// tsClient returns node's path once the SDK is installed. Without node or the SDK the test fails
// in CI (CI=true) and is skipped elsewhere, saying how to install them.
func tsClient(t *testing.T) string {
	t.Helper()
	missing := func(what string) {
		t.Helper()
		msg := what + ": run ./scripts/install-test-deps (it runs npm ci in agent/" + tsClientDir + ")"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node is not installed")
	}
	if _, err := os.Stat(filepath.Join(tsClientDir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		missing("the MCP TypeScript SDK is not installed")
	}
	return node
}

// spec: H-K2 (the card waits for the person however long the client's requests may last)
func TestTypeScriptClientTicketOutlivesTimeout(t *testing.T) {
	t.Parallel()
	node := tsClient(t)
	h := agenttest.Start(t)
	in := h.OpenFake(t)

	const clientTimeout = 2 * time.Second // the SDK's timeout option, per request
	const callWait = "500ms"              // tickmux mcp --call-wait: below the client's timeout
	cmd := exec.Command(node, "client.mjs", tickmuxBinary(t), h.Socket, callWait, strconv.Itoa(int(clientTimeout.Milliseconds())), in.ID())
	cmd.Dir = tsClientDir
	cmd.Stderr = testWriter{t}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	gone := make(chan struct{})
	lines := make(chan map[string]json.RawMessage, 64)
	go func() { // owner: the test; ends when node exits or is killed at cleanup
		defer close(gone)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			var m map[string]json.RawMessage
			if json.Unmarshal(sc.Bytes(), &m) != nil {
				m = map[string]json.RawMessage{"text": json.RawMessage(strconv.Quote(sc.Text()))}
			}
			select {
			case lines <- m:
			default: // the test stopped reading
			}
		}
		exited <- cmd.Wait()
	}()
	t.Cleanup(func() {
		select {
		case <-gone:
		default:
			cmd.Process.Kill()
			<-gone
		}
	})
	next := func(key string) json.RawMessage {
		t.Helper()
		for {
			select {
			case m := <-lines:
				if v, ok := m[key]; ok {
					return v
				}
				t.Logf("node: %v", m)
			case err := <-exited:
				t.Fatalf("node exited (%v) before it said %q", err, key)
			case <-time.After(agenttest.HangGuard):
				t.Fatalf("node did not say %q", key)
			}
		}
	}

	// What the TypeScript SDK reads of the tools and resources.
	var tools map[string]struct {
		ReadOnlyHint    bool `json:"readOnlyHint"`
		DestructiveHint bool `json:"destructiveHint"`
	}
	if err := json.Unmarshal(next("tools"), &tools); err != nil {
		t.Fatal(err)
	}
	if q, c := tools["query_tick"], tools["call_tick"]; !q.ReadOnlyHint || q.DestructiveHint || c.ReadOnlyHint || !c.DestructiveHint {
		t.Errorf("annotations as the TypeScript SDK reads them: query_tick %+v, call_tick %+v", q, c)
	}
	var resources []string
	if err := json.Unmarshal(next("resources"), &resources); err != nil || len(resources) != 1 || resources[0] != agent.StateURI(in.ID()) {
		t.Errorf("resources/list as the TypeScript SDK reads it: %v %v", resources, err)
	}

	var ticket agent.Ticket
	if err := json.Unmarshal(next("ticket"), &ticket); err != nil {
		t.Fatal(err)
	}
	if ticket.Status != agent.StatusAwaitingApproval || ticket.Call == "" {
		t.Fatalf("ticket: %+v", ticket)
	}
	next("ready") // the client's request timeout has passed since the call was made
	card := h.Cards.Next(t)
	if card.ID != ticket.Card || card.Req.Client != "ts-e2e-agent" || card.Req.Tool != "set" {
		t.Fatalf("card %+v, ticket %+v", card, ticket)
	}
	if in.State().Seq != 0 {
		t.Fatal("the call went out before approval")
	}
	h.Cards.Answer(t, card.ID, host.AllowOnce)

	var outcome agent.CallOutcome
	if err := json.Unmarshal(next("outcome"), &outcome); err != nil {
		t.Fatal(err)
	}
	if outcome.Call != ticket.Call || outcome.Status != agent.StatusOK || string(outcome.Result) != `{"value":42}` {
		t.Errorf("outcome through the ticket: %+v", outcome)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("node: %v", err)
		}
	case <-time.After(agenttest.HangGuard):
		t.Error("node did not exit")
	}
	if !strings.Contains(string(in.State().Data), `"value":42`) {
		t.Errorf("the Tick's state after the call: %s", in.State().Data)
	}
}
