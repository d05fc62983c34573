// An agent on the official MCP TypeScript SDK, run by agent/tsclient_test.go against
// `tickmux mcp`. Its requests time out after TIMEOUT_MS, shorter than the person takes to answer
// the card: the call must still reach its outcome, through the ticket.
//
// Usage: node client.mjs TICKMUX SOCKET CALL_WAIT TIMEOUT_MS TICK_ID
// Writes one JSON object per line on stdout: tools, resources, ticket, ready, outcome.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [tickmux, socket, callWait, timeoutArg, tickID] = process.argv.slice(2);
const timeout = Number(timeoutArg);
const say = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");
const parse = (res) => JSON.parse(res.content[0].text);

const transport = new StdioClientTransport({
  command: tickmux,
  args: ["mcp", "--socket", socket, "--call-wait", callWait],
  stderr: "inherit",
});
const client = new Client({ name: "ts-e2e-agent", version: "1.0.0" });
await client.connect(transport, { timeout });

const { tools } = await client.listTools(undefined, { timeout });
say({ tools: Object.fromEntries(tools.map((t) => [t.name, t.annotations])) });
const { resources } = await client.listResources(undefined, { timeout });
say({ resources: resources.map((r) => r.uri) });

// The card waits for the person longer than this request may last.
const started = Date.now();
const first = await client.callTool(
  { name: "call_tick", arguments: { id: tickID, tool: "set", args: { value: 42 } } },
  undefined,
  { timeout },
);
const ticket = parse(first);
say({ ticket, isError: first.isError === true });
if (ticket.status !== "awaiting_approval") process.exit(2);

// Let the client's own timeout pass before the person answers.
const left = timeout - (Date.now() - started);
if (left > 0) await new Promise((r) => setTimeout(r, left + 200));
say({ ready: true });

for (;;) {
  const res = await client.callTool(
    { name: "wait", arguments: { calls: [ticket.call], timeout_s: Math.max(timeout / 2000, 0.1) } },
    undefined,
    { timeout },
  );
  const w = parse(res);
  if (w.calls && w.calls.length > 0) {
    say({ outcome: w.calls[0], elapsed_ms: Date.now() - started });
    break;
  }
}
await client.close();
