package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"tickmux/host"
)

// HookVerb is the command an agent runs as its PermissionRequest hook.
var HookVerb = Verb{Name: "hook", Usage: "hook claude-code|codex [--socket PATH] [--no-view-wait D] [--timeout D]",
	Summary: "answer Claude Code's or Codex's permission prompt with a tickmux card (tickmux setup writes it)", run: runHook}

// DefaultHookTimeout is how long the hook waits for the person before it leaves the decision to
// the agent's own prompt; it stays below the 600 s timeout `tickmux setup` registers the hook
// with, so the hook gives up before the agent kills it.
const DefaultHookTimeout = 590 * time.Second

// eventTimeout bounds how long an event that decides nothing holds the agent up.
const eventTimeout = 3 * time.Second

// maxHookInput bounds the hook's stdin (a Write's content is in it).
const maxHookInput = 8 << 20

// Why a hook stopped waiting for the person: its own --timeout, or a signal (the agent ending it).
var (
	errHookTimeout   = errors.New("the hook's own --timeout passed")
	errHookSignalled = errors.New("stopped by a signal")
)

// deniedMessage is what the model reads when the person denied its tool call.
const deniedMessage = "denied by the person in tickmux"

// runHook reads the hook's input, asks the running tickmux and prints the person's decision.
// Whatever else happens (no tickmux, no view, the card withdrawn, a signal, an error) it prints
// nothing on stdout and exits 0: the agent then asks on its own prompt. It never allows by itself.
func runHook(r *runner, args []string) int {
	fs := r.flags()
	noView := fs.Duration("no-view-wait", DefaultNoViewWait, "how long the card waits while no view is attached before the agent's own prompt takes over")
	timeout := fs.Duration("timeout", DefaultHookTimeout, "give up after this and leave the decision to the agent's own prompt (keep it below the hook's timeout in the agent's settings)")
	pos, ok := r.parse(args, 1, 1, false)
	if !ok {
		return ExitUsage
	}
	agent := pos[0]
	name, known := agentNames[agent]
	if !known {
		return r.usageError("unknown agent %q: use %s or %s", agent, AgentClaudeCode, AgentCodex)
	}
	say := func(format string, args ...any) { // stderr: the agent keeps it in its log, never reads it as a decision
		fmt.Fprintf(r.errw, "tickmux hook %s: %s\n", agent, fmt.Sprintf(format, args...))
	}
	// The agent sends SIGTERM when its timeout for the hook passes (or its own prompt was
	// answered): the card is withdrawn and nothing is printed. The hook's own --timeout ends it
	// the same way, a little earlier; each says which, here and in tickmux's log.
	sigCtx, stop := context.WithCancelCause(context.Background())
	defer stop(nil)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	go func() { // owner: this hook; ends at the first signal or when runHook returns
		select {
		case sig := <-sigs:
			stop(fmt.Errorf("%w: %v", errHookSignalled, sig))
		case <-sigCtx.Done():
		}
	}()
	giveUp := time.Now().Add(*timeout)
	ctx, cancel := context.WithDeadlineCause(sigCtx, giveUp, errHookTimeout)
	defer cancel()

	raw, err := io.ReadAll(io.LimitReader(r.in, maxHookInput+1))
	if err != nil || len(raw) > maxHookInput {
		say("cannot read the hook's input (%v, %d bytes); %s asks on its own prompt", err, len(raw), name)
		return ExitOK
	}
	var in HookInput
	if err := json.Unmarshal(raw, &in); err != nil {
		say("the hook's input is not JSON (%v); %s asks on its own prompt", err, name)
		return ExitOK
	}
	if in.HookEventName != "" && in.HookEventName != "PermissionRequest" {
		// Other events say what the agent does: its state on its pane. Nothing is decided and
		// nothing printed (an agent reads some events' stdout as context for the model).
		ectx, cancel := context.WithTimeout(ctx, eventTimeout)
		defer cancel()
		c, err := Dial(ectx, SocketPath(r.socket), "tickmux hook "+agent)
		if err != nil {
			return ExitOK // outside tickmux: nobody to tell
		}
		defer c.Close()
		if err := c.Do(ectx, MethodAgentEvent, AgentEventParams{Agent: agent, Input: raw}, nil, nil); err != nil {
			say("%s: %s", in.HookEventName, host.Printable(errorOf(err).Message, false))
		}
		return ExitOK
	}
	c, err := Dial(ctx, SocketPath(r.socket), "tickmux hook "+agent)
	if err != nil {
		say("%s; %s asks on its own prompt", host.Printable(errorOf(err).Message, false), name)
		return ExitOK
	}
	defer c.Close()
	// Only the tickmux this hook runs under may answer: never a listener in its socket's place.
	if err := checkOwnServer(c.nc); err != nil {
		say("%s; %s asks on its own prompt", host.Printable(err.Error(), false), name)
		return ExitOK
	}
	var res PermissionResult
	err = c.Do(ctx, MethodPermission, PermissionParams{Agent: agent, Input: raw, NoViewWaitS: noView.Seconds(),
		GiveUpAtMS: giveUp.UnixMilli(), TimeoutS: timeout.Seconds()}, &res, nil)
	if err != nil {
		msg := errorOf(err).Message
		switch cause := context.Cause(ctx); {
		case errors.Is(cause, errHookTimeout):
			msg = fmt.Sprintf("nobody answered within %v: the hook's own --timeout passed", *timeout)
		case errors.Is(cause, errHookSignalled):
			msg = fmt.Sprintf("%v before the hook's own --timeout (%v): %s ended the hook (its timeout for hooks, or its own prompt answered)", cause, *timeout, name)
		}
		say("%s; %s asks on its own prompt", host.Printable(msg, false), name)
		return ExitOK
	}
	if ctx.Err() != nil { // answered as the agent gave up on the hook: it reads nothing now
		return ExitOK
	}
	var decision hookDecision
	switch res.Decision {
	case DecisionAllow:
		decision = hookDecision{Behavior: "allow"}
	case DecisionDeny:
		decision = hookDecision{Behavior: "deny", Message: deniedMessage}
	default:
		say("tickmux answered %q, neither allow nor deny; %s asks on its own prompt", res.Decision, name)
		return ExitOK
	}
	out, _ := json.Marshal(hookOutput{HookSpecificOutput: hookSpecific{HookEventName: "PermissionRequest", Decision: decision}})
	fmt.Fprintf(r.out, "%s\n", out)
	return ExitOK
}

// hookOutput is the PermissionRequest hook's answer, the same for Claude Code and Codex:
// {"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}.
type hookOutput struct {
	HookSpecificOutput hookSpecific `json:"hookSpecificOutput"`
}

type hookSpecific struct {
	HookEventName string       `json:"hookEventName"`
	Decision      hookDecision `json:"decision"`
}

type hookDecision struct {
	Behavior string `json:"behavior"`
	Message  string `json:"message,omitempty"`
}
