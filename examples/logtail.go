package examples

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gdamore/tcell/v2"

	"tickmux/tick"
	"tickmux/tick/wire"
)

func init() {
	register(Example{
		Name:    "logtail",
		Summary: "follows a log file: level counts and the last lines in the state, a query tool for ranges",
		Usage:   "[FILE]",
		Run:     runLogtail,
	})
}

const (
	logKept       = 5000 // lines kept in memory for the lines tool and the UI
	logInState    = 8    // newest lines in the state
	logLineMax    = 4096 // bytes of one line kept; the rest is cut
	logStateText  = 160  // runes of a line's text in the state
	logPoll       = 200 * time.Millisecond
	logStartBytes = 1 << 20 // a longer file is followed from its last MiB
	logReadChunk  = 4 << 20 // bytes read per poll at most, so a flood stays responsive
	logQueryMax   = 500     // lines one lines call returns at most
)

// runLogtail follows FILE, or without one a demo log it writes itself in a temporary directory.
func runLogtail(ctx context.Context, args []string) error {
	if len(args) > 1 || len(args) == 1 && strings.HasPrefix(args[0], "-") {
		return errors.New("usage: logtail [FILE]")
	}
	path := ""
	if len(args) == 1 {
		path = args[0]
	} else {
		dir, err := os.MkdirTemp("", "tickmux-logtail-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir) // deferred first, so it runs after the goroutines below end
		path = filepath.Join(dir, "demo.log")
	}
	lt, err := newLogtail(path)
	if err != nil {
		return err
	}

	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	if len(args) == 0 {
		wg.Add(1)
		// Owned by runLogtail: ends when ctx is cancelled on return.
		go func() {
			defer wg.Done()
			writeDemoLog(ctx, path)
		}()
	}
	wg.Add(1)
	// Owned by runLogtail: ends when ctx is cancelled on return.
	go func() {
		defer wg.Done()
		lt.follow(ctx)
	}()
	return lt.srv.Run(ctx, &tick.UI{Draw: lt.draw, Key: lt.key})
}

// logLine is one line of the file.
type logLine struct {
	N     int64  `json:"n"` // line number, from 1 at the first line read
	Level string `json:"level"`
	Text  string `json:"text"`
}

// logLevels counts lines by level.
type logLevels struct {
	Error int64 `json:"error"`
	Warn  int64 `json:"warn"`
	Info  int64 `json:"info"`
	Debug int64 `json:"debug"`
	Other int64 `json:"other"`
}

func (l *logLevels) add(level string) {
	switch level {
	case "error":
		l.Error++
	case "warn":
		l.Warn++
	case "info":
		l.Info++
	case "debug":
		l.Debug++
	default:
		l.Other++
	}
}

// logState is the data of each update.
type logState struct {
	File      string    `json:"file"`
	Status    string    `json:"status"` // "following", or why not
	Lines     int64     `json:"lines"`  // lines read so far
	Levels    logLevels `json:"levels"`
	LastError *logLine  `json:"last_error,omitempty"`
	Last      []logLine `json:"last"` // the newest last (declared as a series)
	Skipped   int64     `json:"skipped_bytes,omitempty"`
	Truncated int       `json:"truncated,omitempty"` // times the file shrank and was read again from its start
}

type logtail struct {
	srv  *tick.Server
	path string

	mu        sync.Mutex
	lines     []logLine // the newest logKept, oldest first
	total     int64
	levels    logLevels
	lastError *logLine
	status    string
	skipped   int64
	truncated int

	// UI state, touched on the UI goroutine only.
	scroll     int // lines above the bottom; 0 follows the end
	errorsOnly bool
}

func newLogtail(path string) (*logtail, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	lt := &logtail{path: abs, status: "waiting for the file"}
	srv, err := tick.New(tick.Tick{
		Kind:        "example.logtail",
		Title:       "Log: " + filepath.Base(abs),
		Description: "Follows a log file as it grows: counts of lines by level and the newest lines are in the state; the lines tool reads ranges.",
		Tools: []tick.ToolSpec{{
			Name: "lines",
			Description: fmt.Sprintf("Read lines of the log by number, level or text. With from: the first matches from that line on; "+
				"otherwise the last matches up to to (or the end). At most %d lines; only the newest %d lines are kept.", logQueryMax, logKept),
			InputSchema: json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{
				"from":{"type":"integer","minimum":1},"to":{"type":"integer","minimum":1},
				"level":{"enum":["error","warn","info","debug","other"]},
				"contains":{"type":"string","description":"Case-insensitive text the line must contain."},
				"limit":{"type":"integer","minimum":1,"maximum":%d,"default":100}},"additionalProperties":false}`, logQueryMax)),
			Handler: tick.HandlerOf(func(ctx context.Context, q logQuery) (any, error) {
				return lt.query(q), nil
			}),
		}},
		RecoverWith: "lines",
		State:       &wire.StateDeclaration{Series: []wire.Series{{Path: "/last", Newest: wire.NewestLast}}},
	})
	if err != nil {
		return nil, err
	}
	lt.srv = srv
	lt.mu.Lock()
	defer lt.mu.Unlock()
	return lt, srv.Update(lt.stateLocked())
}

// logQuery is the args of the lines tool.
type logQuery struct {
	From     int64  `json:"from"`
	To       int64  `json:"to"`
	Level    string `json:"level"`
	Contains string `json:"contains"`
	Limit    int    `json:"limit"`
}

// logQueryResult is the result of the lines tool.
type logQueryResult struct {
	Lines     []logLine `json:"lines"`
	FirstKept int64     `json:"first_kept"` // the oldest line still in memory
	Total     int64     `json:"total"`
}

func (lt *logtail) query(q logQuery) logQueryResult {
	if q.Limit <= 0 {
		q.Limit = 100
	}
	contains := strings.ToLower(q.Contains)
	match := func(l logLine) bool {
		return (q.From == 0 || l.N >= q.From) && (q.To == 0 || l.N <= q.To) &&
			(q.Level == "" || l.Level == q.Level) &&
			(contains == "" || strings.Contains(strings.ToLower(l.Text), contains))
	}
	lt.mu.Lock()
	defer lt.mu.Unlock()
	res := logQueryResult{Lines: []logLine{}, Total: lt.total}
	if len(lt.lines) > 0 {
		res.FirstKept = lt.lines[0].N
	}
	if q.From > 0 {
		for _, l := range lt.lines {
			if match(l) && len(res.Lines) < q.Limit {
				res.Lines = append(res.Lines, l)
			}
		}
		return res
	}
	for i := len(lt.lines) - 1; i >= 0 && len(res.Lines) < q.Limit; i-- {
		if match(lt.lines[i]) {
			res.Lines = append(res.Lines, lt.lines[i])
		}
	}
	for i, j := 0, len(res.Lines)-1; i < j; i, j = i+1, j-1 {
		res.Lines[i], res.Lines[j] = res.Lines[j], res.Lines[i]
	}
	return res
}

// levelPattern finds a level word near the start of a line: "ERROR", "level=warn", "[info]".
// Compiled at its first use: every tickmux process links the examples, few run this one.
var levelPattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(fatal|panic|crit(?:ical)?|err(?:or)?|warn(?:ing)?|info|debug|trace)\b`)
})

// levelOf classifies a line by the first level word in its first 120 bytes.
func levelOf(line string) string {
	m := levelPattern().FindString(line[:min(len(line), 120)])
	switch strings.ToLower(m) {
	case "":
		return "other"
	case "warn", "warning":
		return "warn"
	case "info":
		return "info"
	case "debug", "trace":
		return "debug"
	}
	return "error"
}

// follow polls the file until ctx ends, publishing one update per poll that changed something.
func (lt *logtail) follow(ctx context.Context) {
	f := &follower{path: lt.path}
	defer f.close()
	ticker := time.NewTicker(logPoll)
	defer ticker.Stop()
	for {
		lines, ev := f.poll()
		lt.record(lines, ev)
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}

// record adds what one poll found and publishes it when anything changed.
func (lt *logtail) record(lines []string, ev pollEvent) {
	lt.mu.Lock()
	defer lt.mu.Unlock()
	changed := len(lines) > 0 || ev.status != lt.status || ev.truncated || ev.skipped > 0
	lt.status = ev.status
	lt.skipped += ev.skipped
	if ev.truncated {
		lt.truncated++
	}
	for _, text := range lines {
		lt.total++
		l := logLine{N: lt.total, Level: levelOf(text), Text: text}
		lt.levels.add(l.Level)
		if l.Level == "error" {
			e := l
			lt.lastError = &e
		}
		lt.lines = append(lt.lines, l)
	}
	if len(lt.lines) > logKept {
		lt.lines = append(lt.lines[:0], lt.lines[len(lt.lines)-logKept:]...)
	}
	if changed {
		_ = lt.srv.Update(lt.stateLocked())
	}
}

func (lt *logtail) stateLocked() logState {
	st := logState{File: lt.path, Status: lt.status, Lines: lt.total, Levels: lt.levels, Last: []logLine{}, Skipped: lt.skipped, Truncated: lt.truncated}
	short := func(l logLine) logLine {
		if r := []rune(l.Text); len(r) > logStateText {
			l.Text = string(r[:logStateText]) + "…"
		}
		return l
	}
	if lt.lastError != nil {
		e := short(*lt.lastError)
		st.LastError = &e
	}
	for _, l := range lt.lines[max(0, len(lt.lines)-logInState):] {
		st.Last = append(st.Last, short(l))
	}
	return st
}

// pollEvent is what a poll saw besides lines.
type pollEvent struct {
	status    string
	truncated bool  // the file shrank: read again from its start
	skipped   int64 // bytes skipped at the start of a long file
}

// follower reads what is appended to a file, across truncation and rotation (a new file at the
// same path). It is used by one goroutine.
type follower struct {
	path    string
	f       *os.File
	ino     uint64
	off     int64
	partial []byte // an unfinished last line
	// dropFirst: the next line ends a line whose start was skipped; it is not delivered.
	dropFirst bool
}

func (fl *follower) close() {
	if fl.f != nil {
		fl.f.Close()
		fl.f = nil
	}
}

func (fl *follower) poll() (lines []string, ev pollEvent) {
	ev.status = "following"
	if fl.f != nil {
		// A new file at the path (rotation): finish the old one, then switch.
		if st, err := os.Stat(fl.path); err == nil && inode(st) != fl.ino {
			lines = fl.read(lines)
			if len(fl.partial) > 0 { // the old file's last line never got its newline
				lines = fl.flushPartial(lines)
			}
			fl.close()
		}
	}
	if fl.f == nil {
		f, err := os.Open(fl.path)
		if errors.Is(err, fs.ErrNotExist) {
			ev.status = "waiting for the file to appear"
			return lines, ev
		}
		if err != nil {
			ev.status = "cannot open the file: " + err.Error()
			return lines, ev
		}
		st, err := f.Stat()
		if err != nil || !st.Mode().IsRegular() {
			f.Close()
			ev.status = "not a regular file"
			return lines, ev
		}
		fl.f, fl.ino, fl.off, fl.partial, fl.dropFirst = f, inode(st), 0, nil, false
		if st.Size() > logStartBytes {
			fl.off = st.Size() - logStartBytes
			fl.dropFirst = true // starting mid-line: the first line read is only its end
			ev.skipped = fl.off
		}
	}
	if st, err := fl.f.Stat(); err == nil && st.Size() < fl.off {
		fl.off, fl.partial, fl.dropFirst = 0, nil, false
		ev.truncated = true
	}
	return fl.read(lines), ev
}

// read appends the complete lines from the offset to the end (at most logReadChunk bytes).
func (fl *follower) read(lines []string) []string {
	buf := make([]byte, 64<<10)
	for read := 0; read < logReadChunk; {
		n, err := fl.f.ReadAt(buf, fl.off)
		fl.off += int64(n)
		read += n
		data := buf[:n]
		for len(data) > 0 {
			i := bytes.IndexByte(data, '\n')
			if i < 0 {
				fl.partial = append(fl.partial, data...)
				if len(fl.partial) > logLineMax { // a line without end: cut it here
					lines = fl.flushPartial(lines)
				}
				break
			}
			fl.partial = append(fl.partial, data[:i]...)
			lines = fl.flushPartial(lines)
			data = data[i+1:]
		}
		if err != nil || n == 0 {
			if err != nil && !errors.Is(err, io.EOF) {
				return lines
			}
			break
		}
	}
	return lines
}

// flushPartial delivers the line gathered in partial.
func (fl *follower) flushPartial(lines []string) []string {
	if fl.dropFirst {
		fl.dropFirst, fl.partial = false, fl.partial[:0]
		return lines
	}
	line := strings.TrimRight(string(fl.partial[:min(len(fl.partial), logLineMax)]), "\r")
	fl.partial = fl.partial[:0]
	return append(lines, line)
}

func inode(st fs.FileInfo) uint64 {
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		return uint64(sys.Ino)
	}
	return 0
}

func (lt *logtail) key(ev *tcell.EventKey) {
	switch ev.Key() {
	case tcell.KeyUp:
		lt.scroll++
	case tcell.KeyDown:
		lt.scroll = max(0, lt.scroll-1)
	case tcell.KeyPgUp:
		lt.scroll += 20
	case tcell.KeyPgDn:
		lt.scroll = max(0, lt.scroll-20)
	case tcell.KeyEnd:
		lt.scroll = 0
	case tcell.KeyRune:
		switch ev.Rune() {
		case 'e':
			lt.errorsOnly = !lt.errorsOnly
			lt.scroll = 0
		case 'f':
			lt.scroll = 0
		}
	}
}

func levelStyle(level string) tcell.Style {
	switch level {
	case "error":
		return styleError
	case "warn":
		return styleWarn
	case "debug":
		return styleDim
	case "info":
		return styleNormal
	}
	return styleNormal
}

func (lt *logtail) draw(screen tcell.Screen) {
	w, h := screen.Size()
	if h <= 0 {
		return
	}
	// What fits, top down: the header, then the newest lines, then the status, then the key
	// legend. A short pane drops the legend first, then the status; nothing is drawn over the
	// header (a 2-row pane drew the status on it, a 1-row pane the legend).
	rows, statusRow, legendRow := h-1, -1, -1
	switch {
	case h >= 4:
		rows, statusRow, legendRow = h-3, h-2, h-1
	case h == 3:
		rows, statusRow = 1, 2
	}
	lt.mu.Lock()
	st := lt.stateLocked()
	// The lines to show: the newest that fit, scroll lines up from the end.
	var shown []logLine
	skip := lt.scroll
	for i := len(lt.lines) - 1; i >= 0 && len(shown) < rows; i-- {
		l := lt.lines[i]
		if lt.errorsOnly && l.Level != "error" && l.Level != "warn" {
			continue
		}
		if skip > 0 {
			skip--
			continue
		}
		shown = append(shown, l)
	}
	if skip > 0 { // scrolled past the top: stay at the top
		lt.scroll -= skip
	}
	lt.mu.Unlock()

	bar(screen, 0, "Log  "+clean(filepath.Base(st.File), 40), fmt.Sprintf("error %d  warn %d  info %d", st.Levels.Error, st.Levels.Warn, st.Levels.Info))
	for i, l := range shown {
		y := rows - i
		x := text(screen, 0, y, w, styleDim, fmt.Sprintf("%6d ", l.N))
		text(screen, x, y, w-x, levelStyle(l.Level), clean(l.Text, w))
	}
	status := st.Status
	if lt.scroll > 0 {
		status = fmt.Sprintf("%d lines up (End to follow)", lt.scroll)
	}
	if lt.errorsOnly {
		status += "; errors and warnings only"
	}
	if statusRow >= 0 {
		text(screen, 1, statusRow, w-1, styleInfo, clean(status, w))
	}
	if legendRow >= 0 {
		bar(screen, legendRow, "↑↓ PgUp PgDn scroll   End follow   e errors only   Ctrl-C quit", "")
	}
}

// writeDemoLog appends a plausible service log to path until ctx ends, so that logtail without
// a file still has something to follow.
func writeDemoLog(ctx context.Context, path string) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	events := []string{
		"INFO  GET /api/orders 200 %dms",
		"INFO  GET /api/orders/%d 200 4ms",
		"DEBUG cache hit ratio 0.%d",
		"INFO  POST /api/checkout 201 %dms",
		"WARN  slow query on orders: %dms",
		"INFO  GET /healthz 200 1ms (%d)",
		"ERROR payment gateway timeout after %dms; retrying",
		"INFO  worker %d picked up job",
	}
	ticker := time.NewTicker(700 * time.Millisecond)
	defer ticker.Stop()
	for i := 1; ; i++ {
		line := fmt.Sprintf("%s "+events[(i*5+i/3)%len(events)]+"\n", time.Now().Format("15:04:05.000"), 3+(i*37)%900)
		if _, err := f.WriteString(line); err != nil {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}
