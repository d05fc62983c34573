package trim

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"tickmux/tick/wire"
)

// bigState is a state of about n candles in a declared series, plus a status.
func bigState(n int) (json.RawMessage, []wire.Series) {
	var c []string
	for i := range n {
		c = append(c, fmt.Sprintf(`{"t":"2026-11-30T09:%02d:00Z","o":%d.5,"c":%d.25}`, i%60, 100+i, 101+i))
	}
	return json.RawMessage(`{"status":"open","candles":[` + strings.Join(c, ",") + `]}`), last("/candles")
}

func entry(id string, data json.RawMessage, series []wire.Series) Entry {
	return Entry{ID: id, Seq: 42, At: "2026-11-30T09:00:00Z", Data: data, Merged: 5, RecoverWith: "history", Series: series}
}

// spec: H-SUB2
func TestFitLoneEntryMayUseTotalBudget(t *testing.T) {
	data, series := bigState(200) // about 9 KiB
	in := []Entry{entry("hosted:1", data, series)}
	out := Fit(in)
	if size := entrySize(t, out[0]); size <= EntryBudget || size > TotalBudget {
		t.Fatalf("lone entry of %d bytes", size)
	}
	if !reflect.DeepEqual(out, in) {
		t.Fatal("a lone entry within 16 KiB was changed")
	}
}

// spec: H-SUB2
// With several entries each gets 4 KiB; the trim pays for its report out of that, keeps the
// newest end of the series, and fills the budget: one more candle would not fit.
func TestFitSeveralEntries(t *testing.T) {
	data, series := bigState(200)
	small := entry("hosted:2", json.RawMessage(`{"count":3}`), nil)
	in := []Entry{entry("hosted:1", data, series), small}
	out := Fit(in)

	if !reflect.DeepEqual(out[1], small) {
		t.Fatalf("small entry changed: %+v", out[1])
	}
	size := entrySize(t, out[0])
	if size > EntryBudget {
		t.Fatalf("entry of %d bytes, over %d", size, EntryBudget)
	}
	var got struct {
		Status  string            `json:"status"`
		Candles []json.RawMessage `json:"candles"`
	}
	if err := json.Unmarshal(out[0].Data, &got); err != nil {
		t.Fatal(err)
	}
	var orig struct{ Candles []json.RawMessage }
	if err := json.Unmarshal(data, &orig); err != nil {
		t.Fatal(err)
	}
	kept := len(got.Candles)
	if got.Status != "open" || string(got.Candles[kept-1]) != string(orig.Candles[199]) {
		t.Fatalf("status or newest candle lost: %s", out[0].Data)
	}
	if string(got.Candles[0]) != string(orig.Candles[200-kept]) {
		t.Fatalf("candles are not the newest %d", kept)
	}
	want := []Dropped{{Pointer: "/candles", Dropped: 200 - kept, What: WhatElements}}
	if !reflect.DeepEqual(out[0].Trimmed, want) {
		t.Fatalf("trimmed %+v, want %+v", out[0].Trimmed, want)
	}
	if size+len(orig.Candles[200-kept-1])+1 <= EntryBudget {
		t.Fatalf("entry of %d bytes left room for another candle", size)
	}
}

// spec: H-SUB2
// More entries than fit at 4 KiB each share 16 KiB; small ones leave their room to big ones.
func TestFitManyEntriesShareTotalBudget(t *testing.T) {
	data, series := bigState(200)
	var in []Entry
	for i := range 6 {
		in = append(in, entry(fmt.Sprintf("hosted:%d", i), data, series))
	}
	in = append(in, entry("hosted:9", json.RawMessage(`{"count":3}`), nil))
	out := Fit(in)
	total := 0
	for i, e := range out {
		size := entrySize(t, e)
		total += size
		if size > EntryBudget {
			t.Errorf("entry %d: %d bytes, over %d", i, size, EntryBudget)
		}
		if i < 6 && size <= TotalBudget/len(in) {
			t.Errorf("entry %d: %d bytes, no more than an even split: the small entry's room was lost", i, size)
		}
	}
	if total > TotalBudget {
		t.Errorf("delivery of %d bytes, over %d", total, TotalBudget)
	}
	if !reflect.DeepEqual(out[6], in[6]) {
		t.Errorf("small entry changed")
	}
	if total < TotalBudget-6*100 {
		t.Errorf("delivery of %d bytes wastes its budget", total)
	}
}

// spec: H-SUB2
func TestFitInvalidData(t *testing.T) {
	e := entry("hosted:1", json.RawMessage(`{"a":`), nil)
	out := Fit([]Entry{e, e})
	want := e
	want.Data = json.RawMessage("null")
	want.Trimmed = []Dropped{{Pointer: "", Dropped: 1, What: WhatValue}}
	if !reflect.DeepEqual(out[0], want) {
		t.Fatalf("got %+v", out[0])
	}
}

// An entry that already reports cuts keeps them, and the new ones follow.
func TestFitKeepsEarlierReport(t *testing.T) {
	data, series := bigState(200)
	e := entry("hosted:1", data, series)
	e.Trimmed = []Dropped{{Pointer: "/older", Dropped: 3, What: WhatElements}}
	out := Fit([]Entry{e, e})
	if len(out[0].Trimmed) != 2 || out[0].Trimmed[0] != e.Trimmed[0] || out[0].Trimmed[1].Pointer != "/candles" {
		t.Fatalf("trimmed %+v", out[0].Trimmed)
	}
	if size := entrySize(t, out[0]); size > EntryBudget {
		t.Fatalf("entry of %d bytes", size)
	}
	if len(e.Trimmed) != 1 {
		t.Fatal("Fit changed its input")
	}
}

// Far too many entries cannot all fit in 16 KiB; none is dropped, each is cut to its smallest.
func TestFitTooManyEntries(t *testing.T) {
	var in []Entry
	for i := range 300 {
		in = append(in, entry(fmt.Sprintf("hosted:%d", i), json.RawMessage(`{"count":[1,2,3]}`), nil))
	}
	out := Fit(in)
	if len(out) != len(in) {
		t.Fatalf("%d entries became %d", len(in), len(out))
	}
	for i, e := range out {
		if !json.Valid(e.Data) || len(e.Trimmed) == 0 {
			t.Fatalf("entry %d: %s %+v", i, e.Data, e.Trimmed)
		}
	}
}

func TestFitNothing(t *testing.T) {
	if out := Fit(nil); len(out) != 0 {
		t.Fatal(out)
	}
}
