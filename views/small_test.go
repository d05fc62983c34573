package views

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// spec: H-X2
func TestEndedPaneSaysTheExitStatusOnce(t *testing.T) {
	hs := newHarness(t, 120, 30)
	hs.start()
	hs.openShell("echo bye; exit 0", "")
	s := hs.waitFor("ended: ")
	if strings.Contains(s, "(exit status 0) (exit status 0)") {
		t.Fatalf("the exit status is said twice:\n%s", s)
	}
	if !strings.Contains(s, "exit status 0") {
		t.Fatalf("the exit status is not said:\n%s", s)
	}
}

// docs/reference.md CONFIGURATION: the help names the config file.
func TestHelpNamesTheConfigFileInUse(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	hs := newHarness(t, 160, 40)
	hs.start()
	hs.prefix()
	hs.typeText("?")
	hs.waitFor("(config: " + filepath.Join(dir, "tickmux") + "/config") // the path may be cut at the overlay's edge
}

// The float's "put back" returns the pane where it was, not beside whatever has the focus.
// Key table (README "Using tickmux"): prefix `w`: float, then put back.
func TestFloatPutBackWhereItWas(t *testing.T) {
	hs, _ := tickBesideShell(t, 160, 50)
	hs.prefix()
	hs.typeText("\"") // shell:2 below shell:1
	hs.waitFor("shell:2")
	hs.prefix()
	hs.typeText("h") // back to the Tick on the left
	before := hs.rects()
	// Float shell:1 (top right), then put it back.
	hs.app.app.QueueUpdateDraw(func() { hs.app.setFocus("shell:1") })
	hs.sync()
	hs.prefix()
	hs.typeText("F") // float (tmux's w is choose-tree)
	waitUntil(t, "shell:1 floats", func() bool { return onUIValue(hs, func() bool { return hs.app.tab.floatID == "shell:1" }) })
	hs.prefix()
	hs.typeText("F") // float (tmux's w is choose-tree)
	waitUntil(t, "shell:1 is back", func() bool { return onUIValue(hs, func() bool { return hs.app.tab.floatID == "" }) })
	if after := hs.rects(); !reflect.DeepEqual(before, after) {
		t.Fatalf("put back elsewhere:\nbefore %v\nafter  %v", before, after)
	}
}
