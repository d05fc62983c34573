package host

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"tickmux/tick/wire"
)

// A Tick that writes JSON the way Python's json.dumps does by default (every non-ASCII character
// as a \u escape) is measured on the host's re-encoding, not on what it wrote: a 420 KiB
// describe written as 840 KiB, a 420 KiB read result, and a 300 KiB update written as 600 KiB
// all pass; the session goes on, and the data keeps every character.
//
// spec: 2.3
// spec: 3.5
// spec: H-D1
// spec: H-U1
func TestSizesAreMeasuredReencoded(t *testing.T) {
	t.Parallel()
	h := newTestHost(t, Config{})
	in := openReady(t, h, "asciijson") // describe and read both over 512 KiB as written
	if d := in.Catalog().Descriptor.Description; d != cjk(140<<10) {
		t.Errorf("the description lost characters: %d bytes", len(d))
	}
	mustCall(t, in, "misbehave", `{"what":"updatecjk"}`) // the update comes before the answer
	st := in.State()
	var data struct{ Text string }
	if err := json.Unmarshal(st.Data, &data); err != nil || data.Text != cjk(100<<10) {
		t.Fatalf("the update was not kept whole (%v): %d bytes of text", err, len(data.Text))
	}
	if wire.EncodedLen(st.Data) > MaxUpdateBytes || len(st.Data) <= MaxUpdateBytes {
		t.Fatalf("the test does not test: %d bytes written, %d re-encoded", len(st.Data), wire.EncodedLen(st.Data))
	}
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	if _, err := in.Read(ctx); err != nil {
		t.Fatalf("read: %v", err)
	}
	if st := in.Status(); st != StatusReady {
		t.Fatalf("status %s: %+v", st, in.EndInfo())
	}
}

// The scanner's count of a span's re-encoded size agrees with wire.EncodedLen, escapes and all.
//
// spec: 2.3
func TestScannedSizeIsReencodedSize(t *testing.T) {
	t.Parallel()
	for _, data := range []string{
		`"plain"`,
		`"caf\u00e9 \u4e2d \/ \" \\ \n \u000a \u0001 \u001F \ud83d\ude00 \ud800 \udc00x \u0041"`,
		`{ "k\u00e9y" : [ 1 , 5000E-1 , "\u2028" ] }`,
	} {
		line := `{"jsonrpc":"2.0","method":"tick/update","params":{"seq":1,"data":` + data + `}}`
		sc, err := scanLine([]byte(line))
		if err != nil {
			t.Fatalf("%s: %v", data, err)
		}
		if got, want := sc.state.data.compactLen(), wire.EncodedLen([]byte(data)); got != want {
			t.Errorf("%s: scanned %d, EncodedLen %d", data, got, want)
		}
		params := line[strings.Index(line, `{"seq"`) : len(line)-1]
		if got, want := sc.params.compactLen(), wire.EncodedLen([]byte(params)); got != want {
			t.Errorf("%s: params scanned %d, EncodedLen %d", data, got, want)
		}
	}
}
