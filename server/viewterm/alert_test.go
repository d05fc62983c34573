package viewterm_test

import "testing"

// An alert (a waiting card's bell) goes out with the next frame, once, even a frame with no cell
// to draw.
func TestAlertWrittenWithTheNextFrame(t *testing.T) {
	sc, tty := started(t, "xterm-256color", 20, 4, "UTF-8")
	sc.Show()
	tty.take()
	sc.Alert([]byte("\a"))
	sc.Show()
	if out := tty.take(); out != "\a" {
		t.Fatalf("the frame after the alert wrote %q, want the bell alone", out)
	}
	sc.Show()
	if out := tty.take(); out != "" {
		t.Fatalf("the alert went out twice: %q", out)
	}
}
