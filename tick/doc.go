// Package tick is the Go SDK for writing Ticks: programs that draw their own UI on their terminal
// and speak Tick protocol 3 on stdin and stdout. Declare the Tick and its tools (Tick, ToolSpec,
// HandlerOf), then Run: the Server answers tick/describe, tick/read and tick/call, sends
// tick/update for each Update, and draws the UI (UI) on /dev/tty.
//
// The wire shapes and error codes both sides share live in package tick/wire, which imports no
// UI; the host uses that package alone.
package tick
