package views

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"tickmux/host"
	"tickmux/keymap"
	"tickmux/themes"
)

// SidePanel is the agent side panel: for the focused instance, what it is, its latest state, its
// catalog, its update counters and recent calls; above them, every pending approval card.
//
// The panel is rebuilt from the host on the UI goroutine when something it shows changed; drawing
// only copies the built lines to the screen.
type SidePanel struct {
	*tview.Box
	theme *themes.Theme
	keys  *keymap.Keymap

	head       []line // stays in view: cards, grants, identity, counters
	body       []line // scrolls below the head: description, state, tools, recent calls
	scroll     int    // the body's first line shown
	headScroll int    // the head's first line shown, when it is taller than its room
	focused    bool   // the panel takes scroll keys (prefix + Tab)
	answerer   string // the view whose keys answer the cards ("view 2 /dev/pts/5"; "" alone)

	// What the last build showed, to tell what is new.
	shownID      string
	shownUpdates uint64
	merged       uint64 // updates folded into a later one before the panel showed them
	schemas      bool   // show each tool's input_schema

	// The pretty state of the last build, kept while the state is the same: under a flood of
	// updates the panel is rebuilt once a frame, the JSON laid out once a state.
	stateKey   stateKey
	stateLines []line
	cardsTop   int    // the head line where the focused card starts, to scroll it into view
	cardsEnd   int    // the head line after the focused card
	cardID     uint64 // the focused card, 0 when none
	shownCard  uint64 // the card ShowFocusedCard last scrolled to: the person scrolls it after
	shownIn    [2]int // the inner size the panel had then: resized, it scrolls to the card again
	// endSeen holds the pending cards whose last line has been drawn: only those can be allowed.
	endSeen map[uint64]bool
	// The built cards, kept while what they show stays the same (a card's request never
	// changes; its age moves once a second): a panel with many cards pending is rebuilt at
	// each key and at each batch of updates, and laying out every card each time was most of
	// a key's cost beside a flood.
	cards map[uint64]builtCard
	// The first card: where the last build put it, and what the person last saw at the top of
	// the cards (topSeen, drawn; topSwapped: when another card took its place), so that entering
	// card mode on a card they never read can wait (App.enterCards).
	firstCard   uint64
	firstCardAt int
	topSeen     uint64
	topSwapped  time.Time

	// What the last draw showed (its frame and each row), so that a draw redraws only the rows
	// that changed: a flooding Tick's state changes a line or two of the panel per update.
	// drawnOK is cleared when something may have drawn over the panel.
	drawn, next panelRows
	drawnOK     bool

	// lastChange finds the last change a tool made, for its next card (journalpanel.go).
	lastChange func(instance, tool string) (host.CallRecord, bool)
}

// panelRows is what a draw of the panel shows: its frame, and each row's segments (a span of
// segs, copied, so later builds cannot change them) with the scroll mark at its end.
type panelRows struct {
	frame [4]int      // the rectangle
	style tcell.Style // the border's
	segs  []seg
	rows  []panelRow
}

type panelRow struct {
	start, end int  // in segs
	mark       rune // '↑', '↓', or 0
	rule       bool // the rule between the head and the body: drawn across the whole width
}

func (r *panelRows) add(l line, mark rune, rule bool) {
	start := len(r.segs)
	r.segs = append(r.segs, l...)
	r.rows = append(r.rows, panelRow{start, len(r.segs), mark, rule})
}

func (r *panelRows) line(i int) line { return r.segs[r.rows[i].start:r.rows[i].end] }

// sameRow reports whether row i of r shows what row i of o shows.
func (r *panelRows) sameRow(o *panelRows, i int) bool {
	a, b := r.rows[i], o.rows[i]
	return a.mark == b.mark && a.rule == b.rule && slices.Equal(r.line(i), o.line(i))
}

// Invalidate makes the next draw draw everything: something drew over the panel.
func (p *SidePanel) Invalidate() { p.drawnOK = false }

// NewSidePanel makes an empty panel.
func NewSidePanel(th *themes.Theme, keys *keymap.Keymap) *SidePanel {
	return &SidePanel{Box: tview.NewBox(), theme: th, keys: keys}
}

// stateKey names one state of one instance.
type stateKey struct {
	id       string
	seq      uint64
	received time.Time
}

// panelInput is what a build reads: the focused instance (nil when there is none), the pending
// cards and which of them has the focus (-1 when none).
type panelInput struct {
	inst  *host.Instance
	cards []host.Card
	// unreachable: the cards whose host cannot be reached now (package remote)
	unreachable map[uint64]bool
	cardFocus   int
	settling    bool // keys wait: the focused card just took another's place
	grants      []host.Grant
	width       int
	now         time.Time
	// journal (journalpanel.go): why the journal cannot be written, and a call's last change
	journalWarning string
	lastChange     func(instance, tool string) (host.CallRecord, bool)
	// every instance and agent session: what a focused plain program's panel shows at a glance
	all    []*host.Instance
	agents []host.AgentSession
	// chooseKeys names the keys that choose a pane (the w tree), for the overview's hint
	chooseKeys string
}

// Rebuild recomputes the lines from the host's current values. The panel has two parts: a head
// that stays in view (the approval cards, the grants, the instance's identity and its update
// counters) and a body below it that scrolls on its own (the description, the state, the tools
// and the recent calls), so a large state never pushes a card or the counters out of sight.
func (p *SidePanel) Rebuild(in panelInput) {
	th := p.theme
	w := max(in.width, 20)
	var head, body []line
	out := &head
	add := func(l line) { *out = append(*out, l) }
	blank := func() { add(nil) }
	heading := func(title string, extra ...seg) {
		// The hint after a heading goes under it when both do not fit ("C-b Tab then 1–9
		// revokes" was cut to "C-a Tab t" at 100 columns).
		items := []line{{{title, th.PanelHeading}}}
		if len(extra) > 0 {
			items = append(items, line(extra))
		}
		for _, l := range wrapItems(items, w, seg{"  ", th.Panel}) {
			add(l)
		}
	}
	inst := in.inst
	if inst != nil && inst.ID() != p.shownID {
		p.shownID, p.shownUpdates, p.merged, p.scroll = inst.ID(), inst.State().Updates, 0, 0
	}

	p.lastChange = in.lastChange
	// The body first: the head's room depends on it.
	out = &body
	p.buildBody(inst, w, add, blank, heading)
	if inst != nil && !inst.IsTick() {
		p.overview(in, w, add, blank, heading)
	}

	// The head: approval cards first, they are what the person must act on.
	out = &head
	p.cardsTop, p.cardsEnd, p.cardID = -1, -1, 0
	p.firstCard, p.firstCardAt = 0, -1
	if p.endSeen == nil {
		p.endSeen = map[uint64]bool{}
	}
	pending := map[uint64]bool{}
	if len(in.cards) > 0 {
		_, _, _, h := p.GetInnerRect()
		room := p.headRoom(h, len(body))
		if in.cardFocus >= 0 {
			room = h // a focused card takes the whole panel (headRoom)
		}
		heading(fmt.Sprintf("APPROVALS (%d)", len(in.cards)), seg{p.keyHint(keymap.ModePrefix, keymap.Approvals, "answer"), th.PanelMuted})
		for i, c := range in.cards {
			pending[c.ID] = true
			cv := p.builtCard(c, i == in.cardFocus, w, room, in.now, in.settling, in.unreachable[c.ID])
			if i == 0 {
				p.firstCard, p.firstCardAt = c.ID, len(head)
			}
			if i == in.cardFocus {
				p.cardsTop, p.cardID = len(head), c.ID
				p.cardsEnd = len(head) + len(cv.lines)
			}
			head = append(head, cv.lines...)
		}
		blank()
	}
	if in.cardFocus < 0 {
		p.shownCard = 0 // the next time a card has the focus, scroll to it
	}
	for id := range p.endSeen {
		if !pending[id] {
			delete(p.endSeen, id)
		}
	}
	for id := range p.cards {
		if !pending[id] {
			delete(p.cards, id)
		}
	}
	// Grants next: what goes out without a card.
	if len(in.grants) > 0 {
		hint := p.revokeHint()
		heading(fmt.Sprintf("ALLOWED WITHOUT A CARD (%d)", len(in.grants)), seg{hint, th.PanelMuted})
		for i, g := range in.grants {
			n := "   "
			if i < 9 {
				n = fmt.Sprintf("[%d]", i+1)
			}
			l := line{{n + " ", th.KeyHint}, untrusted(capText(g.Tool, 200), th.TitleFocused), {" on " + g.Instance + " · revision ", th.PanelMuted},
				untrusted(fmt.Sprintf("%q", capText(g.Revision, 200)), th.Panel)}
			if g.Session != "" { // an agent's: this exact input again in this session
				l = line{{n + " ", th.KeyHint}, untrusted(capText(g.Tool, 200), th.TitleFocused), {" " + g.Instance + " · session ", th.PanelMuted},
					untrusted(capText(g.Session, 200), th.Panel), {" · input ", th.PanelMuted}, untrusted(capText(g.Input, 400), th.Panel)}
			}
			head = append(head, wrapLine(l, w)...)
		}
		blank()
	}
	p.journalWarning(in.journalWarning, w, add, blank)
	p.buildIdentity(inst, w, add, blank, heading)
	p.head, p.body = head, body
	p.clampScroll()
}

// buildIdentity adds what the head shows of the focused instance: its id, title and status, why
// it ended, its kind and revision, a broken spec 5.5, and its update counters.
func (p *SidePanel) buildIdentity(inst *host.Instance, w int, add func(line), blank func(), heading func(string, ...seg)) {
	th := p.theme
	if inst == nil {
		add(plain("No pane is focused.", th.PanelMuted))
		return
	}
	status := inst.Status()
	id := line{{inst.ID(), th.TitleFocused}, {"  ", th.Panel}}
	if inst.Sandboxed() { // as on the border: after the id, before the title its program chose
		id = line{{inst.ID(), th.TitleFocused}, {" ", th.Panel}, {" sandboxed ", th.Sandboxed}, {" ", th.Panel}}
	}
	add(append(id, untrusted(capText(inst.Title(), maxTickField), th.Panel), seg{"  ", th.Panel}, statusSeg(th, status)))
	if e := inst.EndInfo(); e != nil {
		for _, l := range wrapWords("ended: "+host.Printable(capText(e.Reason, maxTickField), false)+exitNote(e), w) {
			add(plain(l, th.Error))
		}
		if hint := plainHint(inst, e, plainKeysOf(p.keys)); hint != "" {
			for _, l := range wrapWords(host.Printable(capText(hint, maxTickField), false), w) {
				add(plain(l, th.Panel))
			}
		}
	} else if g := inst.GuardError(); g != "" {
		for _, l := range wrapWords("⚠ unguarded: "+host.Printable(capText(g, maxTickField), false), w) {
			add(plain(l, th.Error))
		}
	}
	cat := inst.Catalog()
	if !inst.IsTick() || cat == nil {
		return
	}
	d := cat.Descriptor
	add(line{untrusted(capText(d.Kind, 200), th.PanelMuted), {" · revision ", th.PanelMuted}, untrusted(fmt.Sprintf("%q", capText(d.Revision, 200)), th.Panel)})
	if v := inst.RevisionViolations(); len(v) > 0 {
		for _, l := range wrapWords(fmt.Sprintf("⚠ %d× %s", len(v), v[len(v)-1]), w) {
			add(plain(l, th.Error))
		}
	}
	// merged counts the updates this panel never showed on their own: several arrived between
	// two builds and only the latest was drawn (H-U2, seen from the person's side).
	st := inst.State()
	if st.Updates > p.shownUpdates {
		p.merged += st.Updates - p.shownUpdates - 1
		p.shownUpdates = st.Updates
	}
	stats := inst.SessionStats()
	heading("UPDATES", seg{fmt.Sprintf("received %d · merged %d · last seq %d", st.Updates, p.merged, stats.LastUpdateSeq), th.PanelMuted})
	rate := inst.UpdateRate(60)
	add(line{{sparkline(rate, min(60, w-12)), th.Sparkline}, {"  " + rateNote(rate), th.PanelMuted}})
	if stats.IgnoredNotifications+stats.TickRequests+stats.DroppedResponses > 0 {
		add(plain(fmt.Sprintf("ignored: %d notifications, %d requests from the Tick, %d stray responses",
			stats.IgnoredNotifications, stats.TickRequests, stats.DroppedResponses), th.PanelMuted))
	}
}

// buildBody adds what scrolls below the head: the description, the state, the tools and the
// recent calls (or what a plain program is).
func (p *SidePanel) buildBody(inst *host.Instance, w int, add func(line), blank func(), heading func(string, ...seg)) {
	th := p.theme
	if inst == nil {
		return
	}
	if inst.Remote() != nil {
		for _, l := range wrapWords("A pane of another host, shown here: its program runs there.", w) {
			add(plain(l, th.PanelMuted))
		}
		return
	}
	if !inst.IsTick() {
		for _, l := range wrapWords("A plain terminal program: no protocol, no state.", w) {
			add(plain(l, th.PanelMuted))
		}
		add(plain(host.Printable(capText(strings.Join(inst.Argv(), " "), maxTickField), false), th.PanelMuted))
		return
	}
	cat := inst.Catalog()
	if cat == nil {
		if inst.EndInfo() == nil { // an ended one said why above
			add(plain("Initializing…", th.PanelMuted))
		}
		return
	}
	d := cat.Descriptor
	for _, l := range wrapWords(host.Printable(capText(d.Description, maxTickField), false), w) {
		add(plain(l, th.Panel))
	}
	blank()

	st := inst.State()
	heading("STATE", seg{fmt.Sprintf("seq %d · at %s", st.Seq, host.Printable(st.At, false)), th.PanelMuted})
	switch {
	case !st.Valid:
		add(plain("(none yet)", th.PanelMuted))
	case string(st.Data) == "null":
		add(plain("null (the Tick has no content yet)", th.PanelMuted))
	default:
		key := stateKey{inst.ID(), st.Seq, st.Received}
		if key != p.stateKey {
			p.stateKey, p.stateLines = key, prettyJSON(st.Data, th, 2000)
		}
		for _, l := range p.stateLines {
			add(l)
		}
	}
	blank()

	// Catalog.
	heading(fmt.Sprintf("TOOLS (%d)", len(d.Tools)), seg{p.schemaHint(), th.PanelMuted})
	if d.RecoverWith != "" {
		add(line{{"recover with ", th.PanelMuted}, untrusted(capText(d.RecoverWith, 200), th.Panel)})
	}
	for _, t := range d.Tools {
		badge := seg{" query ", th.Query}
		if t.Mutates || inst.ToolNeedsApproval(t.Name) {
			badge = seg{" MUTATES ", th.Mutates}
		}
		add(line{badge, {" ", th.Panel}, untrusted(capText(t.Name, 200), th.TitleFocused)})
		for _, l := range wrapWords(host.Printable(capText(t.Description, maxTickField), false), w-2) {
			add(plain("  "+l, th.Panel))
		}
		if p.schemas {
			for _, l := range prettyJSON(compactJSON(t.InputSchema), th, 200) {
				// Wrapped, every cell kept, not cut at the panel's edge.
				for _, wl := range wrapLine(l, max(w-4, 8)) {
					add(append(line{{"    ", th.Panel}}, wl...))
				}
			}
		}
	}
	blank()

	// Recent calls, newest first.
	calls := inst.Calls()
	heading(fmt.Sprintf("RECENT CALLS (%d)", len(calls)))
	if len(calls) == 0 {
		add(plain("none yet", th.PanelMuted))
	}
	for i := len(calls) - 1; i >= 0 && i >= len(calls)-20; i-- {
		for _, l := range p.callLines(calls[i]) {
			add(l)
		}
	}
}

// exitNote is the exit status after the reason, unless the reason says it already ("the Tick
// exited (exit status 3)").
func exitNote(e *host.EndInfo) string {
	if e.ExitStatus == "" || strings.Contains(e.Reason, e.ExitStatus) {
		return ""
	}
	return " (" + e.ExitStatus + ")"
}

func statusSeg(th *themes.Theme, s host.Status) seg {
	switch s {
	case host.StatusStarting:
		return seg{"starting", th.StatusStarting}
	case host.StatusReady:
		return seg{"ready", th.StatusReady}
	}
	return seg{"ended", th.StatusEnded}
}

func (p *SidePanel) keyHint(mode keymap.Mode, a keymap.Action, what string) string {
	keys := p.keys.KeysFor(mode, a)
	if len(keys) == 0 {
		return ""
	}
	prefix := ""
	if mode == keymap.ModePrefix {
		prefix = p.keys.Prefix.String() + " "
	}
	return prefix + keys[0].String() + " " + what
}

func (p *SidePanel) schemaHint() string {
	if !p.focused {
		return p.keyHint(keymap.ModePrefix, keymap.FocusPanel, "focus the panel")
	}
	if p.schemas {
		return p.keyHint(keymap.ModePanel, keymap.ToggleSchemas, "hide schemas")
	}
	return p.keyHint(keymap.ModePanel, keymap.ToggleSchemas, "show schemas")
}

// revokeHint says which keys revoke a grant: "1–9 revokes" while the panel has the focus, with
// the key that gives it the focus before it when it has not.
func (p *SidePanel) revokeHint() string {
	first, last := p.keys.KeysFor(keymap.ModePanel, keymap.RevokeGrant(1)), p.keys.KeysFor(keymap.ModePanel, keymap.RevokeGrant(9))
	hint := ""
	switch {
	case len(first) > 0 && len(last) > 0:
		hint = first[0].String() + "–" + last[0].String() + " revokes"
	case len(first) > 0:
		hint = first[0].String() + " revokes the first"
	default:
		return ""
	}
	if !p.focused {
		return p.keyHint(keymap.ModePrefix, keymap.FocusPanel, "then "+hint)
	}
	return hint
}

// callLines shows one call in two lines: when, who and which tool; then the outcome and the args.
func (p *SidePanel) callLines(c host.CallRecord) []line {
	th := p.theme
	head := line{{c.Started.Format("15:04:05") + " ", th.PanelMuted}, untrusted(c.Client, th.Panel), {" → ", th.PanelMuted}, untrusted(c.Tool, th.TitleFocused)}
	var out line
	switch {
	case c.Finished.IsZero() && c.Approval == "pending":
		out = line{{"  waiting for approval", th.StatusStarting}}
	case c.Finished.IsZero():
		out = line{{"  running", th.StatusStarting}}
	case c.OK:
		what := "  ok"
		if c.Approval != "" {
			what += " (" + c.Approval + answeredBy(c) + ")"
		}
		out = line{{what, th.OK}}
	default:
		what := "error"
		if c.Approval == "denied" || c.Approval == "voided" || c.Approval == "withdrawn" {
			what = c.Approval + answeredBy(c)
		}
		out = line{{"  " + what + ", effect " + string(c.Effect), th.Error}}
	}
	out = append(out, seg{" ", th.Panel}, untrusted(shorten(string(c.Args), 60), th.JSONString))
	lines := []line{head, out}
	if !c.OK && c.Error != "" {
		lines = append(lines, line{{"  ", th.Panel}, untrusted(shorten(c.Error, 200), th.Error)})
	}
	return append(lines, p.changeLines(c, "  ")...)
}

// answeredBy names the view that answered the call's card, after the answer: " by view 2
// /dev/pts/5".
func answeredBy(c host.CallRecord) string {
	if c.AnsweredBy == "" {
		return ""
	}
	return " by " + host.Printable(capText(c.AnsweredBy, 200), false)
}

// shorten keeps at most n runes of s, the last an ellipsis when it cut. It looks at no more than
// n+1 runes: a Tick's title may be 400,000 characters and this runs on every frame.
func shorten(s string, n int) string {
	count := 0
	cut := 0
	for i := range s {
		if count == n-1 {
			cut = i
		}
		if count == n {
			return s[:cut] + "…"
		}
		count++
	}
	return s
}

// compactJSON is raw without insignificant whitespace, and otherwise as sent: no HTML escaping,
// so `&&` on a card reads as what goes to the Tick.
func compactJSON(raw []byte) []byte {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return []byte("null")
	}
	return b.Bytes()
}

// sparkline draws counts as block characters, scaled to the largest.
func sparkline(counts []int, cols int) string {
	if cols <= 0 || len(counts) == 0 {
		return ""
	}
	// Fold the buckets into cols columns, newest on the right.
	per := (len(counts) + cols - 1) / cols
	var folded []int
	for i := len(counts); i > 0; i -= per {
		sum := 0
		for j := max(0, i-per); j < i; j++ {
			sum += counts[j]
		}
		folded = append([]int{sum}, folded...)
	}
	top := 0
	for _, c := range folded {
		top = max(top, c)
	}
	bars := []rune("▁▂▃▄▅▆▇█")
	var b strings.Builder
	for _, c := range folded {
		switch {
		case c == 0:
			b.WriteRune(' ')
		default:
			b.WriteRune(bars[min(len(bars)-1, (c*len(bars)-1)/top)])
		}
	}
	return b.String()
}

func rateNote(counts []int) string {
	total := 0
	for _, c := range counts {
		total += c
	}
	return fmt.Sprintf("%d in the last minute", total)
}

// headRoom is how many rows the head may take of h: all it needs, but the body keeps a third of
// the panel (or what it needs, if less) and a separator row; while a card has the focus (card
// mode), all of it: the card is what the person reads then, and at 80x24 the body's third made
// the demo's first card need paging.
func (p *SidePanel) headRoom(h, bodyLen int) int {
	if bodyLen == 0 || p.cardID != 0 {
		return h
	}
	return max(3, h-1-min(bodyLen, max(4, h/3)))
}

// regions splits the inner height h into the head's rows and the body's.
func (p *SidePanel) regions(h int) (headH, bodyH int) {
	headH = min(len(p.head), p.headRoom(h, len(p.body)))
	bodyH = h - headH
	if headH > 0 && len(p.body) > 0 {
		bodyH-- // the separator
	}
	return headH, max(0, bodyH)
}

func (p *SidePanel) clampScroll() {
	_, _, _, h := p.GetInnerRect()
	headH, bodyH := p.regions(h)
	p.scroll = max(0, min(p.scroll, len(p.body)-max(1, bodyH)))
	p.headScroll = max(0, min(p.headScroll, len(p.head)-max(1, headH)))
}

// ScrollBy moves the view by n lines: through the focused card when there is one, else the body.
func (p *SidePanel) ScrollBy(n int) {
	if p.cardID != 0 {
		p.ScrollCard(n)
		return
	}
	p.scroll += n
	p.clampScroll()
}

// ShowFocusedCard scrolls the head so the focused card is in view: all of it when it fits, else
// its top.
func (p *SidePanel) ShowFocusedCard() {
	_, _, w, h := p.GetInnerRect()
	if p.cardsTop < 0 || (p.cardID == p.shownCard && [2]int{w, h} == p.shownIn) {
		return
	}
	p.shownCard, p.shownIn = p.cardID, [2]int{w, h} // a panel resized shows the card anew
	headH, _ := p.regions(h)
	switch {
	case p.cardsTop < p.headScroll:
		p.headScroll = p.cardsTop
	case p.cardsEnd > p.headScroll+headH && p.cardsEnd-p.cardsTop <= headH:
		p.headScroll = p.cardsEnd - headH
	case p.cardsTop >= p.headScroll+headH:
		p.headScroll = p.cardsTop
	}
	p.clampScroll()
}

// ScrollCard moves through the focused card by n lines, staying within it: how a person reads a
// card taller than the room the head has.
func (p *SidePanel) ScrollCard(n int) {
	if p.cardsTop < 0 {
		return
	}
	_, _, _, h := p.GetInnerRect()
	headH, _ := p.regions(h)
	p.headScroll = min(max(p.headScroll+n, p.cardsTop), max(p.cardsTop, p.cardsEnd-headH))
	p.clampScroll()
}

// CardRead reports whether the focused card's last line has been on screen.
func (p *SidePanel) CardRead(id uint64) bool { return p.endSeen[id] }

// Draw copies the built lines to the screen: the head at the top, the body below a rule.
func (p *SidePanel) Draw(screen tcell.Screen) {
	bs := p.borderStyle()
	fg, _, _ := bs.Decompose()
	_, bg, _ := p.theme.Panel.Decompose()
	// The frame on the theme's own background, its title in the border's colour: a light theme on
	// a dark terminal (or the reverse) keeps it readable (issue 42 item 11).
	p.Box.SetBorder(true).SetBorderStyle(bs).SetTitle(" agent panel ").SetTitleAlign(tview.AlignLeft).SetTitleColor(fg)
	p.Box.SetBackgroundColor(bg)
	x, y, w, h := p.GetInnerRect()
	p.clampScroll()
	headH, bodyH := p.regions(h)
	// What this draw shows, row by row; only the rows that differ from the last draw are drawn
	// (all of them when the frame moved or something drew over the panel). A flood of updates
	// to an instance the panel does not show draws nothing; to the one it shows, its changed lines.
	bx, by, bw, bh := p.GetRect()
	cur := &p.next
	cur.frame, cur.style = [4]int{bx, by, bw, bh}, p.borderStyle()
	cur.segs, cur.rows = cur.segs[:0], cur.rows[:0]
	rows := func(lines []line, first, n int) {
		for i := 0; i < n; i++ {
			var l line
			if first+i < len(lines) {
				l = lines[first+i]
			}
			var mark rune
			if i == 0 && first > 0 {
				mark = '↑'
			}
			if i == n-1 && first+n < len(lines) {
				mark = '↓'
			}
			cur.add(l, mark, false)
		}
	}
	rows(p.head, p.headScroll, headH)
	if headH > 0 && len(p.body) > 0 && len(cur.rows) < h {
		cur.add(plain(strings.Repeat("┄", w), p.theme.PanelMuted), 0, true)
	}
	rows(p.body, p.scroll, bodyH)
	for len(cur.rows) < h {
		cur.add(nil, 0, false) // clear what is left
	}
	whole := !p.drawnOK || cur.frame != p.drawn.frame || cur.style != p.drawn.style || len(cur.rows) != len(p.drawn.rows)
	if whole {
		p.Box.DrawForSubclass(screen, p)
	}
	for i, r := range cur.rows {
		if !whole && cur.sameRow(&p.drawn, i) {
			continue
		}
		if r.rule {
			drawText(screen, x, y+i, w, cur.line(i), p.theme.Panel)
			continue
		}
		drawText(screen, x+1, y+i, w-1, cur.line(i), p.theme.Panel)
		screen.SetContent(x, y+i, ' ', nil, p.theme.Panel)
		if r.mark != 0 {
			screen.SetContent(x+w-1, y+i, r.mark, nil, p.theme.PanelMuted)
		}
	}
	p.drawn, p.next = p.next, p.drawn
	p.drawnOK = true
	p.noteSeen(headH)
}

// noteSeen records which card the person has seen whole, and which one is on top.
func (p *SidePanel) noteSeen(headH int) {
	if p.cardID != 0 && p.cardsTop >= 0 && p.cardsEnd <= p.headScroll+headH {
		p.endSeen[p.cardID] = true // the card's last line is on screen now
	}
	switch {
	case p.firstCard == 0:
		p.topSeen = 0 // no card left: the next one takes nobody's place
	case p.firstCardAt >= p.headScroll && p.firstCardAt < p.headScroll+headH && p.firstCard != p.topSeen:
		if p.topSeen != 0 {
			p.topSwapped = time.Now()
		}
		p.topSeen = p.firstCard
	}
}

// CardAnswered notes that the person answered card id: the card after it takes nobody's place.
func (p *SidePanel) CardAnswered(id uint64) {
	if p.topSeen == id {
		p.topSeen = 0
	}
}

// TopCardSeen is the card last drawn at the top of the cards (0 when none was ever drawn) and
// when it took the place of another card there (zero when it did not).
func (p *SidePanel) TopCardSeen() (uint64, time.Time) { return p.topSeen, p.topSwapped }

func (p *SidePanel) borderStyle() tcell.Style {
	if p.focused {
		return p.theme.BorderFocused
	}
	return p.theme.Border
}
