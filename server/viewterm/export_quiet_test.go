package viewterm

import "time"

// SetPasteQuiet sets pasteQuiet for a test; the returned function puts it back.
func SetPasteQuiet(d time.Duration) (restore func()) {
	old := pasteQuiet
	pasteQuiet = d
	return func() { pasteQuiet = old }
}
