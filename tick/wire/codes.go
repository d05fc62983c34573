package wire

// Error codes a Tick answers with (spec 3.4; the table is HOST.md's decision for the lost one).
// A code marked "none" promises that the call had no effect.
const (
	CodeParseError     = -32700 // none: the request could not be parsed
	CodeInvalidRequest = -32600 // none: not a valid request
	CodeMethodNotFound = -32601 // none: no such method
	CodeInvalidParams  = -32602 // none: unknown tool, or args that do not fit input_schema
	CodeCatalogChanged = -32004 // none: the call's revision is not the current one
	CodeToolFailed     = -32000 // possible: the tool failed while running, maybe after a partial effect
)

// Effect is what a failed call may have done (HOST.md H-E1).
type Effect string

const (
	// EffectNone: nothing happened; the client may say so.
	EffectNone Effect = "none"
	// EffectPossible: the Tick ran the call, or may have; something may have changed.
	EffectPossible Effect = "possible"
	// EffectUnknown: the host cannot know (timeout, session ended, violation).
	EffectUnknown Effect = "unknown"
)

// EffectOfCode maps a Tick's error code to the effect of the failed call (H-E1).
func EffectOfCode(code int64) Effect {
	switch code {
	case CodeParseError, CodeInvalidRequest, CodeMethodNotFound, CodeInvalidParams, CodeCatalogChanged:
		return EffectNone
	}
	return EffectPossible
}
