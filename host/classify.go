package host

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"
	"unicode/utf8"

	"tickmux/tick"
)

// msgKind is what a line from a Tick turned out to be.
type msgKind int

const (
	msgResponse     msgKind = iota // an integer id and no method
	msgUpdate                      // the tick/update notification
	msgNotification                // another notification: ignored and counted (H-M3)
	msgTickRequest                 // an integer id and a method: forbidden, ignored and counted (H-M7)
)

// message is a classified line. Raw members are copies: they outlive the reader's buffer.
type message struct {
	kind   msgKind
	id     uint64 // msgResponse, msgTickRequest
	idOK   bool   // id is an unsigned integer the host could have assigned
	method string

	// msgResponse
	result    json.RawMessage // nil when absent; "null" when null
	errObj    json.RawMessage
	malformed string // why the response fails its request (H-M6), "" if well formed
	respErr   *tick.ResponseError

	// msgUpdate
	update tick.State
}

// envelope is the JSON-RPC frame with every member kept raw.
type envelope struct {
	JSONRPC json.RawMessage `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  json.RawMessage `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// Sizes measured on the host's re-encoding: the compact form of what arrived (limits table).
const (
	MaxResultBytes   = 8 << 20   // a response's result
	MaxDescribeBytes = 512 << 10 // a tick/describe result
	MaxReadBytes     = 512 << 10 // a tick/read result (HOST.md decision)
	MaxUpdateBytes   = 512 << 10 // a tick/update's state
)

// classify parses one line. A *Violation means the session must end (H-V2, H-M5, H-U1).
func classify(line []byte) (message, error) {
	var m message
	if !utf8.Valid(line) {
		return m, violation("H-V2", "a line is not valid UTF-8")
	}
	trimmed := bytes.TrimSpace(line)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		if len(trimmed) > 0 && !json.Valid(trimmed) {
			return m, violation("H-V2", "a line is not valid JSON: %s", excerpt(line))
		}
		if len(trimmed) > 0 && trimmed[0] == '[' {
			return m, violation("H-V2", "a line is a batch (JSON array); the protocol has no batches: %s", excerpt(line))
		}
		return m, violation("H-M5", "a line is not a message (neither an integer id nor a method): %s", excerpt(line))
	}
	var env envelope
	if err := json.Unmarshal(trimmed, &env); err != nil {
		return m, violation("H-V2", "a line is not valid JSON (%v): %s", err, excerpt(line))
	}
	if string(env.JSONRPC) != `"2.0"` {
		if env.JSONRPC == nil {
			return m, violation("H-V2", `a message lacks "jsonrpc": "2.0": %s`, excerpt(line))
		}
		var s string
		if json.Unmarshal(env.JSONRPC, &s) != nil || s != tick.JSONRPCVersion {
			return m, violation("H-V2", `a message has "jsonrpc": %s, not "2.0"`, shortJSON(env.JSONRPC))
		}
	}
	hasID := false
	if env.ID != nil {
		if n, isInt, nonNeg := parseInteger(env.ID); isInt {
			hasID = true
			m.id, m.idOK = n, nonNeg
		}
	}
	hasMethod := false
	if env.Method != nil && json.Unmarshal(env.Method, &m.method) == nil {
		hasMethod = true
	}
	switch {
	case hasID && hasMethod:
		m.kind = msgTickRequest
		return m, nil
	case hasID:
		m.kind = msgResponse
		classifyResponse(&m, &env)
		return m, nil
	case hasMethod:
		if m.method != tick.MethodUpdate {
			m.kind = msgNotification
			return m, nil
		}
		m.kind = msgUpdate
		st, err := parseUpdate(env.Params)
		if err != nil {
			return m, err
		}
		m.update = st
		return m, nil
	}
	return m, violation("H-M5", "a line has neither an integer id nor a method: %s", excerpt(line))
}

func classifyResponse(m *message, env *envelope) {
	switch {
	case env.Result != nil && env.Error != nil:
		m.malformed = "the response has both result and error"
	case env.Result == nil && env.Error == nil:
		m.malformed = "the response has neither result nor error"
	case env.Result != nil:
		m.result = env.Result
	default:
		m.errObj = env.Error
		re, why := parseResponseError(env.Error)
		if why != "" {
			m.malformed = why
		}
		m.respErr = re
	}
}

func parseResponseError(raw json.RawMessage) (*tick.ResponseError, string) {
	var e struct {
		Code    json.RawMessage `json:"code"`
		Message *string         `json:"message"`
		Data    json.RawMessage `json:"data"`
	}
	if bytes.TrimSpace(raw)[0] != '{' || json.Unmarshal(raw, &e) != nil {
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
	if neg := bytes.HasPrefix(bytes.TrimSpace(e.Code), []byte("-")); neg {
		c = -int64(code)
	}
	return &tick.ResponseError{Code: c, Message: *e.Message, Data: e.Data}, ""
}

// parseUpdate checks a tick/update's params (H-U1). Any breach is a violation.
func parseUpdate(params json.RawMessage) (tick.State, error) {
	st, why := parseState(params, MaxUpdateBytes)
	if why != "" {
		return st, violation("H-U1", "a tick/update %s", why)
	}
	if string(st.Data) == "null" {
		return st, violation("H-U1", "a tick/update has data null")
	}
	return st, nil
}

// parseState checks a TickState (spec 6.2) and returns it with data in compact form. why says
// what is wrong, "" if nothing.
func parseState(raw json.RawMessage, limit int) (tick.State, string) {
	var st tick.State
	var buf bytes.Buffer
	if raw == nil {
		return st, "has no params"
	}
	if err := json.Compact(&buf, raw); err != nil {
		return st, "is not valid JSON"
	}
	if buf.Len() > limit {
		return st, "is " + strconv.Itoa(buf.Len()) + " bytes re-encoded, over the limit of " + strconv.Itoa(limit)
	}
	compact := buf.Bytes()
	if compact[0] != '{' {
		return st, "is not an object"
	}
	var fields struct {
		Seq  json.RawMessage `json:"seq"`
		Data json.RawMessage `json:"data"`
		At   json.RawMessage `json:"at"`
	}
	if err := json.Unmarshal(compact, &fields); err != nil {
		return st, "is not a valid state: " + err.Error()
	}
	if fields.Seq == nil {
		return st, "has no seq"
	}
	seq, isInt, nonNeg := parseInteger(fields.Seq)
	if !isInt || !nonNeg || seq > tick.MaxSafeInteger {
		return st, "has seq " + string(fields.Seq) + ", not an unsigned integer"
	}
	if fields.Data == nil {
		return st, "has no data"
	}
	st.Seq, st.Data = seq, fields.Data
	if fields.At != nil && string(fields.At) != "null" {
		var at string
		if json.Unmarshal(fields.At, &at) != nil {
			return st, "has at " + excerpt(fields.At) + ", not an RFC 3339 string"
		}
		if _, err := parseRFC3339(at); err != nil {
			return st, "has at " + strconv.Quote(at) + ", not an RFC 3339 time"
		}
		st.At = at
	}
	return st, ""
}

// parseRFC3339 accepts RFC 3339 date-times, including the lowercase t and z the RFC allows.
func parseRFC3339(s string) (time.Time, error) {
	b := []byte(s)
	for i, c := range b {
		if c == 't' || c == 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return time.Parse(time.RFC3339Nano, string(b))
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
		if v > tick.MaxSafeInteger {
			return 0, false, false
		}
		return v, true, !neg || v == 0
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != float64(int64(f)) || f > tick.MaxSafeInteger || f < -tick.MaxSafeInteger {
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
