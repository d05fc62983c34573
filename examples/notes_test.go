package examples

import (
	"path/filepath"
	"testing"

	"github.com/gdamore/tcell/v2"

	"tickmux/tick/wire"
)

// TestNotesTools: the mutating tools change the list and the state; a call about a note that
// does not exist is refused with a code of no effect and changes nothing; --file keeps the notes
// across runs.
func TestNotesTools(t *testing.T) {
	file := filepath.Join(t.TempDir(), "notes.json")
	c := startExample(t, "", "notes", "--file", file)
	var added note
	c.mustCall("add_note", map[string]string{"text": "buy milk"}, &added)
	c.mustCall("add_note", map[string]string{"text": "call Bob"}, nil)
	if added.ID != 1 || added.By != "agent" {
		t.Fatalf("add_note: %+v", added)
	}
	c.mustCall("edit_note", map[string]any{"id": 1, "text": "buy oat milk"}, nil)
	c.mustCall("remove_note", map[string]any{"id": 2}, nil)
	var st notesState
	c.waitUpdate("one edited note", &st, func() bool { return st.Count == 1 && st.Notes[0].Text == "buy oat milk" })

	updates := len(c.updates)
	for _, call := range []struct {
		tool string
		args map[string]any
	}{
		{"edit_note", map[string]any{"id": 9, "text": "x"}},
		{"remove_note", map[string]any{"id": 9}},
		{"add_note", map[string]any{"text": ""}},
	} {
		if f := c.call(call.tool, call.args); f.Error == nil || f.Error.Code != wire.CodeInvalidParams {
			t.Fatalf("%s %v: %s, want -32602", call.tool, call.args, f)
		}
	}
	var list struct{ Notes []note }
	c.mustCall("list_notes", map[string]string{"contains": "OAT"}, &list)
	if len(list.Notes) != 1 || list.Notes[0].ID != 1 {
		t.Fatalf("list_notes: %+v", list)
	}
	if len(c.updates) != updates {
		t.Fatal("a refused call or a query sent an update")
	}

	again := startExample(t, "", "notes", "--file", file)
	again.state(&st)
	if st.Count != 1 || st.Notes[0].Text != "buy oat milk" {
		t.Fatalf("after a restart with the same file: %+v", st)
	}
	var n note
	again.mustCall("add_note", map[string]string{"text": "next"}, &n)
	if n.ID != 3 {
		t.Fatalf("ids restart at %d, want 3 (no id reused)", n.ID)
	}
}

// TestNotesKeys: a person adds, edits and deletes with keys; untrusted text is drawn without
// its control characters.
func TestNotesKeys(t *testing.T) {
	t.Parallel()
	n, err := newNotes("")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := n.add("from an agent \x1b[2J\x07here", "agent"); err != nil {
		t.Fatal(err)
	}
	typeText := func(s string) {
		for _, r := range s {
			n.key(key(r))
		}
	}
	n.key(key('a'))
	typeText("call Bob")
	n.key(special(tcell.KeyEnter))
	n.key(key('e')) // the new note is selected
	n.key(special(tcell.KeyBackspace2))
	n.key(special(tcell.KeyBackspace2))
	n.key(special(tcell.KeyBackspace2))
	typeText("Ann")
	n.key(special(tcell.KeyEnter))
	want := picture(`
 Notes                                      2 notes
   1  from an agent here (agent)
   2  call Ann


 a add   e/Enter edit   d delete   ↑↓ select   Ctrl
`)
	if got := render(t, 52, 6, n.draw); got != want {
		t.Fatalf("screen:\n%s\nwant:\n%s", got, want)
	}
	n.key(special(tcell.KeyUp))
	n.key(key('d'))
	if list := n.find(""); len(list) != 1 || list[0].Text != "call Ann" || list[0].By != "person" {
		t.Fatalf("after deleting the first note: %+v", list)
	}
	n.key(key('a'))
	typeText("never mind")
	n.key(special(tcell.KeyEsc))
	if len(n.find("")) != 1 {
		t.Fatal("Esc added the note")
	}
}
