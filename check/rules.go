package check

import (
	"regexp"
	"strings"
	"sync"

	"tickmux/host"
)

// Rule is one finding check can report: its id, its severity, what check judges, and the
// sentence of the draft it rests on (section and a short quote in English).
type Rule struct{ ID, Severity, Rule, Draft string }

// Rules lists every finding check can report: the C-… ids, what the spec asks of Ticks that
// HOST.md, written for the host, does not name, and the H-… ids of the host's own rules that end
// a session or fail a request (HOST.md). The README's table is this list, row for row
// (TestReadmeTableIsRules).
var Rules = []Rule{
	{"C-M1", SevFailure, "every request is answered exactly once, with its own id", "3.2: “the Tick MUST answer each request exactly once, with the request's id”"},
	{"C-M2", SevWarning, "an unknown method is answered with -32601", "JSON-RPC 2.0 (-32601 method not found); 3.2: “every message follows JSON-RPC 2.0”"},
	{"C-M3", SevWarning, "unknown params in a request are ignored", "4.3: “the Tick SHOULD ignore fields of request params it does not know”"},
	{"C-M4", SevFailure, "an error response's error is an object with an integer code and a string message (the host fails the request; filed by the host under H-M6)", "3.2: “interface ResponseError { code: integer; message: string; data?: JSONValue }”, every message following JSON-RPC 2.0"},
	{"C-D1", SevNote, "the descriptor has a description of one or two sentences", "5.2 (the descriptor's shape, informative): “description: one or two sentences on what the Tick shows and does”"},
	{"C-D2", SevNote, "every tool has a description, written for a model deciding whether to call it", "5.2 (the tool's shape, informative): “what the tool does, written for a model deciding whether to call it”"},
	{"C-D3", SevFailure, "the catalog's revision changes whenever any tool's name, description, input_schema or mutates changes; tools are compared as a set and schemas as JSON values", "5.5: “when any tool's name, description, input schema or mutates changes, the Tick MUST use a new revision”"},
	{"C-D4", SevWarning, "kind is lowercase names separated by dots, the first naming the publisher", "5.4: “kind SHOULD be dot-separated lowercase names, the first naming the publisher”"},
	{"C-K1", SevFailure, "a call with a revision that is not current is refused with -32004 and not run", "7.2: “when revision differs from the current catalog, the Tick MUST reply -32004 and not execute”"},
	{"C-K2", SevFailure, "a call of an unknown tool is refused with -32602; probes follow a catalog that moves on (describe again on -32004)", "7.2: “an unknown tool, or args that do not fit, MUST get -32602 without executing”"},
	{"C-K3", SevFailure + " / " + SevWarning, "a query's args that break what its input_schema declares required or typed are refused with -32602 and not run (failure); args whose only fault is a member the schema forbids as additional should be refused too (warning: Appendix B, which meets every MUST, checks only the members it uses)", "7.2: “args that do not fit MUST get -32602 without executing … the Tick SHOULD check them itself, not rely on the host”"},
	{"C-K4", SevFailure, "the revision is checked before the tool: a stale revision with an unknown tool gets -32004", "7.2: the steps in order, “1. revision differs: -32004; 2. tool does not exist: -32602”"},
	{"C-K5", SevWarning, "a probe's call is answered within the host's 60 s timeout; one answered later (with --call-timeout above 60 s) is reported with its time. Quicker answers are never findings", "7.3: “the tick/call timeout is 60 seconds … operations that may run longer than 60 s SHOULD return at once and continue in the background”"},
	{"C-K6", SevFailure, "a tool declared mutates: false changes nothing: every query whose input_schema lets check build args is called on a quiet Tick, and after it no update comes, seq stays, and no file in the Tick's working directory is created, removed or changed (names, sizes, times; files a read alone changes are not counted)", "5.6: “a tool whose call may change anything beyond its result MUST be declared mutates: true … declaring a mutating tool false bypasses the user's approval”"},
	{"C-R1", SevFailure, "tick/describe and tick/read have no side effects: across several, seq stays, no update is sent, and describe does not hand out a new revision each time (which voids every call prepared before)", "4.4: “these two methods MUST have no side effects”"},
	{"C-R2", SevWarning, "tick/describe and tick/read answer within milliseconds (over 200 ms is reported), timed from the request going out to the first bytes of the answer reaching the host's line reader, before anything is parsed or validated", "4.4: “and SHOULD answer within a few milliseconds”"},
	{"C-R3", SevWarning, "tick/describe and tick/read answer while a call is running, without waiting for it", "3.3: “tick/describe and tick/read SHOULD be answered at once, not waiting for tool calls in progress”"},
	{"C-S1", SevNote, "a state is a summary of about 4 KiB or less; bulk goes behind query tools (reported above 16 KiB)", "6.4: “the following is illustrative advice: a typical state should be about 4 KiB or less”"},
	{"C-S2", SevFailure, "the instance id (TICKLOOP_INSTANCE_ID) appears in no protocol message: results, states, updates, error messages and error data", "4.1: “TICKLOOP_INSTANCE_ID is only for the Tick's logs … it appears in no protocol message”"},
	{"C-S3", SevWarning, "the state holds no credentials: no member named token, password, secret, api_key (or access_token, client_secret, private_key, …) holding a non-empty string", "10: “the Tick SHOULD NOT put credentials, tokens or sensitive personal data in its state”"},
	{"C-S4", SevWarning, "an update, read, describe or call result leaves room under its limit (512 KiB; 8 MiB for call results) for numbers another host re-encodes longer: with each number that has a fraction or an exponent spelled as Python or JavaScript would (1e15 as 1000000000000000.0), it still fits", "3.5: “numbers written differently may re-encode longer (1e15 encodes as 1000000000000000.0); the Tick SHOULD leave room for this”"},
	{"C-S5", SevFailure, "a read result's seq is an unsigned integer, 0 to 2^53-1 (the host fails the read; filed by the host under H-RD1)", "6.2: “seq: uinteger”, with 2.2: “uinteger is an integer from 0 to 2^53-1”"},
	{"C-U2", SevWarning, "updates come no faster than the UI needs (more than 60 a second while idle)", "8.3: “updates SHOULD come no more often than the UI needs to refresh”"},
	{"C-U3", SevWarning, "an update carries a change: updates whose data repeats the update before are counted (a warning: check cannot tell a redraw from news that leaves the state equal)", "8.3: “an update stands for a business change … cursor movement, scrolling, redraws MUST NOT send updates”"},
	{"C-L1", SevWarning, "nothing is logged to stderr, coloured or not; drawing there (cursor movement, clearing, the alternate screen) is the Tick's UI, not logging", "3.1: “what is written to stderr shows in the view; the Tick SHOULD NOT write diagnostic logs to stderr”"},
	{"C-X1", SevWarning, "the Tick exits soon after EOF on stdin", "4.5: “on EOF on stdin the Tick SHOULD exit once the calls in flight are done”"},
	{"C-X2", SevNote, "the Tick exits soon after SIGTERM", "4.5 (what the host does, no MUST or SHOULD for the Tick): “the host sends SIGTERM, then may send SIGKILL without grace”"},
	{"C-X3", SevWarning, "the Tick can be started again (a warning: a second start that fails suggests, without proving, that the first run relied on cleanup)", "4.5: “the Tick MUST NOT rely on cleanup before exit to keep important data”"},
	{"C-X4", SevWarning, "at EOF on stdin the Tick answers the calls in flight before it exits", "4.5: “on EOF on stdin the Tick SHOULD exit once the calls in flight are done”"},
	{"C-X5", SevFailure, "the Tick runs until its stdin closes or it is signalled: one that ends before check has probed it is not ok, and the skipped probes are listed", "4.5: “when the Tick exits on its own, the session ends”, with 4.4: “the host may send describe and read at any time”"},
	{"H-I1", SevFailure, "initialization (describe, then read, within 10 s) failed; the precise rule is a finding beside it", "4.2: “any step that fails, times out or gives a non-conforming result fails initialization”"},
	{"H-I2", SevFailure, "protocol is not the number 3", "4.3: “the host accepts only the version it implements”"},
	{"H-D1", SevFailure, "the descriptor breaks a validation rule (HOST.md H-D1)", "5.3: “the host MUST reject results that do not meet these conditions”"},
	{"H-RD1", SevFailure, "a read result's seq is below the read floor", "6.3: “the seq of a tick/read result MUST NOT be less than the read floor”"},
	{"H-RD3", SevFailure, "a read result's at is not an RFC 3339 date-time", "6.2: “if at is present, it MUST be a valid RFC 3339 time”"},
	{"H-M3", SevWarning, "the Tick sent notifications other than tick/update", "3.2: “the only notification a Tick sends the host is tick/update”"},
	{"H-M5", SevViolation, "a line with neither an integer id nor a method", "3.6: “a line with neither an integer id nor method … is a violation”"},
	{"H-M6", SevFailure, "a response with both or neither of result and error", "3.2: “a response MUST hold exactly one of result and error”"},
	{"H-M7", SevFailure, "the Tick sent requests to the host", "3.2: “requests go only from the host to the Tick; the Tick MUST NOT send requests”"},
	{"H-U1", SevViolation, "a tick/update breaks 8.2 (data null, seq not increasing, bad at, over 512 KiB)", "8.2: “every tick/update MUST meet these conditions, or the host ends the session as a violation”"},
	{"H-V2", SevViolation, "a line that is not JSON or not JSON-RPC 2.0, non-protocol output on stdout, output ending without a newline, a line over 8 MiB", "3.1: “the Tick MUST NOT write anything but protocol messages to stdout … output that ends without a newline is a violation”"},
	{"H-V3", SevFailure, "a result larger than 8 MiB re-encoded", "3.6: “a result over 8 MiB encoded fails only that request”"},
}

// kindPattern is what a descriptor's kind must look like; compiled at its first use, not in
// every tickmux process's start.
var kindPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*(\.[a-z0-9][a-z0-9_-]*)+$`) })

// lintDescriptor records the SHOULDs of spec 5 a valid descriptor may still miss.
func lintDescriptor(r *Report, cat *host.Catalog) {
	d := cat.Descriptor
	if strings.TrimSpace(d.Description) == "" {
		r.find("C-D1", SevNote, "the descriptor has no description; say in a sentence or two what the Tick shows and does")
	}
	if !kindPattern().MatchString(d.Kind) {
		r.find("C-D4", SevWarning, "kind %q is not dotted lowercase names such as \"acme.orderbook\"", host.Printable(d.Kind, false))
	}
	for _, t := range d.Tools {
		if strings.TrimSpace(t.Description) == "" {
			r.find("C-D2", SevNote, "tool %q has no description; a model cannot judge when to call it", host.Printable(t.Name, false))
		}
	}
}

// typicalStateBytes is the size spec 6.4 calls typical for a state.
const typicalStateBytes = 4 << 10

// lintState records a state that outgrows a summary.
func lintState(r *Report, st host.StateInfo) {
	if st.Valid && len(st.Data) > typicalStateBytes*4 {
		r.find("C-S1", SevNote, "the state is %d bytes; the draft's illustrative advice is a summary of about 4 KiB, with bulk behind query tools (deliveries are trimmed to 4-16 KiB)", len(st.Data))
	}
}
