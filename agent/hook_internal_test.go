package agent

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
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

// TestEditedFileNotRegular: an edit whose file_path is a FIFO, a socket, a device or a directory
// gets a card that says what it is, with no diff, and nothing waits: an open(2) of a FIFO used to
// block for good (issue 38). The FIFO is opened by readRegular too, as it would be when the path
// became a FIFO after the first look: O_NONBLOCK returns at once and the fstat names it.
func TestEditedFileNotRegular(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	for _, c := range []struct{ path, want string }{
		{fifo, "no diff: not a regular file: a FIFO"},
		{sock, "no diff: not a regular file: a socket"},
		{"/dev/null", "no diff: not a regular file: a character device"},
		{dir, "no diff: not a regular file: a directory"},
	} {
		for _, tool := range []string{`"Write","content":"x\n"`, `"Edit","old_string":"a","new_string":"b"`} {
			name, rest, _ := strings.Cut(tool, ",")
			a := describeAgentCall("Claude Code", HookInput{SessionID: "s", Cwd: dir, ToolName: strings.Trim(name, `"`),
				ToolInput: json.RawMessage(`{"file_path":"` + c.path + `",` + rest + `}`)})
			if a.DiffNote != c.want || a.Diff != "" {
				t.Errorf("%s of %s: note %q diff %q, want note %q", name, c.path, a.DiffNote, a.Diff, c.want)
			}
		}
	}
	if _, err := readRegular(fifo); err == nil || err.Error() != "not a regular file: a FIFO" {
		t.Errorf("readRegular(a FIFO) = %v, want it named", err)
	}
}

// TestEditedFileBounds: a file over maxEditedFile is not read (the card gives its size); an edit
// too different for a line diff shows "replaced: N lines → M lines" and the whole new text.
func TestEditedFileBounds(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, 5<<20+1<<19); err != nil { // sparse: nothing written
		t.Fatal(err)
	}
	a := describeAgentCall("Claude Code", HookInput{Cwd: dir, ToolName: "Write", ToolInput: json.RawMessage(`{"file_path":"big","content":"x"}`)})
	if want := "no diff: the file on disk is too large to diff (5.5 MiB; the bound is 4 MiB)"; a.DiffNote != want || a.Diff != "" {
		t.Errorf("a file of 5.5 MiB: note %q diff %q, want %q", a.DiffNote, a.Diff, want)
	}
	var old, new strings.Builder
	for i := range 4000 {
		fmt.Fprintf(&old, "old %d\n", i)
		fmt.Fprintf(&new, "new %d\n", i)
	}
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte(old.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	content, _ := json.Marshal(new.String())
	a = describeAgentCall("Claude Code", HookInput{Cwd: dir, ToolName: "Write", ToolInput: json.RawMessage(`{"file_path":"f","content":` + string(content) + `}`)})
	want := "--- f\n+++ f\n@@ replaced: 4000 lines → 4000 lines (too different for a line diff; the new text follows whole) @@\n+new 0\n"
	if a.DiffNote != "" || !strings.HasPrefix(a.Diff, want) || !strings.HasSuffix(a.Diff, "\n+new 3999\n") {
		t.Errorf("4000 lines over 4000 others: note %q, diff %.200q", a.DiffNote, a.Diff)
	}
}

// TestHookWaitBounds: permission requests waiting at once are bounded per client (its pid) and
// in all, and each bound frees as requests end; a refusal is ReasonTooMany and says which bound.
func TestHookWaitBounds(t *testing.T) {
	t.Parallel()
	s := &Server{}
	var leaves []func()
	enter := func(pid int) error {
		leave, err := s.enterHook(pid)
		if err == nil {
			leaves = append(leaves, leave)
		}
		return err
	}
	refused := func(err error, what string) {
		t.Helper()
		if e, ok := err.(*Error); !ok || e.Reason != ReasonTooMany || !strings.Contains(e.Message, what) {
			t.Fatalf("err = %v, want a refusal (too_many) saying %q", err, what)
		}
	}
	for range maxHookWaitsPerClient {
		if err := enter(1); err != nil {
			t.Fatal(err)
		}
	}
	refused(enter(1), "16 permission requests of this client (pid 1) already wait")
	leaves[0]()
	leaves[0]() // once only
	leaves = leaves[1:]
	if err := enter(1); err != nil {
		t.Fatalf("after one ended: %v", err)
	}
	for pid := 2; pid <= maxHookWaits/maxHookWaitsPerClient; pid++ {
		for range maxHookWaitsPerClient {
			if err := enter(pid); err != nil {
				t.Fatal(err)
			}
		}
	}
	refused(enter(99), "64 permission requests, of all clients together, already wait")
	// Another server's requests are its own.
	other := &Server{}
	leave, err := other.enterHook(99)
	if err != nil {
		t.Fatal(err)
	}
	leave()
	for _, l := range leaves {
		l()
	}
	hookWaits.mu.Lock()
	defer hookWaits.mu.Unlock()
	for k, n := range hookWaits.mine {
		if k.s == s || k.s == other {
			t.Errorf("client %d still counted %d times once all ended", k.pid, n)
		}
	}
	if hookWaits.all[s] != 0 || hookWaits.all[other] != 0 {
		t.Errorf("requests still counted once all ended: %d", hookWaits.all[s])
	}
}
