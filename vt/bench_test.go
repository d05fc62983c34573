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
