package views

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode"

	"github.com/gdamore/tcell/v2"

	"tickmux/host"
)

// hostileText holds what an agent or a Tick may send to make a card lie: controls, bidi
// overrides, zero-width joiners, tag characters, thousands of stacked combining marks, and wide
// characters that land on the card's edge.
var hostileText = "ok\x1b[2J\x07\u202eexe.txt\u2066hidden\u2069" + "a\u200db\u200bc" + "\U000E0041\U000E0042" +
	"e" + strings.Repeat("\u0301", 3000) + strings.Repeat("界", 97) + "x界" + "\r\ttail"

// The card is drawn cell by cell from escaped text: no dangerous character reaches the screen, a
// cell never carries a stack of combining marks, and the card's right border stays in its column
// on every row whatever the text.
// spec: H-SEC1
func TestHostileTextCannotBreakTheCard(t *testing.T) {
	args, _ := json.Marshal(map[string]string{"note": hostileText})
	for _, req := range []host.ApprovalRequest{
		{Action: host.ActionCall, Client: hostileText, Instance: "hosted:1", Title: hostileText, Tool: "set" + hostileText,
			ToolDescription: hostileText, Args: args, Revision: hostileText, Unchecked: []string{hostileText}},
		{Action: host.ActionOpen, Client: "agent", Argv: []string{"bash", "-c", hostileText}, Dir: "/tmp/" + hostileText},
		{Action: host.ActionSend, Client: "agent", Instance: "shell:1", Title: hostileText, Text: hostileText},
	} {
		t.Run(string(req.Action), func(t *testing.T) {
			hs := newHarness(t, 160, 50)
			hs.start()
			done, cancel := ask(hs, req)
			defer cancel()
			waitCards(t, hs.queue, 1)
			hs.prefix()
			hs.typeText("a")
			hs.waitFor("more than the panel shows")
			cells, w, h := onUIValue3(hs)
			left, right := -1, -1
			for y := 0; y < h; y++ {
				row := cells[y*w : (y+1)*w]
				first, last := -1, -1
				for x, c := range row {
					if len(c.Runes) > 1+maxMarks {
						t.Fatalf("row %d col %d: %d runes in one cell", y, x, len(c.Runes))
					}
					for _, r := range c.Runes {
						if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || (r >= 0xE0000 && r <= 0xE007F) {
							t.Fatalf("row %d col %d: %U reached the screen", y, x, r)
						}
					}
					if len(c.Runes) > 0 && (c.Runes[0] == '┃') {
						if first < 0 {
							first = x
						}
						last = x
					}
				}
				if first < 0 || first == last {
					continue
				}
				if left < 0 {
					left, right = first, last
				}
				if first != left || last != right {
					t.Fatalf("row %d: the card's sides at %d and %d, elsewhere %d and %d:\n%s", y, first, last, left, right, hs.text())
				}
			}
			if left < 0 {
				t.Fatalf("no focused card on screen:\n%s", hs.text())
			}
			oneCardStillPending(t, hs, done, "drawing a hostile card")
		})
	}
}

func onUIValue3(hs *harness) ([]tcell.SimCell, int, int) {
	var cells []tcell.SimCell
	var w, h int
	hs.app.app.QueueUpdate(func() {
		var c []tcell.SimCell
		c, w, h = hs.screen.GetContents()
		cells = append(cells, c...)
	})
	return cells, w, h
}

// The card says what tickmux did not check in the args (a pattern it cannot run, a draft it does
// not know): the Tick checks it itself.
// spec: 7.2
// spec: H-D1
func TestCardSaysWhatWasNotChecked(t *testing.T) {
	hs := newHarness(t, 160, 50)
	hs.start()
	done, cancel := ask(hs, host.ApprovalRequest{Action: host.ActionCall, Client: "agent", Instance: "hosted:1", Title: "T",
		Tool: "set", Args: json.RawMessage(`{"a":"x"}`), Revision: "r1",
		Unchecked: []string{`at /properties/a/pattern: the pattern "(unclosed" is not checked`}})
	defer cancel()
	waitCards(t, hs.queue, 1)
	hs.waitFor(`not checked by tickmux: at /properties/a/pattern:`)
	oneCardStillPending(t, hs, done, "drawing the card")
}
