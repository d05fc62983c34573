package views

import (
	"fmt"
	"strings"
	"time"

	"github.com/gdamore/tcell/v2"

	"tickmux/host"
	"tickmux/keymap"
)

// An approval card shows all of what will be sent (H-K2, H-SEC1): nothing is cut at the panel's
// edge. Args, open commands and send text are wrapped, not clipped; whitespace and invisible
// characters are drawn as marks in their own style (runs of spaces counted, tabs, newlines,
// zero-width and bidi characters as escapes), so padding cannot push the dangerous part out of
// sight; each part says its size. A card taller than the panel says so, and the person must have
// scrolled to its end before a key can allow it (see App.answerCard).

// cardView is one built card: its lines, and where in them its end is.
type cardView struct {
	id    uint64
	lines []line
}

// builtCard is a card as built (view), and what it was built from besides its request, which
// never changes.
type builtCard struct {
	from cardInput
	view cardView
}

type cardInput struct {
	focused, settling bool
	w, h              int
	waited            time.Duration
	answerer          string // the view whose keys answer it (SidePanel.answerer)
	unreachable       bool   // its host cannot be reached now
}

// builtCard is p.card(...), built again only when something it shows changed.
func (p *SidePanel) builtCard(c host.Card, focused bool, w, h int, now time.Time, settling, unreachable bool) cardView {
	from := cardInput{focused: focused, settling: settling, w: w, h: h, waited: waited(c, now), answerer: p.answerer, unreachable: unreachable}
	if !focused {
		from.h, from.settling, from.answerer = 0, false, "" // only the focused card says it does not fit, or that it is new
	}
	if b, ok := p.cards[c.ID]; ok && b.from == from {
		return b.view
	}
	v := p.card(c, focused, w, h, now, settling, unreachable)
	if p.cards == nil {
		p.cards = map[uint64]builtCard{}
	}
	p.cards[c.ID] = builtCard{from, v}
	return v
}

// waited is how long the card has waited, as the card says it.
func waited(c host.Card, now time.Time) time.Duration { return now.Sub(c.Created).Round(time.Second) }

// card renders one approval card: who asks, for which instance, the tool, its description, the
// args and the revision, with the keys that answer it when it has the focus. h is the panel's
// height, to say when the card does not fit.
func (p *SidePanel) card(c host.Card, focused bool, w, h int, now time.Time, settling, unreachable bool) cardView {
	th := p.theme
	r := c.Req
	border := th.CardBorder
	if focused {
		border = th.CardFocused
	}
	inner := max(w-4, 10)
	mark := th.Card.Reverse(true)
	var body []line
	text := func(s string, st tcell.Style) { // trusted or already escaped text, word-wrapped
		for _, l := range wrapWords(s, inner) {
			body = append(body, plain(l, st))
		}
	}
	exact := func(l line) { body = append(body, wrapLine(l, inner)...) } // hard-wrapped, every cell kept

	if focused && settling {
		text("NEW CARD: it took the place of the one you were reading, which went away; keys wait a moment", th.StatusStarting.Bold(true))
	}
	who := r.Client
	if who == "" {
		who = "an agent"
	}
	text(host.Printable(capText(who, 200), false)+" wants to "+cardVerb(r), th.Card.Bold(true))
	if r.Host != "" {
		// Another host's card: the call runs there, with the revision approved here.
		text("ON HOST "+host.Printable(capText(r.Host, 40), false), th.StatusAccent.Bold(true))
		if unreachable {
			text("host unreachable: cannot answer now", th.Error.Bold(true))
		}
	}
	if r.ToolDescription != "" {
		text(host.Printable(capText(r.ToolDescription, maxTickField), false), th.Card)
	}
	switch r.Action {
	case host.ActionCall:
		body = append(body, plain(fmt.Sprintf("args (%s):", sizeNote(len(r.Args))), th.Card))
		for _, l := range prettyJSONVisible(compactJSON(r.Args), th, mark) {
			exact(append(line{{"  ", th.Card}}, l...))
		}
		exact(line{{"revision ", th.Card}, untrusted(fmt.Sprintf("%q", r.Revision), th.Card)})
		for _, u := range r.Unchecked { // what tickmux did not check in the args (the Tick does, spec 7.2)
			text("not checked by tickmux: "+host.Printable(capText(u, maxTickField), false), th.Card)
		}
		body = append(body, p.lastChangeLines(r, inner)...)
	case host.ActionOpen:
		n := 0
		for _, a := range r.Argv {
			n += len(a)
		}
		body = append(body, plain(fmt.Sprintf("command (%d args, %s):", len(r.Argv), sizeNote(n)), th.Card))
		for i, a := range r.Argv {
			for j, vl := range visibleLines(a, th.Card.Bold(true), mark) {
				lead := fmt.Sprintf("  [%d] ", i)
				if j > 0 {
					lead = strings.Repeat(" ", len(lead))
				}
				exact(append(line{{lead, th.Card}}, vl...))
			}
		}
		if r.Dir != "" {
			for j, vl := range visibleLines(r.Dir, th.Card, mark) {
				lead := "in: "
				if j > 0 {
					lead = "    "
				}
				exact(append(line{{lead, th.Card}}, vl...))
			}
		}
		if r.Sandboxed {
			text("sandboxed (bubblewrap): it sees only its own processes and terminal, writes only its directory and sandbox_write, reaches tickmux only through the agent socket", th.Card)
		} else {
			text("NOT sandboxed: it runs with all your rights", th.Card.Bold(true))
		}
	case host.ActionAgent:
		if r.Agent != nil {
			p.agentCardBody(r.Agent, text, exact)
		}
	case host.ActionSend:
		lines := "1 line"
		if n := strings.Count(r.Text, "\n") + 1; n > 1 {
			lines = fmt.Sprintf("%d lines", n)
		}
		body = append(body, plain(fmt.Sprintf("text (%s, %s):", sizeNote(len(r.Text)), lines), th.Card))
		for _, vl := range visibleLines(r.Text, th.Card.Bold(true), mark) {
			exact(append(line{{"  ", th.Card}}, vl...))
		}
	}
	body = append(body, plain(fmt.Sprintf("waiting %s", waited(c, now)), th.Card.Dim(true)))
	if focused {
		var hint []line // one item per key: "y allow once"
		for _, k := range []struct {
			a    keymap.Action
			what string
		}{{keymap.AllowOnce, "allow once"}, {keymap.AllowRevision, "allow for this revision"}, {keymap.Deny, "deny"}, {keymap.LeaveCard, "later"}} {
			what := k.what
			if k.a == keymap.AllowRevision && r.Action == host.ActionAgent {
				if r.Agent == nil || r.Agent.Session == "" {
					continue
				}
				what = "allow this input again this session"
			} else if r.Action != host.ActionCall && k.a == keymap.AllowRevision {
				continue
			}
			if keys := p.keys.KeysFor(keymap.ModeCard, k.a); len(keys) > 0 {
				hint = append(hint, line{{keys[0].String(), th.KeyHint}, {" " + what, th.Card}})
			}
		}
		body = append(body, wrapItems(hint, inner, seg{"  ", th.Card})...)
		if p.answerer != "" {
			// Which of the person's terminals answers: a view nobody looks at is seen.
			text("keys answer from "+host.Printable(capText(p.answerer, 200), false), th.Card.Dim(true))
		}
	}
	// A card that does not fit says so at its top, where the person starts reading.
	if total := len(body) + 2; focused && h > 0 && total > h {
		// Short: at 80 columns the panel is 34 wide, and every row of the note is one less of the card.
		note := fmt.Sprintf("more than the panel shows (%d lines): PgDn reads on, y at the end", total)
		var head []line
		for _, l := range wrapWords(note, inner) {
			head = append(head, plain(l, th.StatusStarting))
		}
		body = append(head, body...)
	}

	top := "┌" + strings.Repeat("─", inner+2) + "┐"
	side := "│"
	bottom := "└" + strings.Repeat("─", inner+2) + "┘"
	if focused {
		top, side, bottom = "┏"+strings.Repeat("━", inner+2)+"┓", "┃", "┗"+strings.Repeat("━", inner+2)+"┛"
	}
	out := make([]line, 0, len(body)+2)
	out = append(out, plain(top, border))
	for _, l := range body {
		content := append(line{{side + " ", border}}, l...)
		if pad := inner - lineWidth(l); pad > 0 {
			content = append(content, seg{strings.Repeat(" ", pad), th.Card})
		}
		out = append(out, append(content, seg{" " + side, border}))
	}
	out = append(out, plain(bottom, border))
	return cardView{id: c.ID, lines: out}
}

// cardVerb says what the card asks, in words: "call note on hosted:3 (Notes)",
// "type into shell:2 (bash)", "close hosted:8", "open a shell", "open a sandboxed Tick".
func cardVerb(r host.ApprovalRequest) string {
	target := r.Instance
	if r.Title != "" {
		target += " (" + capText(r.Title, 200) + ")"
	}
	target = host.Printable(target, false)
	switch r.Action {
	case host.ActionCall:
		return "call " + host.Printable(capText(r.Tool, 200), false) + " on " + target
	case host.ActionOpen:
		what := "a Tick"
		if r.Shell {
			what = "a shell"
		}
		if r.Sandboxed {
			what = "a sandboxed" + strings.TrimPrefix(what, "a")
		}
		return "open " + what
	case host.ActionClose:
		return "close " + target
	case host.ActionSend:
		return "type into " + target
	case host.ActionAgent:
		tool := ""
		if r.Agent != nil {
			tool = host.Printable(capText(r.Agent.Tool, 200), false)
		}
		if r.Instance == "" {
			return "run its tool " + tool + " (in a terminal outside tickmux)"
		}
		return "run its tool " + tool + " in " + target
	}
	return string(r.Action) + " " + target
}

// sizeNote says how big a part of a card is.
func sizeNote(bytes int) string {
	if bytes == 1 {
		return "1 byte"
	}
	return fmt.Sprintf("%d bytes", bytes)
}
