package tick

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"tickmux/tick/wire"
)

// Handler runs one tick/call. args already fit the tool's input schema; ctx ends when the Tick is
// told to stop (SIGTERM) or Run's context ends.
//
// The result may be any value encoding/json can encode (nil is sent as {}). To report failure:
//   - return a *ResponseError to choose the code; use a code of the "none" class (CodeInvalidParams,
//     for instance) only when the call changed nothing (spec 3.4);
//   - any other error becomes CodeToolFailed (-32000, "possible" effect) with err.Error() as the
//     message, so write it for a person;
//   - a panic is recovered and reported the same way as an error; the Tick keeps serving.
//
// Handlers run concurrently with each other, with tick/describe and tick/read, and with the UI.
type Handler func(ctx context.Context, args json.RawMessage) (any, error)

// HandlerOf adapts a function taking its args as a Go value: args are decoded into A with
// encoding/json (after the schema check), so A is typically a struct with json tags.
func HandlerOf[A any](f func(ctx context.Context, args A) (any, error)) Handler {
	return func(ctx context.Context, raw json.RawMessage) (any, error) {
		var a A
		if err := json.Unmarshal(raw, &a); err != nil {
			return nil, &wire.ResponseError{Code: wire.CodeInvalidParams, Message: "args do not fit this tool: " + err.Error()}
		}
		return f(ctx, a)
	}
}

// runHandler calls h and turns whatever comes back (a result, an error, a panic) into the result
// or error member of the response.
func runHandler(ctx context.Context, h Handler, args json.RawMessage) (result json.RawMessage, rerr *wire.ResponseError) {
	defer func() {
		if p := recover(); p != nil {
			result = nil
			rerr = &wire.ResponseError{Code: wire.CodeToolFailed, Message: fmt.Sprintf("the tool crashed: %v", p)}
		}
	}()
	value, err := h(ctx, args)
	if err != nil {
		return nil, asResponseError(err)
	}
	if value == nil {
		return json.RawMessage(`{}`), nil
	}
	result, err = json.Marshal(value)
	if err != nil {
		return nil, &wire.ResponseError{Code: wire.CodeToolFailed, Message: "the tool ran but its result could not be encoded: " + err.Error()}
	}
	if len(result) > maxResultBytes {
		return nil, &wire.ResponseError{Code: wire.CodeToolFailed, Message: fmt.Sprintf("the tool ran but its result is %d bytes; the limit is %d", len(result), maxResultBytes)}
	}
	return result, nil
}

// asResponseError passes a *ResponseError (found with errors.As, so it may be wrapped) through and
// makes any other error a tool failure with a possible effect.
func asResponseError(err error) *wire.ResponseError {
	var re *wire.ResponseError
	if errors.As(err, &re) {
		return re
	}
	return &wire.ResponseError{Code: wire.CodeToolFailed, Message: err.Error()}
}

// mustJSON encodes values the SDK builds itself, which always encode.
func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic("tick: encoding an internal value: " + err.Error())
	}
	return b
}
