package journal

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The human form of the journal (tickmux log, the side panel). It returns raw text: every string
// in it may be a Tick's or an agent's, so the caller escapes it where it draws it.

// maxValue caps one value shown in a change line, maxArgs the args on an entry's line.
const (
	maxValue = 60
	maxArgs  = 120
)

// Summary is one line for e: when, the card, what was asked of what, the decision, the outcome,
// and who asked.
func Summary(e Entry) string {
	var b strings.Builder
	b.WriteString(e.Time.Local().Format("2006-01-02 15:04:05"))
	if e.Card != nil {
		fmt.Fprintf(&b, "  card %d", *e.Card)
	} else {
		b.WriteString("  no card")
	}
	b.WriteString("  " + e.Kind)
	switch e.Kind {
	case "call":
		fmt.Fprintf(&b, " %s %s %s", e.Instance, e.Tool, capRunes(string(e.Args), maxArgs))
	case "open":
		fmt.Fprintf(&b, " %s", capRunes(strconv.Quote(strings.Join(e.Argv, " ")), maxArgs))
	case "send":
		fmt.Fprintf(&b, " %s %s", e.Instance, capRunes(strconv.Quote(e.Text), maxArgs))
	case "agent": // an agent's own tool call (its permission hook): the pane, the tool, what it runs
		where := e.Instance
		if where == "" {
			where = "outside tickmux" // the agent runs in no pane of this tickmux
		}
		for _, s := range []string{where, capRunes(e.Tool, maxValue), agentSubject(e.Args)} {
			if s != "" {
				b.WriteString(" " + s)
			}
		}
	default:
		fmt.Fprintf(&b, " %s", e.Instance)
	}
	b.WriteString("  " + DecisionText(e))
	if e.Outcome != nil {
		b.WriteString("  " + e.Outcome.Status)
		if e.Outcome.Status != StatusOK && e.Outcome.Effect != "" {
			b.WriteString(" (effect " + e.Outcome.Effect + ")")
		}
	} else if e.Decision == Waiting {
		b.WriteString(" (no outcome recorded)")
	}
	who := e.Client.Name
	if e.Client.PID != 0 {
		who += " pid " + strconv.Itoa(e.Client.PID)
	}
	if e.Client.Pane != "" {
		who += " in " + e.Client.Pane
	}
	b.WriteString("  by " + capRunes(who, 80))
	return b.String()
}

// agentSubject is what an agent's tool call acts on, on one line and cut at maxArgs: its command
// (a string, or an argv as Codex sends it) or the file it writes, quoted; else its input as JSON.
func agentSubject(args json.RawMessage) string {
	var in struct {
		Command      json.RawMessage `json:"command"`
		FilePath     string          `json:"file_path"`
		NotebookPath string          `json:"notebook_path"`
	}
	_ = json.Unmarshal(args, &in) // an input that is no object shows as it is
	var argv []string
	switch {
	case json.Unmarshal(in.Command, &argv) == nil && len(argv) > 0:
		for i, a := range argv {
			if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`;&|<>()*?[]{}~#") {
				argv[i] = strconv.Quote(a)
			}
		}
		return capRunes(strconv.Quote(strings.Join(argv, " ")), maxArgs)
	case len(in.Command) > 0:
		var cmd string
		if json.Unmarshal(in.Command, &cmd) == nil {
			return capRunes(strconv.Quote(cmd), maxArgs)
		}
	case in.FilePath != "":
		return capRunes(strconv.Quote(in.FilePath), maxArgs)
	case in.NotebookPath != "":
		return capRunes(strconv.Quote(in.NotebookPath), maxArgs)
	}
	var c bytes.Buffer
	if json.Compact(&c, args) != nil || c.String() == "{}" {
		return ""
	}
	return capRunes(c.String(), maxArgs)
}

// DecisionText says the decision with the view that answered, the granting card and the wait.
func DecisionText(e Entry) string {
	s := e.Decision
	switch e.Decision {
	case Once:
		s = "allowed once"
	case Revision:
		s = "allowed for revision " + strconv.Quote(e.Revision)
		if e.Kind == "agent" { // r on an agent's card: this exact input, until its session ends
			s = "allowed this input for the session"
		}
	case Voided:
		if e.Outcome != nil && e.Outcome.Message != "" {
			s = "voided: " + capRunes(e.Outcome.Message, maxValue) // why: the catalog changed, the server ended
		}
	case Granted:
		s = "granted"
		if e.GrantedBy != nil {
			s += " by card " + strconv.FormatUint(*e.GrantedBy, 10)
		}
	}
	var extra []string
	if e.View != nil {
		extra = append(extra, *e.View)
	}
	if e.Card != nil && e.Decision != Waiting {
		extra = append(extra, (time.Duration(e.WaitedMS) * time.Millisecond).String())
	}
	if len(extra) > 0 {
		s += " (" + strings.Join(extra, ", ") + ")"
	}
	return s
}

// ChangeLines renders e's change, at most max lines (0: no bound): "/value: 0 → 5" for a
// replace, "/recent: +1 item" for adds to one array, "/note: removed" and so on.
func ChangeLines(e Entry, max int) []string {
	var out []string
	switch {
	case e.ChangeOmitted > 0:
		out = append(out, fmt.Sprintf("(change of %d bytes not kept)", e.ChangeOmitted))
	case e.Change == nil:
		return nil
	case len(e.Change) == 0:
		out = append(out, "(no change to the state)")
	}
	p := e.Change
	for i := 0; i < len(p); {
		op := p[i]
		parent, idx := split(op.Path)
		if _, err := strconv.Atoi(idx); err == nil && op.Op != "replace" {
			// A run of adds (or removes) at indices of one array reads as a count.
			j := i + 1
			for j < len(p) && p[j].Op == op.Op {
				pp, pi := split(p[j].Path)
				if _, err := strconv.Atoi(pi); err != nil || pp != parent {
					break
				}
				j++
			}
			sign := "+"
			if op.Op == "remove" {
				sign = "-"
			}
			n := j - i
			if n == 1 {
				v := op.Value
				if op.Op == "remove" {
					v = op.Old
				}
				out = append(out, fmt.Sprintf("%s: %s1 item %s", showPath(parent), sign, capRunes(string(v), maxValue)))
			} else {
				out = append(out, fmt.Sprintf("%s: %s%d items", showPath(parent), sign, n))
			}
			i = j
			continue
		}
		switch op.Op {
		case "replace":
			out = append(out, fmt.Sprintf("%s: %s → %s", showPath(op.Path), capRunes(string(op.Old), maxValue), capRunes(string(op.Value), maxValue)))
		case "add":
			out = append(out, fmt.Sprintf("%s: added %s", showPath(op.Path), capRunes(string(op.Value), maxValue)))
		case "remove":
			out = append(out, fmt.Sprintf("%s: removed (was %s)", showPath(op.Path), capRunes(string(op.Old), maxValue)))
		}
		i++
	}
	if max > 0 && len(out) > max {
		n := len(out) - (max - 1)
		out = append(out[:max-1], fmt.Sprintf("… %d more", n))
	}
	if e.Merged > 0 {
		s := "s"
		if e.Merged == 1 {
			s = ""
		}
		out = append(out, fmt.Sprintf("(merged: %d other update%s arrived while the call ran; the change includes them)", e.Merged, s))
	}
	return out
}

func split(path string) (parent, last string) {
	i := strings.LastIndexByte(path, '/')
	if i < 0 {
		return "", path
	}
	return path[:i], path[i+1:]
}

func showPath(p string) string {
	if p == "" {
		return "/"
	}
	return p
}

func capRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
