package vt

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// Parser throughput (bytes of program output per second) on the kinds of output panes see. The
// writes are 4 KiB, as a PTY read returns them.
func benchWrite(b *testing.B, data []byte) {
	term := New(120, 30, nil)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for off := 0; off < len(data); off += 4096 {
			term.Write(data[off:min(off+4096, len(data))])
		}
	}
}

func benchData(line func(i int) string) []byte {
	var buf bytes.Buffer
	for i := 0; buf.Len() < 1<<20; i++ {
		buf.WriteString(line(i))
	}
	return buf.Bytes()
}

func BenchmarkWritePlainText(b *testing.B) {
	benchWrite(b, benchData(func(i int) string {
		return fmt.Sprintf("%6d the quick brown fox jumps over the lazy dog; lorem ipsum dolor sit amet\r\n", i)
	}))
}

func BenchmarkWriteColouredText(b *testing.B) {
	benchWrite(b, benchData(func(i int) string {
		return fmt.Sprintf("\x1b[01;34m%06d\x1b[0m  \x1b[38;5;%dmfile-%d.go\x1b[0m  \x1b[1;32mexecutable\x1b[0m\r\n", i, i%256, i)
	}))
}

func BenchmarkWriteCJK(b *testing.B) {
	benchWrite(b, benchData(func(i int) string {
		return fmt.Sprintf("%d 中文字符测试 日本語のテキスト 한국어 e\u0301 😀 mixed ascii text\r\n", i)
	}))
}

// BenchmarkWriteFullScreen is a full-screen program redrawing: cursor moves, colours, erases.
func BenchmarkWriteFullScreen(b *testing.B) {
	benchWrite(b, benchData(func(i int) string {
		var s strings.Builder
		fmt.Fprintf(&s, "\x1b[%d;1H\x1b[K\x1b[%dm%-40s\x1b[m\x1b[%d;60H%5d", i%30+1, 31+i%7, "status line text", i%30+1, i)
		return s.String()
	}))
}

// dashboard is frames of a full-screen program that redraws every cell of a cols x rows screen
// each frame, as `watch` and simple dashboards do: a coloured label, a counter and a bar on every
// row. With changing false only the counters change (about a tenth of the cells); with changing
// true every cell changes every frame.
func dashboard(cols, rows int, changing bool) []byte {
	var buf bytes.Buffer
	for f := 0; buf.Len() < 1<<20; f++ {
		buf.WriteString("\x1b[H")
		for y := 0; y < rows; y++ {
			fmt.Fprintf(&buf, "\x1b[%d;1H", y+1)
			if changing {
				for x := 0; x < cols; x += 10 {
					fmt.Fprintf(&buf, "\x1b[3%dm", (x/10+y+f)%8)
					for i := x; i < min(x+10, cols); i++ {
						buf.WriteByte(byte('a' + (i+y+f)%26))
					}
				}
				buf.WriteString("\x1b[m")
				continue
			}
			label := fmt.Sprintf("\x1b[1;34m%-20s\x1b[m", fmt.Sprintf("metric %d", y))
			counter := fmt.Sprintf("\x1b[33m%12d\x1b[m", f*7919+y*104729)
			bar := strings.Repeat("#", (y*7)%(cols-40))
			fmt.Fprintf(&buf, "%s%s  \x1b[32m%-*s\x1b[m", label, counter, cols-34, bar)
		}
	}
	return buf.Bytes()
}

func BenchmarkWriteDashboardMostlySame(b *testing.B) { benchWrite(b, dashboard(120, 30, false)) }

func BenchmarkWriteDashboardAllChange(b *testing.B) { benchWrite(b, dashboard(120, 30, true)) }

func flood(seq string) []byte { return bytes.Repeat([]byte(seq), (1<<20)/len(seq)) }

func BenchmarkWriteFloodIND(b *testing.B) { benchWrite(b, flood("\x1bD")) }

func BenchmarkWriteFloodRI(b *testing.B) { benchWrite(b, flood("\x1bM")) }

func BenchmarkWriteFloodED(b *testing.B) { benchWrite(b, flood("x\x1b[2J")) }

func BenchmarkWriteFloodRIS(b *testing.B) { benchWrite(b, flood("x\x1bc")) }

func BenchmarkWriteFloodRegion(b *testing.B) {
	benchWrite(b, flood("\x1b[5;20r\x1b[20Hline\n\x1b[5H\x1bMz\x1b[r"))
}

// wideFrames is dashboard frames with a CJK label and an emoji on every third row, as a
// dashboard of file names or a status line with a glyph draws them.
func wideFrames(cols, rows int) []byte {
	var buf bytes.Buffer
	for f := 0; buf.Len() < 1<<20; f++ {
		for y := 0; y < rows; y++ {
			fmt.Fprintf(&buf, "\x1b[%d;1H", y+1)
			label := fmt.Sprintf("metric %d", y)
			if y%3 == 0 {
				label = fmt.Sprintf("指标 %d ✅", y)
			}
			fmt.Fprintf(&buf, "\x1b[1;34m%s\x1b[m\x1b[K\x1b[%d;24H\x1b[33m%12d\x1b[m  %s", label, y+1, f*7919+y*104729, strings.Repeat("#", (y*7)%(cols-40)))
		}
	}
	return buf.Bytes()
}

// A pane that once showed a wide character redraws as fast as a fresh one (issue 29).
func BenchmarkWriteDashboardAfterWide(b *testing.B) {
	benchWrite(b, append([]byte("✅ done\r\n\x1b[H\x1b[2J"), dashboard(120, 30, false)...))
}

func BenchmarkWriteDashboardWideCells(b *testing.B) { benchWrite(b, wideFrames(120, 30)) }

// BenchmarkSnapshotEcho is a pane's draw after a key's echo: one character on a screen of text.
func BenchmarkSnapshotEcho(b *testing.B) {
	t := NewWithOptions(160, 44, Options{})
	for i := 0; i < 30; i++ {
		t.Write([]byte(fmt.Sprintf("line %d some text here and there \x1b[32mgreen\x1b[m more\r\n", i)))
	}
	var s Screen
	var r RowHashes
	ch := t.SnapshotChanged(&s, &r, nil)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t.Write([]byte("x"))
		ch = t.SnapshotChanged(&s, &r, ch)
	}
}
