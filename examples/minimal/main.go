// Command minimal is a complete Tick: a note that a person sees and an agent can read or replace.
package main

import (
	"context"
	"encoding/json"
	"log"
	"sync/atomic"

	"github.com/gdamore/tcell/v2"

	"tickmux/tick"
)

func main() {
	var srv *tick.Server
	var note atomic.Value
	note.Store("")
	setNote := tick.HandlerOf(func(ctx context.Context, a struct{ Text string }) (any, error) {
		note.Store(a.Text)
		return nil, srv.Update(map[string]string{"note": a.Text})
	})
	getNote := func(context.Context, json.RawMessage) (any, error) { return map[string]any{"note": note.Load()}, nil }
	srv, err := tick.New(tick.Tick{
		Kind: "example.minimal", Title: "Note", Description: "One line of text, shown on screen.",
		Tools: []tick.ToolSpec{
			{Name: "set_note", Description: "Replace the note.", Mutates: true, Handler: setNote,
				InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)},
			{Name: "get_note", Description: "Read the note.", Handler: getNote},
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	draw := func(s tcell.Screen) { s.PutStr(1, 1, "Note: "+note.Load().(string)) }
	if err := srv.Run(context.Background(), &tick.UI{Draw: draw}); err != nil {
		log.Fatal(err)
	}
}
