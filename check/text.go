package check

import (
	"fmt"
	"io"
	"strings"

	"tickmux/host"
)

// WriteText prints the report for a person. Everything the Tick said is escaped (H-SEC2).
func WriteText(w io.Writer, argv []string, r *Report) {
	fmt.Fprintf(w, "tickmux check: %s\n", host.Printable(strings.Join(argv, " "), false))
	for _, s := range r.Steps {
		mark := "ok  "
		if !s.OK {
			mark = "FAIL"
		}
		fmt.Fprintf(w, "  %s %s: %s\n", mark, s.Name, host.Printable(host.Cap(s.Detail, 2000), false))
	}
	if len(r.Findings) > 0 {
		fmt.Fprintln(w)
	}
	for _, f := range r.Findings {
		fmt.Fprintf(w, "  %-9s %-5s %s\n", f.Severity, f.Rule, host.Printable(host.Cap(f.Message, 2000), false))
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
