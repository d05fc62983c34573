package views

// uiState is the App's UI-goroutine state for the float's place, tabs, the paste buffer, the
// last pane and the prompt's history (kept here, apart from app.go).
type uiState struct {
	floatPlace Place // where the floating pane was among the tiles
}
