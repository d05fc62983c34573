package tick

import (
	"bufio"
	"errors"
	"io"
)

// maxLineBytes caps one request line, the same cap the protocol puts on the Tick's lines (spec
// 3.6). A longer line is skipped whole; the reader never buffers more than this.
const maxLineBytes = 8 << 20

// readLines calls fn with each line read from r, without its "\n"; fn owns the slice. A final
// line missing its "\n" is still delivered. Lines over limit bytes are skipped. readLines returns
// r's error, io.EOF at a clean end.
func readLines(r io.Reader, limit int, fn func(line []byte)) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var line []byte
	skipping := false // inside a line that went over limit
	for {
		chunk, err := br.ReadSlice('\n')
		complete := err == nil
		if complete {
			chunk = chunk[:len(chunk)-1]
		}
		if !skipping {
			if len(line)+len(chunk) > limit {
				skipping, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if complete || (err != nil && !errors.Is(err, bufio.ErrBufferFull)) {
			if !skipping && len(line) > 0 {
				fn(line)
			}
			skipping, line = false, nil
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return err
		}
	}
}
