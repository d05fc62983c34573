// Package wire holds what both sides of Tick protocol 3 share: the JSON shapes on the wire (this
// file), the error codes (codes.go) and the input_schema compiler (schema.go). It draws nothing
// and imports no UI, so the host, check and the agent side use it without pulling in a terminal
// library; the SDK for writing Ticks in Go (package tick) builds on it.
//
// Section numbers in comments refer to the Tick protocol 3 draft; docs/protocol.md gives the
// protocol with those numbers and the host's rules.
package wire

import (
	"encoding/json"
	"strconv"
)

// ProtocolVersion is the only version of the Tick protocol this module speaks (spec 4.3).
const ProtocolVersion = 3

// JSONRPCVersion is the value of the "jsonrpc" member of every message (spec 3.2).
const JSONRPCVersion = "2.0"

// The methods reserved by the protocol (spec 3.2: names starting with "tick/" are reserved).
const (
	MethodDescribe = "tick/describe" // request, spec 5
	MethodRead     = "tick/read"     // request, spec 6
	MethodCall     = "tick/call"     // request, spec 7
	MethodUpdate   = "tick/update"   // notification from the Tick, spec 8
)

// EnvInstanceID is the environment variable that carries the instance id to a Tick (spec 4.1).
// It is for the Tick's logs only: never a credential, never part of a message.
const EnvInstanceID = "TICKLOOP_INSTANCE_ID"

// Request is a message from the host to the Tick (spec 3.2 RequestMessage).
type Request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      uint64          `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
}

// Response answers one Request (spec 3.2 ResponseMessage). Exactly one of Result and Error is set.
type Response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      uint64          `json:"id"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *ResponseError  `json:"error,omitempty"`
}

// ResponseError is the error member of a Response (spec 3.2 ResponseError, codes in 3.4).
type ResponseError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Error makes a ResponseError usable as a Go error.
func (e *ResponseError) Error() string {
	return e.Message + " (code " + strconv.FormatInt(e.Code, 10) + ")"
}

// Notification is a message without an id (spec 3.2 NotificationMessage). The only notification a
// Tick may send is tick/update; the host sends none.
type Notification struct {
	JSONRPC string          `json:"jsonrpc"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
}

// Descriptor is the result of tick/describe (spec 5.2 TickDescriptor).
type Descriptor struct {
	// Protocol is the protocol version the Tick implements; it must be ProtocolVersion.
	Protocol int `json:"protocol"`
	// Kind says what the program is, such as "example.counter" (spec 5.4). It is not an identity.
	Kind string `json:"kind"`
	// Title is a short name shown to people and models.
	Title string `json:"title"`
	// Description is one or two sentences on what the Tick shows and does.
	Description string `json:"description"`
	// Revision names this tool catalog; it changes whenever any tool changes (spec 5.5). Opaque.
	Revision string `json:"revision"`
	// Tools is the catalog.
	Tools []Tool `json:"tools"`
	// RecoverWith names a non-mutating tool that rebuilds what latest-only updates dropped (spec 9).
	RecoverWith string `json:"recover_with,omitempty"`
	// State declares things about the state's data (spec 5.2 StateDeclaration).
	State *StateDeclaration `json:"state,omitempty"`
}

// Tool returns the catalog entry with the given name, or nil.
func (d *Descriptor) Tool(name string) *Tool {
	for i := range d.Tools {
		if d.Tools[i].Name == name {
			return &d.Tools[i]
		}
	}
	return nil
}

// Tool is one entry of the catalog (spec 5.2 TickTool).
type Tool struct {
	// Name is unique within the catalog.
	Name string `json:"name"`
	// Description is written for a model deciding whether to call the tool.
	Description string `json:"description"`
	// InputSchema is the JSON Schema of args; its top level is a JSON object.
	InputSchema json.RawMessage `json:"input_schema"`
	// Mutates says whether a call can change anything outside its own result (spec 5.6).
	Mutates bool `json:"mutates"`
}

// StateDeclaration is what a Tick declares about its state's data (spec 5.2).
type StateDeclaration struct {
	// Series lists the arrays in data that are ordered in time.
	Series []Series `json:"series,omitempty"`
}

// Newest values of Series.Newest (spec 5.2 StateSeries).
const (
	NewestFirst = "first"
	NewestLast  = "last"
)

// Series is one array in the state's data ordered in time (spec 5.2 StateSeries).
type Series struct {
	// Path is a JSON Pointer (RFC 6901) into data; "" is data itself.
	Path string `json:"path"`
	// Newest is the end of the array holding its newest element: NewestFirst or NewestLast.
	Newest string `json:"newest"`
}

// State is the result of tick/read and the params of tick/update (spec 6.2 TickState, 8.1).
type State struct {
	// Seq grows with every update (spec 6.3).
	Seq uint64 `json:"seq"`
	// Data is the complete current state; JSON null means no content yet (never in an update).
	Data json.RawMessage `json:"data"`
	// At is when the state was observed, RFC 3339; optional.
	At string `json:"at,omitempty"`
}

// CallParams are the params of tick/call (spec 7.1).
type CallParams struct {
	// Tool is a name from the catalog.
	Tool string `json:"tool"`
	// Args match the tool's input_schema; {} when it takes none.
	Args json.RawMessage `json:"args"`
	// Revision is the catalog revision the call was prepared and approved against.
	Revision string `json:"revision"`
}

// MaxSafeInteger is the largest uinteger of the protocol, 2^53-1 (spec 2.2).
const MaxSafeInteger = 1<<53 - 1
