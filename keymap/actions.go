package keymap

import "fmt"

// Action names something tickmux can do. Actions are what the config file binds keys to.
type Action string

// ActionNone unbinds a key.
const ActionNone Action = "none"

const (
	SplitRight     Action = "split-right"
	SplitDown      Action = "split-down"
	SplitSandboxed Action = "split-sandboxed"
	FocusLeft      Action = "focus-left"
	FocusRight     Action = "focus-right"
	FocusUp        Action = "focus-up"
	FocusDown      Action = "focus-down"
	FocusNext      Action = "focus-next"
	ResizeLeft     Action = "resize-left"
	ResizeRight    Action = "resize-right"
	ResizeUp       Action = "resize-up"
	ResizeDown     Action = "resize-down"
	Zoom           Action = "zoom"
	ClosePane      Action = "close-pane"
	SwapNext       Action = "swap-next"
	SwapPrev       Action = "swap-prev"
	ToggleFloat    Action = "toggle-float"
	Prompt         Action = "prompt"
	NewShell       Action = "new-shell"
	TogglePanel    Action = "toggle-panel"
	FocusPanel     Action = "focus-panel"
	Approvals      Action = "approvals"
	Help           Action = "help"
	ScrollMode     Action = "scroll-mode"
	Lock           Action = "lock"
	Unlock         Action = "unlock"
	Quit           Action = "quit"
	Detach         Action = "detach"
	Suspend        Action = "suspend"
	SendPrefix     Action = "send-prefix"

	NextLayout           Action = "next-layout"
	LayoutEvenHorizontal Action = "select-layout-even-horizontal"
	LayoutEvenVertical   Action = "select-layout-even-vertical"
	LayoutMainHorizontal Action = "select-layout-main-horizontal"
	LayoutMainVertical   Action = "select-layout-main-vertical"
	LayoutTiled          Action = "select-layout-tiled"
	BreakPane            Action = "break-pane"
	KillTab              Action = "kill-tab"
	ChooseTree           Action = "choose-tree"

	NewTab       Action = "new-tab"
	NextTab      Action = "next-tab"
	PrevTab      Action = "prev-tab"
	RenameTab    Action = "rename-tab"
	RenamePane   Action = "rename-pane"
	LastPane     Action = "last-pane"
	DisplayPanes Action = "display-panes"
	RespawnPane  Action = "respawn-pane"
	RunPlain     Action = "run-plain"
	PasteBuffer  Action = "paste-buffer"
	ChooseBuffer Action = "choose-buffer"
	SelectTab0   Action = "select-tab-0"
	SelectTab1   Action = "select-tab-1"
	SelectTab2   Action = "select-tab-2"
	SelectTab3   Action = "select-tab-3"
	SelectTab4   Action = "select-tab-4"
	SelectTab5   Action = "select-tab-5"
	SelectTab6   Action = "select-tab-6"
	SelectTab7   Action = "select-tab-7"
	SelectTab8   Action = "select-tab-8"
	SelectTab9   Action = "select-tab-9"

	AllowOnce     Action = "allow-once"
	AllowRevision Action = "allow-revision"
	Deny          Action = "deny"
	DenyAll       Action = "deny-all"
	LeaveCard     Action = "leave-card"
	NextCard      Action = "next-card"
	PrevCard      Action = "prev-card"

	ToggleSchemas Action = "toggle-schemas"
	LeavePanel    Action = "leave-panel"
	RevokeGrant1  Action = "revoke-grant-1"
	RevokeGrant2  Action = "revoke-grant-2"
	RevokeGrant3  Action = "revoke-grant-3"
	RevokeGrant4  Action = "revoke-grant-4"
	RevokeGrant5  Action = "revoke-grant-5"
	RevokeGrant6  Action = "revoke-grant-6"
	RevokeGrant7  Action = "revoke-grant-7"
	RevokeGrant8  Action = "revoke-grant-8"
	RevokeGrant9  Action = "revoke-grant-9"

	ScrollUp       Action = "scroll-up"
	ScrollDown     Action = "scroll-down"
	PageUp         Action = "page-up"
	PageDown       Action = "page-down"
	ScrollTop      Action = "scroll-top"
	ScrollBottom   Action = "scroll-bottom"
	SearchBackward Action = "search-backward"
	SearchForward  Action = "search-forward"
	SearchNext     Action = "search-next"
	SearchPrev     Action = "search-prev"
	StartSelection Action = "start-selection"
	CursorLeft     Action = "cursor-left"
	CursorRight    Action = "cursor-right"
	Copy           Action = "copy"
	ExitMode       Action = "exit-mode"
	LineStart      Action = "start-of-line"
	LineEnd        Action = "end-of-line"
	NextWord       Action = "next-word"
	PrevWord       Action = "previous-word"
	WordEnd        Action = "next-word-end"
	ScreenTop      Action = "top-line"
	ScreenMiddle   Action = "middle-line"
	ScreenBottom   Action = "bottom-line"
	HalfPageUp     Action = "halfpage-up"
	HalfPageDown   Action = "halfpage-down"
	SelectLine     Action = "select-line"
)

var allActions = []struct {
	action Action
	help   string
}{
	{SplitRight, "split the pane: new shell to the right"},
	{SplitDown, "split the pane: new shell below"},
	{SplitSandboxed, "split the pane: new sandboxed shell (bubblewrap) to the right"},
	{FocusLeft, "focus the pane to the left"},
	{FocusRight, "focus the pane to the right"},
	{FocusUp, "focus the pane above"},
	{FocusDown, "focus the pane below"},
	{FocusNext, "focus the next pane"},
	{ResizeLeft, "move the border left"},
	{ResizeRight, "move the border right"},
	{ResizeUp, "move the border up"},
	{ResizeDown, "move the border down"},
	{Zoom, "zoom the pane (again to unzoom)"},
	{ClosePane, "close the pane and end its program"},
	{SwapNext, "swap the pane with the next one"},
	{SwapPrev, "swap the pane with the previous one"},
	{ToggleFloat, "float the pane over the others, or put it back"},
	{Prompt, "open a Tick or a shell from a command line"},
	{NewShell, "open a shell in a new pane"},
	{TogglePanel, "show or hide the agent side panel"},
	{FocusPanel, "move the focus to the side panel (scroll it; Tab again to return)"},
	{Approvals, "jump to the oldest pending approval"},
	{Help, "show every key binding"},
	{ScrollMode, "scroll back, search and copy"},
	{Lock, "locked mode: every key goes to the pane"},
	{Unlock, "leave locked mode"},
	{Quit, "quit tickmux (ends every program); quit or kill-server at the : prompt too"},
	{Detach, "detach this view; every program keeps running (tickmux attach comes back)"},
	{Suspend, "suspend this view: its shell has the terminal until fg (every program keeps running)"},
	{SendPrefix, "send the prefix key to the pane"},
	{NextLayout, "arrange the panes as the next preset layout"},
	{LayoutEvenHorizontal, "layout: panes side by side, equal widths"},
	{LayoutEvenVertical, "layout: panes one above the other, equal heights"},
	{LayoutMainHorizontal, "layout: the first pane on top, the others below it"},
	{LayoutMainVertical, "layout: the first pane on the left, the others beside it"},
	{LayoutTiled, "layout: the panes in a grid"},
	{BreakPane, "move the pane to a new tab of its own"},
	{KillTab, "close the tab and end every program in it (asks first)"},
	{ChooseTree, "choose a tab or a pane from a list"},
	{NewTab, "open a new tab (tmux's window) with a shell"},
	{NextTab, "go to the next tab"},
	{PrevTab, "go to the previous tab"},
	{RenameTab, "rename the tab"},
	{SelectTab0, "go to tab 0"},
	{SelectTab1, "go to tab 1"},
	{SelectTab2, "go to tab 2"},
	{SelectTab3, "go to tab 3"},
	{SelectTab4, "go to tab 4"},
	{SelectTab5, "go to tab 5"},
	{SelectTab6, "go to tab 6"},
	{SelectTab7, "go to tab 7"},
	{SelectTab8, "go to tab 8"},
	{SelectTab9, "go to tab 9"},
	{RenamePane, "rename the pane"},
	{LastPane, "go back to the pane focused before"},
	{DisplayPanes, "show pane numbers; type one to go there"},
	{RespawnPane, "start an ended pane's program again, in the same place"},
	{RunPlain, "run a program that failed as a Tick again as a plain program, in the same place"},
	{PasteBuffer, "paste what copy mode copied last into the pane"},
	{ChooseBuffer, "choose one of the last 20 copies (paste buffers) to paste into the pane"},
	{AllowOnce, "allow this request once"},
	{AllowRevision, "allow this tool while the catalog revision stays the same, and its cards waiting"},
	{Deny, "deny this request"},
	{DenyAll, "deny every waiting card of this Tick or agent (asks first)"},
	{LeaveCard, "leave the card pending"},
	{NextCard, "next pending card"},
	{PrevCard, "previous pending card"},
	{ToggleSchemas, "show or hide each tool's input schema"},
	{LeavePanel, "give the focus back to the pane"},
	{RevokeGrant1, "revoke grant 1 of ALLOWED WITHOUT A CARD (asks first)"},
	{RevokeGrant2, "revoke grant 2 of ALLOWED WITHOUT A CARD (asks first)"},
	{RevokeGrant3, "revoke grant 3 of ALLOWED WITHOUT A CARD (asks first)"},
	{RevokeGrant4, "revoke grant 4 of ALLOWED WITHOUT A CARD (asks first)"},
	{RevokeGrant5, "revoke grant 5 of ALLOWED WITHOUT A CARD (asks first)"},
	{RevokeGrant6, "revoke grant 6 of ALLOWED WITHOUT A CARD (asks first)"},
	{RevokeGrant7, "revoke grant 7 of ALLOWED WITHOUT A CARD (asks first)"},
	{RevokeGrant8, "revoke grant 8 of ALLOWED WITHOUT A CARD (asks first)"},
	{RevokeGrant9, "revoke grant 9 of ALLOWED WITHOUT A CARD (asks first)"},
	{ScrollUp, "scroll up a line"},
	{ScrollDown, "scroll down a line"},
	{PageUp, "scroll up a page"},
	{PageDown, "scroll down a page"},
	{ScrollTop, "go to the top (in scroll mode: the oldest line)"},
	{ScrollBottom, "go to the bottom (in scroll mode: the newest line)"},
	{SearchBackward, "search towards older lines"},
	{SearchForward, "search towards newer lines"},
	{SearchNext, "repeat the search"},
	{SearchPrev, "repeat the search the other way"},
	{StartSelection, "start selecting"},
	{CursorLeft, "move the cursor left"},
	{CursorRight, "move the cursor right"},
	{Copy, "copy the selection (OSC 52 and the system clipboard)"},
	{ExitMode, "leave scroll mode"},
	{LineStart, "go to the start of the line"},
	{LineEnd, "go to the end of the line"},
	{NextWord, "go to the next word"},
	{PrevWord, "go to the previous word"},
	{WordEnd, "go to the end of the word"},
	{ScreenTop, "go to the top line on screen"},
	{ScreenMiddle, "go to the middle line on screen"},
	{ScreenBottom, "go to the bottom line on screen"},
	{HalfPageUp, "scroll up half a page"},
	{HalfPageDown, "scroll down half a page"},
	{SelectLine, "select whole lines"},
}

// SelectTab is the action going to tab n (0 to 9).
func SelectTab(n int) Action { return Action(fmt.Sprintf("select-tab-%d", n)) }

// TabOf reports which tab a select-tab action goes to.
func TabOf(a Action) (int, bool) {
	var n int
	if _, err := fmt.Sscanf(string(a), "select-tab-%d", &n); err != nil || n < 0 || n > 9 {
		return 0, false
	}
	return n, true
}

// RevokeGrant is the action revoking the n-th grant the side panel lists (1 to 9).
func RevokeGrant(n int) Action { return Action(fmt.Sprintf("revoke-grant-%d", n)) }

// GrantOf reports which grant (1 to 9) a revoke-grant action revokes.
func GrantOf(a Action) (int, bool) {
	var n int
	if _, err := fmt.Sscanf(string(a), "revoke-grant-%d", &n); err != nil || n < 1 || n > 9 {
		return 0, false
	}
	return n, true
}

// Valid reports whether a names an action.
func (a Action) Valid() bool {
	for _, x := range allActions {
		if x.action == a {
			return true
		}
	}
	return false
}

// Help is a one-line description of the action.
func (a Action) Help() string {
	for _, x := range allActions {
		if x.action == a {
			return x.help
		}
	}
	return ""
}
