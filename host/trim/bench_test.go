package trim

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"tickmux/tick/wire"
)

// benchState is a state near the 512 KiB update limit: 4000 candles in a series, 200 news items
// with long bodies, and a few small members.
func benchState() (json.RawMessage, []wire.Series) {
	var b strings.Builder
	b.WriteString(`{"symbol":"ACME","price":123.45,"candles":[`)
	for i := range 4000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"t":"2026-11-30T09:%02d:00Z","o":%d.5,"h":%d.75,"l":%d.125,"c":%d.25,"v":%d}`, i%60, i, i, i, i, i*100)
	}
	b.WriteString(`],"news":[`)
	for i := range 200 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%d,"title":"Headline %d","body":"%s"}`, i, i, strings.Repeat("lorem ipsum dolor ", 50))
	}
	b.WriteString(`],"positions":{"ACME":10,"FOO":-3}}`)
	return json.RawMessage(b.String()), []wire.Series{{Path: "/candles", Newest: wire.NewestLast}, {Path: "/news", Newest: wire.NewestFirst}}
}

func BenchmarkData(b *testing.B) {
	data, series := benchState()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		Data(data, series, EntryBudget)
	}
}

func BenchmarkFit(b *testing.B) {
	data, series := benchState()
	entries := make([]Entry, 4)
	for i := range entries {
		entries[i] = Entry{ID: fmt.Sprintf("hosted:%d", i), Seq: 1, At: "2026-11-30T09:00:00Z", Data: data, Series: series}
	}
	b.SetBytes(int64(4 * len(data)))
	for b.Loop() {
		Fit(entries)
	}
}
