package examples

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/gdamore/tcell/v2"

	"tickmux/tick"
	"tickmux/tick/wire"
)

func init() {
	register(Example{
		Name:    "notes",
		Summary: "a list of notes edited with keys and with mutating tools",
		Usage:   "[--file PATH]",
		Run:     runNotes,
	})
}

const (
	notesInState  = 20   // notes listed in the state; list_notes has them all
	noteSummary   = 100  // runes of a note's text in the state
	noteMaxLength = 2000 // runes of a note
)

func runNotes(ctx context.Context, args []string) error {
	flags := flag.NewFlagSet("notes", flag.ContinueOnError)
	flags.SetOutput(io.Discard)
	file := flags.String("file", "", "keep the notes in this JSON file")
	if err := flags.Parse(args); err != nil {
		return fmt.Errorf("%w; usage: notes [--file PATH]", err)
	}
	n, err := newNotes(*file)
	if err != nil {
		return err
	}
	return n.srv.Run(ctx, &tick.UI{Draw: n.draw, Key: n.key})
}

// note is one note, as list_notes returns it and the file stores it.
type note struct {
	ID      int64  `json:"id"`
	Text    string `json:"text"`
	By      string `json:"by"` // "person" or "agent", whoever wrote it last
	Updated string `json:"updated"`
}

// notesState is the data of each update.
type notesState struct {
	Count int64  `json:"count"`
	Notes []note `json:"notes"` // the first notesInState, texts shortened
	More  int    `json:"more,omitempty"`
	File  string `json:"file,omitempty"`
}

type notes struct {
	srv  *tick.Server
	file string // "" when the notes live in memory only

	mu     sync.Mutex
	list   []note
	nextID int64

	// UI state, touched on the UI goroutine only.
	selected int
	edit     *lineEdit
	editing  int64  // the note being edited; 0 while adding one
	status   string // a message for the person, shown until the next key
}

func newNotes(file string) (*notes, error) {
	n := &notes{file: file, nextID: 1}
	if file != "" {
		if err := n.load(); err != nil {
			return nil, err
		}
	}
	textSchema := fmt.Sprintf(`{"type":"string","minLength":1,"maxLength":%d}`, noteMaxLength)
	idSchema := `{"type":"integer","minimum":1}`
	srv, err := tick.New(tick.Tick{
		Kind:        "example.notes",
		Title:       "Notes",
		Description: "A list of short notes that a person edits with keys and agents edit with tools.",
		Tools: []tick.ToolSpec{
			{
				Name:        "add_note",
				Description: "Add a note at the end of the list. Returns its id.",
				Mutates:     true,
				InputSchema: json.RawMessage(`{"type":"object","properties":{"text":` + textSchema + `},"required":["text"],"additionalProperties":false}`),
				Handler: tick.HandlerOf(func(ctx context.Context, a struct{ Text string }) (any, error) {
					nt, err := n.add(a.Text, "agent")
					return nt, err
				}),
			},
			{
				Name:        "edit_note",
				Description: "Replace the text of the note with this id.",
				Mutates:     true,
				InputSchema: json.RawMessage(`{"type":"object","properties":{"id":` + idSchema + `,"text":` + textSchema + `},"required":["id","text"],"additionalProperties":false}`),
				Handler: tick.HandlerOf(func(ctx context.Context, a struct {
					ID   int64
					Text string
				}) (any, error) {
					return n.editNote(a.ID, a.Text, "agent")
				}),
			},
			{
				Name:        "remove_note",
				Description: "Remove the note with this id.",
				Mutates:     true,
				InputSchema: json.RawMessage(`{"type":"object","properties":{"id":` + idSchema + `},"required":["id"],"additionalProperties":false}`),
				Handler: tick.HandlerOf(func(ctx context.Context, a struct{ ID int64 }) (any, error) {
					if err := n.remove(a.ID); err != nil {
						return nil, err
					}
					return map[string]int64{"removed": a.ID}, nil
				}),
			},
			{
				Name:        "list_notes",
				Description: "Read every note in full, optionally only those containing a string (case-insensitive).",
				InputSchema: json.RawMessage(`{"type":"object","properties":{"contains":{"type":"string"}},"additionalProperties":false}`),
				Handler: tick.HandlerOf(func(ctx context.Context, a struct{ Contains string }) (any, error) {
					return map[string][]note{"notes": n.find(a.Contains)}, nil
				}),
			},
		},
	})
	if err != nil {
		return nil, err
	}
	n.srv = srv
	n.mu.Lock()
	defer n.mu.Unlock()
	return n, srv.Update(n.stateLocked())
}

// errNoNote refuses a call about a note that does not exist; nothing changed, hence the code.
func errNoNote(id int64) error {
	return &wire.ResponseError{Code: wire.CodeInvalidParams, Message: fmt.Sprintf("there is no note %d; list_notes shows the ids", id)}
}

func (n *notes) add(text, by string) (note, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	nt := note{ID: n.nextID, Text: text, By: by, Updated: time.Now().UTC().Format(time.RFC3339)}
	n.nextID++
	n.list = append(n.list, nt)
	return nt, n.changedLocked()
}

func (n *notes) editNote(id int64, text, by string) (note, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for i := range n.list {
		if n.list[i].ID == id {
			n.list[i].Text, n.list[i].By, n.list[i].Updated = text, by, time.Now().UTC().Format(time.RFC3339)
			return n.list[i], n.changedLocked()
		}
	}
	return note{}, errNoNote(id)
}

func (n *notes) remove(id int64) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	for i := range n.list {
		if n.list[i].ID == id {
			n.list = append(n.list[:i], n.list[i+1:]...)
			return n.changedLocked()
		}
	}
	return errNoNote(id)
}

func (n *notes) find(contains string) []note {
	n.mu.Lock()
	defer n.mu.Unlock()
	found := []note{}
	for _, nt := range n.list {
		if strings.Contains(strings.ToLower(nt.Text), strings.ToLower(contains)) {
			found = append(found, nt)
		}
	}
	return found
}

// changedLocked publishes the new state and saves the file. The change is made either way; a
// failed save is reported as the tool's failure, which promises nothing about effects.
func (n *notes) changedLocked() error {
	_ = n.srv.Update(n.stateLocked())
	if err := n.saveLocked(); err != nil {
		return fmt.Errorf("the notes changed but could not be saved: %w", err)
	}
	return nil
}

func (n *notes) stateLocked() notesState {
	st := notesState{Count: int64(len(n.list)), Notes: []note{}, File: n.file}
	for i, nt := range n.list {
		if i == notesInState {
			st.More = len(n.list) - i
			break
		}
		if r := []rune(nt.Text); len(r) > noteSummary {
			nt.Text = string(r[:noteSummary]) + "…"
		}
		st.Notes = append(st.Notes, nt)
	}
	return st
}

// notesFile is the file format of --file.
type notesFile struct {
	NextID int64  `json:"next_id"`
	Notes  []note `json:"notes"`
}

func (n *notes) load() error {
	b, err := os.ReadFile(n.file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("cannot read the notes: %w", err)
	}
	var f notesFile
	if err := json.Unmarshal(b, &f); err != nil {
		return fmt.Errorf("%s is not a notes file: %w", n.file, err)
	}
	n.list = f.Notes
	n.nextID = f.NextID
	for _, nt := range n.list {
		n.nextID = max(n.nextID, nt.ID+1)
	}
	return nil
}

// saveLocked writes the file whole through a temporary file and a rename, at every change:
// a Tick may be killed at any moment (spec 4.5), so nothing waits for exit.
func (n *notes) saveLocked() error {
	if n.file == "" {
		return nil
	}
	b, err := json.MarshalIndent(notesFile{NextID: n.nextID, Notes: n.list}, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(n.file), ".notes-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), n.file)
}

func (n *notes) key(ev *tcell.EventKey) {
	n.status = ""
	if n.edit != nil {
		n.editKey(ev)
		return
	}
	n.mu.Lock()
	count := len(n.list)
	var selected note
	if n.selected < count {
		selected = n.list[n.selected]
	}
	n.mu.Unlock()
	switch {
	case ev.Key() == tcell.KeyUp || ev.Key() == tcell.KeyRune && ev.Rune() == 'k':
		n.selected = max(0, n.selected-1)
	case ev.Key() == tcell.KeyDown || ev.Key() == tcell.KeyRune && ev.Rune() == 'j':
		n.selected = min(max(0, count-1), n.selected+1)
	case ev.Key() == tcell.KeyRune && (ev.Rune() == 'a' || ev.Rune() == 'n'):
		n.edit, n.editing = newLineEdit("new note: ", ""), 0
	case count > 0 && (ev.Key() == tcell.KeyEnter || ev.Key() == tcell.KeyRune && ev.Rune() == 'e'):
		n.edit, n.editing = newLineEdit(fmt.Sprintf("note %d: ", selected.ID), selected.Text), selected.ID
	case count > 0 && (ev.Key() == tcell.KeyDelete || ev.Key() == tcell.KeyRune && ev.Rune() == 'd'):
		if err := n.remove(selected.ID); err != nil {
			n.status = err.Error()
		}
	}
}

func (n *notes) editKey(ev *tcell.EventKey) {
	done, cancel := n.edit.key(ev)
	switch {
	case cancel:
		n.edit = nil
	case done:
		text := strings.TrimSpace(n.edit.String())
		n.edit = nil
		if text == "" {
			return
		}
		if r := []rune(text); len(r) > noteMaxLength {
			text = string(r[:noteMaxLength])
		}
		var err error
		if n.editing == 0 {
			_, err = n.add(text, "person")
			n.mu.Lock()
			n.selected = len(n.list) - 1
			n.mu.Unlock()
		} else {
			_, err = n.editNote(n.editing, text, "person")
		}
		if err != nil {
			n.status = err.Error()
		}
	}
}

func (n *notes) draw(screen tcell.Screen) {
	n.mu.Lock()
	list := append([]note{}, n.list...)
	n.mu.Unlock()
	n.selected = min(n.selected, max(0, len(list)-1))

	w, h := screen.Size()
	right := fmt.Sprintf("%d notes", len(list))
	if len(list) == 1 {
		right = "1 note"
	}
	if n.file != "" {
		right += " in " + clean(filepath.Base(n.file), 40)
	}
	bar(screen, 0, "Notes", right)
	rows := h - 3 // between the title, the status row and the legend
	top := max(0, n.selected-rows+1)
	if len(list) == 0 {
		text(screen, 2, 2, w-2, styleDim, "No notes yet. Press a to add one, or let an agent call add_note.")
	}
	for i := top; i < len(list) && i-top < rows; i++ {
		y := 1 + i - top
		style, by := styleNormal, ""
		if list[i].By == "agent" {
			by = " (agent)"
		}
		if i == n.selected {
			style = styleSelect
			fill(screen, 0, y, w, style)
		}
		x := text(screen, 1, y, w-1, style, fmt.Sprintf("%3d  ", list[i].ID)) + 1
		x += text(screen, x, y, w-x-len(by), style, clean(list[i].Text, w))
		text(screen, x, y, w-x, style.Dim(true), by)
	}
	switch {
	case n.edit != nil:
		n.edit.draw(screen, h-2)
		bar(screen, h-1, "Enter save   Esc cancel", "")
		return
	case n.status != "":
		text(screen, 1, h-2, w-1, styleError, clean(n.status, w))
	}
	bar(screen, h-1, "a add   e/Enter edit   d delete   ↑↓ select   Ctrl-C quit", "")
}
