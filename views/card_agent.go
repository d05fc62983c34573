package views

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/gdamore/tcell/v2"

	"tickmux/host"
)

// agentCardBody is the part of an agent's card (host.ActionAgent) that says what its tool will
// do: the session and working directory, a shell command, an edit's file and diff against the
// file on disk, an MCP tool's server and tool, and every other part of the tool's input. Nothing
// is cut and every character is visible, as on every card.
func (p *SidePanel) agentCardBody(a *host.AgentCall, text func(string, tcell.Style), exact func(line)) {
	th := p.theme
	mark := th.Card.Reverse(true)
	field := func(label, value string, st tcell.Style) {
		for j, vl := range visibleLines(value, st, mark) {
			lead := label
			if j > 0 {
				lead = strings.Repeat(" ", len(label))
			}
			exact(append(line{{lead, th.Card}}, vl...))
		}
	}
	if a.Session != "" {
		field("session ", a.Session, th.Card)
	}
	if a.Cwd != "" {
		field("cwd ", a.Cwd, th.Card)
	}
	shown := map[string]bool{}
	if a.MCPServer != "" || a.MCPTool != "" {
		field("MCP server ", a.MCPServer, th.Card.Bold(true))
		field("MCP tool ", a.MCPTool, th.Card.Bold(true))
	}
	if a.Command != "" {
		shown["command"] = true
		lines := strings.Count(a.Command, "\n") + 1
		body := fmt.Sprintf("command (%s, %d line", sizeNote(len(a.Command)), lines)
		if lines > 1 {
			body += "s"
		}
		exact(plain(body+"):", th.Card))
		for _, vl := range visibleLines(a.Command, th.Card.Bold(true), mark) {
			exact(append(line{{"  ", th.Card}}, vl...))
		}
	}
	if a.Description != "" {
		shown["description"] = true
		text("the agent says: "+host.Printable(capText(a.Description, maxTickField), false), th.Card.Italic(true))
	}
	if a.File != "" {
		shown["file_path"] = true
		field("file ", a.File, th.Card.Bold(true))
	}
	if a.Diff != "" {
		// The diff stands for the edit's texts: they are not repeated below.
		for _, k := range []string{"old_string", "new_string", "content", "edits"} {
			shown[k] = true
		}
		rows := strings.Split(strings.TrimSuffix(a.Diff, "\n"), "\n")
		exact(plain(fmt.Sprintf("diff against the file on disk (%d lines):", len(rows)), th.Card))
		for _, row := range rows {
			st := th.Card
			switch {
			case strings.HasPrefix(row, "+"):
				st = withForeground(th.Card, th.OK)
			case strings.HasPrefix(row, "-"):
				st = withForeground(th.Card, th.Error)
			case strings.HasPrefix(row, "@@"):
				st = th.Card.Dim(true)
			}
			// The diff's own mark (' ', '-', '+') is drawn as it is; the line after it with every
			// character visible.
			lead, rest := "  ", row
			if len(row) > 0 && (row[0] == ' ' || row[0] == '-' || row[0] == '+') && !strings.HasPrefix(row, "---") && !strings.HasPrefix(row, "+++") {
				lead, rest = "  "+row[:1], row[1:]
			}
			for j, vl := range visibleLines(rest, st, mark) {
				if j > 0 {
					lead = "   "
				}
				exact(append(line{{lead, st}}, vl...))
			}
		}
	}
	if a.DiffNote != "" {
		text(host.Printable(capText(a.DiffNote, maxTickField), false), th.StatusStarting)
	}
	rest, n := restOfInput(a.Input, shown)
	if n == 0 {
		return
	}
	label := "input"
	if len(shown) > 0 {
		label = "the rest of the input"
	}
	exact(plain(fmt.Sprintf("%s (%s):", label, sizeNote(len(rest))), th.Card))
	for _, l := range prettyJSONVisible(rest, th, mark) {
		exact(append(line{{"  ", th.Card}}, l...))
	}
}

// restOfInput is the input without the keys shown above, and how many keys are left; an input
// that is not an object is all rest.
func restOfInput(input json.RawMessage, shown map[string]bool) ([]byte, int) {
	var m map[string]json.RawMessage
	if json.Unmarshal(input, &m) != nil {
		return compactJSON(input), 1
	}
	for k := range shown {
		delete(m, k)
	}
	if len(m) == 0 {
		return nil, 0
	}
	b, err := json.Marshal(m)
	if err != nil {
		return compactJSON(input), 1
	}
	return compactJSON(b), len(m)
}

// withForeground is st with the foreground colour of fg.
func withForeground(st, fg tcell.Style) tcell.Style {
	c, _, _ := fg.Decompose()
	return st.Foreground(c)
}
