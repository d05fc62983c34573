// Package flagusage prints a command's flags as tickmux's usage shows them: with two dashes, the
// value's name only for flags that take a value (a boolean shows none), then what it does and
// its default. The standard library's PrintDefaults shows one dash, and takes any `quoted` word
// of the description for the value's name, so a boolean's description could not quote a command.
package flagusage

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

// Print writes fs's flags, in name order, to w. A flag that takes a value shows its name as
// flag.UnquoteUsage finds it (a `quoted` word of the description, else the value's type), in
// capitals; a boolean shows none, and its description is printed as written.
func Print(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		value, text := "", f.Usage
		if !isBool(f) {
			var name string
			name, text = flag.UnquoteUsage(f)
			if strings.ToLower(name) == name {
				name = strings.ToUpper(name) // a type's name ("string"), not one the description gave
			}
			value = " " + name
		}
		fmt.Fprintf(w, "  --%s%s\n", f.Name, value)
		if d := f.DefValue; d != "" && d != "false" && d != "0" && d != "0s" && d != "[]" {
			text += " (default " + d + ")"
		}
		fmt.Fprintf(w, "        %s\n", strings.ReplaceAll(text, "\n", "\n        "))
	})
}

// isBool reports whether f is set by its name alone (--flag), as flag parses it.
func isBool(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}
