package gputelemetry

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/abbench/abbench/internal/deathsig"
)

// Schema names RecordFile's format.
const Schema = "abbench-gpu-telemetry-v1"

// The sampler's files, relative to the run directory: nvidia-smi's lines
// as it printed them, and the record of how they were taken.
const (
	SamplesFile = "telemetry/gpu.csv"
	RecordFile  = "telemetry/gpu.json"
)

// Defaults of Options.
const (
	DefaultInterval = 200 * time.Millisecond
	// DefaultMaxLines keeps 100,000 lines (about 10 MB): eight GPUs
	// sampled every 200 ms for 20 minutes at full rate, then every
	// second sample for the next 20, every fourth for the next 20, ...:
	// about five hours in all before lines are dropped.
	DefaultMaxLines = 100_000
	// maxLine bounds one line: a sample is about 120 bytes.
	maxLine = 1024
	// killWait bounds the wait for a SIGKILLed sampler to be gone.
	killWait = 10 * time.Second
)

// Record says how the samples were taken, for the evidence to say what
// they cover.
type Record struct {
	Schema string `json:"schema"`
	// Host is the node sampled (the controller's).
	Host       string    `json:"host,omitempty"`
	Command    []string  `json:"command"`
	Fields     []string  `json:"fields"`
	IntervalMS int64     `json:"interval_ms"`
	Started    time.Time `json:"started"`
	Ended      time.Time `json:"ended"`
	// Lines are the lines kept in SamplesFile, within MaxLines: past
	// half of it, each GPU's lines are kept ever more sparsely (Strides),
	// so that the samples span the whole phase; Downsampled are the
	// lines left out so. Dropped are the lines not kept otherwise
	// (longer than a sample can be, cut by the stop, past the cap).
	Lines       int      `json:"lines"`
	Strides     []Stride `json:"strides,omitempty"`
	Downsampled int      `json:"downsampled,omitempty"`
	Dropped     int      `json:"dropped,omitempty"`
	// Error says how the sampler failed: it could not start, or ended on
	// its own before the measured phase did (with its last line of
	// standard error).
	Error string `json:"error,omitempty"`
}

// Interval is the record's sampling interval.
func (r Record) Interval() time.Duration { return time.Duration(r.IntervalMS) * time.Millisecond }

// Options configure a Sampler.
type Options struct {
	// Path is nvidia-smi's path.
	Path string
	// Dir is the run directory: the samples go to Dir/SamplesFile.
	Dir      string
	Interval time.Duration
	MaxLines int
	// Deadline stops the sampler on its own, should its caller never
	// stop it; Grace is the time between its SIGTERM and SIGKILL.
	Deadline, Grace time.Duration
}

// Sampler is nvidia-smi sampling in its loop.
type Sampler struct {
	opts     Options
	rec      Record
	cmd      *exec.Cmd
	out      *os.File
	done     chan struct{} // closed when the process and its reader ended
	stopOnce sync.Once
	stopping chan struct{}
	stopErr  error
	stderr   tail
	timer    *time.Timer
	started  chan struct{} // closed when the loop is started (or could not be): cmd, out, timer and rec are set
	// mu orders a restart with the older field's name (the reader's)
	// against stop's signal: stop signals the process that runs now.
	mu sync.Mutex
}

// Start starts nvidia-smi's loop of Fields every opts.Interval. A sampler
// that cannot start is no error: its Record says why.
func Start(opts Options) *Sampler {
	if opts.Interval <= 0 {
		opts.Interval = DefaultInterval
	}
	if opts.MaxLines <= 0 {
		opts.MaxLines = DefaultMaxLines
	}
	s := &Sampler{opts: opts, done: make(chan struct{}), stopping: make(chan struct{}), started: make(chan struct{}), stderr: tail{max: 4096}}
	s.rec = Record{Schema: Schema, IntervalMS: opts.Interval.Milliseconds(), Started: time.Now().UTC()}
	s.ask(EventField)
	// Started beside the caller, who goes on to start the measured
	// phase's client: nvidia-smi's first sample is tens of milliseconds
	// away in any case, and starting it (a file made, a process spawned
	// and waited for until it runs) held every run's client back by
	// 5 to 10 ms on a GPU host (bench/campaign-overhead.sh, telemetry
	// on and off in turn).
	go func() {
		defer close(s.started)
		s.rec.Host, _ = os.Hostname() // "" when the kernel will not say: the record still holds
		if err := s.start(); err != nil {
			s.rec.Error = "nvidia-smi could not be started: " + err.Error()
			close(s.done)
			return
		}
		s.timer = time.AfterFunc(opts.Deadline, func() { s.stop() })
	}()
	return s
}

// ask sets the record's fields and command to those of a query of the
// clock reasons by the name reasons.
func (s *Sampler) ask(reasons string) {
	s.rec.Fields = Fields(reasons)
	s.rec.Command = []string{filepath.Base(s.opts.Path), "--query-gpu=" + strings.Join(s.rec.Fields, ","), "--format=csv,noheader,nounits",
		"-lms", fmt.Sprint(s.opts.Interval.Milliseconds())}
}

// badArgument is nvidia-smi's exit status for an argument it does not
// take (its manual's RETURN VALUE 2): a driver before R535 asked for
// EventField.
const badArgument = 2

func (s *Sampler) start() error {
	if err := os.MkdirAll(filepath.Join(s.opts.Dir, filepath.Dir(SamplesFile)), 0o755); err != nil {
		return err
	}
	out, err := os.Create(filepath.Join(s.opts.Dir, SamplesFile))
	if err != nil {
		return err
	}
	stdout, err := s.spawn()
	if err != nil {
		_ = out.Close() // nothing was written
		return err
	}
	s.out = out
	go s.read(stdout)
	return nil
}

// spawn starts nvidia-smi's loop as the record's command says.
func (s *Sampler) spawn() (io.Reader, error) {
	args := append([]string{s.opts.Path}, s.rec.Command[1:]...)
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stderr = &s.stderr
	// Its own group, so a stop reaches whatever it started; and it dies
	// with abbench: it must never outlive the run.
	cmd.SysProcAttr = deathsig.With(&syscall.SysProcAttr{Setpgid: true}, syscall.SIGKILL)
	stdout, err := cmd.StdoutPipe()
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		return nil, err
	}
	s.cmd = cmd
	return stdout, nil
}

// read keeps the lines nvidia-smi prints, within MaxLines (downsampled
// past half of it), then waits for it to end. A driver before R535
// refuses EventField at once (badArgument, no line printed): the loop is
// started again with ThrottleField. Asking the driver first which name it
// takes cost a run an nvidia-smi call (about 40 ms on an H200 host)
// before its client could start.
func (s *Sampler) read(stdout io.Reader) {
	defer close(s.done)
	w := bufio.NewWriter(s.out)
	k := newKeeper(s.opts.MaxLines)
	defer func() { s.rec.Strides = k.strides }()
	var waitErr error
	for {
		s.keep(stdout, w, k)
		waitErr = s.cmd.Wait()
		if next := s.restartOlder(waitErr); next != nil {
			stdout = next
			continue
		}
		break
	}
	werr := w.Flush()
	if cerr := s.out.Close(); werr == nil {
		werr = cerr
	}
	select {
	case <-s.stopping:
	default:
		s.rec.Error = fmt.Sprintf("nvidia-smi ended before the measured phase did (%v); last line of its standard error: %s", waitErr, s.stderr.lastLine())
	}
	if werr != nil && s.rec.Error == "" {
		s.rec.Error = fmt.Sprintf("writing %s: %v", SamplesFile, werr)
	}
}

// keep reads one nvidia-smi process's lines to its end.
func (s *Sampler) keep(stdout io.Reader, w *bufio.Writer, k *keeper) {
	r := bufio.NewReaderSize(stdout, maxLine)
	for {
		line, err := r.ReadSlice('\n')
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			s.rec.Dropped++
			for errors.Is(err, bufio.ErrBufferFull) { // the rest of the line
				_, err = r.ReadSlice('\n')
			}
		case len(line) > 0 && (line[len(line)-1] != '\n' || k.full(s.rec.Lines)):
			s.rec.Dropped++ // cut short by the stop, or past the sparsest stride
		case len(line) > 0 && k.keep(line, s.rec.Lines):
			w.Write(line)
			s.rec.Lines++
		case len(line) > 0:
			s.rec.Downsampled++
		}
		if err != nil {
			return
		}
	}
}

// restartOlder starts the loop again with ThrottleField where the one
// that ended refused EventField before printing a line and the sampler
// is not being stopped; nil where it is not started again.
func (s *Sampler) restartOlder(waitErr error) io.Reader {
	var exit *exec.ExitError
	if s.rec.Fields[len(s.rec.Fields)-1] != EventField || s.rec.Lines+s.rec.Dropped+s.rec.Downsampled > 0 ||
		!errors.As(waitErr, &exit) || exit.ExitCode() != badArgument {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.stopping:
		return nil
	default:
	}
	s.ask(ThrottleField)
	s.stderr.reset()
	stdout, err := s.spawn()
	if err != nil {
		return nil // the record says the first ended early, with its standard error
	}
	return stdout
}

// stop sends the sampler's group SIGTERM, then SIGKILL after the grace,
// and waits for it to be gone (at most killWait after the SIGKILL).
func (s *Sampler) stop() {
	s.stopOnce.Do(func() {
		s.mu.Lock()
		close(s.stopping)
		cmd := s.cmd
		s.mu.Unlock()
		if cmd == nil {
			return
		}
		pgid := cmd.Process.Pid
		_ = syscall.Kill(-pgid, syscall.SIGTERM)
		select {
		case <-s.done:
		case <-time.After(s.opts.Grace):
		}
		_ = syscall.Kill(-pgid, syscall.SIGKILL) // its children too, even when it exited
		select {
		case <-s.done:
		case <-time.After(killWait):
			s.stopErr = fmt.Errorf("nvidia-smi (pid %d) did not end %s after SIGKILL", pgid, killWait)
		}
	})
}

// Stop ends the sampling and returns its record.
func (s *Sampler) Stop() Record {
	<-s.started
	if s.timer != nil {
		s.timer.Stop()
	}
	s.stop()
	if s.stopErr != nil {
		// The reader still waits on the process: only what it never
		// writes is read, and the samples are not counted.
		return Record{Schema: s.rec.Schema, Command: s.rec.Command, Fields: s.rec.Fields, IntervalMS: s.rec.IntervalMS,
			Started: s.rec.Started, Ended: time.Now().UTC(), Error: s.stopErr.Error()}
	}
	<-s.done
	rec := s.rec
	rec.Ended = time.Now().UTC()
	return rec
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = t.buf[len(t.buf)-t.max:]
	}
	return len(p), nil
}

func (t *tail) reset() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = t.buf[:0]
}

func (t *tail) lastLine() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(string(t.buf)), "\n")
	return lines[len(lines)-1]
}
