package views

import (
	"strings"
	"testing"

	"tickmux/config"
	"tickmux/host"
)

// A notification's text is the agent's and the Tick's: whatever they put in it, the sequence
// has its own start and end only, so nothing can end it early and write to the terminal.
func TestAttentionSequenceEscapesTheCard(t *testing.T) {
	c := host.Card{ID: 3, Req: host.ApprovalRequest{Action: host.ActionCall, Client: "evil\x1b\\\x07\x1b]0;pwned\x07", Instance: "hosted:1",
		Title: "T\x9c\x1b[2J", Tool: "rm\a"}}
	for mode, frame := range map[string][2]string{
		config.NotifyOSC9:   {"\x1b]9;tickmux card 3: ", "\x1b\\"},
		config.NotifyOSC777: {"\x1b]777;notify;tickmux;card 3: ", "\x1b\\"},
	} {
		seq := string(attentionSeq(mode, c))
		body, ok := strings.CutPrefix(seq, frame[0])
		body, ok2 := strings.CutSuffix(body, frame[1])
		if !ok || !ok2 {
			t.Fatalf("%s: %q is not framed as %q … %q", mode, seq, frame[0], frame[1])
		}
		for _, r := range body {
			if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
				t.Fatalf("%s: the text holds control character %U: %q", mode, r, body)
			}
		}
	}
	if s := attentionSeq(config.NotifyBell, c); string(s) != "\a" {
		t.Errorf("bell: %q", s)
	}
	if s := attentionSeq(config.NotifyNone, c); s != nil {
		t.Errorf("none: %q", s)
	}
}
