package check

import (
	"regexp"
	"strings"
	"sync"

	"tickmux/host"
)

// Rules lists the C-… ids: what the spec asks of Ticks that HOST.md, written for the host, does
// not name. The README lists them too.
var Rules = []struct{ ID, Severity, Rule string }{
	{"C-M1", SevFailure, "every request is answered exactly once, with its own id (spec 3.2)"},
	{"C-M2", SevWarning, "an unknown method is answered with -32601 (JSON-RPC 2.0)"},
	{"C-M3", SevWarning, "unknown params in a request are ignored (spec 4.3)"},
	{"C-D1", SevWarning, "the descriptor has a description of one or two sentences (spec 5.2)"},
	{"C-D2", SevWarning, "every tool has a description, written for a model deciding whether to call it (spec 5.2)"},
	{"C-D3", SevFailure, "the catalog's revision changes whenever any tool's name, description, input_schema or mutates changes; tools are compared as a set and schemas as JSON values (spec 5.5)"},
	{"C-D4", SevWarning, "kind is lowercase names separated by dots, the first naming the publisher (spec 5.4)"},
	{"C-K1", SevFailure, "a call with a revision that is not current is refused with -32004 and not run (spec 7.2)"},
	{"C-K2", SevFailure, "a call of an unknown tool is refused with -32602 (spec 7.2)"},
	{"C-K3", SevFailure, "a call whose args do not fit input_schema is refused with -32602 and not run; the Tick checks for itself (spec 7.2)"},
	{"C-K4", SevFailure, "the revision is checked before the tool: a stale revision with an unknown tool gets -32004 (spec 7.2)"},
	{"C-K5", SevWarning, "a call that needs no work (a refusal, a query without args) is answered within 1 s; a slower answer is reported with its time, never as missing (spec 7.3)"},
	{"C-R1", SevFailure, "tick/describe and tick/read have no side effects: across several, seq and state stay and no update is sent (spec 4.4)"},
	{"C-R2", SevWarning, "tick/describe and tick/read answer within milliseconds (spec 4.4)"},
	{"C-R3", SevWarning, "tick/describe and tick/read answer while a call is running, without waiting for it (spec 3.3)"},
	{"C-S1", SevWarning, "a state is a summary of about 4 KiB or less; bulk goes behind query tools (spec 6.4)"},
	{"C-S2", SevFailure, "the instance id (TICKLOOP_INSTANCE_ID) appears in no protocol message (spec 4.1)"},
	{"C-U2", SevWarning, "updates come no faster than the UI needs (spec 8.3)"},
	{"C-L1", SevWarning, "nothing is logged to stderr, which shows in the view (spec 3.1)"},
	{"C-X1", SevWarning, "the Tick exits soon after EOF on stdin (spec 4.5)"},
	{"C-X2", SevWarning, "the Tick exits soon after SIGTERM (spec 4.5)"},
	{"C-X3", SevWarning, "the Tick can be started again (spec 4.5: nothing depends on cleanup)"},
	{"C-X4", SevWarning, "at EOF on stdin the Tick answers the calls in flight before it exits (spec 4.5)"},
	{"C-X5", SevFailure, "the Tick runs until its stdin closes or it is signalled: one that ends before check has probed it is not ok, and the skipped probes are listed (spec 4.5)"},
}

// kindPattern is what a descriptor's kind must look like; compiled at its first use, not in
// every tickmux process's start.
var kindPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*(\.[a-z0-9][a-z0-9_-]*)+$`) })

// lintDescriptor records the SHOULDs of spec 5 a valid descriptor may still miss.
func lintDescriptor(r *Report, cat *host.Catalog) {
	d := cat.Descriptor
	if strings.TrimSpace(d.Description) == "" {
		r.find("C-D1", SevWarning, "the descriptor has no description; say in a sentence or two what the Tick shows and does")
	}
	if !kindPattern().MatchString(d.Kind) {
		r.find("C-D4", SevWarning, "kind %q is not dotted lowercase names such as \"acme.orderbook\"", host.Printable(d.Kind, false))
	}
	for _, t := range d.Tools {
		if strings.TrimSpace(t.Description) == "" {
			r.find("C-D2", SevWarning, "tool %q has no description; a model cannot judge when to call it", host.Printable(t.Name, false))
		}
	}
}

// typicalStateBytes is the size spec 6.4 calls typical for a state.
const typicalStateBytes = 4 << 10

// lintState records a state that outgrows a summary.
func lintState(r *Report, st host.StateInfo) {
	if st.Valid && len(st.Data) > typicalStateBytes*4 {
		r.find("C-S1", SevWarning, "the state is %d bytes; states should be summaries of about 4 KiB, with bulk behind query tools (deliveries are trimmed to 4-16 KiB)", len(st.Data))
	}
}
