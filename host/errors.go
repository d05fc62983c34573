package host

import (
	"encoding/json"
	"errors"
	"fmt"

	"tickmux/tick/wire"
)

// Causes of a failed request or call. They are matched with errors.Is through CallError.
var (
	// ErrTimeout: the Tick did not answer in time (10 s during initialization, 60 s for a call).
	ErrTimeout = errors.New("the Tick did not answer in time")
	// ErrSessionEnded: the session ended while the request was in flight or queued.
	ErrSessionEnded = errors.New("the Tick's session ended")
	// ErrNotReady: the instance has not finished initialization, or has ended.
	ErrNotReady = errors.New("the instance is not ready")
	// ErrCatalogChanged: the call's revision is not the current one (-32004, H-K3).
	ErrCatalogChanged = errors.New("the Tick's tool catalog changed; describe it and prepare the call again")
	// ErrUnknownTool: no tool of that name in the current catalog.
	ErrUnknownTool = errors.New("no such tool in the Tick's catalog")
	// ErrInvalidArgs: the args do not fit the tool's input_schema (H-K1); never sent.
	ErrInvalidArgs = errors.New("the args do not fit the tool's input_schema")
	// ErrDenied: the person denied the call.
	ErrDenied = errors.New("the person denied the call")
	// ErrVoided: the catalog changed while the call waited for approval (H-K3).
	ErrVoided = errors.New("the catalog changed before the call was approved; prepare it again")
	// ErrNoApprover: nobody can approve, so a mutating call cannot go out.
	ErrNoApprover = errors.New("no one can approve calls to mutating tools here")
	// ErrMalformedResponse: the response had both or neither of result and error, or a bad error
	// member (H-M6).
	ErrMalformedResponse = errors.New("the Tick's response is malformed")
	// ErrResultTooLarge: the result re-encodes to more than its limit (H-V3).
	ErrResultTooLarge = errors.New("the Tick's result is too large")
	// ErrInvalidResult: a describe or read result that breaks the spec.
	ErrInvalidResult = errors.New("the Tick's result is invalid")
	// ErrStdinBlocked: the Tick stopped reading requests.
	ErrStdinBlocked = errors.New("the Tick is not reading its stdin")
)

// CallError reports a failed request with what it may have done (H-E1). Every error returned by a
// Session request or an Instance call is a *CallError.
type CallError struct {
	// Effect is none (nothing happened), possible, or unknown.
	Effect wire.Effect
	// Code is the Tick's error code, or 0 when the host failed the request itself.
	Code int64
	// Message says what went wrong, for a person.
	Message string
	// Data is the Tick's error data, if any (untrusted).
	Data json.RawMessage
	// Err is the cause: one of the Err* values, a *Violation, or a *wire.ResponseError.
	Err error
}

func (e *CallError) Error() string {
	return fmt.Sprintf("%s (effect: %s)", e.Message, e.Effect)
}

func (e *CallError) Unwrap() error { return e.Err }

// failNone is a failure that happened before anything was sent.
func failNone(cause error, format string, args ...any) *CallError {
	return fail(wire.EffectNone, cause, format, args...)
}

// failUnknown is a failure after sending, when the host cannot know what happened.
func failUnknown(cause error, format string, args ...any) *CallError {
	return fail(wire.EffectUnknown, cause, format, args...)
}

// fail reports cause with a message for a person; an empty format uses the cause's own words.
func fail(effect wire.Effect, cause error, format string, args ...any) *CallError {
	msg := cause.Error()
	if format != "" {
		msg = fmt.Sprintf(format, args...)
	}
	return &CallError{Effect: effect, Message: msg, Err: cause}
}

// fromResponseError reports the Tick's own error answer; its code decides the effect (H-E1).
func fromResponseError(re *wire.ResponseError) *CallError {
	ce := &CallError{Effect: wire.EffectOfCode(re.Code), Code: re.Code, Message: re.Message, Data: re.Data, Err: re}
	if re.Code == wire.CodeCatalogChanged {
		ce.Err = errors.Join(re, ErrCatalogChanged)
	}
	return ce
}

// EffectOf returns the effect a failed call reports; unknown for errors that are not CallErrors.
func EffectOf(err error) wire.Effect {
	var ce *CallError
	if errors.As(err, &ce) {
		return ce.Effect
	}
	return wire.EffectUnknown
}

// Violation is a breach of the protocol that ends the session (H-V1, H-V2).
type Violation struct {
	// Rule is the HOST.md id of the rule broken, such as "H-V2" or "H-U1".
	Rule string
	// Reason says what the Tick did, for a person.
	Reason string
}

func (v *Violation) Error() string {
	return fmt.Sprintf("protocol violation (%s): %s", v.Rule, v.Reason)
}

func violation(rule, format string, args ...any) *Violation {
	return &Violation{Rule: rule, Reason: fmt.Sprintf(format, args...)}
}

// RuleError is a failed request's cause when the Tick broke a rule with its own HOST.md id, such
// as a read result below the read floor (H-RD1) or with a bad at (H-RD3). It travels inside a
// CallError; RuleOf finds it.
type RuleError struct {
	Rule   string // the HOST.md id
	Reason string // what the Tick did, for a person
}

func (e *RuleError) Error() string { return e.Reason + " (" + e.Rule + ")" }

// RuleOf returns the HOST.md id of the most precise rule behind err, or "" when err names none:
// a *Violation's or *DescriptorError's own rule, a *RuleError's, H-M6 for a malformed response
// and H-V3 for a result over its limit.
func RuleOf(err error) string {
	var v *Violation
	var de *DescriptorError
	var re *RuleError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &v):
		return v.Rule
	case errors.As(err, &de):
		return de.Rule
	case errors.As(err, &re):
		return re.Rule
	case errors.Is(err, ErrMalformedResponse):
		return "H-M6"
	case errors.Is(err, ErrResultTooLarge):
		return "H-V3"
	}
	return ""
}
