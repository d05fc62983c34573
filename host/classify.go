package host

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"unicode/utf8"

	"tickmux/tick/wire"
)

// msgKind is what a line from a Tick turned out to be.
type msgKind int

const (
	msgResponse     msgKind = iota // an integer id and no method
	msgUpdate                      // the tick/update notification
	msgNotification                // another notification: ignored and counted (H-M3)
	msgTickRequest                 // a method and an id of any value: forbidden, ignored and counted (H-M7)
)

// message is a classified line. Raw members are copies: they outlive the reader's buffer; only
// update.Data may point into the line (the session copies the update it keeps).
type message struct {
	kind   msgKind
	id     uint64 // msgResponse
	idOK   bool   // id is an unsigned integer the host could have assigned
	idText string // msgTickRequest: the id as it came, for the log
	method string

	// msgResponse
	result    json.RawMessage // nil when absent; "null" when null
	errObj    json.RawMessage
	malformed string // why the response fails its request (H-M6), "" if well formed
	respErr   *wire.ResponseError

	// msgUpdate: the state, and its at member as the JSON string came (checked; nil when
	// absent). update.At is left empty: only the update a read delivers needs it as a string
	// (atText), not each of the thousands a flooding Tick sends.
	update wire.State
	at     []byte
}

// Sizes measured on the host's re-encoding (spec 2.3, 3.5; wire.EncodedLen): compact, strings
// in UTF-8 with the fewest escapes, numbers as written (limits table).
const (
	MaxResultBytes   = 8 << 20   // a response's result
	MaxDescribeBytes = 512 << 10 // a tick/describe result
	MaxReadBytes     = 512 << 10 // a tick/read result (HOST.md decision)
	MaxUpdateBytes   = 512 << 10 // a tick/update's state
)

// classify parses one line. A *Violation means the session must end (H-V2, H-M5, H-U1).
func classify(line []byte) (message, error) {
	var m message
	sc, err := scanLine(line)
	switch {
	case errors.Is(err, errNotObject):
		if t := bytes.TrimSpace(line); len(t) > 0 && t[0] == '[' {
			return m, violation("H-V2", "a line is a batch (JSON array); the protocol has no batches: %s", excerpt(line))
		}
		return m, violation("H-M5", "a line is not a message (neither an integer id nor a method): %s", excerpt(line))
	case err != nil && len(bytes.TrimSpace(line)) == 0:
		return m, violation("H-M5", "a line is empty: it is not a message")
	case err != nil && !utf8.Valid(line):
		return m, violation("H-V2", "a line is not valid UTF-8")
	case err != nil:
		return m, violation("H-V2", "a line is not valid JSON (%v): %s", err, excerpt(line))
	}
	if !sc.jsonrpc.set {
		return m, violation("H-V2", `a message lacks "jsonrpc": "2.0": %s`, excerpt(line))
	}
	if rpc := sc.jsonrpc.bytes(line); string(rpc) != `"2.0"` {
		var v string
		if json.Unmarshal(rpc, &v) != nil || v != wire.JSONRPCVersion {
			return m, violation("H-V2", `a message has "jsonrpc": %s, not "2.0"`, shortJSON(rpc))
		}
	}
	hasMethod := false
	if sc.method.set && line[sc.method.start] == '"' {
		hasMethod = true
		m.method = methodName(sc.method.bytes(line))
	}
	if hasMethod && sc.id.set {
		// JSON-RPC 2.0: a message with a method and an id member is a request, whatever the id's
		// value (null and strings included); never an update or a notification (H-M7).
		m.kind = msgTickRequest
		m.idText = shortJSON(sc.id.bytes(line))
		return m, nil
	}
	hasID := false
	if sc.id.set {
		if n, isInt, nonNeg := parseInteger(sc.id.bytes(line)); isInt {
			hasID = true
			m.id, m.idOK = n, nonNeg
		}
	}
	switch {
	case hasID:
		m.kind = msgResponse
		classifyResponse(&m, line, &sc)
		return m, nil
	case hasMethod:
		if m.method != wire.MethodUpdate {
			m.kind = msgNotification
			return m, nil
		}
		m.kind = msgUpdate
		if !sc.params.set {
			return m, violation("H-U1", "a tick/update has no params")
		}
		if n := sc.params.compactLen(); n > MaxUpdateBytes {
			return m, violation("H-U1", "a tick/update is %d bytes re-encoded, over the limit of %d", n, MaxUpdateBytes)
		}
		st, at, bad := stateOf(line, sc.state)
		if bad != nil {
			return m, violation("H-U1", "a tick/update %s", bad.Reason)
		}
		if string(st.Data) == "null" {
			return m, violation("H-U1", "a tick/update has data null")
		}
		m.update, m.at = st, at
		return m, nil
	}
	return m, violation("H-M5", "a line has neither an integer id nor a method: %s", excerpt(line))
}

// methodName is a method string's value; tick/update, which a flooding Tick sends thousands of
// times a second, is returned as the constant rather than copied from each line.
func methodName(raw []byte) string {
	if string(raw) == `"`+wire.MethodUpdate+`"` {
		return wire.MethodUpdate
	}
	return memberName(raw, bytes.IndexByte(raw, '\\') >= 0)
}

func classifyResponse(m *message, line []byte, sc *scanned) {
	switch {
	case sc.result.set && sc.errv.set:
		m.malformed = "the response has both result and error"
	case !sc.result.set && !sc.errv.set:
		m.malformed = "the response has neither result nor error"
	case sc.result.set:
		m.result = compactCopy(line, sc.result)
	default:
		m.errObj = compactCopy(line, sc.errv)
		re, why := parseResponseError(m.errObj)
		if why != "" {
			m.malformed = why
		}
		m.respErr = re
	}
}

// compactCopy copies a value out of the line in compact form (the host's re-encoding).
func compactCopy(line []byte, sp span) json.RawMessage {
	raw := sp.bytes(line)
	if sp.ws == 0 {
		return append(json.RawMessage(nil), raw...)
	}
	var buf bytes.Buffer
	buf.Grow(sp.compactLen())
	_ = json.Compact(&buf, raw) // scanned valid already
	return buf.Bytes()
}

func parseResponseError(raw json.RawMessage) (*wire.ResponseError, string) {
	var e struct {
		Code    json.RawMessage `json:"code"`
		Message *string         `json:"message"`
		Data    json.RawMessage `json:"data"`
	}
	if raw[0] != '{' || json.Unmarshal(raw, &e) != nil {
		return nil, "the response's error is not an object"
	}
	code, isInt, _ := parseInteger(e.Code)
	if e.Code == nil || !isInt {
		return nil, "the response's error has no integer code"
	}
	if e.Message == nil {
		return nil, "the response's error has no message"
	}
	c := int64(code)
	if bytes.HasPrefix(bytes.TrimSpace(e.Code), []byte("-")) {
		c = -int64(code)
	}
	return &wire.ResponseError{Code: c, Message: *e.Message, Data: e.Data}, ""
}

// parseState checks a TickState (spec 6.2, a tick/read result) and returns it with data in
// compact form. When it is not valid, bad says why and names the rule.
func parseState(raw json.RawMessage, limit int) (wire.State, *RuleError) {
	if raw == nil {
		return wire.State{}, &RuleError{Rule: "H-RD3", Reason: "is missing"}
	}
	st, err := scanState(raw)
	if err != nil {
		return wire.State{}, &RuleError{Rule: "H-RD3", Reason: "is not valid JSON"}
	}
	if n := wire.EncodedLen(raw); n > limit {
		return wire.State{}, &RuleError{Rule: "H-V3", Reason: "is " + strconv.Itoa(n) + " bytes re-encoded, over the limit of " + strconv.Itoa(limit)}
	}
	return stateFromSpans(raw, st)
}

// stateFromSpans checks the members of a TickState found by the scanner: seq is an unsigned
// integer (the seq rules, H-RD1/H-U1), data is present, at is absent or an RFC 3339 date-time
// string (H-RD3/H-U1). bad names the rule a read result breaks; an update breaks H-U1 whatever it is.
// Data in compact form may share b's memory: whoever keeps it past b's life copies it.
func stateFromSpans(b []byte, sp stateSpans) (wire.State, *RuleError) {
	st, at, bad := stateOf(b, sp)
	if bad == nil && at != nil {
		st.At = atText(at)
	}
	return st, bad
}

// stateOf is stateFromSpans with at left as the JSON string it came as (checked), nil when
// absent, in b's memory; st.At is empty.
func stateOf(b []byte, sp stateSpans) (st wire.State, at []byte, bad *RuleError) {
	if !sp.object {
		return st, nil, &RuleError{Rule: "H-RD3", Reason: "is not an object"}
	}
	if !sp.seq.set {
		return st, nil, &RuleError{Rule: "H-RD1", Reason: "has no seq"}
	}
	rawSeq := sp.seq.bytes(b)
	seq, isInt, nonNeg := parseInteger(rawSeq)
	if !isInt || !nonNeg || seq > wire.MaxSafeInteger {
		return st, nil, &RuleError{Rule: "H-RD1", Reason: "has seq " + shortJSON(rawSeq) + ", not an unsigned integer"}
	}
	if !sp.data.set {
		return st, nil, &RuleError{Rule: "H-RD3", Reason: "has no data"}
	}
	st.Seq, st.Data = seq, sp.data.bytes(b)
	if sp.data.ws != 0 {
		st.Data = compactCopy(b, sp.data)
	}
	if sp.at.set {
		at = sp.at.bytes(b)
		if !atValid(at) {
			return st, nil, &RuleError{Rule: "H-RD3", Reason: "has at " + shortJSON(at) + ", not an RFC 3339 time (when present, at is an RFC 3339 date-time string, never null)"}
		}
	}
	return st, at, nil
}

// atValid reports whether the at member is a JSON string holding an RFC 3339 date-time. The
// common case, a string with no escapes, is checked in place, with no JSON decoder.
func atValid(raw []byte) bool {
	if len(raw) < 2 || raw[0] != '"' {
		return false // null, a number, …
	}
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return validDateTime(inner)
	}
	var s string // escapes: decode them first (the scanner has validated the string)
	return json.Unmarshal(raw, &s) == nil && validDateTime([]byte(s))
}

// atText is the value of an at member that atValid accepted.
func atText(raw []byte) string {
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return string(inner)
	}
	var s string
	_ = json.Unmarshal(raw, &s) // checked by atValid
	return s
}

// parseInteger reads a JSON number that denotes an integer (1, 1.0, 1e3). It returns the
// magnitude, whether the value is an integer within ±2^53-1, and whether it is non-negative.
func parseInteger(raw json.RawMessage) (n uint64, isInt, nonNeg bool) {
	s := string(bytes.TrimSpace(raw))
	if s == "" || (s[0] != '-' && (s[0] < '0' || s[0] > '9')) {
		return 0, false, false
	}
	neg := s[0] == '-'
	digits := s
	if neg {
		digits = s[1:]
	}
	if v, err := strconv.ParseUint(digits, 10, 64); err == nil {
		if v > wire.MaxSafeInteger {
			return 0, false, false
		}
		return v, true, !neg || v == 0
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != float64(int64(f)) || f > wire.MaxSafeInteger || f < -wire.MaxSafeInteger {
		return 0, false, false
	}
	if f < 0 {
		return uint64(-f), true, false
	}
	return uint64(f), true, true
}

// shortJSON shows a valid JSON value as it came, cut to a readable length. JSON text carries no
// raw control characters, so it needs no quoting.
func shortJSON(raw json.RawMessage) string {
	if cut := 60; len(raw) > cut {
		for cut > 0 && !utf8.RuneStart(raw[cut]) {
			cut--
		}
		return string(raw[:cut]) + "…"
	}
	return string(raw)
}

// excerpt quotes the start of untrusted bytes for an error message.
func excerpt(b []byte) string {
	const max = 120
	if len(b) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(b[cut]) {
			cut--
		}
		return strconv.Quote(string(b[:cut])) + "…"
	}
	return strconv.Quote(string(b))
}
