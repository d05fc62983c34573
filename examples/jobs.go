package examples

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gdamore/tcell/v2"
	"golang.org/x/sys/unix"

	"tickmux/tick"
	"tickmux/tick/wire"
)

// jobs is the example that shows what only a Tick host can do: an agent asks to run a command
// (a mutating call, so the person approves it first), the person watches its output live in the
// pane and can stop it, and the job's status and exit code arrive in the state, so an agent
// waiting on the Tick is woken by the update when the job ends instead of polling a terminal.

func init() {
	register(Example{
		Name:    "jobs",
		Summary: "a task runner: agents start commands, the person watches them live, updates say when each ends",
		Usage:   "[--dir DIR]",
		Run:     runJobs,
	})
}

const (
	jobsInState    = 20   // newest jobs in the state
	jobsKept       = 100  // jobs remembered; the oldest finished ones are forgotten first
	jobOutputKept  = 5000 // output lines kept per job
	jobTail        = 3    // output lines per job in the state
	jobLineMax     = 2000 // runes of one output line
	jobOutputMax   = 1000 // lines one output call returns at most
	jobStopGrace   = 3 * time.Second
	jobOutputGrace = 500 * time.Millisecond // after exit, how long to wait for output still in the pipe
)

func runJobs(ctx context.Context, args []string) error {
	dir := "."
	switch {
	case len(args) == 2 && args[0] == "--dir":
		dir = args[1]
	case len(args) != 0:
		return errors.New("usage: jobs [--dir DIR]")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	r, err := newJobRunner(abs)
	if err != nil {
		return err
	}
	defer r.close()
	return r.srv.Run(ctx, &tick.UI{Draw: r.draw, Key: r.key})
}

// job is one command and what became of it.
type job struct {
	ID       int64
	Command  string
	Dir      string
	By       string // "agent" or "person"
	Status   string // "running", "exited", "killed"
	ExitCode int
	Signal   string
	StopBy   string // who asked it to stop
	Started  time.Time
	Ended    time.Time

	pgid     int
	output   []string // the newest jobOutputKept lines, cleaned
	outTotal int64
	done     chan struct{} // closed when the job has ended and its output is read
	outR     *os.File      // the read end of the output pipe, closed by the reader
}

// jobView is a job as the state and the tools show it.
type jobView struct {
	ID       int64    `json:"id"`
	Command  string   `json:"command"`
	Dir      string   `json:"dir"`
	By       string   `json:"by"`
	Status   string   `json:"status"`
	ExitCode *int     `json:"exit_code,omitempty"`
	Signal   string   `json:"signal,omitempty"`
	StopBy   string   `json:"stopped_by,omitempty"`
	Started  string   `json:"started"`
	Seconds  float64  `json:"seconds,omitempty"` // run time, once ended
	Lines    int64    `json:"output_lines"`
	Tail     []string `json:"tail"`
}

// jobsState is the data of each update. It changes when a job starts or ends, not with output,
// so an agent waiting on the Tick wakes for what matters.
type jobsState struct {
	Running  int       `json:"running"`
	Finished int       `json:"finished"`
	Jobs     []jobView `json:"jobs"` // the newest last (declared as a series)
}

type jobRunner struct {
	srv *tick.Server
	dir string // where commands run unless a call says otherwise

	mu     sync.Mutex
	jobs   []*job // oldest first
	nextID int64
	closed bool
	wg     sync.WaitGroup // every job's goroutines

	// UI state, touched on the UI goroutine only.
	selected int64 // the job whose output is shown; 0 for the newest
	scroll   int   // output lines above the bottom
	prompt   *lineEdit
	status   string
}

func newJobRunner(dir string) (*jobRunner, error) {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", dir)
	}
	r := &jobRunner{dir: dir, nextID: 1}
	idSchema := `{"type":"integer","minimum":1}`
	srv, err := tick.New(tick.Tick{
		Kind:  "example.jobs",
		Title: "Jobs",
		Description: "Runs shell commands in the background while the person watches their output. The state lists each job " +
			"with its status and exit code and changes when a job starts or ends: wait for an update instead of polling.",
		Tools: []tick.ToolSpec{
			{
				Name: "run",
				Description: "Start a shell command (sh -c) in the background and return its job id at once. " +
					"The person sees its output live; the state shows when it ends and its exit code.",
				Mutates: true,
				InputSchema: json.RawMessage(`{"type":"object","properties":{
					"command":{"type":"string","minLength":1,"maxLength":4000},
					"dir":{"type":"string","minLength":1,"description":"Working directory; relative paths start from the Tick's."}},
					"required":["command"],"additionalProperties":false}`),
				Handler: tick.HandlerOf(func(ctx context.Context, a struct{ Command, Dir string }) (any, error) {
					j, err := r.start(a.Command, a.Dir, "agent")
					if err != nil {
						return nil, err
					}
					return r.view(j, 0), nil
				}),
			},
			{
				Name:        "stop",
				Description: fmt.Sprintf("Stop a running job: SIGTERM to its process group, SIGKILL after %v.", jobStopGrace),
				Mutates:     true,
				InputSchema: json.RawMessage(`{"type":"object","properties":{"id":` + idSchema + `},"required":["id"],"additionalProperties":false}`),
				Handler: tick.HandlerOf(func(ctx context.Context, a struct{ ID int64 }) (any, error) {
					if err := r.stop(a.ID, "agent"); err != nil {
						return nil, err
					}
					return map[string]any{"id": a.ID, "stopping": true}, nil
				}),
			},
			{
				Name: "output",
				Description: fmt.Sprintf("Read a job's output lines (stdout and stderr together). With from: lines from that number on; "+
					"otherwise the last ones. At most %d lines; the newest %d lines of each job are kept.", jobOutputMax, jobOutputKept),
				InputSchema: json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{"id":%s,
					"from":{"type":"integer","minimum":1},"limit":{"type":"integer","minimum":1,"maximum":%d,"default":200}},
					"required":["id"],"additionalProperties":false}`, idSchema, jobOutputMax)),
				Handler: tick.HandlerOf(func(ctx context.Context, a struct {
					ID, From int64
					Limit    int
				}) (any, error) {
					return r.output(a.ID, a.From, a.Limit)
				}),
			},
		},
		State: &wire.StateDeclaration{Series: []wire.Series{{Path: "/jobs", Newest: wire.NewestLast}}},
	})
	if err != nil {
		return nil, err
	}
	r.srv = srv
	r.mu.Lock()
	defer r.mu.Unlock()
	return r, srv.Update(r.stateLocked())
}

// errNoJob refuses a call about a job that does not exist; nothing changed.
func errNoJob(id int64) error {
	return &wire.ResponseError{Code: wire.CodeInvalidParams, Message: fmt.Sprintf("there is no job %d; the state lists the jobs", id)}
}

// start runs command in a process group of its own, so that stop reaches everything it starts.
func (r *jobRunner) start(command, dir, by string) (*job, error) {
	switch {
	case dir == "":
		dir = r.dir
	case !filepath.IsAbs(dir):
		dir = filepath.Join(r.dir, dir)
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, &wire.ResponseError{Code: wire.CodeInvalidParams, Message: fmt.Sprintf("%s is not a directory; nothing was started", dir)}
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("/bin/sh", "-c", command)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = outW, outW // stdin is /dev/null
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}

	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		outR.Close()
		outW.Close()
		return nil, tick.ErrStopped
	}
	if err := cmd.Start(); err != nil {
		outR.Close()
		outW.Close()
		return nil, &wire.ResponseError{Code: wire.CodeInvalidParams, Message: "the command could not be started: " + err.Error()}
	}
	outW.Close()
	j := &job{ID: r.nextID, Command: command, Dir: dir, By: by, Status: "running", Started: time.Now(),
		pgid: cmd.Process.Pid, done: make(chan struct{}), outR: outR}
	r.nextID++
	r.jobs = append(r.jobs, j)
	r.forgetLocked()
	readDone := make(chan struct{})
	r.wg.Add(2)
	// Owned by the job: ends at the end of the output (every holder of the pipe gone), or
	// when close closes the pipe.
	go func() {
		defer r.wg.Done()
		defer close(readDone)
		r.readOutput(j)
	}()
	// Owned by the job: ends when the command exits and its output is read.
	go func() {
		defer r.wg.Done()
		err := cmd.Wait()
		select { // a background process may hold the pipe open: don't wait for it long
		case <-readDone:
		case <-time.After(jobOutputGrace):
		}
		r.finish(j, cmd.ProcessState, err)
	}()
	_ = r.srv.Update(r.stateLocked())
	return j, nil
}

// readOutput collects a job's output lines and asks for a new frame; output changes no state.
func (r *jobRunner) readOutput(j *job) {
	defer j.outR.Close()
	sc := bufio.NewScanner(j.outR)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := clean(sc.Text(), jobLineMax)
		r.mu.Lock()
		j.output = append(j.output, line)
		j.outTotal++
		if len(j.output) > jobOutputKept {
			j.output = append(j.output[:0], j.output[len(j.output)-jobOutputKept:]...)
		}
		r.mu.Unlock()
		r.srv.Redraw()
	}
}

func (r *jobRunner) finish(j *job, ps *os.ProcessState, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	j.Ended = time.Now()
	j.Status, j.ExitCode = "exited", -1
	if ps != nil {
		j.ExitCode = ps.ExitCode()
		if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			j.Status, j.Signal = "killed", unix.SignalName(ws.Signal())
		}
	} else if err != nil {
		j.output = append(j.output, "tickmux: "+err.Error())
	}
	close(j.done)
	_ = r.srv.Update(r.stateLocked())
}

func (r *jobRunner) find(id int64) *job {
	for _, j := range r.jobs {
		if j.ID == id {
			return j
		}
	}
	return nil
}

func (r *jobRunner) stop(id int64, by string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	j := r.find(id)
	if j == nil {
		return errNoJob(id)
	}
	if j.Status != "running" {
		return &wire.ResponseError{Code: wire.CodeInvalidParams, Message: fmt.Sprintf("job %d is not running: it %s", id, r.view(j, 0).Status)}
	}
	if j.StopBy == "" {
		j.StopBy = by
		_ = r.srv.Update(r.stateLocked())
	}
	_ = syscall.Kill(-j.pgid, syscall.SIGTERM)
	pgid, done := j.pgid, j.done
	time.AfterFunc(jobStopGrace, func() {
		select {
		case <-done:
		default:
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
		}
	})
	return nil
}

// jobOutput is the result of the output tool.
type jobOutput struct {
	jobView
	FirstKept int64        `json:"first_kept"`
	Output    []outputLine `json:"lines"`
}

type outputLine struct {
	N    int64  `json:"n"`
	Text string `json:"text"`
}

func (r *jobRunner) output(id, from int64, limit int) (jobOutput, error) {
	if limit <= 0 {
		limit = 200
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	j := r.find(id)
	if j == nil {
		return jobOutput{}, errNoJob(id)
	}
	first := j.outTotal - int64(len(j.output)) + 1 // the number of j.output[0]
	res := jobOutput{jobView: r.view(j, 0), FirstKept: first, Output: []outputLine{}}
	start := int64(len(j.output) - limit)
	if from > 0 {
		start = from - first
	}
	for i := max(0, start); i < int64(len(j.output)) && len(res.Output) < limit; i++ {
		res.Output = append(res.Output, outputLine{N: first + i, Text: j.output[i]})
	}
	return res, nil
}

// forgetLocked drops the oldest finished jobs beyond jobsKept.
func (r *jobRunner) forgetLocked() {
	for len(r.jobs) > jobsKept {
		i := 0
		for i < len(r.jobs) && r.jobs[i].Status == "running" {
			i++
		}
		if i == len(r.jobs) {
			return
		}
		r.jobs = append(r.jobs[:i], r.jobs[i+1:]...)
	}
}

// view shows a job with the last tail lines of its output.
func (r *jobRunner) view(j *job, tail int) jobView {
	v := jobView{ID: j.ID, Command: j.Command, Dir: j.Dir, By: j.By, Status: j.Status, Signal: j.Signal, StopBy: j.StopBy,
		Started: j.Started.UTC().Format(time.RFC3339), Lines: j.outTotal, Tail: []string{}}
	if j.Status == "exited" {
		code := j.ExitCode
		v.ExitCode = &code
	}
	if j.Status != "running" {
		v.Seconds = float64(j.Ended.Sub(j.Started).Milliseconds()) / 1000
	}
	for _, l := range j.output[max(0, len(j.output)-tail):] {
		if rs := []rune(l); len(rs) > 160 {
			l = string(rs[:160]) + "…"
		}
		v.Tail = append(v.Tail, l)
	}
	return v
}

func (r *jobRunner) stateLocked() jobsState {
	st := jobsState{Jobs: []jobView{}}
	for _, j := range r.jobs {
		if j.Status == "running" {
			st.Running++
		} else {
			st.Finished++
		}
	}
	for _, j := range r.jobs[max(0, len(r.jobs)-jobsInState):] {
		st.Jobs = append(st.Jobs, r.view(j, jobTail))
	}
	return st
}

// close stops every running job (SIGTERM, then SIGKILL) and waits for the job goroutines.
func (r *jobRunner) close() {
	r.mu.Lock()
	r.closed = true
	var running []*job
	for _, j := range r.jobs {
		if j.Status == "running" {
			running = append(running, j)
			_ = syscall.Kill(-j.pgid, syscall.SIGTERM)
		}
	}
	r.mu.Unlock()
	deadline := time.After(time.Second)
	for _, j := range running {
		select {
		case <-j.done:
		case <-deadline:
			_ = syscall.Kill(-j.pgid, syscall.SIGKILL)
		}
	}
	r.mu.Lock()
	for _, j := range r.jobs {
		_ = syscall.Kill(-j.pgid, syscall.SIGKILL) // whatever a job left in its group
		j.outR.Close()                             // unblocks a reader held by an escaped process
	}
	r.mu.Unlock()
	r.wg.Wait()
}

func (r *jobRunner) key(ev *tcell.EventKey) {
	r.status = ""
	if r.prompt != nil {
		done, cancel := r.prompt.key(ev)
		switch {
		case cancel:
			r.prompt = nil
		case done:
			command := strings.TrimSpace(r.prompt.String())
			r.prompt = nil
			if command != "" {
				if j, err := r.start(command, "", "person"); err != nil {
					r.status = err.Error()
				} else {
					r.selected, r.scroll = j.ID, 0
				}
			}
		}
		return
	}
	r.mu.Lock()
	ids := make([]int64, len(r.jobs))
	for i, j := range r.jobs {
		ids[i] = j.ID
	}
	r.mu.Unlock()
	at := len(ids) - 1
	for i, id := range ids {
		if id == r.selected {
			at = i
		}
	}
	switch {
	case ev.Key() == tcell.KeyUp && at > 0:
		r.selected, r.scroll = ids[at-1], 0
	case ev.Key() == tcell.KeyDown && at >= 0 && at < len(ids)-1:
		r.selected, r.scroll = ids[at+1], 0
	case ev.Key() == tcell.KeyPgUp:
		r.scroll += 10
	case ev.Key() == tcell.KeyPgDn:
		r.scroll = max(0, r.scroll-10)
	case ev.Key() == tcell.KeyEnd:
		r.scroll = 0
	case ev.Key() == tcell.KeyRune && (ev.Rune() == 'n' || ev.Rune() == ':'):
		r.prompt = newLineEdit("run: ", "")
	case ev.Key() == tcell.KeyRune && ev.Rune() == 'k' && at >= 0:
		if err := r.stop(ids[at], "person"); err != nil {
			r.status = err.Error()
		}
	case ev.Key() == tcell.KeyRune && ev.Rune() == 'r' && at >= 0:
		r.mu.Lock()
		command, dir := r.find(ids[at]).Command, r.find(ids[at]).Dir
		r.mu.Unlock()
		if j, err := r.start(command, dir, "person"); err != nil {
			r.status = err.Error()
		} else {
			r.selected, r.scroll = j.ID, 0
		}
	}
}

// statusText is a job's status in a few words, with its style.
func statusText(v jobView) (string, tcell.Style) {
	switch {
	case v.Status == "running" && v.StopBy != "":
		return "stopping", styleWarn
	case v.Status == "running":
		return "running", styleInfo
	case v.Status == "killed":
		return "killed (" + v.Signal + ")", styleWarn
	case v.ExitCode != nil && *v.ExitCode == 0:
		return "ok", styleGood
	case v.ExitCode != nil:
		return fmt.Sprintf("exit %d", *v.ExitCode), styleError
	}
	return v.Status, styleNormal
}

func (r *jobRunner) draw(screen tcell.Screen) {
	w, h := screen.Size()
	listRows := max(1, min(8, h/3))
	outRows := max(0, h-listRows-4)

	r.mu.Lock()
	st := r.stateLocked()
	var sel *job
	if r.selected != 0 {
		sel = r.find(r.selected)
	}
	if sel == nil && len(r.jobs) > 0 {
		sel = r.jobs[len(r.jobs)-1]
	}
	var shown []string
	var selView jobView
	if sel != nil {
		selView = r.view(sel, 0)
		end := max(0, len(sel.output)-r.scroll)
		shown = append(shown, sel.output[max(0, end-outRows):end]...)
	}
	all := make([]jobView, 0, listRows)
	for _, j := range r.jobs[max(0, len(r.jobs)-listRows):] {
		all = append(all, r.view(j, 0))
	}
	r.mu.Unlock()

	bar(screen, 0, "Jobs", fmt.Sprintf("%d running, %d finished", st.Running, st.Finished))
	if len(all) == 0 {
		text(screen, 2, 2, w-2, styleDim, "No jobs yet. Press n to run a command, or let an agent call run.")
	}
	for i, v := range all {
		y := 1 + i
		status, style := statusText(v)
		rowStyle := styleNormal
		if sel != nil && v.ID == sel.ID {
			rowStyle = styleSelect
			fill(screen, 0, y, w, rowStyle)
		}
		x := text(screen, 1, y, w-1, rowStyle, fmt.Sprintf("#%-3d ", v.ID)) + 1
		if rowStyle == styleSelect {
			style = rowStyle
		}
		x += text(screen, x, y, 18, style, fmt.Sprintf("%-18s", status))
		x += text(screen, x, y, w-x, rowStyle.Dim(true), fmt.Sprintf("%-7s", v.By))
		text(screen, x, y, w-x, rowStyle, clean(v.Command, w))
	}
	y := 1 + listRows
	if sel != nil {
		title := fmt.Sprintf("── #%d  %s  (%d lines", selView.ID, clean(selView.Command, w), selView.Lines)
		if r.scroll > 0 {
			title += fmt.Sprintf(", %d up", r.scroll)
		}
		text(screen, 0, y, w, styleDim, title+") "+strings.Repeat("─", w))
		for i, line := range shown {
			text(screen, 1, y+1+i, w-1, styleNormal, line)
		}
	}
	switch {
	case r.prompt != nil:
		r.prompt.draw(screen, h-2)
		bar(screen, h-1, "Enter run   Esc cancel", "")
		return
	case r.status != "":
		text(screen, 1, h-2, w-1, styleError, clean(r.status, w))
	}
	bar(screen, h-1, "n new   k stop   r again   ↑↓ select   PgUp PgDn scroll   Ctrl-C quit", "")
}
