package check

import (
	"fmt"
	"io"
	"strings"

	"tickmux/host"
)

// WriteText prints the report for a person: WriteHead, each step (WriteStep), then WriteTail.
// Everything the Tick said is escaped (H-SEC2).
func WriteText(w io.Writer, argv []string, r *Report) {
	WriteHead(w, argv)
	for _, s := range r.Steps {
		WriteStep(w, s)
	}
	WriteTail(w, r)
}

// WriteHead is the report's first line, printed before the Tick starts.
func WriteHead(w io.Writer, argv []string) {
	fmt.Fprintf(w, "tickmux check: %s\n", host.Printable(strings.Join(argv, " "), false))
}

// WriteStep is one step's line, printed as the step is done (Options.Progress): its mark (ok,
// WARN or FAIL: Step.Mark), its name and what check saw.
func WriteStep(w io.Writer, s Step) {
	fmt.Fprintf(w, "  %-4s %s: %s\n", s.Mark(), s.Name, host.Printable(host.Cap(s.Detail, 2000), false))
}

// WriteTail is what follows the steps: each finding with its rule's id and, below it, the
// sentence of the draft the rule rests on (Rules); how the Tick ended; and the verdict with the
// count of each severity.
func WriteTail(w io.Writer, r *Report) {
	if len(r.Findings) > 0 {
		fmt.Fprintln(w)
	}
	for _, f := range r.Findings {
		fmt.Fprintf(w, "  %-9s %-5s %s\n", f.Severity, f.Rule, host.Printable(host.Cap(f.Message, 2000), false))
		if draft := DraftOf(f.Rule); draft != "" {
			fmt.Fprintf(w, "  %-9s %-5s the draft, %s\n", "", "", draft)
		}
	}
	if r.Ended != nil {
		fmt.Fprintf(w, "\n  ended: %s\n", host.Printable(r.Ended.Reason, false))
		if !r.OK && r.Ended.Screen != "" {
			fmt.Fprintln(w, "  its screen began:")
			for _, line := range strings.Split(host.Printable(r.Ended.Screen, true), "\n") {
				fmt.Fprintf(w, "    | %s\n", line)
			}
		}
	}
	v, f, warn, notes := r.Counts()
	verdict := "PASS"
	if !r.OK {
		verdict = "FAIL"
	}
	fmt.Fprintf(w, "\n%s: %d violations, %d failures, %d warnings, %d notes\n", verdict, v, f, warn, notes)
}

// DraftOf is the sentence of the draft rule id rests on, as Rules gives it (section, then the
// quote), or "" for an id Rules does not list.
func DraftOf(id string) string {
	for _, r := range Rules {
		if r.ID == id {
			return r.Draft
		}
	}
	return ""
}
