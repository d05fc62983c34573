package tick

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"

	"tickmux/tick/wire"
)

// request is one line from the host, parsed far enough to answer it (spec 3.2).
type request struct {
	id     uint64
	method string
	params json.RawMessage // nil when absent or null; otherwise a JSON object
	// invalid, when not empty, says why the request cannot be served although its id is known:
	// it is answered with CodeInvalidRequest.
	invalid string
}

// parseRequest parses one line. ok is false when the line must be dropped without a reply: it is
// not a JSON object, or it has no id that is an unsigned integer of the protocol (spec 3.2
// forbids answering with id null). Members are matched exactly; unknown ones are ignored
// (spec 4.3).
func parseRequest(line []byte) (req request, ok bool) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(line, &members); err != nil || members == nil {
		return request{}, false
	}
	id, ok := parseID(members["id"])
	if !ok {
		return request{}, false
	}
	req.id = id
	if !bytes.Equal(members["jsonrpc"], []byte(`"2.0"`)) {
		req.invalid = `the request's "jsonrpc" member must be "2.0"`
		return req, true
	}
	if raw := members["method"]; len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &req.method) != nil {
		req.invalid = `the request has no "method" string`
		return req, true
	}
	switch params := members["params"]; {
	case params == nil || bytes.Equal(params, []byte("null")):
	case params[0] == '{':
		req.params = params
	default:
		req.invalid = `the request's "params" must be an object`
	}
	return req, true
}

// parseID accepts the plain decimal integers 0 to 2^53-1 (spec 2.2 uinteger) and nothing else:
// a response must carry the id back exactly, and 1.0 or 1e0 would not survive the trip.
func parseID(raw json.RawMessage) (uint64, bool) {
	if len(raw) == 0 || raw[0] < '0' || raw[0] > '9' {
		return 0, false
	}
	id, err := strconv.ParseUint(string(raw), 10, 64)
	if err != nil || id > wire.MaxSafeInteger {
		return 0, false
	}
	return id, true
}

// callRequest is the params of a tick/call with each member checked for its type.
type callRequest struct {
	tool     string
	args     json.RawMessage // a JSON object; {} when absent
	revision string
	// revisionOK is false when the revision is absent or not a string: it cannot match.
	revisionOK bool
}

var errCallParams = errors.New(`tick/call takes params {"tool": string, "args": object, "revision": string}`)

// parseCallParams checks the shape of tick/call params (spec 7.1). The revision is checked apart
// from the rest because a stale catalog is answered before anything else (spec 7.2).
func parseCallParams(params json.RawMessage) (callRequest, error) {
	var members map[string]json.RawMessage
	if params == nil {
		params = json.RawMessage(`{}`)
	}
	if err := json.Unmarshal(params, &members); err != nil || members == nil {
		return callRequest{}, errCallParams
	}
	var c callRequest
	if raw, ok := members["revision"]; ok && json.Unmarshal(raw, &c.revision) == nil && raw[0] == '"' {
		c.revisionOK = true
	}
	if raw, ok := members["tool"]; !ok || raw[0] != '"' || json.Unmarshal(raw, &c.tool) != nil {
		return c, errCallParams
	}
	switch raw := members["args"]; {
	case raw == nil || bytes.Equal(raw, []byte("null")):
		c.args = json.RawMessage(`{}`)
	case raw[0] == '{':
		c.args = raw
	default:
		return c, errCallParams
	}
	return c, nil
}
