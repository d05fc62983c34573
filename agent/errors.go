package agent

import (
	"context"
	"errors"
	"fmt"

	"tickmux/host"
	"tickmux/tick/wire"
)

// errorOf turns any failure into the wire's Error: the host's *CallError keeps its effect
// (H-E1), and the reason and rule say which HOST.md rule stopped the request.
func errorOf(err error) *Error {
	var we *Error
	if errors.As(err, &we) {
		return we
	}
	var ce *host.CallError
	if !errors.As(err, &ce) {
		// Not a call: nothing was done on the client's behalf unless the caller says otherwise.
		e := &Error{Message: err.Error(), Effect: wire.EffectNone, Reason: ReasonFailed}
		if errors.Is(err, context.Canceled) {
			e.Reason = ReasonCancelled
		}
		return e
	}
	e := &Error{Message: ce.Message, Effect: ce.Effect, Code: ce.Code, Data: ce.Data, Reason: ReasonFailed}
	var v *host.Violation
	switch {
	case errors.Is(err, host.ErrDenied):
		e.Reason, e.Rule = ReasonDenied, "H-K2"
	case errors.Is(err, host.ErrVoided):
		e.Reason, e.Rule = ReasonVoided, "H-K3"
	case errors.Is(err, host.ErrCatalogChanged):
		e.Reason, e.Rule = ReasonCatalogChanged, "H-K3"
	case errors.Is(err, host.ErrInvalidArgs):
		e.Reason, e.Rule = ReasonInvalidArgs, "H-K1"
	case errors.Is(err, host.ErrUnknownTool):
		e.Reason = ReasonUnknownTool
	case errors.Is(err, host.ErrNoApprover):
		e.Reason, e.Rule = ReasonNoApprover, "H-K2"
	case errors.Is(err, host.ErrNotReady):
		e.Reason = ReasonNotReady
	case errors.Is(err, host.ErrTimeout):
		e.Reason, e.Rule = ReasonTimeout, "H-K4"
	case errors.As(err, &v):
		e.Reason, e.Rule = ReasonSessionEnded, v.Rule
	case errors.Is(err, host.ErrSessionEnded):
		e.Reason = ReasonSessionEnded
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		if ce.Effect == wire.EffectNone {
			e.Reason = ReasonWithdrawn
		} else {
			e.Reason = ReasonCancelled
		}
	case ce.Code == wire.CodeInvalidParams:
		e.Reason, e.Rule = ReasonInvalidArgs, "H-K1"
	case ce.Code != 0:
		e.Reason = ReasonToolFailed
	}
	if e.Effect == "" {
		e.Effect = wire.EffectUnknown
	}
	return e
}

// failure builds an Error for something the server refused before doing anything.
func failure(reason, format string, args ...any) *Error {
	return &Error{Message: fmt.Sprintf(format, args...), Effect: wire.EffectNone, Reason: reason}
}
