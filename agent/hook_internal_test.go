package agent

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDescribeAgentCall: an edit's card shows the diff against the file on disk (a relative path
// is the agent's cwd's), a Write of a new file diffs against nothing, an edit that does not fit
// the file says so, and an MCP tool's name is split into server and tool.
func TestDescribeAgentCall(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f.go"), []byte("package f\n\nfunc A() int { return 1 }\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, tool, input         string
		file, diff, note, command string
		server, mcpTool           string
	}{
		{name: "edit", tool: "Edit", input: `{"file_path":"f.go","old_string":"return 1","new_string":"return 2"}`,
			file: "f.go", diff: "--- f.go\n+++ f.go\n@@ -1,3 +1,3 @@\n package f\n \n-func A() int { return 1 }\n+func A() int { return 2 }\n"},
		{name: "multiedit", tool: "MultiEdit", input: `{"file_path":"` + dir + `/f.go","edits":[{"old_string":"A()","new_string":"B()"},{"old_string":"package f\n","new_string":"package g\n"}]}`,
			file: dir + "/f.go", diff: "--- " + dir + "/f.go\n+++ " + dir + "/f.go\n@@ -1,3 +1,3 @@\n-package f\n+package g\n \n-func A() int { return 1 }\n+func B() int { return 1 }\n"},
		{name: "write new", tool: "Write", input: `{"file_path":"new.txt","content":"hi\n"}`,
			file: "new.txt", diff: "--- /dev/null (a new file)\n+++ new.txt\n@@ -0,0 +1 @@\n+hi\n"},
		{name: "stale edit", tool: "Edit", input: `{"file_path":"f.go","old_string":"nowhere","new_string":"x"}`,
			file: "f.go", note: "no diff: the text to replace is not in the file on disk"},
		{name: "bash", tool: "Bash", input: `{"command":"ls -la","description":"list"}`, command: "ls -la"},
		{name: "codex argv", tool: "Bash", input: `{"command":["bash","-lc","echo 'a b'"]}`, command: `bash -lc "echo 'a b'"`},
		{name: "mcp", tool: "mcp__tickmux__call_tick", input: `{"id":"hosted:1"}`, server: "tickmux", mcpTool: "call_tick"},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := describeAgentCall("Claude Code", HookInput{SessionID: "s", Cwd: dir, ToolName: c.tool, ToolInput: json.RawMessage(c.input)})
			if a.File != c.file || a.Diff != c.diff || !strings.HasPrefix(a.DiffNote, c.note) || (c.note == "" && a.DiffNote != "") ||
				a.Command != c.command || a.MCPServer != c.server || a.MCPTool != c.mcpTool {
				t.Errorf("got file %q command %q mcp %q/%q note %q diff\n%s\nwant file %q command %q mcp %q/%q note %q diff\n%s",
					a.File, a.Command, a.MCPServer, a.MCPTool, a.DiffNote, a.Diff, c.file, c.command, c.server, c.mcpTool, c.note, c.diff)
			}
			if string(a.Input) != c.input {
				t.Errorf("input %s, want it as sent", a.Input)
			}
		})
	}
}
